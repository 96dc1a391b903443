/* SPDX-License-Identifier: GPL-2.0-or-later */
/* loadstep.h - a run's load step, after the window: each IRQ's load from
 * the load source (the measurement, or the estimate with the per-event
 * costs a measured run recorded and the history's per-device fit), then
 * weighed with the load history, which is kept for the next run; the
 * costs a measured run leaves for the runs that can only estimate. An
 * edge module: it reads the clock and the costs file and says what went
 * wrong; the models are loadsrc.h's, costs.h's and history.h's. */
#ifndef IRQTUNE_LOADSTEP_H
#define IRQTUNE_LOADSTEP_H

#include <stdbool.h>

#include "history.h"
#include "loadsrc.h"

struct device_map;
struct plan_irq;
struct plan_policy;
struct source;

/* What the step reads; the window's snapshots come from sample.h. */
struct loadstep_input {
	struct source *fs;		/* live, recording or replaying */
	const char *capture;		/* a replay's file, to name in messages */
	bool no_state;			/* --no-state */
	const char *state_dir;		/* the configuration's; NULL: not set */
	const struct device_map *map;
	const struct snapshot *a;
	struct snapshot *b;		/* the window's end: the history keeps it */
	struct loadsrc *src;		/* chosen, and stopped after the window */
	const struct irqthreads *thr;
};

struct loadstep {
	/* For the plan and the report: */
	struct irq_activity *act;	/* per IRQ of the map: the load to plan with */
	double *window_load;		/* the window's own, when the history weighed it */
	char note[HISTORY_NOTE_MAX];	/* what became of the history ("" none yet) */
	long hz;			/* USER_HZ of /proc/stat */
	double costs_now;		/* when the costs were judged; 0: not read */
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

/* Each IRQ's load into @ls->act, weighed with the history. 0; -EPROTO
 * when the measurement that was wanted disagrees with /proc/interrupts;
 * -EBADMSG for a replay without a valid hz; -ENOMEM. Each said first. */
int loadstep_weigh(struct loadstep *ls, const struct loadstep_input *in);

/* history_weigh_evidence() on the plan input @pi, and what the history
 * said of it. 0 or -ENOMEM. */
int loadstep_evidence(struct loadstep *ls, const struct plan_irq *pi, unsigned int nr,
		      unsigned int nr_ids, bool threshold_auto, struct plan_policy *pol);

void loadstep_release(struct loadstep *ls);

#endif
