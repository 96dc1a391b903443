/* devfit.h - per-device cost multipliers fitted across the windows of
 * several runs. One window cannot tell apart two devices whose IRQs share
 * CPUs in the same proportions; after a placement they sit elsewhere, and
 * the windows of the runs before and after together can. Each window adds
 * its per-CPU equations to normal equations that decay run by run; the
 * solution, pulled towards 1 (the class's cost), scales a device's cost
 * within its class. Pure: no I/O. */
#ifndef IRQTUNE_DEVFIT_H
#define IRQTUNE_DEVFIT_H

#include <stdbool.h>

#define DEVFIT_MAX	128	/* devices; more and the class costs do */
#define DEVFIT_MIN_M	0.25
#define DEVFIT_MAX_M	4.0

enum devfit_kind { DEVFIT_HARD, DEVFIT_SOFT, DEVFIT_KINDS };

/* Unknowns 0..nr-1 are the devices; unknown nr is, for hard-irq time, the
 * per-CPU time no device explains (timers, IPIs). */
struct devfit {
	unsigned int nr;
	double *n[DEVFIT_KINDS];	/* (nr + 1)^2, row-major */
	double *b[DEVFIT_KINDS];	/* nr + 1 */
	double rows[DEVFIT_KINDS];	/* equations taken, decayed like them */
};

struct devfit *devfit_new(unsigned int nr);
void devfit_free(struct devfit *f);
/* One equation y = sum x[i] m[dev[i]] (+ the base unknown for hard). */
void devfit_add(struct devfit *f, enum devfit_kind k, const unsigned int *dev,
		const double *x, unsigned int nx, double y);
/* Older windows count for @keep of what they did (0 < keep <= 1). */
void devfit_decay(struct devfit *f, double keep);
/* The multipliers, m[nr]; all 1 where the equations cannot tell. */
void devfit_solve(const struct devfit *f, enum devfit_kind k, double *m);
/* The same with the pull towards 1 as @prior of an average unknown's
 * data, and the answers kept within [@lo, @hi]. */
void devfit_solve_in(const struct devfit *f, enum devfit_kind k, double prior,
		     double lo, double hi, double *m);

#endif
