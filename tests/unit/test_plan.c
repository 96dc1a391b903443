// SPDX-License-Identifier: GPL-2.0-or-later
/* test_plan.c - properties of the pure planner on in-memory machines. */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>

#include "plan.h"
#include "plan_ref.h"
#include "topology.h"

static const struct plan_policy pol = {
	.threshold = PLAN_DEFAULT_THRESHOLD,
	.idle_load = PLAN_DEFAULT_IDLE_LOAD,
};

/* packages x cores x threads, ids numbered like Linux on x86: the second
 * SMT thread of every core comes after all first threads. */
static struct topology *machine(int packages, int cores, int threads, int nodes)
{
	int n = packages * cores * threads;
	struct topology *t = topology_new((unsigned int)n);

	assert_non_null(t);
	for (int id = 0; id < n; id++) {
		int first = id % (packages * cores);
		int pkg = first / cores;

		t->cpus[id].online = true;
		t->cpus[id].core = first;
		t->cpus[id].package = pkg;
		t->cpus[id].llc = pkg * cores;
		t->cpus[id].node = nodes > 1 ? pkg * nodes / packages : 0;
		t->cpus[id].avoid = 0;
	}
	t->nr_nodes = nodes;
	topology_update_sets(t);
	return t;
}

static struct plan_irq irq(unsigned int num, enum irq_class class, int group,
			   int node, int pinned, double load)
{
	struct plan_irq p = {
		.irq = num, .class = class, .group = group, .node = node,
		.pinned = pinned, .served = pinned, .load = load,
	};
	return p;
}

static void plan_ok(struct topology *t, struct plan_irq *v, unsigned int n,
		    struct plan_result *res)
{
	assert_int_equal(plan_compute(t, v, n, &pol, res), 0);
	for (unsigned int i = 0; i < n; i++) {
		if (v[i].fixed) {
			assert_int_equal(v[i].target, -1);
			continue;
		}
		/* Every movable IRQ lands on one eligible CPU. */
		assert_true(v[i].target >= 0);
		assert_true(cpuset_test(t->eligible, (unsigned int)v[i].target));
	}
}

/* The plan as the new current state, as a second run would see it. */
static void settle_in(struct plan_irq *v, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		if (v[i].fixed)
			continue;
		v[i].pinned = v[i].target;
		v[i].served = v[i].target;
	}
}

static double peak(const struct plan_result *res, unsigned int ids)
{
	double p = 0;

	for (unsigned int c = 0; c < ids; c++)
		if (res->after[c] > p)
			p = res->after[c];
	return p;
}

/* The busiest CPU as the planner judges it on SMT machines: its load plus
 * half of the rest of its core's (plan_int.h, struct ctx). */
static double smt_peak(const struct plan_result *res, const struct topology *t)
{
	double p = 0;

	for (unsigned int c = 0; c < t->nr_ids; c++) {
		double e = res->after[c];

		if (!t->cpus[c].online || t->cpus[c].avoid)
			continue;
		for (unsigned int s = 0; s < t->nr_ids; s++)
			if (s != c && t->cpus[s].online && t->cpus[s].core == t->cpus[c].core &&
			    t->cpus[s].package == t->cpus[c].package)
				e += res->after[s] / 2;
		if (e > p)
			p = e;
	}
	return p;
}

/* The classic router: two NICs x 8 queues of NAPI-heavy work, an HBA with
 * cheap interrupts, a few idle legacy IRQs; everything starts on CPU 0. */
static void test_router(void **state)
{
	struct topology *t = machine(2, 4, 2, 1);
	struct plan_irq v[24];
	struct plan_result res;
	unsigned int n = 0;
	int hba = -1;

	(void)state;
	for (int q = 0; q < 8; q++)
		v[n++] = irq(100 + q, CLASS_NET, 0, 0, 0, 0.30);
	for (int q = 0; q < 8; q++)
		v[n++] = irq(200 + q, CLASS_NET, 1, 0, 0, 0.10);
	v[n++] = irq(300, CLASS_STORAGE, 2, 0, 0, 0.05);
	for (int k = 0; k < 7; k++)
		v[n++] = irq((unsigned int)k + 1, CLASS_OTHER, -1, 0, 0, 0);
	plan_ok(t, v, n, &res);

	for (int dev = 0; dev < 2; dev++) {
		int cores[16] = { 0 };

		for (unsigned int i = 0; i < 16; i++)
			if (v[i].group == dev)
				cores[t->cpus[v[i].target].core]++;
		/* Eight queues on eight distinct physical cores. */
		for (int c = 0; c < 16; c++)
			assert_true(cores[c] <= 1);
	}
	/* No CPU carries two NIC queues. */
	for (unsigned int i = 0; i < 16; i++)
		for (unsigned int j = i + 1; j < 16; j++)
			assert_int_not_equal(v[i].target, v[j].target);
	/* The HBA avoids the busy NIC's CPUs. */
	hba = v[16].target;
	for (unsigned int i = 0; i < 8; i++)
		assert_int_not_equal(v[i].target, hba);
	assert_true(peak(&res, t->nr_ids) <= 0.30 + 1e-9);
	plan_result_release(&res);
	topology_free(t);
}

static void test_avoided_cpus_are_left(void **state)
{
	struct topology *t = machine(1, 8, 1, 1);
	struct plan_irq v[8];
	struct plan_result res;

	(void)state;
	for (int id = 4; id < 8; id++)
		t->cpus[id].avoid = id < 6 ? AVOID_ISOLATED : AVOID_NOHZ_FULL;
	topology_update_sets(t);
	for (unsigned int i = 0; i < 8; i++)
		v[i] = irq(i + 10, CLASS_OTHER, -1, -1, (int)i, 0.01);
	plan_ok(t, v, 8, &res);
	for (unsigned int i = 0; i < 8; i++) {
		assert_true(v[i].target < 4);
		if (i >= 4)
			assert_int_equal(v[i].reason, REASON_AVOIDED);
	}
	plan_result_release(&res);
	topology_free(t);
}

static void test_numa_locality_and_spill(void **state)
{
	struct topology *t = machine(2, 4, 1, 2);
	struct plan_irq v[6];
	struct plan_result res;

	(void)state;
	/* Starts on node 0; its device is on node 1. */
	for (unsigned int i = 0; i < 6; i++)
		v[i] = irq(i + 40, CLASS_NET, 0, 1, 0, 0.2);
	plan_ok(t, v, 6, &res);
	for (unsigned int i = 0; i < 6; i++) {
		assert_int_equal(t->cpus[v[i].target].node, 1);
		assert_int_equal(v[i].reason, REASON_NODE);
		for (int k = 0; k < PLAN_ALTS; k++)
			if (v[i].alt[k] >= 0)
				assert_int_equal(t->cpus[v[i].alt[k]].node, 1);
	}
	plan_result_release(&res);

	/* Node 1 has no eligible CPU left: the documented spill to any node. */
	for (int id = 4; id < 8; id++)
		t->cpus[id].avoid = AVOID_BANNED;
	topology_update_sets(t);
	for (unsigned int i = 0; i < 6; i++)
		v[i] = irq(i + 40, CLASS_NET, 0, 1, 5, 0.2);
	plan_ok(t, v, 6, &res);
	for (unsigned int i = 0; i < 6; i++)
		assert_int_equal(t->cpus[v[i].target].node, 0);
	plan_result_release(&res);
	topology_free(t);
}

/* A second run under the same (or slightly noisy) load moves nothing. */
static void test_second_run_is_still(void **state)
{
	struct topology *t = machine(2, 8, 2, 2);
	struct plan_irq v[80];
	struct plan_result res;
	unsigned int n = 0;

	(void)state;
	for (int q = 0; q < 16; q++)
		v[n++] = irq(100 + (unsigned int)q, CLASS_NET, 0, 1, 0, 0.05 + 0.01 * (q % 5));
	for (int q = 0; q < 8; q++)
		v[n++] = irq(200 + (unsigned int)q, CLASS_STORAGE, 1, 0, 0, 0.02 + 0.005 * q);
	for (int k = 0; k < 40; k++)
		v[n++] = irq(300 + (unsigned int)k, CLASS_OTHER, -1, -1, 3, k % 4 ? 0 : 0.001 * k);
	plan_ok(t, v, n, &res);
	assert_true(res.nr_moves > 0);
	plan_result_release(&res);

	settle_in(v, n);
	plan_ok(t, v, n, &res);
	assert_int_equal(res.nr_moves, 0);
	plan_result_release(&res);

	/* +-4 % measurement noise changes nothing either. */
	for (unsigned int i = 0; i < n; i++)
		v[i].load *= 1 + ((int)((i * 7919) % 9) - 4) / 100.0;
	plan_ok(t, v, n, &res);
	assert_int_equal(res.nr_moves, 0);
	for (unsigned int i = 0; i < n; i++)
		assert_int_equal(v[i].reason, REASON_KEEP);
	plan_result_release(&res);
	topology_free(t);
}

static void test_balanced_machine_writes_nothing(void **state)
{
	struct topology *t = machine(1, 4, 1, 1);
	struct plan_irq v[4];
	struct plan_result res;

	(void)state;
	/* Slightly uneven but within the threshold of the best possible. */
	v[0] = irq(1, CLASS_OTHER, -1, -1, 0, 0.100);
	v[1] = irq(2, CLASS_OTHER, -1, -1, 1, 0.095);
	v[2] = irq(3, CLASS_OTHER, -1, -1, 2, 0.105);
	v[3] = irq(4, CLASS_OTHER, -1, -1, 3, 0.098);
	plan_ok(t, v, 4, &res);
	assert_int_equal(res.nr_moves, 0);
	for (unsigned int i = 0; i < 4; i++)
		assert_false(plan_moves(&v[i]));
	plan_result_release(&res);
	topology_free(t);
}

static void test_idle_irqs_spread_by_count(void **state)
{
	struct topology *t = machine(1, 8, 1, 1);
	struct plan_irq v[300];
	struct plan_result res;
	unsigned int count[8] = { 0 };

	(void)state;
	for (unsigned int i = 0; i < 300; i++)
		v[i] = irq(i + 32, CLASS_OTHER, -1, -1, 0, 0);
	plan_ok(t, v, 300, &res);
	for (unsigned int i = 0; i < 300; i++) {
		count[v[i].target]++;
		if (plan_moves(&v[i]))
			assert_int_equal(v[i].reason, REASON_IDLE);
	}
	for (int c = 0; c < 8; c++) {
		assert_true(count[c] <= 300 / 8 + 2);
		assert_true(count[c] >= 300 / 8 - 2);
	}
	plan_result_release(&res);
	topology_free(t);
}

static void test_heavy_irq_gets_its_cpu_alone(void **state)
{
	struct topology *t = machine(1, 4, 2, 1);
	struct plan_irq v[31];
	struct plan_result res;

	(void)state;
	v[0] = irq(50, CLASS_NET, 0, -1, 0, 0.9);
	for (unsigned int i = 1; i < 31; i++)
		v[i] = irq(50 + i, CLASS_OTHER, -1, -1, 0, 0.01);
	plan_ok(t, v, 31, &res);
	for (unsigned int i = 1; i < 31; i++)
		assert_int_not_equal(v[i].target, v[0].target);
	/* ... and the SMT sibling of its CPU is spared while others are free. */
	for (unsigned int i = 1; i < 31; i++)
		assert_int_not_equal(t->cpus[v[i].target].core, t->cpus[v[0].target].core);
	plan_result_release(&res);
	topology_free(t);
}

static void test_fixed_load_is_planned_around(void **state)
{
	struct topology *t = machine(1, 4, 1, 1);
	struct plan_irq v[6];
	struct plan_result res;

	(void)state;
	/* Two kernel-managed queues weigh on CPUs 0 and 1. */
	v[0] = irq(60, CLASS_STORAGE, 0, -1, 0, 0.5);
	v[1] = irq(61, CLASS_STORAGE, 0, -1, 1, 0.5);
	v[0].fixed = v[1].fixed = true;
	for (unsigned int i = 2; i < 6; i++)
		v[i] = irq(60 + i, CLASS_NET, 1, -1, 0, 0.2);
	plan_ok(t, v, 6, &res);
	/* Four queues, two free CPUs: they go to CPUs 2 and 3 first. */
	assert_true(res.after[0] <= 0.5 + 0.2 + 1e-9);
	assert_true(res.after[2] >= 0.2 - 1e-9 && res.after[3] >= 0.2 - 1e-9);
	assert_true(peak(&res, t->nr_ids) <= 0.7 + 1e-9);
	plan_result_release(&res);
	topology_free(t);
}

static void test_spread_irq_is_pinned(void **state)
{
	struct topology *t = machine(1, 2, 1, 1);
	struct plan_irq v[1];
	struct plan_result res;

	(void)state;
	v[0] = irq(9, CLASS_OTHER, -1, -1, -1, 0.01);
	v[0].served = 1;
	plan_ok(t, v, 1, &res);
	assert_true(plan_moves(&v[0]));
	assert_int_equal(v[0].reason, REASON_PIN);
	plan_result_release(&res);
	topology_free(t);
}

static void test_deterministic_lowest_cpu_wins(void **state)
{
	struct topology *t = machine(1, 4, 1, 1);
	struct plan_irq v[2], w[2];
	struct plan_result res;

	(void)state;
	v[0] = irq(1, CLASS_OTHER, -1, -1, -1, 0.1);
	v[1] = irq(2, CLASS_OTHER, -1, -1, -1, 0.1);
	memcpy(w, v, sizeof(v));
	plan_ok(t, v, 2, &res);
	plan_result_release(&res);
	plan_ok(t, w, 2, &res);
	plan_result_release(&res);
	assert_int_equal(v[0].target, 0);
	assert_int_equal(v[1].target, 1);
	/* Field by field: irq()'s padding is never set (valgrind). */
	for (unsigned int i = 0; i < 2; i++) {
		assert_int_equal(v[i].target, w[i].target);
		assert_int_equal(v[i].reason, w[i].reason);
		assert_int_equal(v[i].vec_full, w[i].vec_full);
		assert_memory_equal(v[i].alt, w[i].alt, sizeof(v[i].alt));
	}
	topology_free(t);
}

static void test_no_eligible_cpu(void **state)
{
	struct topology *t = machine(1, 2, 1, 1);
	struct plan_irq v[1] = { irq(1, CLASS_OTHER, -1, -1, 0, 0.1) };
	struct plan_result res;

	(void)state;
	t->cpus[0].avoid = t->cpus[1].avoid = AVOID_BANNED;
	topology_update_sets(t);
	assert_int_equal(plan_compute(t, v, 1, &pol, &res), -ENOSPC);
	topology_free(t);
}

static void test_alternatives_are_distinct(void **state)
{
	struct topology *t = machine(1, 8, 1, 1);
	struct plan_irq v[1] = { irq(1, CLASS_OTHER, -1, -1, -1, 0.1) };
	struct plan_result res;

	(void)state;
	plan_ok(t, v, 1, &res);
	for (int k = 0; k < PLAN_ALTS; k++) {
		assert_true(v[0].alt[k] >= 0);
		assert_int_not_equal(v[0].alt[k], v[0].target);
		for (int j = 0; j < k; j++)
			assert_int_not_equal(v[0].alt[k], v[0].alt[j]);
	}
	plan_result_release(&res);
	topology_free(t);
}

static void test_site_policy_narrows_cpus(void **state)
{
	struct topology *t = machine(2, 4, 1, 2);
	struct cpuset *only = cpuset_new(t->nr_ids);
	struct plan_irq v[4];
	struct plan_result res;

	(void)state;
	assert_non_null(only);
	/* Storage on CPUs 2-3 (node 0), as a site rule would say. */
	cpuset_set(only, 2);
	cpuset_set(only, 3);
	for (unsigned int i = 0; i < 4; i++) {
		v[i] = irq(70 + i, CLASS_STORAGE, 0, 0, 0, 0.1);
		v[i].allowed = only;
	}
	plan_ok(t, v, 4, &res);
	for (unsigned int i = 0; i < 4; i++) {
		assert_true(v[i].target == 2 || v[i].target == 3);
		for (int k = 0; k < PLAN_ALTS; k++)
			assert_true(v[i].alt[k] < 0 || v[i].alt[k] == 2 || v[i].alt[k] == 3);
	}
	plan_result_release(&res);

	/* A rule naming only another node's CPUs wins over locality. */
	cpuset_zero(only);
	cpuset_set(only, 6);
	for (unsigned int i = 0; i < 4; i++)
		v[i] = (struct plan_irq){ .irq = 70 + i, .class = CLASS_NET,
			.group = 1, .node = 0, .pinned = 0, .served = 0,
			.load = 0.1, .allowed = only };
	plan_ok(t, v, 4, &res);
	for (unsigned int i = 0; i < 4; i++)
		assert_int_equal(v[i].target, 6);
	plan_result_release(&res);
	cpuset_free(only);
	topology_free(t);
}

/* A NIC whose site policy allows 2 of its node's 8 cores: its @nq queues
 * share those 2 as evenly as they can, and that is their fair share.
 * Counted against the node's 8 cores it was "crowded", and every run moved
 * queues again (REASON_SPREAD) under an unchanged load. */
static void narrow_case(unsigned int nq)
{
	static const double load[5] = { 0.20, 0.15, 0.10, 0.05, 0.12 };
	struct topology *t = machine(1, 8, 2, 1);
	struct cpuset *only = cpuset_new(t->nr_ids);
	struct plan_irq v[5];
	struct plan_result res;

	assert_non_null(only);
	/* Cores 2 and 3, both threads (siblings 10 and 11). */
	cpuset_set(only, 2);
	cpuset_set(only, 3);
	cpuset_set(only, 10);
	cpuset_set(only, 11);
	for (unsigned int i = 0; i < nq; i++) {
		v[i] = irq(90 + i, CLASS_NET, 0, 0, 0, load[i]);
		v[i].allowed = only;
	}
	plan_ok(t, v, nq, &res);
	assert_int_equal(res.nr_moves, nq);
	plan_result_release(&res);
	for (int round = 0; round < 3; round++) {
		unsigned int per_core[8] = { 0 }, per_cpu[16] = { 0 };

		for (unsigned int i = 0; i < nq; i++) {
			assert_true(cpuset_test(only, (unsigned int)v[i].target));
			per_core[t->cpus[v[i].target].core]++;
			per_cpu[v[i].target]++;
		}
		/* As evenly as the 2 cores allow, and over their 4 CPUs. */
		assert_int_equal(per_core[2] + per_core[3], nq);
		assert_int_equal(per_core[2] > per_core[3] ? per_core[2] : per_core[3],
				 (nq + 1) / 2);
		for (unsigned int cpu = 0; cpu < 16; cpu++)
			assert_true(per_cpu[cpu] <= (nq + 3) / 4);
		settle_in(v, nq);
		plan_ok(t, v, nq, &res);
		assert_int_equal(res.nr_moves, 0);
		for (unsigned int i = 0; i < nq; i++)
			assert_int_equal(v[i].reason, REASON_KEEP);
		plan_result_release(&res);
	}
	cpuset_free(only);
	topology_free(t);
}

static void test_narrow_policy_plans_and_stays(void **state)
{
	(void)state;
	narrow_case(4);		/* two a core, one a CPU */
	narrow_case(5);		/* three and two */
}

/* The mixed machine of tests/sim after eth1's surge: node 0 (CPUs 0-3 and
 * their siblings 8-11) holds eth0's 8 queues, eth1's 4, an HBA's 2; node 1
 * an NVMe's 8 queues and a 4-queue NIC. Loads are the simulator's true ones;
 * the best placement's busiest CPU carries 0.1806 (irqsim oracle, proven). */
static const double mixed_eth0[8] = {
	0.1260, 0.1176, 0.1050, 0.0924, 0.0840, 0.0756, 0.0630, 0.0504,
};
static const double mixed_eth1[4] = { 0.1665, 0.1480, 0.1295, 0.1110 };
static const double mixed_hba[2] = { 0.0360, 0.0240 };
static const double mixed_nvme[8] = {
	0.0300, 0.0250, 0.0200, 0.0150, 0.0125, 0.0100, 0.0075, 0.0050,
};
static const double mixed_eth2[4] = { 0.0960, 0.0640, 0.0480, 0.0320 };

static unsigned int mixed(struct plan_irq *v, const double *eth1, const int *at)
{
	unsigned int n = 0;

	for (int q = 0; q < 8; q++, n++)
		v[n] = irq(24 + n, CLASS_NET, 0, 0, at ? at[n] : -1, mixed_eth0[q]);
	for (int q = 0; q < 4; q++, n++)
		v[n] = irq(24 + n, CLASS_NET, 1, 0, at ? at[n] : -1, eth1[q]);
	for (int q = 0; q < 2; q++, n++)
		v[n] = irq(24 + n, CLASS_STORAGE, 2, 0, at ? at[n] : -1, mixed_hba[q]);
	for (int q = 0; q < 8; q++, n++)
		v[n] = irq(24 + n, CLASS_STORAGE, 3, 1, at ? at[n] : -1, mixed_nvme[q]);
	for (int q = 0; q < 4; q++, n++)
		v[n] = irq(24 + n, CLASS_NET, 4, 1, at ? at[n] : -1, mixed_eth2[q]);
	/* idle misc vectors of the NICs */
	for (int k = 0; k < 3; k++, n++)
		v[n] = irq(24 + n, CLASS_NET, k == 2 ? 4 : k, k == 2 ? 1 : 0,
			   at ? at[n] : -1, 0);
	for (unsigned int i = 0; i < n; i++)
		if (v[i].pinned < 0)
			v[i].served = (int)(i % 16);
	return n;
}

/* Crowded CPUs (more queues than CPUs on a node): the plan is near the
 * best, and second and later runs are still. */
static void test_crowded_cpus_plan_and_settle(void **state)
{
	static const double eth1[4] = { 0.0740, 0.0592, 0.0444, 0.0296 };
	struct topology *t = machine(2, 4, 2, 2);
	struct plan_irq v[40];
	struct plan_result res;
	unsigned int n;

	(void)state;
	n = mixed(v, eth1, NULL);
	plan_ok(t, v, n, &res);
	/* best possible: 0.1284 (irqsim oracle); 3% slack */
	assert_true(peak(&res, t->nr_ids) <= 0.1284 * 1.03);
	plan_result_release(&res);
	for (int round = 0; round < 3; round++) {
		settle_in(v, n);
		plan_ok(t, v, n, &res);
		assert_int_equal(res.nr_moves, 0);
		plan_result_release(&res);
	}
	topology_free(t);
}

/* A load shift on one node: the plan gets within the stability margin of
 * the best the planner finds from scratch, judged as it judges an SMT
 * machine (smt_peak; by a CPU's own load alone the oracle's best is
 * 0.1806, and this shift is 20% above it, but 6% counted with half the
 * siblings' load, under the 10% threshold), and moves only IRQs of that
 * node, and few of them. Regression: plan_improve() used to reorder a CPU's
 * IRQ list while walking it (a spreading check unlinked and relinked the
 * IRQ) and looped forever here. */
static void test_shift_repairs_with_few_moves(void **state)
{
	static const double eth1[4] = { 0.0740, 0.0592, 0.0444, 0.0296 };
	struct topology *t = machine(2, 4, 2, 2);
	struct plan_irq v[40], w[40];
	struct plan_result res;
	unsigned int n, moved = 0;
	double best;

	(void)state;
	n = mixed(w, mixed_eth1, NULL);
	plan_ok(t, w, n, &res);
	best = smt_peak(&res, t);
	plan_result_release(&res);
	n = mixed(v, eth1, NULL);
	plan_ok(t, v, n, &res);
	plan_result_release(&res);
	settle_in(v, n);
	for (int q = 0; q < 4; q++)
		v[8 + q].load = mixed_eth1[q];
	plan_ok(t, v, n, &res);
	assert_true(smt_peak(&res, t) <= best * (1 + PLAN_DEFAULT_THRESHOLD));
	for (unsigned int i = 0; i < n; i++) {
		if (!plan_moves(&v[i]))
			continue;
		moved++;
		assert_int_equal(v[i].node, 0);	/* node 1 did not change */
	}
	/* a greedy repair to the target needs 7; every node-0 IRQ is 14 */
	assert_true(moved <= 10);
	plan_result_release(&res);
	settle_in(v, n);
	plan_ok(t, v, n, &res);
	assert_int_equal(res.nr_moves, 0);
	plan_result_release(&res);
	topology_free(t);
}

/* One IRQ must leave an isolated CPU; everything else is placed as well as
 * it can be: only that one moves (no fresh reshuffle). */
static void test_forced_move_moves_one(void **state)
{
	struct topology *t = machine(1, 4, 2, 1);
	struct plan_irq v[8];
	struct plan_result res;

	(void)state;
	t->cpus[7].avoid = AVOID_ISOLATED;
	topology_update_sets(t);
	/* seven queues of unequal load, one per eligible CPU; the heaviest
	 * alone on the core whose other thread is isolated, each of the
	 * next two beside a light one: the best placement there is,
	 * counting half the siblings' load */
	for (unsigned int i = 0; i < 7; i++)
		v[i] = irq(40 + i, CLASS_NET, 0, 0, (int)i, i == 3 ? 0.12 : i < 2 ? 0.11 : 0.10);
	v[7] = irq(60, CLASS_STORAGE, 1, 0, 7, 0.02);
	plan_ok(t, v, 8, &res);
	assert_int_equal(res.nr_moves, 1);
	assert_true(plan_moves(&v[7]));
	assert_int_equal(v[7].reason, REASON_AVOIDED);
	plan_result_release(&res);
	topology_free(t);
}

/* A NIC's idle misc vector is no queue: four busy queues on four cores
 * still take four distinct cores. */
static void test_idle_vector_does_not_widen_spread(void **state)
{
	struct topology *t = machine(1, 4, 2, 1);
	struct plan_irq v[5];
	struct plan_result res;
	bool core_used[8] = { false };

	(void)state;
	for (unsigned int i = 0; i < 4; i++)
		v[i] = irq(30 + i, CLASS_NET, 0, 0, 0, 0.08 - 0.01 * i);
	v[4] = irq(34, CLASS_NET, 0, 0, 0, 0);
	plan_ok(t, v, 5, &res);
	for (unsigned int i = 0; i < 4; i++) {
		int core = t->cpus[v[i].target].core;

		assert_false(core_used[core]);
		core_used[core] = true;
	}
	plan_result_release(&res);
	topology_free(t);
}

/* Two NICs on eight cores: their six busy queues take six cores, none
 * shared; the lighter storage queues (two devices of two) take the two
 * NIC-free cores, not the SMT siblings of NIC CPUs. (With more storage
 * queues than free cores, spreading a device over distinct cores comes
 * first.) */
static void test_nics_and_siblings(void **state)
{
	struct topology *t = machine(1, 8, 2, 1);
	struct plan_irq v[10];
	struct plan_result res;
	int nic_core[16];

	(void)state;
	for (unsigned int i = 0; i < 4; i++)
		v[i] = irq(30 + i, CLASS_NET, 0, 0, -1, 0.208);
	for (unsigned int i = 4; i < 6; i++)
		v[i] = irq(30 + i, CLASS_NET, 1, 0, -1, 0.156);
	for (unsigned int i = 6; i < 8; i++)
		v[i] = irq(30 + i, CLASS_STORAGE, 2, 0, -1, 0.030);
	for (unsigned int i = 8; i < 10; i++)
		v[i] = irq(30 + i, CLASS_STORAGE, 3, 0, -1, 0.024);
	for (unsigned int i = 0; i < 10; i++)
		v[i].served = 0;
	plan_ok(t, v, 10, &res);
	for (int c = 0; c < 16; c++)
		nic_core[c] = -1;
	for (unsigned int i = 0; i < 6; i++) {
		int core = t->cpus[v[i].target].core;

		assert_true(nic_core[core] < 0 || nic_core[core] == v[i].group);
		nic_core[core] = v[i].group;
	}
	for (unsigned int i = 6; i < 10; i++)
		assert_int_equal(nic_core[t->cpus[v[i].target].core], -1);
	plan_result_release(&res);
	topology_free(t);
}

/* Hundreds of idle IRQs piled on one CPU, with busy queues around: spread
 * by count, none above the fair share (ceil(400 / 8) = 50) by more than the
 * margin that keeps equal counts from trading places (one, and one more
 * for the CPU they stay on). */
static void test_hundreds_of_idle_irqs(void **state)
{
	struct topology *t = machine(1, 4, 2, 1);
	struct plan_irq v[404];
	struct plan_result res;
	unsigned int count[8] = { 0 };

	(void)state;
	for (unsigned int i = 0; i < 4; i++)
		v[i] = irq(24 + i, CLASS_NET, 0, 0, -1, 0.064);
	for (unsigned int i = 4; i < 404; i++)
		v[i] = irq(24 + i, CLASS_NET, 1, 0, 0, 0);
	plan_ok(t, v, 404, &res);
	for (unsigned int i = 4; i < 404; i++)
		count[v[i].target]++;
	for (int c = 0; c < 8; c++)
		assert_true(count[c] <= 400 / 8 + 2);
	plan_result_release(&res);
	settle_in(v, 404);
	plan_ok(t, v, 404, &res);
	assert_int_equal(res.nr_moves, 0);
	plan_result_release(&res);
	topology_free(t);
}

/* The stability rule allows for what the clock can resolve: a busiest CPU
 * 14% over the best plan, but by less than one tick of the window more than
 * the 10% threshold, stays; it moves when the tick is not counted, and a
 * real imbalance moves either way. */
static void test_resolution_keeps_noise_still(void **state)
{
	struct plan_policy fine = pol, coarse = pol;
	struct topology *t = machine(1, 2, 1, 1);
	struct plan_irq v[4];
	struct plan_result res;

	(void)state;
	fine.resolution = 0;
	coarse.resolution = 0.01;	/* USER_HZ 100, a 1 s window */
	/* CPU 0: 0.12, CPU 1: 0.09; the best plan is 0.105 each. */
	v[0] = irq(1, CLASS_OTHER, -1, -1, 0, 0.065);
	v[1] = irq(2, CLASS_OTHER, -1, -1, 0, 0.055);
	v[2] = irq(3, CLASS_OTHER, -1, -1, 1, 0.050);
	v[3] = irq(4, CLASS_OTHER, -1, -1, 1, 0.040);
	assert_int_equal(plan_compute(t, v, 4, &coarse, &res), 0);
	assert_int_equal(res.nr_moves, 0);
	plan_result_release(&res);
	assert_int_equal(plan_compute(t, v, 4, &fine, &res), 0);
	assert_true(res.nr_moves > 0);
	plan_result_release(&res);

	/* CPU 0: 0.18, CPU 1: 0.03; best 0.11: far beyond a tick. */
	v[0].load = 0.10;
	v[1].load = 0.08;
	v[2].load = 0.02;
	v[3].load = 0.01;
	assert_int_equal(plan_compute(t, v, 4, &coarse, &res), 0);
	assert_true(res.nr_moves > 0);
	assert_true(peak(&res, t->nr_ids) <= 0.11 + 1e-9);
	plan_result_release(&res);
	topology_free(t);
}

/* A big machine at once: 256 CPUs on two nodes, 32 devices of 48 queues
 * and 200 legacy IRQs, all starting on CPU 0. The plan gets near the
 * bound that no placement can beat (the heaviest IRQ, or a node's local
 * load over its CPUs), keeps every queue on its device's node, and then
 * holds still: a second run, and a run after whole cores traded places
 * (their IRQs with them, threads swapped on some), move nothing. */
/* big.LITTLE: CPUs 0-1 of capacity 1024, 2-3 of 512, no SMT. */
static struct topology *big_little(unsigned int big, unsigned int little)
{
	struct topology *t = machine(1, 4, 1, 1);

	for (int k = 0; k < 4; k++)
		t->cpus[k].capacity = k < 2 ? big : little;
	return t;
}

/* A little CPU carries half of what a big one does: eight equal IRQs go
 * 3, 3, 1, 1 (busiest at 0.3 of a big CPU, where 2 on each little one
 * would be 0.4 of theirs), not 2 a CPU. */
static void test_capacity_weighs_load(void **state)
{
	struct topology *t = big_little(1024, 512);
	struct plan_irq v[8];
	struct plan_result res;
	unsigned int on[4] = { 0 };

	(void)state;
	for (unsigned int i = 0; i < 8; i++)
		v[i] = irq(40 + i, CLASS_OTHER, -1, 0, 0, 0.1);
	plan_ok(t, v, 8, &res);
	for (unsigned int i = 0; i < 8; i++)
		on[v[i].target]++;
	assert_int_equal(on[0], 3);
	assert_int_equal(on[1], 3);
	assert_int_equal(on[2], 1);
	assert_int_equal(on[3], 1);
	/* before and after stay in CPUs of the biggest */
	assert_true(res.after[2] > 0.0999 && res.after[2] < 0.1001);
	assert_true(res.after[0] > 0.2999 && res.after[0] < 0.3001);
	plan_result_release(&res);
	topology_free(t);
}

/* The heaviest IRQ goes to a big core of its node, from a little one. */
static void test_capacity_heaviest_on_big(void **state)
{
	struct topology *t = big_little(1024, 446);
	struct plan_irq v[5];
	struct plan_result res;

	(void)state;
	v[0] = irq(50, CLASS_NET, 0, 0, 3, 0.40);
	for (unsigned int i = 1; i < 5; i++)
		v[i] = irq(50 + i, CLASS_OTHER, -1, 0, 3, 0.02);
	plan_ok(t, v, 5, &res);
	assert_true(v[0].target == 0 || v[0].target == 1);
	plan_result_release(&res);
	topology_free(t);
}

/* CPUs of one capacity, whatever it is, plan as CPUs of none known. */
static void test_alike_capacity_plans_as_before(void **state)
{
	static const unsigned int caps[] = { 1024, 446 };
	struct plan_irq a[12], b[12];
	struct plan_result ra, rb;

	(void)state;
	for (unsigned int c = 0; c < 2; c++) {
		struct topology *plain = machine(1, 4, 2, 1), *t = machine(1, 4, 2, 1);

		for (unsigned int k = 0; k < t->nr_ids; k++)
			t->cpus[k].capacity = caps[c];
		for (unsigned int i = 0; i < 12; i++)
			a[i] = b[i] = irq(60 + i, i < 6 ? CLASS_NET : CLASS_OTHER,
					  i < 6 ? 0 : -1, 0, (int)(i % 3), 0.01 * (i + 1));
		plan_ok(plain, a, 12, &ra);
		plan_ok(t, b, 12, &rb);
		for (unsigned int i = 0; i < 12; i++) {
			assert_int_equal(a[i].target, b[i].target);
			assert_int_equal(a[i].reason, b[i].reason);
		}
		assert_memory_equal(ra.after, rb.after, plain->nr_ids * sizeof(double));
		plan_result_release(&ra);
		plan_result_release(&rb);
		topology_free(plain);
		topology_free(t);
	}
}

/* Pinned application load (policy->app): plan_compute() with @app. */
static void plan_app(struct topology *t, struct plan_irq *v, unsigned int n,
		     const double *app, struct plan_result *res)
{
	struct plan_policy p = pol;

	p.app = app;
	assert_int_equal(plan_compute(t, v, n, &p, res), 0);
	for (unsigned int i = 0; i < n; i++)
		if (!v[i].fixed)
			assert_true(cpuset_test(t->eligible, (unsigned int)v[i].target));
}

/* Busy IRQ load the plan leaves on CPUs @lo..@hi. */
static double busy_on(const struct plan_irq *v, unsigned int n, int lo, int hi)
{
	double sum = 0;

	for (unsigned int i = 0; i < n; i++)
		if (!v[i].fixed && v[i].load >= PLAN_DEFAULT_IDLE_LOAD &&
		    v[i].target >= lo && v[i].target <= hi)
			sum += v[i].load;
	return sum;
}

/* A packet poller at 100% on CPUs 4-7, a 4-queue NIC and a disk spread
 * over all eight: every busy IRQ leaves the poller's CPUs, whether its
 * time reads 1.0 (IRQ work on top) or 5% short (the IRQs' share taken
 * from it), and a second run over the same load writes nothing. */
static void test_app_poller_cpus_are_left(void **state)
{
	static const double idle_cost[2] = { 0, 0.05 };

	(void)state;
	for (unsigned int variant = 0; variant < 2; variant++) {
		struct topology *t = machine(1, 8, 1, 1);
		double app[8] = { 0 };
		struct plan_irq v[7];
		struct plan_result res;
		unsigned int n = 0;

		for (unsigned int q = 0; q < 4; q++)
			v[n++] = irq(100 + q, CLASS_NET, 0, 0, (int)(q * 2 + 1), 0.05);
		v[n++] = irq(200, CLASS_STORAGE, 1, 0, 4, 0.04);
		v[n++] = irq(201, CLASS_STORAGE, 1, 0, 6, 0.03);
		v[n++] = irq(9, CLASS_OTHER, -1, 0, 7, 0);
		for (int k = 4; k < 8; k++) {
			double here = 0;

			for (unsigned int i = 0; i < n; i++)
				if (v[i].pinned == k)
					here += v[i].load;
			/* measured short by the IRQs' time where the variant says */
			app[k] = 1.0 - (idle_cost[variant] > 0 ? here : 0);
		}
		plan_app(t, v, n, app, &res);
		assert_true(res.nr_moves > 0);
		assert_true(busy_on(v, n, 4, 7) == 0);
		/* what moved off the poller says why */
		assert_int_equal(v[4].reason, REASON_APP);
		assert_non_null(res.app);
		for (int k = 0; k < 8; k++)
			assert_true(res.app[k] == app[k]);
		/* before and after stay IRQ load alone */
		assert_true(res.before[5] > 0.0499 && res.before[5] < 0.0501);
		assert_true(res.after[5] == 0);
		plan_result_release(&res);

		settle_in(v, n);
		plan_app(t, v, n, app, &res);
		assert_int_equal(res.nr_moves, 0);
		plan_result_release(&res);
		topology_free(t);
	}
}

/* Application load alike on every CPU changes no plan: not the places,
 * not the reasons, not what settles. */
static void test_app_alike_plans_as_without(void **state)
{
	(void)state;
	for (unsigned int round = 0; round < 12; round++) {
		unsigned int seed = round % 6 + 1;
		/* With SMT, a core whose load is all fixed and idle IRQs' is
		 * in the plain plan's peak but not in the level (struct ctx,
		 * lvl), so plans may differ there by a tie's worth. */
		bool smt = round >= 6;
		struct topology *t = smt ? machine(1, 4, 2, 1) : machine(1, 8, 1, 1);
		struct plan_irq a[20], b[20];
		struct plan_result ra, rb;
		double app[8];
		unsigned int x = seed * 2654435761u;

		for (unsigned int k = 0; k < 8; k++)
			app[k] = 0.1 * seed;
		for (unsigned int i = 0; i < 20; i++) {
			x = x * 1103515245u + 12345u;
			a[i] = irq(60 + i, i < 8 ? CLASS_NET : CLASS_OTHER, i < 8 ? 0 : -1, 0,
				   (int)(x >> 16) % (seed % 3 ? 8 : 2),
				   i % 5 == 4 ? 0 : 0.005 * ((x >> 8) % 13 + 1));
			a[i].fixed = i == 19;
		}
		memcpy(b, a, sizeof(a));
		plan_ok(t, a, 20, &ra);
		plan_app(t, b, 20, app, &rb);
		if (smt) {
			assert_true(fabs(smt_peak(&ra, t) - smt_peak(&rb, t)) <=
				    smt_peak(&ra, t) * PLAN_DEFAULT_THRESHOLD / 4);
			plan_result_release(&ra);
			plan_result_release(&rb);
			topology_free(t);
			continue;
		}
		for (unsigned int i = 0; i < 20; i++) {
			assert_int_equal(a[i].target, b[i].target);
			assert_int_equal(a[i].reason, b[i].reason);
		}
		assert_int_equal(ra.nr_moves, rb.nr_moves);
		for (unsigned int k = 0; k < 8; k++)
			assert_true(fabs(ra.after[k] - rb.after[k]) < 1e-12);
		plan_result_release(&ra);
		plan_result_release(&rb);
		topology_free(t);
	}
}

/* Half the CPUs at 30% with an application, little IRQ work: all of it
 * goes to the other half, which has room; and stays there. */
static void test_app_irqs_go_where_there_is_room(void **state)
{
	struct topology *t = machine(1, 8, 1, 1);
	double app[8] = { 0.3, 0.3, 0.3, 0.3 };
	struct plan_irq v[10];
	struct plan_result res;

	(void)state;
	for (unsigned int i = 0; i < 10; i++)
		v[i] = irq(30 + i, i < 4 ? CLASS_NET : CLASS_OTHER, i < 4 ? 0 : -1, 0,
			   (int)(i % 4), 0.01 + 0.002 * i);
	plan_app(t, v, 10, app, &res);
	assert_true(busy_on(v, 10, 0, 3) == 0);
	assert_true(busy_on(v, 10, 4, 7) > 0.13);
	plan_result_release(&res);
	settle_in(v, 10);
	plan_app(t, v, 10, app, &res);
	assert_int_equal(res.nr_moves, 0);
	plan_result_release(&res);
	topology_free(t);
}

/* A run under the same load writes nothing, with the application's load
 * and the IRQs' noisy by +-4%. */
static void test_app_second_run_is_still(void **state)
{
	struct topology *t = machine(2, 4, 2, 1);
	double app[16];
	struct plan_irq v[40];
	struct plan_result res;
	unsigned int n = 0;

	(void)state;
	for (unsigned int k = 0; k < 16; k++)
		app[k] = k % 4 == 1 ? 0.9 : k % 4 == 2 ? 0.4 : 0;
	for (int q = 0; q < 8; q++)
		v[n++] = irq(100 + (unsigned int)q, CLASS_NET, 0, 0, q, 0.04 + 0.01 * (q % 3));
	for (int q = 0; q < 4; q++)
		v[n++] = irq(200 + (unsigned int)q, CLASS_STORAGE, 1, 0, 15 - q, 0.03);
	for (int k = 0; k < 20; k++)
		v[n++] = irq(300 + (unsigned int)k, CLASS_OTHER, -1, -1, k % 16, 0);
	plan_app(t, v, n, app, &res);
	assert_true(res.nr_moves > 0);
	plan_result_release(&res);
	settle_in(v, n);
	plan_app(t, v, n, app, &res);
	assert_int_equal(res.nr_moves, 0);
	plan_result_release(&res);
	for (unsigned int k = 0; k < 16; k++)
		app[k] *= 1 + ((int)((k * 7919) % 9) - 4) / 100.0;
	for (unsigned int i = 0; i < n; i++)
		v[i].load *= 1 + ((int)((i * 7919) % 9) - 4) / 100.0;
	plan_app(t, v, n, app, &res);
	assert_int_equal(res.nr_moves, 0);
	plan_result_release(&res);
	topology_free(t);
}

/* Unlike CPUs: a big CPU busy with an application sends IRQs to the
 * little ones while they have room, and a little one busy with it to
 * the big ones. Loads compare as time of each CPU's own. */
static void test_app_capacity(void **state)
{
	struct topology *t = big_little(1024, 512);
	double app_big[4] = { 0.9, 0.9, 0, 0 }, app_little[4] = { 0, 0, 0.45, 0.45 };
	struct plan_irq v[6];
	struct plan_result res;

	(void)state;
	for (unsigned int i = 0; i < 6; i++)
		v[i] = irq(40 + i, CLASS_OTHER, -1, 0, (int)(i % 4), 0.03);
	plan_app(t, v, 6, app_big, &res);
	assert_true(busy_on(v, 6, 0, 1) == 0);
	plan_result_release(&res);
	/* 0.45 of a big CPU is 0.9 of a little one's time */
	plan_app(t, v, 6, app_little, &res);
	assert_true(busy_on(v, 6, 2, 3) == 0);
	assert_true(res.app[2] == 0.45);
	plan_result_release(&res);
	topology_free(t);
}

/* Four cores, pollers on two: the NIC's four queues go two to a core
 * with room rather than one to each core, a poller's included. */
static void test_app_queues_double_up_off_pollers(void **state)
{
	struct topology *t = machine(1, 4, 1, 1);
	double app[4] = { 0, 0, 1.0, 1.0 };
	struct plan_irq v[6];
	struct plan_result res;

	(void)state;
	for (unsigned int q = 0; q < 4; q++)
		v[q] = irq(100 + q, CLASS_NET, 0, 0, (int)q, 0.06);
	v[4] = irq(200, CLASS_STORAGE, 1, 0, 2, 0.03);
	v[5] = irq(201, CLASS_STORAGE, 1, 0, 3, 0.03);
	plan_app(t, v, 6, app, &res);
	assert_true(busy_on(v, 6, 2, 3) == 0);
	assert_true(res.after[0] < 0.16 && res.after[1] < 0.16);
	plan_result_release(&res);
	settle_in(v, 6);
	plan_app(t, v, 6, app, &res);
	assert_int_equal(res.nr_moves, 0);
	plan_result_release(&res);
	/* the same without the pollers: one queue a core, as ever */
	plan_ok(t, v, 6, &res);
	for (unsigned int q = 0; q < 4; q++)
		for (unsigned int r = q + 1; r < 4; r++)
			assert_int_not_equal(v[q].target, v[r].target);
	plan_result_release(&res);
	topology_free(t);
}

/* An application CPU busier than any IRQ CPU can be must not end the
 * balancing of the others: with it the busiest CPU whatever the plan,
 * every plan was "within the threshold" of the best, and IRQs piled on
 * CPU 0 stayed there. */
static void test_app_peak_does_not_hide_the_rest(void **state)
{
	struct topology *t = machine(1, 8, 1, 1);
	double app[8] = { [7] = 1.0 };
	struct plan_irq v[14];
	struct plan_result res;

	(void)state;
	for (unsigned int i = 0; i < 14; i++)
		v[i] = irq(20 + i, CLASS_OTHER, -1, 0, 0, 0.05);
	plan_app(t, v, 14, app, &res);
	for (int k = 0; k < 7; k++)
		assert_true(res.after[k] < 0.1 + 1e-9);
	assert_true(busy_on(v, 14, 7, 7) == 0);
	plan_result_release(&res);
	topology_free(t);
}

/* A light busy IRQ on a CPU running an application leaves it for a CPU
 * with room, though moving it gains little against the busiest CPU's
 * IRQ load: the guests' RT kernel kept a 0.09% transmit queue on the
 * application's CPU. Light idle-ish ones below idle_load may stay. */
static void test_app_light_irq_leaves(void **state)
{
	/* The guest's run: managed queues fixed on every CPU, the two
	 * busy NIC queues and the light one on the application's CPUs. */
	static const struct { unsigned int irq; int cpu; double load; bool fixed; } g[] = {
		{ 26, 2, 0.0113, true }, { 27, 3, 0.0015, true }, { 28, 0, 0.0483, true },
		{ 29, 1, 0.0821, true }, { 37, 2, 0.0187, true }, { 39, 0, 0.0298, true },
		{ 40, 1, 0.0617, true }, { 32, 3, 0.2498, false }, { 33, 2, 0.1564, false },
		{ 34, 2, 0.0009, false },
	};
	struct topology *t = machine(1, 4, 1, 1);
	double app[4] = { [2] = 0.62, [3] = 0.72 };
	struct plan_irq v[10];
	struct plan_result res;

	(void)state;
	for (unsigned int i = 0; i < 10; i++) {
		v[i] = irq(g[i].irq, CLASS_NET, g[i].irq == 32 ? 2 : g[i].irq > 32 ? 1 : -1, 0,
			   g[i].cpu, g[i].load);
		v[i].fixed = g[i].fixed;
	}
	plan_app(t, v, 10, app, &res);
	for (unsigned int i = 7; i < 10; i++)
		assert_true(v[i].target == 0 || v[i].target == 1);
	assert_true(v[9].reason == REASON_APP || v[9].reason == REASON_SPREAD);
	plan_result_release(&res);
	topology_free(t);
}

/* No application load anywhere, or all of it on offline CPUs: the plan
 * of no policy->app at all, and no res.app. */
static void test_app_zero_plans_as_without(void **state)
{
	struct topology *t = machine(2, 4, 2, 2);
	double app[16] = { 0 };
	struct plan_irq a[24], b[24];
	struct plan_result ra, rb;

	(void)state;
	t->cpus[15].online = false;
	topology_update_sets(t);
	app[15] = 0.8;
	for (unsigned int i = 0; i < 24; i++)
		a[i] = irq(70 + i, i < 8 ? CLASS_NET : CLASS_OTHER, i < 8 ? 0 : -1,
			   (int)(i % 2), (int)(i % 3), 0.004 * (i % 7));
	memcpy(b, a, sizeof(a));
	plan_ok(t, a, 24, &ra);
	plan_app(t, b, 24, app, &rb);
	assert_null(rb.app);
	for (unsigned int i = 0; i < 24; i++) {
		assert_int_equal(a[i].target, b[i].target);
		assert_int_equal(a[i].reason, b[i].reason);
		assert_int_equal(a[i].vec_full, b[i].vec_full);
		assert_memory_equal(a[i].alt, b[i].alt, sizeof(a[i].alt));
	}
	assert_memory_equal(ra.after, rb.after, t->nr_ids * sizeof(double));
	plan_result_release(&ra);
	plan_result_release(&rb);
	topology_free(t);
}

/* A CPU with no free vector receives no IRQ that needs one; an IRQ
 * already there needs none and may stay; a CPU with one free takes one.
 * The plan says where vector space changed its choice. */
static void test_vectors_bound_arrivals(void **state)
{
	struct topology *t = machine(1, 4, 1, 1);
	const unsigned int avail[4] = { 0, 1, 50, 50 };
	struct plan_policy vp = pol;
	struct plan_irq v[9];
	struct plan_result res;
	unsigned int arrived[4] = { 0 }, limited = 0;

	(void)state;
	vp.vec_avail = avail;
	v[0] = irq(70, CLASS_OTHER, -1, 0, 0, 0.05);	/* holds CPU 0's vector */
	for (unsigned int i = 1; i < 9; i++)
		v[i] = irq(70 + i, CLASS_OTHER, -1, 0, 3, 0.05);
	assert_int_equal(plan_compute(t, v, 9, &vp, &res), 0);
	for (unsigned int i = 0; i < 9; i++) {
		assert_true(v[i].target >= 0);
		if (v[i].target != v[i].pinned)
			arrived[v[i].target]++;
		if (v[i].vec_full >= 0) {
			limited++;
			assert_true(v[i].vec_full == 0 || v[i].vec_full == 1);
			assert_int_not_equal(v[i].target, v[i].vec_full);
		}
	}
	assert_int_equal(v[0].target, 0);
	assert_int_equal(arrived[0], 0);
	assert_true(arrived[1] <= 1);
	assert_true(limited > 0);
	assert_int_equal(res.nr_vec_limited, limited);
	plan_result_release(&res);

	/* Without the limit the same IRQs do use CPU 0: it changed a choice. */
	assert_int_equal(plan_compute(t, v, 9, &pol, &res), 0);
	memset(arrived, 0, sizeof(arrived));
	for (unsigned int i = 0; i < 9; i++) {
		assert_int_equal(v[i].vec_full, -1);
		if (v[i].target != v[i].pinned)
			arrived[v[i].target]++;
	}
	assert_true(arrived[0] > 0);
	assert_int_equal(res.nr_vec_limited, 0);
	plan_result_release(&res);
	topology_free(t);
}

/* Limits nowhere near reached plan exactly as no limits. */
static void test_vectors_plenty_plans_as_before(void **state)
{
	struct topology *t = machine(2, 4, 2, 2);
	unsigned int avail[16];
	struct plan_policy vp = pol;
	struct plan_irq a[20], b[20];
	struct plan_result ra, rb;

	(void)state;
	for (unsigned int k = 0; k < 16; k++)
		avail[k] = k == 5 ? UINT_MAX : 190;
	vp.vec_avail = avail;
	for (unsigned int i = 0; i < 20; i++)
		a[i] = b[i] = irq(80 + i, i < 8 ? CLASS_NET : CLASS_STORAGE, i < 8 ? 0 : 1,
				  (int)(i % 2), (int)(i % 4), 0.003 * (i + 1));
	plan_ok(t, a, 20, &ra);
	assert_int_equal(plan_compute(t, b, 20, &vp, &rb), 0);
	for (unsigned int i = 0; i < 20; i++) {
		assert_int_equal(a[i].target, b[i].target);
		assert_int_equal(b[i].vec_full, -1);
	}
	plan_result_release(&ra);
	plan_result_release(&rb);
	topology_free(t);
}

static void test_big_machine_plans_and_stays(void **state)
{
	enum { DEVS = 32, QUEUES = 48, LEGACY = 200, N = DEVS * QUEUES + LEGACY };
	struct topology *t = machine(2, 64, 2, 2);
	struct plan_irq *v = calloc(N, sizeof(*v));
	int *first = calloc(N, sizeof(*first));
	struct plan_result res;
	double node_load[2] = { 0, 0 }, heaviest = 0, bound;
	unsigned int n = 0, seed = 7;

	(void)state;
	assert_non_null(v);
	assert_non_null(first);
	for (int d = 0; d < DEVS; d++) {
		for (int q = 0; q < QUEUES; q++) {
			double load;

			seed = seed * 1103515245u + 12345u;
			load = d % 2 ? 0.005 + (seed >> 16) % 4500 / 1e5
				     : 0.001 + (seed >> 16) % 900 / 1e5;
			v[n] = irq(1000 + n, d % 2 ? CLASS_NET : CLASS_STORAGE,
				   d, d / 2 % 2, 0, load);
			node_load[d / 2 % 2] += load;
			if (load > heaviest)
				heaviest = load;
			n++;
		}
	}
	for (int k = 0; k < LEGACY; k++, n++)
		v[n] = irq(20 + (unsigned int)k, CLASS_OTHER, -1, -1, 0,
			   k % 10 ? 0 : 0.002);
	bound = node_load[0] > node_load[1] ? node_load[0] : node_load[1];
	bound /= 128;
	if (heaviest > bound)
		bound = heaviest;

	/* Every CPU has a busy sibling: counting half of it (smt_peak), the
	 * busiest is at least 1.5 times the mean. */
	bound = bound * 1.5 > heaviest ? bound * 1.5 : heaviest;
	plan_ok(t, v, n, &res);
	assert_true(smt_peak(&res, t) <= bound * 1.10);
	for (unsigned int i = 0; i < DEVS * QUEUES; i++)
		assert_int_equal(t->cpus[v[i].target].node, v[i].node);
	for (unsigned int i = 0; i < n; i++)
		first[i] = v[i].target;
	plan_result_release(&res);

	/* The same input plans the same way. */
	for (unsigned int i = 0; i < n; i++) {
		v[i].pinned = v[i].served = 0;
		v[i].target = -1;
	}
	plan_ok(t, v, n, &res);
	for (unsigned int i = 0; i < n; i++)
		assert_int_equal(v[i].target, first[i]);
	plan_result_release(&res);

	settle_in(v, n);
	plan_ok(t, v, n, &res);
	assert_int_equal(res.nr_moves, 0);
	plan_result_release(&res);

	/* Cores 2k and 2k+1 of each package trade places; on every fourth
	 * pair the threads cross too. CPU id = core + 128 * thread. */
	for (unsigned int i = 0; i < n; i++) {
		int cpu = v[i].target, core = cpu % 128, thread = cpu / 128;
		int mate = core ^ 1;

		if (core / 2 % 4 == 0)
			thread ^= 1;
		v[i].pinned = v[i].served = mate + 128 * thread;
	}
	plan_ok(t, v, n, &res);
	assert_int_equal(res.nr_moves, 0);
	plan_result_release(&res);
	free(first);
	free(v);
	topology_free(t);
}

/* A small deterministic generator (xorshift64*): the random machines must
 * be the same on every run, so that a failure names a seed to replay. */
static uint64_t rnd_state;

static unsigned int rnd(unsigned int n)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return n ? (unsigned int)((rnd_state * 0x2545F4914F6CDD1Dull) >> 33) % n : 0;
}

static bool chance(unsigned int percent)
{
	return rnd(100) < percent;
}

/* A random machine: 1 to 4 packages of cores with 1, 2 or (rarely) 4
 * threads, numbered like x86 (threads after all cores) or consecutively;
 * no nodes, one, or one or two per package; some CPUs offline or avoided,
 * now and then a whole node. */
/* The reference planner (plan_ref.c) predates the SMT objective of the
 * improvement passes and the stability rule (plan_int.h, struct ctx: eff):
 * on machines with SMT the two differ by design. It is compared on
 * machines of one thread a core, where nothing changed. */
static bool one_thread;

static struct topology *random_machine(unsigned int max_cores)
{
	unsigned int pkgs = 1 + rnd(4), cores = 1 + rnd(max_cores / pkgs + 1);
	unsigned int threads = chance(10) ? 4 : chance(60) ? 2 : 1;

	if (one_thread)
		threads = 1;
	unsigned int per_pkg_nodes = chance(25) ? 2 : 1, nc = pkgs * cores;
	unsigned int n = nc * threads + (chance(20) ? rnd(4) : 0);
	bool x86 = chance(70);
	int nodes = chance(15) ? 0 : (int)(pkgs * per_pkg_nodes);
	int dead_node = nodes > 1 && chance(10) ? (int)rnd((unsigned int)nodes) : -2;
	struct topology *t = topology_new(n);

	assert_non_null(t);
	for (unsigned int id = 0; id < n; id++) {
		struct cpu_info *ci = &t->cpus[id];
		unsigned int core = x86 ? id % nc : id / threads % nc;
		unsigned int pkg = core / cores;

		if (id >= nc * threads) {
			/* ids past the cores: possible but absent CPUs */
			ci->online = false;
			ci->core = (int)id;
			ci->node = -1;
			ci->package = -1;
			continue;
		}
		ci->online = !chance(3);
		ci->core = x86 ? (int)core : (int)(core * threads);
		if (chance(1))
			ci->core = -1;		/* unknown: the planner uses the id */
		ci->package = (int)pkg;
		ci->llc = (int)(pkg * cores);
		ci->node = nodes ? (int)(pkg * per_pkg_nodes +
					 (core % cores) * per_pkg_nodes / cores) : -1;
		ci->avoid = chance(5) ? AVOID_ISOLATED : chance(3) ? AVOID_BANNED : 0;
		if (ci->node == dead_node)
			ci->avoid = AVOID_BANNED;
	}
	t->nr_nodes = nodes;
	topology_update_sets(t);
	return t;
}

/* Loads drawn so that ties are common: from a few fixed values, from a
 * coarse grid, or continuous; idle IRQs at or just under the idle limit. */
static double random_load(unsigned int style)
{
	static const double few[] = { 0.01, 0.02, 0.05, 0.1, 0.25, 0.3 };

	if (chance(35))
		return chance(50) ? 0 : chance(50) ? PLAN_DEFAULT_IDLE_LOAD / 2 :
		       PLAN_DEFAULT_IDLE_LOAD;
	switch (style) {
	case 0:
		return few[rnd(sizeof(few) / sizeof(few[0]))];
	case 1:
		return (1 + rnd(40)) * 0.005;
	default:
		return 0.0006 + rnd(1000000) / 2e6;
	}
}

struct random_case {
	struct topology *topo;
	struct plan_irq *irqs;
	unsigned int nr;
	struct cpuset *sets[4];	/* site policies, shared by several IRQs */
	struct plan_policy pol;
	unsigned int *vec;	/* pol.vec_avail, NULL: none */
};

static bool any_eligible(const struct topology *t, const struct cpuset *set)
{
	for (unsigned int cpu = 0; cpu < t->nr_ids; cpu++)
		if (cpuset_test(set, cpu) && cpuset_test(t->eligible, cpu))
			return true;
	return false;
}

static int random_cpu(const struct topology *t)
{
	return (int)rnd(t->nr_ids);
}

/* Devices of 1 to 24 queues (NICs, storage, other) and legacy IRQs, each
 * somewhere now (a CPU, several, an offline or avoided one), some fixed
 * (kernel-managed), some under a site policy that may exclude its node. */
static void random_case_new(struct random_case *rc, unsigned int max_cores,
			    unsigned int max_irqs)
{
	unsigned int style = rnd(3), devs, n = 0, cap = 1 + rnd(max_irqs);
	struct topology *t = random_machine(max_cores);

	memset(rc, 0, sizeof(*rc));
	rc->topo = t;
	rc->irqs = calloc(cap, sizeof(*rc->irqs));
	assert_non_null(rc->irqs);
	for (unsigned int k = 0; k < 4; k++) {
		rc->sets[k] = cpuset_new(t->nr_ids);
		assert_non_null(rc->sets[k]);
		for (unsigned int cpu = 0; cpu < t->nr_ids; cpu++)
			if (chance(k == 3 ? 5 : 50))
				cpuset_set(rc->sets[k], cpu);
		/* policy.c never hands the planner a set with no eligible
		 * CPU (the old planner read an unset score then) */
		if (!cpuset_count(t->eligible))
			continue;
		while (!any_eligible(t, rc->sets[k]))
			cpuset_set(rc->sets[k], rnd(t->nr_ids));
	}
	devs = 1 + rnd(12);
	for (unsigned int d = 0; n < cap; d++) {
		bool legacy = d >= devs;
		unsigned int queues = legacy ? 1 : 1 + rnd(24);
		enum irq_class class = (enum irq_class)rnd(3);
		int node = t->nr_nodes ? (int)rnd((unsigned int)t->nr_nodes) : -1;
		const struct cpuset *allowed = chance(12) ? rc->sets[rnd(4)] : NULL;

		if (chance(10))
			node = chance(50) ? -1 : t->nr_nodes + 1;
		for (unsigned int q = 0; q < queues && n < cap; q++, n++) {
			struct plan_irq *pi = &rc->irqs[n];

			pi->irq = 16 + n * 3 + rnd(3);	/* unique, not dense */
			pi->class = legacy ? CLASS_OTHER : class;
			pi->group = legacy ? -1 : (int)d;
			pi->node = legacy ? (chance(70) ? -1 : node) : node;
			pi->pinned = chance(15) ? -1 : random_cpu(t);
			pi->served = chance(80) ? pi->pinned :
				     chance(50) ? -1 : random_cpu(t);
			pi->fixed = chance(8);
			pi->allowed = chance(5) ? rc->sets[rnd(4)] : allowed;
			pi->load = random_load(style);
		}
	}
	rc->nr = n;
	rc->pol.threshold = PLAN_DEFAULT_THRESHOLD;
	rc->pol.idle_load = PLAN_DEFAULT_IDLE_LOAD;
	rc->pol.resolution = chance(30) ? 0.01 : 0;
}

/* The capacity and vector rules where they change nothing: every CPU of
 * one capacity, not necessarily CAPACITY_SCALE (each weighs 1.0), and
 * vector limits no plan can reach (more than the IRQs, or UINT_MAX). The
 * reference knows neither rule, so it must still agree. */
static void random_case_loose(struct random_case *rc)
{
	unsigned int cap = 1 + rnd(CAPACITY_SCALE);

	for (unsigned int cpu = 0; cpu < rc->topo->nr_ids; cpu++)
		rc->topo->cpus[cpu].capacity = cap;
	rc->vec = calloc(rc->topo->nr_ids, sizeof(*rc->vec));
	assert_non_null(rc->vec);
	for (unsigned int cpu = 0; cpu < rc->topo->nr_ids; cpu++)
		rc->vec[cpu] = chance(30) ? UINT_MAX : rc->nr + rnd(8);
	rc->pol.vec_avail = rc->vec;
}

static void random_case_free(struct random_case *rc)
{
	free(rc->vec);
	for (unsigned int k = 0; k < 4; k++)
		cpuset_free(rc->sets[k]);
	free(rc->irqs);
	topology_free(rc->topo);
}

/* Both planners on copies of the same input: the same answer, IRQ for IRQ
 * (target, alternatives, reason), and the same loads to the bit. */
static void same_plan(const struct random_case *rc, uint64_t seed, int round)
{
	struct plan_irq *a = calloc(rc->nr, sizeof(*a)), *b = calloc(rc->nr, sizeof(*b));
	struct plan_result ra, rb;
	int r1, r2;

	assert_non_null(a);
	assert_non_null(b);
	memcpy(a, rc->irqs, rc->nr * sizeof(*a));
	memcpy(b, rc->irqs, rc->nr * sizeof(*b));
	r1 = plan_compute(rc->topo, a, rc->nr, &rc->pol, &ra);
	r2 = plan_ref_compute(rc->topo, b, rc->nr, &rc->pol, &rb);
	if (r1 != r2)
		fail_msg("seed %llu round %d: returned %d, reference %d",
			 (unsigned long long)seed, round, r1, r2);
	if (r1 == 0) {
		for (unsigned int i = 0; i < rc->nr; i++) {
			bool same = a[i].target == b[i].target &&
				    a[i].reason == b[i].reason &&
				    memcmp(a[i].alt, b[i].alt, sizeof(a[i].alt)) == 0;

			if (!same)
				fail_msg("seed %llu round %d: irq %u (of %u, %u CPUs): "
					 "cpu %d alt %d,%d,%d reason %d; reference "
					 "cpu %d alt %d,%d,%d reason %d",
					 (unsigned long long)seed, round, a[i].irq,
					 rc->nr, rc->topo->nr_ids, a[i].target,
					 a[i].alt[0], a[i].alt[1], a[i].alt[2],
					 a[i].reason, b[i].target, b[i].alt[0],
					 b[i].alt[1], b[i].alt[2], b[i].reason);
		}
		assert_int_equal(ra.nr_moves, rb.nr_moves);
		assert_memory_equal(ra.before, rb.before, ra.nr_ids * sizeof(double));
		assert_memory_equal(ra.after, rb.after, ra.nr_ids * sizeof(double));
		plan_result_release(&ra);
		plan_ref_release(&rb);
		/* The next run starts from this plan: the steady-state
		 * paths (relabelling, settling) get their turn. */
		for (unsigned int i = 0; i < rc->nr; i++)
			if (!a[i].fixed && a[i].target >= 0)
				rc->irqs[i].pinned = rc->irqs[i].served = a[i].target;
	}
	free(a);
	free(b);
}

/* The planner ranks CPUs with priority queues; the old planner
 * (tests/unit/plan_ref.c) ranked every CPU for every IRQ. Thousands of random
 * machines, small and a few large, must get the same plans from both, and
 * so must the run after, from the plan as the new placement; every other
 * machine with the capacity and vector rules on where they bind nowhere
 * (random_case_loose(); where they bind, plan_int.h says why the
 * reference cannot follow). */
static void test_plan_matches_reference(void **state)
{
	/* IRQTUNE_PLAN_CASES=N compares N machines instead: a deeper
	 * search when the planner changes (40,000 take about 35 s). */
	const char *env = getenv("IRQTUNE_PLAN_CASES");
	unsigned int cases = env ? (unsigned int)strtoul(env, NULL, 10) : 3000;

	(void)state;
	one_thread = true;
	for (unsigned int k = 0; k < cases; k++) {
		uint64_t seed = 0x1f2e3d4c5b6a7988ull + k;
		bool big = k % 200 == 199;
		struct random_case rc;

		rnd_state = seed;
		random_case_new(&rc, big ? 160 : 24, big ? 2000 : 120);
		if (k % 2)
			random_case_loose(&rc);
		same_plan(&rc, seed, 1);
		same_plan(&rc, seed, 2);
		random_case_free(&rc);
	}
	one_thread = false;
}

/* The best busiest CPU counting half the siblings' load over every
 * placement of @n IRQs of no device on the 4 CPUs of machine(1, 2, 2, 1)
 * (cores: 0 and 2, 1 and 3): exhaustive. */
static double smt_best4(const struct plan_irq *v, unsigned int n)
{
	double best = -1;
	unsigned int all = 1;

	for (unsigned int i = 0; i < n; i++)
		all *= 4;
	for (unsigned int code = 0; code < all; code++) {
		double l[4] = { 0 }, p = 0;
		unsigned int x = code;

		for (unsigned int i = 0; i < n; i++, x /= 4)
			l[x % 4] += v[i].load;
		for (unsigned int c = 0; c < 4; c++)
			if (l[c] + l[c ^ 2] / 2 > p)
				p = l[c] + l[c ^ 2] / 2;
		if (best < 0 || p < best)
			best = p;
	}
	return best;
}

/* Issue 34: the improvement steps judge a CPU as the first placement does,
 * by its load plus half its SMT sibling's. On two cores of two threads,
 * 5 to 7 IRQs of unequal loads all starting on CPU 0: by that measure,
 * every plan is within 5% of the exhaustive best (the worst 2.5%), and a
 * second run moves nothing. Judged by a CPU's own load (before issue 34),
 * 20 of the 40 ended more than 5% above and the worst 33%: moves that
 * lowered the busiest thread loaded its sibling's. With that measure but
 * moves of the busiest CPU's own IRQs only, two ended 6% and 12% above:
 * where the busiest thread holds one heavy IRQ, only taking load off its
 * sibling lowers it. */
static void test_smt_objective_kept(void **state)
{
	unsigned int x = 34;

	(void)state;
	for (unsigned int round = 0; round < 40; round++) {
		struct topology *t = machine(1, 2, 2, 1);
		unsigned int n = 5 + round % 3;
		struct plan_irq v[8];
		struct plan_result res;
		double best;

		for (unsigned int i = 0; i < n; i++) {
			x = x * 1103515245u + 12345u;
			v[i] = irq(30 + i, CLASS_OTHER, -1, 0, 0, 0.02 + (x >> 16) % 280 / 1000.0);
		}
		best = smt_best4(v, n);
		plan_ok(t, v, n, &res);
		assert_true(smt_peak(&res, t) <= best * 1.05);
		plan_result_release(&res);
		settle_in(v, n);
		plan_ok(t, v, n, &res);
		assert_int_equal(res.nr_moves, 0);
		plan_result_release(&res);
		topology_free(t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_router),
		cmocka_unit_test(test_avoided_cpus_are_left),
		cmocka_unit_test(test_numa_locality_and_spill),
		cmocka_unit_test(test_second_run_is_still),
		cmocka_unit_test(test_balanced_machine_writes_nothing),
		cmocka_unit_test(test_idle_irqs_spread_by_count),
		cmocka_unit_test(test_heavy_irq_gets_its_cpu_alone),
		cmocka_unit_test(test_fixed_load_is_planned_around),
		cmocka_unit_test(test_spread_irq_is_pinned),
		cmocka_unit_test(test_deterministic_lowest_cpu_wins),
		cmocka_unit_test(test_no_eligible_cpu),
		cmocka_unit_test(test_alternatives_are_distinct),
		cmocka_unit_test(test_site_policy_narrows_cpus),
		cmocka_unit_test(test_narrow_policy_plans_and_stays),
		cmocka_unit_test(test_crowded_cpus_plan_and_settle),
		cmocka_unit_test(test_shift_repairs_with_few_moves),
		cmocka_unit_test(test_forced_move_moves_one),
		cmocka_unit_test(test_idle_vector_does_not_widen_spread),
		cmocka_unit_test(test_nics_and_siblings),
		cmocka_unit_test(test_hundreds_of_idle_irqs),
		cmocka_unit_test(test_big_machine_plans_and_stays),
		cmocka_unit_test(test_resolution_keeps_noise_still),
		cmocka_unit_test(test_plan_matches_reference),
		cmocka_unit_test(test_capacity_weighs_load),
		cmocka_unit_test(test_capacity_heaviest_on_big),
		cmocka_unit_test(test_alike_capacity_plans_as_before),
		cmocka_unit_test(test_app_poller_cpus_are_left),
		cmocka_unit_test(test_app_alike_plans_as_without),
		cmocka_unit_test(test_app_irqs_go_where_there_is_room),
		cmocka_unit_test(test_app_second_run_is_still),
		cmocka_unit_test(test_app_capacity),
		cmocka_unit_test(test_app_queues_double_up_off_pollers),
		cmocka_unit_test(test_app_peak_does_not_hide_the_rest),
		cmocka_unit_test(test_app_light_irq_leaves),
		cmocka_unit_test(test_app_zero_plans_as_without),
		cmocka_unit_test(test_vectors_bound_arrivals),
		cmocka_unit_test(test_vectors_plenty_plans_as_before),
		cmocka_unit_test(test_smt_objective_kept),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
