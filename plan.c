/* plan.c - the placement planner. Pure: no I/O, no clock, no randomness;
 * ties go to the lowest CPU id so the same input always gives the same plan.
 *
 * Two candidate plans are built and the one that moves less wins unless the
 * other is better by the threshold:
 *  - repair: every IRQ stays where it is unless it must move (an avoided or
 *    offline CPU, a wrong node, an IRQ allowed on several CPUs, more queues of
 *    one device on a core than its fair share); those are placed greedily.
 *  - fresh: every IRQ placed greedily, heaviest first.
 * Greedy placement takes the best CPU of the device's node, where "best" is,
 * in order: fewest queues of the same device on that physical core; for NIC
 * queues, a core no other NIC uses; the lowest load after placement, with
 * half the load of the SMT siblings added; the fewest IRQs; the lowest id.
 * Idle IRQs compare counts before load. Both plans then go through improve:
 * single moves or swaps that lower the busiest CPU meaningfully.
 * Last, settle: if nothing forced a move and the plan lowers the busiest CPU
 * by less than the threshold, every busy IRQ stays where it is. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"

struct gc_entry {
	uint64_t key;		/* group << 32 | core, 0 = empty */
	unsigned int count;
};

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
	unsigned int *group_movable;	/* movable IRQs per device */
	unsigned int nr_groups;
	int *all;		/* every eligible CPU, ascending */
	unsigned int nr_all;
	int **node_cpus;	/* eligible CPUs per node */
	unsigned int *node_n;
	unsigned int *node_cores;	/* physical cores among node_cpus */
	unsigned int all_cores;
	int *on;		/* per IRQ: CPU whose load it carries, -1 none */
	int *head, *next, *prev;	/* IRQs per CPU, for the improve step */
	double eps;		/* loads closer than this are equal */
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

/* Queues of one device spread over cores only if it has several. */
static bool multiqueue(const struct ctx *c, const struct plan_irq *pi)
{
	return pi->group >= 0 && (unsigned int)pi->group < c->nr_groups &&
	       c->group_movable[pi->group] > 1;
}

static int core_of(const struct ctx *c, int cpu)
{
	int core = c->topo->cpus[cpu].core;

	return core >= 0 && (unsigned int)core < c->topo->nr_ids ? core : cpu;
}

static void account(struct ctx *c, unsigned int i, int cpu, int sign)
{
	struct plan_irq *pi = &c->irqs[i];
	int core;

	if (cpu < 0)
		return;
	core = core_of(c, cpu);
	c->load[cpu] += sign * pi->load;
	c->core_load[core] += sign * pi->load;
	c->count[cpu] += (unsigned int)sign;
	if (pi->class == CLASS_NET && is_heavy(c, pi))
		c->netq[core] += (unsigned int)sign;
	if (pi->group >= 0)
		gc_slot(c, pi->group, core)->count += (unsigned int)sign;
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

static double avg_load(const struct ctx *c)
{
	double sum = 0;

	for (unsigned int k = 0; k < c->nr_all; k++)
		sum += c->load[c->all[k]];
	for (unsigned int i = 0; i < c->nr; i++)
		if (!c->irqs[i].fixed && c->on[i] < 0 && is_heavy(c, &c->irqs[i]))
			sum += c->irqs[i].load;
	return c->nr_all ? sum / c->nr_all : 0;
}

/* Queues of a device one core may hold: its fair share of the node's cores. */
static unsigned int spread_cap(const struct ctx *c, const struct plan_irq *pi)
{
	unsigned int cores, q;

	if (!multiqueue(c, pi))
		return UINT32_MAX;
	cores = pi->node >= 0 && pi->node < c->topo->nr_nodes &&
		c->node_n[pi->node] > 0 ? c->node_cores[pi->node] : c->all_cores;
	q = c->group_movable[pi->group];
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

/* Stay put unless the best place is better by the threshold. */
static bool keep_current(struct ctx *c, const struct plan_irq *pi,
			 const struct score *best, double avg)
{
	struct score cur;

	if (forced_reason(c, pi) != REASON_KEEP)
		return false;
	cur = score_of(c, pi, pi->pinned);
	if (cur.same_dev >= spread_cap(c, pi) || cur.other_nic > best->other_nic)
		return false;
	if (!is_heavy(c, pi))
		return cur.count <= best->count + 1;
	return cur.load <= best->load + c->pol->threshold *
	       (best->load > avg ? best->load : avg);
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

/* Place the IRQs of @order (unplaced, movable) greedily. With @sticky an IRQ
 * keeps its CPU when that is nearly as good. A reason already set by the
 * caller (why it had to move) is kept. */
static void place_greedy(struct ctx *c, unsigned int *order, unsigned int n,
			 bool sticky)
{
	struct score best[1];
	double avg = avg_load(c);

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
		if (sticky && keep_current(c, pi, &best[0], avg)) {
			pi->target = pi->pinned;
			pi->reason = REASON_KEEP;
		} else {
			pi->target = best[0].cpu;
			if (forced != REASON_KEEP)
				pi->reason = forced;
			else if (pi->reason != REASON_SPREAD)
				pi->reason = pi->target == pi->pinned ? REASON_KEEP :
					     is_heavy(c, pi) ? REASON_BALANCE : REASON_IDLE;
		}
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
	place_greedy(c, order, n, true);
	return 0;
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
	place_greedy(c, order, n, false);
	/* Idle IRQs piled on a CPU spread out by count. */
	for (unsigned int i = 0; i < c->nr; i++) {
		struct plan_irq *pi = &c->irqs[i];
		struct score best[1];
		int from = c->on[i];

		if (pi->fixed || is_heavy(c, pi) || pi->reason != REASON_KEEP)
			continue;
		account(c, i, from, -1);
		rank_cpus(c, pi, best, 1);
		if (score_of(c, pi, from).count > best[0].count + 1 ||
		    score_of(c, pi, from).same_dev > best[0].same_dev) {
			pi->target = best[0].cpu;
			pi->reason = REASON_IDLE;
		}
		account(c, i, pi->target, +1);
	}
	return 0;
}

/* Whether moving IRQ @i from its CPU to @to keeps the spreading rules. */
static bool spread_ok(struct ctx *c, unsigned int i, int to)
{
	struct plan_irq *pi = &c->irqs[i];
	int from = c->on[i];
	struct score s_from, s_to;
	bool ok;

	account(c, i, from, -1);
	s_from = score_of(c, pi, from);
	s_to = score_of(c, pi, to);
	account(c, i, from, +1);
	ok = (s_to.same_dev < spread_cap(c, pi) || s_to.same_dev <= s_from.same_dev) &&
	     s_to.other_nic <= s_from.other_nic;
	return ok;
}

static void move_irq(struct ctx *c, unsigned int i, int to)
{
	struct plan_irq *pi = &c->irqs[i];

	account(c, i, c->on[i], -1);
	account(c, i, to, +1);
	pi->target = to;
	if (to != pi->pinned && pi->reason == REASON_KEEP)
		pi->reason = REASON_BALANCE;
	else if (to == pi->pinned)
		pi->reason = REASON_KEEP;
}

/* Lower the busiest CPU by single moves or swaps. Bounded; a CPU nothing can
 * be taken from is set aside so the next busiest gets its turn. */
static int improve(struct ctx *c)
{
	unsigned int budget = 4 * c->nr + 64;
	bool *stuck = calloc(c->topo->nr_ids, sizeof(*stuck));

	if (!stuck)
		return -ENOMEM;
	while (budget--) {
		int m = -1, best_to = -1, best_j = -1;
		unsigned int best_i = 0;
		double best_peak, best_eff = 0, top = 0;
		bool below;

		for (unsigned int k = 0; k < c->nr_all; k++) {
			int cpu = c->all[k];

			if (c->load[cpu] > top)
				top = c->load[cpu];
			if (!stuck[cpu] && (m < 0 || c->load[cpu] > c->load[m] + c->eps))
				m = cpu;
		}
		if (m < 0 || c->load[m] <= c->eps)
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
					    spread_ok(c, (unsigned int)i, to) &&
					    spread_ok(c, (unsigned int)j, m)) {
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
			stuck[m] = true;
			continue;
		}
		move_irq(c, best_i, best_to);
		if (best_j >= 0)
			move_irq(c, (unsigned int)best_j, m);
	}
	free(stuck);
	return 0;
}

static double peak_of(const struct ctx *c, const double *load)
{
	double peak = 0;

	for (unsigned int k = 0; k < c->nr_all; k++)
		if (load[c->all[k]] > peak)
			peak = load[c->all[k]];
	return peak;
}

/* Nothing forced and too little gained: the current placement stands. */
static void settle(struct ctx *c, struct plan_result *res)
{
	double before, after;

	for (unsigned int i = 0; i < c->nr; i++) {
		enum plan_reason r = c->irqs[i].reason;

		if (!c->irqs[i].fixed && (r == REASON_AVOIDED || r == REASON_PIN ||
					  r == REASON_NODE || r == REASON_SPREAD))
			return;
	}
	before = peak_of(c, res->before);
	after = peak_of(c, c->load);
	if (before > after * (1 + c->pol->threshold) + c->eps)
		return;
	/* Idle IRQs were spread by count with a margin already; only busy
	 * ones chase load and so are the ones to hold back. */
	for (unsigned int i = 0; i < c->nr; i++) {
		struct plan_irq *pi = &c->irqs[i];

		if (pi->fixed || pi->target == pi->pinned || !is_heavy(c, pi))
			continue;
		move_irq(c, i, pi->pinned);
	}
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
	int max_group = -1;

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
	c->group_movable = calloc(c->nr_groups + 1, sizeof(*c->group_movable));
	c->all = malloc(ids * sizeof(*c->all));
	c->node_cpus = calloc(nodes, sizeof(*c->node_cpus));
	c->node_n = calloc(nodes, sizeof(*c->node_n));
	c->on = malloc((nr + 1) * sizeof(*c->on));
	c->next = malloc((nr + 1) * sizeof(*c->next));
	c->prev = malloc((nr + 1) * sizeof(*c->prev));
	if (!c->load || !c->core_load || !c->count || !c->netq || !c->head ||
	    !c->gc || !c->group_movable || !c->all || !c->node_cpus ||
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
		if (!irqs[i].fixed && irqs[i].group >= 0)
			c->group_movable[irqs[i].group]++;
	c->node_cores = calloc(nodes, sizeof(*c->node_cores));
	if (!c->node_cores)
		return -ENOMEM;
	c->all_cores = count_cores(c, c->all, c->nr_all);
	for (unsigned int n = 0; n < (unsigned int)topo->nr_nodes; n++)
		c->node_cores[n] = count_cores(c, c->node_cpus[n], c->node_n[n]);
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
	free(c->node_cores);
	free(c->all);
	free(c->load);
	free(c->core_load);
	free(c->count);
	free(c->netq);
	free(c->head);
	free(c->gc);
	free(c->group_movable);
	free(c->on);
	free(c->next);
	free(c->prev);
}

static bool cpu_valid(const struct topology *topo, int cpu)
{
	return cpu >= 0 && (unsigned int)cpu < topo->nr_ids &&
	       topo->cpus[cpu].online;
}

int plan_compute(const struct topology *topo, struct plan_irq *irqs,
		 unsigned int nr, const struct plan_policy *policy,
		 struct plan_result *res)
{
	struct saved { int target; enum plan_reason reason; } *fresh = NULL;
	unsigned int *order = NULL;
	double total = 0, peak_fresh;
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
	if (!order || !fresh) {
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
	r = improve(&c);
	if (r < 0)
		goto out;
	peak_fresh = peak_of(&c, c.load);
	for (unsigned int i = 0; i < nr; i++)
		fresh[i] = (struct saved){ irqs[i].target, irqs[i].reason };

	build_repair(&c, order);
	r = improve(&c);
	if (r < 0)
		goto out;
	if (peak_of(&c, c.load) > peak_fresh * (1 + policy->threshold) + c.eps) {
		/* Repairing the current placement falls short: start afresh. */
		reset(&c);
		for (unsigned int i = 0; i < nr; i++) {
			if (irqs[i].fixed)
				continue;
			irqs[i].target = fresh[i].target;
			irqs[i].reason = fresh[i].reason;
			account(&c, i, irqs[i].target, +1);
		}
	} else {
		settle(&c, res);
	}

	fill_alternatives(&c);
	memcpy(res->after, c.load, topo->nr_ids * sizeof(*res->after));
	for (unsigned int i = 0; i < nr; i++)
		if (plan_moves(&irqs[i]))
			res->nr_moves++;
out:
	free(order);
	free(fresh);
	ctx_release(&c);
	if (r < 0)
		plan_result_release(res);
	return r;
}

void plan_result_release(struct plan_result *res)
{
	free(res->before);
	free(res->after);
	res->before = res->after = NULL;
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
	};
	return (unsigned int)r < REASON_NR ? text[r] : "?";
}
