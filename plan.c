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
 * improve() lowers the busiest CPU by the single move or swap that lowers
 * it most, keeping those rules (a swap judged with both IRQs gone from their
 * CPUs); where none helps, by a chain of two moves (an IRQ leaves a third CPU
 * to make room there for one of the busiest's). A CPU nothing helps is set
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
 * nothing. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"

struct gc_entry {
	uint64_t key;		/* group << 32 | core, 0 = empty */
	unsigned int count;
	unsigned int at;	/* place in its device's list of cores */
};

struct cpu_heap;
struct elig;
struct step;
struct unit;

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
	unsigned int gc_shift;	/* 64 - log2(gc_cap) */
	unsigned int *group_busy;	/* busy movable IRQs per device */
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
	struct cpu_heap *heap[2];	/* improve()'s, kept by move_irq() */
	/* rank_cpus()'s queues (see there) */
	struct elig *cls;	/* eligibility classes */
	unsigned int nr_cls;
	unsigned int *irq_cls;	/* per IRQ: its class */
	unsigned int *core_first;	/* per core leader id: into core_cpu */
	int *core_cpu;		/* eligible CPUs, core by core */
	unsigned int *mem_first;	/* per CPU: into mem_cls, mem_idx */
	unsigned int *mem_cls;	/* classes a CPU is in... */
	int *mem_idx;		/* ...and its index there */
	unsigned int *gcl_first, *gcl_n;	/* per device: into gcl */
	int *gcl;		/* cores holding busy queues of a device */
	unsigned char *dirty;	/* per core leader id: tallies changed */
	int *dirty_list;
	unsigned int nr_dirty;
	bool rebuild;		/* every tally changed (reset) */
	double scale;		/* sum of all loads: bounds any tally */
	struct step *frontier;	/* a query's scratch, sized for any class */
	struct unit *units, *out_units, *unit_tmp;	/* unit_tmp: sort_units() */
	int *taken_out, *cand_buf, *walk;
	unsigned int stamp;	/* the current query, for elig.mark */
};

static uint64_t gc_key(int group, int core)
{
	return ((uint64_t)(unsigned int)group + 1) << 32 | (uint32_t)core;
}

/* The top bits of a Fibonacci hash: they depend on every bit of the key.
 * Bits 20 to 31 of it, as taken before, never saw the device (bits 32 and
 * up of the key) in a table of up to 4,096 slots, so every device's entry
 * for a core probed one cluster: score_of() took 6.9 M instructions on
 * make bench's big machine, 3.9 M with this. */
static size_t gc_hash(const struct ctx *c, uint64_t key)
{
	return (size_t)((key * 0x9E3779B97F4A7C15ull) >> c->gc_shift);
}

static struct gc_entry *gc_slot(struct ctx *c, int group, int core)
{
	uint64_t key = gc_key(group, core);
	size_t i = gc_hash(c, key);

	while (c->gc[i].key && c->gc[i].key != key)
		i = (i + 1) & (c->gc_cap - 1);
	c->gc[i].key = key;
	return &c->gc[i];
}

static unsigned int gc_get(struct ctx *c, int group, int core)
{
	uint64_t key = gc_key(group, core);
	size_t i = gc_hash(c, key);

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

/* A device's cores with busy queues on them, kept as tally() counts: the
 * only cores where a queue of it scores differently from its bucket. */
static void gcl_add(struct ctx *c, unsigned int g, struct gc_entry *e, int core)
{
	e->at = c->gcl_n[g]++;
	c->gcl[c->gcl_first[g] + e->at] = core;
}

static void gcl_del(struct ctx *c, unsigned int g, struct gc_entry *e)
{
	int *v = &c->gcl[c->gcl_first[g]];
	int last = v[--c->gcl_n[g]];

	if ((unsigned int)e->at != c->gcl_n[g]) {
		v[e->at] = last;
		gc_slot(c, (int)g, last)->at = e->at;
	}
}

static void mark_dirty(struct ctx *c, int core)
{
	if (c->dirty[core])
		return;
	c->dirty[core] = 1;
	c->dirty_list[c->nr_dirty++] = core;
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
	if (pi->group >= 0 && is_heavy(c, pi)) {
		struct gc_entry *e = gc_slot(c, pi->group, core);

		e->count += (unsigned int)sign;
		if (sign > 0 && e->count == 1)
			gcl_add(c, (unsigned int)pi->group, e, core);
		else if (sign < 0 && e->count == 0)
			gcl_del(c, (unsigned int)pi->group, e);
	}
	mark_dirty(c, core);
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
 * CPU when the node is unknown or has none (the only spill-over rule). Site
 * policy (allowed) can only narrow this; a node it rules out entirely is
 * treated as having no eligible CPU. Worked out once per class (ctx_init). */
static const int *candidates(const struct ctx *c, const struct plan_irq *pi,
			     unsigned int *n);

/* Site policy narrows the candidates; it never widens them. */
static bool allowed(const struct plan_irq *pi, int cpu)
{
	return !pi->allowed || cpuset_test(pi->allowed, (unsigned int)cpu);
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

/*
 * Ranking CPUs for one IRQ without looking at every CPU.
 *
 * The CPUs an IRQ may use form its eligibility class: its node's eligible
 * CPUs or every eligible CPU, narrowed by site policy; IRQs with the same
 * set share one class. A class groups its CPUs into buckets of identical
 * state (load, load of the rest of the core, IRQ count, whether a busy NIC
 * queue shares the core): CPUs in one bucket score alike for any IRQ but
 * for their id, so a bucket keeps its CPUs in a pairing heap by id. Each
 * bucket sits in two queues: by load with half the siblings' (what a busy
 * IRQ looks at, one queue with a NIC queue on the core and one without)
 * and by count then load (what an idle IRQ looks at). An idle machine is
 * one bucket, not CPUs many.
 *
 * score_cmp() treats loads within eps as equal, which is not transitive:
 * a linear scan's answer can depend on CPUs a sorted order would put far
 * behind. So a query takes buckets in queue order until they hold enough
 * CPUs, then every further bucket of the same rank whose load is within
 * eps of the highest taken: every CPU left out is then worse than every
 * CPU taken, and any ranking scan over the taken ones alone finds what it
 * would over all (the CPUs left out can neither enter its list nor push a
 * taken one out of it). When the loads taken are pairwise equal or more
 * than eps apart (almost always), the comparison is a plain order on them
 * and the answer is read off the buckets' lowest ids; otherwise the CPUs
 * taken are scanned exactly as rank_cpus() always did.
 *
 * The per-CPU tallies change under the queues all the time (improve()
 * tries moves by adding and taking back); tally() marks the cores it
 * touches and the next query brings their CPUs' buckets up to date.
 */
struct bucket {
	double load, sib;	/* the CPU's load; the rest of its core's */
	double key;		/* load + sib / 2, a busy IRQ's order */
	unsigned int count;
	unsigned char nic;	/* a busy NIC queue on the core */
	int root;		/* pairing heap of members, by id */
	unsigned int size;
	int hnext;		/* hash chain, or the free list */
	unsigned int at[2];	/* places in load_q[nic] and count_q */
};

struct bqueue {
	int *b;			/* bucket ids, heap order */
	unsigned int n;
	unsigned int members;	/* CPUs in them */
};

struct elig {
	int base;		/* node, -1 for every eligible CPU */
	const struct cpuset *allowed;
	uint64_t hash;		/* of allowed's bits */
	int *cpu;		/* members, ascending: a member's id is its index */
	unsigned int n;
	int *bk;		/* per member: bucket */
	int *child, *sibl, *prv;	/* per member: pairing heap links */
	struct bucket *bkt;
	int free_bkt;
	unsigned int *mark;	/* per member: the query it is set apart in */
	unsigned int *bmark, *bspec;	/* per bucket: members set apart */
	int *hash_head;
	unsigned int hash_mask;
	struct bqueue load_q[2], count_q;
};

/* One candidate of a query: a bucket or a single CPU set apart from one. */
struct unit {
	uint64_t rank;		/* same_dev * 2 + other_nic, or count if idle */
	double load, sib;	/* as score_of() computes them */
	unsigned int count;
	int bucket;		/* -1: member */
	int member;
	unsigned int seq;	/* a member's place in the list set apart */
};

static bool bucket_before(const struct elig *e, int kind, int x, int y)
{
	const struct bucket *a = &e->bkt[x], *b = &e->bkt[y];

	if (kind == 0) {
		if (a->key != b->key)
			return a->key < b->key;
		if (a->sib != b->sib)
			return a->sib < b->sib;
		if (a->load != b->load)
			return a->load < b->load;
		return a->count < b->count;
	}
	if (a->count != b->count)
		return a->count < b->count;
	if (a->load != b->load)
		return a->load < b->load;
	if (a->sib != b->sib)
		return a->sib < b->sib;
	return a->nic < b->nic;
}

static void bq_set(struct elig *e, struct bqueue *q, int kind, unsigned int i, int b)
{
	q->b[i] = b;
	e->bkt[b].at[kind] = i;
}

static void bq_sift(struct elig *e, struct bqueue *q, int kind, unsigned int i)
{
	int b = q->b[i];

	while (i > 0 && bucket_before(e, kind, b, q->b[(i - 1) / 2])) {
		bq_set(e, q, kind, i, q->b[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	for (;;) {
		unsigned int l = 2 * i + 1, r = l + 1, m = i;
		int mb = b;

		if (l < q->n && bucket_before(e, kind, q->b[l], mb)) {
			m = l;
			mb = q->b[l];
		}
		if (r < q->n && bucket_before(e, kind, q->b[r], mb)) {
			m = r;
			mb = q->b[r];
		}
		if (m == i)
			break;
		bq_set(e, q, kind, i, mb);
		i = m;
	}
	bq_set(e, q, kind, i, b);
}

static void bq_add(struct elig *e, struct bqueue *q, int kind, int b)
{
	bq_set(e, q, kind, q->n++, b);
	bq_sift(e, q, kind, q->n - 1);
}

static void bq_del(struct elig *e, struct bqueue *q, int kind, int b)
{
	unsigned int i = e->bkt[b].at[kind];
	int last = q->b[--q->n];

	if (last == b)
		return;
	bq_set(e, q, kind, i, last);
	bq_sift(e, q, kind, i);
}

/* Pairing heap of a bucket's members, the lowest id on top. */
static int ph_meld(struct elig *e, int a, int b)
{
	if (a < 0)
		return b;
	if (b < 0)
		return a;
	if (b < a) {
		int t = a;

		a = b;
		b = t;
	}
	e->sibl[b] = e->child[a];
	if (e->child[a] >= 0)
		e->prv[e->child[a]] = b;
	e->prv[b] = a;
	e->child[a] = b;
	return a;
}

/* Meld a list of siblings into one heap: pairs left to right, then the
 * pairs right to left (the two passes that keep pairing heaps shallow). */
static int ph_pairs(struct elig *e, int x)
{
	int stack = -1, acc = -1;

	while (x >= 0) {
		int a = x, b = e->sibl[a], m;

		x = b >= 0 ? e->sibl[b] : -1;
		e->prv[a] = e->sibl[a] = -1;
		if (b >= 0)
			e->prv[b] = e->sibl[b] = -1;
		m = ph_meld(e, a, b);
		e->sibl[m] = stack;
		stack = m;
	}
	while (stack >= 0) {
		int m = stack;

		stack = e->sibl[m];
		e->sibl[m] = -1;
		acc = ph_meld(e, acc, m);
	}
	return acc;
}

static int ph_remove(struct elig *e, int root, int x)
{
	int sub = ph_pairs(e, e->child[x]), p = e->prv[x];

	e->child[x] = -1;
	if (x == root)
		return sub;
	if (e->child[p] == x)
		e->child[p] = e->sibl[x];
	else
		e->sibl[p] = e->sibl[x];
	if (e->sibl[x] >= 0)
		e->prv[e->sibl[x]] = p;
	e->prv[x] = e->sibl[x] = -1;
	return ph_meld(e, root, sub);
}

static uint64_t state_hash(double load, double sib, unsigned int count,
			   unsigned char nic)
{
	uint64_t a, b;

	/* +0.0 makes -0.0 hash as 0.0, which compares equal to it. */
	load += 0.0;
	sib += 0.0;
	memcpy(&a, &load, sizeof(a));
	memcpy(&b, &sib, sizeof(b));
	a = (a ^ (b * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)count << 1 | nic)) *
	    0xBF58476D1CE4E5B9ull;
	return a ^ a >> 29;
}

/* Member @j of @e joins the bucket of its state, made if there is none. */
static void member_join(struct elig *e, int j, double load, double sib,
			unsigned int count, unsigned char nic)
{
	unsigned int h = (unsigned int)state_hash(load, sib, count, nic) & e->hash_mask;
	int b;

	for (b = e->hash_head[h]; b >= 0; b = e->bkt[b].hnext) {
		const struct bucket *k = &e->bkt[b];

		if (k->load == load && k->sib == sib && k->count == count &&
		    k->nic == nic)
			break;
	}
	if (b < 0) {
		struct bucket *k;

		b = e->free_bkt;
		k = &e->bkt[b];
		e->free_bkt = k->hnext;
		k->load = load;
		k->sib = sib;
		k->key = load + sib / 2;
		k->count = count;
		k->nic = nic;
		k->root = -1;
		k->size = 0;
		k->hnext = e->hash_head[h];
		e->hash_head[h] = b;
		bq_add(e, &e->load_q[nic], 0, b);
		bq_add(e, &e->count_q, 1, b);
	}
	e->bkt[b].root = ph_meld(e, e->bkt[b].root, j);
	e->bkt[b].size++;
	e->load_q[nic].members++;
	e->bk[j] = b;
}

static void member_leave(struct elig *e, int j)
{
	int b = e->bk[j];
	struct bucket *k = &e->bkt[b];

	k->root = ph_remove(e, k->root, j);
	e->load_q[k->nic].members--;
	e->bk[j] = -1;
	if (--k->size > 0)
		return;
	{
		unsigned int h = (unsigned int)state_hash(k->load, k->sib, k->count,
							  k->nic) & e->hash_mask;
		int *pp = &e->hash_head[h];

		while (*pp != b)
			pp = &e->bkt[*pp].hnext;
		*pp = k->hnext;
	}
	bq_del(e, &e->load_q[k->nic], 0, b);
	bq_del(e, &e->count_q, 1, b);
	k->hnext = e->free_bkt;
	e->free_bkt = b;
}

/* The state a member's bucket is keyed on, from the tallies. */
static void cpu_state(const struct ctx *c, int cpu, double *load, double *sib,
		      unsigned int *count, unsigned char *nic)
{
	int core = core_of(c, cpu);

	*load = c->load[cpu];
	*sib = c->core_load[core] - c->load[cpu];
	*count = c->count[cpu];
	*nic = c->netq[core] > 0;
}

static void elig_clear(struct elig *e)
{
	for (unsigned int j = 0; j < e->n; j++) {
		e->bk[j] = e->child[j] = e->sibl[j] = e->prv[j] = -1;
		e->bkt[j].hnext = j + 1 < e->n ? (int)j + 1 : -1;
	}
	e->free_bkt = e->n ? 0 : -1;
	for (unsigned int h = 0; h <= e->hash_mask; h++)
		e->hash_head[h] = -1;
	e->load_q[0].n = e->load_q[1].n = e->count_q.n = 0;
	e->load_q[0].members = e->load_q[1].members = 0;
}

/* Bring the buckets up to the tallies: all of them after reset(), else
 * those of the CPUs of every core tally() touched. */
static void queues_sync(struct ctx *c)
{
	if (c->rebuild) {
		for (unsigned int k = 0; k < c->nr_cls; k++) {
			struct elig *e = &c->cls[k];

			elig_clear(e);
			for (unsigned int j = 0; j < e->n; j++) {
				double load, sib;
				unsigned int count;
				unsigned char nic;

				cpu_state(c, e->cpu[j], &load, &sib, &count, &nic);
				member_join(e, (int)j, load, sib, count, nic);
			}
		}
		for (unsigned int k = 0; k < c->nr_dirty; k++)
			c->dirty[c->dirty_list[k]] = 0;
		c->nr_dirty = 0;
		c->rebuild = false;
		return;
	}
	for (unsigned int d = 0; d < c->nr_dirty; d++) {
		int core = c->dirty_list[d];

		c->dirty[core] = 0;
		for (unsigned int t = c->core_first[core]; t < c->core_first[core + 1]; t++) {
			int cpu = c->core_cpu[t];
			double load, sib;
			unsigned int count;
			unsigned char nic;

			cpu_state(c, cpu, &load, &sib, &count, &nic);
			for (unsigned int m = c->mem_first[cpu]; m < c->mem_first[cpu + 1]; m++) {
				struct elig *e = &c->cls[c->mem_cls[m]];
				int j = c->mem_idx[m];
				const struct bucket *k = &e->bkt[e->bk[j]];

				if (k->load == load && k->sib == sib &&
				    k->count == count && k->nic == nic)
					continue;
				member_leave(e, j);
				member_join(e, j, load, sib, count, nic);
			}
		}
	}
	c->nr_dirty = 0;
}

/* Member index of @cpu in class @cl, -1 if it is not one. */
static int member_of(const struct ctx *c, unsigned int cl, int cpu)
{
	for (unsigned int m = c->mem_first[cpu]; m < c->mem_first[cpu + 1]; m++)
		if (c->mem_cls[m] == cl)
			return c->mem_idx[m];
	return -1;
}

static int unit_cmp(const void *pa, const void *pb)
{
	const struct unit *a = pa, *b = pb;

	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	if (a->load != b->load)
		return a->load < b->load ? -1 : 1;
	if (a->sib != b->sib)
		return a->sib < b->sib ? -1 : 1;
	if (a->count != b->count)
		return a->count < b->count ? -1 : 1;
	return 0;
}

static int int_cmp(const void *pa, const void *pb)
{
	int a = *(const int *)pa, b = *(const int *)pb;

	return (a > b) - (a < b);
}

/* Queries sort a handful of entries as a rule, and near ties on a big
 * machine hundreds: insertion sort up to a few dozen, merge sort above,
 * both stable and with unit_cmp() inlined (qsort() called it through a
 * pointer and copied through its own buffer: a quarter of planning on
 * make bench's 256 CPUs). The order is the one glibc's qsort(), a stable
 * merge sort, gave: a stable sort's output is fixed by the comparison.
 * @tmp holds n / 2 entries. */
static void sort_units(struct unit *v, unsigned int n, struct unit *tmp)
{
	unsigned int h = n / 2, i = 0, j = h, k = 0;

	if (n <= 24) {
		for (i = 1; i < n; i++) {
			struct unit x = v[i];

			j = i;
			while (j > 0 && unit_cmp(&v[j - 1], &x) > 0) {
				v[j] = v[j - 1];
				j--;
			}
			v[j] = x;
		}
		return;
	}
	sort_units(v, h, tmp);
	sort_units(v + h, n - h, tmp);
	if (unit_cmp(&v[h - 1], &v[h]) <= 0)
		return;
	/* The first half aside; the output never overtakes the second. */
	memcpy(tmp, v, h * sizeof(*v));
	while (i < h && j < n) {
		if (unit_cmp(&tmp[i], &v[j]) <= 0)
			v[k++] = tmp[i++];
		else
			v[k++] = v[j++];
	}
	while (i < h)
		v[k++] = tmp[i++];
}

/* The CPUs set apart as a heap in the order sort_units() would give them
 * (unit_cmp(), then first come first, as that stable sort): a query takes
 * a few off the top and never needs the rest in order. When a device's
 * queues cover the cores of its node, every CPU of its class is set apart
 * (64 on make bench's big), and sorting them all was a sixth of planning. */
static bool out_before(const struct unit *a, const struct unit *b)
{
	int d = unit_cmp(a, b);

	return d < 0 || (d == 0 && a->seq < b->seq);
}

static void out_sift(struct unit *h, unsigned int n, unsigned int i)
{
	struct unit x = h[i];

	for (;;) {
		unsigned int l = 2 * i + 1, m = l;

		if (l >= n)
			break;
		if (l + 1 < n && out_before(&h[l + 1], &h[l]))
			m = l + 1;
		if (!out_before(&h[m], &x))
			break;
		h[i] = h[m];
		i = m;
	}
	h[i] = x;
}

static void out_heapify(struct unit *h, unsigned int n)
{
	for (unsigned int i = n / 2; i-- > 0;)
		out_sift(h, n, i);
}

static struct unit out_pop(struct unit *h, unsigned int *n)
{
	struct unit top = h[0];

	h[0] = h[--(*n)];
	if (*n)
		out_sift(h, *n, 0);
	return top;
}

static void sort_ints(int *v, unsigned int n)
{
	if (n > 24) {
		qsort(v, n, sizeof(*v), int_cmp);
		return;
	}
	for (unsigned int i = 1; i < n; i++) {
		int x = v[i];
		unsigned int j = i;

		while (j > 0 && v[j - 1] > x) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
}

/* Whether two different values compare as different both ways round. */
static bool apart(const struct ctx *c, double lo, double hi)
{
	return lo < hi - c->eps && hi > lo + c->eps;
}

/* The way a query walks the queues: the frontier of a best-first walk of
 * the heaps, a small heap itself. */
struct step {
	uint64_t rank;
	double order;		/* about the load the IRQ would see */
	int src;		/* 0, 1: load_q[]; 2: count_q; 3: set apart */
	unsigned int at;	/* index in that queue or list */
};

static bool step_before(const struct step *a, const struct step *b)
{
	if (a->rank != b->rank)
		return a->rank < b->rank;
	return a->order < b->order;
}

static void step_push(struct step *h, unsigned int *n, struct step s)
{
	unsigned int i = (*n)++;

	while (i > 0 && step_before(&s, &h[(i - 1) / 2])) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = s;
}

static struct step step_pop(struct step *h, unsigned int *n)
{
	struct step top = h[0], last = h[--(*n)];
	unsigned int i = 0;

	for (;;) {
		unsigned int l = 2 * i + 1, m = i;
		const struct step *mv = &last;

		if (l < *n && step_before(&h[l], mv)) {
			m = l;
			mv = &h[l];
		}
		if (l + 1 < *n && step_before(&h[l + 1], mv)) {
			m = l + 1;
			mv = &h[l + 1];
		}
		if (m == i)
			break;
		h[i] = h[m];
		i = m;
	}
	if (*n)
		h[i] = last;
	return top;
}

/* Best CPU and the next PLAN_ALTS after it, as scores: what a scan of
 * every candidate in id order keeping the nbest best would find. */
static unsigned int rank_cpus(struct ctx *c, const struct plan_irq *pi,
			      struct score *best, unsigned int nbest)
{
	unsigned int cl = c->irq_cls[pi - c->irqs];
	struct elig *e = &c->cls[cl];
	bool heavy = is_heavy(c, pi);
	bool nic = heavy && pi->class == CLASS_NET;
	struct step *fr = c->frontier;
	struct unit *u = c->units;
	unsigned int nfr = 0, nu = 0, nout = 0, nsp = 0, members = 0, have = 0;
	int *out = c->taken_out, *cpus = c->cand_buf;
	double lmax = 0, slack = 1e-12 * (c->scale + (pi->load < 0 ? -pi->load : pi->load));
	uint64_t top_rank = 0;
	bool crisp = true;

	queues_sync(c);
	/* Cores with queues of its own device score apart from their
	 * buckets (same_dev, other_nic): set apart, scored one by one, and
	 * skipped where their bucket is taken. */
	c->stamp++;
	if (heavy && pi->group >= 0 && (multiqueue(c, pi) || nic)) {
		unsigned int g = (unsigned int)pi->group;

		for (unsigned int k = 0; k < c->gcl_n[g]; k++) {
			int core = c->gcl[c->gcl_first[g] + k];

			for (unsigned int t = c->core_first[core];
			     t < c->core_first[core + 1]; t++) {
				int j = member_of(c, cl, c->core_cpu[t]), b;

				if (j < 0)
					continue;
				b = e->bk[j];
				e->mark[j] = c->stamp;
				if (e->bmark[b] != c->stamp) {
					e->bmark[b] = c->stamp;
					e->bspec[b] = 0;
				}
				e->bspec[b]++;
				out[nout++] = j;
			}
		}
		/* When the buckets alone hold enough CPUs of rank 0 (or 1),
		 * no CPU set apart of a higher rank can matter. */
		uint64_t bound = UINT64_MAX;
		unsigned int avail[2] = { e->load_q[0].members, e->load_q[1].members };

		for (unsigned int k = 0; k < nout; k++)
			avail[e->bkt[e->bk[out[k]]].nic]--;
		if (!nic && avail[0] + avail[1] >= nbest)
			bound = 0;
		else if (nic && avail[0] >= nbest)
			bound = 0;
		else if (nic && avail[0] + avail[1] >= nbest)
			bound = 1;
		/* A queue of a multi-queue device has a queue of its own on
		 * every core set apart: rank 2 at least. */
		for (unsigned int k = 0; k < nout && (bound >= 2 || !multiqueue(c, pi)); k++) {
			struct score s;
			uint64_t rank;

			if (bound < 2) {
				/* only other_nic can differ: worth a look? */
				int core = core_of(c, e->cpu[out[k]]);

				if (nic && bound == 0 &&
				    c->netq[core] > gc_get(c, pi->group, core))
					continue;
			}
			s = score_of(c, pi, e->cpu[out[k]]);
			rank = (uint64_t)s.same_dev * 2 + s.other_nic;
			if (rank > bound)
				continue;
			c->out_units[nsp] = (struct unit){
				.rank = rank, .load = s.load, .sib = s.sibling,
				.count = s.count, .bucket = -1, .member = out[k],
				.seq = nsp,
			};
			nsp++;
		}
		out_heapify(c->out_units, nsp);
	}
	if (heavy) {
		for (int q = 0; q < 2; q++)
			if (e->load_q[q].n)
				step_push(fr, &nfr, (struct step){
					(uint64_t)(q && nic),
					e->bkt[e->load_q[q].b[0]].key + pi->load, q, 0 });
	} else if (e->count_q.n) {
		const struct bucket *k = &e->bkt[e->count_q.b[0]];

		step_push(fr, &nfr, (struct step){ k->count, k->load + pi->load, 2, 0 });
	}
	if (nsp)
		step_push(fr, &nfr, (struct step){ c->out_units[0].rank,
						   c->out_units[0].load, 3, 0 });
	while (nfr) {
		struct step s;
		struct unit x;

		/* Enough CPUs: only more of the same rank within eps of the
		 * highest load taken can still matter. */
		if (members >= nbest &&
		    (fr[0].rank != top_rank || fr[0].order - slack > lmax + c->eps))
			break;
		s = step_pop(fr, &nfr);
		if (s.src == 3) {
			x = out_pop(c->out_units, &nsp);
			if (nsp)
				step_push(fr, &nfr, (struct step){
					c->out_units[0].rank,
					c->out_units[0].load, 3, 0 });
			members++;
		} else {
			struct bqueue *q = s.src == 2 ? &e->count_q : &e->load_q[s.src];
			const struct bucket *k = &e->bkt[q->b[s.at]];

			for (unsigned int ch = 2 * s.at + 1; ch <= 2 * s.at + 2 && ch < q->n; ch++) {
				const struct bucket *kc = &e->bkt[q->b[ch]];

				step_push(fr, &nfr, (struct step){
					s.src == 2 ? kc->count : s.rank,
					(s.src == 2 ? kc->load : kc->key) + pi->load,
					s.src, ch });
			}
			x = (struct unit){
				.rank = s.src == 2 ? k->count : s.rank,
				.load = k->load + pi->load +
					(heavy ? k->sib / 2 : 0),
				.sib = k->sib, .count = k->count,
				.bucket = q->b[s.at], .member = -1,
			};
			if (e->bmark[x.bucket] == c->stamp) {
				if (e->bspec[x.bucket] == k->size)
					continue;	/* all set apart */
				members += k->size - e->bspec[x.bucket];
			} else {
				members += k->size;
			}
		}
		if (nu == 0 || x.rank != top_rank) {
			top_rank = x.rank;
			lmax = x.load;
		} else if (x.load > lmax) {
			lmax = x.load;
		}
		u[nu++] = x;
	}
	sort_units(u, nu, c->unit_tmp);
	for (unsigned int k = 1; k < nu && crisp; k++) {
		if (u[k].rank != u[k - 1].rank)
			continue;
		if (u[k].load != u[k - 1].load)
			crisp = apart(c, u[k - 1].load, u[k].load);
		else if (u[k].sib != u[k - 1].sib)
			crisp = apart(c, u[k - 1].sib, u[k].sib);
	}
	if (crisp) {
		/* A plain order on (rank, load, sib, count), then id. */
		for (unsigned int k = 0; k < nu && have < nbest;) {
			unsigned int end = k, nc = 0;

			while (end < nu && unit_cmp(&u[k], &u[end]) == 0)
				end++;
			for (; k < end; k++) {
				struct bucket *b;
				int got[PLAN_ALTS + 1];
				unsigned int ng = 0, nskip = 0;

				if (u[k].bucket < 0) {
					cpus[nc++] = e->cpu[u[k].member];
					continue;
				}
				b = &e->bkt[u[k].bucket];
				/* the lowest ids not set apart; those set apart
				 * that come first wait in out[] past nout */
				while (ng < nbest - have && b->root >= 0) {
					int j = b->root;

					b->root = ph_remove(e, b->root, j);
					if (e->mark[j] == c->stamp) {
						out[nout + nskip++] = j;
						continue;
					}
					got[ng++] = j;
					cpus[nc++] = e->cpu[j];
				}
				while (ng)
					b->root = ph_meld(e, b->root, got[--ng]);
				while (nskip)
					b->root = ph_meld(e, b->root, out[nout + --nskip]);
			}
			sort_ints(cpus, nc);
			for (unsigned int t = 0; t < nc && have < nbest; t++)
				best[have++] = score_of(c, pi, cpus[t]);
		}
	} else {
		/* Near ties: the scan itself, over the CPUs taken. */
		unsigned int nc = 0;

		for (unsigned int k = 0; k < nu; k++) {
			int stack_top;

			if (u[k].bucket < 0) {
				cpus[nc++] = e->cpu[u[k].member];
				continue;
			}
			/* every member: walk the pairing heap */
			stack_top = e->bkt[u[k].bucket].root;
			c->walk[0] = stack_top;
			for (unsigned int sp = 1; sp > 0;) {
				int x = c->walk[--sp];

				for (; x >= 0; x = e->sibl[x]) {
					if (e->mark[x] != c->stamp)
						cpus[nc++] = e->cpu[x];
					if (e->child[x] >= 0)
						c->walk[sp++] = e->child[x];
				}
			}
		}
		sort_ints(cpus, nc);
		for (unsigned int k = 0; k < nc; k++) {
			struct score s = score_of(c, pi, cpus[k]);
			unsigned int j;

			if (have == nbest && score_cmp(c, heavy, &s, &best[nbest - 1]) >= 0)
				continue;
			j = have < nbest ? have++ : nbest - 1;
			while (j > 0 && score_cmp(c, heavy, &s, &best[j - 1]) < 0) {
				best[j] = best[j - 1];
				j--;
			}
			best[j] = s;
		}
	}
	return have;
}

static const int *candidates(const struct ctx *c, const struct plan_irq *pi,
			     unsigned int *n)
{
	int base = c->cls[c->irq_cls[pi - c->irqs]].base;

	if (base >= 0) {
		*n = c->node_n[base];
		return c->node_cpus[base];
	}
	*n = c->nr_all;
	return c->all;
}

/* Queues of a device one core may hold: its fair share of the node's cores. */
static unsigned int spread_cap(const struct ctx *c, const struct plan_irq *pi)
{
	unsigned int cores, q;

	if (!multiqueue(c, pi))
		return UINT32_MAX;
	cores = pi->node >= 0 && pi->node < c->topo->nr_nodes &&
		c->node_n[pi->node] > 0 ? c->node_cores[pi->node] : c->all_cores;
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
	memset(c->gcl_n, 0, (c->nr_groups + 1) * sizeof(*c->gcl_n));
	c->rebuild = true;
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
			if (below || !chain_move(c, m, best_peak))
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
	double bar = c->pol->stability > 0 ? c->pol->stability : c->pol->threshold;

	if (forced || peak_of(c, res->before) > best * (1 + bar) + c->pol->resolution + c->eps)
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

static uint64_t set_hash(const struct cpuset *set)
{
	uint64_t h = 0x84222325cbf29ce4ull;
	unsigned int words = (set->nbits + 63) / 64;

	/* Trailing empty words do not count: cpuset_equal() ignores them. */
	while (words && !set->bits[words - 1])
		words--;
	for (unsigned int w = 0; w < words; w++)
		h = (h ^ set->bits[w]) * 0x100000001b3ull;
	return h;
}

/* Make class @k hold the eligible CPUs of node @base (every node: -1)
 * that @allowed (NULL: all) leaves, ascending. */
static int elig_init(struct ctx *c, struct elig *e, int base,
		     const struct cpuset *allowed, uint64_t hash)
{
	const int *v = base >= 0 ? c->node_cpus[base] : c->all;
	unsigned int n = base >= 0 ? c->node_n[base] : c->nr_all, cap = n + 1;

	memset(e, 0, sizeof(*e));
	e->base = base;
	e->allowed = allowed;
	e->hash = hash;
	e->cpu = malloc(cap * sizeof(*e->cpu));
	if (!e->cpu)
		return -ENOMEM;
	if (!allowed) {
		memcpy(e->cpu, v, n * sizeof(*v));
		e->n = n;
	} else if (cpuset_count(allowed) < n) {
		/* a short list (an affinity hint): walk it, not the node */
		for (int cpu = cpuset_first(allowed); cpu >= 0;
		     cpu = cpuset_next(allowed, cpu)) {
			const struct cpu_info *ci;

			if ((unsigned int)cpu >= c->topo->nr_ids)
				break;
			ci = &c->topo->cpus[cpu];
			if (ci->online && !ci->avoid &&
			    (base < 0 || ci->node == base))
				e->cpu[e->n++] = cpu;
		}
	} else {
		for (unsigned int k = 0; k < n; k++)
			if (cpuset_test(allowed, (unsigned int)v[k]))
				e->cpu[e->n++] = v[k];
	}
	cap = e->n + 1;
	for (e->hash_mask = 1; e->hash_mask < 2 * cap; e->hash_mask *= 2)
		;
	e->bk = malloc(cap * sizeof(*e->bk));
	e->child = malloc(cap * sizeof(*e->child));
	e->sibl = malloc(cap * sizeof(*e->sibl));
	e->prv = malloc(cap * sizeof(*e->prv));
	e->bkt = malloc(cap * sizeof(*e->bkt));
	e->mark = calloc(cap, sizeof(*e->mark));
	e->bmark = calloc(cap, sizeof(*e->bmark));
	e->bspec = calloc(cap, sizeof(*e->bspec));
	e->hash_head = malloc(e->hash_mask * sizeof(*e->hash_head));
	e->load_q[0].b = malloc(cap * sizeof(int));
	e->load_q[1].b = malloc(cap * sizeof(int));
	e->count_q.b = malloc(cap * sizeof(int));
	e->hash_mask--;
	if (!e->bk || !e->child || !e->sibl || !e->prv || !e->bkt ||
	    !e->mark || !e->bmark || !e->bspec ||
	    !e->hash_head || !e->load_q[0].b || !e->load_q[1].b || !e->count_q.b)
		return -ENOMEM;
	elig_clear(e);
	return 0;
}

static void elig_release(struct elig *e)
{
	free(e->cpu);
	free(e->bk);
	free(e->child);
	free(e->sibl);
	free(e->prv);
	free(e->bkt);
	free(e->mark);
	free(e->bmark);
	free(e->bspec);
	free(e->hash_head);
	free(e->load_q[0].b);
	free(e->load_q[1].b);
	free(e->count_q.b);
}

/* The class of node @base and site policy @allowed, made if new; -errno. */
static int class_of(struct ctx *c, int *heads, unsigned int mask, int *chain,
		    int base, const struct cpuset *allowed)
{
	uint64_t hash = allowed ? set_hash(allowed) : 0;
	unsigned int h = (unsigned int)((hash ^ (uint64_t)(base + 2) * 0x9E3779B97F4A7C15ull) >> 17) & mask;
	int k;

	for (k = heads[h]; k >= 0; k = chain[k]) {
		const struct elig *e = &c->cls[k];

		if (e->base == base && e->hash == hash && !e->allowed == !allowed &&
		    (!allowed || e->allowed == allowed || cpuset_equal(e->allowed, allowed)))
			return k;
	}
	k = (int)c->nr_cls++;
	if (elig_init(c, &c->cls[k], base, allowed, hash) < 0)
		return -ENOMEM;
	chain[k] = heads[h];
	heads[h] = k;
	return k;
}

/* Classes, every IRQ's, the CPUs of each core and the classes of each CPU:
 * what rank_cpus() needs, built once. */
static int classes_init(struct ctx *c)
{
	unsigned int ids = c->topo->nr_ids, mask, cap = c->nr + 2, maxn = 1;
	int *heads = NULL, *chain = NULL, last = -1, last_base = -2;
	const struct cpuset *last_allowed = NULL;
	unsigned int *fill = NULL, total = 0;
	int r = -ENOMEM;

	for (mask = 1; mask < 2 * cap; mask *= 2)
		;
	heads = malloc(mask * sizeof(*heads));
	chain = malloc(cap * sizeof(*chain));
	/* at most one class per IRQ, and one for everything */
	c->cls = calloc(cap, sizeof(*c->cls));
	c->irq_cls = malloc(cap * sizeof(*c->irq_cls));
	if (!heads || !chain || !c->cls || !c->irq_cls)
		goto out;
	for (unsigned int h = 0; h < mask; h++)
		heads[h] = -1;
	mask--;
	for (unsigned int i = 0; i < c->nr; i++) {
		const struct plan_irq *pi = &c->irqs[i];
		int base = pi->node >= 0 && pi->node < c->topo->nr_nodes &&
			   c->node_n[pi->node] > 0 ? pi->node : -1;
		int k = last;

		if (base != last_base || pi->allowed != last_allowed || k < 0) {
			k = class_of(c, heads, mask, chain, base, pi->allowed);
			if (k < 0)
				goto out;
			/* A node policy rules out entirely is no node of its. */
			if (c->cls[k].n == 0 && base >= 0)
				k = class_of(c, heads, mask, chain, -1, pi->allowed);
			if (k < 0)
				goto out;
			last = k;
			last_base = base;
			last_allowed = pi->allowed;
		}
		c->irq_cls[i] = (unsigned int)k;
	}
	c->core_first = calloc(ids + 2, sizeof(*c->core_first));
	c->core_cpu = malloc((c->nr_all + 1) * sizeof(*c->core_cpu));
	c->mem_first = calloc(ids + 2, sizeof(*c->mem_first));
	fill = calloc(ids + 1, sizeof(*fill));
	c->dirty = calloc(ids + 1, sizeof(*c->dirty));
	c->dirty_list = malloc((ids + 1) * sizeof(*c->dirty_list));
	if (!c->core_first || !c->core_cpu || !c->mem_first || !fill ||
	    !c->dirty || !c->dirty_list)
		goto out;
	/* CPUs by core: counts, then starts, then the CPUs in id order. */
	for (unsigned int k = 0; k < c->nr_all; k++)
		c->core_first[core_of(c, c->all[k]) + 1]++;
	for (unsigned int k = 0; k < ids; k++)
		c->core_first[k + 1] += c->core_first[k];
	for (unsigned int k = 0; k < c->nr_all; k++) {
		int core = core_of(c, c->all[k]);

		c->core_cpu[c->core_first[core] + fill[core]++] = c->all[k];
	}
	memset(fill, 0, (ids + 1) * sizeof(*fill));
	for (unsigned int k = 0; k < c->nr_cls; k++) {
		const struct elig *e = &c->cls[k];

		for (unsigned int j = 0; j < e->n; j++)
			c->mem_first[e->cpu[j] + 1]++;
		total += e->n;
		if (e->n > maxn)
			maxn = e->n;
	}
	for (unsigned int k = 0; k < ids; k++)
		c->mem_first[k + 1] += c->mem_first[k];
	c->mem_cls = malloc((total + 1) * sizeof(*c->mem_cls));
	c->mem_idx = malloc((total + 1) * sizeof(*c->mem_idx));
	if (!c->mem_cls || !c->mem_idx)
		goto out;
	for (unsigned int k = 0; k < c->nr_cls; k++) {
		const struct elig *e = &c->cls[k];

		for (unsigned int j = 0; j < e->n; j++) {
			unsigned int at = c->mem_first[e->cpu[j]] + fill[e->cpu[j]]++;

			c->mem_cls[at] = k;
			c->mem_idx[at] = (int)j;
		}
	}
	/* A device's busy queues, fixed ones too, bound its cores. */
	c->gcl_first = calloc(c->nr_groups + 2, sizeof(*c->gcl_first));
	c->gcl_n = calloc(c->nr_groups + 1, sizeof(*c->gcl_n));
	if (!c->gcl_first || !c->gcl_n)
		goto out;
	for (unsigned int i = 0; i < c->nr; i++)
		if (c->irqs[i].group >= 0 && is_heavy(c, &c->irqs[i]))
			c->gcl_first[c->irqs[i].group + 1]++;
	for (unsigned int g = 0; g < c->nr_groups; g++)
		c->gcl_first[g + 1] += c->gcl_first[g];
	c->gcl = malloc((c->gcl_first[c->nr_groups] + 1) * sizeof(*c->gcl));
	c->frontier = malloc((2 * maxn + 8) * sizeof(*c->frontier));
	c->units = malloc((2 * maxn + 8) * sizeof(*c->units));
	c->out_units = malloc((maxn + 1) * sizeof(*c->out_units));
	c->unit_tmp = malloc((maxn + 8) * sizeof(*c->unit_tmp));
	c->taken_out = malloc((2 * maxn + 1) * sizeof(*c->taken_out));
	c->cand_buf = malloc((maxn + 1) * sizeof(*c->cand_buf));
	c->walk = malloc((maxn + 1) * sizeof(*c->walk));
	if (!c->gcl || !c->frontier || !c->units || !c->out_units || !c->unit_tmp ||
	    !c->taken_out || !c->cand_buf || !c->walk)
		goto out;
	c->rebuild = true;
	r = 0;
out:
	free(heads);
	free(chain);
	free(fill);
	return r;
}

static void classes_release(struct ctx *c)
{
	for (unsigned int k = 0; c->cls && k < c->nr_cls; k++)
		elig_release(&c->cls[k]);
	free(c->cls);
	free(c->irq_cls);
	free(c->core_first);
	free(c->core_cpu);
	free(c->mem_first);
	free(c->mem_cls);
	free(c->mem_idx);
	free(c->gcl_first);
	free(c->gcl_n);
	free(c->gcl);
	free(c->dirty);
	free(c->dirty_list);
	free(c->frontier);
	free(c->units);
	free(c->out_units);
	free(c->unit_tmp);
	free(c->taken_out);
	free(c->cand_buf);
	free(c->walk);
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
	for (c->gc_cap = 64, c->gc_shift = 58; c->gc_cap < 2 * (size_t)nr + 2; c->gc_cap *= 2)
		c->gc_shift--;
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
	c->node_cores = calloc(nodes, sizeof(*c->node_cores));
	if (!c->node_cores)
		return -ENOMEM;
	c->all_cores = count_cores(c, c->all, c->nr_all);
	for (unsigned int n = 0; n < (unsigned int)topo->nr_nodes; n++)
		c->node_cores[n] = count_cores(c, c->node_cpus[n], c->node_n[n]);
	c->scale = 1;
	for (unsigned int i = 0; i < nr; i++)
		c->scale += irqs[i].load < 0 ? -irqs[i].load : irqs[i].load;
	return classes_init(c);
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
	free(c->group_busy);
	free(c->on);
	free(c->next);
	free(c->prev);
	classes_release(c);
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

int plan_compute(const struct topology *topo, struct plan_irq *irqs,
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
	 * the one that moves fewer IRQs wins, the lower peak on a tie. The
	 * slack is the planner's share of the error: the estimate it plans on
	 * is off by a few per cent too, and a repair half a threshold above
	 * the best plan (5% by default) left none for it. */
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
