/* SPDX-License-Identifier: GPL-2.0-or-later */
/* packrun.h - placement = pack in a run: the pool the last run left
 * (packstate.h), this run's pool (pack.h) with the plan's movable IRQs
 * narrowed to it, and the pool kept for the next run. The run's edge
 * around pack.c: it reads and writes the file, and says what it did. */
#ifndef IRQTUNE_PACKRUN_H
#define IRQTUNE_PACKRUN_H

#include <stdbool.h>

#include "pack.h"

struct config;
struct loadstep;

struct packrun {
	bool on;		/* the pool was made */
	struct pack_result res;	/* the pool, per node its need and load */
	char path[4096];	/* the pack file; "" when none is kept */
};

/* With @cfg's placement = pack, the pool for the plan's input @pi (@nr
 * IRQs, on @topo, @pol's application load and idle load) and each
 * movable IRQ narrowed to it. The file is kept where, and when, @ls's
 * load history is (a live run; not --no-state), and written unless
 * @dry_run. With placement = spread, nothing. 0 or -ENOMEM (said). */
int packrun_step(struct packrun *pr, const struct config *cfg, const struct topology *topo,
		 const struct plan_policy *pol, const struct loadstep *ls, bool dry_run,
		 struct plan_irq *pi, unsigned int nr);

void packrun_release(struct packrun *pr);

#endif
