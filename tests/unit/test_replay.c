// SPDX-License-Identifier: GPL-2.0-or-later
/* test_replay.c - what a capture keeps of a run beyond the files it read:
 * the meta member written and read back line by line, its numbers parsed
 * strictly, and the configuration file kept and parsed again. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "scratch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "config.h"
#include "replay.h"
#include "source.h"

static struct capture *kept_meta(const struct replay_meta *m)
{
	struct source fs = { .mode = SOURCE_RECORD, .cap = capture_new() };

	assert_non_null(fs.cap);
	assert_int_equal(replay_keep_meta(&fs, m), 0);
	assert_int_equal(fs.err, 0);
	return fs.cap;
}

/* Every line a run writes, read back by its key. */
static void test_meta_round_trip(void **state)
{
	static char *const argv[] = { "irqtune", "--capture", "a b.cap", NULL };
	static const struct {
		const char *key, *value;
	} lines[] = {
		{ "format", CAPTURE_FORMAT },
		{ "irqtune", IRQTUNE_VERSION },
		{ "kernel", "Linux 6.1.0 x86_64" },
		{ "hostname", "box" },
		{ "time", "1700000000" },
		{ "command", "irqtune --capture a\\x20b.cap" },
		{ "status", "1" },
		{ "hz", "100" },
		{ "window", "0.5" },
		{ "snapshot-1", "10.25" },
		{ "snapshot-2", "10.75" },
		{ "counts", "stat" },
		{ "counts-reason", "/proc/stat: IRQTUNE_COUNTS=stat" },
		{ "load-source-wanted", "proc" },
		{ "load-source", "proc" },
		{ "costs-now", "1700000001.5" },
	};
	struct replay_meta m = {
		.hostname = "box", .hz = 100, .started = 1700000000.2, .argc = 3,
		.argv = argv, .status = 1, .window = 0.5, .when = { 10.25, 10.75 },
		.counts = "stat", .counts_reason = "/proc/stat: IRQTUNE_COUNTS=stat",
		.load_wanted = "proc", .load_begin = "asked for", .load_used = "proc",
		.load_reason = "estimated", .costs_now = 1700000001.5,
	};
	struct capture *cap;
	char buf[256];
	double v;

	(void)state;
	strcpy(m.uts.sysname, "Linux");
	strcpy(m.uts.release, "6.1.0");
	strcpy(m.uts.machine, "x86_64");
	cap = kept_meta(&m);
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		assert_non_null(replay_meta_get(cap, lines[i].key, buf, sizeof(buf)));
		assert_string_equal(buf, lines[i].value);
	}
	assert_null(replay_meta_get(cap, "snapshot-3", buf, sizeof(buf)));
	assert_int_equal(replay_meta_double(cap, "snapshot-2", &v), 0);
	assert_float_equal(v, 10.75, 0);
	assert_int_equal(replay_meta_double(cap, "snapshot-4", &v), -ENOENT);
	assert_int_equal(replay_meta_double(cap, "hostname", &v), -EINVAL);
	capture_free(cap);
}

/* A run's first record, before anything was read: no snapshots, no load
 * source, no costs; and no capture at all has no meta. */
static void test_meta_early(void **state)
{
	struct replay_meta m = { .counts = "interrupts", .counts_reason = "" };
	struct capture *cap;
	char buf[64];

	(void)state;
	replay_meta_host(&m);
	assert_true(m.hz > 0);
	cap = kept_meta(&m);
	assert_non_null(replay_meta_get(cap, "status", buf, sizeof(buf)));
	assert_string_equal(buf, "0");
	assert_null(replay_meta_get(cap, "counts", buf, sizeof(buf)));
	assert_null(replay_meta_get(cap, "load-source", buf, sizeof(buf)));
	assert_null(replay_meta_get(cap, "costs-now", buf, sizeof(buf)));
	assert_null(replay_meta_get(NULL, "status", buf, sizeof(buf)));
	capture_free(cap);
}

/* The numbers a replay takes from the meta member. */
static void test_meta_double(void **state)
{
	static const struct {
		const char *text;
		int ret;
		double v;
	} cases[] = {
		{ "hz 100\n", 0, 100 },
		{ "hz -1.5\n", 0, -1.5 },	/* the caller bounds it */
		{ "hz 1e3\n", 0, 1000 },
		{ "hz 100x\n", -EINVAL, 0 },
		{ "hz inf\n", -EINVAL, 0 },
		{ "hz nan\n", -EINVAL, 0 },
		{ "hz\n", -ENOENT, 0 },	/* no value is no line */
		{ "window 1\n", -ENOENT, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct capture *cap = capture_new();
		double v = -42;

		assert_non_null(cap);
		assert_int_equal(capture_put(cap, CAPTURE_META, cases[i].text,
					     strlen(cases[i].text), 0), 0);
		assert_int_equal(replay_meta_double(cap, "hz", &v), cases[i].ret);
		assert_float_equal(v, cases[i].ret == 0 ? cases[i].v : -42, 0);
		capture_free(cap);
	}
}

/* USER_HZ as a replay takes it: a whole number of ticks, within reason. */
static void test_meta_hz(void **state)
{
	static const struct {
		const char *text;
		int ret;
		long hz;
	} cases[] = {
		{ "hz 100\n", 0, 100 },
		{ "hz 1\n", 0, 1 },
		{ "hz 100000\n", 0, 100000 },
		{ "hz 1e3\n", 0, 1000 },
		{ "hz 0\n", -EINVAL, 0 },
		{ "hz 100001\n", -EINVAL, 0 },
		{ "hz 99.5\n", -EINVAL, 0 },
		{ "hz -100\n", -EINVAL, 0 },
		{ "hz x\n", -EINVAL, 0 },
		{ "window 1\n", -EINVAL, 0 },	/* none */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct capture *cap = capture_new();
		long hz = -42;

		assert_non_null(cap);
		assert_int_equal(capture_put(cap, CAPTURE_META, cases[i].text,
					     strlen(cases[i].text), 0), 0);
		assert_int_equal(replay_meta_hz(cap, &hz), cases[i].ret);
		assert_int_equal(hz, cases[i].ret == 0 ? cases[i].hz : -42);
		capture_free(cap);
	}
}

/* A measurement of two CPUs with one of each kind of line. */
static char *measure_text(const char *extra)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	fputs("# a comment\nwindow 1.5\nuse_ctx 1\ndropped 3\ncpus 2\n", f);
	for (int c = 0; c < 2; c++) {
		fprintf(f, "soft %d", c);
		for (int k = 0; k < 2 * MEASURE_NR_SOFTIRQS; k++)
			fprintf(f, " %d", 100 * c + k);
		fputc('\n', f);
	}
	fputs("irq 42 1 1000 2000 7 eth0\\x20q0\nnapi 1 42 500 9 eth0\nnapi 0 -1 5 1 lo\n"
	      "threads_timed 1\nthread 42 1 300 2\nprobe 1 2 3 4.5 5\nmissed 4\n", f);
	fputs(extra, f);
	assert_int_equal(fclose(f), 0);
	return text;
}

/* What the kernel program summed, read back as written, and written back
 * as read. */
static void test_measure_round_trip(void **state)
{
	char *text = measure_text(""), *again, *third;
	size_t len;
	struct measure_raw *raw, *raw2;
	unsigned int line = 0;

	(void)state;
	assert_int_equal(replay_parse_measure(text, &raw, &line), 0);
	assert_float_equal(raw->window, 1.5, 0);
	assert_true(raw->use_ctx);
	assert_int_equal(raw->dropped, 3);
	assert_int_equal(raw->missed, 4);
	assert_int_equal(raw->nr_cpus, 2);
	assert_int_equal(raw->soft_ns[1][2], 102);
	assert_int_equal(raw->soft_events[1][0], 100 + MEASURE_NR_SOFTIRQS);
	assert_int_equal(raw->nr_irqs, 1);
	assert_int_equal(raw->irqs[0].irq, 42);
	assert_int_equal(raw->irqs[0].cpu, 1);
	assert_int_equal(raw->irqs[0].handler_ns, 1000);
	assert_int_equal(raw->irqs[0].ctx_ns, 2000);
	assert_int_equal(raw->irqs[0].count, 7);
	assert_string_equal(raw->irqs[0].name, "eth0 q0");
	assert_int_equal(raw->nr_napi, 2);
	assert_int_equal(raw->napi[0].cpu, 1);
	assert_int_equal(raw->napi[0].irq, 42);
	assert_int_equal(raw->napi[0].ns, 500);
	assert_int_equal(raw->napi[0].polls, 9);
	assert_string_equal(raw->napi[0].dev, "eth0");
	assert_int_equal(raw->napi[1].irq, -1);
	assert_true(raw->threads_timed);
	assert_int_equal(raw->nr_threads, 1);
	assert_int_equal(raw->threads[0].irq, 42);
	assert_int_equal(raw->threads[0].ns, 300);
	assert_int_equal(raw->threads[0].runs, 2);
	assert_float_equal(raw->probe.napi, 4.5, 0);

	assert_int_equal(replay_format_measure(raw, &again, &len), 0);
	assert_int_equal(strlen(again), len);
	assert_int_equal(replay_parse_measure(again, &raw2, &line), 0);
	assert_int_equal(replay_format_measure(raw2, &third, &len), 0);
	assert_string_equal(again, third);
	measure_raw_free(raw);
	measure_raw_free(raw2);
	free(text);
	free(again);
	free(third);
}

/* Pinned application threads' time: kept where the program counted it,
 * and a measurement without it (an older capture) reads as not counted
 * and is written back without it. */
static void test_measure_app(void **state)
{
	char *text = measure_text("app_cpus 2\napp 1 900 3\n"), *again, *old;
	size_t len;
	struct measure_raw *raw, *raw2;
	unsigned int line = 0;

	(void)state;
	assert_int_equal(replay_parse_measure(text, &raw, &line), 0);
	assert_true(raw->app_timed);
	assert_int_equal(raw->app_cpus, 2);
	assert_int_equal(raw->app_ns[0], 0);
	assert_int_equal(raw->app_ns[1], 900);
	assert_int_equal(raw->app_runs[1], 3);
	assert_int_equal(replay_format_measure(raw, &again, &len), 0);
	assert_non_null(strstr(again, "\napp_cpus 2\n"));
	assert_non_null(strstr(again, "\napp 1 900 3\n"));
	assert_null(strstr(again, "\napp 0 "));	/* nothing there: no line */
	measure_raw_free(raw);
	free(again);

	old = measure_text("");
	assert_int_equal(replay_parse_measure(old, &raw2, &line), 0);
	assert_false(raw2->app_timed);
	assert_int_equal(replay_format_measure(raw2, &again, &len), 0);
	assert_null(strstr(again, "app"));
	measure_raw_free(raw2);
	free(again);
	free(old);
	free(text);
}

/* Each malformed line is refused with its number; no memory is no line. */
static void test_measure_bad_lines(void **state)
{
	static const struct {
		const char *text;	/* after the good ones */
		int ret;
		int line;		/* from the end of the good ones; 0: none */
	} cases[] = {
		{ "irq 42 1 1000 2000 7\n", -EINVAL, 1 },	/* no name */
		{ "irq 42 2 1 1 1 x\n", 0, 0 },			/* CPU ids are the kernel's */
		{ "irq 99999999 1 1 1 1 x\n", -EINVAL, 1 },
		{ "irq 42 1 -1 1 1 x\n", -EINVAL, 1 },
		{ "thread 42 1 300\n", -EINVAL, 1 },
		{ "thread 42 99999999 300 1\n", -EINVAL, 1 },
		{ "napi 1 -2 5 1 lo\n", -EINVAL, 1 },
		{ "napi 99999999 1 5 1 lo\n", -EINVAL, 1 },
		{ "soft 2 0\n", -EINVAL, 1 },
		{ "threads_timed 2\n", -EINVAL, 1 },
		{ "probe 1 2 3 4 -5\n", -EINVAL, 1 },
		{ "probe 1 2 3 4 nan\n", -EINVAL, 1 },
		{ "# fine\nwhat 1\n", -EINVAL, 2 },
		{ "cpus 3\n", -EINVAL, 1 },		/* only the header has it */
		{ "dropped 7\n", 0, 0 },		/* the header's stands */
		{ "app 1 5 1\n", -EINVAL, 1 },		/* no app_cpus before it */
		{ "app_cpus 0\n", -EINVAL, 1 },
		{ "app_cpus 2\napp 2 5 1\n", -EINVAL, 2 },	/* no such CPU row */
		{ "app_cpus 2\napp 1 -5 1\n", -EINVAL, 2 },
	};
	static const struct {
		const char *text;
		int ret;
		unsigned int line;
	} heads[] = {
		{ "window 1\n", -EINVAL, 1 },		/* no cpus: the last line named */
		{ "cpus 2\n", -EINVAL, 1 },		/* no window */
		{ "window 1\ncpus x\n", -EINVAL, 2 },
		/* A header number out of range keeps its -ERANGE, and so no
		 * line: the caller names the member only. */
		{ "window 1\nuse_ctx 2\ncpus 1\n", -ERANGE, 0 },
		{ "window 1 2\ncpus 1\n", -EINVAL, 1 },
		{ "soft 0 1\n", -EINVAL, 1 },		/* before the header */
		{ "window 1\ncpus 1\n", 0, 0 },
	};
	int good;

	(void)state;
	{
		char *text = measure_text("");

		good = 0;
		for (const char *p = text; *p; p++)
			good += *p == '\n';
		free(text);
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = measure_text(cases[i].text);
		struct measure_raw *raw = NULL;
		unsigned int line = 0;

		assert_int_equal(replay_parse_measure(text, &raw, &line), cases[i].ret);
		if (cases[i].ret < 0) {
			assert_null(raw);
			assert_int_equal(line, good + cases[i].line);
		} else {
			assert_non_null(raw);
			if (strncmp(cases[i].text, "dropped", 7) == 0)
				assert_int_equal(raw->dropped, 3);
		}
		measure_raw_free(raw);
		free(text);
	}
	for (size_t i = 0; i < sizeof(heads) / sizeof(heads[0]); i++) {
		struct measure_raw *raw = NULL;
		unsigned int line = 0;

		line = 42;
		assert_int_equal(replay_parse_measure(heads[i].text, &raw, &line), heads[i].ret);
		if (heads[i].ret < 0)
			assert_int_equal(line, heads[i].line);
		else
			assert_non_null(raw);
		measure_raw_free(raw);
	}
}

/* A recording keeps the measurement as the member a replay reads; a live
 * run, or one with nothing measured, keeps nothing. */
static void test_keep_measure(void **state)
{
	struct source fs = { .mode = SOURCE_RECORD, .cap = capture_new() };
	struct source live = { .mode = SOURCE_LIVE };
	char *text = measure_text("");
	struct measure_raw *raw, *back;
	const struct capture_member *m;
	unsigned int line = 0;

	(void)state;
	assert_non_null(fs.cap);
	assert_int_equal(replay_parse_measure(text, &raw, &line), 0);
	replay_keep_measure(&live, raw);
	replay_keep_measure(&fs, NULL);
	assert_null(capture_get(fs.cap, REPLAY_MEASURE));
	replay_keep_measure(&fs, raw);
	assert_int_equal(fs.err, 0);
	m = capture_get(fs.cap, REPLAY_MEASURE);
	assert_non_null(m);
	assert_non_null(m->data);
	assert_int_equal(replay_parse_measure(m->data, &back, &line), 0);
	assert_int_equal(back->nr_irqs, 1);
	assert_int_equal(back->irqs[0].count, 7);
	measure_raw_free(raw);
	measure_raw_free(back);
	free(text);
	capture_free(fs.cap);
}

/* The configuration file as read, parsed again on replay; a capture
 * without one is the defaults, a bad one names its line. */
static void test_config(void **state)
{
	struct source fs = { .mode = SOURCE_RECORD, .cap = capture_new() };
	struct source live = { .mode = SOURCE_LIVE };
	struct config cfg;
	struct config_error err;
	char path[128];
	FILE *f;

	(void)state;
	assert_non_null(fs.cap);
	snprintf(path, sizeof(path), "%s/irqtune.conf", scratch_dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("window = 2.5\n", f);
	assert_int_equal(fclose(f), 0);

	config_init(&cfg);
	assert_int_equal(replay_config(fs.cap, &cfg, &err), 0);
	assert_float_equal(cfg.window, 0, 0);	/* none kept: defaults */
	config_release(&cfg);

	replay_keep_config(&live, path);	/* not recording: nothing */
	replay_keep_config(&fs, path);
	assert_non_null(capture_get(fs.cap, REPLAY_CONFIG));
	config_init(&cfg);
	assert_int_equal(replay_config(fs.cap, &cfg, &err), 0);
	assert_float_equal(cfg.window, 2.5, 0);
	config_release(&cfg);

	assert_int_equal(capture_put(fs.cap, REPLAY_CONFIG, "x\nwindow = -1\n", 14, 0), 0);
	config_init(&cfg);
	assert_int_equal(replay_config(fs.cap, &cfg, &err), -EINVAL);
	assert_int_equal(err.line, 1);
	config_release(&cfg);
	capture_free(fs.cap);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_meta_round_trip),
		cmocka_unit_test(test_meta_hz),
		cmocka_unit_test(test_measure_round_trip),
		cmocka_unit_test(test_measure_app),
		cmocka_unit_test(test_measure_bad_lines),
		cmocka_unit_test(test_keep_measure),
		cmocka_unit_test(test_meta_early),
		cmocka_unit_test(test_meta_double),
		cmocka_unit_test(test_config),
	};

	return cmocka_run_group_tests(tests, scratch_setup, scratch_teardown);
}
