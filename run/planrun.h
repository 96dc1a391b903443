/* SPDX-License-Identifier: GPL-2.0-or-later */
/* planrun.h - between the planner and the kernel: the planner's view of
 * each IRQ built from a run's parts, and the plan written with every
 * refused IRQ fixed where it stays and the rest re-planned around it.
 * The builders and the apply loop are pure but for the writer they are
 * given; planrun_build() and planrun_apply() are the run's edge around
 * them, which say what was refused or ignored. */
#ifndef IRQTUNE_PLANRUN_H
#define IRQTUNE_PLANRUN_H

#include <stdbool.h>

#include "apply.h"
#include "plan.h"

#define PLANRUN_ROUNDS	3	/* re-plans after refusals, bounded */

struct device_map;
struct irq_activity;
struct policy;

/* What the planner's input is made of; all parallel, @nr IRQs each
 * (@map->irqs, @act, @pol->irqs). */
struct planrun_parts {
	const struct device_map *map;
	const struct irq_activity *act;
	const struct policy *pol;
	const struct topology *topo;	/* the CPUs' capacities */
	unsigned int nr;
};

/* Each IRQ's plan input and its outcome before the plan (OUT_KEPT when
 * movable, else why not). *@ret_pi and *@ret_out have @p->nr entries
 * (at least one allocated). 0 or -ENOMEM. Pure. */
int planrun_input(const struct planrun_parts *p, struct plan_irq **ret_pi,
		  enum report_outcome **ret_out);

/* planrun_input(), after warning of each device's malformed udev
 * properties, and then of each IRQ left where it is for want of an
 * eligible CPU. 0 or -ENOMEM. */
int planrun_build(const struct planrun_parts *p, struct plan_irq **ret_pi,
		  enum report_outcome **ret_out);

/* Writes IRQ @irq's affinity: apply_irq() in a run. */
typedef void planrun_write_fn(void *ctx, unsigned int irq, const int *cpus,
			      unsigned int nr_cpus, struct apply_result *res);
/* Told of IRQ @i's refused write, as it happens. */
typedef void planrun_refused_fn(void *ctx, unsigned int i, const struct plan_irq *pi,
				const struct apply_result *res);

struct planrun_apply {
	const struct topology *topo;
	const struct plan_policy *pol;
	struct plan_irq *pi;		/* planned into @res already */
	enum report_outcome *out;
	unsigned int nr;
	struct plan_result *res;	/* re-planned in place */
	planrun_write_fn *write;
	planrun_refused_fn *refused;	/* NULL: not told */
	void *ctx;			/* for both */
};

/* Write each move of the plan; a refused IRQ is fixed where it stays (its
 * outcome says why) and the rest re-planned, so its load is counted where
 * it really is, for at most PLANRUN_ROUNDS rounds. A moved IRQ is
 * OUT_MOVED and pinned where it went. 0, or plan_compute()'s -errno. */
int planrun_apply_loop(const struct planrun_apply *a);

/* The plan written to the kernel (unless @dry_run: then each move is
 * OUT_WOULD_MOVE), each refusal warned of with @map's names. 0, or
 * -errno when the re-plan failed (said). */
int planrun_apply(const struct topology *topo, const struct plan_policy *pol,
		  const struct device_map *map, struct plan_irq *pi,
		  enum report_outcome *out, unsigned int nr, struct plan_result *res,
		  bool dry_run);

#endif
