// SPDX-License-Identifier: GPL-2.0-or-later
/* test_history.c - the weighing of a window with the load history: noise
 * smoothed, a shift followed at once, a changed IRQ started afresh, and
 * the evidence behind a mean. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "history.h"
#include "state.h"

#define BOOT "9a17a830-db8b-47e3-8c6d-cceade8bb582"
#define NOW 1796348475.0

static char dir[] = "/tmp/irqtune-test-history.XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* One window of @n IRQs through the history @old; the loads planned. */
static struct state *window(const struct state *old, const struct state_sample *s,
			    unsigned int n, double *load)
{
	struct state *st = NULL;

	assert_int_equal(history_update(old, s, n, NOW, 0.001, load, &st), 0);
	assert_non_null(st);
	return st;
}

/* A steady load with noise: the plan sees the mean, not the window. A
 * doubling: followed in the same run. */
static void test_smooth_and_shift(void **state)
{
	static const double noisy[] = { 0.100, 0.108, 0.093, 0.104, 0.097, 0.102, 0.095 };
	struct state_sample s = { 40, "0000:18:00.0", "eth0-rx-0", 0, 1, false };
	struct state *h = NULL, *n;
	double load, worst = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(noisy) / sizeof(noisy[0]); i++) {
		s.load = noisy[i];
		n = window(h, &s, 1, &load);
		state_free(h);
		h = n;
		/* the mean of the first two windows is 4% off */
		if (i == 1)
			assert_true(fabs(load - 0.1) < 0.005);
		if (i > 1)
			worst = fmax(worst, fabs(load - 0.1));
	}
	/* windows are off by up to 8%, the planned load from the third on
	 * by less than 3% */
	assert_true(worst < 0.003);
	assert_int_equal(h->irqs[0].runs, 7);
	s.load = 0.2;
	n = window(h, &s, 1, &load);
	assert_true(fabs(load - 0.2) < 1e-12);
	assert_int_equal(n->irqs[0].runs, 1);
	state_free(h);
	h = n;
	/* The shift itself taught the variance something: a second one just
	 * after it needs a few steady windows to be told from noise. */
	for (int i = 0; i < 4; i++) {
		s.load = 0.2;
		n = window(h, &s, 1, &load);
		state_free(h);
		h = n;
	}
	s.load = 0.0;
	n = window(h, &s, 1, &load);
	assert_true(load == 0);
	state_free(h);
	state_free(n);
}

/* An estimate that swings by half its value from window to window (the
 * tick-sampled /proc source on an idle VM): after a few windows its
 * history knows the noise and smooths it instead of restarting. */
static void test_noisy_load_learned(void **state)
{
	static const double swing[] = { 0.05, 0.12, 0.03, 0.10, 0.04, 0.11, 0.05, 0.09 };
	struct state_sample s = { 36, "0000:00:02.0", "virtio1-req.0", 0, 1, false };
	struct state *h = NULL, *n;
	double load;
	unsigned int restarts = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(swing) / sizeof(swing[0]); i++) {
		s.load = swing[i];
		n = window(h, &s, 1, &load);
		restarts += i > 0 && n->irqs[0].runs == 1;
		state_free(h);
		h = n;
	}
	assert_true(restarts <= 2);
	assert_true(h->irqs[0].runs >= 5);
	assert_true(load > 0.05 && load < 0.10);
	state_free(h);
}

/* Another device on a reused number, or a renamed handler: a new IRQ. */
static void test_key_changes(void **state)
{
	struct state_sample s = { 40, "0000:18:00.0", "eth0-rx-0", 0.3, 1, false };
	struct state *h, *n;
	double load;

	(void)state;
	h = window(NULL, &s, 1, &load);
	s.load = 0.31;
	n = window(h, &s, 1, &load);
	assert_int_equal(n->irqs[0].runs, 2);
	state_free(n);
	s.device = "0000:19:00.0";
	n = window(h, &s, 1, &load);
	assert_int_equal(n->irqs[0].runs, 1);
	assert_true(n->irqs[0].var == 0);
	state_free(n);
	s.device = "0000:18:00.0";
	s.name = "nvme0q1";
	n = window(h, &s, 1, &load);
	assert_int_equal(n->irqs[0].runs, 1);
	state_free(n);
	s.name = "eth0-rx-0";
	s.load = NAN;	/* a load not believed counts as none */
	n = window(h, &s, 1, &load);
	assert_true(load == 0);
	state_free(n);
	state_free(h);
}

/* The evidence behind a planned mean: none in its first window, then the
 * variance of the windows times the squared weights the mean gave them,
 * falling towards alpha / (2 - alpha) of it as windows pile up. */
static void test_mean_var(void **state)
{
	const double keep = exp2(-1.0 / HISTORY_HALF_LIFE);
	struct state_sample s = { 40, "0000:18:00.0", "eth0-rx-0", 0.1, 1, false };
	struct state *h = NULL, *n;
	double load, prev = 1;

	(void)state;
	n = window(h, &s, 1, &load);
	h = n;
	assert_true(history_mean_var(&h->irqs[0]) < 0);
	for (int i = 2; i < 60; i++) {
		double v, want;

		s.load = i % 2 ? 0.098 : 0.102;
		n = window(h, &s, 1, &load);
		state_free(h);
		h = n;
		/* the mean's share of a window's variance only falls */
		assert_true(h->irqs[0].var > 0);
		v = history_mean_var(&h->irqs[0]) / h->irqs[0].var;
		assert_true(v > 0 && (i < 20 ? v < prev : v <= prev * (1 + 1e-9)));
		prev = v;
		if (i == 2) {
			want = (keep * keep + 1) / ((keep + 1) * (keep + 1));
			assert_true(fabs(v - want) < 1e-12);
		}
	}
	/* windows alike: var * (1 - keep) / (1 + keep) in the end */
	assert_true(fabs(prev / ((1 - keep) / (1 + keep)) - 1) < 1e-3);
	/* a minute's window after them outweighs them all */
	s.load = 0.1;
	s.secs = 60;
	n = window(h, &s, 1, &load);
	assert_true(n->irqs[0].weight > 60 && n->irqs[0].weight < 60 + 1 / (1 - keep));
	assert_true(fabs(load - 0.1) < 0.0005);
	state_free(h);
	state_free(n);
}

/* A load that falls by two fifths has shifted (a history that blended it
 * in at a sixth a run would take many runs to follow it); the history
 * restarts from the new window. A minute's window of it is evidence on its
 * own, as precise as the minutes before it were; a second's is not. */
static void test_shift_restarts_with_evidence(void **state)
{
	struct state_sample s = { 40, "0000:18:00.0", "eth0-rx-0", 0.1, 60, false };
	struct state *h = NULL, *n;
	double load, before;

	(void)state;
	for (int i = 0; i < 8; i++) {
		s.load = i % 2 ? 0.098 : 0.102;
		n = window(h, &s, 1, &load);
		state_free(h);
		h = n;
	}
	before = h->irqs[0].var;
	assert_true(before > 0 && history_mean_var(&h->irqs[0]) > 0);
	/* a second's window of the new load: planned, but no evidence yet */
	s.load = 0.06;
	s.secs = 1;
	n = window(h, &s, 1, &load);
	assert_true(n->irqs[0].runs == 1 && fabs(load - 0.06) < 1e-12);
	assert_true(history_mean_var(&n->irqs[0]) < 0);
	state_free(n);
	/* a minute's: known as well as the minutes before it */
	s.secs = 60;
	n = window(h, &s, 1, &load);
	assert_true(n->irqs[0].runs == 1 && fabs(load - 0.06) < 1e-12);
	if (!(history_mean_var(&n->irqs[0]) == before))
		fail_msg("evidence %g after the shift, the windows before had %g",
			 history_mean_var(&n->irqs[0]), before);
	/* the variance itself learnt the jump */
	assert_true(n->irqs[0].var > before);
	state_free(n);
	/* a tenth less is noise of a kind the history absorbs */
	s.load = 0.09;
	n = window(h, &s, 1, &load);
	assert_true(n->irqs[0].runs == 9 && load > 0.09 && load < 0.1);
	state_free(n);
	/* read back from a file, nothing is a fresh shift */
	{
		char *text = NULL, why[128] = "";
		struct state *back = NULL;

		assert_int_equal(state_format(h, BOOT, &text), 0);
		assert_int_equal(state_parse(text, BOOT, NOW, &back, why, sizeof(why)), 0);
		assert_true(back->irqs[0].shift_var < 0);
		free(text);
		state_free(back);
	}
	state_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_smooth_and_shift),
		cmocka_unit_test(test_noisy_load_learned),
		cmocka_unit_test(test_key_changes),
		cmocka_unit_test(test_mean_var),
		cmocka_unit_test(test_shift_restarts_with_evidence),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
