// SPDX-License-Identifier: GPL-2.0-or-later
/* test_window.c - one run's window of sample.c: which counts it reads and
 * why, and its snapshots replayed from a capture held in memory (the
 * hooks at its edges, the captured times, each way a member or a time can
 * be missing). */
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
#include <time.h>

#include "capture.h"
#include "sample.h"
#include "source.h"

static void test_choose_counts(void **state)
{
	static const struct {
		bool replay;
		const char *env;
		unsigned int online;
		const char *captured, *captured_reason;
		enum snapshot_input counts;
		const char *reason;
	} cases[] = {
		{ false, NULL, 8, NULL, NULL, SNAPSHOT_INTERRUPTS,
		  "/proc/interrupts: 8 online CPUs" },
		{ false, NULL, SAMPLE_STAT_CPUS - 1, NULL, NULL, SNAPSHOT_INTERRUPTS,
		  "/proc/interrupts: 2047 online CPUs" },
		{ false, NULL, SAMPLE_STAT_CPUS, NULL, NULL, SNAPSHOT_STAT,
		  "/proc/stat and effective affinities: 2048 online CPUs" },
		{ false, "stat", 8, NULL, NULL, SNAPSHOT_STAT,
		  "/proc/stat and effective affinities: IRQTUNE_COUNTS=stat" },
		{ false, "interrupts", 4096, NULL, NULL, SNAPSHOT_INTERRUPTS,
		  "/proc/interrupts: IRQTUNE_COUNTS=interrupts" },
		{ false, "bogus", 8, NULL, NULL, SNAPSHOT_INTERRUPTS,
		  "/proc/interrupts: 8 online CPUs" },
		/* a replay repeats the captured run, whatever else says */
		{ true, "interrupts", 8, "stat", "as it was", SNAPSHOT_STAT, "as it was" },
		{ true, "stat", 4096, "interrupts", NULL, SNAPSHOT_INTERRUPTS,
		  "/proc/interrupts, as captured" },
		{ true, NULL, 4096, NULL, NULL, SNAPSHOT_INTERRUPTS,
		  "/proc/interrupts, as captured" },
	};
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct source src = { .mode = cases[i].replay ? SOURCE_REPLAY : SOURCE_LIVE };
		struct sample_window w = { .src = &src };

		sample_choose_counts(&w, cases[i].env, cases[i].online, cases[i].captured,
				     cases[i].captured_reason);
		assert_int_equal(w.counts, cases[i].counts);
		assert_string_equal(w.reason, cases[i].reason);
	}
}

static const char interrupts[] =
	"           CPU0       CPU1\n"
	"  24:        %u          0  PCI-MSI 1-edge      eth0\n"
	"NMI:          0          0   Non-maskable interrupts\n";
static const char stat[] =
	"cpu  1 0 1 100 0 0 0 0 0 0\n"
	"cpu0 1 0 1 50 0 0 0 0 0 0\n"
	"cpu1 0 0 0 50 0 0 0 0 0 0\n"
	"intr 0\n";
static const char softirqs[] =
	"                    CPU0       CPU1\n"
	"          HI:          0          0\n";

/* A capture holding snapshots @first to @last, IRQ 24 counting up. */
static struct capture *capture_of(int first, int last)
{
	struct capture *cap = capture_new();
	char name[64], text[512];

	assert_non_null(cap);
	for (int n = first; n <= last; n++) {
		snprintf(name, sizeof(name), "snapshot-%d/proc/interrupts", n);
		snprintf(text, sizeof(text), interrupts, 100u * n);
		assert_int_equal(capture_put(cap, name, text, strlen(text), 0), 0);
		snprintf(name, sizeof(name), "snapshot-%d/proc/stat", n);
		assert_int_equal(capture_put(cap, name, stat, strlen(stat), 0), 0);
		snprintf(name, sizeof(name), "snapshot-%d/proc/softirqs", n);
		assert_int_equal(capture_put(cap, name, softirqs, strlen(softirqs), 0), 0);
	}
	return cap;
}

struct edges {
	int begun;
	char taken[4][16];
	int nr_taken;
};

static void on_begin(void *ctx)
{
	((struct edges *)ctx)->begun++;
}

static void on_taken(void *ctx, const char *tag, int n)
{
	struct edges *e = ctx;

	assert_int_equal(n, e->nr_taken + 1);
	snprintf(e->taken[e->nr_taken++], sizeof(e->taken[0]), "%s", tag);
}

/* Replayed: no sleeping, the captured times, each edge once. */
static void test_replayed(void **state)
{
	struct source src = { .mode = SOURCE_REPLAY, .cap = capture_of(1, 2) };
	struct edges e = { 0 };
	struct sample_window w = {
		.src = &src, .seconds = 30, .replayed = { 5.5, 6.5, NAN, NAN },
		.begin = on_begin, .taken = on_taken, .ctx = &e,
	};
	const struct irq_row *row;

	(void)state;
	sample_choose_counts(&w, NULL, 2, "interrupts", "captured words");
	assert_int_equal(sample_window_take(&w), 0);
	assert_int_equal(e.begun, 1);
	assert_int_equal(e.nr_taken, 2);
	assert_string_equal(e.taken[1], "snapshot-2");
	assert_float_equal(w.a.when, 5.5, 0);
	assert_float_equal(w.b.when, 6.5, 0);
	assert_float_equal(w.when[1], 6.5, 0);
	assert_float_equal(w.when[2], 0, 0);
	assert_string_equal(w.first, "captured words");
	row = interrupts_find(w.b.intr, 24);
	assert_non_null(row);
	assert_int_equal(row->total, 200);
	sample_window_release(&w);
	capture_free(src.cap);
}

/* What a replay can lack: a member (named by its snapshot and file), or
 * the time of a snapshot. */
static void test_replay_missing(void **state)
{
	static const struct {
		int last;		/* snapshots in the capture */
		double when2;
		int ret;
		const char *tag, *path;
		bool no_time;
	} cases[] = {
		{ 1, 6.5, -ENOENT, "snapshot-2", "/proc/interrupts", false },
		{ 2, NAN, -EINVAL, "snapshot-2", NULL, true },
		{ 2, -1, -EINVAL, "snapshot-2", NULL, true },
		{ 0, 6.5, -ENOENT, "snapshot-1", "/proc/interrupts", false },
	};
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct source src = { .mode = SOURCE_REPLAY, .cap = capture_of(1, cases[i].last) };
		struct sample_window w = { .src = &src, .replayed = { 5.5, cases[i].when2 } };

		sample_choose_counts(&w, NULL, 2, NULL, NULL);
		assert_int_equal(sample_window_take(&w), cases[i].ret);
		assert_string_equal(w.tag, cases[i].tag);
		assert_int_equal(w.no_time, cases[i].no_time);
		if (cases[i].path)
			assert_string_equal(w.path, cases[i].path);
		sample_window_release(&w);
		capture_free(src.cap);
	}
}

/* A short live sleep is as long as asked, at least. */
static void test_sleep(void **state)
{
	struct timespec t0, t1;

	(void)state;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	sample_sleep(0.02);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_true((double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9
		    >= 0.02);
}

static double mono(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

struct ticks {
	unsigned int n;
	double at[SAMPLE_TICKS + 1];
};

static void tick(void *ctx)
{
	struct ticks *t = ctx;

	if (t->n <= SAMPLE_TICKS)
		t->at[t->n] = mono();
	t->n++;
}

/* A live window with ticks: SAMPLE_TICKS of them, in order, spread over
 * the window, the last at its end. */
static void test_ticks(void **state)
{
	struct ticks t = { 0 };
	struct sample_window w = { .seconds = 0.2, .tick = tick, .ctx = &t };
	double t0 = mono();

	(void)state;
	assert_int_equal(sample_window_take(&w), 0);
	assert_int_equal(t.n, SAMPLE_TICKS);
	for (unsigned int k = 1; k < SAMPLE_TICKS; k++)
		assert_true(t.at[k] >= t.at[k - 1]);
	/* Lower bounds only: a slow host (valgrind) may stretch a step. */
	assert_true(t.at[0] - t0 >= 0.2 / SAMPLE_TICKS);
	assert_true(t.at[SAMPLE_TICKS - 1] - t0 >= 0.2);
	assert_true(w.b.when - w.a.when >= 0.2);
	sample_window_release(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_choose_counts),
		cmocka_unit_test(test_replayed),
		cmocka_unit_test(test_replay_missing),
		cmocka_unit_test(test_sleep),
		cmocka_unit_test(test_ticks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
