/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plan.h - the pure placement planner: from topology, per-IRQ load and the
 * current placement, one CPU for every movable IRQ. No I/O, no clock, no
 * randomness: the same input always gives the same plan. */
#ifndef IRQTUNE_PLAN_H
#define IRQTUNE_PLAN_H

#include <stdbool.h>
#include "irqclass.h"
#include "topology.h"

#define PLAN_ALTS 3	/* fallback CPUs offered to apply for refused writes */

enum plan_reason {
	REASON_FIXED,		/* not movable: the caller knows why */
	REASON_KEEP,		/* where it is is good enough */
	REASON_AVOIDED,		/* was on an isolated, banned or offline CPU */
	REASON_PIN,		/* was allowed on several CPUs */
	REASON_NODE,		/* moved to its device's NUMA node */
	REASON_SPREAD,		/* shared a core with another queue of its device */
	REASON_BALANCE,		/* least loaded eligible CPU */
	REASON_IDLE,		/* no measurable load: fewest IRQs */
	REASON_APP,		/* its CPU is busy with pinned application threads */
	REASON_NR
};

struct plan_irq {
	/* inputs */
	unsigned int irq;
	enum irq_class class;
	int group;		/* device, shared by its queues; -1 none */
	int node;		/* device node, -1 unknown */
	int pinned;		/* the one CPU it is allowed on now, -1 if several */
	int served;		/* CPU carrying its load now, -1 unknown */
	bool fixed;		/* must stay: kernel-managed, banned, gone */
	const struct cpuset *allowed;	/* site policy: only these CPUs (NULL: any) */
	double load;		/* estimated work, in CPUs (of the biggest) */
	/* outputs */
	int target;		/* planned CPU (== pinned when kept), -1 if fixed */
	int alt[PLAN_ALTS];	/* next best CPUs, -1 padded */
	enum plan_reason reason;
	/* The CPU it would have gone to, had that one a free interrupt
	 * vector (policy->vec_avail); -1 when vector space changed nothing. */
	int vec_full;
};

struct plan_policy {
	double threshold;	/* relative gain below which nothing moves */
	/* ... when set (> 0), the gain that justifies moving at all, while
	 * the threshold still shapes how close to the best plan a repair
	 * must come: evidence lowers the bar without making every move
	 * chase the last per cent */
	double stability;
	double idle_load;	/* below this an IRQ is idle (in CPUs) */
	/* How well a CPU's load is known (in CPUs): the kernel counts IRQ
	 * time in clock ticks, so over a window of t seconds a CPU's figure
	 * is only good to 1 / (USER_HZ * t). 0 in exact worlds (tests). */
	double resolution;
	/* Per CPU id, the interrupt vectors free for IRQs that arrive (the
	 * x86 vector matrix); UINT_MAX: no limit known. NULL: none known.
	 * An IRQ needs one on a CPU it does not hold one on already (the
	 * one it is pinned to, else the one serving it). */
	const unsigned int *vec_avail;
	/* Per CPU id, the pinned application load (in CPUs of the biggest,
	 * app-weight applied) that IRQs would share the CPU with: fixed
	 * load, placed around as kernel-managed IRQs' is. NULL: none. */
	const double *app;
	/* Judge each CPU by its own load alone, even where SMT siblings
	 * share a core: placement = pack, whose target the admin sets per
	 * CPU and whose pool is whole cores, both threads of each in it. */
	bool cpu_alone;
};

#define PLAN_DEFAULT_THRESHOLD	0.10
/* ... when every busy IRQ's load is known from several windows */
#define PLAN_EVIDENCE_THRESHOLD	0.02
#define PLAN_DEFAULT_IDLE_LOAD	0.0005
/* A CPU runs pinned application threads from this load up (in CPUs): less
 * is a pinned daemon waking now and then. */
#define PLAN_APP_BUSY		0.05

struct plan_result {
	unsigned int nr_ids;
	double *before;		/* per-CPU IRQ load now */
	double *after;		/* per-CPU IRQ load as planned */
	/* Per CPU id, the application load the plan was made around
	 * (policy->app of online CPUs, in CPUs of the biggest); NULL where
	 * there was none. It stays where it is: before and after alike. */
	double *app;
	unsigned int nr_moves;	/* movable IRQs whose target differs from now */
	unsigned int nr_vec_limited;	/* IRQs whose vec_full is set */
};

/* Plan every IRQ of @irqs in place (target, alt, reason) and fill @res.
 * Where CPUs differ in capacity (topology's), loads are compared as load
 * over capacity: a CPU of capacity C carries at most C / 1024 of what a
 * full one does, and before/after stay in CPUs of the biggest.
 * Returns 0, -ENOSPC when no CPU is eligible, or -ENOMEM. */
int plan_compute(const struct topology *topo, struct plan_irq *irqs,
		 unsigned int nr, const struct plan_policy *policy,
		 struct plan_result *res);
void plan_result_release(struct plan_result *res);

/* Whether @irq's plan writes anything. */
static inline bool plan_moves(const struct plan_irq *pi)
{
	return pi->target >= 0 && pi->target != pi->pinned;
}

const char *plan_reason_text(enum plan_reason r);

#endif
