/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plan_ref.h - the reference planner of the tests (tests/unit/plan_ref.c). */
#ifndef IRQTUNE_PLAN_REF_H
#define IRQTUNE_PLAN_REF_H

#include "plan.h"

/* plan_compute() as of 3a31341, with the same contract. */
int plan_ref_compute(const struct topology *topo, struct plan_irq *irqs,
		     unsigned int nr, const struct plan_policy *policy,
		     struct plan_result *res);
void plan_ref_release(struct plan_result *res);

#endif
