// SPDX-License-Identifier: GPL-2.0-or-later
/* test_costs.c - the per-event costs a measured run leaves for later runs:
 * what it computes from a measurement, the file's text both ways, every
 * way a file may not be trusted, and that writers racing readers never
 * show a reader part of a file. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "scratch.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "costs.h"

#define BOOT "9a17a830-db8b-47e3-8c6d-cceade8bb582"
#define NOW 1796348475.0

static void path_of(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", scratch_dir, name);
}

static void put(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, mode), 0);
}

static void test_from_measure(void **state)
{
	static const struct measure_target t[] = {
		{ 40, CLASS_NET, 0, "eth0" }, { 50, CLASS_STORAGE, 1, "nvme0" },
	};
	struct measure_raw *raw = measure_raw_new(2);
	struct estimate_prior base, got;

	(void)state;
	assert_non_null(raw);
	raw->window = 1;
	raw->irqs = calloc(3, sizeof(*raw->irqs));
	assert_non_null(raw->irqs);
	raw->irqs[raw->nr_irqs++] = (struct measure_irq){ .irq = 40, .cpu = 0,
		.handler_ns = 400000, .count = 200 };		/* 2 us each */
	raw->irqs[raw->nr_irqs++] = (struct measure_irq){ .irq = 50, .cpu = 1,
		.handler_ns = 60000, .count = 50 };		/* too few */
	raw->irqs[raw->nr_irqs++] = (struct measure_irq){ .irq = 99, .cpu = 1,
		.handler_ns = 1, .count = 100000 };		/* not listed */
	raw->soft_ns[0][SOFTIRQ_NET_RX] = 3000000;
	raw->soft_events[0][SOFTIRQ_NET_RX] = 100;
	raw->soft_ns[1][SOFTIRQ_NET_RX] = 1000000;
	raw->soft_events[1][SOFTIRQ_NET_RX] = 100;	/* 20 us each, both CPUs */
	raw->soft_ns[1][SOFTIRQ_BLOCK] = 1000;
	raw->soft_events[1][SOFTIRQ_BLOCK] = 10;
	estimate_default_prior(&base);
	costs_from_measure(raw, t, 2, &base, &got);
	assert_true(fabs(got.hard_us[CLASS_NET] - 2.0) < 1e-9);
	assert_true(got.hard_us[CLASS_STORAGE] == base.hard_us[CLASS_STORAGE]);
	assert_true(got.hard_us[CLASS_OTHER] == base.hard_us[CLASS_OTHER]);
	assert_true(fabs(got.soft_us[SOFTIRQ_NET_RX] - 20.0) < 1e-9);
	assert_true(got.soft_us[SOFTIRQ_BLOCK] == base.soft_us[SOFTIRQ_BLOCK]);
	measure_raw_free(raw);
}

static void test_round_trip(void **state)
{
	struct estimate_prior base, p, got;
	char text[COSTS_FILE_MAX], why[128];
	double when = 0;

	(void)state;
	estimate_default_prior(&base);
	p = base;
	p.hard_us[CLASS_STORAGE] = 0.6125;
	p.soft_us[SOFTIRQ_BLOCK] = 10.5;
	assert_int_equal(costs_format(&p, BOOT, NOW, text, sizeof(text)), 0);
	assert_int_equal(costs_parse(text, BOOT, NOW + 60, &base, &got, &when, why,
				     sizeof(why)), 0);
	assert_true(got.hard_us[CLASS_STORAGE] == 0.6125);
	assert_true(got.soft_us[SOFTIRQ_BLOCK] == 10.5);
	assert_true(got.soft_us[SOFTIRQ_NET_RX] == base.soft_us[SOFTIRQ_NET_RX]);
	assert_true(when == NOW);
	assert_int_equal(costs_format(&p, BOOT, NOW, text, 40), -ENOSPC);
}

/* Every file that is not exactly what a run of this version writes. */
static void test_parse_refuses(void **state)
{
	static const struct {
		const char *text;
		int err;
		const char *says;
	} rows[] = {
		{ "", -EINVAL, "empty" },
		{ "irqtune-costs 2\nboot " BOOT "\ntime 1796348475\n", -EINVAL,
		  "newer irqtune" },
		{ "irqtune-costs 0\n", -EINVAL, "not this irqtune's" },
		{ "irqbalance 1\n", -EINVAL, "not an irqtune costs file" },
		{ "\x7f" "ELF\x02\x01\n", -EINVAL, "not an irqtune costs file" },
		{ "irqtune-costs 1\nboot 1-2-3\ntime 1796348475\n", -ESTALE, "another boot" },
		{ "irqtune-costs 1\nboot " BOOT "\ntime 1796000000\n", -ESTALE, "older than a day" },
		{ "irqtune-costs 1\nboot " BOOT "\ntime 1796448475\n", -ESTALE, "future" },
		{ "irqtune-costs 1\nboot " BOOT "\ntime soon\n", -EINVAL, "not a number" },
		{ "irqtune-costs 1\nboot " BOOT "\n", -EINVAL, "no boot id or time" },
		{ "irqtune-costs 1\nboot " BOOT "\ntime 1796348475\nhard net", -EINVAL,
		  "truncated" },
		{ "irqtune-costs 1\nboot " BOOT "\ntime 1796348475\nhard net -1\n", -EINVAL,
		  "not a cost" },
		{ "irqtune-costs 1\nboot " BOOT "\ntime 1796348475\nhard net nan\n", -EINVAL,
		  "not a cost" },
		{ "irqtune-costs 1\nboot " BOOT "\ntime 1796348475\nhard gpu 1\n", -EINVAL,
		  "not a cost" },
		{ "irqtune-costs 1\nboot " BOOT "\ntime 1796348475\nsoft NET_RX 1e9\n", -EINVAL,
		  "not a cost" },
		{ "irqtune-costs 1\nboot " BOOT "\ntime 1796348475\nsoft NET_RX 2 3\n", -EINVAL,
		  "not understood" },
		{ "irqtune-costs 1\nboot " BOOT "\nboot " BOOT "\ntime 1796348475\n", -EINVAL,
		  "not understood" },
	};
	struct estimate_prior base, got;
	char why[128];

	(void)state;
	estimate_default_prior(&base);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int r = costs_parse(rows[i].text, BOOT, NOW, &base, &got, NULL, why, sizeof(why));

		if (r != rows[i].err || !strstr(why, rows[i].says))
			fail_msg("row %zu: %d \"%s\", want %d \"%s\"", i, r, why, rows[i].err,
				 rows[i].says);
	}
}

static void test_load_refuses(void **state)
{
	struct estimate_prior base, p, got;
	char path[256], link[256], text[COSTS_FILE_MAX], why[128], big[COSTS_FILE_MAX + 10];

	(void)state;
	estimate_default_prior(&base);
	p = base;
	path_of(path, sizeof(path), "costs");
	assert_int_equal(costs_load(path, BOOT, NOW, &base, &got, NULL, why, sizeof(why)),
			 -ENOENT);
	assert_int_equal(costs_format(&p, BOOT, NOW, text, sizeof(text)), 0);
	put(path, text, 0644);
	assert_int_equal(costs_load(path, BOOT, NOW, &base, &got, NULL, why, sizeof(why)), 0);
	put(path, text, 0666);
	assert_int_equal(costs_load(path, BOOT, NOW, &base, &got, NULL, why, sizeof(why)),
			 -EPERM);
	assert_non_null(strstr(why, "writable by others"));
	put(path, text, 0644);
	if (geteuid() == 0) {
		assert_int_equal(chown(path, 1234, 1234), 0);
		assert_int_equal(costs_load(path, BOOT, NOW, &base, &got, NULL, why,
					    sizeof(why)), -EPERM);
		assert_non_null(strstr(why, "uid 1234"));
		assert_int_equal(chown(path, 0, 0), 0);
	}
	path_of(link, sizeof(link), "link");
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(costs_load(link, BOOT, NOW, &base, &got, NULL, why, sizeof(why)),
			 -ELOOP);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	put(path, big, 0644);
	assert_int_equal(costs_load(path, BOOT, NOW, &base, &got, NULL, why, sizeof(why)),
			 -EFBIG);
	put(path, "irqtune-costs 1\n", 0644);
	assert_int_equal(truncate(path, 30), 0);	/* NULs after the text */
	assert_int_equal(costs_load(path, BOOT, NOW, &base, &got, NULL, why, sizeof(why)),
			 -EINVAL);
	assert_int_equal(costs_load(scratch_dir, BOOT, NOW, &base, &got, NULL, why, sizeof(why)),
			 -EPERM);
}

static void test_save(void **state)
{
	struct estimate_prior base, p, got;
	char path[300], sub[256], link[256], why[128];
	struct stat st;

	(void)state;
	estimate_default_prior(&base);
	p = base;
	p.hard_us[CLASS_NET] = 1.25;
	path_of(sub, sizeof(sub), "run");
	snprintf(path, sizeof(path), "%s/costs", sub);
	assert_int_equal(costs_save(path, &p, BOOT, NOW), 0);
	assert_int_equal(stat(sub, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0755);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	assert_int_equal(costs_load(path, BOOT, NOW, &base, &got, NULL, why, sizeof(why)), 0);
	assert_true(got.hard_us[CLASS_NET] == 1.25);
	/* a symlink planted in its place is refused, not followed */
	assert_int_equal(unlink(path), 0);
	path_of(link, sizeof(link), "elsewhere");
	assert_int_equal(symlink(link, path), 0);
	assert_int_equal(costs_save(path, &p, BOOT, NOW), -ELOOP);
	assert_int_equal(unlink(path), 0);
	/* and so is a directory others can write */
	assert_int_equal(chmod(sub, 0777), 0);
	assert_int_equal(costs_save(path, &p, BOOT, NOW), -EPERM);
	assert_int_equal(chmod(sub, 0755), 0);
}

/* Writers racing readers: a reader sees a whole file, never part of one. */
static void test_no_torn_file(void **state)
{
	struct estimate_prior base, p, got;
	char path[256], why[128];
	pid_t kid[2];
	int bad = 0;

	(void)state;
	estimate_default_prior(&base);
	path_of(path, sizeof(path), "race");
	assert_int_equal(costs_save(path, &base, BOOT, NOW), 0);
	for (int k = 0; k < 2; k++) {
		kid[k] = fork();
		assert_true(kid[k] >= 0);
		if (kid[k] == 0) {
			p = base;
			for (int i = 0; i < 300; i++) {
				p.hard_us[CLASS_NET] = 1 + k + i * 0.001;
				if (costs_save(path, &p, BOOT, NOW) < 0)
					_exit(1);
			}
			_exit(0);
		}
	}
	for (int i = 0; i < 2000; i++)
		bad += costs_load(path, BOOT, NOW, &base, &got, NULL, why, sizeof(why)) != 0;
	for (int k = 0; k < 2; k++) {
		int st;

		assert_int_equal(waitpid(kid[k], &st, 0), kid[k]);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	assert_int_equal(bad, 0);
}

/* A run's two ends: a measured run records its costs for this boot, a
 * later one reads them back; without a boot id or a measurement nothing is
 * written, and no file is no costs, quietly. */
static void test_record_then_read(void **state)
{
	static const struct measure_target t[] = { { 40, CLASS_NET, 0, "eth0" } };
	struct measure_raw *raw = measure_raw_new(1);
	struct estimate_prior got;
	char path[256], boot[64], why[128];
	double when = 0;

	(void)state;
	if (costs_boot_id(boot, sizeof(boot)) < 0)
		skip();		/* no /proc/sys/kernel/random/boot_id here */
	assert_non_null(raw);
	raw->window = 1;
	raw->irqs = calloc(1, sizeof(*raw->irqs));
	assert_non_null(raw->irqs);
	raw->irqs[raw->nr_irqs++] = (struct measure_irq){ .irq = 40, .cpu = 0,
		.handler_ns = 300000, .count = 100 };		/* 3 us each */
	path_of(path, sizeof(path), "run/costs");
	assert_int_equal(costs_read(NULL, path, NOW, boot, sizeof(boot), &got, &when,
				    why, sizeof(why)), -ENOENT);
	assert_string_not_equal(boot, "");
	assert_int_equal(costs_record(path, raw, t, 1, NULL, "", NOW), 0);
	assert_int_equal(costs_record(path, NULL, t, 1, NULL, boot, NOW), 0);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(costs_record(path, raw, t, 1, NULL, boot, NOW), 0);
	assert_int_equal(costs_read(NULL, path, NOW + 60, boot, sizeof(boot), &got, &when,
				    why, sizeof(why)), 0);
	assert_true(fabs(got.hard_us[CLASS_NET] - 3.0) < 1e-9);
	assert_true(when == NOW);
	assert_int_equal(costs_read(NULL, path, NOW + 2 * COSTS_MAX_AGE, boot, sizeof(boot),
				    &got, &when, why, sizeof(why)), -ESTALE);
	measure_raw_free(raw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_from_measure),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_parse_refuses),
		cmocka_unit_test(test_load_refuses),
		cmocka_unit_test(test_save),
		cmocka_unit_test(test_no_torn_file),
		cmocka_unit_test(test_record_then_read),
	};

	return cmocka_run_group_tests(tests, scratch_setup, scratch_teardown);
}
