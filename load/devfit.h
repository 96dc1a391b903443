/* SPDX-License-Identifier: GPL-2.0-or-later */
/* devfit.h - per-device cost multipliers fitted across the windows of
 * several runs. One window cannot tell apart two devices whose IRQs share
 * CPUs in the same proportions; after a placement they sit elsewhere, and
 * the windows of the runs before and after together can. Each window adds
 * its per-CPU equations, each weighed by how precisely its CPU's time is
 * known, to normal equations that decay run by run. The unknowns multiply
 * fixed reference costs, so that the equations of runs whose fitted class
 * costs differed still add up; the solution is pulled towards each
 * device's class cost of the moment (its target). Pure: no I/O. */
#ifndef IRQTUNE_DEVFIT_H
#define IRQTUNE_DEVFIT_H

#define DEVFIT_MAX	128	/* devices; more and the class costs do */
#define DEVFIT_MIN_M	0.25	/* of the target */
#define DEVFIT_MAX_M	4.0
/* The prior: a device's cost is its class's within DEVFIT_SPREAD of it
 * (one standard deviation); the hard-irq time of a CPU no device explains
 * (timers, IPIs) is 0 within DEVFIT_BASE_US microseconds a second. */
#define DEVFIT_SPREAD	0.3
#define DEVFIT_BASE_US	500.0

/* devfit_solve_pooled(): how far a device's cost may be from the prior
 * (the built-in costs, or measured ones) before the data says otherwise,
 * one standard deviation, and the bounds of its answer there. */
#define DEVFIT_WIDE	1.0
#define DEVFIT_WIDE_MIN	0.05
#define DEVFIT_WIDE_MAX	20.0

enum devfit_kind { DEVFIT_HARD, DEVFIT_SOFT, DEVFIT_KINDS };

/* How a group's (a class's) cost was found: from this window's equations,
 * from the earlier runs' the history carried, or the prior's alone. */
enum devfit_how { DEVFIT_PRIOR, DEVFIT_FITTED, DEVFIT_CARRIED };

struct devfit_group {
	double m;		/* the group's multiplier of the built-in costs */
	double rel_sd;		/* its standard error, relative */
	double prior;		/* the prior's multiplier */
	enum devfit_how how;
	/* How far its devices' own costs differ beyond their standard
	 * errors: sum of squared z-scores about their weighted mean, over
	 * @dof = devices the equations named, less one. */
	double chi2;
	unsigned int dof;
};

/* Unknowns 0..nr-1 are the devices; unknown nr is, for hard-irq time, the
 * per-CPU time no device explains. */
struct devfit {
	unsigned int nr;
	double *n[DEVFIT_KINDS];	/* (nr + 1)^2, row-major */
	double *b[DEVFIT_KINDS];	/* nr + 1 */
	/* each unknown's diagonal of n carried from earlier runs: as the
	 * last devfit_decay() left it (0 for a fit that had none) */
	double *old[DEVFIT_KINDS];
};

struct devfit *devfit_new(unsigned int nr);
void devfit_free(struct devfit *f);
/* One equation y = sum x[i] m[dev[i]] (+ the base unknown for hard), of
 * weight @w: one over its variance, in y's units squared. */
void devfit_add(struct devfit *f, enum devfit_kind k, const unsigned int *dev,
		const double *x, unsigned int nx, double y, double w);
/* Older windows count for @keep of what they did (0 < keep <= 1); what
 * they leave is what the fit carried into this run. */
void devfit_decay(struct devfit *f, double keep);
/* The multipliers m[nr], device i pulled towards @target[i] (NULL: all 1)
 * as the prior says and kept within DEVFIT_MIN_M..DEVFIT_MAX_M times it;
 * the target where the equations never named the device. */
void devfit_solve(const struct devfit *f, enum devfit_kind k, const double *target,
		  double *m);
/* For equations whose weights say nothing absolute (exact counts, weight
 * 1): the pull towards 1 as @prior of the geometric mean of the device's
 * own data and an average device's, the answers kept within [@lo, @hi]. */
void devfit_solve_in(const struct devfit *f, enum devfit_kind k, double prior,
		     double lo, double hi, double *m);

/* The multipliers m[nr] when devices may share every CPU one to one
 * (devfit.c says how): device i of group @group[i] (-1: none; groups below
 * @nr_groups) against its prior @prior[i] (NULL: all 1), then against its
 * group's cost as the data knows it. Each group's cost, its standard
 * error and how it was found in @ret[nr_groups]. */
void devfit_solve_pooled(const struct devfit *f, enum devfit_kind k, const int *group,
			 unsigned int nr_groups, const double *prior, double *m,
			 struct devfit_group *ret);

#endif
