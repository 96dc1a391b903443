// SPDX-License-Identifier: GPL-2.0-or-later
/* test_output.c - what a finished run prints on stdout for each way the
 * options ask, and a metrics file that cannot be written. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "scratch.h"

#include "output.h"
#include "report.h"

static void test_text(void **state)
{
	static const struct {
		bool verbose, quiet, json, planned;
		bool bans, report;	/* printed */
	} cases[] = {
		{ .planned = true, .report = true },
		{ .verbose = true, .planned = true, .bans = true, .report = true },
		{ .verbose = true, .bans = true },		/* stopped before a plan */
		{ .quiet = true, .planned = true },
		{ .json = true, .planned = true },
		{ .json = true, .verbose = true, .planned = true },
		{ },
	};
	static const struct report_ban ban = { .cpus = "3", .source = "--bancpus" };
	const struct report_run rr = {
		.dry_run = true, .window = 1, .load_source = "proc",
		.load_source_reason = "test", .counts = "interrupts", .counts_reason = "test",
		.online = "0-3", .eligible = "0-2", .nr_bans = 1, .bans = &ban,
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct output_opts o = {
			.verbose = cases[i].verbose, .quiet = cases[i].quiet,
			.json = cases[i].json, .dry_run = true, .planned = cases[i].planned,
		};
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		assert_non_null(f);
		output_text(f, &o, &rr);
		assert_int_equal(fclose(f), 0);
		/* the bans name their source; the report its load source */
		assert_int_equal(strstr(text, "--bancpus") != NULL, cases[i].bans);
		assert_int_equal(strstr(text, "proc") != NULL, cases[i].report);
		assert_int_equal(len > 0, cases[i].bans || cases[i].report);
		free(text);
	}
}

/* A metrics file in a directory that is not there: said, and -ENOENT. */
static void test_metrics_refused(void **state)
{
	const struct report_run rr = { .window = 1 };
	char path[256];

	(void)state;
	snprintf(path, sizeof(path), "%s/no/such/dir/irqtune.prom", scratch_dir);
	assert_int_equal(output_metrics(path, &rr), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_metrics_refused),
	};

	return cmocka_run_group_tests(tests, scratch_setup, scratch_teardown);
}
