// SPDX-License-Identifier: GPL-2.0-or-later
/* test_runcapture.c - what --capture's meta member records of a run at
 * each point it may be written (begun, stopped before the load source,
 * finished), a recording begun with it, and a capture that cannot be
 * written or read. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "scratch.h"

#include "capture.h"
#include "loadsrc.h"
#include "replay.h"
#include "runcapture.h"
#include "sample.h"
#include "source.h"

static void test_meta(void **state)
{
	static char *argv[] = { "irqtune", "--capture", "x", NULL };
	static const struct {
		double when1, when3;		/* snapshot-1's, snapshot-3's (the stat pair) */
		enum snapshot_input counts;
		bool chosen;
		const char *want_counts, *want_wanted, *want_used;	/* NULL: no line */
	} cases[] = {
		{ 0, 0, SNAPSHOT_INTERRUPTS, false, NULL, NULL, NULL },	/* begun */
		{ 0, 0, SNAPSHOT_INTERRUPTS, true, NULL, "proc", "proc" },
		{ 10, 0, SNAPSHOT_INTERRUPTS, false, "interrupts", NULL, NULL },
		{ 10, 0, SNAPSHOT_STAT, false, "stat", NULL, NULL },
		{ 10, 12.5, SNAPSHOT_INTERRUPTS, true, "stat", "proc", "proc" },
		{ 10, 0, SNAPSHOT_INTERRUPTS, true, "interrupts", "proc", "proc" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct source fs = { .mode = SOURCE_RECORD, .cap = capture_new() };
		struct sample_window win = { .counts = cases[i].counts };
		struct loadsrc src = { .table = loadsrc_table };
		const struct runcapture_parts p = {
			.started = 1000, .argc = 3, .argv = argv, .window = 2, .win = &win,
			.src = cases[i].chosen ? &src : NULL, .begin_reason = "asked",
		};
		char buf[64];

		/* wanted and used: the proc source, by its name in the table */
		assert_int_equal(loadsrc_find(loadsrc_table, "proc", &src.want), 0);
		src.used = src.want;
		assert_non_null(fs.cap);
		win.when[0] = cases[i].when1;
		win.when[2] = cases[i].when3;
		assert_int_equal(runcapture_meta(&fs, &p, 69), 0);
		if (cases[i].want_counts) {
			assert_non_null(replay_meta_get(fs.cap, "counts", buf, sizeof(buf)));
			assert_string_equal(buf, cases[i].want_counts);
		} else {
			assert_null(replay_meta_get(fs.cap, "counts", buf, sizeof(buf)));
		}
		assert_non_null(replay_meta_get(fs.cap, "status", buf, sizeof(buf)));
		assert_string_equal(buf, "69");
		if (cases[i].want_wanted) {
			assert_non_null(replay_meta_get(fs.cap, "load-source-wanted", buf,
							sizeof(buf)));
			assert_string_equal(buf, cases[i].want_wanted);
			assert_non_null(replay_meta_get(fs.cap, "load-source", buf, sizeof(buf)));
			assert_string_equal(buf, cases[i].want_used);
			assert_non_null(replay_meta_get(fs.cap, "load-source-begin", buf,
							sizeof(buf)));
			assert_string_equal(buf, "asked");
		} else {
			assert_null(replay_meta_get(fs.cap, "load-source-wanted", buf, sizeof(buf)));
			assert_null(replay_meta_get(fs.cap, "load-source", buf, sizeof(buf)));
		}
		capture_free(fs.cap);
	}
}

/* A recording begins with its meta member; its file is written, read
 * back as a replay with the host it names; a path that cannot be
 * written is -EIO. */
static void test_open_write_read(void **state)
{
	static char *argv[] = { "irqtune", NULL };
	struct sample_window win = { 0 };
	const struct runcapture_parts p = { .argc = 1, .argv = argv, .win = &win };
	struct source rec = { .mode = SOURCE_LIVE }, rep = { .mode = SOURCE_LIVE };
	struct source live = { .mode = SOURCE_LIVE };
	char path[256], bad[256], host[256] = "", want[256] = "";

	(void)state;
	snprintf(path, sizeof(path), "%s/run.cap", scratch_dir);
	snprintf(bad, sizeof(bad), "%s/no/such/run.cap", scratch_dir);
	assert_int_equal(runcapture_open(&live, NULL, false, &p, host, sizeof(host)), 0);
	assert_int_equal(live.mode, SOURCE_LIVE);
	assert_null(live.cap);

	assert_int_equal(runcapture_open(&rec, NULL, true, &p, host, sizeof(host)), 0);
	assert_int_equal(rec.mode, SOURCE_RECORD);
	assert_non_null(capture_get(rec.cap, CAPTURE_META));
	assert_int_equal(runcapture_write(&rec, bad, &p, 0), -EIO);
	assert_int_equal(runcapture_write(&rec, path, &p, 0), 0);

	assert_int_equal(runcapture_open(&rep, path, false, &p, host, sizeof(host)), 0);
	assert_int_equal(rep.mode, SOURCE_REPLAY);
	assert_non_null(replay_meta_get(rec.cap, "hostname", want, sizeof(want)));
	assert_string_equal(host, want);
	capture_free(rec.cap);
	capture_free(rep.cap);

	rep = (struct source){ .mode = SOURCE_LIVE };
	assert_true(runcapture_open(&rep, bad, false, &p, host, sizeof(host)) < 0);
	assert_int_equal(rep.mode, SOURCE_LIVE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_meta),
		cmocka_unit_test(test_open_write_read),
	};

	return cmocka_run_group_tests(tests, scratch_setup, scratch_teardown);
}
