/* SPDX-License-Identifier: GPL-2.0-or-later */
/* loadstep.h - a run's load, in three steps: the load source chosen (the
 * kernel program, or a replay's measurement); the window's snapshots with
 * the source running over it; then each IRQ's load from the source (the
 * measurement, or the estimate with the per-event costs a measured run
 * recorded and the history's per-device fit), weighed with the load
 * history, which is kept for the next run, and the costs a measured run
 * leaves for the runs that can only estimate (a dry run keeps neither
 * unless a state-dir asks it to). An edge module: it reads
 * the clock and the costs file and says what went wrong; the models are
 * loadsrc.h's, sample.h's, costs.h's and history.h's. */
#ifndef IRQTUNE_LOADSTEP_H
#define IRQTUNE_LOADSTEP_H

#include <stdbool.h>

#include "appload.h"
#include "history.h"
#include "loadsrc.h"

struct device_map;
struct plan_irq;
struct plan_policy;
struct source;

/* What the steps read, and the run's parts they fill. */
struct loadstep_input {
	struct source *fs;		/* live, recording or replaying */
	const char *capture;		/* a replay's file, to name in messages */
	const char *want;		/* load-source: a source's name, "auto"; NULL: auto */
	enum bpfload_build build;	/* IRQTUNE_BPF_BUILD */
	double seconds;			/* the window's length */
	const char *counts_env;		/* IRQTUNE_COUNTS, a test switch; NULL: unset */
	unsigned int online;		/* online CPUs, for the counts' choice */
	unsigned int eligible;		/* CPUs IRQs may go to: fewer allowed is pinned */
	bool no_state;			/* --no-state */
	bool dry_run;			/* --dry-run: keeps no history, records no
					 * costs, unless state_dir is set */
	const char *state_dir;		/* the configuration's; NULL: not set */
	const struct device_map *map;	/* for loadstep_weigh() */
	struct sample_window *win;	/* its end is kept by the history */
	struct loadsrc *src;
	struct irqthreads *thr;
	/* The user threads sampled for the pinned application load, their
	 * online, eligible and limit set; NULL: not wanted (app-weight 0). */
	struct appthreads *app;
	unsigned int nr_ids;		/* the topology's, for the load per CPU */
};

struct loadstep {
	/* For the plan and the report: */
	struct irq_activity *act;	/* per IRQ of the map: the load to plan with */
	double *window_load;		/* the window's own, when the history weighed it */
	char note[HISTORY_NOTE_MAX];	/* what became of the history ("" none yet) */
	/* How the /proc estimate found each class's costs (unset: no
	 * per-device fit ran, or the load was measured) */
	struct estimate_found found;
	long hz;			/* USER_HZ of /proc/stat */
	double costs_now;		/* when the costs were judged; 0: not read */
	char begin_reason[LOADSRC_REASON_MAX];	/* the source's, on choosing */
	struct appload app;		/* the pinned threads' load per CPU, or why none */
	/* the rest is the module's */
	struct history hist;
	enum irq_class *class;
	struct measure_target *target;
	struct estimate_prior costs;
	bool have_costs;
	double costs_when;
	char boot[64];			/* this boot's id, "" unknown */
};

/* What the load sources know of each IRQ of @map, in its order: its class
 * (*@ret_class) and how a measurement names it (*@ret_target, labels
 * borrowed from @map). At least one entry each. 0 or -ENOMEM. Pure. */
int loadstep_targets(const struct device_map *map, enum irq_class **ret_class,
		     struct measure_target **ret_target);

/* Find the irq threads, decide whether the application threads are read,
 * and choose the load source (a replay: from the measurement the capture
 * holds). 0; -ENOMEM; -EBADMSG for a replay's
 * malformed measurement; or loadsrc_begin()'s -errno when bpf was wanted
 * and cannot be had. Each said first. */
int loadstep_choose(struct loadstep *ls, const struct loadstep_input *in);

/* The window's snapshots, the load source running over it and the irq
 * threads' and application threads' times taken at its ends. 0, or the -errno of the snapshot
 * that failed (-EBADMSG: a replay's), said first. */
int loadstep_window(const struct loadstep_input *in);

/* Each IRQ's load into @ls->act, weighed with the history, and the
 * pinned application load into @ls->app. 0; -EPROTO
 * when the measurement that was wanted disagrees with /proc/interrupts;
 * -EBADMSG for a replay without a valid hz; -ENOMEM. Each said first. */
int loadstep_weigh(struct loadstep *ls, const struct loadstep_input *in);

/* history_weigh_evidence() on the plan input @pi, and what the history
 * said of it. 0 or -ENOMEM. */
int loadstep_evidence(struct loadstep *ls, const struct plan_irq *pi, unsigned int nr,
		      unsigned int nr_ids, bool threshold_auto, struct plan_policy *pol);

void loadstep_release(struct loadstep *ls);

/* The IRQs of @map that refused a write on an earlier run of this boot
 * and kernel, marked kernel-managed (history_mark_refused()); and, after
 * the writes, those that refused in this run (@refused, per IRQ of @map)
 * remembered in the state kept (history_refused(), warning if it cannot
 * be saved). 0 or -ENOMEM. */
unsigned int loadstep_mark_refused(const struct loadstep *ls, struct device_map *map);
int loadstep_refused(struct loadstep *ls, const struct device_map *map, const bool *refused);

#endif
