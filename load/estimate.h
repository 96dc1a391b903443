/* SPDX-License-Identifier: GPL-2.0-or-later */
/* estimate.h - the /proc load source: each IRQ's CPU work estimated from
 * counts and per-CPU times, for kernels where it cannot be measured. */
#ifndef IRQTUNE_ESTIMATE_H
#define IRQTUNE_ESTIMATE_H

#include <stdbool.h>
#include <stddef.h>

#include "irqclass.h"
#include "sample.h"

/* Per-event costs to start the fit from, in microseconds: the built-in
 * model, or what a run that measured found on this machine. */
struct estimate_prior {
	double hard_us[CLASS_NR];	/* one hard interrupt of a class */
	double soft_us[SOFTIRQ_NR];	/* one softirq run of a vector */
};

void estimate_default_prior(struct estimate_prior *p);

/* Per IRQ of @b (in the order of b->intr->rows) what it did since @a, and its
 * estimated load (hard, soft, load); @class[i] is the class of
 * b->intr->rows[i]; @prior NULL means the built-in model. Counts as
 * sample_counts() gives them. *@ret has b->intr->nr_rows entries.
 * @hz is USER_HZ (sysconf(_SC_CLK_TCK)). Pure: no I/O. */
int estimate_proc(const struct snapshot *a, const struct snapshot *b,
		  const enum irq_class *class, long hz,
		  const struct estimate_prior *prior, struct irq_activity **ret);

/* What estimate_proc_dev() knows of devices: each row's device, the
 * multipliers of the built-in costs that earlier runs found (NULL: none:
 * each device costs what its class does, exactly estimate_proc()), and
 * where to add this window's equations for the next runs (NULL: nowhere),
 * then solved with them into @m_keep (NULL: not kept). */
/* How the estimate found a class's cost per interrupt: from this
 * window (or the interval since the last run), carried by the history
 * from the runs before, the prior's alone (the built-in or measured
 * costs), no device of the class had an equation, or, with no history,
 * mostly from the counters since boot (estimate.c, boot_pass). The first
 * three as devfit.h's devfit_how. */
enum estimate_how { ESTIMATE_PRIOR, ESTIMATE_FITTED, ESTIMATE_CARRIED, ESTIMATE_NONE,
		    ESTIMATE_BOOT };

struct estimate_class_cost {
	double m;			/* multiplier of the built-in costs */
	enum estimate_how how;
};

/* Per class, the hard-irq and the softirq cost found, for the report. */
struct estimate_found {
	bool set;			/* a fit ran */
	struct estimate_class_cost hard[CLASS_NR], soft[CLASS_NR];
};

/* One cost of an estimate_found as the report names it. */
struct estimate_cost_item {
	const char *class_name;		/* "net", "storage", "other" */
	const char *kind;		/* "hard", or the class's main softirq:
					 * "NET_RX", "BLOCK", "TASKLET" */
	double us;			/* per event */
	const char *how;		/* "fitted", "carried", "boot", "prior" */
};
#define ESTIMATE_COST_ITEMS	(2 * CLASS_NR)

/* The costs @f found for the classes that had devices, each class's hard
 * cost then its main softirq's, into @ret (ESTIMATE_COST_ITEMS long); how
 * many. 0 where no fit ran. Pure. */
unsigned int estimate_found_items(const struct estimate_found *f,
				  struct estimate_cost_item *ret);

/* "net hard 2.41 us fitted, NET_RX 33.2 us fitted, ..." for the classes
 * that had devices: each class's hard cost and its main softirq's
 * (NET_RX, BLOCK, TASKLET) per event. 0 or -ENOSPC. Pure. */
int estimate_found_format(const struct estimate_found *f, char *buf, size_t len);

struct devfit;
struct estimate_dev {
	unsigned int nr;		/* devices, at most DEVFIT_MAX */
	const int *row_dev;		/* per row of b: device index, -1 none */
	const int *dev_class;		/* per device */
	const double *hard_m, *soft_m;	/* per device, or NULL */
	struct devfit *fit;
	double *m_keep;			/* 2 nr: hard, then soft */
	/* Each device's softirqs per interrupt (SOFTIRQ_NR a device): fitted
	 * from the window and kept in @ev_keep (NULL: not kept), or taken
	 * from @ev_use (NULL: fitted), as a window takes the longer
	 * interval's before it. */
	double *ev_keep;
	const double *ev_use;
	/* Where to say how each class's costs were found (NULL: nowhere);
	 * left as it was by a call without a fit. */
	struct estimate_found *found;
};

int estimate_proc_dev(const struct snapshot *a, const struct snapshot *b,
		      const enum irq_class *class, long hz,
		      const struct estimate_prior *prior, const struct estimate_dev *dev,
		      struct irq_activity **ret);

#endif
