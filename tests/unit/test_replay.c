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
		cmocka_unit_test(test_meta_early),
		cmocka_unit_test(test_meta_double),
		cmocka_unit_test(test_config),
	};

	return cmocka_run_group_tests(tests, scratch_setup, scratch_teardown);
}
