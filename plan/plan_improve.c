// SPDX-License-Identifier: GPL-2.0-or-later
/* plan_improve.c - the passes over a built plan: plan_improve() lowers the
 * busiest CPU move by move, plan_relabel() makes the fresh plan follow the
 * current placement where it only permuted cores, plan_revert_moves() takes
 * back the moves a plan can do without. Each keeps the rules of plan.c. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan_int.h"

static bool rules_ok(struct plan_ctx *c, unsigned int i, int to);

/* plan_score_of() for the spreading rules: the queues really on the core. A
 * CPU full with an application scores as a core holding its share, so
 * that placement avoids it; an IRQ leaving it must still find a core
 * under the share, or the next run would have to spread it again. */
static struct plan_score rule_score(struct plan_ctx *c, const struct plan_irq *pi, int cpu)
{
	struct plan_score s = plan_score_of(c, pi, cpu);
	int core = core_of(c, cpu);

	if (c->full_any && app_full(c, cpu)) {
		s.same_dev = multiqueue(c, pi) ? gc_get(c, pi->group, core) : 0;
		if (pi->class == CLASS_NET && is_heavy(c, pi))
			s.other_nic = c->netq[core] > (pi->group >= 0 ?
						       gc_get(c, pi->group, core) : 0);
	}
	return s;
}

/* Whether moving IRQ @i from its CPU to @to keeps the spreading rules,
 * and @to has a vector for it. */
static bool spread_ok(struct plan_ctx *c, unsigned int i, int to)
{
	return rules_ok(c, i, to) && vec_room(c, &c->irqs[i], to, NULL);
}

/* The spreading rules alone. */
static bool rules_ok(struct plan_ctx *c, unsigned int i, int to)
{
	struct plan_irq *pi = &c->irqs[i];
	int from = c->on[i];
	struct plan_score s_from, s_to;
	bool ok;

	/* Tallies only: the caller is walking the per-CPU lists. */
	plan_tally(c, i, from, -1);
	s_from = rule_score(c, pi, from);
	s_to = rule_score(c, pi, to);
	plan_tally(c, i, from, +1);
	ok = (s_to.same_dev < plan_spread_cap(c, pi) || s_to.same_dev <= s_from.same_dev) &&
	     s_to.other_nic <= s_from.other_nic;
	return ok;
}

/* Whether IRQs @i and @j may trade CPUs under the spreading rules: each
 * judged with both gone from where they are, since in a swap each one's
 * arrival comes with the other's departure. */
static bool swap_ok(struct plan_ctx *c, unsigned int i, unsigned int j)
{
	struct plan_irq *pi = &c->irqs[i], *pj = &c->irqs[j];
	int ci = c->on[i], cj = c->on[j];
	struct plan_score si_from, si_to, sj_from, sj_to;

	/* Tallies only: the caller is walking the per-CPU lists. */
	plan_tally(c, i, ci, -1);
	plan_tally(c, j, cj, -1);
	si_from = rule_score(c, pi, ci);
	si_to = rule_score(c, pi, cj);
	sj_from = rule_score(c, pj, cj);
	sj_to = rule_score(c, pj, ci);
	plan_tally(c, j, cj, +1);
	plan_tally(c, i, ci, +1);
	return (si_to.same_dev < plan_spread_cap(c, pi) ||
		si_to.same_dev <= si_from.same_dev) &&
	       si_to.other_nic <= si_from.other_nic &&
	       (sj_to.same_dev < plan_spread_cap(c, pj) ||
		sj_to.same_dev <= sj_from.same_dev) &&
	       sj_to.other_nic <= sj_from.other_nic &&
	       vec_room(c, pi, cj, pj) && vec_room(c, pj, ci, pi);
}

/* CPUs by load, the busiest on top (the lowest id among equal loads), for
 * plan_improve(): it wants the busiest CPU at every step, and finding it by a
 * scan of every CPU made it O(CPUs^2), for it takes a step per CPU at
 * least (each must be found stuck before it ends). */
struct cpu_heap {
	const double *load;
	int *cpu;		/* heap order */
	int *pos;		/* per CPU id: index in cpu[], -1 when absent */
	unsigned int n;
};

static bool heap_before(const struct cpu_heap *h, int a, int b)
{
	return h->load[a] > h->load[b] || (h->load[a] == h->load[b] && a < b);
}

static void heap_set(struct cpu_heap *h, unsigned int i, int cpu)
{
	h->cpu[i] = cpu;
	h->pos[cpu] = (int)i;
}

/* @cpu's load changed: put it back in its place. */
static void heap_fix(struct cpu_heap *h, int cpu)
{
	unsigned int i;

	if (cpu < 0 || h->pos[cpu] < 0)
		return;
	i = (unsigned int)h->pos[cpu];
	while (i > 0 && heap_before(h, cpu, h->cpu[(i - 1) / 2])) {
		heap_set(h, i, h->cpu[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	for (;;) {
		unsigned int l = 2 * i + 1, r = l + 1, b = i;
		int best = cpu;

		if (l < h->n && heap_before(h, h->cpu[l], best)) {
			b = l;
			best = h->cpu[l];
		}
		if (r < h->n && heap_before(h, h->cpu[r], best)) {
			b = r;
			best = h->cpu[r];
		}
		if (b == i)
			break;
		heap_set(h, i, best);
		i = b;
	}
	heap_set(h, i, cpu);
}

/* Lowest id among the CPUs within @eps of the top load: what a scan in
 * id order keeping the first of loads closer than eps would find. Walks
 * only the top of the heap: below a load under the bound, nothing is. */
static int heap_first_top(const struct cpu_heap *h, double eps)
{
	unsigned int stack[64], sp = 0;
	double bound;
	int best = -1;

	if (!h->n)
		return -1;
	bound = h->load[h->cpu[0]] - eps;
	stack[sp++] = 0;
	while (sp) {
		unsigned int i = stack[--sp];
		int cpu = h->cpu[i];

		if (h->load[cpu] < bound)
			continue;
		if (best < 0 || cpu < best)
			best = cpu;
		/* Depth first: at most one sibling a level waits, and a heap
		 * of CPU_ID_LIMIT CPUs is 15 levels deep. */
		for (unsigned int ch = 2 * i + 1; ch <= 2 * i + 2 && ch < h->n; ch++)
			if (sp < sizeof(stack) / sizeof(stack[0]))
				stack[sp++] = ch;
	}
	return best;
}

static void heap_remove(struct cpu_heap *h, int cpu)
{
	unsigned int i = (unsigned int)h->pos[cpu];
	int last = h->cpu[--h->n];

	h->pos[cpu] = -1;
	if (last == cpu)
		return;
	heap_set(h, i, last);
	heap_fix(h, last);
}

/* Keyed by load (eff where there is SMT), or with application load by
 * level (struct plan_ctx): a CPU
 * whose load is all fixed can neither be lowered nor is it what the plan
 * is judged on, and put on top it would end plan_improve() where the CPUs
 * that carry IRQs are still uneven. */
static int heap_init(struct cpu_heap *h, const struct plan_ctx *c)
{
	h->load = c->has_app ? c->lvl : c->smt ? c->eff : c->load;
	h->n = 0;
	h->cpu = malloc((c->nr_all + 1) * sizeof(*h->cpu));
	h->pos = malloc(c->topo->nr_ids * sizeof(*h->pos));
	if (!h->cpu || !h->pos)
		return -ENOMEM;
	for (unsigned int k = 0; k < c->topo->nr_ids; k++)
		h->pos[k] = -1;
	for (unsigned int k = 0; k < c->nr_all; k++) {
		heap_set(h, h->n++, c->all[k]);
		heap_fix(h, c->all[k]);
	}
	return 0;
}

static void heap_release(struct cpu_heap *h)
{
	free(h->cpu);
	free(h->pos);
}

/* Every CPU whose key changed when @cpu's load did: itself, and with
 * SMT the rest of its core, whose eff counts half of it. */
static void heap_fix_core(struct plan_ctx *c, struct cpu_heap *h, int cpu)
{
	int core = core_of(c, cpu);

	if (!c->smt) {
		heap_fix(h, cpu);
		return;
	}
	for (unsigned int t = c->ix.core_first[core]; t < c->ix.core_first[core + 1]; t++)
		heap_fix(h, c->ix.core_cpu[t]);
}

static void move_irq(struct plan_ctx *c, unsigned int i, int to)
{
	struct plan_irq *pi = &c->irqs[i];
	int from = c->on[i];

	plan_account(c, i, from, -1);
	plan_account(c, i, to, +1);
	for (int h = 0; h < 2; h++) {
		if (c->heap[h]) {
			heap_fix_core(c, c->heap[h], from);
			heap_fix_core(c, c->heap[h], to);
		}
	}
	pi->target = to;
	if (to != pi->pinned && pi->reason == REASON_KEEP)
		pi->reason = REASON_BALANCE;
	else if (to == pi->pinned)
		pi->reason = REASON_KEEP;
}

/* What @cpu's load would be with @pi, to choose where it weighs least.
 * Where CPUs are alike, its load now: the order the planner always
 * used (adding the same amount to each could round two apart to one). */
static double after_add(const struct plan_ctx *c, const struct plan_irq *pi, int cpu)
{
	return c->hetero ? c->load[cpu] + lw(c, pi, cpu) : c->load[cpu];
}

/* Two moves that lower the busiest CPU @m where one does not: an IRQ k
 * leaves some CPU x for the CPU y where it weighs least, making room on x
 * for an IRQ i of @m. Both loads end below @limit, and both moves keep the
 * spreading rules. The pair lowering the larger of the three loads most
 * wins; returns whether there was one. */
static bool chain_move(struct plan_ctx *c, int m, double limit)
{
	double best = limit;
	int bi = -1, bk = -1, bx = -1, by = -1;

	for (int i = c->head[m]; i >= 0; i = c->next[i]) {
		struct plan_irq *pi = &c->irqs[i];
		unsigned int nx;
		const int *vx;

		if (pi->fixed || !is_heavy(c, pi))
			continue;
		vx = plan_candidates(c, pi, &nx);
		for (unsigned int a = 0; a < nx; a++) {
			int x = vx[a];

			if (x == m || !allowed(pi, x))
				continue;
			for (int k = c->head[x]; k >= 0; k = c->next[k]) {
				struct plan_irq *pk = &c->irqs[k];
				double lx = c->load[x] - lw(c, pk, x) + lw(c, pi, x), ly;
				unsigned int ny;
				const int *vy;
				int y = -1;

				if (pk->fixed || !is_heavy(c, pk) || lx >= best ||
				    c->load[m] - lw(c, pi, m) >= best)
					continue;
				vy = plan_candidates(c, pk, &ny);
				for (unsigned int b = 0; b < ny; b++)
					if (vy[b] != x && vy[b] != m &&
					    allowed(pk, vy[b]) &&
					    (y < 0 || after_add(c, pk, vy[b]) < after_add(c, pk, y)))
						y = vy[b];
				if (y < 0)
					continue;
				ly = c->load[y] + lw(c, pk, y);
				if (ly >= best)
					continue;
				/* With SMT the three cores as they would be:
				 * the loads above are their lower bounds. */
				if (c->smt) {
					struct plan_delta dv[3] = {
						{ m, -lw(c, pi, m), -1 },
						{ x, lw(c, pi, x) - lw(c, pk, x), 0 },
						{ y, lw(c, pk, y), 1 },
					};

					lx = plan_peak_after(c, dv, 3);
					if (lx >= best)
						continue;
				}
				/* the rules, move by move */
				if (!spread_ok(c, (unsigned int)k, y))
					continue;
				plan_tally(c, (unsigned int)k, x, -1);
				plan_tally(c, (unsigned int)k, y, +1);
				if (spread_ok(c, (unsigned int)i, x)) {
					best = lx > ly ? lx : ly;
					if (c->load[m] - lw(c, pi, m) > best)
						best = c->load[m] - lw(c, pi, m);
					if (c->smt)
						best = lx;
					bi = i;
					bk = k;
					bx = x;
					by = y;
				}
				plan_tally(c, (unsigned int)k, y, -1);
				plan_tally(c, (unsigned int)k, x, +1);
			}
		}
	}
	if (bi < 0)
		return false;
	move_irq(c, (unsigned int)bk, by);
	move_irq(c, (unsigned int)bi, bx);
	return true;
}

/* The peak a move of @pi from @m to @to leaves among the CPUs it
 * changes: the higher of their loads, or with SMT of their cores' eff. */
static double move_peak(const struct plan_ctx *c, const struct plan_irq *pi, int m, int to)
{
	double peak = c->load[to] + lw(c, pi, to);

	if (c->smt) {
		struct plan_delta dv[2] = { { m, -lw(c, pi, m), -1 }, { to, lw(c, pi, to), 1 } };

		return plan_peak_after(c, dv, 2);
	}
	if (peak < c->load[m] - lw(c, pi, m))
		peak = c->load[m] - lw(c, pi, m);
	return peak;
}

/* The same of a swap: @pi from @m to @to, @pj back. */
static double swap_peak(const struct plan_ctx *c, const struct plan_irq *pi,
			const struct plan_irq *pj, int m, int to)
{
	double a = c->load[m] - lw(c, pi, m) + lw(c, pj, m);
	double b = c->load[to] - lw(c, pj, to) + lw(c, pi, to);

	if (c->smt) {
		int mj = is_heavy(c, pj) ? 1 : 0;
		struct plan_delta dv[2] = {
			{ m, a - c->load[m], mj - 1 },
			{ to, b - c->load[to], 1 - mj },
		};

		return plan_peak_after(c, dv, 2);
	}
	return a > b ? a : b;
}

/* The peak a trade leaves: @pi and @pa from @m to @to, @pb back. */
static double trade_peak(const struct plan_ctx *c, const struct plan_irq *pi,
			 const struct plan_irq *pa, const struct plan_irq *pb, int m, int to)
{
	double dm = lw(c, pb, m) - lw(c, pi, m) - lw(c, pa, m);
	double dto = lw(c, pi, to) + lw(c, pa, to) - lw(c, pb, to);

	if (c->smt) {
		struct plan_delta dv[2] = { { m, dm, -1 }, { to, dto, 1 } };

		return plan_peak_after(c, dv, 2);
	}
	return c->load[m] + dm > c->load[to] + dto ? c->load[m] + dm : c->load[to] + dto;
}

/* Whether @to has vectors for two arrivals, whatever leaves it. */
static bool vec_room2(const struct plan_ctx *c, int to)
{
	return !c->vec || c->vec[to] == UINT_MAX || c->arrive[to] + 2 <= c->vec[to];
}

/* Where neither a move, a swap nor a chain lowers the busiest CPU @m: an
 * IRQ i of @m goes to a CPU @to with a queue a of another device of @m,
 * and a queue b of that device comes back from @to. The device keeps its
 * share of each core (a and b trade places), and i goes where it could
 * not as a swap with b: b would have joined a. arm64-spi: its dwc3 (0.108
 * of a CPU) took the emptiest CPU before the NIC's lightest queues came,
 * and the spreading rule then put one of them beside it; dwc3 and that
 * queue trade with a heavier queue of a CPU with less fixed load. Both
 * CPUs end below @limit; the trade lowering the higher of them most wins. */
static bool trade_move(struct plan_ctx *c, int m, double limit)
{
	double best = limit;
	int bi = -1, ba = -1, bb = -1, bt = -1;

	for (int a = c->head[m]; a >= 0; a = c->next[a]) {
		struct plan_irq *pa = &c->irqs[a];
		unsigned int n;
		const int *v;

		if (pa->fixed || !multiqueue(c, pa))
			continue;
		v = plan_candidates(c, pa, &n);
		for (unsigned int k = 0; k < n; k++) {
			int to = v[k];

			/* What the two CPUs hold together stays (without
			 * SMT, where trades are made): the higher ends at
			 * half of it at best. */
			if (to == m || !allowed(pa, to) || !vec_room2(c, to) ||
			    (!c->smt && c->load[m] + c->load[to] >= 2 * best))
				continue;
			for (int b = c->head[to]; b >= 0; b = c->next[b]) {
				struct plan_irq *pb = &c->irqs[b];

				if (pb->group != pa->group || pb->fixed || !is_heavy(c, pb) ||
				    !plan_is_candidate(c, pb, m))
					continue;
				for (int i = c->head[m]; i >= 0; i = c->next[i]) {
					struct plan_irq *pi = &c->irqs[i];
					double peak;

					if (i == a || pi->fixed || !is_heavy(c, pi) ||
					    pi->group == pa->group || pb->load >= pa->load + pi->load ||
					    !plan_is_candidate(c, pi, to))
						continue;
					peak = trade_peak(c, pi, pa, pb, m, to);
					if (peak >= best || !swap_ok(c, (unsigned int)a, (unsigned int)b) ||
					    !spread_ok(c, (unsigned int)i, to))
						continue;
					best = peak;
					bi = i;
					ba = a;
					bb = b;
					bt = to;
				}
			}
		}
	}
	if (bi < 0)
		return false;
	move_irq(c, (unsigned int)ba, bt);
	move_irq(c, (unsigned int)bb, m);
	move_irq(c, (unsigned int)bi, bt);
	return true;
}

/* The best step plan_improve() found for the busiest CPU: IRQ i from src
 * (the busiest CPU or, with SMT, a sibling of it) to @to, and @j back
 * when a swap; and the best move vector space ruled out. */
struct pick {
	int src, to, j;
	unsigned int i;
	double peak, eff;
	int vec_to, vec_i;
	double vec_peak;
};

/* Moves and swaps of the IRQs on @src that lower the busiest CPU @m's
 * cost below @p->peak. @src is @m, or with SMT a sibling of @m, whose
 * load counts half in @m's: taking an IRQ off it lowers @m by half the
 * IRQ, where @m's own IRQs may all be too heavy to go anywhere (noacct:
 * a NIC queue of 0.126 alone on its CPU, 0.034 beside it). @below: @m is
 * below a peak nothing can lower (plan_improve()). */
static void scan_src(struct plan_ctx *c, int m, int src, bool below, double step,
		     struct pick *p)
{
	for (int i = c->head[src]; i >= 0; i = c->next[i]) {
		struct plan_irq *pi = &c->irqs[i];
		double drop = src == m ? lw(c, pi, m) : lw(c, pi, src) / 2;
		unsigned int n;
		const int *v;

		if (pi->fixed || !is_heavy(c, pi))
			continue;
		/* No move or swap of it leaves @m below what its leaving
		 * does, and that is no better than the best step found:
		 * skip it (most of a sibling's IRQs, at half the gain).
		 * With application load a core without busy movable IRQs
		 * drops out of the peak, and the bound does not hold. */
		if (!c->has_app && cost(c, m) - drop > p->peak + c->eps)
			continue;
		v = plan_candidates(c, pi, &n);
		for (unsigned int k = 0; k < n; k++) {
			int to = v[k];
			/* Among equal peaks, spare busy SMT siblings. */
			double eff = c->load[to] + lw(c, pi, to) +
				     (c->core_load[core_of(c, to)] - c->load[to]) / 2;
			double peak;

			if (to == src || !allowed(pi, to) ||
			    (src != m && core_of(c, to) == core_of(c, m)))
				continue;
			if (below && eff > cost(c, m) - drop + c->eps)
				continue;
			peak = move_peak(c, pi, src, to);
			if (c->vec && !vec_room(c, pi, to, NULL) &&
			    (p->vec_i < 0 || peak < p->vec_peak - c->eps) &&
			    peak < cost(c, m) - step - c->eps &&
			    rules_ok(c, (unsigned int)i, to)) {
				p->vec_peak = peak;
				p->vec_to = to;
				p->vec_i = i;
			}
			if ((p->to < 0 ? peak < p->peak :
			     peak < p->peak - c->eps ||
			     (peak <= p->peak + c->eps && p->j < 0 && eff < p->eff)) &&
			    spread_ok(c, (unsigned int)i, to)) {
				*p = (struct pick){ src, to, -1, (unsigned int)i, peak, eff,
						    p->vec_to, p->vec_i, p->vec_peak };
			}
			for (int j = c->head[to]; j >= 0; j = c->next[j]) {
				struct plan_irq *pj = &c->irqs[j];

				if (pj->fixed || pj->load >= pi->load ||
				    !plan_is_candidate(c, pj, src))
					continue;
				peak = swap_peak(c, pi, pj, src, to);
				if ((p->to < 0 ? peak < p->peak :
				     peak < p->peak - c->eps) &&
				    swap_ok(c, (unsigned int)i, (unsigned int)j)) {
					*p = (struct pick){ src, to, j, (unsigned int)i, peak, eff,
							    p->vec_to, p->vec_i, p->vec_peak };
				}
			}
		}
	}
}

/* Lower the busiest CPU by single moves or swaps until it is at most @stop
 * (0: as far as they go): of its IRQs, or with SMT of its siblings'.
 * Bounded; a CPU nothing can be taken from is set aside so the next
 * busiest gets its turn. */
int plan_improve(struct plan_ctx *c, double stop)
{
	unsigned int budget = 4 * c->nr + 64;
	struct cpu_heap busy = { 0 }, all = { 0 };	/* busy: not set aside */
	int r = -ENOMEM;

	if (heap_init(&busy, c) < 0 || heap_init(&all, c) < 0)
		goto out;
	c->heap[0] = &busy;
	c->heap[1] = &all;
	r = 0;
	while (budget--) {
		int m = heap_first_top(&busy, c->eps);
		double top = all.n ? all.load[all.cpu[0]] : 0;
		struct pick p = { .to = -1, .j = -1, .vec_to = -1, .vec_i = -1 };
		double step;
		bool below;

		/* Done when nothing is left, or the busiest CPU is low enough:
		 * every further move would be one more than needed. */
		if (m < 0 || busy.load[m] <= c->eps || top <= stop)
			break;
		/* Below a peak nothing can lower, evening out must not load the
		 * siblings of busy CPUs: it gains nothing on the peak. */
		below = cost(c, m) < top - c->eps;
		/* A move must lower the peak by more than noise. */
		step = (c->pol->threshold / 10) * irq_part(c, m);
		p.peak = cost(c, m) - step - c->eps;
		scan_src(c, m, m, below, step, &p);
		/* With SMT, the IRQs of its siblings too: only for the peak
		 * itself, since evening out below it scans every CPU in turn,
		 * and scanning its siblings as well took the pass from 10.6
		 * to 18 M instructions on sweep-1024x1000 for no better plan
		 * on any simulated machine. */
		if (c->smt && !below) {
			int core = core_of(c, m);

			for (unsigned int t = c->ix.core_first[core];
			     t < c->ix.core_first[core + 1]; t++)
				if (c->ix.core_cpu[t] != m)
					scan_src(c, m, c->ix.core_cpu[t], below, step, &p);
		}
		/* A move vectors ruled out would have lowered the peak more
		 * than the one taken, or than none: it changed a choice. */
		if (p.vec_i >= 0 && (p.to < 0 || p.vec_peak < p.peak - c->eps)) {
			unsigned int k = p.to >= 0 ? p.i : (unsigned int)p.vec_i;

			if (c->irqs[k].vec_full < 0)
				c->irqs[k].vec_full = p.vec_to;
		}
		if (p.to < 0) {
			/* Trades only without SMT, where no sibling step
			 * exists: with it, on mixed they found a plan 2%
			 * better on the second window's estimate than the
			 * first's plan, and the second cron run moved 5 IRQs
			 * under the same load. */
			if (below || (!chain_move(c, m, p.peak) &&
				      (c->smt || !trade_move(c, m, p.peak))))
				heap_remove(&busy, m);
			continue;
		}
		move_irq(c, p.i, p.to);
		if (p.j >= 0)
			move_irq(c, (unsigned int)p.j, p.src);
	}
out:
	c->heap[0] = c->heap[1] = NULL;
	heap_release(&busy);
	heap_release(&all);
	return r;
}

/* Whether the IRQs on core @f (its threads in @cpu_of) may all go to the
 * matching threads of core @y (swapped with @flip): node and site policy. */
static bool core_fits(const struct plan_ctx *c, const int *cpu_of, const int *nthr,
		      unsigned int f, unsigned int y, int flip)
{
	for (int t = 0; t < nthr[f]; t++) {
		int from = cpu_of[f * 2 + t], to = cpu_of[y * 2 + (flip ? 1 - t : t)];

		for (int i = c->head[from]; i >= 0; i = c->next[i])
			if (!c->irqs[i].fixed && !plan_is_candidate(c, &c->irqs[i], to))
				return false;
	}
	return true;
}

/* IRQs that a relabelling of plan core f as current core y (threads
 * swapped with flip) would leave where they are. */
struct core_pair {
	unsigned int v;
	unsigned int f, y;
	int flip;
};

static int pair_key_cmp(const void *pa, const void *pb)
{
	const struct core_pair *a = pa, *b = pb;

	if (a->f != b->f)
		return a->f < b->f ? -1 : 1;
	if (a->y != b->y)
		return a->y < b->y ? -1 : 1;
	return a->flip - b->flip;
}

/* Most IRQs first; then the order a scan of f, then y, then same threads
 * before swapped ones would meet them. */
static int pair_best_cmp(const void *pa, const void *pb)
{
	const struct core_pair *a = pa, *b = pb;

	if (a->v != b->v)
		return a->v > b->v ? -1 : 1;
	return pair_key_cmp(pa, pb);
}

/* A relabelling: the eligible CPUs as physical cores, which plan core goes
 * to which current core, and the scratch of working that out. */
struct core_map {
	unsigned int nc;	/* cores */
	int *leader;		/* core index -> leader */
	int *cidx;		/* CPU -> core index */
	int *thr;		/* CPU -> thread index */
	int *nthr;		/* core -> threads */
	int *cpu_of;		/* core, thread -> CPU */
	int *lead_idx;		/* leader -> core index */
	struct core_pair *pair;	/* one per IRQ, then one per (f, y, flip) */
	int *map, *flip;	/* plan core -> current core, threads swapped */
	bool *done_f, *done_y;	/* plan cores, current cores matched */
	int *old;		/* per IRQ: its target before */
};

static void core_map_release(struct core_map *m)
{
	free(m->leader);
	free(m->cidx);
	free(m->thr);
	free(m->nthr);
	free(m->cpu_of);
	free(m->lead_idx);
	free(m->pair);
	free(m->map);
	free(m->flip);
	free(m->done_f);
	free(m->done_y);
	free(m->old);
}

/* The eligible CPUs core by core, threads in id order; -ENOMEM. */
static int core_map_init(const struct plan_ctx *c, struct core_map *m)
{
	unsigned int ids = c->topo->nr_ids, nc = 0;

	m->leader = malloc(ids * sizeof(*m->leader));
	m->cidx = malloc(ids * sizeof(*m->cidx));
	m->thr = malloc(ids * sizeof(*m->thr));
	m->nthr = calloc(ids, sizeof(*m->nthr));
	m->cpu_of = malloc(ids * 2 * sizeof(*m->cpu_of));
	m->lead_idx = malloc(ids * sizeof(*m->lead_idx));
	if (!m->leader || !m->cidx || !m->thr || !m->nthr || !m->cpu_of || !m->lead_idx)
		return -ENOMEM;
	for (unsigned int k = 0; k < ids; k++)
		m->cidx[k] = m->thr[k] = m->lead_idx[k] = -1;
	for (unsigned int k = 0; k < c->nr_all; k++) {
		int cpu = c->all[k], core = core_of(c, cpu), ci = m->lead_idx[core];

		if (ci < 0) {
			ci = (int)nc;
			m->leader[nc++] = core;
			m->lead_idx[core] = ci;
		}
		m->cidx[cpu] = ci;
		m->thr[cpu] = m->nthr[ci]++;
		if (m->thr[cpu] < 2)
			m->cpu_of[ci * 2 + m->thr[cpu]] = cpu;
	}
	m->nc = nc;
	m->pair = malloc((c->nr + 1) * sizeof(*m->pair));
	m->map = malloc(nc * sizeof(*m->map));
	m->flip = calloc(nc, sizeof(*m->flip));
	m->done_f = calloc(nc, sizeof(*m->done_f));
	m->done_y = calloc(nc, sizeof(*m->done_y));
	m->old = malloc((c->nr + 1) * sizeof(*m->old));
	if (!m->pair || !m->map || !m->flip || !m->done_f || !m->done_y || !m->old)
		return -ENOMEM;
	return 0;
}

/* Pass 1: for each (plan core, current core, flip), how many IRQs that
 * relabelling would leave where they are; returns how many pairs. */
static unsigned int count_pairs(const struct plan_ctx *c, struct core_map *m)
{
	unsigned int ids = c->topo->nr_ids, npair = 0, np = 0;
	const int *cidx = m->cidx, *thr = m->thr, *nthr = m->nthr;
	struct core_pair *pair = m->pair;

	/* Cores of more than two threads are left alone: their threads are
	 * not matched here. */
	for (unsigned int i = 0; i < c->nr; i++) {
		const struct plan_irq *pi = &c->irqs[i];
		int t = c->on[i], p = pi->pinned;

		if (pi->fixed || t < 0 || p < 0 || (unsigned int)p >= ids ||
		    cidx[t] < 0 || cidx[p] < 0 || nthr[cidx[t]] > 2 ||
		    nthr[cidx[p]] != nthr[cidx[t]] ||
		    c->topo->cpus[t].node != c->topo->cpus[p].node)
			continue;
		pair[npair++] = (struct core_pair){ 1, (unsigned int)cidx[t],
						    (unsigned int)cidx[p], thr[t] != thr[p] };
	}
	/* Count each (f, y, flip) once: at most one entry per IRQ, where a
	 * cores x cores table would be 2 x 4096^2 counters at 8192 CPUs. */
	if (npair)
		qsort(pair, npair, sizeof(*pair), pair_key_cmp);
	for (unsigned int k = 0; k < npair; k++) {
		if (np && pair_key_cmp(&pair[np - 1], &pair[k]) == 0)
			pair[np - 1].v++;
		else
			pair[np++] = pair[k];
	}
	return np;
}

/* Pass 2: every plan core its current core (map, flip), the pairs
 * sharing the most IRQs first, then the cores left in order. */
static void match_cores(const struct plan_ctx *c, struct core_map *m, unsigned int np)
{
	unsigned int nc = m->nc;
	const int *nthr = m->nthr, *leader = m->leader;
	struct core_pair *pair = m->pair;

	for (unsigned int x = 0; x < nc; x++)
		m->map[x] = (int)x;
	/* Greedy, the pair of cores sharing the most IRQs first: taking them
	 * in that order is the repeated search for the best pair left, in one
	 * sort instead of a scan of every pair per core matched (O(cores^3),
	 * half a minute at 4096 cores). core_fits() depends on the plan only,
	 * which this loop does not change: a pair that does not fit never will. */
	if (np)
		qsort(pair, np, sizeof(*pair), pair_best_cmp);
	for (unsigned int k = 0; k < np; k++) {
		unsigned int f = pair[k].f, y = pair[k].y;

		if (m->done_f[f] || m->done_y[y] || nthr[f] != nthr[y] || nthr[f] > 2 ||
		    (pair[k].flip && nthr[f] != 2) ||
		    c->topo->cpus[leader[f]].node !=
		    c->topo->cpus[leader[y]].node ||
		    !core_fits(c, m->cpu_of, nthr, f, y, pair[k].flip))
			continue;
		m->map[f] = (int)y;
		m->flip[f] = pair[k].flip;
		m->done_f[f] = m->done_y[y] = true;
	}
	/* Unmatched cores fill the unmatched places in order. */
	for (unsigned int f = 0, y = 0; f < nc; f++) {
		if (m->done_f[f])
			continue;
		while (y < nc && (m->done_y[y] || nthr[y] != nthr[f] ||
				  c->topo->cpus[leader[f]].node !=
				  c->topo->cpus[leader[y]].node))
			y++;
		if (y >= nc) {
			m->map[f] = (int)f;	/* cannot happen: the same cores */
			continue;
		}
		m->map[f] = (int)y;
		m->done_y[y] = true;
		y = 0;
	}
}

/* Pass 3: move every IRQ to its relabelled CPU; back where it was if
 * policy or the fixed load did not follow (@goal). */
static void apply_map(struct plan_ctx *c, struct core_map *m, double goal)
{
	const int *cidx = m->cidx, *thr = m->thr, *nthr = m->nthr;
	int *old = m->old;
	unsigned int over = plan_vec_over(c);
	bool ok = true;

	for (unsigned int i = 0; i < c->nr; i++)
		old[i] = c->irqs[i].target;
	plan_reset(c);
	for (unsigned int i = 0; i < c->nr; i++) {
		struct plan_irq *pi = &c->irqs[i];
		int t = old[i], to = t;

		if (pi->fixed)
			continue;
		if (t >= 0 && cidx[t] >= 0 && nthr[cidx[t]] <= 2) {
			int f = cidx[t], th = m->flip[f] ? 1 - thr[t] : thr[t];

			to = m->cpu_of[m->map[f] * 2 + th];
		}
		pi->target = to;
		if (to == pi->pinned && pi->reason != REASON_AVOIDED &&
		    pi->reason != REASON_PIN && pi->reason != REASON_NODE)
			pi->reason = REASON_KEEP;
		else if (to != pi->pinned && pi->reason == REASON_KEEP)
			pi->reason = is_heavy(c, pi) ? REASON_BALANCE : REASON_IDLE;
		plan_account(c, i, to, +1);
	}
	for (unsigned int i = 0; i < c->nr && ok; i++)
		ok = c->irqs[i].fixed || plan_is_candidate(c, &c->irqs[i], c->irqs[i].target);
	/* and vector space, where it is known, no tighter than before */
	ok = ok && plan_vec_over(c) <= over;
	if (!ok || plan_level_of(c) > goal) {
		/* policy or the fixed load did not follow: as it was */
		plan_reset(c);
		for (unsigned int i = 0; i < c->nr; i++) {
			if (c->irqs[i].fixed)
				continue;
			c->irqs[i].target = old[i];
			plan_account(c, i, old[i], +1);
		}
	}
}

/* Where the fresh plan only permutes what is where, follow the current
 * placement instead: whole physical cores of a plan trade places with
 * cores of the same node and thread count, threads kept together, so that
 * as many IRQs as possible stay where they are. Loads per core, the
 * spreading and NIC rules and NUMA locality are untouched by such a
 * relabelling; fixed load is not, so the result must still meet @goal, or
 * the plan is left as it was. Greedy: the pair of cores sharing the most
 * IRQs first. */
int plan_relabel(struct plan_ctx *c, double goal)
{
	struct core_map m = { 0 };
	int r = core_map_init(c, &m);

	if (r == 0) {
		match_cores(c, &m, count_pairs(c, &m));
		apply_map(c, &m, goal);
	}
	core_map_release(&m);
	return r;
}

static const struct plan_ctx *revert_ctx;

/* Lightest first: undoing light moves keeps the most IRQs still. */
static int revert_cmp(const void *pa, const void *pb)
{
	const struct plan_irq *a = &revert_ctx->irqs[*(const unsigned int *)pa];
	const struct plan_irq *b = &revert_ctx->irqs[*(const unsigned int *)pb];

	if (a->load != b->load)
		return a->load < b->load ? -1 : 1;
	return (a->irq > b->irq) - (a->irq < b->irq);
}

/* What an IRQ's return from @from to @to leaves on @to's core (and on
 * @from's, which only go down): with SMT its siblings rise by half of it,
 * and a return that lifts one above the goal is no return to take. */
static double revert_peak(const struct plan_ctx *c, const struct plan_irq *pi, int from, int to)
{
	struct plan_delta dv[2] = { { from, -lw(c, pi, from), -1 }, { to, lw(c, pi, to), 1 } };

	return plan_peak_after(c, dv, 2);
}

/* Take back moves of a fresh plan that it does not need: an IRQ returns to
 * its current CPU when that keeps every CPU within @goal, its device's
 * share of the core, the NIC rule, and (idle IRQs) the count margin. Passes
 * repeat while they take something back: one return can make room for
 * another. */
int plan_revert_moves(struct plan_ctx *c, double goal)
{
	unsigned int *order = malloc((c->nr + 1) * sizeof(*order));
	bool changed = true;

	if (!order)
		return -ENOMEM;
	for (int pass = 0; changed && pass < 4; pass++) {
		unsigned int n = 0;

		changed = false;
		for (unsigned int i = 0; i < c->nr; i++) {
			struct plan_irq *pi = &c->irqs[i];

			if (!pi->fixed && pi->target != pi->pinned &&
			    plan_forced_reason(c, pi) == REASON_KEEP)
				order[n++] = i;
		}
		revert_ctx = c;
		qsort(order, n, sizeof(*order), revert_cmp);
		revert_ctx = NULL;
		for (unsigned int k = 0; k < n; k++) {
			unsigned int i = order[k];
			struct plan_irq *pi = &c->irqs[i];
			int from = c->on[i], to = pi->pinned;
			struct plan_score s_from, s_to;
			bool ok;

			if (is_heavy(c, pi)) {
				plan_tally(c, i, from, -1);
				s_from = plan_score_of(c, pi, from);
				s_to = plan_score_of(c, pi, to);
				plan_tally(c, i, from, +1);
				ok = (c->smt ? revert_peak(c, pi, from, to) :
				      s_to.load - s_to.sibling / 2) <= goal + c->eps &&
				     s_to.same_dev < plan_spread_cap(c, pi) &&
				     s_to.other_nic <= s_from.other_nic;
			} else {
				/* the margin the next run's idle pass keeps */
				plan_account(c, i, from, -1);
				plan_rank_cpus(c, pi, &s_from, 1);
				s_to = plan_score_of(c, pi, to);
				plan_account(c, i, from, +1);
				ok = s_to.count <= s_from.count + 1;
			}
			if (!ok)
				continue;
			move_irq(c, i, to);
			pi->reason = REASON_KEEP;
			changed = true;
		}
	}
	free(order);
	plan_spread_idle(c);
	return 0;
}
