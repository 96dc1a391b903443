// SPDX-License-Identifier: GPL-2.0-or-later
/* test_loadstep.c - what the load step hands the load sources for each
 * IRQ, a replay that cannot say its clock rate stopping the step
 * before anything is weighed, and the threshold the plan is held to
 * when the history weighs the evidence. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "capture.h"
#include "device.h"
#include "loadstep.h"
#include "plan.h"
#include "source.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Each IRQ in the map's order, with its device's label when it has a
 * device, and none when it has not. */
static void test_targets(void **state)
{
	static const struct {
		unsigned int irq;
		enum irq_class class;
		int group;
		const char *label;
	} cases[] = {
		{ 24, CLASS_NET, 0, "eth0" },
		{ 25, CLASS_NET, 0, "eth0" },
		{ 9, CLASS_OTHER, -1, NULL },
		{ 130, CLASS_STORAGE, 1, "nvme0n1" },
		{ 3, CLASS_OTHER, 2, "" },	/* a device with no name: an empty label */
	};
	struct device_group groups[3] = { 0 };
	struct irq_info irqs[ARRAY_SIZE(cases)] = { 0 };
	struct device_map map = { .nr_irqs = ARRAY_SIZE(cases), .irqs = irqs,
				  .nr_groups = 3, .groups = groups };
	enum irq_class *class = NULL;
	struct measure_target *t = NULL;

	(void)state;
	strcpy(groups[0].label, "eth0");
	strcpy(groups[1].label, "nvme0n1");
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		irqs[i] = (struct irq_info){ .irq = cases[i].irq, .class = cases[i].class,
					     .group = cases[i].group };
	assert_int_equal(loadstep_targets(&map, &class, &t), 0);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_int_equal(class[i], cases[i].class);
		assert_int_equal(t[i].irq, cases[i].irq);
		assert_int_equal(t[i].class, cases[i].class);
		assert_int_equal(t[i].group, cases[i].group);
		if (cases[i].label) {
			assert_ptr_equal(t[i].label, groups[cases[i].group].label);
			assert_string_equal(t[i].label, cases[i].label);
		} else {
			assert_null(t[i].label);
		}
	}
	free(class);
	free(t);

	/* No IRQ: still something to free. */
	map.nr_irqs = 0;
	assert_int_equal(loadstep_targets(&map, &class, &t), 0);
	assert_non_null(class);
	assert_non_null(t);
	free(class);
	free(t);
}

/* A replayed meta member without a whole hz is a broken capture: the step
 * stops on it, before the history or the load source is touched. */
static void test_replay_without_hz(void **state)
{
	static const char *const metas[] = { "window 1\n", "hz 0\n", "hz 99.5\n" };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(metas); i++) {
		struct source fs = { .mode = SOURCE_REPLAY, .cap = capture_new() };
		struct irq_info irqs[1] = { { .irq = 7, .group = -1 } };
		struct device_map map = { .nr_irqs = 1, .irqs = irqs };
		struct loadsrc src = { .table = loadsrc_table };
		struct irqthreads thr = { 0 };
		struct sample_window win = { 0 };
		struct loadstep ls = { 0 };
		const struct loadstep_input in = {
			.fs = &fs, .capture = "x.cap", .no_state = true, .map = &map,
			.win = &win, .src = &src, .thr = &thr,
		};

		assert_non_null(fs.cap);
		assert_int_equal(capture_put(fs.cap, CAPTURE_META, metas[i], strlen(metas[i]), 0),
				 0);
		assert_int_equal(loadstep_weigh(&ls, &in), -EBADMSG);
		assert_null(ls.act);
		assert_string_equal(ls.note, "");
		assert_false(ls.have_costs);
		loadstep_release(&ls);
		capture_free(fs.cap);
	}
}

/* The plan is held to the evidence threshold where the site set none,
 * to the site's own where it did, and left alone where some busy IRQ has
 * no history; the history's note reaches the step's. */
static void test_evidence_threshold(void **state)
{
	static const struct {
		const char *what;
		double var;		/* the second IRQ's mean's variance; -1: none */
		bool threshold_auto;
		double resolution, stability;
	} rows[] = {
		{ "no threshold set", 1e-6, true, 2e-3, PLAN_EVIDENCE_THRESHOLD },
		{ "the site's", 1e-6, false, 2e-3, 0.15 },
		{ "a busy IRQ without a history", -1, true, 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct plan_irq pi[2] = {
			{ .irq = 1, .served = 0, .load = 0.2 },
			{ .irq = 2, .served = 0, .load = 0.1 },
		};
		double mean_var[2] = { 3e-6, rows[i].var };
		struct plan_policy pol = { .threshold = 0.15, .idle_load = PLAN_DEFAULT_IDLE_LOAD };
		struct loadstep ls = { .hist = { .mean_var = mean_var } };

		assert_int_equal(loadstep_evidence(&ls, pi, 2, 2, rows[i].threshold_auto, &pol), 0);
		if (fabs(pol.resolution - rows[i].resolution) > 1e-12 ||
		    pol.stability != rows[i].stability)
			fail_msg("%s: judged to %g at %g, want %g at %g", rows[i].what,
				 pol.resolution, pol.stability, rows[i].resolution,
				 rows[i].stability);
		assert_string_equal(ls.note, ls.hist.note);
		assert_true((strstr(ls.note, "every busy IRQ has a history") != NULL) ==
			    (rows[i].stability > 0));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_targets),
		cmocka_unit_test(test_replay_without_hz),
		cmocka_unit_test(test_evidence_threshold),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
