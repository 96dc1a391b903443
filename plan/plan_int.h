/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plan_int.h - what the planner's three files share, and nothing outside
 * them includes: the state of one plan_compute() (struct plan_ctx), the
 * tallies the rules keep, and the calls between the rules (plan.c), the
 * ranking index (plan_index.c) and the improvement passes (plan_improve.c).
 * The contract with the rest of irqtune is plan.h alone: its symbols are
 * static, or carry the plan_ prefix, and no other file includes this one.
 *
 * Adding a placement rule:
 *  1. Its input goes into struct plan_policy or struct plan_irq (plan.h),
 *     filled by run/planrun.c (or policy.c); a new reason for the report
 *     into enum plan_reason and plan_reason_text().
 *  2. Any state it keeps goes into struct plan_ctx, set up in ctx_init(),
 *     kept by plan_tally() and plan_account() in both directions (sign),
 *     cleared by plan_reset().
 *  3. Its judgement: plan_is_candidate() where it rules a CPU out,
 *     plan_score_of() and plan_score_cmp() where it ranks CPUs.
 *     plan_rank_cpus() (plan_index.c) answers from queues ordered by load
 *     and count alone: a rule that ranks on anything else sets a flag that
 *     makes it scan, as hetero and full_any do, or keeps its own index
 *     there. The passes of plan_improve.c move and swap IRQs outside
 *     plan_rank_cpus(): each move they accept must pass the rule too (as
 *     vec_room() does there).
 *  4. Keep the rule off where its input is absent (no input, every path
 *     as before: capacity where CPUs are alike, vectors where no limit is
 *     known, application load where none is), and say so in a test that
 *     plans with the input neutral and compares (test_plan.c's
 *     test_alike_capacity_plans_as_before, test_vectors_plenty_plans_as_before,
 *     test_app_alike_plans_as_without).
 *
 * The reference planner, tests/unit/plan_ref.c, is the planner before
 * plan_rank_cpus() had an index: every IRQ ranks every candidate CPU by a scan.
 * test_plan_matches_reference holds the planner to it, IRQ for IRQ, on
 * thousands of random machines of alike CPUs without vector limits or
 * application load. It is never made faster or shares code with these
 * files; but a rule that changes plans on those machines must be added
 * to it as well, written its way (a scan, no index), in the same commit,
 * as 37b8cff and 3af2342 did: then the comparison checks the index and the
 * passes against an independent count. A rule kept off there (step 4)
 * leaves it as it is. The comparison also runs every other machine with
 * capacity and vector rules on where they bind nowhere (one capacity on
 * every CPU, limits above the IRQ count: random_case_loose()); where they
 * bind, or application load is known, it cannot follow: the reference has
 * no weights, vectors or application load, and teaching it them would
 * write the rules a second time in the same shape, checking nothing. Those
 * rules are held to properties instead (test_plan.c's test_capacity_*,
 * test_vectors_* and test_app_*). */
#ifndef IRQTUNE_PLAN_INT_H
#define IRQTUNE_PLAN_INT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* plan_rank_cpus()'s queues (plan_index.c), built once by plan_classes_init() and
 * brought up to the tallies at each query. */
struct rank_index {
	struct elig *cls;	/* eligibility classes */
	unsigned int nr_cls;
	unsigned int *irq_cls;	/* per IRQ: its class */
	/* Per class, counted once: the physical cores among its CPUs, and
	 * those with a CPU that is not full (full_any only). plan_spread_cap()
	 * shares a device's queues over them. */
	unsigned int *cls_cores, *cls_room;
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

/* One plan_compute(): the machine as the rules see it, the tallies of the
 * plan being built, and the index and heaps kept in step with them. */
struct plan_ctx {
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
	int *on;		/* per IRQ: CPU whose load it carries, -1 none */
	int *head, *next, *prev;	/* IRQs per CPU, for the improve step */
	double eps;		/* loads closer than this are equal */
	/* Per CPU: what one CPU of load costs there, the biggest CPU's
	 * capacity over its own (1.0 everywhere on a machine of alike CPUs,
	 * where every product with it is exact: plans stay as they were).
	 * load, core_load and every comparison of them are in these units. */
	double *w;
	bool hetero;		/* CPUs differ: plan_rank_cpus() scans */
	const unsigned int *vec;	/* policy's vec_avail, NULL: no limit */
	unsigned int *arrive;	/* per CPU: IRQs on it that need a new vector */
	int vec_hit;		/* plan_rank_cpus(): best CPU skipped for vectors, -1 */
	struct cpu_heap *heap[2];	/* plan_improve()'s, kept by move_irq() */
	/* Pinned application load (policy->app), where some CPU has any;
	 * has_app false and the three NULL otherwise, and every path the
	 * planner took before it knew of applications is taken unchanged. */
	bool has_app;
	double *app_w;		/* per CPU: its application load, weighed by w */
	unsigned int *mob;	/* per CPU: busy movable IRQs on it */
	/* Per CPU: its load where it carries a busy movable IRQ, else 0.
	 * The level of a plan is the highest of these: a CPU whose load is
	 * all fixed (an application's, kernel-managed IRQs') is the same in
	 * every plan and says nothing about where IRQs should go, while it
	 * would hide every difference between plans below it. */
	double *lvl;
	/* Some eligible CPU is full (app_full()): plan_rank_cpus() scans, and
	 * where a class has cores with room (rank_index.cls_room), its full
	 * CPUs count as cores already holding a device's share of queues
	 * (plan_score_of()). */
	bool full_any;
	struct rank_index ix;
};

/* How an IRQ would fare on a CPU; compared field by field. */
struct plan_score {
	unsigned int same_dev;	/* its device's queues on that core */
	unsigned int other_nic;	/* other NICs' busy queues on that core */
	double load;		/* CPU load with it */
	double sibling;		/* load of the rest of the core */
	unsigned int count;	/* IRQs on the CPU */
	int cpu;
};

/* Inline: scoring calls these for every CPU it looks at. */
static inline uint64_t gc_key(int group, int core)
{
	return ((uint64_t)(unsigned int)group + 1) << 32 | (uint32_t)core;
}

/* The top bits of a Fibonacci hash: they depend on every bit of the key.
 * Bits 20 to 31 of it, as taken before, never saw the device (bits 32 and
 * up of the key) in a table of up to 4,096 slots, so every device's entry
 * for a core probed one cluster: plan_score_of() took 6.9 M instructions on
 * make bench's big machine, 3.9 M with this. */
static inline size_t gc_hash(const struct plan_ctx *c, uint64_t key)
{
	return (size_t)((key * 0x9E3779B97F4A7C15ull) >> c->gc_shift);
}

static inline struct gc_entry *gc_slot(struct plan_ctx *c, int group, int core)
{
	uint64_t key = gc_key(group, core);
	size_t i = gc_hash(c, key);

	while (c->gc[i].key && c->gc[i].key != key)
		i = (i + 1) & (c->gc_cap - 1);
	c->gc[i].key = key;
	return &c->gc[i];
}

static inline unsigned int gc_get(struct plan_ctx *c, int group, int core)
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

/* What IRQ @pi weighs on @cpu. */
static inline double lw(const struct plan_ctx *c, const struct plan_irq *pi, int cpu)
{
	return pi->load * c->w[cpu];
}

/* What of @cpu's load IRQs make: the part a relative threshold is a
 * share of (all of it where no application load is known). */
static inline double irq_part(const struct plan_ctx *c, int cpu)
{
	return c->has_app ? c->load[cpu] - c->app_w[cpu] : c->load[cpu];
}

/* Whether @cpu runs pinned application threads (PLAN_APP_BUSY of it or
 * more): IRQ work there is taken from them, so for the spreading rule it
 * has no room while other cores have some. Not only a CPU near 100%: a
 * database at 70% on six of eight cores drew six of its NIC's eight
 * queues onto itself, one per core, while the two free cores had room
 * for all of them (tests/sim/machines/app-db.txt). */
static inline bool app_full(const struct plan_ctx *c, int cpu)
{
	return c->has_app && c->app_w[cpu] >= PLAN_APP_BUSY;
}

/* The CPU whose vector @pi holds now, -1 none known. */
static inline int holds(const struct plan_irq *pi)
{
	return pi->pinned >= 0 ? pi->pinned : pi->served;
}

/* Whether @pi may arrive on @cpu as far as vectors go; @leaving: an IRQ
 * that leaves @cpu at the same time (a swap), NULL none. */
static inline bool vec_room(const struct plan_ctx *c, const struct plan_irq *pi, int cpu,
			    const struct plan_irq *leaving)
{
	unsigned int used;

	if (!c->vec || cpu == holds(pi) || c->vec[cpu] == UINT_MAX)
		return true;
	used = c->arrive[cpu];
	if (leaving && !leaving->fixed && holds(leaving) != cpu && used > 0)
		used--;
	return used < c->vec[cpu];
}

static inline bool is_heavy(const struct plan_ctx *c, const struct plan_irq *pi)
{
	return pi->load >= c->pol->idle_load;
}

/* Busy queues of one device spread over cores only if it has several. Idle
 * vectors (a NIC's misc vector, unused SR-IOV queues) are no queues here:
 * they neither claim a core nor widen a device's share of one. */
static inline bool multiqueue(const struct plan_ctx *c, const struct plan_irq *pi)
{
	return pi->group >= 0 && (unsigned int)pi->group < c->nr_groups &&
	       is_heavy(c, pi) && c->group_busy[pi->group] > 1;
}

static inline int core_of(const struct plan_ctx *c, int cpu)
{
	int core = c->topo->cpus[cpu].core;

	return core >= 0 && (unsigned int)core < c->topo->nr_ids ? core : cpu;
}

/* Site policy narrows the candidates; it never widens them. */
static inline bool allowed(const struct plan_irq *pi, int cpu)
{
	return !pi->allowed || cpuset_test(pi->allowed, (unsigned int)cpu);
}

/* The tallies of @core changed: the next query re-buckets its CPUs. */
static inline void mark_dirty(struct plan_ctx *c, int core)
{
	if (c->ix.dirty[core])
		return;
	c->ix.dirty[core] = 1;
	c->ix.dirty_list[c->ix.nr_dirty++] = core;
}

/* plan.c: the rules and the tallies they are judged on. */
unsigned int plan_count_cores(struct plan_ctx *c, const int *cpus, unsigned int n);
void plan_tally(struct plan_ctx *c, unsigned int i, int cpu, int sign);
void plan_account(struct plan_ctx *c, unsigned int i, int cpu, int sign);
bool plan_is_candidate(const struct plan_ctx *c, const struct plan_irq *pi, int cpu);
struct plan_score plan_score_of(struct plan_ctx *c, const struct plan_irq *pi, int cpu);
int plan_score_cmp(const struct plan_ctx *c, bool heavy, const struct plan_score *a,
	      const struct plan_score *b);
unsigned int plan_spread_cap(const struct plan_ctx *c, const struct plan_irq *pi);
enum plan_reason plan_forced_reason(const struct plan_ctx *c, const struct plan_irq *pi);
void plan_reset(struct plan_ctx *c);
void plan_spread_idle(struct plan_ctx *c);
double plan_level_of(const struct plan_ctx *c);
unsigned int plan_vec_over(const struct plan_ctx *c);

/* plan_index.c: the ranking index. */
int plan_classes_init(struct plan_ctx *c);
void plan_classes_release(struct plan_ctx *c);
/* The CPUs an IRQ may go to: its node's eligible CPUs, or every eligible
 * CPU when the node is unknown or has none (the only spill-over rule). Site
 * policy (allowed) can only narrow this; a node it rules out entirely is
 * treated as having no eligible CPU. Worked out once per class. */
const int *plan_candidates(const struct plan_ctx *c, const struct plan_irq *pi,
		      unsigned int *n);
unsigned int plan_rank_cpus(struct plan_ctx *c, const struct plan_irq *pi,
		       struct plan_score *best, unsigned int nbest);
void plan_gcl_add(struct plan_ctx *c, unsigned int g, struct gc_entry *e, int core);
void plan_gcl_del(struct plan_ctx *c, unsigned int g, struct gc_entry *e);

/* plan_improve.c: the passes over a built plan. */
int plan_improve(struct plan_ctx *c, double stop);
int plan_relabel(struct plan_ctx *c, double goal);
int plan_revert_moves(struct plan_ctx *c, double goal);

#endif
