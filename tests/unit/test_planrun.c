// SPDX-License-Identifier: GPL-2.0-or-later
/* test_planrun.c - the planner's input from a run's parts, and the apply
 * loop against a writer that refuses what each case says: a refused IRQ
 * stays, is reported as its refusal, and the rest is planned around it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "device.h"
#include "planrun.h"
#include "policy.h"
#include "sample.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* What stops an IRQ from being planned, in the order the outcome names
 * the first that applies; and which CPU stands for its load now. */
static void test_input(void **state)
{
	static const struct {
		bool gone, unnamed, banned, managed, no_cpu;
		int top_cpu, effective, pinned;
		enum report_outcome out;
		int served;
	} cases[] = {
		{ .top_cpu = 3, .effective = 2, .pinned = 1, .out = OUT_KEPT, .served = 3 },
		{ .top_cpu = -1, .effective = 2, .pinned = 1, .out = OUT_KEPT, .served = 2 },
		{ .top_cpu = -1, .effective = -1, .pinned = 1, .out = OUT_KEPT, .served = 1 },
		{ .top_cpu = -1, .effective = -1, .pinned = -1, .out = OUT_KEPT, .served = -1 },
		{ .gone = true, .unnamed = true, .banned = true, .managed = true, .no_cpu = true,
		  .top_cpu = 0, .out = OUT_GONE, .served = 0 },
		{ .unnamed = true, .banned = true, .managed = true, .no_cpu = true,
		  .top_cpu = 0, .out = OUT_UNUSED, .served = 0 },
		{ .banned = true, .managed = true, .no_cpu = true, .top_cpu = 0,
		  .out = OUT_BANNED, .served = 0 },
		{ .managed = true, .no_cpu = true, .top_cpu = 0, .out = OUT_MANAGED, .served = 0 },
		{ .no_cpu = true, .top_cpu = 0, .out = OUT_NOCPU, .served = 0 },
	};
	enum { N = ARRAY_SIZE(cases) };
	struct irq_info ii[N] = { 0 };
	struct irq_activity act[N] = { 0 };
	struct policy_irq po[N] = { 0 };
	struct cpuset *allowed = cpuset_new(8);
	struct device_map map = { .nr_irqs = N, .irqs = ii };
	struct policy pol = { .nr_irqs = N, .irqs = po };
	struct planrun_parts parts = { .map = &map, .act = act, .pol = &pol, .nr = N };
	struct plan_irq *pi = NULL;
	enum report_outcome *out = NULL;

	(void)state;
	assert_non_null(allowed);
	for (unsigned int i = 0; i < N; i++) {
		ii[i] = (struct irq_info){
			.irq = 40 + i, .group = (int)i % 3 - 1, .class = CLASS_NET,
			.node = (int)i % 2, .pinned = cases[i].pinned,
			.effective = cases[i].effective, .managed = cases[i].managed,
			.gone = cases[i].gone,
		};
		strcpy(ii[i].name, cases[i].unnamed ? "" : "eth0-TxRx-0");
		act[i] = (struct irq_activity){ .top_cpu = cases[i].top_cpu,
						.load = 0.01 * (i + 1) };
		po[i].ban = cases[i].banned ? BAN_LIST : BAN_NONE;
		po[i].no_cpu = cases[i].no_cpu;
		po[i].allowed = i == 1 ? allowed : NULL;
	}
	assert_int_equal(planrun_input(&parts, &pi, &out), 0);
	for (unsigned int i = 0; i < N; i++) {
		assert_int_equal(out[i], cases[i].out);
		assert_int_equal(pi[i].fixed, cases[i].out != OUT_KEPT);
		assert_int_equal(pi[i].served, cases[i].served);
		assert_int_equal(pi[i].irq, 40 + i);
		assert_int_equal(pi[i].group, ii[i].group);
		assert_int_equal(pi[i].node, ii[i].node);
		assert_int_equal(pi[i].pinned, cases[i].pinned);
		assert_int_equal(pi[i].class, CLASS_NET);
		assert_true(pi[i].load == act[i].load);
		assert_ptr_equal(pi[i].allowed, i == 1 ? allowed : NULL);
	}
	free(pi);
	free(out);

	/* No IRQ at all is still two arrays to free. */
	parts.nr = 0;
	assert_int_equal(planrun_input(&parts, &pi, &out), 0);
	assert_non_null(pi);
	assert_non_null(out);
	free(pi);
	free(out);
	cpuset_free(allowed);
}

/* The fake kernel: how it answers a write to each IRQ, and what it was
 * asked. */
struct fake {
	enum apply_outcome answer[4];	/* per IRQ 10..13 */
	int take_alt;			/* accept cpus[take_alt], not the target */
	unsigned int writes[16], nr_writes;
	unsigned int refused[16], nr_refused;
};

static void fake_write(void *ctx, unsigned int irq, const int *cpus, unsigned int nr_cpus,
		       struct apply_result *res)
{
	struct fake *f = ctx;

	assert_int_equal(nr_cpus, 1 + PLAN_ALTS);
	assert_true(f->nr_writes < ARRAY_SIZE(f->writes));
	f->writes[f->nr_writes++] = irq;
	memset(res, 0, sizeof(*res));
	res->outcome = f->answer[irq - 10];
	res->cpu = res->outcome == APPLY_MOVED ? cpus[f->take_alt] : -1;
	res->err = res->outcome == APPLY_FAILED ? 5 : 0;
}

static void fake_refused(void *ctx, unsigned int i, const struct plan_irq *pi,
			 const struct apply_result *res)
{
	struct fake *f = ctx;

	assert_int_equal(res->outcome, APPLY_FAILED);
	assert_true(pi->fixed || pi->target >= 0);
	f->refused[f->nr_refused++] = i;
}

/* Four CPUs; two busy IRQs on CPU 0, idle ones on CPUs 2 and 3: the plan
 * moves one busy IRQ off CPU 0. */
static struct topology *four_cpus(void)
{
	struct topology *t = topology_new(4);

	assert_non_null(t);
	for (int id = 0; id < 4; id++) {
		t->cpus[id] = (struct cpu_info){ .online = true, .core = id, .llc = 0,
						 .package = 0, .node = 0 };
	}
	t->nr_nodes = 1;
	topology_update_sets(t);
	return t;
}

static void setup_irqs(struct plan_irq *pi, enum report_outcome *out)
{
	for (unsigned int i = 0; i < 4; i++) {
		pi[i] = (struct plan_irq){
			.irq = 10 + i, .class = CLASS_NET, .group = -1, .node = 0,
			.pinned = i < 2 ? 0 : (int)i, .served = i < 2 ? 0 : (int)i,
			.load = i < 2 ? 0.4 : 0,
		};
		out[i] = OUT_KEPT;
	}
}

/* Of the busy IRQs (0, 1), the one planned to move. */
static unsigned int moving(const struct plan_irq *pi)
{
	assert_true(plan_moves(&pi[0]) != plan_moves(&pi[1]));
	return plan_moves(&pi[0]) ? 0 : 1;
}

static void test_apply_loop(void **state)
{
	static const struct {
		enum apply_outcome first;	/* the answer to the first move */
		enum report_outcome out;	/* what it makes of that IRQ */
	} cases[] = {
		{ APPLY_MOVED, OUT_MOVED },
		{ APPLY_MANAGED, OUT_MANAGED },
		{ APPLY_GONE, OUT_GONE },
		{ APPLY_FAILED, OUT_FAILED },
	};
	const struct plan_policy pol = {
		.threshold = PLAN_DEFAULT_THRESHOLD, .idle_load = PLAN_DEFAULT_IDLE_LOAD,
	};

	(void)state;
	for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
		struct topology *t = four_cpus();
		struct plan_irq pi[4];
		enum report_outcome out[4];
		struct plan_result res = { 0 };
		struct fake f = { .answer = { APPLY_MOVED, APPLY_MOVED, APPLY_MOVED,
					      APPLY_MOVED } };
		struct planrun_apply a = {
			.topo = t, .pol = &pol, .pi = pi, .out = out, .nr = 4, .res = &res,
			.write = fake_write, .refused = fake_refused, .ctx = &f,
		};
		unsigned int m, other;
		int target;

		setup_irqs(pi, out);
		assert_int_equal(plan_compute(t, pi, 4, &pol, &res), 0);
		m = moving(pi);
		other = 1 - m;
		target = pi[m].target;
		f.answer[m] = cases[c].first;
		assert_int_equal(planrun_apply_loop(&a), 0);

		assert_int_equal(out[m], cases[c].out);
		assert_int_equal(f.writes[0], 10 + m);
		if (cases[c].first == APPLY_MOVED) {
			/* Pinned where it went; nothing else written. */
			assert_int_equal(f.nr_writes, 1);
			assert_int_equal(pi[m].pinned, target);
			assert_int_equal(pi[m].served, target);
			assert_int_equal(out[other], OUT_KEPT);
			assert_false(pi[m].fixed);
		} else {
			/* Fixed on CPU 0, the other busy IRQ is re-planned
			 * off it instead, and written. */
			assert_true(pi[m].fixed);
			assert_int_equal(pi[m].pinned, 0);
			assert_int_equal(f.nr_writes, 2);
			assert_int_equal(f.writes[1], 10 + other);
			assert_int_equal(out[other], OUT_MOVED);
			assert_true(pi[other].pinned != 0);
			assert_true(res.after[0] < 0.5);
		}
		assert_int_equal(f.nr_refused, cases[c].first == APPLY_FAILED);
		if (f.nr_refused)
			assert_int_equal(f.refused[0], m);
		assert_int_equal(out[2], OUT_KEPT);
		assert_int_equal(out[3], OUT_KEPT);
		plan_result_release(&res);
		topology_free(t);
	}
}

/* One IRQ written, another refused: the re-plan starts from where the
 * first went, but "before" stays the placement the run found. */
static void test_apply_before_kept(void **state)
{
	const struct plan_policy pol = {
		.threshold = PLAN_DEFAULT_THRESHOLD, .idle_load = PLAN_DEFAULT_IDLE_LOAD,
	};
	struct topology *t = four_cpus();
	struct plan_irq pi[4];
	enum report_outcome out[4];
	struct plan_result res = { 0 };
	struct fake f = { .answer = { APPLY_MOVED, APPLY_MOVED, APPLY_FAILED,
				      APPLY_MOVED } };
	struct planrun_apply a = {
		.topo = t, .pol = &pol, .pi = pi, .out = out, .nr = 4, .res = &res,
		.write = fake_write, .refused = fake_refused, .ctx = &f,
	};
	double found[4];

	(void)state;
	setup_irqs(pi, out);
	/* Three busy IRQs on CPU 0: two must move, and IRQ 12 refuses. */
	pi[2] = (struct plan_irq){ .irq = 12, .class = CLASS_NET, .group = -1, .node = 0,
				   .pinned = 0, .served = 0, .load = 0.4 };
	assert_int_equal(plan_compute(t, pi, 4, &pol, &res), 0);
	memcpy(found, res.before, sizeof(found));
	assert_true(found[0] > 1.19 && found[0] < 1.21);
	assert_true(plan_moves(&pi[2]));
	assert_int_equal(planrun_apply_loop(&a), 0);
	assert_int_equal(out[2], OUT_FAILED);
	assert_true(pi[2].fixed);
	for (unsigned int k = 0; k < 4; k++)
		assert_true(res.before[k] == found[k]);
	/* Two busy IRQs still shared CPU 0 after the first round: the
	 * re-plan moved one of those that could move. */
	assert_true(res.after[0] < 0.81);
	plan_result_release(&res);
	topology_free(t);
}

/* The kernel takes a fallback CPU: the IRQ is where the kernel put it. */
static void test_apply_fallback(void **state)
{
	const struct plan_policy pol = {
		.threshold = PLAN_DEFAULT_THRESHOLD, .idle_load = PLAN_DEFAULT_IDLE_LOAD,
	};
	struct topology *t = four_cpus();
	struct plan_irq pi[4];
	enum report_outcome out[4];
	struct plan_result res = { 0 };
	struct fake f = { .take_alt = 1 };
	struct planrun_apply a = {
		.topo = t, .pol = &pol, .pi = pi, .out = out, .nr = 4, .res = &res,
		.write = fake_write, .ctx = &f,
	};
	unsigned int m;
	int alt;

	(void)state;
	setup_irqs(pi, out);
	assert_int_equal(plan_compute(t, pi, 4, &pol, &res), 0);
	m = moving(pi);
	alt = pi[m].alt[0];
	assert_true(alt >= 0 && alt != pi[m].target);
	assert_int_equal(planrun_apply_loop(&a), 0);
	assert_int_equal(out[m], OUT_MOVED);
	assert_int_equal(pi[m].target, alt);
	assert_int_equal(pi[m].pinned, alt);
	assert_int_equal(pi[m].served, alt);
	assert_int_equal(f.nr_writes, 1);
	plan_result_release(&res);
	topology_free(t);
}

/* A kernel that refuses everything: each busy IRQ is tried once, fixed,
 * and the loop ends within its rounds. */
static void test_apply_all_refused(void **state)
{
	const struct plan_policy pol = {
		.threshold = PLAN_DEFAULT_THRESHOLD, .idle_load = PLAN_DEFAULT_IDLE_LOAD,
	};
	struct topology *t = four_cpus();
	struct plan_irq pi[4];
	enum report_outcome out[4];
	struct plan_result res = { 0 };
	struct fake f = { .answer = { APPLY_FAILED, APPLY_FAILED, APPLY_FAILED,
				      APPLY_FAILED } };
	struct planrun_apply a = {
		.topo = t, .pol = &pol, .pi = pi, .out = out, .nr = 4, .res = &res,
		.write = fake_write, .refused = fake_refused, .ctx = &f,
	};

	(void)state;
	setup_irqs(pi, out);
	assert_int_equal(plan_compute(t, pi, 4, &pol, &res), 0);
	assert_int_equal(planrun_apply_loop(&a), 0);
	assert_int_equal(f.nr_writes, 2);
	assert_int_equal(f.nr_refused, 2);
	assert_int_equal(out[0], OUT_FAILED);
	assert_int_equal(out[1], OUT_FAILED);
	assert_int_equal(pi[0].pinned, 0);
	assert_int_equal(pi[1].pinned, 0);
	assert_false(plan_moves(&pi[0]) || plan_moves(&pi[1]));
	plan_result_release(&res);
	topology_free(t);
}

/* A dry run writes nothing: what would move says so, the rest is as it
 * was. */
static void test_apply_dry_run(void **state)
{
	const struct plan_policy pol = {
		.threshold = PLAN_DEFAULT_THRESHOLD, .idle_load = PLAN_DEFAULT_IDLE_LOAD,
	};
	struct topology *t = four_cpus();
	struct plan_irq pi[4];
	enum report_outcome out[4];
	struct plan_result res = { 0 };
	unsigned int m;

	(void)state;
	setup_irqs(pi, out);
	assert_int_equal(plan_compute(t, pi, 4, &pol, &res), 0);
	m = moving(pi);
	out[1 - m] = OUT_BANNED;
	assert_int_equal(planrun_apply(t, &pol, NULL, pi, out, 4, &res, true), 0);
	assert_int_equal(out[m], OUT_WOULD_MOVE);
	assert_int_equal(out[1 - m], OUT_BANNED);
	assert_int_equal(out[2], OUT_KEPT);
	assert_int_equal(out[3], OUT_KEPT);
	assert_int_equal(pi[m].pinned, 0);
	plan_result_release(&res);
	topology_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_input),
		cmocka_unit_test(test_apply_loop),
		cmocka_unit_test(test_apply_before_kept),
		cmocka_unit_test(test_apply_fallback),
		cmocka_unit_test(test_apply_all_refused),
		cmocka_unit_test(test_apply_dry_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
