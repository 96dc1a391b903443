// SPDX-License-Identifier: GPL-2.0-or-later
/* pack.c - the pool of placement = pack. Per node, the eligible cores are
 * ranked by their pinned application load (after those with room left by
 * the IRQs that cannot move; the last pool's cores favoured by
 * PACK_STICKY; then the bigger, then the lowest id), and the
 * node's busy IRQs are packed first-fit decreasing onto their CPUs in
 * that order, each CPU holding at most the target (scaled by its
 * capacity): the cores touched are the ones the load needs. A core is
 * taken whole, SMT siblings with it, since siblings share the core's
 * time: an IRQ on one steals from an application on the other. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pack.h"

/* Room for rounding in a sum of loads: a CPU at exactly the target is
 * under it. */
#define PACK_EPS	1e-12

struct pcore {
	int id;			/* its lowest CPU id (topology's core) */
	double key;		/* application load, less PACK_STICKY if kept */
	unsigned int cap;	/* its biggest CPU's capacity */
	bool kept;		/* in the last run's pool */
	bool full;		/* every CPU of it full with IRQs that cannot move */
};

struct pbin {
	unsigned int rank;	/* its core's place in the order */
	unsigned int cpu;
	double load, limit;
	double base;		/* the load of IRQs that cannot move */
	bool closed;		/* a heavy IRQ's own */
};

struct pitem {
	double load;
	unsigned int irq;
};

void pack_result_release(struct pack_result *res)
{
	cpuset_free(res->pool);
	pack_state_release(&res->state);
	free(res->need);
	free(res->busy);
	for (unsigned int i = 0; i < res->nr_owned; i++)
		cpuset_free(res->owned[i]);
	free(res->owned);
	memset(res, 0, sizeof(*res));
}

void pack_hysteresis(unsigned int need, unsigned int slack, const struct pack_node *prev,
		     unsigned int max, struct pack_node *ret)
{
	if (!prev || prev->cores == 0 || need > prev->cores) {
		ret->cores = need;	/* grows at once */
		ret->under = 0;
	} else if (slack >= prev->cores) {
		ret->cores = prev->cores;	/* needed, or too close to shrink */
		ret->under = 0;
	} else {
		ret->under = prev->under + 1;
		if (ret->under >= PACK_SHRINK_RUNS) {
			/* one core a run while the load stays well under */
			ret->under = PACK_SHRINK_RUNS;
			ret->cores = prev->cores - 1;
		} else {
			ret->cores = prev->cores;
		}
	}
	if (ret->cores > max)
		ret->cores = max;
}

static unsigned int nr_domains(const struct topology *topo)
{
	return topo->nr_nodes > 0 ? (unsigned int)topo->nr_nodes : 1;
}

/* A CPU of no known node counts to the first. */
static unsigned int cpu_domain(const struct topology *topo, unsigned int cpu)
{
	int node = topo->cpus[cpu].node;

	return node >= 0 && (unsigned int)node < nr_domains(topo) ? (unsigned int)node : 0;
}

static int core_id(const struct topology *topo, unsigned int cpu)
{
	int core = topo->cpus[cpu].core;

	return core >= 0 && (unsigned int)core < topo->nr_ids ? core : (int)cpu;
}

static bool may_use(const struct plan_irq *pi, unsigned int cpu)
{
	return !pi->allowed || cpuset_test(pi->allowed, cpu);
}

/* The node whose pool holds @pi's load: its device's, where it may go
 * there; else the node of the first eligible CPU it may use (the planner
 * puts an IRQ of no node anywhere, so it needs room somewhere; the first
 * node is as good as any and stays the same from run to run). -1: it may
 * use no eligible CPU. */
static int irq_domain(const struct topology *topo, const struct plan_irq *pi)
{
	int first = -1;

	for (int c = cpuset_first(topo->eligible); c >= 0; c = cpuset_next(topo->eligible, c)) {
		unsigned int d = cpu_domain(topo, (unsigned int)c);

		if (!may_use(pi, (unsigned int)c))
			continue;
		if (pi->node < 0 || (unsigned int)pi->node == d)
			return (int)d;
		if (first < 0)
			first = (int)d;
	}
	return first;
}

static int cmp_core(const void *a, const void *b)
{
	const struct pcore *x = a, *y = b;

	if (x->full != y->full)
		return x->full ? 1 : -1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->cap != y->cap)
		return x->cap > y->cap ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

static int cmp_bin(const void *a, const void *b)
{
	const struct pbin *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

static int cmp_item(const void *a, const void *b)
{
	const struct pitem *x = a, *y = b;

	if (x->load != y->load)
		return x->load > y->load ? -1 : 1;
	return (x->irq > y->irq) - (x->irq < y->irq);
}

/* One node's candidates: its cores, ranked, and their CPUs in that order. */
struct pdom {
	struct pcore *cores;
	unsigned int nr_cores;
	struct pbin *bins;
	unsigned int nr_bins;
	struct pitem *items;
	unsigned int nr_items;
	bool any;		/* some movable IRQ counts to it, busy or idle */
};

static void pdom_release(struct pdom *pd)
{
	free(pd->cores);
	free(pd->bins);
	free(pd->items);
	memset(pd, 0, sizeof(*pd));
}

/* Node @d's cores ranked and its CPUs as bins in their order, each
 * holding the @fixed IRQ load already on it. @slot is scratch of nr_ids
 * ints. 0 or -ENOMEM. */
static int rank_cores(const struct pack_input *in, unsigned int d, const struct cpuset *kept,
		      const double *fixed, int *slot, struct pdom *pd)
{
	const struct topology *topo = in->topo;
	unsigned int n = cpuset_count(topo->eligible);

	pd->cores = calloc(n ? n : 1, sizeof(*pd->cores));
	pd->bins = calloc(n ? n : 1, sizeof(*pd->bins));
	if (!pd->cores || !pd->bins)
		return -ENOMEM;
	for (unsigned int c = 0; c < topo->nr_ids; c++)
		slot[c] = -1;
	for (int c = cpuset_first(topo->eligible); c >= 0; c = cpuset_next(topo->eligible, c)) {
		unsigned int cpu = (unsigned int)c, cap = topology_capacity(topo, cpu);
		int id = core_id(topo, cpu);
		struct pcore *pc;

		if (cpu_domain(topo, cpu) != d)
			continue;
		if (slot[id] < 0) {
			slot[id] = (int)pd->nr_cores;
			pd->cores[pd->nr_cores++] = (struct pcore){ .id = id, .full = true };
		}
		pc = &pd->cores[slot[id]];
		if (fixed[cpu] < in->target * cap / CAPACITY_SCALE)
			pc->full = false;
		pc->key += in->app ? in->app[cpu] : 0;
		pc->kept |= kept && cpuset_test(kept, cpu);
		if (cap > pc->cap)
			pc->cap = cap;
		pd->bins[pd->nr_bins++] = (struct pbin){
			.cpu = cpu, .limit = in->target * cap / CAPACITY_SCALE,
			.load = fixed[cpu], .base = fixed[cpu],
		};
	}
	for (unsigned int k = 0; k < pd->nr_cores; k++)
		if (pd->cores[k].kept)
			pd->cores[k].key -= PACK_STICKY;
	qsort(pd->cores, pd->nr_cores, sizeof(*pd->cores), cmp_core);
	for (unsigned int k = 0; k < pd->nr_cores; k++)
		slot[pd->cores[k].id] = (int)k;
	for (unsigned int b = 0; b < pd->nr_bins; b++)
		pd->bins[b].rank = (unsigned int)slot[core_id(topo, pd->bins[b].cpu)];
	qsort(pd->bins, pd->nr_bins, sizeof(*pd->bins), cmp_bin);
	return 0;
}

/* The cores node @pd's busy IRQs need: first-fit decreasing over its
 * bins, in order, so that the cores touched are the first ones. An IRQ
 * that fits no CPU's room gets the next CPU to itself; when the node runs
 * out of CPUs, it needs all its cores. */
static unsigned int cores_needed(struct pdom *pd, double share)
{
	unsigned int open = 0;	/* bins [0, open) touched */

	for (unsigned int b = 0; b < pd->nr_bins; b++) {
		pd->bins[b].load = pd->bins[b].base;
		pd->bins[b].closed = false;
	}
	for (unsigned int i = 0; i < pd->nr_items; i++) {
		double x = pd->items[i].load;
		unsigned int b;

		for (b = 0; b < pd->nr_bins; b++)
			if (!pd->bins[b].closed &&
			    pd->bins[b].load + x <= pd->bins[b].limit * share + PACK_EPS)
				break;
		if (b < pd->nr_bins) {
			pd->bins[b].load += x;
			if (b >= open)
				open = b + 1;
			continue;
		}
		if (open == pd->nr_bins)
			return pd->nr_cores;
		pd->bins[open].load += x;
		pd->bins[open].closed = true;
		open++;
	}
	return open ? pd->bins[open - 1].rank + 1 : 0;
}

/* Each movable IRQ into its node's items (busy) or flags (idle); the
 * load of IRQs that cannot move (kernel-managed, banned) into @fixed on
 * the CPU serving them: IRQ work the pool's CPUs hold already. */
static int gather_items(const struct pack_input *in, struct pdom *pds, double *fixed,
			struct pack_result *res)
{
	unsigned int nd = nr_domains(in->topo);

	for (unsigned int d = 0; d < nd; d++) {
		pds[d].items = calloc(in->nr ? in->nr : 1, sizeof(*pds[d].items));
		if (!pds[d].items)
			return -ENOMEM;
	}
	for (unsigned int i = 0; i < in->nr; i++) {
		const struct plan_irq *pi = &in->irqs[i];
		int d;

		if (pi->fixed) {
			if (pi->served >= 0 && (unsigned int)pi->served < in->topo->nr_ids &&
			    pi->load > 0)
				fixed[pi->served] += pi->load;
			continue;
		}
		d = irq_domain(in->topo, pi);
		if (d < 0)
			continue;
		pds[d].any = true;
		if (!(pi->load > in->idle_load))
			continue;
		pds[d].items[pds[d].nr_items++] = (struct pitem){ .load = pi->load, .irq = pi->irq };
		res->busy[d] += pi->load;
	}
	return 0;
}

/* Node @d's part of the pool: size it, keep it from run to run, take
 * its first cores. 0 or -ENOMEM. */
static int pack_domain(const struct pack_input *in, unsigned int d, struct pdom *pd,
		       const double *fixed, int *slot, struct pack_result *res)
{
	const struct pack_node *prev = in->prev && in->prev->nr_nodes == res->state.nr_nodes ?
				       &in->prev->nodes[d] : NULL;
	struct pack_node *now = &res->state.nodes[d];
	unsigned int slack;
	int r;

	r = rank_cores(in, d, prev ? prev->cpus : NULL, fixed, slot, pd);
	if (r < 0)
		return r;
	qsort(pd->items, pd->nr_items, sizeof(*pd->items), cmp_item);
	res->need[d] = cores_needed(pd, 1);
	slack = cores_needed(pd, PACK_SHRINK_SHARE);
	/* Idle IRQs follow the pool: a node with devices keeps a core, so
	 * theirs stay on their node. */
	if (pd->any && pd->nr_cores > 0) {
		res->need[d] = res->need[d] ? res->need[d] : 1;
		slack = slack ? slack : 1;
	}
	pack_hysteresis(res->need[d], slack, prev, pd->nr_cores, now);
	if (now->cores == 0)
		return 0;
	now->cpus = cpuset_new(in->topo->nr_ids);
	if (!now->cpus)
		return -ENOMEM;
	for (unsigned int b = 0; b < pd->nr_bins && pd->bins[b].rank < now->cores; b++) {
		cpuset_set(now->cpus, pd->bins[b].cpu);
		cpuset_set(res->pool, pd->bins[b].cpu);
	}
	return 0;
}

int pack_compute(const struct pack_input *in, struct pack_result *ret)
{
	unsigned int nd = nr_domains(in->topo);
	struct pack_result res = { 0 };
	struct pdom *pds = calloc(nd, sizeof(*pds));
	int *slot = calloc(in->topo->nr_ids ? in->topo->nr_ids : 1, sizeof(*slot));
	double *fixed = calloc(in->topo->nr_ids ? in->topo->nr_ids : 1, sizeof(*fixed));
	int r = -ENOMEM;

	if (cpuset_count(in->topo->eligible) == 0) {
		r = -ENOSPC;
		goto out;
	}
	res.pool = cpuset_new(in->topo->nr_ids);
	res.state.nodes = calloc(nd, sizeof(*res.state.nodes));
	res.need = calloc(nd, sizeof(*res.need));
	res.busy = calloc(nd, sizeof(*res.busy));
	if (!pds || !slot || !fixed || !res.pool || !res.state.nodes || !res.need || !res.busy)
		goto out;
	res.state.nr_nodes = nd;
	r = gather_items(in, pds, fixed, &res);
	for (unsigned int d = 0; r == 0 && d < nd; d++)
		r = pack_domain(in, d, &pds[d], fixed, slot, &res);
out:
	for (unsigned int d = 0; pds && d < nd; d++)
		pdom_release(&pds[d]);
	free(pds);
	free(slot);
	free(fixed);
	if (r < 0) {
		pack_result_release(&res);
		return r;
	}
	*ret = res;
	return 0;
}

static bool meets(const struct cpuset *a, const struct cpuset *b)
{
	for (int c = cpuset_first(a); c >= 0; c = cpuset_next(a, c))
		if (cpuset_test(b, (unsigned int)c))
			return true;
	return false;
}

/* A narrowed IRQ is planned as a queue of no device: load and NUMA
 * locality place it, not the planner's rule that a device's busy queues
 * spread evenly over the cores they may use. That rule now counts the
 * pool's cores (plan_spread_cap()), so it would no longer move packed queues
 * again in every run; but it ranks a core's count of the device's queues
 * before load, and the pool is sized by packing loads first-fit under the
 * target: spread by count, the burst of e2e-pack planned a CPU at 50.2%
 * of a 50% target. Packing shares cores by design; the target is what
 * holds within the pool. */
static void pool_irq(struct pack_result *res, struct plan_irq *pi, const struct cpuset *set)
{
	pi->allowed = set;
	pi->group = -1;
	res->nr_narrowed++;
}

int pack_narrow(struct pack_result *res, struct plan_irq *irqs, unsigned int nr)
{
	if (cpuset_count(res->pool) == 0)
		return 0;	/* nothing movable: nothing to narrow to */
	for (unsigned int i = 0; i < nr; i++) {
		struct plan_irq *pi = &irqs[i];
		struct cpuset *set, **owned;

		if (pi->fixed)
			continue;
		if (!pi->allowed) {
			pool_irq(res, pi, res->pool);	/* one set: the planner's classes share it */
			continue;
		}
		/* The site's own set ([class] cpus, IRQTUNE_CPUS, a followed
		 * hint) says "only these": the pool is a preference sized
		 * from load, so where the two do not meet the site's word
		 * stands, and the IRQ stays planned within its own set rather
		 * than left nowhere. */
		if (!meets(pi->allowed, res->pool)) {
			res->nr_kept++;
			continue;
		}
		set = cpuset_dup(pi->allowed);
		owned = realloc(res->owned, (res->nr_owned + 1) * sizeof(*owned));
		if (!set || !owned) {
			cpuset_free(set);
			if (owned)
				res->owned = owned;
			return -ENOMEM;
		}
		res->owned = owned;
		for (int c = cpuset_first(set); c >= 0; c = cpuset_next(set, c))
			if (!cpuset_test(res->pool, (unsigned int)c))
				cpuset_clear(set, (unsigned int)c);
		res->owned[res->nr_owned++] = set;
		pool_irq(res, pi, set);
	}
	return 0;
}
