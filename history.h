/* SPDX-License-Identifier: GPL-2.0-or-later */
/* history.h - each IRQ's load history, from run to run: the weighted means
 * a run plans with and the rule that tells a shifted load from noise. The
 * file it is kept in is state.h's. */
#ifndef IRQTUNE_HISTORY_H
#define IRQTUNE_HISTORY_H

#include <stdbool.h>

#define HISTORY_HALF_LIFE	4	/* runs: a window's weight halves in four */
/* A window this long (from cron, the minute since the last run) is
 * evidence on its own of a load that shifted: known to a tick of it. */
#define HISTORY_EVIDENCE_SECS	30.0
/* A window whose load departs from the history's mean by more than this
 * share of it (beside three of the windows' standard deviations and the
 * clock's resolution) is a shift: the history restarts from it. A load
 * halved or doubled is followed in the run that sees it. */
#define HISTORY_SHIFT		0.25

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
