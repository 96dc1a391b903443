/* SPDX-License-Identifier: GPL-2.0-or-later */
/* oracle.h - the yardstick for a balancer on a simulated machine: the best
 * busiest-CPU load any placement can reach under irqtune's rules, computed
 * from the model's true per-IRQ loads, and the placement-rule figures of the
 * current placement. Used by "irqsim oracle" and "irqsim rules"; see
 * tests/sim/README.md and docs/quality.md. */
#ifndef IRQSIM_ORACLE_H
#define IRQSIM_ORACLE_H

#include <stdbool.h>
#include <stdio.h>
#include "model.h"

/* An IRQ with less true load than this (in CPUs) is idle for the rule
 * figures: 0.1% of a CPU, twice irqtune's own idle threshold. */
#define SIM_BUSY_LOAD	0.001

/* "key value" lines: oracle_max_load (best placement found),
 * oracle_lower_bound (no placement does better), oracle_gap_pct,
 * oracle_optimal (1 when the two meet), oracle_ratio (oracle_max_load over
 * the score's lower_bound: comparable with its load_ratio), oracle_target
 * (the busiest CPU's load a balancer should reach: within 5% of the best,
 * and 1.10 times the score's bound where the best is below that),
 * oracle_moves_lb and oracle_moves_greedy (busy IRQs that must move from
 * the current placement to reach the target, at least, and as many as a
 * greedy repair moves; -1 if it does not get there), oracle_jobs,
 * oracle_method. With @verbose, the CPU of every movable busy IRQ. */
int sim_oracle(const struct sim *s, FILE *out, bool verbose);

/* "key value" lines on the current placement, the figures of irqtune's
 * placement rules (busy: at least SIM_BUSY_LOAD of true load):
 *  dev.NAME.spread_cores, dev.NAME.spread_target - distinct physical cores
 *	the busy movable IRQs of a device with several use, and
 *	min(those IRQs, physical cores of its allowed set);
 *  spread_devices, spread_short_devices, spread_missing_cores;
 *  nic_shared_cores - cores with busy IRQs of two or more NICs;
 *  nic_shared_avoidable - of those, how many while a core of that node
 *	carried no busy NIC IRQ at all;
 *  smt_next_to_nic - busy non-NIC movable IRQs on an SMT sibling of a CPU
 *	with a busy NIC IRQ; smt_next_to_nic_avoidable - while their allowed
 *	set had a core with no busy IRQ on any thread;
 *  count_max, count_fair, count_excess - idle movable IRQs on the fullest
 *	CPU, the fair share ceil(idle IRQs / CPUs) of its allowed set, and
 *	the worst difference over the sets. */
int sim_rules(const struct sim *s, FILE *out);

#endif
