/* SPDX-License-Identifier: GPL-2.0-or-later */
/* history.h - each IRQ's load history, from run to run: whether a run
 * keeps one, the per-device fit it lends the estimate, the longer interval
 * since the last run's window, the weighted means a run plans with, the
 * rule that tells a shifted load from noise, and the evidence rule that
 * judges a plan on several windows. The file it is kept in is state.h's.
 * Returns 0 or -errno; what a run should report is left in the struct for
 * the caller (note, warn), never logged here. */
#ifndef IRQTUNE_HISTORY_H
#define IRQTUNE_HISTORY_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "estimate.h"
#include "irqclass.h"
#include "state.h"

#define HISTORY_HALF_LIFE	4	/* runs: a window's weight halves in four */
/* A window this long (from cron, the minute since the last run) is
 * evidence on its own of a load that shifted: known to a tick of it. */
#define HISTORY_EVIDENCE_SECS	30.0
/* A window whose load departs from the history's mean by more than this
 * share of it (beside three of the windows' standard deviations and the
 * clock's resolution) is a shift: the history restarts from it. A load
 * halved or doubled is followed in the run that sees it. */
#define HISTORY_SHIFT		0.25
/* A CPU whose IRQ load moved by more than this (in CPUs, beside a clock
 * tick of the window) since the last run: its application's run time
 * there is not the same measure (a busy thread gets what IRQs leave), and
 * its history restarts instead of learning the move as noise. */
#define HISTORY_APP_IRQ_MOVED	0.02

#define HISTORY_NOTE_MAX	(PATH_MAX + 320)
#define HISTORY_WARN_MAX	(PATH_MAX + 320)

struct cpuset;
struct device_map;
struct snapshot;
struct state;
struct state_irq;

/* This run's window of IRQ i: its key, the load it measured, over how
 * many seconds (0: one), and whether the caller knows the load changed. */
struct state_sample {
	unsigned int irq;
	const char *device, *name;
	double load;
	double secs;
	bool shifted;
};

/* Where and whether a run keeps a history. */
struct history_opts {
	bool no_state;		/* --no-state */
	bool live;		/* neither a capture nor a replay */
	bool native;		/* /proc is the kernel's own */
	bool dry_run;		/* --dry-run: read, kept only in a state-dir */
	const char *state_dir;	/* state-dir; NULL: not set (_PATH_RUN_DIR) */
	double now;		/* CLOCK_REALTIME, to judge the file's age */
};

/* This run's window, for history_end(). */
struct history_window {
	const struct device_map *map;
	struct irq_activity *act;	/* per IRQ of @map: weighed in place */
	struct snapshot *b;		/* the window's end: kept for the next run */
	double secs;			/* the window's length */
	long hz;			/* USER_HZ of /proc/stat */
	bool measured;			/* the load was the kernel program's (bpf) */
	double now;			/* CLOCK_REALTIME */
	/* The pinned application load per CPU id below @nr_app_ids over the
	 * window (appload.h), weighed in place like an IRQ's: kept per
	 * CPU of @app_online (NULL: all), a CPU id at a time; NULL: none
	 * measured. @app_measured: the kernel program's. */
	double *app;
	unsigned int nr_app_ids;
	const struct cpuset *app_online;
	bool app_measured;
};

struct history {
	/* What became of the history, for the report ("" before a run's
	 * first call); and something the caller should warn about, set by
	 * the call that found it ("" none). */
	char note[HISTORY_NOTE_MAX];
	char warn[HISTORY_WARN_MAX];
	/* For the estimate: the per-device fit over this run's devices, the
	 * runs before it faded and this window's equations to be added (NULL
	 * fit: none). */
	struct devfit *fit;
	struct estimate_dev dev;
	/* How the estimate found each class's costs: by the interval since
	 * the last run where there is one, else by this window. */
	struct estimate_found found;
	/* Set by history_end() when a history is kept, per IRQ: the window's
	 * own load before weighing, and the variance of the mean planned (-1:
	 * one window, no evidence). The caller may take window_load (and set
	 * it NULL). */
	double *window_load;
	double *mean_var;
	/* Per CPU id below nr_app_var, the variance of the application
	 * load's mean planned (0: one window, or none); NULL: no application
	 * history kept. */
	double *app_var;
	unsigned int nr_app_var;

	/* the rest is the module's */
	/* IRQs that refused a write on earlier runs (the state's), of which
	 * those of this kernel @release count. */
	struct state_refusal *refused;
	unsigned int nr_refused;
	char release[STATE_KEY_MAX];
	struct state *saved;		/* what history_end() kept, for history_refused() */
	bool on;
	bool keep;			/* history_end() saves it: not a dry run's */
	char path[PATH_MAX];
	struct state *old;
	int *row_dev, *dev_class;
	double *dev_m;			/* the interval's multipliers, hard then soft */
	const char **ids;
	struct irq_activity *long_act;	/* from the last run's window to this one's */
	double *ev;			/* the devices' softirqs per interrupt in it */
	double long_s;			/* its length */
	char long_why[160];		/* why there is none */
};

/* Whether this run keeps a history (@o), the one it finds, and the fit over
 * @map's devices. @boot is this boot's id, read into it when "" and
 * needed. A history that cannot be trusted is left in @h->warn. 0 or
 * -ENOMEM. */
int history_begin(struct history *h, const struct history_opts *o,
		  const struct device_map *map, char *boot, size_t len);

/* The /proc estimate over the interval from the last run's window (kept
 * in the history) to this one's @a..@b, with the fit's equations of that
 * interval; nothing when the load was @measured or the interval is not
 * one window (h->long_why says why). 0 or -ENOMEM. */
int history_long(struct history *h, const struct snapshot *a, const struct snapshot *b,
		 const enum irq_class *class, long hz, const struct estimate_prior *prior,
		 bool measured);

/* Weigh each IRQ's window load (@w->act) with the interval before it and
 * its history, and each CPU's application load (@w->app) with its own;
 * keep the new history, but not a dry run's unless a state-dir asked for
 * it. An application history is kept only while some CPU has application
 * load, and restarts when the CPU ids changed or its CPU was offline. A
 * history that cannot be kept is left in @h->warn. 0 or -ENOMEM. */
int history_end(struct history *h, const struct history_window *w, const char *boot);

/* Mark the IRQs of @map that refused a write on an earlier run of this
 * boot and kernel, the same device's IRQ of that number with that name:
 * kernel-managed (not written again) and refused_before (the report says
 * so). The number marked. */
unsigned int history_mark_refused(const struct history *h, struct device_map *map);
/* After the writes: remember the IRQs of @map whose writes the kernel
 * refused as kernel-managed in this run (@refused, per IRQ), in the state
 * history_end() kept, saved again when that adds any. 0, or the save's
 * -errno (left in @h->warn too). */
int history_refused(struct history *h, const struct device_map *map, const bool *refused,
		    const char *boot);

/* One IRQ of a plan as its evidence is weighed: the history's own terms,
 * which the run's load step fills from the planner's input. */
struct history_placed {
	double load;		/* in CPUs, the history's weighted mean */
	int served;		/* the CPU serving it, -1: none known */
	bool fixed;		/* the plan leaves it where it is */
};

/* With a history behind every busy IRQ of @ip (above @idle_load and not
 * fixed; @nr of them, in the order of history_end()'s map, so @ip[i]'s
 * mean has @h->mean_var[i]; CPU ids below @nr_ids), judge the plan on it:
 * the standard error of the busiest CPU's loads (its IRQs' and its
 * application load's means) into *@ret_resolution, and say so, with the
 * threshold @stability the plan will then be held to, at the end of
 * @h->note. 1 when judged; 0 when some busy IRQ has no history, or none
 * is busy (*@ret_resolution and the note untouched); -ENOMEM. */
int history_weigh_evidence(struct history *h, const struct history_placed *ip,
			   unsigned int nr, unsigned int nr_ids, double idle_load,
			   double stability, double *ret_resolution);

void history_release(struct history *h);

/* Whether a window's load @s departs from the longer interval's before it
 * @l by more than the window can be off (@tick: a clock tick of it, in
 * CPUs): then the load changed since. Pure. */
bool history_window_shifted(double s, double l, double tick);

/* Combine @n samples (ascending irq) with the history @old (NULL: none)
 * into *@ret, and the load to plan with into @ret_load[i]. A sample that
 * departs from its mean by more than noise (three deviations,
 * HISTORY_SHIFT of the mean, and @floor), or says it shifted, is taken as
 * it is and its history restarts, so a real change is followed in one run;
 * otherwise the weighted mean is planned, each window weighed by its
 * length and halved every HISTORY_HALF_LIFE runs. 0 or -ENOMEM. Pure. */
int history_update(const struct state *old, const struct state_sample *s, unsigned int n,
		   double when, double floor, double *ret_load, struct state **ret);

/* The variance of @q's weighted mean, from the variance of its windows
 * and the weights the mean gave them since it last shifted; for a load
 * that shifted in a window of HISTORY_EVIDENCE_SECS or more, the variance
 * of such a window before it; -1 when one window is all it has and that
 * says little (new, or shifted in a short one): no evidence yet. Pure. */
double history_mean_var(const struct state_irq *q);

#endif
