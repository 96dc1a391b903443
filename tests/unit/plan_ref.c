// SPDX-License-Identifier: GPL-2.0-or-later
/* plan_ref.c - the planner as it was before its ranking used priority
 * queues (3a31341): every IRQ ranked every candidate CPU, IRQs x CPUs x
 * log CPUs. Kept for the tests only, as the reference the fast planner
 * must agree with IRQ for IRQ (test_plan_matches_reference). Do not make it
 * faster or share code with plan/: its worth is that it ranks by a scan.
 * A rule that changes plans on alike CPUs is added here too, written the
 * scanning way (plan_int.h says when and how). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "plan_ref.h"

struct gc_entry {
	uint64_t key;		/* group << 32 | core, 0 = empty */
	unsigned int count;
};

struct cpu_heap;

struct ctx {
	const struct topology *topo;
	const struct plan_policy *pol;
	struct plan_irq *irqs;
	unsigned int nr;
	double *load;		/* per CPU */
	double *core_load;	/* per core leader id */
	unsigned int *count;	/* IRQs per CPU */
	unsigned int *netq;	/* busy NIC queues per core leader id */
	struct gc_entry *gc;	/* IRQs per (device, core) */
	size_t gc_cap;
	unsigned int *group_busy;	/* busy movable IRQs per device */
	unsigned int nr_groups;
	int *all;		/* every eligible CPU, ascending */
	unsigned int nr_all;
	int **node_cpus;	/* eligible CPUs per node */
	unsigned int *node_n;
	unsigned int *irq_cores;	/* per IRQ: cores among its candidates */
	int *on;		/* per IRQ: CPU whose load it carries, -1 none */
	int *head, *next, *prev;	/* IRQs per CPU, for the improve step */
	double eps;		/* loads closer than this are equal */
	struct cpu_heap *heap[2];	/* improve()'s, kept by move_irq() */
};

static uint64_t gc_key(int group, int core)
{
	return ((uint64_t)(unsigned int)group + 1) << 32 | (uint32_t)core;
}

static struct gc_entry *gc_slot(struct ctx *c, int group, int core)
{
	uint64_t key = gc_key(group, core);
	size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (c->gc_cap - 1);

	while (c->gc[i].key && c->gc[i].key != key)
		i = (i + 1) & (c->gc_cap - 1);
	c->gc[i].key = key;
	return &c->gc[i];
}

static unsigned int gc_get(struct ctx *c, int group, int core)
{
	uint64_t key = gc_key(group, core);
	size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (c->gc_cap - 1);

	while (c->gc[i].key) {
		if (c->gc[i].key == key)
			return c->gc[i].count;
		i = (i + 1) & (c->gc_cap - 1);
	}
	return 0;
}

static bool is_heavy(const struct ctx *c, const struct plan_irq *pi)
{
	return pi->load >= c->pol->idle_load;
}

/* Busy queues of one device spread over cores only if it has several. Idle
 * vectors (a NIC's misc vector, unused SR-IOV queues) are no queues here:
 * they neither claim a core nor widen a device's share of one. */
static bool multiqueue(const struct ctx *c, const struct plan_irq *pi)
{
	return pi->group >= 0 && (unsigned int)pi->group < c->nr_groups &&
	       is_heavy(c, pi) && c->group_busy[pi->group] > 1;
}

static int core_of(const struct ctx *c, int cpu)
{
	int core = c->topo->cpus[cpu].core;

	return core >= 0 && (unsigned int)core < c->topo->nr_ids ? core : cpu;
}

/* The per-CPU and per-core tallies of IRQ @i on @cpu, without the lists:
 * what scoring looks at. */
static void tally(struct ctx *c, unsigned int i, int cpu, int sign)
{
	struct plan_irq *pi = &c->irqs[i];
	int core = core_of(c, cpu);

	c->load[cpu] += sign * pi->load;
	c->core_load[core] += sign * pi->load;
	c->count[cpu] += (unsigned int)sign;
	if (pi->class == CLASS_NET && is_heavy(c, pi))
		c->netq[core] += (unsigned int)sign;
	if (pi->group >= 0 && is_heavy(c, pi))
		gc_slot(c, pi->group, core)->count += (unsigned int)sign;
}

static void account(struct ctx *c, unsigned int i, int cpu, int sign)
{
	if (cpu < 0)
		return;
	tally(c, i, cpu, sign);
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

/* The CPUs an IRQ may go to: its node's eligible CPUs, or every eligible
 * CPU when the node is unknown or has none (the only spill-over rule). */
static bool any_allowed(const struct plan_irq *pi, const int *v, unsigned int n);

/* The CPUs an IRQ may go to: its node's eligible CPUs, or every eligible
 * CPU when the node is unknown or has none (the only spill-over rule). Site
 * policy (allowed) can only narrow this; a node it rules out entirely is
 * treated as having no eligible CPU. */
static const int *candidates(const struct ctx *c, const struct plan_irq *pi,
			     unsigned int *n)
{
	if (pi->node >= 0 && pi->node < c->topo->nr_nodes &&
	    c->node_n[pi->node] > 0 &&
	    any_allowed(pi, c->node_cpus[pi->node], c->node_n[pi->node])) {
		*n = c->node_n[pi->node];
		return c->node_cpus[pi->node];
	}
	*n = c->nr_all;
	return c->all;
}

/* Site policy narrows the candidates; it never widens them. */
static bool allowed(const struct plan_irq *pi, int cpu)
{
	return !pi->allowed || cpuset_test(pi->allowed, (unsigned int)cpu);
}

static bool any_allowed(const struct plan_irq *pi, const int *v, unsigned int n)
{
	if (!pi->allowed)
		return true;
	for (unsigned int k = 0; k < n; k++)
		if (cpuset_test(pi->allowed, (unsigned int)v[k]))
			return true;
	return false;
}

static bool is_candidate(const struct ctx *c, const struct plan_irq *pi, int cpu)
{
	unsigned int n;
	const int *v = candidates(c, pi, &n);
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

/* How an IRQ would fare on a CPU; compared field by field. */
struct score {
	unsigned int same_dev;	/* its device's queues on that core */
	unsigned int other_nic;	/* other NICs' busy queues on that core */
	double load;		/* CPU load with it */
	double sibling;		/* load of the rest of the core */
	unsigned int count;	/* IRQs on the CPU */
	int cpu;
};

static struct score score_of(struct ctx *c, const struct plan_irq *pi, int cpu)
{
	int core = core_of(c, cpu);
	struct score s = { 0 };

	if (multiqueue(c, pi))
		s.same_dev = gc_get(c, pi->group, core);
	if (pi->class == CLASS_NET && is_heavy(c, pi)) {
		unsigned int mine = pi->group >= 0 ? gc_get(c, pi->group, core) : 0;

		s.other_nic = c->netq[core] > mine ? 1 : 0;
	}
	s.sibling = c->core_load[core] - c->load[cpu];
	/* A busy SMT sibling slows this CPU too: count half of it. */
	s.load = c->load[cpu] + pi->load + (is_heavy(c, pi) ? s.sibling / 2 : 0);
	s.count = c->count[cpu];
	s.cpu = cpu;
	return s;
}

/* <0 when @a is the better place. Idle IRQs look at counts before load. */
static int score_cmp(const struct ctx *c, bool heavy, const struct score *a,
		     const struct score *b)
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

/* Best CPU and the next PLAN_ALTS after it, as scores. */
static unsigned int rank_cpus(struct ctx *c, const struct plan_irq *pi,
			      struct score *best, unsigned int nbest)
{
	bool heavy = is_heavy(c, pi);
	unsigned int n, have = 0;
	const int *v = candidates(c, pi, &n);

	for (unsigned int k = 0; k < n; k++) {
		struct score s;
		unsigned int j;

		if (!allowed(pi, v[k]))
			continue;
		s = score_of(c, pi, v[k]);
		if (have == nbest && score_cmp(c, heavy, &s, &best[nbest - 1]) >= 0)
			continue;
		j = have < nbest ? have++ : nbest - 1;
		while (j > 0 && score_cmp(c, heavy, &s, &best[j - 1]) < 0) {
			best[j] = best[j - 1];
			j--;
		}
		best[j] = s;
	}
	return have;
}

/* Queues of a device one core may hold: its fair share of the cores it may
 * use, its candidates that site policy allows. (The one rule here that
 * follows plan.c's since the copy: it counted the node's cores, and a
 * device allowed on a few of them moved again in every run. It is policy,
 * not the ranking this file keeps as it was; counted per IRQ here by a
 * scan, where plan.c counts once per class.) */
static unsigned int spread_cap(const struct ctx *c, const struct plan_irq *pi)
{
	unsigned int cores, q;

	if (!multiqueue(c, pi))
		return UINT32_MAX;
	cores = c->irq_cores[pi - c->irqs];
	q = c->group_busy[pi->group];
	return cores ? (q + cores - 1) / cores : q;
}

/* Why the current CPU cannot stay, or REASON_KEEP if it could. */
static enum plan_reason forced_reason(const struct ctx *c, const struct plan_irq *pi)
{
	if (pi->pinned < 0)
		return REASON_PIN;
	if ((unsigned int)pi->pinned >= c->topo->nr_ids ||
	    c->topo->cpus[pi->pinned].avoid || !c->topo->cpus[pi->pinned].online)
		return REASON_AVOIDED;
	if (!is_candidate(c, pi, pi->pinned))
		return REASON_NODE;
	return REASON_KEEP;
}

static const struct ctx *sort_ctx;

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
static void place_greedy(struct ctx *c, unsigned int *order, unsigned int n)
{
	struct score best[1];

	sort_ctx = c;
	qsort(order, n, sizeof(*order), order_cmp);
	sort_ctx = NULL;
	for (unsigned int k = 0; k < n; k++) {
		struct plan_irq *pi = &c->irqs[order[k]];
		enum plan_reason forced = forced_reason(c, pi);

		if (rank_cpus(c, pi, best, 1) == 0) {
			/* Policy left it nowhere (the caller checks): stay. */
			best[0] = score_of(c, pi, pi->pinned >= 0 &&
					   is_candidate(c, pi, pi->pinned) ?
					   pi->pinned : c->all[0]);
		}
		pi->target = best[0].cpu;
		if (forced != REASON_KEEP)
			pi->reason = forced;
		else if (pi->reason != REASON_SPREAD)
			pi->reason = pi->target == pi->pinned ? REASON_KEEP :
				     is_heavy(c, pi) ? REASON_BALANCE : REASON_IDLE;
		account(c, order[k], pi->target, +1);
	}
}

/* Forget every placement but the fixed IRQs'. */
static void reset(struct ctx *c)
{
	unsigned int ids = c->topo->nr_ids;

	memset(c->load, 0, ids * sizeof(*c->load));
	memset(c->core_load, 0, ids * sizeof(*c->core_load));
	memset(c->count, 0, ids * sizeof(*c->count));
	memset(c->netq, 0, ids * sizeof(*c->netq));
	memset(c->gc, 0, c->gc_cap * sizeof(*c->gc));
	for (unsigned int k = 0; k < ids; k++)
		c->head[k] = -1;
	for (unsigned int i = 0; i < c->nr; i++) {
		struct plan_irq *pi = &c->irqs[i];

		c->on[i] = c->next[i] = c->prev[i] = -1;
		/* Fixed IRQs weigh where they are served. */
		if (pi->fixed && pi->served >= 0 &&
		    (unsigned int)pi->served < ids && c->topo->cpus[pi->served].online)
			account(c, i, pi->served, +1);
	}
}

static int build_fresh(struct ctx *c, unsigned int *order)
{
	unsigned int n = 0;

	reset(c);
	for (unsigned int i = 0; i < c->nr; i++) {
		if (c->irqs[i].fixed)
			continue;
		c->irqs[i].reason = REASON_KEEP;
		order[n++] = i;
	}
	place_greedy(c, order, n);
	return 0;
}

/* Idle IRQs leave their CPU when it holds more than one IRQ above the CPU
 * with the fewest: spread by count, with a margin of one so that equal
 * counts never trade places. Those the plan moves are held to it too: the
 * busy IRQs that improve() moved after them can have crowded their CPU,
 * and the next run would spread them then. */
static void spread_idle(struct ctx *c)
{
	for (unsigned int i = 0; i < c->nr; i++) {
		struct plan_irq *pi = &c->irqs[i];
		struct score best[1];
		int from = c->on[i];

		if (pi->fixed || is_heavy(c, pi) || from < 0)
			continue;
		account(c, i, from, -1);
		rank_cpus(c, pi, best, 1);
		if (score_of(c, pi, from).count > best[0].count + 1) {
			pi->target = best[0].cpu;
			pi->reason = pi->target == pi->pinned ? REASON_KEEP : REASON_IDLE;
		}
		account(c, i, pi->target, +1);
	}
}

static int build_repair(struct ctx *c, unsigned int *order)
{
	unsigned int n = 0;

	reset(c);
	for (unsigned int i = 0; i < c->nr; i++) {
		struct plan_irq *pi = &c->irqs[i];

		if (pi->fixed)
			continue;
		pi->reason = forced_reason(c, pi);
		if (pi->reason != REASON_KEEP) {
			order[n++] = i;
			continue;
		}
		pi->target = pi->pinned;
		account(c, i, pi->pinned, +1);
	}
	/* Queues beyond a core's fair share of their device move, the
	 * highest-numbered first so the survivors are stable. */
	for (unsigned int i = c->nr; i-- > 0;) {
		struct plan_irq *pi = &c->irqs[i];

		if (c->on[i] < 0 || pi->fixed || !multiqueue(c, pi))
			continue;
		if (gc_get(c, pi->group, core_of(c, c->on[i])) > spread_cap(c, pi)) {
			account(c, i, c->on[i], -1);
			pi->reason = REASON_SPREAD;
			order[n++] = i;
		}
	}
	place_greedy(c, order, n);
	spread_idle(c);
	return 0;
}

/* Whether moving IRQ @i from its CPU to @to keeps the spreading rules. */
static bool spread_ok(struct ctx *c, unsigned int i, int to)
{
	struct plan_irq *pi = &c->irqs[i];
	int from = c->on[i];
	struct score s_from, s_to;
	bool ok;

	/* Tallies only: the caller is walking the per-CPU lists. */
	tally(c, i, from, -1);
	s_from = score_of(c, pi, from);
	s_to = score_of(c, pi, to);
	tally(c, i, from, +1);
	ok = (s_to.same_dev < spread_cap(c, pi) || s_to.same_dev <= s_from.same_dev) &&
	     s_to.other_nic <= s_from.other_nic;
	return ok;
}

/* Whether IRQs @i and @j may trade CPUs under the spreading rules: each
 * judged with both gone from where they are, since in a swap each one's
 * arrival comes with the other's departure. */
static bool swap_ok(struct ctx *c, unsigned int i, unsigned int j)
{
	struct plan_irq *pi = &c->irqs[i], *pj = &c->irqs[j];
	int ci = c->on[i], cj = c->on[j];
	struct score si_from, si_to, sj_from, sj_to;

	/* Tallies only: the caller is walking the per-CPU lists. */
	tally(c, i, ci, -1);
	tally(c, j, cj, -1);
	si_from = score_of(c, pi, ci);
	si_to = score_of(c, pi, cj);
	sj_from = score_of(c, pj, cj);
	sj_to = score_of(c, pj, ci);
	tally(c, j, cj, +1);
	tally(c, i, ci, +1);
	return (si_to.same_dev < spread_cap(c, pi) ||
		si_to.same_dev <= si_from.same_dev) &&
	       si_to.other_nic <= si_from.other_nic &&
	       (sj_to.same_dev < spread_cap(c, pj) ||
		sj_to.same_dev <= sj_from.same_dev) &&
	       sj_to.other_nic <= sj_from.other_nic;
}

/* CPUs by load, the busiest on top (the lowest id among equal loads), for
 * improve(): it wants the busiest CPU at every step, and finding it by a
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

static int heap_init(struct cpu_heap *h, const struct ctx *c)
{
	h->load = c->load;
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

static void move_irq(struct ctx *c, unsigned int i, int to)
{
	struct plan_irq *pi = &c->irqs[i];
	int from = c->on[i];

	account(c, i, from, -1);
	account(c, i, to, +1);
	for (int h = 0; h < 2; h++) {
		if (c->heap[h]) {
			heap_fix(c->heap[h], from);
			heap_fix(c->heap[h], to);
		}
	}
	pi->target = to;
	if (to != pi->pinned && pi->reason == REASON_KEEP)
		pi->reason = REASON_BALANCE;
	else if (to == pi->pinned)
		pi->reason = REASON_KEEP;
}

/* Two moves that lower the busiest CPU @m where one does not: an IRQ k
 * leaves some CPU x for the CPU y where it weighs least, making room on x
 * for an IRQ i of @m. Both loads end below @limit, and both moves keep the
 * spreading rules. The pair lowering the larger of the three loads most
 * wins; returns whether there was one. */
static bool chain_move(struct ctx *c, int m, double limit)
{
	double best = limit;
	int bi = -1, bk = -1, bx = -1, by = -1;

	for (int i = c->head[m]; i >= 0; i = c->next[i]) {
		struct plan_irq *pi = &c->irqs[i];
		unsigned int nx;
		const int *vx;

		if (pi->fixed || !is_heavy(c, pi))
			continue;
		vx = candidates(c, pi, &nx);
		for (unsigned int a = 0; a < nx; a++) {
			int x = vx[a];

			if (x == m || !allowed(pi, x))
				continue;
			for (int k = c->head[x]; k >= 0; k = c->next[k]) {
				struct plan_irq *pk = &c->irqs[k];
				double lx = c->load[x] - pk->load + pi->load, ly;
				unsigned int ny;
				const int *vy;
				int y = -1;

				if (pk->fixed || !is_heavy(c, pk) || lx >= best ||
				    c->load[m] - pi->load >= best)
					continue;
				vy = candidates(c, pk, &ny);
				for (unsigned int b = 0; b < ny; b++)
					if (vy[b] != x && vy[b] != m &&
					    allowed(pk, vy[b]) &&
					    (y < 0 || c->load[vy[b]] < c->load[y]))
						y = vy[b];
				if (y < 0)
					continue;
				ly = c->load[y] + pk->load;
				if (ly >= best)
					continue;
				/* the rules, move by move */
				if (!spread_ok(c, (unsigned int)k, y))
					continue;
				tally(c, (unsigned int)k, x, -1);
				tally(c, (unsigned int)k, y, +1);
				if (spread_ok(c, (unsigned int)i, x)) {
					best = lx > ly ? lx : ly;
					if (c->load[m] - pi->load > best)
						best = c->load[m] - pi->load;
					bi = i;
					bk = k;
					bx = x;
					by = y;
				}
				tally(c, (unsigned int)k, y, -1);
				tally(c, (unsigned int)k, x, +1);
			}
		}
	}
	if (bi < 0)
		return false;
	move_irq(c, (unsigned int)bk, by);
	move_irq(c, (unsigned int)bi, bx);
	return true;
}

/* Where no move, swap or chain helps the busiest CPU @m: an IRQ i of @m
 * and a queue a of another device of @m go to a CPU @to, and a queue b
 * of a's device comes back (plan_improve.c, trade_move()). The trade that
 * leaves the higher of the two loads lowest, below @limit, wins. */
static bool trade_move(struct ctx *c, int m, double limit)
{
	double best = limit;
	int bi = -1, ba = -1, bb = -1, bt = -1;

	for (int a = c->head[m]; a >= 0; a = c->next[a]) {
		struct plan_irq *pa = &c->irqs[a];
		unsigned int n;
		const int *v;

		if (pa->fixed || !multiqueue(c, pa))
			continue;
		v = candidates(c, pa, &n);
		for (unsigned int k = 0; k < n; k++) {
			int to = v[k];

			if (to == m || !allowed(pa, to))
				continue;
			for (int b = c->head[to]; b >= 0; b = c->next[b]) {
				struct plan_irq *pb = &c->irqs[b];

				if (pb->group != pa->group || pb->fixed || !is_heavy(c, pb) ||
				    !is_candidate(c, pb, m))
					continue;
				for (int i = c->head[m]; i >= 0; i = c->next[i]) {
					struct plan_irq *pi = &c->irqs[i];
					double lm, lt, peak;

					if (i == a || pi->fixed || !is_heavy(c, pi) ||
					    pi->group == pa->group || pb->load >= pa->load + pi->load ||
					    !is_candidate(c, pi, to))
						continue;
					lm = c->load[m] + (pb->load - pi->load - pa->load);
					lt = c->load[to] + (pi->load + pa->load - pb->load);
					peak = lm > lt ? lm : lt;
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

/* Lower the busiest CPU by single moves or swaps until it is at most @stop
 * (0: as far as they go). Bounded; a CPU nothing can be taken from is set
 * aside so the next busiest gets its turn. */
static int improve(struct ctx *c, double stop)
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
		int m = heap_first_top(&busy, c->eps), best_to = -1, best_j = -1;
		unsigned int best_i = 0;
		double best_peak, best_eff = 0, top = all.n ? c->load[all.cpu[0]] : 0;
		bool below;

		/* Done when nothing is left, or the busiest CPU is low enough:
		 * every further move would be one more than needed. */
		if (m < 0 || c->load[m] <= c->eps || top <= stop)
			break;
		/* Below a peak nothing can lower, evening out must not load the
		 * siblings of busy CPUs: it gains nothing on the peak. */
		below = c->load[m] < top - c->eps;
		/* A move must lower the peak by more than noise. */
		best_peak = c->load[m] - (c->pol->threshold / 10) * c->load[m] - c->eps;
		for (int i = c->head[m]; i >= 0; i = c->next[i]) {
			struct plan_irq *pi = &c->irqs[i];
			unsigned int n;
			const int *v;

			if (pi->fixed || !is_heavy(c, pi))
				continue;
			v = candidates(c, pi, &n);
			for (unsigned int k = 0; k < n; k++) {
				int to = v[k];
				/* Among equal peaks, spare busy SMT siblings. */
				double eff = c->load[to] + pi->load +
					     (c->core_load[core_of(c, to)] - c->load[to]) / 2;
				double peak;

				if (to == m || !allowed(pi, to))
					continue;
				if (below && eff > c->load[m] - pi->load + c->eps)
					continue;
				peak = c->load[to] + pi->load;
				if (peak < c->load[m] - pi->load)
					peak = c->load[m] - pi->load;
				if ((best_to < 0 ? peak < best_peak :
				     peak < best_peak - c->eps ||
				     (peak <= best_peak + c->eps && best_j < 0 && eff < best_eff)) &&
				    spread_ok(c, (unsigned int)i, to)) {
					best_peak = peak;
					best_eff = eff;
					best_i = (unsigned int)i;
					best_to = to;
					best_j = -1;
				}
				for (int j = c->head[to]; j >= 0; j = c->next[j]) {
					struct plan_irq *pj = &c->irqs[j];
					double a, b;

					if (pj->fixed || pj->load >= pi->load ||
					    !is_candidate(c, pj, m))
						continue;
					a = c->load[m] - pi->load + pj->load;
					b = c->load[to] - pj->load + pi->load;
					peak = a > b ? a : b;
					if ((best_to < 0 ? peak < best_peak :
					     peak < best_peak - c->eps) &&
					    swap_ok(c, (unsigned int)i, (unsigned int)j)) {
						best_peak = peak;
						best_eff = eff;
						best_i = (unsigned int)i;
						best_to = to;
						best_j = j;
					}
				}
			}
		}
		if (best_to < 0) {
			if (below || (!chain_move(c, m, best_peak) && !trade_move(c, m, best_peak)))
				heap_remove(&busy, m);
			continue;
		}
		move_irq(c, best_i, best_to);
		if (best_j >= 0)
			move_irq(c, (unsigned int)best_j, m);
	}
out:
	c->heap[0] = c->heap[1] = NULL;
	heap_release(&busy);
	heap_release(&all);
	return r;
}

static double peak_of(const struct ctx *c, const double *load)
{
	double peak = 0;

	for (unsigned int k = 0; k < c->nr_all; k++)
		if (load[c->all[k]] > peak)
			peak = load[c->all[k]];
	return peak;
}

/* Whether any IRQ had to move (an avoided or offline CPU, a wrong node, an
 * IRQ allowed on several CPUs, a device crowding a core). */
static bool forced_any(const struct ctx *c)
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
 * chosen, which may have given up some of it to move less. */
static void settle(struct ctx *c, struct plan_result *res, double best,
		   bool forced, unsigned int *order)
{
	/* The busiest CPU now against the best plan's, both seen through
	 * the same estimate: a gap no larger than what the clock can
	 * resolve is no evidence. On a big machine the busiest of hundreds
	 * of CPUs is the one whose tick count happened to round up most,
	 * and without this every other run would chase that. */
	if (forced || peak_of(c, res->before) > best * (1 + c->pol->threshold) +
						c->pol->resolution + c->eps)
		return;
	build_repair(c, order);
}

/* Whether the IRQs on core @f (its threads in @cpu_of) may all go to the
 * matching threads of core @y (swapped with @flip): node and site policy. */
static bool core_fits(const struct ctx *c, const int *cpu_of, const int *nthr,
		      unsigned int f, unsigned int y, int flip)
{
	for (int t = 0; t < nthr[f]; t++) {
		int from = cpu_of[f * 2 + t], to = cpu_of[y * 2 + (flip ? 1 - t : t)];

		for (int i = c->head[from]; i >= 0; i = c->next[i])
			if (!c->irqs[i].fixed && !is_candidate(c, &c->irqs[i], to))
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

/* Where the fresh plan only permutes what is where, follow the current
 * placement instead: whole physical cores of a plan trade places with
 * cores of the same node and thread count, threads kept together, so that
 * as many IRQs as possible stay where they are. Loads per core, the
 * spreading and NIC rules and NUMA locality are untouched by such a
 * relabelling; fixed load is not, so the result must still meet @goal, or
 * the plan is left as it was. Greedy: the pair of cores sharing the most
 * IRQs first. */
static int relabel(struct ctx *c, double goal)
{
	unsigned int ids = c->topo->nr_ids, nc = 0;
	int *leader = malloc(ids * sizeof(*leader));	/* core index -> leader */
	int *cidx = malloc(ids * sizeof(*cidx));	/* CPU -> core index */
	int *thr = malloc(ids * sizeof(*thr));		/* CPU -> thread index */
	int *nthr = calloc(ids, sizeof(*nthr));		/* core -> threads */
	int *cpu_of = malloc(ids * 2 * sizeof(*cpu_of));	/* core, thread -> CPU */
	int *lead_idx = malloc(ids * sizeof(*lead_idx));	/* leader -> core index */
	struct core_pair *pair = NULL;
	unsigned int npair = 0, np = 0;
	int *map = NULL, *flip = NULL, *old = NULL;
	bool *done_f = NULL, *done_y = NULL, ok = true;
	int r = -ENOMEM;

	if (!leader || !cidx || !thr || !nthr || !cpu_of || !lead_idx)
		goto out;
	for (unsigned int k = 0; k < ids; k++)
		cidx[k] = thr[k] = lead_idx[k] = -1;
	for (unsigned int k = 0; k < c->nr_all; k++) {
		int cpu = c->all[k], core = core_of(c, cpu), ci = lead_idx[core];

		if (ci < 0) {
			ci = (int)nc;
			leader[nc++] = core;
			lead_idx[core] = ci;
		}
		cidx[cpu] = ci;
		thr[cpu] = nthr[ci]++;
		if (thr[cpu] < 2)
			cpu_of[ci * 2 + thr[cpu]] = cpu;
	}
	pair = malloc((c->nr + 1) * sizeof(*pair));
	map = malloc(nc * sizeof(*map));
	flip = calloc(nc, sizeof(*flip));
	done_f = calloc(nc, sizeof(*done_f));
	done_y = calloc(nc, sizeof(*done_y));
	old = malloc((c->nr + 1) * sizeof(*old));
	if (!pair || !map || !flip || !done_f || !done_y || !old)
		goto out;
	r = 0;
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
	for (unsigned int x = 0; x < nc; x++)
		map[x] = (int)x;
	/* Greedy, the pair of cores sharing the most IRQs first: taking them
	 * in that order is the repeated search for the best pair left, in one
	 * sort instead of a scan of every pair per core matched (O(cores^3),
	 * half a minute at 4096 cores). core_fits() depends on the plan only,
	 * which this loop does not change: a pair that does not fit never will. */
	if (np)
		qsort(pair, np, sizeof(*pair), pair_best_cmp);
	for (unsigned int k = 0; k < np; k++) {
		unsigned int f = pair[k].f, y = pair[k].y;

		if (done_f[f] || done_y[y] || nthr[f] != nthr[y] || nthr[f] > 2 ||
		    (pair[k].flip && nthr[f] != 2) ||
		    c->topo->cpus[leader[f]].node !=
		    c->topo->cpus[leader[y]].node ||
		    !core_fits(c, cpu_of, nthr, f, y, pair[k].flip))
			continue;
		map[f] = (int)y;
		flip[f] = pair[k].flip;
		done_f[f] = done_y[y] = true;
	}
	/* Unmatched cores fill the unmatched places in order. */
	for (unsigned int f = 0, y = 0; f < nc; f++) {
		if (done_f[f])
			continue;
		while (y < nc && (done_y[y] || nthr[y] != nthr[f] ||
				  c->topo->cpus[leader[f]].node !=
				  c->topo->cpus[leader[y]].node))
			y++;
		if (y >= nc) {
			map[f] = (int)f;	/* cannot happen: the same cores */
			continue;
		}
		map[f] = (int)y;
		done_y[y] = true;
		y = 0;
	}
	for (unsigned int i = 0; i < c->nr; i++)
		old[i] = c->irqs[i].target;
	reset(c);
	for (unsigned int i = 0; i < c->nr; i++) {
		struct plan_irq *pi = &c->irqs[i];
		int t = old[i], to = t;

		if (pi->fixed)
			continue;
		if (t >= 0 && cidx[t] >= 0 && nthr[cidx[t]] <= 2) {
			int f = cidx[t], th = flip[f] ? 1 - thr[t] : thr[t];

			to = cpu_of[map[f] * 2 + th];
		}
		pi->target = to;
		if (to == pi->pinned && pi->reason != REASON_AVOIDED &&
		    pi->reason != REASON_PIN && pi->reason != REASON_NODE)
			pi->reason = REASON_KEEP;
		else if (to != pi->pinned && pi->reason == REASON_KEEP)
			pi->reason = is_heavy(c, pi) ? REASON_BALANCE : REASON_IDLE;
		account(c, i, to, +1);
	}
	for (unsigned int i = 0; i < c->nr && ok; i++)
		ok = c->irqs[i].fixed || is_candidate(c, &c->irqs[i], c->irqs[i].target);
	if (!ok || peak_of(c, c->load) > goal) {
		/* policy or the fixed load did not follow: as it was */
		reset(c);
		for (unsigned int i = 0; i < c->nr; i++) {
			if (c->irqs[i].fixed)
				continue;
			c->irqs[i].target = old[i];
			account(c, i, old[i], +1);
		}
	}
out:
	free(leader);
	free(cidx);
	free(thr);
	free(nthr);
	free(cpu_of);
	free(lead_idx);
	free(pair);
	free(map);
	free(flip);
	free(done_f);
	free(done_y);
	free(old);
	return r;
}

static const struct ctx *revert_ctx;

/* Lightest first: undoing light moves keeps the most IRQs still. */
static int revert_cmp(const void *pa, const void *pb)
{
	const struct plan_irq *a = &revert_ctx->irqs[*(const unsigned int *)pa];
	const struct plan_irq *b = &revert_ctx->irqs[*(const unsigned int *)pb];

	if (a->load != b->load)
		return a->load < b->load ? -1 : 1;
	return (a->irq > b->irq) - (a->irq < b->irq);
}

/* Take back moves of a fresh plan that it does not need: an IRQ returns to
 * its current CPU when that keeps every CPU within @goal, its device's
 * share of the core, the NIC rule, and (idle IRQs) the count margin. Passes
 * repeat while they take something back: one return can make room for
 * another. */
static int revert_moves(struct ctx *c, double goal)
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
			    forced_reason(c, pi) == REASON_KEEP)
				order[n++] = i;
		}
		revert_ctx = c;
		qsort(order, n, sizeof(*order), revert_cmp);
		revert_ctx = NULL;
		for (unsigned int k = 0; k < n; k++) {
			unsigned int i = order[k];
			struct plan_irq *pi = &c->irqs[i];
			int from = c->on[i], to = pi->pinned;
			struct score s_from, s_to;
			bool ok;

			if (is_heavy(c, pi)) {
				tally(c, i, from, -1);
				s_from = score_of(c, pi, from);
				s_to = score_of(c, pi, to);
				tally(c, i, from, +1);
				ok = s_to.load - s_to.sibling / 2 <= goal + c->eps &&
				     s_to.same_dev < spread_cap(c, pi) &&
				     s_to.other_nic <= s_from.other_nic;
			} else {
				/* the margin the next run's idle pass keeps */
				account(c, i, from, -1);
				rank_cpus(c, pi, &s_from, 1);
				s_to = score_of(c, pi, to);
				account(c, i, from, +1);
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
	spread_idle(c);
	return 0;
}

static void fill_alternatives(struct ctx *c)
{
	struct score best[PLAN_ALTS + 1];

	for (unsigned int i = 0; i < c->nr; i++) {
		struct plan_irq *pi = &c->irqs[i];
		unsigned int have, k, a = 0;

		for (k = 0; k < PLAN_ALTS; k++)
			pi->alt[k] = -1;
		if (!plan_moves(pi))
			continue;
		account(c, i, pi->target, -1);
		have = rank_cpus(c, pi, best, PLAN_ALTS + 1);
		account(c, i, pi->target, +1);
		for (k = 0; k < have && a < PLAN_ALTS; k++)
			if (best[k].cpu != pi->target)
				pi->alt[a++] = best[k].cpu;
	}
}

/* Distinct physical cores among @cpus; core leaders are CPU ids. */
static unsigned int count_cores(struct ctx *c, const int *cpus, unsigned int n)
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

static int ctx_init(struct ctx *c, const struct topology *topo,
		    struct plan_irq *irqs, unsigned int nr,
		    const struct plan_policy *pol)
{
	unsigned int ids = topo->nr_ids, nodes = topo->nr_nodes > 0 ?
			   (unsigned int)topo->nr_nodes : 1;
	int max_group = -1, *mine;

	memset(c, 0, sizeof(*c));
	c->topo = topo;
	c->pol = pol;
	c->irqs = irqs;
	c->nr = nr;
	for (unsigned int i = 0; i < nr; i++)
		if (irqs[i].group > max_group)
			max_group = irqs[i].group;
	c->nr_groups = (unsigned int)(max_group + 1);
	for (c->gc_cap = 64; c->gc_cap < 2 * (size_t)nr + 2; c->gc_cap *= 2)
		;
	c->load = calloc(ids, sizeof(*c->load));
	c->core_load = calloc(ids, sizeof(*c->core_load));
	c->count = calloc(ids, sizeof(*c->count));
	c->netq = calloc(ids, sizeof(*c->netq));
	c->head = malloc(ids * sizeof(*c->head));
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
	    !c->node_n || !c->on || !c->next || !c->prev)
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
	c->irq_cores = calloc(nr + 1, sizeof(*c->irq_cores));
	mine = malloc((c->nr_all + 1) * sizeof(*mine));
	if (!c->irq_cores || !mine) {
		free(mine);
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < nr; i++) {
		unsigned int n, m = 0;
		const int *v = candidates(c, &irqs[i], &n);

		for (unsigned int k = 0; k < n; k++)
			if (allowed(&irqs[i], v[k]))
				mine[m++] = v[k];
		c->irq_cores[i] = count_cores(c, mine, m);
	}
	free(mine);
	return 0;
}

static void ctx_release(struct ctx *c)
{
	unsigned int nodes = c->topo->nr_nodes > 0 ? (unsigned int)c->topo->nr_nodes : 1;

	if (c->node_cpus)
		for (unsigned int n = 0; n < nodes; n++)
			free(c->node_cpus[n]);
	free(c->node_cpus);
	free(c->node_n);
	free(c->irq_cores);
	free(c->all);
	free(c->load);
	free(c->core_load);
	free(c->count);
	free(c->netq);
	free(c->head);
	free(c->gc);
	free(c->group_busy);
	free(c->on);
	free(c->next);
	free(c->prev);
}

/* A plan set aside while another is built. */
struct saved {
	int target;
	enum plan_reason reason;
};

static void save_plan(const struct ctx *c, struct saved *v)
{
	for (unsigned int i = 0; i < c->nr; i++)
		v[i] = (struct saved){ c->irqs[i].target, c->irqs[i].reason };
}

static void load_plan(struct ctx *c, const struct saved *v)
{
	reset(c);
	for (unsigned int i = 0; i < c->nr; i++) {
		if (c->irqs[i].fixed)
			continue;
		c->irqs[i].target = v[i].target;
		c->irqs[i].reason = v[i].reason;
		account(c, i, v[i].target, +1);
	}
}

/* What a plan is charged for: the busy IRQs it moves, then all of them. */
static uint64_t plan_cost(const struct ctx *c)
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

int plan_ref_compute(const struct topology *topo, struct plan_irq *irqs,
		 unsigned int nr, const struct plan_policy *policy,
		 struct plan_result *res)
{
	struct saved *fresh = NULL, *repair = NULL;
	unsigned int *order = NULL;
	double total = 0, peak_fresh, peak_repair, best, goal, enough;
	uint64_t cost_repair;
	bool forced;
	struct ctx c;
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
		for (unsigned int k = 0; k < PLAN_ALTS; k++)
			pi->alt[k] = -1;
		if (cpu_valid(topo, pi->served))
			res->before[pi->served] += pi->load;
		total += pi->load;
	}
	c.eps = total * 1e-6 / c.nr_all + 1e-12;

	build_fresh(&c, order);
	r = improve(&c, 0);
	if (r < 0)
		goto out;
	peak_fresh = peak_of(&c, c.load);
	save_plan(&c, fresh);

	/* The repair improves until it is within an eighth of the threshold
	 * of the fresh plan (goal) and is taken if it gets within a quarter
	 * of it (enough); else the fresh plan is, less what it can do without
	 * while staying at the goal. Between two plans that are both enough,
	 * the one that moves fewer IRQs wins, the lower peak on a tie. (These
	 * two fractions follow plan.c's: they are policy, not the ranking
	 * this file keeps as it was.) */
	goal = peak_fresh * (1 + policy->threshold / 8) + c.eps;
	enough = peak_fresh * (1 + policy->threshold / 4) + c.eps;
	build_repair(&c, order);
	forced = forced_any(&c);
	r = improve(&c, goal);
	if (r < 0)
		goto out;
	peak_repair = peak_of(&c, c.load);
	best = peak_repair < peak_fresh ? peak_repair : peak_fresh;
	r = revert_moves(&c, peak_repair > goal ? peak_repair : goal);
	if (r < 0)
		goto out;
	peak_repair = peak_of(&c, c.load);
	cost_repair = plan_cost(&c);
	save_plan(&c, repair);
	load_plan(&c, fresh);
	r = relabel(&c, goal);
	if (r == 0)
		r = revert_moves(&c, goal);
	if (r < 0)
		goto out;
	peak_fresh = peak_of(&c, c.load);
	if (peak_repair <= enough &&
	    (cost_repair < plan_cost(&c) ||
	     (cost_repair == plan_cost(&c) && peak_repair <= peak_fresh)))
		load_plan(&c, repair);
	settle(&c, res, best, forced, order);

	fill_alternatives(&c);
	memcpy(res->after, c.load, topo->nr_ids * sizeof(*res->after));
	for (unsigned int i = 0; i < nr; i++)
		if (plan_moves(&irqs[i]))
			res->nr_moves++;
out:
	free(order);
	free(fresh);
	free(repair);
	ctx_release(&c);
	if (r < 0)
		plan_ref_release(res);
	return r;
}

void plan_ref_release(struct plan_result *res)
{
	free(res->before);
	free(res->after);
	res->before = res->after = NULL;
}
