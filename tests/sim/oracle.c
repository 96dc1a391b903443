// SPDX-License-Identifier: GPL-2.0-or-later
/* oracle.c - the yardstick for a balancer: how low the busiest CPU's IRQ
 * load can go on a simulated machine, and how the current placement fares
 * against irqtune's placement rules. See oracle.h.
 *
 * The problem the oracle solves is irqtune's, with the model's true loads:
 *  - CPUs: the online ones. An eligible CPU (online, not isolated, not
 *    nohz_full) takes movable IRQs; every online CPU carries the load of the
 *    managed IRQs effective on it, which nobody can move.
 *  - Jobs: the movable (unmanaged) IRQs with load. Each goes to exactly one
 *    CPU of its allowed set: the eligible CPUs of its device's node when the
 *    machine has several nodes and that node has eligible CPUs, else every
 *    eligible CPU. Idle IRQs do not change the busiest CPU and are left out.
 *  - Goal: the lowest possible load of the busiest online CPU (max_load).
 *  - Unlike CPUs: a job takes 1024/capacity times as long on a smaller CPU
 *    (the model's rule), so a CPU's load is its busy time, work over
 *    capacity, as the score counts it; and on x86 a CPU takes at most as
 *    many jobs as it has free vectors plus those on it now, the planner's
 *    rule. Where CPUs are alike and vectors plenty, the problem and every
 *    step below are exactly what they were without either.
 * A second variant adds irqtune's spreading rule: each device with several
 * busy queues (SIM_BUSY_LOAD) uses at least min(queues, physical cores of
 * its allowed set) distinct physical cores. It says what the rule costs.
 *
 * That is makespan minimisation on identical (or, with capacities,
 * uniform) machines with fixed initial loads and nested (node or all)
 * eligibility: NP-hard in general, so the
 * oracle brackets the optimum between a placement it found and a proven
 * lower bound, and reports both and the gap.
 *
 * Placements tried, each followed by local search:
 *  1. LPT: heaviest first, each on its allowed CPU with the least load (with
 *     the spreading rule: on a core its device does not use yet while it
 *     still needs new cores).
 *  2. MULTIFIT-style bisection on a capacity T between the lower bound and
 *     the best placement so far: best-fit decreasing (each job on the
 *     fullest allowed CPU it still fits on, below T) - also first-fit
 *     decreasing; any success is a placement of max_load <= T.
 *  3. When those leave a gap to the lower bound: branch and bound over
 *     every placement (heaviest job first, CPUs by load, interchangeable
 *     CPUs tried once, pruned by the best peak, by each set's average load
 *     and by the spreading rule), up to two million nodes. A complete search
 *     proves the best placement optimal.
 * Local search repeatedly takes the busiest CPU and applies the single move
 * or pairwise swap with another CPU that lowers the larger of the two loads
 * most; it stops when no such move lowers the busiest CPU. Every step makes
 * the sorted load vector lexicographically smaller, so it terminates.
 *
 * Lower bounds (the largest wins), all valid for any placement, and so for
 * the spreading variant too:
 *  - the busiest CPU's fixed (managed) load, eligible or not;
 *  - per job, its load plus the least fixed load among its allowed CPUs;
 *  - per allowed set S (each node, and all eligible CPUs) with the jobs that
 *    must land in S: the water level that spreads their total load over S
 *    above the fixed loads, as if IRQs could be split;
 *  - per set S of m CPUs whose jobs sorted by load are p1 >= p2 >= ...:
 *    for k >= 1, of the k*m+1 heaviest, some CPU gets k+1, so the busiest
 *    carries at least p(km-k+1) + ... + p(km+1) above S's least fixed load;
 *  - per set S, the least T passing a counting test: for every q, CPU c
 *    holds at most floor((T - fixed load of c) / pq) of the q heaviest jobs,
 *    and those counts must add up to q (a CPU with a managed queue cannot
 *    take one more NIC queue of the same size without going over T).
 * When the best placement meets the bound, it is optimal. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"

struct job {
	unsigned int irq;	/* index into s->irqs */
	double p;		/* true load, CPUs */
	unsigned int set;	/* 0: every eligible CPU, 1 + n: node n's */
	int dev;		/* spreading device index, -1 none */
};

struct inst {
	const struct sim *s;
	unsigned int n;		/* nr_cpus */
	double *base;		/* fixed (managed) load per CPU */
	/* per CPU: how many times as long a job takes there as on the
	 * biggest CPU (1024/capacity); all exactly 1 where @uniform */
	double *w;
	bool uniform;
	/* per CPU: jobs it can hold, its free vectors plus the jobs on it
	 * now (x86); only where @vec_limited, which is where some CPU could
	 * not hold every job */
	unsigned int *slots;
	bool vec_limited;
	bool *elig;
	unsigned int nsets;	/* 1 + nodes */
	unsigned int **cpus;	/* eligible CPUs per set, ascending */
	unsigned int *ncpus;
	struct job *job;	/* heaviest first */
	unsigned int nj;
	/* the spreading rule */
	bool spread;		/* enforce it */
	unsigned int *core;	/* per CPU: physical core index */
	unsigned int ncores;
	unsigned int ndev;	/* devices with several busy queues */
	unsigned int *need;	/* per device: distinct cores it must use */
	unsigned int *njobs;	/* per device: its jobs */
};

struct asg {
	int *where;		/* per job: CPU */
	double *load;		/* per CPU */
	unsigned int *cnt;	/* per CPU: jobs there */
	unsigned int *dc;	/* [dev * ncores + core]: jobs of dev there */
	unsigned int *used;	/* per device: distinct cores */
	unsigned int *left;	/* per device: jobs not placed yet */
};

#define EPS 1e-12

static bool eligible(const struct sim_cpu *c)
{
	return c->online && !c->isolated && !c->nohz_full;
}

static unsigned int nr_nodes(const struct sim *s)
{
	unsigned int nodes = 0;

	for (unsigned int c = 0; c < s->nr_cpus; c++)
		if (s->cpu[c].node + 1 > (int)nodes)
			nodes = (unsigned int)s->cpu[c].node + 1;
	return nodes;
}

/* A physical core: package and core id. */
static long core_key(const struct sim_cpu *c)
{
	return (long)c->package * 65536 + c->core;
}

/* The allowed set of an IRQ: its device's node if that has eligible CPUs
 * (and the machine has several nodes), else all eligible CPUs. */
static unsigned int set_of(const struct inst *in, const struct sim_irq *q)
{
	int node = q->dev >= 0 ? in->s->devs[q->dev].node : -1;

	if (node >= 0 && (unsigned int)node + 1 < in->nsets &&
	    in->ncpus[node + 1] > 0)
		return (unsigned int)node + 1;
	return 0;
}

static bool allowed(const struct inst *in, const struct job *j, unsigned int c)
{
	return in->elig[c] &&
	       (j->set == 0 || in->s->cpu[c].node == (int)j->set - 1);
}

/* Job @jb's load on CPU @c: its work, longer on a smaller CPU. */
static double on(const struct inst *in, const struct job *jb, unsigned int c)
{
	return jb->p * in->w[c];
}

/* What placements rank CPUs by, least first: the load a job would leave
 * there, which where CPUs are alike ranks as their load does (and is
 * their load, so that alike machines are solved as they always were). */
static double rank(const struct inst *in, const double *load,
		   const struct job *jb, unsigned int c)
{
	return in->uniform ? load[c] : load[c] + on(in, jb, c);
}

static int job_cmp(const void *pa, const void *pb)
{
	const struct job *a = pa, *b = pb;

	if (a->p != b->p)
		return a->p > b->p ? -1 : 1;
	return (a->irq > b->irq) - (a->irq < b->irq);
}

static void inst_free(struct inst *in)
{
	if (in->cpus)
		for (unsigned int k = 0; k < in->nsets; k++)
			free(in->cpus[k]);
	free(in->cpus);
	free(in->ncpus);
	free(in->base);
	free(in->w);
	free(in->slots);
	free(in->elig);
	free(in->job);
	free(in->core);
	free(in->need);
	free(in->njobs);
}

/* Distinct physical cores among the CPUs of @set. */
static unsigned int set_cores(const struct inst *in, unsigned int set)
{
	unsigned int cores = 0;

	for (unsigned int k = 0; k < in->ncpus[set]; k++) {
		bool dup = false;

		for (unsigned int j = 0; j < k && !dup; j++)
			dup = in->core[in->cpus[set][j]] == in->core[in->cpus[set][k]];
		cores += !dup;
	}
	return cores;
}

static int inst_init(struct inst *in, const struct sim *s)
{
	unsigned int nodes = nr_nodes(s);
	int *devidx;

	memset(in, 0, sizeof(*in));
	in->s = s;
	in->n = s->nr_cpus;
	in->nsets = 1 + (nodes > 1 ? nodes : 0);
	in->base = calloc(in->n, sizeof(*in->base));
	in->w = calloc(in->n, sizeof(*in->w));
	in->slots = calloc(in->n, sizeof(*in->slots));
	in->elig = calloc(in->n, sizeof(*in->elig));
	in->cpus = calloc(in->nsets, sizeof(*in->cpus));
	in->ncpus = calloc(in->nsets, sizeof(*in->ncpus));
	in->job = calloc(s->nr_irqs + 1, sizeof(*in->job));
	in->core = calloc(in->n, sizeof(*in->core));
	in->need = calloc(s->nr_devs + 1, sizeof(*in->need));
	in->njobs = calloc(s->nr_devs + 1, sizeof(*in->njobs));
	if (!in->base || !in->w || !in->slots || !in->elig || !in->cpus || !in->ncpus || !in->job ||
	    !in->core || !in->need || !in->njobs)
		return -ENOMEM;
	for (unsigned int k = 0; k < in->nsets; k++) {
		in->cpus[k] = calloc(in->n, sizeof(**in->cpus));
		if (!in->cpus[k])
			return -ENOMEM;
	}
	in->uniform = true;
	for (unsigned int c = 0; c < in->n; c++) {
		const struct sim_cpu *sc = &s->cpu[c];
		unsigned int o;

		in->w[c] = sim_slowdown(s, c);
		if (sc->online && in->w[c] != 1.0)
			in->uniform = false;
		in->slots[c] = s->isa == ISA_X86 ? sim_vectors_free(s, c) : UINT32_MAX;

		for (o = 0; o < c; o++)
			if (core_key(&s->cpu[o]) == core_key(sc))
				break;
		in->core[c] = o < c ? in->core[o] : in->ncores++;
		in->elig[c] = eligible(sc);
		if (!in->elig[c])
			continue;
		in->cpus[0][in->ncpus[0]++] = c;
		if (in->nsets > 1 && sc->node >= 0)
			in->cpus[sc->node + 1][in->ncpus[sc->node + 1]++] = c;
	}
	for (unsigned int i = 0; i < s->nr_irqs; i++) {
		const struct sim_irq *q = &s->irqs[i];
		double p = sim_irq_load(q);

		if (q->managed) {
			if (q->eff >= 0 && s->cpu[q->eff].online)
				in->base[q->eff] += p * in->w[q->eff];
			continue;
		}
		if (p <= 0)
			continue;
		in->job[in->nj++] = (struct job){ i, p, set_of(in, q), -1 };
		/* a job may stay where it is: its vector is its own */
		if (q->eff >= 0 && in->slots[q->eff] < UINT32_MAX)
			in->slots[q->eff]++;
	}
	for (unsigned int c = 0; c < in->n; c++)
		if (in->elig[c] && in->slots[c] < in->nj)
			in->vec_limited = true;
	qsort(in->job, in->nj, sizeof(*in->job), job_cmp);
	/* devices with several busy queues, and the cores they must use */
	devidx = malloc((s->nr_devs + 1) * sizeof(*devidx));
	if (!devidx)
		return -ENOMEM;
	memset(in->njobs, 0, (s->nr_devs + 1) * sizeof(*in->njobs));
	for (unsigned int j = 0; j < in->nj; j++) {
		int d = s->irqs[in->job[j].irq].dev;

		if (d >= 0 && in->job[j].p >= SIM_BUSY_LOAD)
			in->njobs[d]++;
	}
	for (unsigned int d = 0; d < s->nr_devs; d++)
		devidx[d] = in->njobs[d] >= 2 ? (int)in->ndev++ : -1;
	memset(in->njobs, 0, (s->nr_devs + 1) * sizeof(*in->njobs));
	for (unsigned int j = 0; j < in->nj; j++) {
		struct job *jb = &in->job[j];
		int d = s->irqs[jb->irq].dev;

		if (d < 0 || devidx[d] < 0 || jb->p < SIM_BUSY_LOAD)
			continue;
		jb->dev = devidx[d];
		in->njobs[jb->dev]++;
		in->need[jb->dev] = set_cores(in, jb->set);
	}
	for (unsigned int d = 0; d < in->ndev; d++)
		if (in->njobs[d] < in->need[d])
			in->need[d] = in->njobs[d];
	free(devidx);
	return 0;
}

static int asg_init(const struct inst *in, struct asg *a)
{
	a->where = malloc((in->nj + 1) * sizeof(*a->where));
	a->load = malloc(in->n * sizeof(*a->load));
	a->cnt = malloc(in->n * sizeof(*a->cnt));
	a->dc = malloc(((size_t)in->ndev * in->ncores + 1) * sizeof(*a->dc));
	a->used = malloc((in->ndev + 1) * sizeof(*a->used));
	a->left = malloc((in->ndev + 1) * sizeof(*a->left));
	return a->where && a->load && a->cnt && a->dc && a->used && a->left ? 0 : -ENOMEM;
}

static void asg_free(struct asg *a)
{
	free(a->where);
	free(a->load);
	free(a->cnt);
	free(a->dc);
	free(a->used);
	free(a->left);
}

static void asg_copy(const struct inst *in, struct asg *dst, const struct asg *src)
{
	memcpy(dst->where, src->where, in->nj * sizeof(*dst->where));
	memcpy(dst->load, src->load, in->n * sizeof(*dst->load));
	memcpy(dst->cnt, src->cnt, in->n * sizeof(*dst->cnt));
	memcpy(dst->dc, src->dc, (size_t)in->ndev * in->ncores * sizeof(*dst->dc));
	memcpy(dst->used, src->used, in->ndev * sizeof(*dst->used));
	memcpy(dst->left, src->left, in->ndev * sizeof(*dst->left));
}

static void asg_reset(const struct inst *in, struct asg *a)
{
	memcpy(a->load, in->base, in->n * sizeof(*a->load));
	memset(a->cnt, 0, in->n * sizeof(*a->cnt));
	for (unsigned int j = 0; j < in->nj; j++)
		a->where[j] = -1;
	memset(a->dc, 0, (size_t)in->ndev * in->ncores * sizeof(*a->dc));
	memset(a->used, 0, in->ndev * sizeof(*a->used));
	memcpy(a->left, in->njobs, in->ndev * sizeof(*a->left));
}

/* The busiest online CPU's load. */
static double peak(const struct inst *in, const double *load)
{
	double m = 0;

	for (unsigned int c = 0; c < in->n; c++)
		if (in->s->cpu[c].online && load[c] > m)
			m = load[c];
	return m;
}

static int busiest(const struct inst *in, const double *load)
{
	int m = -1;

	for (unsigned int c = 0; c < in->n; c++)
		if (in->s->cpu[c].online && (m < 0 || load[c] > load[m] + EPS))
			m = (int)c;
	return m;
}

/* Job @j to CPU @c (-1: unplace it). */
static void put(const struct inst *in, struct asg *a, unsigned int j, int c)
{
	const struct job *jb = &in->job[j];
	int old = a->where[j];

	if (old >= 0) {
		a->load[old] -= on(in, jb, (unsigned int)old);
		a->cnt[old]--;
		if (jb->dev >= 0) {
			if (--a->dc[jb->dev * in->ncores + in->core[old]] == 0)
				a->used[jb->dev]--;
			a->left[jb->dev]++;
		}
	}
	a->where[j] = c;
	if (c >= 0) {
		a->load[c] += on(in, jb, (unsigned int)c);
		a->cnt[c]++;
		if (jb->dev >= 0) {
			if (a->dc[jb->dev * in->ncores + in->core[c]]++ == 0)
				a->used[jb->dev]++;
			a->left[jb->dev]--;
		}
	}
}

/* Whether CPU @c has a vector for one more job (one that is not there). */
static bool vec_fits(const struct inst *in, const struct asg *a, unsigned int c)
{
	return !in->vec_limited || a->cnt[c] < in->slots[c];
}

/* Whether device @d can still meet its spreading need. */
static bool dev_ok(const struct inst *in, const struct asg *a, int d)
{
	return !in->spread || d < 0 || a->used[d] + a->left[d] >= in->need[d];
}

/* Whether job @j may go to CPU @c as far as spreading goes. */
static bool spread_fits(const struct inst *in, struct asg *a, unsigned int j,
			unsigned int c)
{
	int old = a->where[j];
	bool ok;

	if (!in->spread || in->job[j].dev < 0)
		return true;
	put(in, a, j, (int)c);
	ok = dev_ok(in, a, in->job[j].dev);
	put(in, a, j, old);
	return ok;
}

/* Longest processing time first. */
static void lpt(const struct inst *in, struct asg *a)
{
	asg_reset(in, a);
	for (unsigned int j = 0; j < in->nj; j++) {
		const struct job *jb = &in->job[j];
		int best = -1;

		for (unsigned int k = 0; k < in->ncpus[jb->set]; k++) {
			unsigned int c = in->cpus[jb->set][k];

			if ((best < 0 || rank(in, a->load, jb, c) <
					 rank(in, a->load, jb, (unsigned int)best) - EPS) &&
			    vec_fits(in, a, c) && spread_fits(in, a, j, c))
				best = (int)c;
		}
		put(in, a, j, best);
	}
}

/* Pack below @cap: best fit (fullest CPU that still takes the job) or
 * first fit (lowest id that does). False when some job fits nowhere. */
static bool pack(const struct inst *in, struct asg *a, double cap, bool best_fit)
{
	asg_reset(in, a);
	for (unsigned int j = 0; j < in->nj; j++) {
		const struct job *jb = &in->job[j];
		int best = -1;

		for (unsigned int k = 0; k < in->ncpus[jb->set]; k++) {
			unsigned int c = in->cpus[jb->set][k];

			if (a->load[c] + on(in, jb, c) > cap + EPS || !vec_fits(in, a, c) ||
			    !spread_fits(in, a, j, c))
				continue;
			if (best < 0 || (best_fit && a->load[c] > a->load[best] + EPS))
				best = (int)c;
			if (!best_fit)
				break;
		}
		if (best < 0)
			return false;
		put(in, a, j, best);
	}
	return true;
}

/* Swap jobs @j and @k (on different CPUs) if spreading allows; returns
 * whether it did. */
static bool try_swap(const struct inst *in, struct asg *a, unsigned int j,
		     unsigned int k)
{
	int cj = a->where[j], ck = a->where[k];

	put(in, a, j, ck);
	put(in, a, k, cj);
	if (dev_ok(in, a, in->job[j].dev) && dev_ok(in, a, in->job[k].dev))
		return true;
	put(in, a, k, ck);
	put(in, a, j, cj);
	return false;
}

/* Lower the busiest CPU by single moves and swaps until none helps. */
static void local_search(const struct inst *in, struct asg *a)
{
	for (unsigned int round = 0; round < 100000; round++) {
		int m = busiest(in, a->load), bj = -1, bk = -1, bc = -1;
		double lm, best;

		if (m < 0 || !in->elig[m])
			return;		/* fixed load only: nothing can help */
		lm = a->load[m];
		best = lm - 1e-9;
		for (unsigned int j = 0; j < in->nj; j++) {
			const struct job *jb = &in->job[j];

			if (a->where[j] != m)
				continue;
			for (unsigned int k = 0; k < in->ncpus[jb->set]; k++) {
				unsigned int c = in->cpus[jb->set][k];
				double np;

				if ((int)c == m)
					continue;
				np = fmax(lm - on(in, jb, (unsigned int)m), a->load[c] + on(in, jb, c));
				if (np < best && vec_fits(in, a, c) && spread_fits(in, a, j, c)) {
					best = np;
					bj = (int)j;
					bc = (int)c;
					bk = -1;
				}
			}
			for (unsigned int k = 0; k < in->nj; k++) {
				const struct job *kb = &in->job[k];
				int c = a->where[k];
				double np;

				if (c == m || kb->p >= jb->p - EPS ||
				    !allowed(in, jb, (unsigned int)c) ||
				    !allowed(in, kb, (unsigned int)m))
					continue;
				np = fmax(lm - on(in, jb, (unsigned int)m) + on(in, kb, (unsigned int)m),
					  a->load[c] - on(in, kb, (unsigned int)c) +
					  on(in, jb, (unsigned int)c));
				if (np >= best)
					continue;
				if (in->spread) {
					int cj = a->where[j];

					if (!try_swap(in, a, j, k))
						continue;
					put(in, a, j, cj);	/* undo */
					put(in, a, k, c);
				}
				best = np;
				bj = (int)j;
				bc = c;
				bk = (int)k;
			}
		}
		if (bj < 0)
			return;
		put(in, a, (unsigned int)bj, bc);
		if (bk >= 0)
			put(in, a, (unsigned int)bk, m);
	}
}

/* A necessary condition for a busiest CPU of at most @t in @set: for every
 * q, the q heaviest of the set's jobs @p (descending) fit, counting on CPU c
 * at most floor((t - base[c]) / p[q-1]) of them, since each is at least
 * that heavy. */
static bool counts_fit(const struct inst *in, unsigned int set,
		       const double *p, unsigned int np, double t)
{
	for (unsigned int q = 1; q <= np; q++) {
		double room = 0;

		if (q < np && p[q] == p[q - 1])
			continue;	/* the last of equal loads says it all */
		for (unsigned int k = 0; k < in->ncpus[set] && room < q; k++) {
			unsigned int c = in->cpus[set][k];
			double cap = t - in->base[c], fit;

			if (cap <= 0)
				continue;
			fit = floor(cap / (p[q - 1] * in->w[c]) + 1e-9);
			if (in->vec_limited && fit > in->slots[c])
				fit = in->slots[c];
			room += fit;
		}
		if (room < q)
			return false;
	}
	return true;
}

static double lower_bound(const struct inst *in)
{
	double lb = peak(in, in->base);
	double *p = malloc((in->nj + 1) * sizeof(*p));

	if (!p)
		return lb;
	for (unsigned int j = 0; j < in->nj; j++) {
		const struct job *jb = &in->job[j];
		double lo = INFINITY;

		for (unsigned int k = 0; k < in->ncpus[jb->set]; k++) {
			unsigned int c = in->cpus[jb->set][k];

			lo = fmin(lo, in->base[c] + on(in, jb, c));
		}
		if (lo < INFINITY)
			lb = fmax(lb, lo);
	}
	for (unsigned int set = 0; set < in->nsets; set++) {
		unsigned int m = in->ncpus[set], np = 0;
		double sum = 0, lo, hi, minbase = INFINITY, wmin = INFINITY;

		if (!m)
			continue;
		/* jobs that must land in this set, heaviest first */
		for (unsigned int j = 0; j < in->nj; j++)
			if (set == 0 || in->job[j].set == set)
				p[np++] = in->job[j].p;
		for (unsigned int j = 0; j < np; j++)
			sum += p[j];
		for (unsigned int k = 0; k < m; k++) {
			minbase = fmin(minbase, in->base[in->cpus[set][k]]);
			wmin = fmin(wmin, in->w[in->cpus[set][k]]);
		}
		/* water level: sum over CPUs of max(0, L - base) / w = sum,
		 * what each CPU does below L at its own speed */
		lo = 0;
		hi = peak(in, in->base) + sum + 1;
		for (int it = 0; it < 200 && hi - lo > 1e-12; it++) {
			double mid = (lo + hi) / 2, room = 0;

			for (unsigned int k = 0; k < m; k++)
				room += fmax(0, mid - in->base[in->cpus[set][k]]) /
					in->w[in->cpus[set][k]];
			if (room >= sum)
				hi = mid;
			else
				lo = mid;
		}
		lb = fmax(lb, lo);
		for (unsigned int k = 1; k * m + 1 <= np; k++) {
			double t = 0;

			for (unsigned int j = k * m - k; j <= k * m; j++)
				t += p[j];
			lb = fmax(lb, t * wmin + minbase);
		}
		/* smallest T that passes the counting test */
		if (np && !counts_fit(in, set, p, np, lb)) {
			lo = lb;
			hi = lb + sum + p[0];
			for (int it = 0; it < 100 && hi - lo > 1e-10; it++) {
				double mid = (lo + hi) / 2;

				if (counts_fit(in, set, p, np, mid))
					hi = mid;
				else
					lo = mid;
			}
			lb = fmax(lb, lo);
		}
	}
	free(p);
	return lb;
}

/* Branch and bound: every placement of the jobs, heaviest first, each on
 * an allowed CPU in order of load, pruned when a CPU would reach the best
 * peak found so far, when some set's average load would, or when a device
 * could no longer reach its cores. CPUs that are interchangeable are tried
 * once: same node and load, and - with the spreading rule - the same core
 * or cores whose CPUs' loads and device counts match. Stops after a budget
 * of nodes; a complete search makes the best placement optimal. */
struct bb {
	const struct inst *in;
	struct asg *cur, *best;
	double ub;
	double *rest;		/* [j * nsets + set]: jobs j.. bound to set */
	double *setload;	/* per set: load on its CPUs now */
	unsigned int *cand;	/* [j * n]: candidate CPUs at depth j */
	unsigned long nodes, budget;
};

static bool bb_prune(const struct bb *b, unsigned int j)
{
	const struct inst *in = b->in;

	for (unsigned int set = 0; set < in->nsets; set++) {
		double room = 0;

		if (!in->ncpus[set])
			continue;
		if (in->uniform) {
			if ((b->setload[set] + b->rest[j * in->nsets + set]) /
			    in->ncpus[set] >= b->ub - 1e-12)
				return true;
			continue;
		}
		/* the work left must fit under the best peak, each CPU at
		 * its own speed */
		for (unsigned int k = 0; k < in->ncpus[set]; k++) {
			unsigned int c = in->cpus[set][k];

			room += fmax(0, b->ub - 1e-12 - b->cur->load[c]) / in->w[c];
		}
		if (b->rest[j * in->nsets + set] >= room)
			return true;
	}
	return false;
}

static void bb_place(struct bb *b, unsigned int j, int c, unsigned int cpu)
{
	const struct inst *in = b->in;
	double p = c >= 0 ? in->job[j].p : -in->job[j].p;

	put(in, b->cur, j, c);
	b->setload[0] += p;
	if (in->nsets > 1 && in->s->cpu[cpu].node >= 0)
		b->setload[in->s->cpu[cpu].node + 1] += p;
}

/* Whether placing on @a or @b leads to mirror-image states. */
static bool twins(const struct bb *b, unsigned int a, unsigned int c)
{
	const struct inst *in = b->in;
	const double *load = b->cur->load;
	double la[8], lc[8];
	unsigned int na = 0, nc = 0;

	if (fabs(load[a] - load[c]) >= 1e-12 || in->w[a] != in->w[c] ||
	    in->s->cpu[a].node != in->s->cpu[c].node ||
	    (in->vec_limited && in->slots[a] - b->cur->cnt[a] != in->slots[c] - b->cur->cnt[c]))
		return false;
	if (!in->spread || in->core[a] == in->core[c])
		return true;
	for (unsigned int d = 0; d < in->ndev; d++)
		if (b->cur->dc[d * in->ncores + in->core[a]] !=
		    b->cur->dc[d * in->ncores + in->core[c]])
			return false;
	/* the other eligible CPUs of the two cores, as multisets of loads
	 * (the others take no job: they do not tell the cores apart) */
	for (unsigned int x = 0; x < in->n; x++) {
		if (!in->elig[x] || x == a || x == c)
			continue;
		if (in->core[x] == in->core[a] && na < 8)
			la[na++] = load[x];
		else if (in->core[x] == in->core[c] && nc < 8)
			lc[nc++] = load[x];
	}
	if (na != nc)
		return false;
	for (unsigned int i = 0; i < na; i++) {
		bool hit = false;

		for (unsigned int k = 0; k < nc && !hit; k++)
			if (fabs(la[i] - lc[k]) < 1e-12) {
				lc[k] = lc[--nc];
				hit = true;
			}
		if (!hit)
			return false;
	}
	return true;
}

static void bb_dfs(struct bb *b, unsigned int j)
{
	const struct inst *in = b->in;
	const struct job *jb;
	unsigned int *cand, nc = 0;

	if (b->nodes++ >= b->budget)
		return;
	if (j == in->nj) {
		b->ub = peak(in, b->cur->load);
		asg_copy(in, b->best, b->cur);
		return;
	}
	if (bb_prune(b, j))
		return;
	jb = &in->job[j];
	cand = &b->cand[(size_t)j * in->n];
	for (unsigned int k = 0; k < in->ncpus[jb->set]; k++) {
		unsigned int c = in->cpus[jb->set][k], pos = nc++;

		/* insertion by load, then id */
		while (pos > 0 && rank(in, b->cur->load, jb, cand[pos - 1]) >
				  rank(in, b->cur->load, jb, c)) {
			cand[pos] = cand[pos - 1];
			pos--;
		}
		cand[pos] = c;
	}
	for (unsigned int k = 0; k < nc && b->nodes < b->budget; k++) {
		unsigned int c = cand[k];
		bool twin = false;

		/* by rank, no later CPU does better (alike CPUs) or
		 * this one cannot (unlike ones) */
		if (b->cur->load[c] + on(in, jb, c) >= b->ub - 1e-12) {
			if (in->uniform)
				break;
			continue;
		}
		if (!vec_fits(in, b->cur, c))
			continue;
		for (unsigned int t = 0; t < k && !twin; t++)
			twin = twins(b, cand[t], c);
		if (twin)
			continue;
		bb_place(b, j, (int)c, c);
		if (dev_ok(in, b->cur, jb->dev))
			bb_dfs(b, j + 1);
		bb_place(b, j, -1, c);
	}
}

/* Improve @best (of peak @ub) by branch and bound; returns the new peak. */
static double branch_and_bound(const struct inst *in, struct asg *best,
			       double ub, unsigned long budget, bool *ret_done)
{
	struct bb b = { .in = in, .best = best, .ub = ub, .budget = budget };
	struct asg cur = { 0 };

	*ret_done = false;
	b.cur = &cur;
	b.rest = calloc((size_t)(in->nj + 1) * in->nsets, sizeof(*b.rest));
	b.setload = calloc(in->nsets, sizeof(*b.setload));
	b.cand = malloc(((size_t)in->nj + 1) * in->n * sizeof(*b.cand));
	if (!b.rest || !b.setload || !b.cand || asg_init(in, &cur) < 0)
		goto out;
	for (unsigned int j = in->nj; j-- > 0;) {
		for (unsigned int set = 0; set < in->nsets; set++)
			b.rest[j * in->nsets + set] = b.rest[(j + 1) * in->nsets + set];
		b.rest[j * in->nsets] += in->job[j].p;
		if (in->job[j].set)
			b.rest[j * in->nsets + in->job[j].set] += in->job[j].p;
	}
	asg_reset(in, &cur);
	for (unsigned int set = 0; set < in->nsets; set++)
		for (unsigned int k = 0; k < in->ncpus[set]; k++)
			b.setload[set] += in->base[in->cpus[set][k]];
	/* nothing can beat the busiest fixed load */
	if (peak(in, in->base) < ub - 1e-12)
		bb_dfs(&b, 0);
	*ret_done = b.nodes < budget;
out:
	asg_free(&cur);
	free(b.rest);
	free(b.setload);
	free(b.cand);
	return b.ub;
}

/* The best placement and a lower bound, under in->spread. */
static int solve(const struct inst *in, struct asg *best, double *ret_ub,
		 double *ret_lb, const char **ret_method)
{
	struct asg cur = { 0 };
	double lb, ub, lo, hi;
	int r = asg_init(in, &cur);

	if (r < 0)
		goto out;
	*ret_method = "lpt";
	lb = lower_bound(in);
	lpt(in, best);
	local_search(in, best);
	ub = peak(in, best->load);
	for (int fit = 0; fit < 2; fit++) {
		lo = lb;
		hi = ub;
		for (int it = 0; it < 40 && hi - lo > 1e-9 * hi; it++) {
			double mid = (lo + hi) / 2;

			if (!pack(in, &cur, mid, fit == 0)) {
				lo = mid;
				continue;
			}
			local_search(in, &cur);
			hi = fmin(mid, peak(in, cur.load));
			if (peak(in, cur.load) < ub - 1e-12) {
				ub = peak(in, cur.load);
				asg_copy(in, best, &cur);
				*ret_method = fit == 0 ? "best-fit" : "first-fit";
			}
		}
	}
	if (ub > lb * (1 + 1e-4) + 1e-12) {
		bool done;
		double found = branch_and_bound(in, best, ub, 2000000, &done);

		if (found < ub - 1e-12) {
			ub = found;
			*ret_method = "branch-and-bound";
		}
		if (done)	/* the search was complete: nothing beats ub */
			lb = ub;
	}
	if (ub < lb)	/* rounding: the bound cannot beat a placement */
		lb = ub;
	*ret_ub = ub;
	*ret_lb = lb;
out:
	asg_free(&cur);
	return r;
}

/* From the current placement, how many busy IRQs must move so that no CPU
 * carries more than @t: at least one per IRQ outside its allowed set and
 * one per CPU over @t once those left (*@ret_lb); and how many a greedy
 * repair moves to get there (*@ret_greedy, -1 if it does not): the forced
 * ones to the least loaded allowed CPU, then local search (moves and swaps
 * off the busiest CPU) until none is over @t. */
static void moves_needed(const struct inst *in, double t, int *ret_lb,
			 int *ret_greedy)
{
	const struct sim *s = in->s;
	struct asg a = { 0 };
	int *from = malloc((in->nj + 1) * sizeof(*from));
	int lb = 0, moved = 0;

	*ret_lb = *ret_greedy = -1;
	if (!from || asg_init(in, &a) < 0)
		goto out;
	asg_reset(in, &a);
	for (unsigned int j = 0; j < in->nj; j++) {
		int eff = s->irqs[in->job[j].irq].eff;

		from[j] = eff;
		if (eff >= 0 && s->cpu[eff].online &&
		    allowed(in, &in->job[j], (unsigned int)eff))
			put(in, &a, j, eff);
		else
			lb++;
	}
	for (unsigned int k = 0; k < in->ncpus[0]; k++)
		lb += a.load[in->cpus[0][k]] > t + 1e-9;
	*ret_lb = lb;
	for (unsigned int j = 0; j < in->nj; j++) {
		const struct job *jb = &in->job[j];
		int best = -1;

		if (a.where[j] >= 0)
			continue;
		for (unsigned int k = 0; k < in->ncpus[jb->set]; k++) {
			unsigned int c = in->cpus[jb->set][k];

			if ((best < 0 || rank(in, a.load, jb, c) <
					 rank(in, a.load, jb, (unsigned int)best) - EPS) &&
			    vec_fits(in, &a, c))
				best = (int)c;
		}
		put(in, &a, j, best);
	}
	/* local search, but stop as soon as the target is met */
	for (unsigned int round = 0; round < 4 * in->nj + 16; round++) {
		int m = busiest(in, a.load), bj = -1, bk = -1, bc = -1;
		double best;

		if (m < 0 || a.load[m] <= t + 1e-9)
			break;
		if (!in->elig[m])
			goto out;
		best = a.load[m] - 1e-9;
		for (unsigned int j = 0; j < in->nj; j++) {
			const struct job *jb = &in->job[j];

			if (a.where[j] != m)
				continue;
			for (unsigned int k = 0; k < in->ncpus[jb->set]; k++) {
				unsigned int c = in->cpus[jb->set][k];
				double np = fmax(a.load[m] - on(in, jb, (unsigned int)m),
						 a.load[c] + on(in, jb, c));

				if ((int)c != m && np < best && vec_fits(in, &a, c)) {
					best = np;
					bj = (int)j;
					bc = (int)c;
					bk = -1;
				}
			}
			for (unsigned int k = 0; k < in->nj; k++) {
				const struct job *kb = &in->job[k];
				int c = a.where[k];
				double np;

				if (c == m || kb->p >= jb->p - EPS ||
				    !allowed(in, jb, (unsigned int)c) ||
				    !allowed(in, kb, (unsigned int)m))
					continue;
				np = fmax(a.load[m] - on(in, jb, (unsigned int)m) +
					  on(in, kb, (unsigned int)m),
					  a.load[c] - on(in, kb, (unsigned int)c) +
					  on(in, jb, (unsigned int)c));
				/* a swap moves two IRQs: only if it does more */
				if (np < best - 1e-9) {
					best = np;
					bj = (int)j;
					bc = c;
					bk = (int)k;
				}
			}
		}
		if (bj < 0)
			goto out;
		put(in, &a, (unsigned int)bj, bc);
		if (bk >= 0)
			put(in, &a, (unsigned int)bk, m);
	}
	if (peak(in, a.load) > t + 1e-9)
		goto out;
	for (unsigned int j = 0; j < in->nj; j++)
		moved += a.where[j] != from[j];
	*ret_greedy = moved;
out:
	free(from);
	asg_free(&a);
}

static void print_solution(FILE *out, const char *prefix, double ub, double lb,
			   double sb, const char *method)
{
	fprintf(out, "%s_max_load %.6f\n", prefix, ub);
	fprintf(out, "%s_lower_bound %.6f\n", prefix, lb);
	fprintf(out, "%s_gap_pct %.2f\n", prefix, lb > 0 ? 100 * (ub / lb - 1) : 0.0);
	fprintf(out, "%s_optimal %d\n", prefix, ub <= lb * (1 + 1e-4) + 1e-12);
	fprintf(out, "%s_ratio %.6f\n", prefix, sb > 0 ? ub / sb : 1.0);
	fprintf(out, "%s_method %s\n", prefix, method);
}

/* ---- the whole load: IRQs around pinned application threads ----------- */

/* Whether a job may sit on CPU @c under the cap: within its set, with a
 * vector, and leaving @c at most @cap. */
static bool fits(const struct inst *in, struct asg *a, unsigned int j,
		 unsigned int c, double cap)
{
	return allowed(in, &in->job[j], c) && vec_fits(in, a, c) &&
	       a->load[c] + on(in, &in->job[j], c) <= cap &&
	       spread_fits(in, a, j, c);
}

/* Of the placements whose busiest CPU is at most @cap, one with little IRQ
 * work on application CPUs (@app[c] > SIM_APP_BUSY): from @a, move each
 * job off them to the least loaded CPU without application work where it
 * fits, heaviest first; then swap one there for a lighter one from there
 * while both still fit. Each step lowers that work, so it ends. */
static void off_app(const struct inst *in, struct asg *a, const double *app,
		    double cap)
{
	bool again = true;

	for (int round = 0; again && round < 1000; round++) {
		again = false;
		for (unsigned int j = 0; j < in->nj; j++) {
			int from = a->where[j], to = -1;

			if (from < 0 || app[from] <= SIM_APP_BUSY)
				continue;
			for (unsigned int c = 0; c < in->n; c++)
				if (app[c] <= SIM_APP_BUSY && fits(in, a, j, c, cap) &&
				    (to < 0 || a->load[c] + on(in, &in->job[j], c) <
					       a->load[to] + on(in, &in->job[j], (unsigned int)to)))
					to = (int)c;
			if (to >= 0) {
				put(in, a, j, to);
				again = true;
			}
		}
		for (unsigned int j = 0; j < in->nj && !again; j++) {
			int from = a->where[j];

			if (from < 0 || app[from] <= SIM_APP_BUSY)
				continue;
			for (unsigned int k = 0; k < in->nj && !again; k++) {
				int there = a->where[k];

				if (there < 0 || app[there] > SIM_APP_BUSY ||
				    in->job[k].p >= in->job[j].p - EPS ||
				    !allowed(in, &in->job[j], (unsigned int)there) ||
				    !allowed(in, &in->job[k], (unsigned int)from))
					continue;
				put(in, a, j, -1);
				put(in, a, k, -1);
				if (a->load[there] + on(in, &in->job[j], (unsigned int)there) <= cap &&
				    a->load[from] + on(in, &in->job[k], (unsigned int)from) <= cap) {
					put(in, a, j, there);
					put(in, a, k, from);
					again = dev_ok(in, a, in->job[j].dev) &&
						dev_ok(in, a, in->job[k].dev);
				}
				if (!again) {
					put(in, a, j, -1);
					put(in, a, k, -1);
					put(in, a, j, from);
					put(in, a, k, there);
				}
			}
		}
	}
}

/* With application threads: the best busiest-CPU whole load (IRQs plus the
 * pinned threads' true load, fixed like managed IRQs), under the same
 * rules, and at that peak the least IRQ work on application CPUs; printed
 * under @prefix, and with the spreading rule when in->spread. */
static int whole_oracle(const struct sim *s, struct inst *in, FILE *out,
			const char *prefix, bool verbose)
{
	double *app = calloc(in->n, sizeof(*app));
	double *base = malloc(in->n * sizeof(*base));
	double *irq = calloc(in->n, sizeof(*irq));
	struct asg best = { 0 };
	const char *method;
	double ub, lb, pct, on_app, whole;
	int r = -ENOMEM, cpu;

	if (!app || !base || !irq || asg_init(in, &best) < 0)
		goto out;
	sim_app_load(s, app);
	memcpy(base, in->base, in->n * sizeof(*base));
	for (unsigned int c = 0; c < in->n; c++)
		in->base[c] += app[c];
	r = solve(in, &best, &ub, &lb, &method);
	if (r == 0) {
		off_app(in, &best, app, ub * (1 + 1e-9) + 1e-12);
		for (unsigned int c = 0; c < in->n; c++)
			irq[c] = base[c];
		for (unsigned int j = 0; j < in->nj; j++)
			if (best.where[j] >= 0)
				irq[best.where[j]] += on(in, &in->job[j],
							 (unsigned int)best.where[j]);
		sim_app_figures(s, irq, app, &pct, &on_app, &whole, &cpu);
		fprintf(out, "%s_whole_max_load %.6f\n", prefix, whole);
		fprintf(out, "%s_whole_lower_bound %.6f\n", prefix, lb);
		fprintf(out, "%s_whole_gap_pct %.2f\n", prefix,
			lb > 0 ? 100 * (whole / lb - 1) : 0.0);
		fprintf(out, "%s_whole_method %s\n", prefix, method);
		fprintf(out, "%s_irq_on_app_load %.6f\n", prefix, on_app);
		fprintf(out, "%s_irq_on_app_pct %.2f\n", prefix, pct);
		if (verbose)
			for (unsigned int j = 0; j < in->nj; j++)
				fprintf(out, "%s.whole.irq.%u %d\n", prefix,
					s->irqs[in->job[j].irq].irq, best.where[j]);
	}
	memcpy(in->base, base, in->n * sizeof(*base));
out:
	asg_free(&best);
	free(app);
	free(base);
	free(irq);
	return r;
}

/* ---- the SMT objective (issue 34) -------------------------------------- *
 * irqtune judges a CPU by its load plus half its SMT siblings' (two busy
 * threads of a core each run slower). The model runs every thread at full
 * speed, so this is a measure, not a simulation: the best placement under
 * the same rules that minimises the busiest CPU by it, found by local
 * search (moves and swaps) from several starts; an upper bound on the
 * optimum, not a proof of it. */

struct smt {
	double *cs;		/* per core: load summed over its online CPUs */
	unsigned int *first;	/* per core: into cpu[] */
	unsigned int *cpu;	/* online CPUs, core by core */
};

static void smt_free(struct smt *m)
{
	free(m->cs);
	free(m->first);
	free(m->cpu);
}

static int smt_init(const struct inst *in, struct smt *m)
{
	unsigned int *fill;

	m->cs = calloc(in->ncores + 1, sizeof(*m->cs));
	m->first = calloc(in->ncores + 2, sizeof(*m->first));
	m->cpu = malloc((in->n + 1) * sizeof(*m->cpu));
	fill = calloc(in->ncores + 1, sizeof(*fill));
	if (!m->cs || !m->first || !m->cpu || !fill) {
		free(fill);
		return -ENOMEM;
	}
	for (unsigned int c = 0; c < in->n; c++)
		if (in->s->cpu[c].online)
			m->first[in->core[c] + 1]++;
	for (unsigned int k = 0; k < in->ncores; k++)
		m->first[k + 1] += m->first[k];
	for (unsigned int c = 0; c < in->n; c++)
		if (in->s->cpu[c].online)
			m->cpu[m->first[in->core[c]] + fill[in->core[c]]++] = c;
	free(fill);
	return 0;
}

static void smt_sums(const struct inst *in, struct smt *m, const double *load)
{
	memset(m->cs, 0, in->ncores * sizeof(*m->cs));
	for (unsigned int c = 0; c < in->n; c++)
		if (in->s->cpu[c].online)
			m->cs[in->core[c]] += load[c];
}

static double smt_eff(const struct inst *in, const struct smt *m, const double *load,
		      unsigned int c)
{
	return load[c] + (m->cs[in->core[c]] - load[c]) / 2;
}

static int smt_busiest(const struct inst *in, const struct smt *m, const double *load)
{
	int b = -1;

	for (unsigned int c = 0; c < in->n; c++)
		if (in->s->cpu[c].online &&
		    (b < 0 || smt_eff(in, m, load, c) > smt_eff(in, m, load, (unsigned int)b) + EPS))
			b = (int)c;
	return b;
}

/* The highest eff on the cores of @x and @y after their loads change by
 * @dx and @dy. */
static double smt_after(const struct inst *in, const struct smt *m, const double *load,
			unsigned int x, double dx, unsigned int y, double dy)
{
	unsigned int cores[2] = { in->core[x], in->core[y] };
	double peak = 0;

	for (int k = 0; k < (cores[0] == cores[1] ? 1 : 2); k++) {
		double cs = m->cs[cores[k]] + (in->core[x] == cores[k] ? dx : 0) +
			    (in->core[y] == cores[k] ? dy : 0);

		for (unsigned int t = m->first[cores[k]]; t < m->first[cores[k] + 1]; t++) {
			unsigned int c = m->cpu[t];
			double l = load[c] + (c == x ? dx : 0) + (c == y ? dy : 0);
			double e = l + (cs - l) / 2;

			if (e > peak)
				peak = e;
		}
	}
	return peak;
}

/* local_search() under the SMT objective. */
static void smt_search(const struct inst *in, struct smt *m, struct asg *a)
{
	for (unsigned int round = 0; round < 100000; round++) {
		int mc, bj = -1, bk = -1, bc = -1;
		double best;

		smt_sums(in, m, a->load);
		mc = smt_busiest(in, m, a->load);
		if (mc < 0 || !in->elig[mc])
			return;
		best = smt_eff(in, m, a->load, (unsigned int)mc) - 1e-9;
		for (unsigned int j = 0; j < in->nj; j++) {
			const struct job *jb = &in->job[j];
			double dm = -on(in, jb, (unsigned int)mc);

			if (a->where[j] != mc)
				continue;
			for (unsigned int k = 0; k < in->ncpus[jb->set]; k++) {
				unsigned int c = in->cpus[jb->set][k];
				double np;

				if ((int)c == mc)
					continue;
				np = smt_after(in, m, a->load, (unsigned int)mc, dm, c, on(in, jb, c));
				if (np < best && vec_fits(in, a, c) && spread_fits(in, a, j, c)) {
					best = np;
					bj = (int)j;
					bc = (int)c;
					bk = -1;
				}
			}
			for (unsigned int k = 0; k < in->nj; k++) {
				const struct job *kb = &in->job[k];
				int c = a->where[k];
				double np;

				if (c == mc || c < 0 || kb->p >= jb->p - EPS ||
				    !allowed(in, jb, (unsigned int)c) ||
				    !allowed(in, kb, (unsigned int)mc))
					continue;
				np = smt_after(in, m, a->load, (unsigned int)mc,
					       dm + on(in, kb, (unsigned int)mc), (unsigned int)c,
					       on(in, jb, (unsigned int)c) - on(in, kb, (unsigned int)c));
				if (np >= best)
					continue;
				if (in->spread) {
					int cj = a->where[j];

					if (!try_swap(in, a, j, k))
						continue;
					put(in, a, j, cj);	/* undo */
					put(in, a, k, c);
				}
				best = np;
				bj = (int)j;
				bc = c;
				bk = (int)k;
			}
		}
		if (bj < 0)
			return;
		put(in, a, (unsigned int)bj, bc);
		if (bk >= 0)
			put(in, a, (unsigned int)bk, mc);
	}
}

/* Heaviest first, each job where its CPU's eff ends lowest (as irqtune's
 * first placement ranks a CPU). */
static void smt_lpt(const struct inst *in, struct smt *m, struct asg *a)
{
	asg_reset(in, a);
	smt_sums(in, m, a->load);
	for (unsigned int j = 0; j < in->nj; j++) {
		const struct job *jb = &in->job[j];
		double bv = 0;
		int best = -1;

		for (unsigned int k = 0; k < in->ncpus[jb->set]; k++) {
			unsigned int c = in->cpus[jb->set][k];
			double v = smt_after(in, m, a->load, c, on(in, jb, c), c, 0);

			if ((best < 0 || v < bv - EPS) && vec_fits(in, a, c) &&
			    spread_fits(in, a, j, c)) {
				best = (int)c;
				bv = v;
			}
		}
		put(in, a, j, best);
		if (best >= 0)
			m->cs[in->core[best]] += on(in, jb, (unsigned int)best);
	}
}

/* prefix_max_load: the best busiest-CPU eff found, from @start (a plan
 * of the plain objective) and from smt_lpt(). */
static int smt_oracle(const struct inst *in, const struct asg *start, FILE *out,
		      const char *prefix, bool verbose)
{
	struct asg a = { 0 }, b = { 0 };
	struct smt m = { 0 };
	const struct asg *win = &a;
	double va, vb;
	int r = asg_init(in, &a);

	if (r == 0)
		r = asg_init(in, &b);
	if (r == 0)
		r = smt_init(in, &m);
	if (r < 0)
		goto out;
	asg_copy(in, &a, start);
	smt_search(in, &m, &a);
	smt_sums(in, &m, a.load);
	va = smt_eff(in, &m, a.load, (unsigned int)smt_busiest(in, &m, a.load));
	smt_lpt(in, &m, &b);
	for (unsigned int j = 0; j < in->nj; j++)
		if (b.where[j] < 0)
			goto print;	/* a job fit nowhere: the first start only */
	smt_search(in, &m, &b);
	smt_sums(in, &m, b.load);
	vb = smt_eff(in, &m, b.load, (unsigned int)smt_busiest(in, &m, b.load));
	if (vb < va) {
		va = vb;
		win = &b;
	}
print:
	fprintf(out, "%s_max_load %.6f\n", prefix, va);
	for (unsigned int j = 0; verbose && j < in->nj; j++)
		fprintf(out, "%s.irq.%u %d\n", prefix, in->s->irqs[in->job[j].irq].irq,
			win->where[j]);
out:
	smt_free(&m);
	asg_free(&a);
	asg_free(&b);
	return r;
}

int sim_oracle(const struct sim *s, FILE *out, bool verbose)
{
	struct inst in;
	struct asg best = { 0 }, sbest = { 0 }, abest = { 0 };
	const char *method, *smethod, *amethod;
	double lb, ub, slb, sub, alb, aub, sb, target;
	unsigned int *sets = NULL;
	int r, mv_lb, mv_greedy;

	r = inst_init(&in, s);
	if (r == 0)
		r = asg_init(&in, &best);
	if (r == 0)
		r = asg_init(&in, &sbest);
	if (r == 0)
		r = asg_init(&in, &abest);
	if (r == 0)
		r = solve(&in, &best, &ub, &lb, &method);
	if (r < 0)
		goto out;
	in.spread = true;
	r = solve(&in, &sbest, &sub, &slb, &smethod);
	in.spread = false;
	if (r < 0)
		goto out;
	/* Without NUMA locality: what keeping IRQs on their device's node
	 * costs, and what a yardstick that ignores it would call the best. */
	sets = malloc((in.nj + 1) * sizeof(*sets));
	if (!sets) {
		r = -ENOMEM;
		goto out;
	}
	for (unsigned int j = 0; j < in.nj; j++) {
		sets[j] = in.job[j].set;
		in.job[j].set = 0;
	}
	r = solve(&in, &abest, &aub, &alb, &amethod);
	for (unsigned int j = 0; j < in.nj; j++)
		in.job[j].set = sets[j];
	if (r < 0)
		goto out;
	/* the spreading rule only constrains: its bound is the plain one's */
	if (slb < lb)
		slb = lb;
	sb = sim_lower_bound(s);
	print_solution(out, "oracle", ub, lb, sb, method);
	print_solution(out, "oracle_spread", sub, slb, sb, smethod);
	print_solution(out, "oracle_any_node", aub, alb, sb, amethod);
	/* the ratio target: within 5% of the best, and 1.10 where the best
	 * reaches it; and what reaching it from here takes */
	target = ub * 1.05;
	if (sb > 0 && ub <= 1.10 * sb && 1.10 * sb < target)
		target = 1.10 * sb;
	moves_needed(&in, target, &mv_lb, &mv_greedy);
	fprintf(out, "oracle_target %.6f\n", target);
	fprintf(out, "oracle_moves_lb %d\n", mv_lb);
	fprintf(out, "oracle_moves_greedy %d\n", mv_greedy);
	fprintf(out, "oracle_jobs %u\n", in.nj);
	r = smt_oracle(&in, &best, out, "oracle_smt", verbose);
	if (r == 0) {
		in.spread = true;
		r = smt_oracle(&in, &sbest, out, "oracle_smt_spread", verbose);
		in.spread = false;
	}
	if (r < 0)
		goto out;
	if (s->nr_threads)
		r = whole_oracle(s, &in, out, "oracle", verbose);
	if (s->nr_threads && r == 0) {
		in.spread = true;
		r = whole_oracle(s, &in, out, "oracle_spread", verbose);
		in.spread = false;
	}
	if (verbose)
		for (unsigned int j = 0; j < in.nj; j++)
			fprintf(out, "oracle.irq.%u %d %d\n", s->irqs[in.job[j].irq].irq,
				best.where[j], sbest.where[j]);
out:
	free(sets);
	asg_free(&best);
	asg_free(&sbest);
	asg_free(&abest);
	inst_free(&in);
	return r;
}

/* ---- rule figures of the current placement ----------------------------- */

static bool is_nic(const struct sim *s, const struct sim_irq *q)
{
	const char *kind;

	if (q->dev < 0)
		return false;
	kind = s->devs[q->dev].kind;
	return !strcmp(kind, "nic") || !strcmp(kind, "virtio-net") ||
	       !strcmp(kind, "idle-irqs");
}

static bool busy_at(const struct sim *s, const struct sim_irq *q)
{
	return sim_irq_load(q) >= SIM_BUSY_LOAD && q->eff >= 0 &&
	       s->cpu[q->eff].online;
}

/* Distinct physical cores among @cpus. */
static unsigned int count_cores(const struct sim *s, const unsigned int *cpus,
				unsigned int n)
{
	unsigned int cores = 0;

	for (unsigned int k = 0; k < n; k++) {
		bool dup = false;

		for (unsigned int j = 0; j < k && !dup; j++)
			dup = core_key(&s->cpu[cpus[j]]) == core_key(&s->cpu[cpus[k]]);
		cores += !dup;
	}
	return cores;
}

/* Whether some eligible core of @set has no CPU for which @bad() holds. */
static bool free_core(const struct inst *in, unsigned int set, const bool *bad)
{
	const struct sim *s = in->s;

	for (unsigned int k = 0; k < in->ncpus[set]; k++) {
		long key = core_key(&s->cpu[in->cpus[set][k]]);
		bool clean = true;

		for (unsigned int c = 0; c < in->n && clean; c++)
			if (s->cpu[c].online && core_key(&s->cpu[c]) == key)
				clean = !bad[c];
		if (clean)
			return true;
	}
	return false;
}

/* The fair share of @total idle IRQs over the CPUs of @set: the least
 * level L at which the CPUs, each taking L or as many as it has vectors
 * for (x86: its vectors less the other IRQs on it), take them all. Where
 * no CPU runs short that is ceil(total / CPUs). */
static int fair_share(const struct inst *in, unsigned int set, unsigned int total)
{
	const struct sim *s = in->s;
	unsigned int n = in->ncpus[set], level = (total + n - 1) / n;

	if (s->isa != ISA_X86)
		return (int)level;
	for (; level < total; level++) {
		unsigned long room = 0;

		for (unsigned int k = 0; k < n; k++) {
			unsigned int c = in->cpus[set][k];
			/* its vectors less what stays there (not this set's
			 * idle IRQs, counted in @total) */
			unsigned int v = sim_vectors(s, c), other = 0, cap;

			for (unsigned int i = 0; i < s->nr_irqs; i++) {
				const struct sim_irq *q = &s->irqs[i];

				other += q->eff == (int)c &&
					 (q->managed || set_of(in, q) != set ||
					  sim_irq_load(q) >= SIM_BUSY_LOAD);
			}
			cap = v > other ? v - other : 0;
			room += cap < level ? cap : level;
		}
		if (room >= total)
			break;
	}
	return (int)level;
}

int sim_rules(const struct sim *s, FILE *out)
{
	struct inst in;
	unsigned int n = s->nr_cpus;
	unsigned int *cpus = calloc(s->nr_irqs + 1, sizeof(*cpus));
	unsigned int *cnt = calloc(n + 1, sizeof(*cnt));
	bool *nicbusy = calloc(n + 1, sizeof(*nicbusy));
	bool *heavy = calloc(n + 1, sizeof(*heavy));
	unsigned int mq = 0, short_devs = 0, missing = 0;
	unsigned int shared = 0, shared_avoid = 0, smt = 0, smt_avoid = 0;
	int excess = 0, worst_max = 0, worst_fair = 0;
	bool any = false;
	int r;

	r = inst_init(&in, s);
	if (r == 0 && (!cpus || !cnt || !nicbusy || !heavy))
		r = -ENOMEM;
	if (r < 0)
		goto out;
	for (unsigned int i = 0; i < s->nr_irqs; i++) {
		const struct sim_irq *q = &s->irqs[i];

		if (!busy_at(s, q))
			continue;
		heavy[q->eff] = true;
		if (is_nic(s, q))
			nicbusy[q->eff] = true;
	}
	fprintf(out, "rules_busy_load %.6f\n", SIM_BUSY_LOAD);
	/* Multi-queue devices: distinct cores of their busy movable IRQs
	 * against min(those IRQs, eligible cores of their allowed set). */
	for (unsigned int d = 0; d < s->nr_devs; d++) {
		unsigned int nq = 0, set = 0, target, got;

		for (unsigned int i = 0; i < s->nr_irqs; i++) {
			const struct sim_irq *q = &s->irqs[i];

			if (q->dev != (int)d || q->managed || !busy_at(s, q))
				continue;
			cpus[nq++] = (unsigned int)q->eff;
			set = set_of(&in, q);
		}
		if (nq < 2)
			continue;
		mq++;
		target = count_cores(s, in.cpus[set], in.ncpus[set]);
		if (nq < target)
			target = nq;
		got = count_cores(s, cpus, nq);
		if (got < target) {
			short_devs++;
			missing += target - got;
		}
		fprintf(out, "dev.%s.spread_cores %u\n", s->devs[d].name, got);
		fprintf(out, "dev.%s.spread_target %u\n", s->devs[d].name, target);
	}
	fprintf(out, "spread_devices %u\n", mq);
	fprintf(out, "spread_short_devices %u\n", short_devs);
	fprintf(out, "spread_missing_cores %u\n", missing);
	/* Cores with busy queues of two NICs, and whether a core of that node
	 * (of the machine on one node) had no busy NIC queue at all. */
	for (unsigned int c = 0; c < n; c++) {
		int first = -1;
		bool two = false, leader = true;

		if (!s->cpu[c].online)
			continue;
		for (unsigned int o = 0; o < c && leader; o++)
			leader = !(s->cpu[o].online &&
				   core_key(&s->cpu[o]) == core_key(&s->cpu[c]));
		if (!leader)
			continue;
		for (unsigned int i = 0; i < s->nr_irqs && !two; i++) {
			const struct sim_irq *q = &s->irqs[i];

			if (!is_nic(s, q) || !busy_at(s, q) ||
			    core_key(&s->cpu[q->eff]) != core_key(&s->cpu[c]))
				continue;
			if (first < 0)
				first = q->dev;
			else if (first != q->dev)
				two = true;
		}
		if (!two)
			continue;
		shared++;
		if (free_core(&in, in.nsets > 1 && s->cpu[c].node >= 0 ?
			      (unsigned int)s->cpu[c].node + 1 : 0, nicbusy))
			shared_avoid++;
	}
	fprintf(out, "nic_shared_cores %u\n", shared);
	fprintf(out, "nic_shared_avoidable %u\n", shared_avoid);
	/* Busy non-NIC IRQs on an SMT sibling of a CPU with a busy NIC queue;
	 * avoidable when their allowed set had a core with no busy IRQ. */
	for (unsigned int i = 0; i < s->nr_irqs; i++) {
		const struct sim_irq *q = &s->irqs[i];
		bool next = false;

		if (q->managed || is_nic(s, q) || !busy_at(s, q))
			continue;
		for (unsigned int c = 0; c < n && !next; c++)
			next = (int)c != q->eff && s->cpu[c].online && nicbusy[c] &&
			       core_key(&s->cpu[c]) == core_key(&s->cpu[q->eff]);
		if (!next)
			continue;
		smt++;
		if (free_core(&in, set_of(&in, q), heavy))
			smt_avoid++;
	}
	fprintf(out, "smt_next_to_nic %u\n", smt);
	fprintf(out, "smt_next_to_nic_avoidable %u\n", smt_avoid);
	/* Idle movable IRQs per CPU against their set's fair share: busy ones
	 * are placed by load, idle ones only by count. */
	for (unsigned int set = 0; set < in.nsets; set++) {
		unsigned int total = 0;
		int fair, top = 0;

		if (!in.ncpus[set])
			continue;
		memset(cnt, 0, n * sizeof(*cnt));
		for (unsigned int i = 0; i < s->nr_irqs; i++) {
			const struct sim_irq *q = &s->irqs[i];

			if (q->managed || set_of(&in, q) != set ||
			    sim_irq_load(q) >= SIM_BUSY_LOAD)
				continue;
			total++;
			if (q->eff >= 0 && s->cpu[q->eff].online)
				cnt[q->eff]++;
		}
		if (!total)
			continue;
		fair = fair_share(&in, set, total);
		for (unsigned int c = 0; c < n; c++)
			if ((int)cnt[c] > top)
				top = (int)cnt[c];
		if (!any || top - fair > excess) {
			any = true;
			excess = top - fair;
			worst_max = top;
			worst_fair = fair;
		}
	}
	fprintf(out, "count_max %d\n", worst_max);
	fprintf(out, "count_fair %d\n", worst_fair);
	fprintf(out, "count_excess %d\n", excess);
out:
	free(cpus);
	free(cnt);
	free(nicbusy);
	free(heavy);
	inst_free(&in);
	return r;
}
