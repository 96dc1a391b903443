// SPDX-License-Identifier: GPL-2.0-or-later
/* test_history.c - what a run makes of the load history: whether it keeps
 * one, the weighted means it plans with (each window weighed by its
 * length, halved every HISTORY_HALF_LIFE runs), the rules that tell a
 * shifted load from noise (the window against the interval before it,
 * and against the history), the evidence behind a mean, and the evidence
 * rule that judges a plan on several windows. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "scratch.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpuset.h"
#include "device.h"
#include "history.h"
#include "plan.h"
#include "sample.h"
#include "state.h"

#define BOOT "9a17a830-db8b-47e3-8c6d-cceade8bb582"
#define NOW 1796348475.0
#define NR(a) (sizeof(a) / sizeof((a)[0]))
#define STR_(x) #x
#define STR(x) STR_(x)

/* One window of @n IRQs through the history @old; the loads planned. */
static struct state *window(const struct state *old, const struct state_sample *s,
			    unsigned int n, double *load)
{
	struct state *st = NULL;

	assert_int_equal(history_update(old, s, n, NOW, 0.001, load, &st), 0);
	assert_non_null(st);
	return st;
}

static void check_close(const char *row, const char *what, double got, double want)
{
	if (!(fabs(got - want) <= 1e-12 * fmax(fabs(want), 1e-300)))
		fail_msg("%s: %s %.17g, want %.17g", row, what, got, want);
}

/* The window against the interval before it: more than a tenth of the
 * interval's load and a clock tick apart is a shift, exactly at it not. */
static void test_window_shifted(void **state)
{
	static const struct {
		double s, l, tick;
		bool shifted;
	} rows[] = {
		{ 0.1099, 0.1, 0, false },	/* within a tenth */
		{ 0.1101, 0.1, 0, true },
		{ 0.0901, 0.1, 0, false },	/* below as above */
		{ 0.0899, 0.1, 0, true },
		{ 0.115, 0.1, 0.006, false },	/* a tick more of room */
		{ 0.115, 0.1, 0.004, true },
		{ 0.0005, 0, 0.001, false },	/* from nothing: the tick alone */
		{ 0.002, 0, 0.001, true },
		{ 0.5, 0.5, 0, false },
		{ 1.0, 0.5, 0, true },		/* doubled */
		{ 0.25, 0.5, 0, true },		/* halved */
	};

	(void)state;
	for (size_t i = 0; i < NR(rows); i++)
		if (history_window_shifted(rows[i].s, rows[i].l, rows[i].tick) != rows[i].shifted)
			fail_msg("row %zu: window %g after %g, tick %g: %s", i, rows[i].s,
				 rows[i].l, rows[i].tick, rows[i].shifted ? "not shifted" : "shifted");
}

/* A window against the history: beyond three standard deviations of the
 * windows, a quarter of the mean and the floor it restarts (the window
 * planned as it is); within, it joins the mean. */
static void test_shift_rule(void **state)
{
	static const struct {
		const char *what;
		double mean, var, x, floor;
		bool said_shifted, restarts;
	} rows[] = {
		{ "a quarter up, less a hair", 0.1, 0, 0.1249, 0, false, false },
		{ "a quarter up, and a hair", 0.1, 0, 0.1251, 0, false, true },
		{ "a quarter down, less a hair", 0.1, 0, 0.0751, 0, false, false },
		{ "a quarter down, and a hair", 0.1, 0, 0.0749, 0, false, true },
		{ "three deviations beside it", 0.1, 1e-4, 0.1549, 0, false, false },
		{ "three deviations beyond it", 0.1, 1e-4, 0.1551, 0, false, true },
		{ "the floor beside it", 0.1, 0, 0.1349, 0.01, false, false },
		{ "the floor beyond it", 0.1, 0, 0.1351, 0.01, false, true },
		{ "from nothing, within the floor", 0, 0, 0.0009, 0.001, false, false },
		{ "from nothing, beyond the floor", 0, 0, 0.0011, 0.001, false, true },
		{ "the same load, said to have shifted", 0.1, 0, 0.1, 0, true, true },
	};

	(void)state;
	for (size_t i = 0; i < NR(rows); i++) {
		struct state_irq q = {
			.irq = 40, .device = "0000:18:00.0", .name = "eth0-rx-0",
			.mean = rows[i].mean, .var = rows[i].var, .runs = 5,
			.weight = 3, .weight2 = 2, .shift_var = -1,
		};
		struct state old = { .nr = 1, .irqs = &q }, *now = NULL;
		struct state_sample s = {
			40, "0000:18:00.0", "eth0-rx-0", rows[i].x, 1, rows[i].said_shifted,
		};
		double load;

		assert_int_equal(history_update(&old, &s, 1, NOW, rows[i].floor, &load, &now), 0);
		if ((now->irqs[0].runs == 1) != rows[i].restarts)
			fail_msg("%s: %g after a mean of %g: %s", rows[i].what, rows[i].x,
				 rows[i].mean, rows[i].restarts ? "joined the mean" : "restarted");
		if (rows[i].restarts) {
			check_close(rows[i].what, "load", load, rows[i].x);
			check_close(rows[i].what, "variance before", now->irqs[0].shift_var,
				    rows[i].var);
		} else {
			assert_int_equal(now->irqs[0].runs, 6);
			assert_true(now->irqs[0].shift_var < 0);
		}
		state_free(now);
	}
}

/* Windows of one IRQ in a row (load, seconds): the mean, the variance of
 * the windows, the weights and the variance of the mean they come to.
 * The figures were worked out apart from the code, from the rule: a
 * window of t seconds joins with weight t over W = keep * W' + t, keep =
 * 2^(-1/4); a shift restarts at weight t, and a restart in a window of 30
 * seconds or more keeps the variance before it as its evidence. */
static void test_weighted_means(void **state)
{
	static const struct {
		const char *what;
		double x[5], secs[5];
		unsigned int n;
		double mean, var, weight, weight2, mean_var;
		unsigned int runs;
	} rows[] = {
		{ "one window: no evidence", { 0.1 }, { 1 }, 1,
		  0.1, 0, 1, 1, -1, 1 },
		{ "two seconds", { 0.1, 0.11 }, { 1, 1 }, 2,
		  0.10543213616862945, 2.4813258331762236e-05, 1.8408964152537144,
		  1.7071067811865475, 1.2499302550986865e-05, 2 },
		{ "a minute, then a second", { 0.1, 0.11 }, { 60, 1 }, 2,
		  0.10019434916238867, 1.9057200269654554e-06, 51.453784915222869,
		  2546.5844122715707, 1.8330846505419108e-06, 2 },
		{ "three seconds", { 0.1, 0.11, 0.1 }, { 1, 1, 1 }, 3,
		  0.10330021726985471, 2.2110738670299793e-05, 2.5480031964402619,
		  2.2071067811865475, 7.5166903485062636e-06, 3 },
		{ "five seconds of noise", { 0.2, 0.21, 0.19, 0.2, 0.22 }, { 1, 1, 1, 1, 1 }, 5,
		  0.20518171986111974, 0.0001186969299018162, 3.6426067539416223,
		  2.810660171779821, 2.5143356238783941e-05, 5 },
		{ "three minutes", { 0.05, 0.052, 0.049 }, { 60, 60, 60 }, 3,
		  0.050267579268134334, 1.6409524290431785e-06, 152.88019178641571,
		  7945.5844122715707, 5.5785251997551335e-07, 3 },
		{ "a shift in a minute: evidence", { 0.1, 0.102, 0.06 }, { 60, 60, 60 }, 3,
		  0.06, 0.00022668416100400109, 60, 3600, 9.9253033327047864e-07, 1 },
		{ "a shift in a second: none", { 0.1, 0.102, 0.06 }, { 60, 60, 1 }, 3,
		  0.06, 0.00022668416100400109, 1, 1, -1, 1 },
	};

	(void)state;
	for (size_t i = 0; i < NR(rows); i++) {
		struct state *h = NULL, *n;
		double load = 0;

		for (unsigned int k = 0; k < rows[i].n; k++) {
			struct state_sample s = {
				40, "0000:18:00.0", "eth0-rx-0", rows[i].x[k], rows[i].secs[k], false,
			};

			n = window(h, &s, 1, &load);
			state_free(h);
			h = n;
		}
		check_close(rows[i].what, "planned load", load, rows[i].mean);
		check_close(rows[i].what, "mean", h->irqs[0].mean, rows[i].mean);
		check_close(rows[i].what, "variance", h->irqs[0].var, rows[i].var);
		check_close(rows[i].what, "weight", h->irqs[0].weight, rows[i].weight);
		check_close(rows[i].what, "weight2", h->irqs[0].weight2, rows[i].weight2);
		check_close(rows[i].what, "variance of the mean", history_mean_var(&h->irqs[0]),
			    rows[i].mean_var);
		if (h->irqs[0].runs != rows[i].runs)
			fail_msg("%s: %u runs, want %u", rows[i].what, h->irqs[0].runs,
				 rows[i].runs);
		state_free(h);
	}
}

/* The evidence rule, on three busy IRQs of up to two CPUs and one more
 * (fixed, idle or busy) that may or may not have a history: with every
 * busy IRQ's mean known, the plan is judged to the standard error of the
 * busiest CPU's sum (2 + 3 = 5e-6 on CPU 0: 0.224%), and the note names
 * the threshold the caller holds it to; otherwise nothing is judged. */
static void test_evidence_rule(void **state)
{
	enum { LEAVES = 0, JUDGES };
	static const struct {
		const char *what;
		bool fixed;		/* the fourth IRQ */
		double load, var;
		int served;
		double stability;	/* the threshold the note names */
		int want;
		double resolution;
		const char *note;
	} rows[] = {
		{ "a fourth with a history", false, 0.1, 1e-6, 1, PLAN_EVIDENCE_THRESHOLD, JUDGES,
		  sqrt(5e-6),
		  "x; every busy IRQ has a history: plans judged to 0.22% of a CPU, threshold 2%" },
		{ "the site's threshold stands", false, 0.1, 1e-6, 1, 0.15, JUDGES,
		  sqrt(5e-6),
		  "x; every busy IRQ has a history: plans judged to 0.22% of a CPU, threshold 15%" },
		{ "the busiest CPU is the one judged", false, 0.1, 5e-6, 1, PLAN_EVIDENCE_THRESHOLD,
		  JUDGES, sqrt(6e-6),
		  "x; every busy IRQ has a history: plans judged to 0.24% of a CPU, threshold 2%" },
		{ "a busy one new", false, 0.1, -1, 1, 0.02, LEAVES, 0, "x" },
		{ "a busy one on no known CPU", false, 0.1, 1e-6, -1, 0.02, LEAVES, 0, "x" },
		{ "a busy one beyond the CPUs", false, 0.1, 1e-6, 8, 0.02, LEAVES, 0, "x" },
		{ "a fixed one new is not judged", true, 0.1, -1, 1, PLAN_EVIDENCE_THRESHOLD, JUDGES,
		  sqrt(5e-6),
		  "x; every busy IRQ has a history: plans judged to 0.22% of a CPU, threshold 2%" },
		{ "an idle one new is not judged", false, 0.0001, -1, 1, PLAN_EVIDENCE_THRESHOLD,
		  JUDGES, sqrt(5e-6),
		  "x; every busy IRQ has a history: plans judged to 0.22% of a CPU, threshold 2%" },
	};

	(void)state;
	for (size_t i = 0; i < NR(rows); i++) {
		struct history_placed ip[4] = {
			{ .served = 0, .load = 0.2 },
			{ .served = 0, .load = 0.1 },
			{ .served = 1, .load = 0.1 },
			{ .served = rows[i].served, .load = rows[i].load, .fixed = rows[i].fixed },
		};
		double mean_var[4] = { 2e-6, 3e-6, 1e-6, rows[i].var };
		struct history h = { .mean_var = mean_var, .note = "x" };
		double res = -1;
		int r = history_weigh_evidence(&h, ip, 4, 4, PLAN_DEFAULT_IDLE_LOAD,
					       rows[i].stability, &res);

		if (r != rows[i].want)
			fail_msg("%s: %d, want %d", rows[i].what, r, rows[i].want);
		if (rows[i].want == JUDGES)
			check_close(rows[i].what, "resolution", res, rows[i].resolution);
		else if (res != -1)
			fail_msg("%s: judged to %g", rows[i].what, res);
		if (strcmp(h.note, rows[i].note) != 0)
			fail_msg("%s: note \"%s\", want \"%s\"", rows[i].what, h.note, rows[i].note);
	}
}

/* A CPU's application load's mean is known to its standard error as
 * well: added to its IRQs' variance, the busiest sum judged. */
static void test_evidence_app(void **state)
{
	struct history_placed ip[2] = {
		{ .served = 0, .load = 0.2 },
		{ .served = 1, .load = 0.1 },
	};
	double mean_var[2] = { 2e-6, 1e-6 };
	/* CPU 1's application (+-10% around 0.5 after a few windows) */
	double app_var[3] = { 0, 4e-4, 1e-5 };
	struct history h = { .mean_var = mean_var, .app_var = app_var, .nr_app_var = 3 };
	double res = 0;

	(void)state;
	assert_int_equal(history_weigh_evidence(&h, ip, 2, 4, PLAN_DEFAULT_IDLE_LOAD,
						PLAN_EVIDENCE_THRESHOLD, &res), 1);
	check_close("app", "resolution", res, sqrt(1e-6 + 4e-4));
	/* without it, the IRQs' alone */
	h.app_var = NULL;
	h.nr_app_var = 0;
	h.note[0] = '\0';
	assert_int_equal(history_weigh_evidence(&h, ip, 2, 4, PLAN_DEFAULT_IDLE_LOAD,
						PLAN_EVIDENCE_THRESHOLD, &res), 1);
	check_close("no app", "resolution", res, sqrt(2e-6));
}

/* Nothing busy: nothing to judge. No history kept: nothing either. */
static void test_evidence_none(void **state)
{
	struct history_placed ip[2] = {
		{ .served = 0, .load = 0.0001 },
		{ .served = 1, .load = 0.2, .fixed = true },
	};
	double mean_var[2] = { 1e-6, 1e-6 };
	struct history h = { .mean_var = mean_var }, off = { 0 };
	double res = -1;

	(void)state;
	assert_int_equal(history_weigh_evidence(&h, ip, 2, 2, PLAN_DEFAULT_IDLE_LOAD, 0.02, &res),
			 0);
	assert_true(res == -1 && !h.note[0]);
	ip[0].load = 0.2;
	assert_int_equal(history_weigh_evidence(&off, ip, 2, 2, PLAN_DEFAULT_IDLE_LOAD, 0.02,
						&res), 0);
	assert_true(res == -1 && !off.note[0]);
}

/* Whether a run keeps a history, and what it says when it does not or
 * cannot trust the one it finds. */
static void test_begin(void **state)
{
	static const struct {
		const char *what;
		bool no_state, live, native, state_dir;
		const char *file;	/* the state file's text, NULL: none */
		bool on;
		const char *note, *warn;
	} rows[] = {
		{ "--no-state", true, true, true, true, NULL, false, "not used (--no-state)", "" },
		{ "a capture or replay", false, false, true, true, NULL, false,
		  "not used by a capture or its replay", "" },
		{ "a test machine's /proc, no state-dir", false, true, false, false, NULL, false,
		  "not used: /proc is not the kernel's own, and no state-dir is set", "" },
		{ "none yet", false, true, false, true, NULL, true, "", "" },
		{ "another boot's, dropped silently", false, true, true, true,
		  "irqtune-state " STR(STATE_VERSION) "\nboot x\ntime 1796348475\n", true, "", "" },
		{ "garbage, named", false, true, true, true, "not a history\n", true, "",
		  "/state: not an irqtune state file; planning from this window alone" },
	};
	struct device_map map = { 0 };

	(void)state;
	for (size_t i = 0; i < NR(rows); i++) {
		struct history_opts o = {
			.no_state = rows[i].no_state, .live = rows[i].live,
			.native = rows[i].native, .state_dir = rows[i].state_dir ? scratch_dir : NULL,
			.now = NOW,
		};
		char boot[64] = BOOT, path[300];
		struct history h;
		const char *w;

		snprintf(path, sizeof(path), "%s/state", scratch_dir);
		unlink(path);
		if (rows[i].file) {
			FILE *f = fopen(path, "w");

			assert_non_null(f);
			fputs(rows[i].file, f);
			fclose(f);
		}
		assert_int_equal(history_begin(&h, &o, &map, boot, sizeof(boot)), 0);
		if (h.on != rows[i].on)
			fail_msg("%s: %s", rows[i].what, h.on ? "kept" : "not kept");
		if (strcmp(h.note, rows[i].note) != 0)
			fail_msg("%s: note \"%s\", want \"%s\"", rows[i].what, h.note, rows[i].note);
		/* the warning names the file: compare what follows the directory */
		w = h.warn[0] ? h.warn + strlen(scratch_dir) : "";
		if (strcmp(w, rows[i].warn) != 0)
			fail_msg("%s: warning \"%s\", want \"...%s\"", rows[i].what, h.warn,
				 rows[i].warn);
		history_release(&h);
	}
}

/* A dry run plans with the history as a run that writes would, and keeps
 * it only where a state-dir asked it to. */
static void test_dry_run(void **state)
{
	static const struct {
		const char *what;
		bool dry_run, state_dir, keep;
	} rows[] = {
		{ "a run that writes", false, false, true },
		{ "a dry run", true, false, false },
		{ "a dry run with a state-dir", true, true, true },
	};
	struct irq_info irqs[1] = { { .irq = 40, .group = -1 } };
	struct device_map map = { .nr_irqs = 1, .irqs = irqs };
	struct snapshot b = { 0 };
	char path[300];

	(void)state;
	/* Only whether it would keep it: /run/irqtune is the host's, and only
	 * read here. */
	for (size_t i = 0; i < NR(rows); i++) {
		struct history_opts o = {
			.live = true, .native = true, .dry_run = rows[i].dry_run,
			.state_dir = rows[i].state_dir ? scratch_dir : NULL, .now = NOW,
		};
		char boot[64] = BOOT;
		struct history h;

		assert_int_equal(history_begin(&h, &o, &map, boot, sizeof(boot)), 0);
		if (!h.on || h.keep != rows[i].keep)
			fail_msg("%s: %s, %s", rows[i].what, h.on ? "used" : "not used",
				 h.keep ? "kept" : "not kept");
		history_release(&h);
	}

	/* The end of a run that may not keep it, in the scratch directory
	 * (as history_begin() leaves a dry run's without a state-dir): the
	 * window is weighed, and nothing is written. Then kept when asked. */
	snprintf(path, sizeof(path), "%s/state", scratch_dir);
	for (int keep = 0; keep < 2; keep++) {
		struct history_opts o = {
			.live = true, .native = true, .dry_run = true, .state_dir = scratch_dir,
			.now = NOW,
		};
		struct irq_activity act[1] = { { .irq = 40, .load = 0.25 } };
		struct history_window w = {
			.map = &map, .act = act, .b = &b, .secs = 1, .hz = 100, .now = NOW,
		};
		char boot[64] = BOOT, want[400];
		struct history h;

		unlink(path);
		assert_int_equal(history_begin(&h, &o, &map, boot, sizeof(boot)), 0);
		h.keep = keep;
		assert_int_equal(history_end(&h, &w, boot), 0);
		assert_non_null(h.window_load);
		assert_true(h.window_load[0] == 0.25 && act[0].load == 0.25);
		/* (this window's counters, none here, are another matter) */
		snprintf(want, sizeof(want), keep ? "history started in %s;" :
			 "no history yet in %s; not kept by a dry run", path);
		if (keep ? strncmp(h.note, want, strlen(want)) != 0 : strcmp(h.note, want) != 0)
			fail_msg("note \"%s\", want \"%s%s\"", h.note, want, keep ? "..." : "");
		assert_string_equal(h.warn, "");
		assert_int_equal(access(path, F_OK) == 0, keep);
		history_release(&h);
	}
	unlink(path);
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

/* One run on a machine of @nr CPU ids whose application load over its
 * window is @app (weighed in place), @online (NULL: all) online: the
 * history read from and kept in scratch_dir, at @when. The state file's
 * first line into @head when not NULL. */
static void app_run_irq(double *app, unsigned int nr, const struct cpuset *online,
			double when, char *head, size_t len, int irq_cpu)
{
	struct history_opts o = {
		.live = true, .native = true, .state_dir = scratch_dir, .now = when,
	};
	/* one IRQ of a tenth of a CPU on @irq_cpu, when not -1 */
	struct irq_info ii = { .irq = 30, .group = -1, .name = "eth0" };
	struct irq_activity act = { .irq = 30, .load = 0.1, .top_cpu = irq_cpu };
	struct device_map map = { .nr_irqs = irq_cpu >= 0, .irqs = &ii };
	struct snapshot b = { 0 };
	struct history_window w = {
		.map = &map, .act = &act, .b = &b, .secs = 1, .hz = 100, .now = when,
		.app = app, .nr_app_ids = nr, .app_online = online,
	};
	char boot[64] = BOOT, path[300];
	struct history h;

	assert_int_equal(history_begin(&h, &o, &map, boot, sizeof(boot)), 0);
	assert_true(h.on);
	assert_string_equal(h.warn, "");
	assert_int_equal(history_end(&h, &w, boot), 0);
	assert_string_equal(h.warn, "");
	history_release(&h);
	if (head) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/state", scratch_dir);
		f = fopen(path, "r");
		assert_non_null(f);
		assert_non_null(fgets(head, (int)len, f));
		fclose(f);
	}
}

static void app_run(double *app, unsigned int nr, const struct cpuset *online, double when,
		    char *head, size_t len)
{
	app_run_irq(app, nr, online, when, head, len, -1);
}

static void app_fresh(void)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/state", scratch_dir);
	unlink(path);
}

/* A pinned application's load noisy by +-10% around 0.5 of a CPU: the
 * plan sees the mean within a few per cent from the second run on, and
 * its history never restarts. A CPU without application load stays 0. */
static void test_app_noise_smoothed(void **state)
{
	static const double noisy[] = { 0.55, 0.45, 0.53, 0.47, 0.55, 0.46, 0.51, 0.45 };
	double worst = 0, worst_window = 0;
	char head[64];

	(void)state;
	app_fresh();
	for (size_t i = 0; i < NR(noisy); i++) {
		double app[2] = { 0, noisy[i] };

		app_run(app, 2, NULL, NOW + 60.0 * (double)i, head, sizeof(head));
		assert_true(app[0] == 0);
		worst_window = fmax(worst_window, fabs(noisy[i] - 0.5));
		if (i > 0)
			worst = fmax(worst, fabs(app[1] - 0.5));
	}
	assert_string_equal(head, "irqtune-state " STR(STATE_VERSION_APP) "\n");
	/* windows 10% off, the planned load from the second run on 2.3%
	 * at most (0.4957 .. 0.5113 of a CPU) */
	assert_true(worst_window >= 0.05);
	assert_true(worst <= 0.0125);
	app_fresh();
}

/* A step from 0.2 to 0.9 of a CPU is followed in the run that sees it;
 * so is the application ending. A small load that stops fades out, and
 * within a few runs the file keeps no application lines (a version 4's,
 * as a machine without pinned threads writes). */
static void test_app_step_followed(void **state)
{
	double app[2];
	char head[64];

	(void)state;
	app_fresh();
	for (int i = 0; i < 4; i++) {
		app[0] = 0.2;
		app[1] = 0.01 * i;
		app_run(app, 2, NULL, NOW + 60.0 * i, head, sizeof(head));
		assert_true(fabs(app[0] - 0.2) < 1e-9);
	}
	app[0] = 0.9;
	app_run(app, 2, NULL, NOW + 240, NULL, 0);
	assert_true(fabs(app[0] - 0.9) < 1e-9);
	/* The shift taught the variance something, as an IRQ's (see
	 * test_smooth_and_shift): a few steady windows, then the end. */
	for (int i = 0; i < 4; i++) {
		app[0] = 0.9;
		app[1] = 0.03;
		app_run(app, 2, NULL, NOW + 300 + 60.0 * i, NULL, 0);
		assert_true(fabs(app[0] - 0.9) < 1e-9);
	}
	for (int i = 0; i < 8; i++) {
		app[0] = app[1] = 0;
		app_run(app, 2, NULL, NOW + 540 + 60.0 * i, head, sizeof(head));
		assert_true(app[0] == 0);
		if (strcmp(head, "irqtune-state " STR(STATE_VERSION_READ) "\n") == 0)
			break;
		/* a few hundredths of a CPU fading, above a 1 s window's tick */
		assert_true(app[1] > 0.01 && app[1] < 0.03);
	}
	assert_string_equal(head, "irqtune-state " STR(STATE_VERSION_READ) "\n");
	assert_true(app[1] == 0);
	app_fresh();
}

/* Keyed by CPU id: a CPU offline in a run loses its history (back
 * online, it starts from its window), and another count of CPU ids drops
 * them all. */
static void test_app_offline_dropped(void **state)
{
	struct cpuset *online = cpuset_new(4);
	double app[4];

	(void)state;
	assert_non_null(online);
	app_fresh();
	for (int i = 0; i < 3; i++) {
		app[0] = app[1] = app[2] = app[3] = 0.5;
		app_run(app, 4, NULL, NOW + 60.0 * i, NULL, 0);
	}
	/* a window 12% low, below the shift rule's reach: smoothed */
	app[0] = app[1] = app[2] = app[3] = 0.44;
	cpuset_set(online, 0);
	cpuset_set(online, 1);
	cpuset_set(online, 3);
	app_run(app, 4, online, NOW + 180, NULL, 0);
	assert_true(app[0] > 0.46 && app[0] < 0.5);
	assert_true(app[2] == 0.44);		/* offline: not weighed */
	/* CPU 2 back: its history is gone, the window is planned */
	app[0] = app[1] = app[2] = app[3] = 0.44;
	app_run(app, 4, NULL, NOW + 240, NULL, 0);
	assert_true(app[0] > 0.45 && app[0] < 0.5);
	assert_true(fabs(app[2] - 0.44) < 1e-9);
	/* six CPU ids now: every history starts afresh */
	{
		double six[6] = { 0.44, 0.44, 0.44, 0.44, 0.44, 0.44 };

		app_run(six, 6, NULL, NOW + 300, NULL, 0);
		for (int c = 0; c < 6; c++)
			assert_true(fabs(six[c] - 0.44) < 1e-9);
	}
	cpuset_free(online);
	app_fresh();
}

/* A busy thread runs what IRQs leave it: a queue moved off its CPU
 * raises its load by the queue's. Not noise to learn, nor a step to
 * smooth: that CPU's history restarts from the window. Where the IRQ
 * stayed, the same step is weighed with the history. */
static void test_app_irq_moved(void **state)
{
	double app[2];

	(void)state;
	for (int moved = 0; moved < 2; moved++) {
		app_fresh();
		for (int i = 0; i < 3; i++) {
			app[0] = 0.8;
			app[1] = 0.1;
			app_run_irq(app, 2, NULL, NOW + 60.0 * i, NULL, 0, 0);
			assert_true(fabs(app[0] - 0.8) < 1e-9);
		}
		app[0] = 0.9;
		app[1] = 0.1;
		app_run_irq(app, 2, NULL, NOW + 180, NULL, 0, moved ? 1 : 0);
		if (moved)
			assert_true(fabs(app[0] - 0.9) < 1e-9);
		else
			assert_true(app[0] > 0.81 && app[0] < 0.89);
		/* CPU 1 gained the tenth: its history restarts too, at the
		 * same load */
		assert_true(fabs(app[1] - 0.1) < 1e-9);
	}
	app_fresh();
}

/* A version 4 file, of before application lines, is read: the
 * application load's history starts now. */
static void test_app_old_file(void **state)
{
	char path[300];
	double app[2] = { 0.3, 0.6 };
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/state", scratch_dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "irqtune-state 4\nboot %s\ntime %.0f\n"
		"irq 38 0000:00:03.0 virtio2-input.0 12300000 0 3 3000000 3000000\n", BOOT, NOW);
	fclose(f);
	app_run(app, 2, NULL, NOW + 60, NULL, 0);
	assert_true(fabs(app[0] - 0.3) < 1e-9 && fabs(app[1] - 0.6) < 1e-9);
	/* and that run's file is a version 5 with its history */
	app[0] = 0.33;
	app[1] = 0.57;
	app_run(app, 2, NULL, NOW + 120, NULL, 0);
	assert_true(app[0] > 0.3 && app[0] < 0.33 && app[1] > 0.57 && app[1] < 0.6);
	app_fresh();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window_shifted),
		cmocka_unit_test(test_shift_rule),
		cmocka_unit_test(test_weighted_means),
		cmocka_unit_test(test_evidence_rule),
		cmocka_unit_test(test_evidence_app),
		cmocka_unit_test(test_evidence_none),
		cmocka_unit_test(test_begin),
		cmocka_unit_test(test_dry_run),
		cmocka_unit_test(test_smooth_and_shift),
		cmocka_unit_test(test_noisy_load_learned),
		cmocka_unit_test(test_key_changes),
		cmocka_unit_test(test_mean_var),
		cmocka_unit_test(test_shift_restarts_with_evidence),
		cmocka_unit_test(test_app_noise_smoothed),
		cmocka_unit_test(test_app_step_followed),
		cmocka_unit_test(test_app_offline_dropped),
		cmocka_unit_test(test_app_irq_moved),
		cmocka_unit_test(test_app_old_file),
	};

	return cmocka_run_group_tests(tests, scratch_setup, scratch_teardown);
}
