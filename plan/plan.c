// SPDX-License-Identifier: GPL-2.0-or-later
/* plan.c - the placement planner. Pure: no I/O, no clock, no randomness;
 * ties go to the lowest CPU id so the same input always gives the same plan.
 *
 * Rules for every movable IRQ: one CPU, eligible (online, not isolated, not
 * nohz_full, not banned) and allowed by site policy, of its device's NUMA
 * node when that node has such a CPU, else of any node. An IRQ is busy from
 * policy->idle_load up, idle below.
 *
 * Greedy placement puts IRQs on their best CPU, busy ones heaviest first,
 * where "best" is, in order: fewest busy queues of the same device on that
 * physical core (a device's busy queues take distinct cores; idle vectors
 * such as a NIC's misc one do not count); for busy NIC queues, a core with
 * no other NIC's busy queue; the lowest load after placement, with half the
 * load of the SMT siblings added; the fewest IRQs; the lowest id. Idle IRQs
 * compare counts before load.
 *
 * plan_improve() lowers the busiest CPU by the single move or swap that lowers
 * it most, keeping those rules (a swap judged with both IRQs gone from their
 * CPUs), of one of its IRQs or, with SMT, of its siblings' (whose load counts
 * half in its own); where none helps, by a chain of two moves (an IRQ leaves
 * a third CPU to make room there for one of the busiest's), and without SMT
 * by a trade (an IRQ and a device's queue leave together for a CPU whose
 * queue of that device comes back). A CPU nothing helps is set
 * aside and the next busiest evened out, without loading the SMT siblings
 * of busy CPUs.
 *
 * Two plans are built:
 *  - fresh: everything placed greedily from scratch, then improved. Its
 *    busiest CPU, F, is the best balance the planner knows of.
 *  - repair: every IRQ stays where it is unless it must move (an avoided or
 *    offline CPU, a wrong node, an IRQ allowed on several CPUs, more busy
 *    queues of its device on a core than its share ceil(queues / cores));
 *    those are placed greedily, idle IRQs on a CPU more than one above the
 *    emptiest spread out by count, then it is improved only until its
 *    busiest CPU is within F * (1 + threshold / 8): every further move would
 *    be one more than needed.
 * Each then gives up the moves it can do without (revert_moves: back to the
 * current CPU, lightest first, while no CPU goes above F * (1 + threshold / 8)
 * and the rules hold). The fresh plan first relabels whole physical cores
 * within a node to follow the current placement where it merely permuted
 * cores. The repair is taken when its busiest CPU is within
 * F * (1 + threshold / 4) and it moves no more busy IRQs (then IRQs) than
 * the fresh plan; else the fresh plan is.
 *
 * Last, the stability rule (settle): when nothing forced a move and the
 * current busiest CPU is within the threshold of the best plan's (plus the
 * resolution of the measurement), no busy IRQ moves (idle ones piled over
 * the margin still spread out). A second run under the same load moves
 * nothing.
 *
 * Pinned application load (policy->app) is fixed load on its CPU, added
 * in plan_reset() as kernel-managed IRQs' is, so every score and comparison
 * sees a CPU's whole load. Plans are then judged by their level, the
 * busiest CPU carrying a busy movable IRQ (struct plan_ctx), relative margins
 * are shares of IRQ load (irq_base(), above()), a CPU full with an
 * application counts as a core holding its share of a device's queues,
 * and settle() says how stability is judged. Without application load
 * none of this runs, and plans are what they always were.
 *
 * On machines with SMT one objective runs from start to finish: every
 * pass above, and the stability rule, judges a CPU by its load plus half
 * its SMT siblings' load, as the first placement ranks it (struct plan_ctx,
 * eff), and the level counts a CPU whose core carries a busy movable IRQ.
 * Without SMT that is the CPU's own load, and plans are as they were.
 *
 * This file holds the rules, the tallies they are judged on, the two
 * builds and the choice between them; plan_index.c ranks CPUs for one IRQ
 * without looking at every CPU; plan_improve.c holds the passes over a
 * built plan (improve, relabel, revert_moves). plan_int.h is their common
 * state. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan_int.h"

static unsigned int room_of(const struct plan_ctx *c, const struct plan_irq *pi);

/* The per-CPU and per-core tallies of IRQ @i on @cpu, without the lists:
 * what scoring looks at. */
void plan_tally(struct plan_ctx *c, unsigned int i, int cpu, int sign)
{
	struct plan_irq *pi = &c->irqs[i];
	int core = core_of(c, cpu);

	c->load[cpu] += sign * lw(c, pi, cpu);
	c->core_load[core] += sign * lw(c, pi, cpu);
	c->count[cpu] += (unsigned int)sign;
	if (c->vec && !pi->fixed && cpu != holds(pi))
		c->arrive[cpu] += (unsigned int)sign;
	if (pi->class == CLASS_NET && is_heavy(c, pi))
		c->netq[core] += (unsigned int)sign;
	if (c->mob && !pi->fixed && is_heavy(c, pi))
		c->mob[cpu] += (unsigned int)sign;
	if (c->lvl)
		c->lvl[cpu] = c->mob[cpu] ? c->load[cpu] : 0;
	if (pi->group >= 0 && is_heavy(c, pi)) {
		struct gc_entry *e = gc_slot(c, pi->group, core);

		e->count += (unsigned int)sign;
		if (sign > 0 && e->count == 1)
			plan_gcl_add(c, (unsigned int)pi->group, e, core);
		else if (sign < 0 && e->count == 0)
			plan_gcl_del(c, (unsigned int)pi->group, e);
	}
	if (c->eff)
		plan_eff_core(c, core);
	mark_dirty(c, core);
}

/* Bring eff (and lvl) of the eligible CPUs of @core up to the tallies. */
void plan_eff_core(struct plan_ctx *c, int core)
{
	unsigned int mob = 0;

	for (unsigned int t = c->ix.core_first[core]; t < c->ix.core_first[core + 1]; t++) {
		int cpu = c->ix.core_cpu[t];

		c->eff[cpu] = c->load[cpu] + (c->core_load[core] - c->load[cpu]) / 2;
		mob += c->mob ? c->mob[cpu] : 0;
	}
	for (unsigned int t = c->ix.core_first[core]; c->lvl && t < c->ix.core_first[core + 1]; t++)
		c->lvl[c->ix.core_cpu[t]] = mob ? c->eff[c->ix.core_cpu[t]] : 0;
}

/* The highest eff (or with application load, lvl) among the CPUs of the
 * cores that @dv's changes touch, as it would be after them: what a move,
 * a swap or a chain of moves leaves on top. Other cores do not change. */
double plan_peak_after(const struct plan_ctx *c, const struct plan_delta *dv, unsigned int n)
{
	double peak = 0;

	for (unsigned int a = 0; a < n; a++) {
		int core = core_of(c, dv[a].cpu), mob = 0;
		double dc = 0;
		bool seen = false;

		for (unsigned int b = 0; b < n; b++) {
			if (core_of(c, dv[b].cpu) != core)
				continue;
			seen = seen || b < a;
			dc += dv[b].d;
			mob += dv[b].mob;
		}
		if (seen)
			continue;
		for (unsigned int t = c->ix.core_first[core]; t < c->ix.core_first[core + 1]; t++)
			mob += c->mob ? (int)c->mob[c->ix.core_cpu[t]] : 0;
		if (c->has_app && mob <= 0)
			continue;
		for (unsigned int t = c->ix.core_first[core]; t < c->ix.core_first[core + 1]; t++) {
			int cpu = c->ix.core_cpu[t];
			double l = c->load[cpu], e;

			for (unsigned int b = 0; b < n; b++)
				if (dv[b].cpu == cpu)
					l += dv[b].d;
			e = l + (c->core_load[core] + dc - l) / 2;
			if (e > peak)
				peak = e;
		}
	}
	return peak;
}

void plan_account(struct plan_ctx *c, unsigned int i, int cpu, int sign)
{
	if (cpu < 0)
		return;
	plan_tally(c, i, cpu, sign);
	if (sign > 0) {
		c->on[i] = cpu;
		c->prev[i] = -1;
		c->next[i] = c->head[cpu];
		if (c->head[cpu] >= 0)
			c->prev[c->head[cpu]] = (int)i;
		c->head[cpu] = (int)i;
	} else {
		if (c->prev[i] >= 0)
			c->next[c->prev[i]] = c->next[i];
		else
			c->head[cpu] = c->next[i];
		if (c->next[i] >= 0)
			c->prev[c->next[i]] = c->prev[i];
		c->on[i] = -1;
	}
}

bool plan_is_candidate(const struct plan_ctx *c, const struct plan_irq *pi, int cpu)
{
	unsigned int n;
	const int *v = plan_candidates(c, pi, &n);
	unsigned int lo = 0, hi = n;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (v[mid] < cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo] == cpu && allowed(pi, cpu);
}

struct plan_score plan_score_of(struct plan_ctx *c, const struct plan_irq *pi, int cpu)
{
	int core = core_of(c, cpu);
	struct plan_score s = { 0 };

	if (multiqueue(c, pi))
		s.same_dev = gc_get(c, pi->group, core);
	if (pi->class == CLASS_NET && is_heavy(c, pi)) {
		unsigned int mine = pi->group >= 0 ? gc_get(c, pi->group, core) : 0;

		s.other_nic = c->netq[core] > mine ? 1 : 0;
	}
	if (c->full_any && app_full(c, cpu) && room_of(c, pi) > 0) {
		/* A CPU full with an application takes a device's queues
		 * only where the cores with room have their share, and a
		 * NIC's queue only where every other place has another's. */
		if (multiqueue(c, pi) && s.same_dev < plan_spread_cap(c, pi))
			s.same_dev = plan_spread_cap(c, pi);
		if (pi->class == CLASS_NET && is_heavy(c, pi))
			s.other_nic = 1;
	}
	s.sibling = c->core_load[core] - c->load[cpu];
	/* A busy SMT sibling slows this CPU too: count half of it. */
	s.load = c->load[cpu] + lw(c, pi, cpu) + (is_heavy(c, pi) ? s.sibling / 2 : 0);
	s.count = c->count[cpu];
	s.cpu = cpu;
	return s;
}

/* <0 when @a is the better place. Idle IRQs look at counts before load. */
int plan_score_cmp(const struct plan_ctx *c, bool heavy, const struct plan_score *a,
		     const struct plan_score *b)
{
	if (a->same_dev != b->same_dev)
		return a->same_dev < b->same_dev ? -1 : 1;
	if (a->other_nic != b->other_nic)
		return a->other_nic < b->other_nic ? -1 : 1;
	if (!heavy && a->count != b->count)
		return a->count < b->count ? -1 : 1;
	if (a->load < b->load - c->eps)
		return -1;
	if (a->load > b->load + c->eps)
		return 1;
	if (a->sibling < b->sibling - c->eps)
		return -1;
	if (a->sibling > b->sibling + c->eps)
		return 1;
	if (a->count != b->count)
		return a->count < b->count ? -1 : 1;
	return (a->cpu > b->cpu) - (a->cpu < b->cpu);
}

/* Cores with room among @pi's candidates (struct plan_ctx); 0 without
 * application load. */
static unsigned int room_of(const struct plan_ctx *c, const struct plan_irq *pi)
{
	if (!c->full_any)
		return 0;
	return c->ix.cls_room[c->ix.irq_cls[pi - c->irqs]];
}

/* Queues of a device one core may hold: its fair share of the cores it may
 * use (its class: the node's, narrowed by site policy), of those with room
 * where applications fill some. Counting the node's cores instead made a
 * device allowed on a few of them look crowded in every run, and its
 * queues moved again each time under an unchanged load. */
unsigned int plan_spread_cap(const struct plan_ctx *c, const struct plan_irq *pi)
{
	unsigned int cores, q;

	if (!multiqueue(c, pi))
		return UINT32_MAX;
	cores = c->ix.cls_cores[c->ix.irq_cls[pi - c->irqs]];
	if (room_of(c, pi) > 0)
		cores = room_of(c, pi);
	q = c->group_busy[pi->group];
	return cores ? (q + cores - 1) / cores : q;
}

/* Why the current CPU cannot stay, or REASON_KEEP if it could. */
enum plan_reason plan_forced_reason(const struct plan_ctx *c, const struct plan_irq *pi)
{
	if (pi->pinned < 0)
		return REASON_PIN;
	if ((unsigned int)pi->pinned >= c->topo->nr_ids ||
	    c->topo->cpus[pi->pinned].avoid || !c->topo->cpus[pi->pinned].online)
		return REASON_AVOIDED;
	if (!plan_is_candidate(c, pi, pi->pinned))
		return REASON_NODE;
	return REASON_KEEP;
}

static const struct plan_ctx *sort_ctx;

/* Busy IRQs first, heaviest first; then idle ones device by device. */
static int order_cmp(const void *pa, const void *pb)
{
	const struct plan_irq *a = &sort_ctx->irqs[*(const unsigned int *)pa];
	const struct plan_irq *b = &sort_ctx->irqs[*(const unsigned int *)pb];
	bool ha = is_heavy(sort_ctx, a), hb = is_heavy(sort_ctx, b);

	if (ha != hb)
		return ha ? -1 : 1;
	if (ha && a->load != b->load)
		return a->load > b->load ? -1 : 1;
	if (a->class != b->class)
		return a->class < b->class ? -1 : 1;
	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	return (a->irq > b->irq) - (a->irq < b->irq);
}

/* Place the IRQs of @order (unplaced, movable) greedily, each on its best
 * CPU. A reason already set by the caller (why it had to move) is kept. */
static void place_greedy(struct plan_ctx *c, unsigned int *order, unsigned int n)
{
	struct plan_score best[1];

	sort_ctx = c;
	qsort(order, n, sizeof(*order), order_cmp);
	sort_ctx = NULL;
	for (unsigned int k = 0; k < n; k++) {
		struct plan_irq *pi = &c->irqs[order[k]];
		enum plan_reason forced = plan_forced_reason(c, pi);

		c->vec_hit = -1;
		if (plan_rank_cpus(c, pi, best, 1) == 0) {
			/* Policy left it nowhere (the caller checks): stay. */
			best[0] = plan_score_of(c, pi, pi->pinned >= 0 &&
					   plan_is_candidate(c, pi, pi->pinned) ?
					   pi->pinned : c->all[0]);
		}
		pi->target = best[0].cpu;
		pi->vec_full = c->vec_hit;
		if (forced != REASON_KEEP)
			pi->reason = forced;
		else if (pi->reason != REASON_SPREAD)
			pi->reason = pi->target == pi->pinned ? REASON_KEEP :
				     is_heavy(c, pi) ? REASON_BALANCE : REASON_IDLE;
		plan_account(c, order[k], pi->target, +1);
	}
}

/* Forget every placement but the fixed IRQs'. */
void plan_reset(struct plan_ctx *c)
{
	unsigned int ids = c->topo->nr_ids;

	memset(c->load, 0, ids * sizeof(*c->load));
	memset(c->core_load, 0, ids * sizeof(*c->core_load));
	memset(c->count, 0, ids * sizeof(*c->count));
	memset(c->netq, 0, ids * sizeof(*c->netq));
	if (c->arrive)
		memset(c->arrive, 0, ids * sizeof(*c->arrive));
	memset(c->gc, 0, c->gc_cap * sizeof(*c->gc));
	memset(c->ix.gcl_n, 0, (c->nr_groups + 1) * sizeof(*c->ix.gcl_n));
	c->ix.rebuild = true;
	for (unsigned int k = 0; k < ids; k++)
		c->head[k] = -1;
	if (c->has_app) {
		memset(c->mob, 0, ids * sizeof(*c->mob));
		memset(c->lvl, 0, ids * sizeof(*c->lvl));
		/* The application's load is where its threads are pinned, as
		 * a kernel-managed IRQ's is where the kernel put it. */
		for (unsigned int k = 0; k < ids; k++) {
			c->load[k] += c->app_w[k];
			c->core_load[core_of(c, (int)k)] += c->app_w[k];
		}
	}
	for (unsigned int k = 0; c->eff && k < c->nr_all; k++) {
		int cpu = c->all[k];

		c->eff[cpu] = c->load[cpu] + (c->core_load[core_of(c, cpu)] - c->load[cpu]) / 2;
	}
	for (unsigned int i = 0; i < c->nr; i++) {
		struct plan_irq *pi = &c->irqs[i];

		c->on[i] = c->next[i] = c->prev[i] = -1;
		/* Fixed IRQs weigh where they are served. */
		if (pi->fixed && pi->served >= 0 &&
		    (unsigned int)pi->served < ids && c->topo->cpus[pi->served].online)
			plan_account(c, i, pi->served, +1);
	}
}

static int build_fresh(struct plan_ctx *c, unsigned int *order)
{
	unsigned int n = 0;

	plan_reset(c);
	for (unsigned int i = 0; i < c->nr; i++) {
		if (c->irqs[i].fixed)
			continue;
		c->irqs[i].reason = REASON_KEEP;
		c->irqs[i].vec_full = -1;
		order[n++] = i;
	}
	place_greedy(c, order, n);
	return 0;
}

/* Idle IRQs leave their CPU when it holds more than one IRQ above the CPU
 * with the fewest: spread by count, with a margin of one so that equal
 * counts never trade places. Those the plan moves are held to it too: the
 * busy IRQs that plan_improve() moved after them can have crowded their CPU,
 * and the next run would spread them then. */
void plan_spread_idle(struct plan_ctx *c)
{
	for (unsigned int i = 0; i < c->nr; i++) {
		struct plan_irq *pi = &c->irqs[i];
		struct plan_score best[1];
		int from = c->on[i];

		if (pi->fixed || is_heavy(c, pi) || from < 0)
			continue;
		plan_account(c, i, from, -1);
		plan_rank_cpus(c, pi, best, 1);
		if (plan_score_of(c, pi, from).count > best[0].count + 1) {
			pi->target = best[0].cpu;
			pi->reason = pi->target == pi->pinned ? REASON_KEEP : REASON_IDLE;
		}
		plan_account(c, i, pi->target, +1);
	}
}

static int build_repair(struct plan_ctx *c, unsigned int *order)
{
	unsigned int n = 0;

	plan_reset(c);
	for (unsigned int i = 0; i < c->nr; i++) {
		struct plan_irq *pi = &c->irqs[i];

		if (pi->fixed)
			continue;
		pi->vec_full = -1;
		pi->reason = plan_forced_reason(c, pi);
		if (pi->reason != REASON_KEEP) {
			order[n++] = i;
			continue;
		}
		pi->target = pi->pinned;
		plan_account(c, i, pi->pinned, +1);
	}
	/* Queues beyond a core's fair share of their device move, the
	 * highest-numbered first so the survivors are stable. */
	for (unsigned int i = c->nr; i-- > 0;) {
		struct plan_irq *pi = &c->irqs[i];

		if (c->on[i] < 0 || pi->fixed || !multiqueue(c, pi))
			continue;
		if (gc_get(c, pi->group, core_of(c, c->on[i])) > plan_spread_cap(c, pi)) {
			plan_account(c, i, c->on[i], -1);
			pi->reason = REASON_SPREAD;
			order[n++] = i;
		}
	}
	/* A busy IRQ on a CPU running pinned application threads leaves it
	 * when cores with room are among its candidates, however little it
	 * weighs: what it takes is taken from the application, and a gain
	 * judged against the IRQ part of the busiest CPU would keep a light
	 * one there for ever (an RT guest's 0.09% transmit queue stayed on
	 * the application's CPU). Not "forced" (forced_any()): where it goes
	 * is the greedy placement's, and the stability rule still holds the
	 * rest of the plan. */
	for (unsigned int i = 0; c->full_any && i < c->nr; i++) {
		struct plan_irq *pi = &c->irqs[i];

		if (c->on[i] < 0 || pi->fixed || !is_heavy(c, pi) ||
		    !app_full(c, c->on[i]) || room_of(c, pi) == 0)
			continue;
		plan_account(c, i, c->on[i], -1);
		pi->reason = REASON_APP;
		order[n++] = i;
	}
	place_greedy(c, order, n);
	plan_spread_idle(c);
	return 0;
}

static double peak_of(const struct plan_ctx *c, const double *load)
{
	double peak = 0;

	for (unsigned int k = 0; k < c->nr_all; k++)
		if (load[c->all[k]] > peak)
			peak = load[c->all[k]];
	return peak;
}

/* The level of the plan being built: the busiest CPU, or with application
 * load the busiest CPU carrying a busy movable IRQ (see struct plan_ctx). */
double plan_level_of(const struct plan_ctx *c)
{
	return c->has_app ? peak_of(c, c->lvl) : peak_of(c, c->smt ? c->eff : c->load);
}

/* @cpu's application load as eff counts it: its own and half of the
 * rest of its core's (core_app). */
static double with_siblings_app(const struct plan_ctx *c, int cpu)
{
	double own = c->app_w[cpu];

	return own + (c->core_app[core_of(c, cpu)] - own) / 2;
}

/* What relative margins above the level are shares of: the level itself,
 * or with application load the most IRQ load on a CPU the level counts.
 * The threshold is about how well IRQ load is known and what moving IRQs
 * is worth; applications' load added alike to every CPU must not widen
 * it, or a machine busy with applications would be balanced worse than
 * an idle one (and the same machine would plan differently). */
static double irq_base(const struct plan_ctx *c)
{
	double base = 0;

	if (!c->has_app)
		return peak_of(c, c->load);
	for (unsigned int k = 0; k < c->nr_all; k++) {
		int cpu = c->all[k];
		double irq = c->load[cpu] - c->app_w[cpu];

		/* with SMT, of eff: the IRQ part of it */
		if (c->smt)
			irq = c->eff[cpu] - with_siblings_app(c, cpu);
		if (c->mob[cpu] && irq > base)
			base = irq;
	}
	return base;
}

/* @level raised by @share of @base (as irq_base()); without application
 * load, by @share of itself, computed as the planner always did. */
static double above(const struct plan_ctx *c, double level, double base, double share)
{
	return c->has_app ? level + share * base : level * (1 + share);
}

/* @own, the weighed load of @cpu in the current placement, as the plan
 * judges it: with half the rest of its core's (core_tmp, filled by
 * settle()) where there is SMT. */
static double with_siblings(const struct plan_ctx *c, int cpu, double own)
{
	return c->smt ? own + (c->core_tmp[core_of(c, cpu)] - own) / 2 : own;
}

/* The level of the current placement, from @before (IRQ load in CPUs,
 * where it is served now): as plan_level_of(), over the CPUs that serve a busy
 * movable IRQ now. @app: the application load of that CPU, less the least
 * any eligible CPU has. */
static double level_before(const struct plan_ctx *c, const double *before, double *app)
{
	double level = 0, floor = c->app_w[c->all[0]];
	int at = -1;

	for (unsigned int k = 1; k < c->nr_all; k++)
		if (c->app_w[c->all[k]] < floor)
			floor = c->app_w[c->all[k]];

	for (unsigned int i = 0; i < c->nr; i++) {
		const struct plan_irq *pi = &c->irqs[i];
		int cpu = pi->served;
		double l;

		if (pi->fixed || !is_heavy(c, pi) || cpu < 0 ||
		    (unsigned int)cpu >= c->topo->nr_ids ||
		    !c->topo->cpus[cpu].online || c->topo->cpus[cpu].avoid)
			continue;
		if (!c->smt) {
			l = before[cpu] * c->w[cpu] + c->app_w[cpu];
			if (l > level) {
				level = l;
				at = cpu;
			}
			continue;
		}
		/* with SMT, every CPU of its core (as lvl) */
		for (unsigned int t = c->ix.core_first[core_of(c, cpu)];
		     t < c->ix.core_first[core_of(c, cpu) + 1]; t++) {
			int s = c->ix.core_cpu[t];

			l = with_siblings(c, s, before[s] * c->w[s] + c->app_w[s]);
			if (l > level) {
				level = l;
				at = s;
			}
		}
	}
	*app = at >= 0 ? c->app_w[at] - floor : 0;
	return level;
}

/* The same of loads in CPUs (the caller's), as the plan weighs them. */
static double peak_weighted(const struct plan_ctx *c, const double *load)
{
	double peak = 0;

	for (unsigned int k = 0; k < c->nr_all; k++) {
		int cpu = c->all[k];
		double l = with_siblings(c, cpu, load[cpu] * c->w[cpu]);

		if (l > peak)
			peak = l;
	}
	return peak;
}

/* IRQs placed beyond the vectors their CPUs have free, summed. */
unsigned int plan_vec_over(const struct plan_ctx *c)
{
	unsigned int over = 0;

	for (unsigned int k = 0; c->vec && k < c->nr_all; k++) {
		int cpu = c->all[k];

		if (c->vec[cpu] != UINT_MAX && c->arrive[cpu] > c->vec[cpu])
			over += c->arrive[cpu] - c->vec[cpu];
	}
	return over;
}

/* Whether any IRQ had to move (an avoided or offline CPU, a wrong node, an
 * IRQ allowed on several CPUs, a device crowding a core). */
static bool forced_any(const struct plan_ctx *c)
{
	for (unsigned int i = 0; i < c->nr; i++) {
		enum plan_reason r = c->irqs[i].reason;

		if (!c->irqs[i].fixed && (r == REASON_AVOIDED || r == REASON_PIN ||
					  r == REASON_NODE || r == REASON_SPREAD))
			return true;
	}
	return false;
}

/* Nothing forced and too little to gain: the current placement stands,
 * but for the idle IRQs' spreading by count (the repair plan without its
 * improvements). @best is the lowest busiest-CPU load any plan reached:
 * the gain is judged against what is achievable, not against the plan
 * chosen, which may have given up some of it to move less; @base is what
 * the threshold is a share of there (irq_base()).
 *
 * With application load both sides are levels of whole load (IRQs' and
 * the application's on a CPU), over the CPUs that carry busy movable
 * IRQs, and the margin is the threshold's share of the IRQ part alone. A
 * poller at 100% of a CPU that also serves 5% of IRQ work is a CPU at
 * 1.05 (or 1.00, the poller's own time measured 5% short) against the
 * best plan's IRQ CPUs at, say, 0.15: all of that IRQ work is time taken
 * from the poller, and it moves. Judged as the busiest CPU's whole load
 * against the best plan's busiest (1.05 against 1.00, the poller's CPU
 * without its IRQs), the gain would look like 5%, under any threshold,
 * and nothing would ever leave the poller.
 *
 * Application load is measured load too, as noisy as IRQ load from run
 * to run, so the margin is also the threshold's share of the application
 * load on the current busiest CPU, less what every eligible CPU has: a
 * database at 40% +- 4% of a CPU must not send IRQs back and forth
 * between its CPUs, while the poller's 100% leaves a margin of 0.1 of a
 * CPU, far below what it gains. Load alike on every CPU is no part of
 * either margin: such a machine settles as an idle one does. */
static void settle(struct plan_ctx *c, struct plan_result *res, double best,
		   double base, bool forced, unsigned int *order)
{
	/* The busiest CPU now against the best plan's, both seen through
	 * the same estimate: a gap no larger than what the clock can
	 * resolve is no evidence. On a big machine the busiest of hundreds
	 * of CPUs is the one whose tick count happened to round up most,
	 * and without this every other run would chase that. */
	double bar = c->pol->stability > 0 ? c->pol->stability : c->pol->threshold;

	double app = 0, now;

	/* the cores' loads now, for with_siblings() */
	if (c->smt) {
		memset(c->core_tmp, 0, c->topo->nr_ids * sizeof(*c->core_tmp));
		for (unsigned int k = 0; k < c->topo->nr_ids; k++)
			if (c->topo->cpus[k].online)
				c->core_tmp[core_of(c, (int)k)] += res->before[k] * c->w[k] +
					(c->has_app ? c->app_w[k] : 0);
	}
	now = c->has_app ? level_before(c, res->before, &app) : peak_weighted(c, res->before);

	/* ... and with application load, a CPU's whole load is two figures,
	 * each known to a clock tick */
	double res_now = c->has_app ? 2 * c->pol->resolution : c->pol->resolution;

	if (forced || now > above(c, best, base + app, bar) + res_now + c->eps)
		return;
	build_repair(c, order);
}

static void fill_alternatives(struct plan_ctx *c)
{
	struct plan_score best[PLAN_ALTS + 1];

	for (unsigned int i = 0; i < c->nr; i++) {
		struct plan_irq *pi = &c->irqs[i];
		unsigned int have, k, a = 0;

		for (k = 0; k < PLAN_ALTS; k++)
			pi->alt[k] = -1;
		if (!plan_moves(pi))
			continue;
		plan_account(c, i, pi->target, -1);
		have = plan_rank_cpus(c, pi, best, PLAN_ALTS + 1);
		plan_account(c, i, pi->target, +1);
		for (k = 0; k < have && a < PLAN_ALTS; k++)
			if (best[k].cpu != pi->target)
				pi->alt[a++] = best[k].cpu;
	}
}

/* Distinct physical cores among @cpus; core leaders are CPU ids. */
unsigned int plan_count_cores(struct plan_ctx *c, const int *cpus, unsigned int n)
{
	unsigned int cores = 0;

	/* head[] is free before any placement: borrow it as a marker. */
	for (unsigned int k = 0; k < n; k++)
		c->head[core_of(c, cpus[k])] = -1;
	for (unsigned int k = 0; k < n; k++) {
		int core = core_of(c, cpus[k]);

		if (c->head[core] != -2) {
			c->head[core] = -2;
			cores++;
		}
	}
	for (unsigned int k = 0; k < n; k++)
		c->head[core_of(c, cpus[k])] = -1;
	return cores;
}

/* The application load of policy->app, weighed, where an online CPU has
 * any: else none at all, and the planner as it was. */
static int init_app(struct plan_ctx *c)
{
	const struct topology *t = c->topo;
	const double *app = c->pol->app;
	unsigned int ids = t->nr_ids;

	for (unsigned int k = 0; app && k < ids && !c->has_app; k++)
		c->has_app = t->cpus[k].online && app[k] > 0;
	if (!c->has_app)
		return 0;
	c->app_w = calloc(ids, sizeof(*c->app_w));
	c->mob = calloc(ids, sizeof(*c->mob));
	c->lvl = calloc(ids, sizeof(*c->lvl));
	if (!c->app_w || !c->mob || !c->lvl)
		return -ENOMEM;
	/* Offline CPUs run nothing; a negative figure is no load. */
	for (unsigned int k = 0; k < ids; k++)
		if (t->cpus[k].online && app[k] > 0)
			c->app_w[k] = app[k] * c->w[k];
	return 0;
}

/* Each CPU's weight: the biggest online capacity over its own. */
static void init_weights(struct plan_ctx *c)
{
	const struct topology *t = c->topo;
	unsigned int top = 1;

	for (unsigned int k = 0; k < t->nr_ids; k++)
		if (t->cpus[k].online && topology_capacity(t, k) > top)
			top = topology_capacity(t, k);
	for (unsigned int k = 0; k < t->nr_ids; k++) {
		c->w[k] = (double)top / topology_capacity(t, k);
		if (t->cpus[k].online && c->w[k] != 1.0)
			c->hetero = true;
	}
}

/* Whether some eligible CPU is full (struct plan_ctx); plan_classes_init() counts
 * the cores with room of each class then. */
static void init_room(struct plan_ctx *c)
{
	for (unsigned int k = 0; k < c->nr_all && !c->full_any; k++)
		c->full_any = app_full(c, c->all[k]);
}

/* Whether some core has two online CPUs or more: then c->eff (struct
 * ctx). Without, nothing is allocated and every path is as it was. */
static int init_smt(struct plan_ctx *c)
{
	const struct topology *t = c->topo;
	unsigned int ids = t->nr_ids;
	unsigned int *n = calloc(ids, sizeof(*n));
	bool smt = false;

	if (c->pol->cpu_alone) {
		free(n);
		return 0;
	}
	if (!n)
		return -ENOMEM;
	for (unsigned int k = 0; k < ids && !smt; k++)
		if (t->cpus[k].online)
			smt = ++n[core_of(c, (int)k)] > 1;
	free(n);
	if (!smt)
		return 0;
	c->eff = calloc(ids, sizeof(*c->eff));
	c->core_tmp = calloc(ids, sizeof(*c->core_tmp));
	c->smt = true;
	if (!c->eff || !c->core_tmp)
		return -ENOMEM;
	if (!c->has_app)
		return 0;
	c->core_app = calloc(ids, sizeof(*c->core_app));
	if (!c->core_app)
		return -ENOMEM;
	for (unsigned int k = 0; k < ids; k++)
		c->core_app[core_of(c, (int)k)] += c->app_w[k];
	return 0;
}

static int ctx_init(struct plan_ctx *c, const struct topology *topo,
		    struct plan_irq *irqs, unsigned int nr,
		    const struct plan_policy *pol)
{
	unsigned int ids = topo->nr_ids, nodes = topo->nr_nodes > 0 ?
			   (unsigned int)topo->nr_nodes : 1;
	int max_group = -1, r;

	memset(c, 0, sizeof(*c));
	c->topo = topo;
	c->pol = pol;
	c->irqs = irqs;
	c->nr = nr;
	for (unsigned int i = 0; i < nr; i++)
		if (irqs[i].group > max_group)
			max_group = irqs[i].group;
	c->nr_groups = (unsigned int)(max_group + 1);
	for (c->gc_cap = 64, c->gc_shift = 58; c->gc_cap < 2 * (size_t)nr + 2; c->gc_cap *= 2)
		c->gc_shift--;
	c->load = calloc(ids, sizeof(*c->load));
	c->core_load = calloc(ids, sizeof(*c->core_load));
	c->count = calloc(ids, sizeof(*c->count));
	c->netq = calloc(ids, sizeof(*c->netq));
	c->head = malloc(ids * sizeof(*c->head));
	c->w = malloc(ids * sizeof(*c->w));
	c->vec = pol->vec_avail;
	if (c->vec)
		c->arrive = calloc(ids, sizeof(*c->arrive));
	c->gc = calloc(c->gc_cap, sizeof(*c->gc));
	c->group_busy = calloc(c->nr_groups + 1, sizeof(*c->group_busy));
	c->all = malloc(ids * sizeof(*c->all));
	c->node_cpus = calloc(nodes, sizeof(*c->node_cpus));
	c->node_n = calloc(nodes, sizeof(*c->node_n));
	c->on = malloc((nr + 1) * sizeof(*c->on));
	c->next = malloc((nr + 1) * sizeof(*c->next));
	c->prev = malloc((nr + 1) * sizeof(*c->prev));
	if (!c->load || !c->core_load || !c->count || !c->netq || !c->head ||
	    !c->gc || !c->group_busy || !c->all || !c->node_cpus ||
	    !c->node_n || !c->on || !c->next || !c->prev || !c->w ||
	    (c->vec && !c->arrive))
		return -ENOMEM;
	init_weights(c);
	if (init_app(c) < 0)
		return -ENOMEM;
	for (unsigned int k = 0; k < ids; k++)
		c->head[k] = -1;
	for (unsigned int i = 0; i < nr; i++)
		c->on[i] = c->next[i] = c->prev[i] = -1;
	for (unsigned int k = 0; k < ids; k++) {
		const struct cpu_info *ci = &topo->cpus[k];

		if (!ci->online || ci->avoid)
			continue;
		c->all[c->nr_all++] = (int)k;
		if (ci->node >= 0 && ci->node < topo->nr_nodes)
			c->node_n[ci->node]++;
	}
	if (c->nr_all == 0)
		return -ENOSPC;
	for (unsigned int n = 0; n < nodes; n++) {
		c->node_cpus[n] = malloc((c->node_n[n] + 1) * sizeof(int));
		if (!c->node_cpus[n])
			return -ENOMEM;
		c->node_n[n] = 0;
	}
	for (unsigned int k = 0; k < c->nr_all; k++) {
		int node = topo->cpus[c->all[k]].node;

		if (node >= 0 && node < topo->nr_nodes)
			c->node_cpus[node][c->node_n[node]++] = c->all[k];
	}
	for (unsigned int i = 0; i < nr; i++)
		if (!irqs[i].fixed && irqs[i].group >= 0 && is_heavy(c, &irqs[i]))
			c->group_busy[irqs[i].group]++;
	init_room(c);
	r = plan_classes_init(c);
	return r < 0 ? r : init_smt(c);
}

static void ctx_release(struct plan_ctx *c)
{
	unsigned int nodes = c->topo->nr_nodes > 0 ? (unsigned int)c->topo->nr_nodes : 1;

	if (c->node_cpus)
		for (unsigned int n = 0; n < nodes; n++)
			free(c->node_cpus[n]);
	free(c->node_cpus);
	free(c->node_n);
	free(c->all);
	free(c->load);
	free(c->core_load);
	free(c->eff);
	free(c->core_tmp);
	free(c->core_app);
	free(c->count);
	free(c->netq);
	free(c->head);
	free(c->w);
	free(c->arrive);
	free(c->app_w);
	free(c->mob);
	free(c->lvl);
	free(c->gc);
	free(c->group_busy);
	free(c->on);
	free(c->next);
	free(c->prev);
	plan_classes_release(c);
}

/* A plan set aside while another is built. */
struct saved {
	int target;
	enum plan_reason reason;
	int vec_full;
};

static void save_plan(const struct plan_ctx *c, struct saved *v)
{
	for (unsigned int i = 0; i < c->nr; i++)
		v[i] = (struct saved){ c->irqs[i].target, c->irqs[i].reason,
				       c->irqs[i].vec_full };
}

static void load_plan(struct plan_ctx *c, const struct saved *v)
{
	plan_reset(c);
	for (unsigned int i = 0; i < c->nr; i++) {
		if (c->irqs[i].fixed)
			continue;
		c->irqs[i].target = v[i].target;
		c->irqs[i].reason = v[i].reason;
		c->irqs[i].vec_full = v[i].vec_full;
		plan_account(c, i, v[i].target, +1);
	}
}

/* What a plan is charged for: the busy IRQs it moves, then all of them. */
static uint64_t plan_cost(const struct plan_ctx *c)
{
	uint64_t busy = 0, all = 0;

	for (unsigned int i = 0; i < c->nr; i++) {
		const struct plan_irq *pi = &c->irqs[i];

		if (pi->fixed || pi->target == pi->pinned)
			continue;
		all++;
		busy += is_heavy(c, pi);
	}
	return busy << 32 | all;
}

static bool cpu_valid(const struct topology *topo, int cpu)
{
	return cpu >= 0 && (unsigned int)cpu < topo->nr_ids &&
	       topo->cpus[cpu].online;
}

/* @res's after, app and counts from the plan taken. 0 or -ENOMEM. */
static int fill_result(struct plan_ctx *c, struct plan_result *res)
{
	const struct topology *topo = c->topo;
	struct plan_irq *irqs = c->irqs;

	/* Back in CPUs of the biggest: exact where every weight is 1. */
	for (unsigned int k = 0; !c->has_app && k < topo->nr_ids; k++)
		res->after[k] = c->load[k] / c->w[k];
	/* IRQ load alone, summed as before is, so that a CPU without IRQs
	 * reads 0 and not what is left of its application's load. */
	for (unsigned int i = 0; c->has_app && i < c->nr; i++) {
		int cpu = irqs[i].fixed ? irqs[i].served : irqs[i].target;

		if (cpu_valid(topo, cpu))
			res->after[cpu] += irqs[i].load;
	}
	if (c->has_app) {
		res->app = malloc(topo->nr_ids * sizeof(*res->app));
		if (!res->app)
			return -ENOMEM;
		for (unsigned int k = 0; k < topo->nr_ids; k++)
			res->app[k] = c->app_w[k] > 0 ? c->pol->app[k] : 0;
	}
	for (unsigned int i = 0; i < c->nr; i++) {
		struct plan_irq *pi = &irqs[i];

		/* Balanced away from an application: say so, the reason an
		 * admin looks for. */
		if (c->has_app && plan_moves(pi) && pi->reason == REASON_BALANCE &&
		    cpu_valid(topo, pi->pinned) && c->pol->app[pi->pinned] >= PLAN_APP_BUSY &&
		    c->app_w[pi->target] < c->app_w[pi->pinned])
			pi->reason = REASON_APP;
		if (plan_moves(&irqs[i]))
			res->nr_moves++;
		if (irqs[i].vec_full >= 0 && irqs[i].vec_full == irqs[i].target)
			irqs[i].vec_full = -1;
		if (irqs[i].vec_full >= 0)
			res->nr_vec_limited++;
	}
	return 0;
}

int plan_compute(const struct topology *topo, struct plan_irq *irqs,
		 unsigned int nr, const struct plan_policy *policy,
		 struct plan_result *res)
{
	struct saved *fresh = NULL, *repair = NULL;
	unsigned int *order = NULL;
	double total = 0, peak_fresh, peak_repair, best, goal, enough;
	double base_fresh, best_base;
	uint64_t cost_repair;
	bool forced;
	struct plan_ctx c;
	int r;

	memset(res, 0, sizeof(*res));
	r = ctx_init(&c, topo, irqs, nr, policy);
	if (r < 0)
		goto out;
	res->nr_ids = topo->nr_ids;
	res->before = calloc(topo->nr_ids, sizeof(*res->before));
	res->after = calloc(topo->nr_ids, sizeof(*res->after));
	if (!res->before || !res->after) {
		r = -ENOMEM;
		goto out;
	}
	order = malloc((nr + 1) * sizeof(*order));
	fresh = malloc((nr + 1) * sizeof(*fresh));
	repair = malloc((nr + 1) * sizeof(*repair));
	if (!order || !fresh || !repair) {
		r = -ENOMEM;
		goto out;
	}
	for (unsigned int i = 0; i < nr; i++) {
		struct plan_irq *pi = &irqs[i];

		pi->target = -1;
		pi->reason = REASON_FIXED;
		pi->vec_full = -1;
		for (unsigned int k = 0; k < PLAN_ALTS; k++)
			pi->alt[k] = -1;
		if (cpu_valid(topo, pi->served))
			res->before[pi->served] += pi->load;
		total += pi->load;
	}
	/* Application load is load the comparisons see too. */
	for (unsigned int k = 0; c.has_app && k < topo->nr_ids; k++)
		total += c.app_w[k];
	c.eps = total * 1e-6 / c.nr_all + 1e-12;

	build_fresh(&c, order);
	r = plan_improve(&c, 0);
	if (r < 0)
		goto out;
	peak_fresh = plan_level_of(&c);
	base_fresh = irq_base(&c);
	save_plan(&c, fresh);

	/* The repair improves until it is within an eighth of the threshold
	 * of the fresh plan (goal) and is taken if it gets within a quarter
	 * of it (enough); else the fresh plan is, less what it can do without
	 * while staying at the goal. Between two plans that are both enough,
	 * the one that moves fewer IRQs wins, the lower peak on a tie. The
	 * slack is the planner's share of the error: the estimate it plans on
	 * is off by a few per cent too, and a repair half a threshold above
	 * the best plan (5% by default) left none for it. */
	goal = above(&c, peak_fresh, base_fresh, policy->threshold / 8) + c.eps;
	enough = above(&c, peak_fresh, base_fresh, policy->threshold / 4) + c.eps;
	build_repair(&c, order);
	forced = forced_any(&c);
	r = plan_improve(&c, goal);
	if (r < 0)
		goto out;
	peak_repair = plan_level_of(&c);
	best = peak_repair < peak_fresh ? peak_repair : peak_fresh;
	best_base = peak_repair < peak_fresh ? irq_base(&c) : base_fresh;
	r = plan_revert_moves(&c, peak_repair > goal ? peak_repair : goal);
	if (r < 0)
		goto out;
	peak_repair = plan_level_of(&c);
	cost_repair = plan_cost(&c);
	save_plan(&c, repair);
	load_plan(&c, fresh);
	r = plan_relabel(&c, goal);
	if (r == 0)
		r = plan_revert_moves(&c, goal);
	if (r < 0)
		goto out;
	peak_fresh = plan_level_of(&c);
	if (peak_repair <= enough &&
	    (cost_repair < plan_cost(&c) ||
	     (cost_repair == plan_cost(&c) && peak_repair <= peak_fresh)))
		load_plan(&c, repair);
	settle(&c, res, best, best_base, forced, order);
	/* The repair is judged against the fresh plan, which vector space
	 * may have shaped already: its marks say so where the plan taken
	 * has none of its own. */
	for (unsigned int i = 0; c.vec && i < nr; i++)
		if (!irqs[i].fixed && irqs[i].vec_full < 0 && fresh[i].vec_full >= 0 &&
		    fresh[i].vec_full != irqs[i].target)
			irqs[i].vec_full = fresh[i].vec_full;

	fill_alternatives(&c);
	r = fill_result(&c, res);
out:
	free(order);
	free(fresh);
	free(repair);
	ctx_release(&c);
	if (r < 0)
		plan_result_release(res);
	return r;
}

void plan_result_release(struct plan_result *res)
{
	free(res->before);
	free(res->after);
	free(res->app);
	res->before = res->after = res->app = NULL;
}

const char *plan_reason_text(enum plan_reason r)
{
	static const char *const text[REASON_NR] = {
		[REASON_FIXED] = "fixed",
		[REASON_KEEP] = "no meaningfully better CPU",
		[REASON_AVOIDED] = "was on an isolated, banned or offline CPU",
		[REASON_PIN] = "was allowed on several CPUs",
		[REASON_NODE] = "moved to its device's NUMA node",
		[REASON_SPREAD] = "shared a core with another queue of its device",
		[REASON_BALANCE] = "least loaded eligible CPU",
		[REASON_IDLE] = "idle: CPU with the fewest IRQs",
		[REASON_APP] = "its CPU runs pinned application threads",
	};
	return (unsigned int)r < REASON_NR ? text[r] : "?";
}
