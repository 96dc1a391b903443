/* SPDX-License-Identifier: GPL-2.0-or-later */
/* state.h - the file a run leaves for the next, /run/irqtune/state: each
 * IRQ's load history (an exponentially weighted mean and variance), each
 * CPU's pinned application load history (the same, by CPU id), the
 * per-device fit's equations and the counters the window ended with. Its
 * format only: what a run makes of a history is history.h's. */
#ifndef IRQTUNE_STATE_H
#define IRQTUNE_STATE_H

#include <stdbool.h>
#include <stddef.h>

#define STATE_VERSION	6	/* 3: counters keep a hash of each IRQ's description;
				 * 4: the fit's equations weighed, in built-in costs;
				 * 5: per CPU, the pinned application load's history;
				 * 6: the IRQs that refused a write ("refused") */
/* The oldest version still read: a 4 is a 5 without application lines, a
 * 5 a 6 without refusals. A file is written as the oldest version that
 * holds what it has, so that an irqtune of before reads it (a machine
 * without pinned threads or refusals keeps its history either way). */
#define STATE_VERSION_READ	4
#define STATE_VERSION_APP	5	/* a file with application lines, no refusals */
#define STATE_MAX_AGE	600.0	/* seconds: older history is not this load */
#define STATE_MAX_IRQS	65536
#define STATE_FILE_MAX	(16u << 20)
#define STATE_KEY_MAX	64

/* An IRQ is the same one only with the same number, device and name: a
 * freed number given to another device, or a replaced device, starts
 * afresh. */
struct state_irq {
	unsigned int irq;
	char device[STATE_KEY_MAX];	/* PCI address, "" for none */
	char name[STATE_KEY_MAX];	/* action names, as /proc/irq/N shows */
	double mean, var;		/* of its load, in CPUs */
	unsigned int runs;		/* windows since it last shifted */
	/* The weights behind the mean: a window counts for its length in
	 * seconds, halved every HISTORY_HALF_LIFE runs; their sum and the sum
	 * of their squares. */
	double weight, weight2;
	/* Not kept: when this run restarted it, the variance its windows
	 * had before (-1 otherwise), the precision of one more of them. */
	double shift_var;
	/* A CPU's application load history only: the IRQ load the CPU
	 * served in its last window, in CPUs. */
	double cpu_irq;
};

/* An IRQ whose affinity write the kernel refused as kernel-managed (EIO
 * or EPERM) though its file is writable: Linux 6.1's managed NVMe queues
 * accept the open and refuse every write. Remembered for this boot and
 * kernel release, and while the same device's IRQ of that number has
 * that name, so that later runs do not write it again. */
#define STATE_MAX_REFUSED	65536
struct state_refusal {
	unsigned int irq;
	char device[STATE_KEY_MAX];	/* PCI address or label, "" for none */
	char name[STATE_KEY_MAX];
	char release[STATE_KEY_MAX];	/* /proc/sys/kernel/osrelease */
};

/* A device of the per-device fit (devfit.h), by its id. */
struct state_dev {
	char id[STATE_KEY_MAX];		/* PCI address, or the group's label */
	int class;
};

struct snapshot;

/* The counters at the end of a run's window: the next run estimates over
 * the whole interval since (state_snap_usable()), a window sixty times
 * longer than its own when run every minute, for the price of keeping
 * the counts. Kept only below these bounds. */
#define STATE_SNAP_MAX_COUNTS	(1u << 18)	/* non-zero per-CPU IRQ counts */
#define STATE_SNAP_MAX_CPUS	16384

struct state {
	double when;
	/* Per online CPU with a history, ascending: its pinned application
	 * load's (state_irq.irq is the CPU id; device and name ""), of a
	 * machine of @nr_app_ids CPU ids. None (nr_app 0) when there was no
	 * application load. */
	unsigned int nr_app_ids, nr_app;
	struct state_irq *app;			/* seconds since the epoch */
	struct snapshot *snap;		/* NULL: none kept */
	bool snap_lent;			/* @snap is the caller's, not freed */
	unsigned int nr;
	struct state_irq *irqs;		/* ascending irq */
	unsigned int nr_dev;
	struct state_dev *devs;
	struct devfit *fit;		/* over devs; NULL: none */
	unsigned int nr_refused;
	struct state_refusal *refused;	/* ascending irq */
	/* Read from a file of this boot too old for its loads: only the
	 * refusals were kept (they do not age; a reboot forgets them). */
	bool aged;
};

/* @old's fit over the devices @ids (@nr of them, with their classes):
 * the equations of devices still there, kept; of others, dropped. */
struct devfit *state_fit_for(const struct state *old, const char *const *ids,
			     unsigned int nr);

void state_free(struct state *st);

/* The text of @st (malloc'd in *@ret); -ENOMEM. Pure. */
int state_format(const struct state *st, const char *boot_id, char **ret);
/* Parse @text, written on boot @boot_id at most STATE_MAX_AGE before @now.
 * -EINVAL (malformed, foreign, newer version, too many IRQs) or -ESTALE
 * (another boot, too old, from the future) with the reason in @why. A
 * file of this boot too old for its loads that remembers refusals: 0, an
 * aged state that holds only those. Pure. */
int state_parse(const char *text, const char *boot_id, double now,
		struct state **ret, char *why, size_t len);

/* Read @path as read_own_file() allows; its errors, or state_parse()'s. */
int state_load(const char *path, const char *boot_id, double now,
	       struct state **ret, char *why, size_t len);
/* Write it atomically, creating its directory if need be. */
int state_save(const char *path, const struct state *st, const char *boot_id);

/* A load believed: 0 to 4096 CPUs (the most a run plans is one a CPU). */
bool state_sane_load(double v);

/* Whether @snap's counters are within what a state keeps; a run whose
 * are not goes on without. The state then lends them (@snap_lent): the
 * file holds the window's end as this run read it, with no copy. */
bool state_snap_keepable(const struct snapshot *snap);
/* Whether @prev (from the state) and this run's @a and @b make one longer
 * window, prev to b: a later window of the same CPUs, in which every IRQ
 * that fired in a..b was already there as the same interrupt. @why says
 * why not. Pure. */
bool state_snap_usable(const struct snapshot *prev, const struct snapshot *a,
		       const struct snapshot *b, char *why, size_t len);

#endif
