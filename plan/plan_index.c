// SPDX-License-Identifier: GPL-2.0-or-later
/* plan_index.c - the planner's ranking index: for one IRQ, its best CPU
 * and the next few, as a scan of every candidate would rank them, without
 * that scan. Eligibility classes, buckets of CPUs in the same state, the
 * queues and heaps over them, and their upkeep as the tallies change. Pure,
 * like the rest of the planner (plan.c). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan_int.h"

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
 * plan_score_cmp() treats loads within eps as equal, which is not transitive:
 * a linear scan's answer can depend on CPUs a sorted order would put far
 * behind. So a query takes buckets in queue order until they hold enough
 * CPUs, then every further bucket of the same rank whose load is within
 * eps of the highest taken: every CPU left out is then worse than every
 * CPU taken, and any ranking scan over the taken ones alone finds what it
 * would over all (the CPUs left out can neither enter its list nor push a
 * taken one out of it). When the loads taken are pairwise equal or more
 * than eps apart (almost always), the comparison is a plain order on them
 * and the answer is read off the buckets' lowest ids; otherwise the CPUs
 * taken are scanned exactly as plan_rank_cpus() always did.
 *
 * The per-CPU tallies change under the queues all the time (plan_improve()
 * tries moves by adding and taking back); plan_tally() marks the cores it
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
	double load, sib;	/* as plan_score_of() computes them */
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
static void cpu_state(const struct plan_ctx *c, int cpu, double *load, double *sib,
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

/* Bring the buckets up to the tallies: all of them after plan_reset(), else
 * those of the CPUs of every core plan_tally() touched. */
static void queues_sync(struct plan_ctx *c)
{
	if (c->ix.rebuild) {
		for (unsigned int k = 0; k < c->ix.nr_cls; k++) {
			struct elig *e = &c->ix.cls[k];

			elig_clear(e);
			for (unsigned int j = 0; j < e->n; j++) {
				double load, sib;
				unsigned int count;
				unsigned char nic;

				cpu_state(c, e->cpu[j], &load, &sib, &count, &nic);
				member_join(e, (int)j, load, sib, count, nic);
			}
		}
		for (unsigned int k = 0; k < c->ix.nr_dirty; k++)
			c->ix.dirty[c->ix.dirty_list[k]] = 0;
		c->ix.nr_dirty = 0;
		c->ix.rebuild = false;
		return;
	}
	for (unsigned int d = 0; d < c->ix.nr_dirty; d++) {
		int core = c->ix.dirty_list[d];

		c->ix.dirty[core] = 0;
		for (unsigned int t = c->ix.core_first[core]; t < c->ix.core_first[core + 1]; t++) {
			int cpu = c->ix.core_cpu[t];
			double load, sib;
			unsigned int count;
			unsigned char nic;

			cpu_state(c, cpu, &load, &sib, &count, &nic);
			for (unsigned int m = c->ix.mem_first[cpu]; m < c->ix.mem_first[cpu + 1]; m++) {
				struct elig *e = &c->ix.cls[c->ix.mem_cls[m]];
				int j = c->ix.mem_idx[m];
				const struct bucket *k = &e->bkt[e->bk[j]];

				if (k->load == load && k->sib == sib &&
				    k->count == count && k->nic == nic)
					continue;
				member_leave(e, j);
				member_join(e, j, load, sib, count, nic);
			}
		}
	}
	c->ix.nr_dirty = 0;
}

/* Member index of @cpu in class @cl, -1 if it is not one. */
static int member_of(const struct plan_ctx *c, unsigned int cl, int cpu)
{
	for (unsigned int m = c->ix.mem_first[cpu]; m < c->ix.mem_first[cpu + 1]; m++)
		if (c->ix.mem_cls[m] == cl)
			return c->ix.mem_idx[m];
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
static bool apart(const struct plan_ctx *c, double lo, double hi)
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

/* A device's cores with busy queues on them, kept as plan_tally() counts: the
 * only cores where a queue of it scores differently from its bucket. */
void plan_gcl_add(struct plan_ctx *c, unsigned int g, struct gc_entry *e, int core)
{
	e->at = c->ix.gcl_n[g]++;
	c->ix.gcl[c->ix.gcl_first[g] + e->at] = core;
}

void plan_gcl_del(struct plan_ctx *c, unsigned int g, struct gc_entry *e)
{
	int *v = &c->ix.gcl[c->ix.gcl_first[g]];
	int last = v[--c->ix.gcl_n[g]];

	if ((unsigned int)e->at != c->ix.gcl_n[g]) {
		v[e->at] = last;
		gc_slot(c, (int)g, last)->at = e->at;
	}
}

/* One query of plan_rank_cpus(): what its passes share. */
struct query {
	const struct plan_irq *pi;
	struct elig *e;
	unsigned int cl;	/* its class, e */
	bool heavy, nic;	/* busy; a busy NIC queue */
	unsigned int nbest;	/* CPUs wanted */
	unsigned int nout;	/* members set apart, in ix.taken_out */
	unsigned int nsp;	/* those worth scoring, in ix.out_units */
	unsigned int nu;	/* units taken, in ix.units */
};

/* Pass 1: cores with queues of the IRQ's own device score apart from
 * their buckets (same_dev, other_nic): set apart, scored one by one, and
 * skipped where their bucket is taken. */
static void set_apart(struct plan_ctx *c, struct query *q)
{
	const struct plan_irq *pi = q->pi;
	struct elig *e = q->e;
	int *out = c->ix.taken_out;
	unsigned int g = (unsigned int)pi->group;

	for (unsigned int k = 0; k < c->ix.gcl_n[g]; k++) {
		int core = c->ix.gcl[c->ix.gcl_first[g] + k];

		for (unsigned int t = c->ix.core_first[core];
		     t < c->ix.core_first[core + 1]; t++) {
			int j = member_of(c, q->cl, c->ix.core_cpu[t]), b;

			if (j < 0)
				continue;
			b = e->bk[j];
			e->mark[j] = c->ix.stamp;
			if (e->bmark[b] != c->ix.stamp) {
				e->bmark[b] = c->ix.stamp;
				e->bspec[b] = 0;
			}
			e->bspec[b]++;
			out[q->nout++] = j;
		}
	}
	/* When the buckets alone hold enough CPUs of rank 0 (or 1),
	 * no CPU set apart of a higher rank can matter. */
	uint64_t bound = UINT64_MAX;
	unsigned int avail[2] = { e->load_q[0].members, e->load_q[1].members };

	for (unsigned int k = 0; k < q->nout; k++)
		avail[e->bkt[e->bk[out[k]]].nic]--;
	if (!q->nic && avail[0] + avail[1] >= q->nbest)
		bound = 0;
	else if (q->nic && avail[0] >= q->nbest)
		bound = 0;
	else if (q->nic && avail[0] + avail[1] >= q->nbest)
		bound = 1;
	/* A queue of a multi-queue device has a queue of its own on
	 * every core set apart: rank 2 at least. */
	for (unsigned int k = 0; k < q->nout && (bound >= 2 || !multiqueue(c, pi)); k++) {
		struct plan_score s;
		uint64_t rank;

		if (bound < 2) {
			/* only other_nic can differ: worth a look? */
			int core = core_of(c, e->cpu[out[k]]);

			if (q->nic && bound == 0 &&
			    c->netq[core] > gc_get(c, pi->group, core))
				continue;
		}
		s = plan_score_of(c, pi, e->cpu[out[k]]);
		rank = (uint64_t)s.same_dev * 2 + s.other_nic;
		if (rank > bound)
			continue;
		c->ix.out_units[q->nsp] = (struct unit){
			.rank = rank, .load = s.load, .sib = s.sibling,
			.count = s.count, .bucket = -1, .member = out[k],
			.seq = q->nsp,
		};
		q->nsp++;
	}
	out_heapify(c->ix.out_units, q->nsp);
}

/* Pass 2: buckets and the CPUs set apart, best first, into ix.units
 * until they hold enough CPUs, and then every further one of the same
 * rank within eps of the highest load taken. */
static void take_units(struct plan_ctx *c, struct query *q)
{
	const struct plan_irq *pi = q->pi;
	struct elig *e = q->e;
	struct step *fr = c->ix.frontier;
	struct unit *u = c->ix.units;
	unsigned int nfr = 0, members = 0;
	double lmax = 0, slack = 1e-12 * (c->ix.scale + (pi->load < 0 ? -pi->load : pi->load));
	uint64_t top_rank = 0;

	if (q->heavy) {
		for (int qi = 0; qi < 2; qi++)
			if (e->load_q[qi].n)
				step_push(fr, &nfr, (struct step){
					(uint64_t)(qi && q->nic),
					e->bkt[e->load_q[qi].b[0]].key + pi->load, qi, 0 });
	} else if (e->count_q.n) {
		const struct bucket *k = &e->bkt[e->count_q.b[0]];

		step_push(fr, &nfr, (struct step){ k->count, k->load + pi->load, 2, 0 });
	}
	if (q->nsp)
		step_push(fr, &nfr, (struct step){ c->ix.out_units[0].rank,
						   c->ix.out_units[0].load, 3, 0 });
	while (nfr) {
		struct step s;
		struct unit x;

		/* Enough CPUs: only more of the same rank within eps of the
		 * highest load taken can still matter. */
		if (members >= q->nbest &&
		    (fr[0].rank != top_rank || fr[0].order - slack > lmax + c->eps))
			break;
		s = step_pop(fr, &nfr);
		if (s.src == 3) {
			x = out_pop(c->ix.out_units, &q->nsp);
			if (q->nsp)
				step_push(fr, &nfr, (struct step){
					c->ix.out_units[0].rank,
					c->ix.out_units[0].load, 3, 0 });
			members++;
		} else {
			struct bqueue *bq = s.src == 2 ? &e->count_q : &e->load_q[s.src];
			const struct bucket *k = &e->bkt[bq->b[s.at]];

			for (unsigned int ch = 2 * s.at + 1; ch <= 2 * s.at + 2 && ch < bq->n; ch++) {
				const struct bucket *kc = &e->bkt[bq->b[ch]];

				step_push(fr, &nfr, (struct step){
					s.src == 2 ? kc->count : s.rank,
					(s.src == 2 ? kc->load : kc->key) + pi->load,
					s.src, ch });
			}
			x = (struct unit){
				.rank = s.src == 2 ? k->count : s.rank,
				.load = k->load + pi->load +
					(q->heavy ? k->sib / 2 : 0),
				.sib = k->sib, .count = k->count,
				.bucket = bq->b[s.at], .member = -1,
			};
			if (e->bmark[x.bucket] == c->ix.stamp) {
				if (e->bspec[x.bucket] == k->size)
					continue;	/* all set apart */
				members += k->size - e->bspec[x.bucket];
			} else {
				members += k->size;
			}
		}
		if (q->nu == 0 || x.rank != top_rank) {
			top_rank = x.rank;
			lmax = x.load;
		} else if (x.load > lmax) {
			lmax = x.load;
		}
		u[q->nu++] = x;
	}
}

/* Whether the sorted units are in a plain order: within a rank, loads
 * (then sibling loads) pairwise equal or more than eps apart. */
static bool units_crisp(const struct plan_ctx *c, const struct unit *u, unsigned int nu)
{
	bool crisp = true;

	for (unsigned int k = 1; k < nu && crisp; k++) {
		if (u[k].rank != u[k - 1].rank)
			continue;
		if (u[k].load != u[k - 1].load)
			crisp = apart(c, u[k - 1].load, u[k].load);
		else if (u[k].sib != u[k - 1].sib)
			crisp = apart(c, u[k - 1].sib, u[k].sib);
	}
	return crisp;
}

/* Pass 3, crisp: a plain order on (rank, load, sib, count), then id, read
 * off the buckets' lowest ids. */
static unsigned int read_crisp(struct plan_ctx *c, const struct query *q,
			       struct plan_score *best)
{
	struct elig *e = q->e;
	const struct unit *u = c->ix.units;
	int *out = c->ix.taken_out, *cpus = c->ix.cand_buf;
	unsigned int nu = q->nu, nbest = q->nbest, nout = q->nout, have = 0;

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
				if (e->mark[j] == c->ix.stamp) {
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
			best[have++] = plan_score_of(c, q->pi, cpus[t]);
	}
	return have;
}

/* Pass 3, near ties: the scan itself, over the CPUs taken. */
static unsigned int scan_taken(struct plan_ctx *c, const struct query *q,
			       struct plan_score *best)
{
	const struct elig *e = q->e;
	const struct unit *u = c->ix.units;
	int *cpus = c->ix.cand_buf;
	unsigned int nbest = q->nbest, nc = 0, have = 0;

	for (unsigned int k = 0; k < q->nu; k++) {
		int stack_top;

		if (u[k].bucket < 0) {
			cpus[nc++] = e->cpu[u[k].member];
			continue;
		}
		/* every member: walk the pairing heap */
		stack_top = e->bkt[u[k].bucket].root;
		c->ix.walk[0] = stack_top;
		for (unsigned int sp = 1; sp > 0;) {
			int x = c->ix.walk[--sp];

			for (; x >= 0; x = e->sibl[x]) {
				if (e->mark[x] != c->ix.stamp)
					cpus[nc++] = e->cpu[x];
				if (e->child[x] >= 0)
					c->ix.walk[sp++] = e->child[x];
			}
		}
	}
	sort_ints(cpus, nc);
	for (unsigned int k = 0; k < nc; k++) {
		struct plan_score s = plan_score_of(c, q->pi, cpus[k]);
		unsigned int j;

		if (have == nbest && plan_score_cmp(c, q->heavy, &s, &best[nbest - 1]) >= 0)
			continue;
		j = have < nbest ? have++ : nbest - 1;
		while (j > 0 && plan_score_cmp(c, q->heavy, &s, &best[j - 1]) < 0) {
			best[j] = best[j - 1];
			j--;
		}
		best[j] = s;
	}
	return have;
}

/* The reference: every candidate scored, in id order, keeping the @nbest
 * best; with @vec, only CPUs with a vector free for @pi. Where CPUs differ
 * in capacity the buckets' order (by load now) is not the order a load
 * added at each CPU's own weight gives, so such machines (phones,
 * laptops: a few dozen CPUs) are ranked this way; and so is a query whose
 * indexed answer fell on a CPU without vectors. */
static unsigned int scan_all(struct plan_ctx *c, const struct plan_irq *pi,
			     struct plan_score *best, unsigned int nbest, bool vec)
{
	bool heavy = is_heavy(c, pi);
	unsigned int n, have = 0;
	const int *v = plan_candidates(c, pi, &n);

	for (unsigned int k = 0; k < n; k++) {
		struct plan_score s;
		unsigned int j;

		if (!allowed(pi, v[k]) || (vec && !vec_room(c, pi, v[k], NULL)))
			continue;
		s = plan_score_of(c, pi, v[k]);
		if (have == nbest && plan_score_cmp(c, heavy, &s, &best[nbest - 1]) >= 0)
			continue;
		j = have < nbest ? have++ : nbest - 1;
		while (j > 0 && plan_score_cmp(c, heavy, &s, &best[j - 1]) < 0) {
			best[j] = best[j - 1];
			j--;
		}
		best[j] = s;
	}
	return have;
}

static unsigned int rank_index(struct plan_ctx *c, const struct plan_irq *pi,
			       struct plan_score *best, unsigned int nbest);

/* Best CPU and the next PLAN_ALTS after it, as scores: what a scan of
 * every candidate in id order keeping the nbest best would find, among
 * the CPUs with a vector free for it. c->vec_hit: the CPU it would have
 * taken but for vectors, else left as it was. */
unsigned int plan_rank_cpus(struct plan_ctx *c, const struct plan_irq *pi,
		       struct plan_score *best, unsigned int nbest)
{
	unsigned int have;
	bool full = false;

	have = c->hetero || c->full_any ? scan_all(c, pi, best, nbest, false) :
			   rank_index(c, pi, best, nbest);
	for (unsigned int k = 0; c->vec && k < have; k++)
		full |= !vec_room(c, pi, best[k].cpu, NULL);
	if (!full)
		return have;
	if (!vec_room(c, pi, best[0].cpu, NULL))
		c->vec_hit = best[0].cpu;
	return scan_all(c, pi, best, nbest, true);
}

static unsigned int rank_index(struct plan_ctx *c, const struct plan_irq *pi,
			       struct plan_score *best, unsigned int nbest)
{
	struct query q = {
		.pi = pi,
		.cl = c->ix.irq_cls[pi - c->irqs],
		.heavy = is_heavy(c, pi),
		.nbest = nbest,
	};

	q.e = &c->ix.cls[q.cl];
	q.nic = q.heavy && pi->class == CLASS_NET;
	queues_sync(c);
	c->ix.stamp++;
	if (q.heavy && pi->group >= 0 && (multiqueue(c, pi) || q.nic))
		set_apart(c, &q);
	take_units(c, &q);
	sort_units(c->ix.units, q.nu, c->ix.unit_tmp);
	if (units_crisp(c, c->ix.units, q.nu))
		return read_crisp(c, &q, best);
	return scan_taken(c, &q, best);
}

const int *plan_candidates(const struct plan_ctx *c, const struct plan_irq *pi,
			     unsigned int *n)
{
	int base = c->ix.cls[c->ix.irq_cls[pi - c->irqs]].base;

	if (base >= 0) {
		*n = c->node_n[base];
		return c->node_cpus[base];
	}
	*n = c->nr_all;
	return c->all;
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
static int elig_init(struct plan_ctx *c, struct elig *e, int base,
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
static int class_of(struct plan_ctx *c, int *heads, unsigned int mask, int *chain,
		    int base, const struct cpuset *allowed)
{
	uint64_t hash = allowed ? set_hash(allowed) : 0;
	unsigned int h = (unsigned int)((hash ^ (uint64_t)(base + 2) * 0x9E3779B97F4A7C15ull) >> 17) & mask;
	int k;

	for (k = heads[h]; k >= 0; k = chain[k]) {
		const struct elig *e = &c->ix.cls[k];

		if (e->base == base && e->hash == hash && !e->allowed == !allowed &&
		    (!allowed || e->allowed == allowed || cpuset_equal(e->allowed, allowed)))
			return k;
	}
	k = (int)c->ix.nr_cls++;
	if (elig_init(c, &c->ix.cls[k], base, allowed, hash) < 0)
		return -ENOMEM;
	chain[k] = heads[h];
	heads[h] = k;
	return k;
}

/* Each class's cores, and with a full CPU somewhere its cores with room
 * (rank_index): once here, not at every plan_spread_cap(). Needs cand_buf. */
static int class_cores(struct plan_ctx *c)
{
	c->ix.cls_cores = calloc(c->ix.nr_cls + 1, sizeof(*c->ix.cls_cores));
	if (c->full_any)
		c->ix.cls_room = calloc(c->ix.nr_cls + 1, sizeof(*c->ix.cls_room));
	if (!c->ix.cls_cores || (c->full_any && !c->ix.cls_room))
		return -ENOMEM;
	for (unsigned int k = 0; k < c->ix.nr_cls; k++) {
		const struct elig *e = &c->ix.cls[k];
		unsigned int n = 0;

		c->ix.cls_cores[k] = plan_count_cores(c, e->cpu, e->n);
		if (!c->full_any)
			continue;
		/* A core with room is one with a CPU that is not full. */
		for (unsigned int j = 0; j < e->n; j++)
			if (!app_full(c, e->cpu[j]))
				c->ix.cand_buf[n++] = e->cpu[j];
		c->ix.cls_room[k] = plan_count_cores(c, c->ix.cand_buf, n);
	}
	return 0;
}

/* Classes, every IRQ's, the CPUs of each core and the classes of each CPU:
 * what plan_rank_cpus() needs, built once. */
int plan_classes_init(struct plan_ctx *c)
{
	unsigned int ids = c->topo->nr_ids, mask, cap = c->nr + 2, maxn = 1;
	int *heads = NULL, *chain = NULL, last = -1, last_base = -2;
	const struct cpuset *last_allowed = NULL;
	unsigned int *fill = NULL, total = 0;
	int r = -ENOMEM;

	c->ix.scale = 1;
	for (unsigned int i = 0; i < c->nr; i++)
		c->ix.scale += c->irqs[i].load < 0 ? -c->irqs[i].load : c->irqs[i].load;
	for (unsigned int k = 0; c->has_app && k < ids; k++)
		c->ix.scale += c->app_w[k];
	for (mask = 1; mask < 2 * cap; mask *= 2)
		;
	heads = malloc(mask * sizeof(*heads));
	chain = malloc(cap * sizeof(*chain));
	/* at most one class per IRQ, and one for everything */
	c->ix.cls = calloc(cap, sizeof(*c->ix.cls));
	c->ix.irq_cls = malloc(cap * sizeof(*c->ix.irq_cls));
	if (!heads || !chain || !c->ix.cls || !c->ix.irq_cls)
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
			if (c->ix.cls[k].n == 0 && base >= 0)
				k = class_of(c, heads, mask, chain, -1, pi->allowed);
			if (k < 0)
				goto out;
			last = k;
			last_base = base;
			last_allowed = pi->allowed;
		}
		c->ix.irq_cls[i] = (unsigned int)k;
	}
	c->ix.core_first = calloc(ids + 2, sizeof(*c->ix.core_first));
	c->ix.core_cpu = malloc((c->nr_all + 1) * sizeof(*c->ix.core_cpu));
	c->ix.mem_first = calloc(ids + 2, sizeof(*c->ix.mem_first));
	fill = calloc(ids + 1, sizeof(*fill));
	c->ix.dirty = calloc(ids + 1, sizeof(*c->ix.dirty));
	c->ix.dirty_list = malloc((ids + 1) * sizeof(*c->ix.dirty_list));
	if (!c->ix.core_first || !c->ix.core_cpu || !c->ix.mem_first || !fill ||
	    !c->ix.dirty || !c->ix.dirty_list)
		goto out;
	/* CPUs by core: counts, then starts, then the CPUs in id order. */
	for (unsigned int k = 0; k < c->nr_all; k++)
		c->ix.core_first[core_of(c, c->all[k]) + 1]++;
	for (unsigned int k = 0; k < ids; k++)
		c->ix.core_first[k + 1] += c->ix.core_first[k];
	for (unsigned int k = 0; k < c->nr_all; k++) {
		int core = core_of(c, c->all[k]);

		c->ix.core_cpu[c->ix.core_first[core] + fill[core]++] = c->all[k];
	}
	memset(fill, 0, (ids + 1) * sizeof(*fill));
	for (unsigned int k = 0; k < c->ix.nr_cls; k++) {
		const struct elig *e = &c->ix.cls[k];

		for (unsigned int j = 0; j < e->n; j++)
			c->ix.mem_first[e->cpu[j] + 1]++;
		total += e->n;
		if (e->n > maxn)
			maxn = e->n;
	}
	for (unsigned int k = 0; k < ids; k++)
		c->ix.mem_first[k + 1] += c->ix.mem_first[k];
	c->ix.mem_cls = malloc((total + 1) * sizeof(*c->ix.mem_cls));
	c->ix.mem_idx = malloc((total + 1) * sizeof(*c->ix.mem_idx));
	if (!c->ix.mem_cls || !c->ix.mem_idx)
		goto out;
	for (unsigned int k = 0; k < c->ix.nr_cls; k++) {
		const struct elig *e = &c->ix.cls[k];

		for (unsigned int j = 0; j < e->n; j++) {
			unsigned int at = c->ix.mem_first[e->cpu[j]] + fill[e->cpu[j]]++;

			c->ix.mem_cls[at] = k;
			c->ix.mem_idx[at] = (int)j;
		}
	}
	/* A device's busy queues, fixed ones too, bound its cores. */
	c->ix.gcl_first = calloc(c->nr_groups + 2, sizeof(*c->ix.gcl_first));
	c->ix.gcl_n = calloc(c->nr_groups + 1, sizeof(*c->ix.gcl_n));
	if (!c->ix.gcl_first || !c->ix.gcl_n)
		goto out;
	for (unsigned int i = 0; i < c->nr; i++)
		if (c->irqs[i].group >= 0 && is_heavy(c, &c->irqs[i]))
			c->ix.gcl_first[c->irqs[i].group + 1]++;
	for (unsigned int g = 0; g < c->nr_groups; g++)
		c->ix.gcl_first[g + 1] += c->ix.gcl_first[g];
	c->ix.gcl = malloc((c->ix.gcl_first[c->nr_groups] + 1) * sizeof(*c->ix.gcl));
	c->ix.frontier = malloc((2 * maxn + 8) * sizeof(*c->ix.frontier));
	c->ix.units = malloc((2 * maxn + 8) * sizeof(*c->ix.units));
	c->ix.out_units = malloc((maxn + 1) * sizeof(*c->ix.out_units));
	c->ix.unit_tmp = malloc((maxn + 8) * sizeof(*c->ix.unit_tmp));
	c->ix.taken_out = malloc((2 * maxn + 1) * sizeof(*c->ix.taken_out));
	c->ix.cand_buf = malloc((maxn + 1) * sizeof(*c->ix.cand_buf));
	c->ix.walk = malloc((maxn + 1) * sizeof(*c->ix.walk));
	if (!c->ix.gcl || !c->ix.frontier || !c->ix.units || !c->ix.out_units || !c->ix.unit_tmp ||
	    !c->ix.taken_out || !c->ix.cand_buf || !c->ix.walk || class_cores(c) < 0)
		goto out;
	c->ix.rebuild = true;
	r = 0;
out:
	free(heads);
	free(chain);
	free(fill);
	return r;
}

void plan_classes_release(struct plan_ctx *c)
{
	for (unsigned int k = 0; c->ix.cls && k < c->ix.nr_cls; k++)
		elig_release(&c->ix.cls[k]);
	free(c->ix.cls);
	free(c->ix.irq_cls);
	free(c->ix.cls_cores);
	free(c->ix.cls_room);
	free(c->ix.core_first);
	free(c->ix.core_cpu);
	free(c->ix.mem_first);
	free(c->ix.mem_cls);
	free(c->ix.mem_idx);
	free(c->ix.gcl_first);
	free(c->ix.gcl_n);
	free(c->ix.gcl);
	free(c->ix.dirty);
	free(c->ix.dirty_list);
	free(c->ix.frontier);
	free(c->ix.units);
	free(c->ix.out_units);
	free(c->ix.unit_tmp);
	free(c->ix.taken_out);
	free(c->ix.cand_buf);
	free(c->ix.walk);
}
