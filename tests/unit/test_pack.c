// SPDX-License-Identifier: GPL-2.0-or-later
/* test_pack.c - placement = pack's pool on in-memory machines: how many
 * cores a load needs, which ones, whole SMT cores, one pool part per
 * node, a heavy IRQ, the pool kept from run to run, and the IRQs
 * narrowed to it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>

#include "pack.h"
#include "topology.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define IDLE	PLAN_DEFAULT_IDLE_LOAD

/* @cores cores x @threads threads, numbered like x86 (a core's second
 * thread after every first one), the cores split evenly over @nodes
 * nodes (0: a machine without node information). */
static struct topology *machine(int cores, int threads, int nodes)
{
	int n = cores * threads;
	struct topology *t = topology_new((unsigned int)n);

	assert_non_null(t);
	for (int id = 0; id < n; id++) {
		int core = id % cores;

		t->cpus[id].online = true;
		t->cpus[id].core = core;
		t->cpus[id].package = 0;
		t->cpus[id].llc = 0;
		t->cpus[id].node = nodes ? core * nodes / cores : -1;
	}
	t->nr_nodes = nodes;
	topology_update_sets(t);
	return t;
}

static struct plan_irq irq(unsigned int num, int node, double load)
{
	return (struct plan_irq){ .irq = num, .node = node, .pinned = 0, .served = 0,
				  .load = load, .group = -1 };
}

static void compute(const struct topology *t, const double *app, const struct plan_irq *irqs,
		    unsigned int nr, double target, const struct pack_state *prev,
		    struct pack_result *res)
{
	const struct pack_input in = {
		.topo = t, .app = app, .irqs = irqs, .nr = nr, .idle_load = IDLE,
		.target = target, .prev = prev,
	};

	assert_int_equal(pack_compute(&in, res), 0);
}

static void assert_pool(const struct pack_result *res, const char *want)
{
	char got[256];

	assert_int_equal(cpulist_format(res->pool, got, sizeof(got)), 0);
	assert_string_equal(got, want);
}

/* The cores a load needs: first-fit decreasing under the target, no CPU
 * of the pool above it. Worked out by hand from the loads. */
static void test_sizes(void **state)
{
	static const struct {
		double target;
		double loads[8];
		unsigned int need;
		const char *pool;
	} cases[] = {
		{ 0.5, { 0.2, 0.2, 0.2, 0.2, 0.2, 0.2 }, 3, "0-2" },	/* two a CPU */
		{ 0.5, { 0.3, 0.3, 0.3, 0.3 }, 4, "0-3" },		/* one a CPU */
		{ 0.5, { 0.3, 0.2, 0.3, 0.2 }, 2, "0-1" },		/* pairs to 0.5 */
		{ 0.5, { 0.001 }, 1, "0" },
		{ 1.0, { 0.3, 0.3, 0.3, 0.3 }, 2, "0-1" },
		{ 0.05, { 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3 }, 8, "0-7" },	/* every CPU */
		{ 0.05, { 0.01, 0.01, 0.01, 0.01, 0.01, 0.01 }, 2, "0-1" },
		{ 0.5, { 0 }, 1, "0" },				/* idle: one core */
	};
	struct topology *t = machine(8, 1, 1);

	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
		struct plan_irq irqs[8];
		unsigned int n = 0;
		struct pack_result res;

		for (; n < 8 && (n == 0 || cases[k].loads[n] > 0); n++)
			irqs[n] = irq(40 + n, 0, cases[k].loads[n]);
		compute(t, NULL, irqs, n, cases[k].target, NULL, &res);
		assert_int_equal(res.need[0], cases[k].need);
		assert_int_equal(res.state.nodes[0].cores, cases[k].need);
		assert_pool(&res, cases[k].pool);
		pack_result_release(&res);
	}
	topology_free(t);
}

/* The cores with the least application load; ties to the lowest id. */
static void test_least_app_load(void **state)
{
	const double app[8] = { 0.9, 0.8, 0.1, 0.5, 0.0, 0.7, 0.1, 1.0 };
	struct topology *t = machine(8, 1, 1);
	struct plan_irq irqs[] = { irq(40, 0, 0.4), irq(41, 0, 0.4), irq(42, 0, 0.4) };
	struct pack_result res;

	(void)state;
	compute(t, app, irqs, ARRAY_SIZE(irqs), 0.5, NULL, &res);
	assert_int_equal(res.need[0], 3);
	assert_pool(&res, "2,4,6");	/* 0.0, then the two at 0.1 */
	pack_result_release(&res);
	topology_free(t);
}

/* A core is taken whole: its SMT siblings with it, its application load
 * summed over them. */
static void test_smt_whole_cores(void **state)
{
	double app[8] = { 0 };
	struct topology *t = machine(4, 2, 1);	/* siblings 0/4, 1/5, 2/6, 3/7 */
	struct plan_irq irqs[] = { irq(40, 0, 0.4), irq(41, 0, 0.4), irq(42, 0, 0.4) };
	struct pack_result res;

	(void)state;
	compute(t, NULL, irqs, ARRAY_SIZE(irqs), 0.5, NULL, &res);
	assert_int_equal(res.need[0], 2);	/* three CPUs: two cores */
	assert_pool(&res, "0-1,4-5");
	pack_result_release(&res);

	app[4] = 0.9;		/* core 0's second thread runs the application */
	compute(t, app, irqs, ARRAY_SIZE(irqs), 0.5, NULL, &res);
	assert_pool(&res, "1-2,5-6");
	assert_int_equal(res.state.nodes[0].cores, 2);
	pack_result_release(&res);
	topology_free(t);
}

/* Each node sizes its own part from its own IRQs; a node with only idle
 * IRQs keeps one core for them; a node with none gets none. */
static void test_numa_per_node(void **state)
{
	struct topology *t = machine(12, 1, 3);	/* node 0: 0-3, 1: 4-7, 2: 8-11 */
	struct plan_irq irqs[] = {
		irq(40, 1, 0.4), irq(41, 1, 0.4), irq(42, 1, 0.4),
		irq(43, 0, 0.0),
		irq(44, -1, 0.3),	/* no node: counted to the first node */
	};
	struct pack_result res;

	(void)state;
	compute(t, NULL, irqs, ARRAY_SIZE(irqs), 0.5, NULL, &res);
	assert_int_equal(res.need[0], 1);
	assert_int_equal(res.need[1], 3);
	assert_int_equal(res.need[2], 0);
	assert_true(res.busy[1] > 1.2 - 1e-9 && res.busy[1] < 1.2 + 1e-9);
	assert_pool(&res, "0,4-6");
	assert_null(res.state.nodes[2].cpus);
	pack_result_release(&res);
	topology_free(t);
}

/* An IRQ heavier than the target gets a CPU of its own; the rest share
 * another. Where CPUs differ, the target scales with capacity. */
static void test_heavy_irq(void **state)
{
	struct topology *t = machine(4, 1, 1);
	struct plan_irq irqs[] = { irq(40, 0, 0.1), irq(41, 0, 0.9), irq(42, 0, 0.1),
				   irq(43, 0, 0.7) };
	struct pack_result res;

	(void)state;
	compute(t, NULL, irqs, ARRAY_SIZE(irqs), 0.5, NULL, &res);
	assert_int_equal(res.need[0], 3);	/* 0.9 | 0.7 | 0.1 + 0.1 */
	pack_result_release(&res);

	/* Half-size CPUs first in id: the bigger ones are ranked first. */
	t->cpus[0].capacity = 512;
	t->cpus[1].capacity = 512;
	t->cpus[2].capacity = 1024;
	t->cpus[3].capacity = 1024;
	irqs[1].load = 0.2;
	irqs[3].load = 0.2;
	compute(t, NULL, irqs, ARRAY_SIZE(irqs), 0.5, NULL, &res);
	assert_int_equal(res.need[0], 2);	/* 0.2 + 0.2 + 0.1 on 2, 0.1 on 3 */
	assert_pool(&res, "2-3");
	pack_result_release(&res);
	topology_free(t);
}

/* Load that cannot move (a kernel-managed queue) counts on the CPU that
 * serves it: the pool's CPUs hold it already. */
static void test_fixed_load(void **state)
{
	struct topology *t = machine(4, 1, 1);
	struct plan_irq irqs[] = { irq(40, 0, 0.3), irq(41, 0, 0.3), irq(42, 0, 0.3) };
	struct pack_result res;

	(void)state;
	compute(t, NULL, irqs, 2, 0.5, NULL, &res);
	assert_int_equal(res.need[0], 2);	/* 0.3 | 0.3 */
	pack_result_release(&res);
	irqs[2].fixed = true;		/* on CPU 0 (served), with 0.3 */
	compute(t, NULL, irqs, 3, 0.5, NULL, &res);
	assert_int_equal(res.need[0], 3);	/* 0.3 fixed, 0.3 would pass 0.5 | 0.3 | 0.3 */
	assert_pool(&res, "0-2");
	assert_true(res.busy[0] > 0.6 - 1e-9 && res.busy[0] < 0.6 + 1e-9);
	pack_result_release(&res);
	topology_free(t);
}

/* The pool grows at once, and gives back one core a run only after
 * PACK_SHRINK_RUNS runs in a row that needed fewer. */
static void test_hysteresis(void **state)
{
	static const struct {
		unsigned int prev, under, need, slack, max;
		unsigned int cores, under_after;
	} cases[] = {
		{ 0, 0, 3, 3, 8, 3, 0 },	/* no history */
		{ 2, 1, 5, 6, 8, 5, 0 },	/* grows at once */
		{ 4, 2, 4, 4, 8, 4, 0 },	/* the same: counter reset */
		{ 4, 0, 2, 2, 8, 4, 1 },
		{ 4, 2, 3, 4, 8, 4, 0 },	/* fewer, but not well under: reset */
		{ 4, PACK_SHRINK_RUNS - 2, 1, 1, 8, 4, PACK_SHRINK_RUNS - 1 },
		{ 4, PACK_SHRINK_RUNS - 1, 1, 3, 8, 3, PACK_SHRINK_RUNS },
		{ 3, PACK_SHRINK_RUNS, 1, 1, 8, 2, PACK_SHRINK_RUNS },	/* one a run */
		{ 6, 0, 9, 9, 4, 4, 0 },	/* no more than the node has */
		{ 6, 0, 1, 1, 4, 4, 1 },	/* a node that lost cores */
	};

	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
		struct pack_node prev = { .cores = cases[k].prev, .under = cases[k].under };
		struct pack_node now = { 0 };

		pack_hysteresis(cases[k].need, cases[k].slack, &prev, cases[k].max, &now);
		assert_int_equal(now.cores, cases[k].cores);
		assert_int_equal(now.under, cases[k].under_after);
	}
}

/* Run to run, through the state each run leaves: a load that falls
 * keeps its pool for a while, one that rises gets it at once. */
static void test_runs(void **state)
{
	/* per run: IRQs of 0.4 (one a CPU), and the pool expected */
	static const struct {
		unsigned int irqs, cores;
	} runs[] = {
		{ 4, 4 }, { 2, 4 }, { 2, 4 }, { 2, 3 }, { 2, 2 }, { 2, 2 }, { 5, 5 }, { 4, 5 },
	};
	struct topology *t = machine(8, 1, 1);
	struct pack_state st = { 0 };

	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(runs); k++) {
		struct plan_irq irqs[8];
		struct pack_result res;

		for (unsigned int i = 0; i < runs[k].irqs; i++)
			irqs[i] = irq(40 + i, 0, 0.4);
		compute(t, NULL, irqs, runs[k].irqs, 0.5, k ? &st : NULL, &res);
		assert_int_equal(res.need[0], runs[k].irqs);
		assert_int_equal(res.state.nodes[0].cores, runs[k].cores);
		assert_int_equal(cpuset_count(res.pool), runs[k].cores);
		pack_state_release(&st);
		st = res.state;		/* taken over */
		res.state = (struct pack_state){ 0 };
		pack_result_release(&res);
	}
	pack_state_release(&st);
	topology_free(t);
}

/* A load that needs a core less, but only with its CPUs near the target,
 * never counts towards shrinking: 0.44 a CPU is under 0.5, not under
 * 0.8 of it. One at 0.3 a CPU does. */
static void test_well_under(void **state)
{
	struct topology *t = machine(8, 1, 1);
	struct pack_state st = { 0 };
	struct plan_irq irqs[6];
	struct pack_result res;

	(void)state;
	for (unsigned int i = 0; i < 4; i++)
		irqs[i] = irq(40 + i, 0, 0.45);
	compute(t, NULL, irqs, 4, 0.5, NULL, &res);
	assert_int_equal(res.state.nodes[0].cores, 4);
	for (unsigned int run = 0; run < 2 * PACK_SHRINK_RUNS; run++) {
		st = res.state;
		res.state = (struct pack_state){ 0 };
		pack_result_release(&res);
		for (unsigned int i = 0; i < 6; i++)
			irqs[i] = irq(40 + i, 0, run < PACK_SHRINK_RUNS ? 0.22 : 0.15);
		compute(t, NULL, irqs, 6, 0.5, &st, &res);
		pack_state_release(&st);
		/* 0.22: 3 CPUs at 0.44, 6 under 0.4; 0.15: 2 at 0.45, 3 under 0.4 */
		assert_int_equal(res.need[0], run < PACK_SHRINK_RUNS ? 3 : 2);
		assert_int_equal(res.state.nodes[0].cores,
				 run < 2 * PACK_SHRINK_RUNS - 1 ? 4 : 3);
		assert_int_equal(res.state.nodes[0].under,
				 run < PACK_SHRINK_RUNS ? 0 : run - PACK_SHRINK_RUNS + 1);
	}
	pack_result_release(&res);
	topology_free(t);
}

/* The last pool's cores stay while the application load elsewhere is
 * only a little lower; a core clearly less loaded wins. */
static void test_sticky(void **state)
{
	double app[4] = { 0.3, 0.35, 0.4, 0.3 };
	struct topology *t = machine(4, 1, 1);
	struct plan_irq irqs[] = { irq(40, 0, 0.4), irq(41, 0, 0.4) };
	struct pack_result first, res;

	(void)state;
	compute(t, app, irqs, ARRAY_SIZE(irqs), 0.5, NULL, &first);
	assert_pool(&first, "0,3");
	app[1] = 0.25;		/* a wobble: less than PACK_STICKY below */
	compute(t, app, irqs, ARRAY_SIZE(irqs), 0.5, &first.state, &res);
	assert_pool(&res, "0,3");
	pack_result_release(&res);
	app[1] = 0.0;		/* clearly less loaded now */
	compute(t, app, irqs, ARRAY_SIZE(irqs), 0.5, &first.state, &res);
	assert_pool(&res, "0-1");
	pack_result_release(&res);
	pack_result_release(&first);
	topology_free(t);
}

/* Without node information the machine is one pool part. */
static void test_no_nodes(void **state)
{
	struct topology *t = machine(6, 1, 0);
	struct plan_irq irqs[] = { irq(40, -1, 0.4), irq(41, -1, 0.4), irq(42, 3, 0.1) };
	struct pack_result res;

	(void)state;
	compute(t, NULL, irqs, ARRAY_SIZE(irqs), 0.5, NULL, &res);
	assert_int_equal(res.state.nr_nodes, 1);
	assert_int_equal(res.need[0], 2);
	assert_pool(&res, "0-1");
	pack_result_release(&res);
	topology_free(t);
}

/* Movable IRQs are narrowed to the pool (to its part of their own set);
 * an own set with no pool CPU stands; fixed IRQs are left alone, and
 * their load sizes nothing. */
static void test_narrow(void **state)
{
	struct topology *t = machine(8, 1, 1);
	struct cpuset *meet = cpuset_new(8), *apart = cpuset_new(8);
	struct plan_irq irqs[] = { irq(40, 0, 0.4), irq(41, 0, 0.4), irq(42, 0, 0.0),
				   irq(43, 0, 0.9), irq(44, 0, 0.1) };
	struct pack_result res;
	char got[64];

	(void)state;
	assert_int_equal(cpulist_parse("1,5", meet), 0);
	assert_int_equal(cpulist_parse("6-7", apart), 0);
	for (unsigned int i = 0; i < ARRAY_SIZE(irqs); i++)
		irqs[i].group = 5;
	irqs[1].allowed = meet;
	irqs[3].fixed = true;
	irqs[4].allowed = apart;
	compute(t, NULL, irqs, ARRAY_SIZE(irqs), 0.5, NULL, &res);
	/* CPU 0 is full with the fixed IRQ: ranked last. 0.4 anywhere, 0.4
	 * on 1 or 5 (sizing looks at no own set), 0.1 on 6-7. */
	assert_int_equal(res.need[0], 2);
	assert_pool(&res, "1-2");
	assert_int_equal(pack_narrow(&res, irqs, ARRAY_SIZE(irqs)), 0);
	assert_ptr_equal(irqs[0].allowed, res.pool);
	assert_ptr_equal(irqs[2].allowed, res.pool);	/* idle: follows the pool */
	assert_int_equal(cpulist_format(irqs[1].allowed, got, sizeof(got)), 0);
	assert_string_equal(got, "1");
	assert_null(irqs[3].allowed);
	assert_ptr_equal(irqs[4].allowed, apart);
	assert_int_equal(res.nr_narrowed, 3);
	assert_int_equal(irqs[0].group, -1);	/* packed queues share cores */
	assert_int_equal(irqs[3].group, 5);
	assert_int_equal(irqs[4].group, 5);
	assert_int_equal(res.nr_kept, 1);
	pack_result_release(&res);
	cpuset_free(meet);
	cpuset_free(apart);
	topology_free(t);
}

static void test_no_cpu(void **state)
{
	struct topology *t = machine(2, 1, 1);
	struct plan_irq irqs[] = { irq(40, 0, 0.4) };
	const struct pack_input in = { .topo = t, .irqs = irqs, .nr = 1, .target = 0.5 };
	struct pack_result res;

	(void)state;
	t->cpus[0].avoid = AVOID_BANNED;
	t->cpus[1].avoid = AVOID_ISOLATED;
	topology_update_sets(t);
	assert_int_equal(pack_compute(&in, &res), -ENOSPC);
	topology_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_least_app_load),
		cmocka_unit_test(test_smt_whole_cores),
		cmocka_unit_test(test_numa_per_node),
		cmocka_unit_test(test_heavy_irq),
		cmocka_unit_test(test_fixed_load),
		cmocka_unit_test(test_hysteresis),
		cmocka_unit_test(test_runs),
		cmocka_unit_test(test_well_under),
		cmocka_unit_test(test_sticky),
		cmocka_unit_test(test_no_nodes),
		cmocka_unit_test(test_narrow),
		cmocka_unit_test(test_no_cpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
