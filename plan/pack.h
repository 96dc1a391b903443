/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pack.h - placement = pack: the pool of CPUs that device IRQs may use,
 * per NUMA node the fewest whole cores (SMT siblings together) whose CPUs
 * hold that node's busy IRQ load with each CPU's IRQ load under a target,
 * picked where the pinned application load is least; and the pool's size
 * kept from run to run (it grows at once, shrinks slowly; what is kept,
 * struct pack_state, is packstate.h's). The planner
 * then places inside the pool (pack_narrow()). Pure: no I/O, no clock;
 * the same input gives the same pool. */
#ifndef IRQTUNE_PACK_H
#define IRQTUNE_PACK_H

#include <stdbool.h>

#include "cpuset.h"
#include "packstate.h"
#include "plan.h"
#include "topology.h"

#define PACK_DEFAULT_TARGET	0.5	/* of a CPU (the biggest's) */
/* The pool gives a core back after PACK_SHRINK_RUNS (packstate.h) runs
 * in a row that needed fewer cores with room to spare: each CPU under this
 * share of the target. A load that needs one core less by a hair would shrink the
 * pool, then grow it back on the next wobble. */
#define PACK_SHRINK_SHARE	0.8
/* A core of the last run's pool is preferred to one with this much less
 * application load (in CPUs): measured application load wobbles from
 * window to window, and a pool that followed each wobble would move IRQs
 * every run for nothing. */
#define PACK_STICKY		0.1

struct pack_input {
	const struct topology *topo;
	const double *app;		/* per CPU id, in CPUs; NULL: none known */
	const struct plan_irq *irqs;	/* the plan's input; fixed ones ignored */
	unsigned int nr;
	double idle_load;		/* below this an IRQ is idle (in CPUs) */
	double target;			/* each pool CPU's IRQ load at most this */
	const struct pack_state *prev;	/* the last run's; NULL: none */
};

struct pack_result {
	struct cpuset *pool;		/* every node's pool CPUs */
	struct pack_state state;	/* this run's, for the next */
	unsigned int *need;		/* per node: the cores this run's load needs */
	double *busy;			/* per node: its busy IRQs' load, in CPUs */
	/* pack_narrow()'s: the narrowed allowed sets it made, and how many
	 * IRQs it narrowed or left with their own set */
	struct cpuset **owned;
	unsigned int nr_owned;
	unsigned int nr_narrowed, nr_kept;
};

/* The pool for @in into *@ret (released with pack_result_release()).
 * 0, -ENOSPC (no eligible CPU) or -ENOMEM. */
int pack_compute(const struct pack_input *in, struct pack_result *ret);

/* The cores in the pool of a node this run, from the cores its load needs
 * (@need) and would need with each CPU under PACK_SHRINK_SHARE of the
 * target (@slack, at least @need), the last run's part (@prev: cores 0
 * when none) and the node's cores (@max), into *@ret's cores and under
 * (cpus untouched). It grows at once to @need; a run whose @slack is
 * below the last size counts towards giving back one core. */
void pack_hysteresis(unsigned int need, unsigned int slack, const struct pack_node *prev,
		     unsigned int max, struct pack_node *ret);

/* Narrow each movable IRQ of @irqs to @res's pool: its allowed set becomes
 * the pool, or the pool's part of its own set; an IRQ whose own set has
 * no pool CPU keeps it. A narrowed IRQ is planned as of no device (group
 * -1): packing shares cores by design. The sets live in @res. 0 or
 * -ENOMEM. */
int pack_narrow(struct pack_result *res, struct plan_irq *irqs, unsigned int nr);

void pack_result_release(struct pack_result *res);

#endif
