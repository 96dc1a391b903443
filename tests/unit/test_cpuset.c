// SPDX-License-Identifier: GPL-2.0-or-later
/* test_cpuset.c - cpuset bit operations, cpulist and cpumask parsing, and
 * cpulist formatting, table-driven. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "cpuset.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Fail naming the table row, since cmocka's asserts cannot. */
#define check(cond, row) do {						\
	if (!(cond)) {							\
		print_error("row \"%s\": %s\n", (row), #cond);		\
		fail();							\
	}								\
} while (0)

static char fmtbuf[65536];

static const char *fmt(const struct cpuset *set)
{
	assert_int_equal(cpulist_format(set, fmtbuf, sizeof(fmtbuf)), 0);
	return fmtbuf;
}

struct parse_ok {
	const char *in;
	unsigned int nbits;
	const char *out;	/* canonical cpulist */
	unsigned int count;
};

static const struct parse_ok list_ok[] = {
	{ "0-3,8", 16, "0-3,8", 5 },
	{ "0", 1, "0", 1 },
	{ "", 8, "", 0 },
	{ "\n", 8, "", 0 },
	{ "   \t\n", 8, "", 0 },
	{ "0-3,8\n", 16, "0-3,8", 5 },			/* as sysfs prints it */
	{ "  1-2 \n", 8, "1-2", 2 },
	{ "3,1,2", 8, "1-3", 3 },			/* unordered, merged */
	{ "5,5,4-6", 8, "4-6", 3 },			/* overlapping */
	{ "0-0", 1, "0", 1 },
	{ "007", 8, "7", 1 },
	{ "1,3,5", 8, "1,3,5", 3 },
	{ "63-64", 65, "63-64", 2 },			/* across a word */
	{ "0-127", 128, "0-127", 128 },			/* whole words */
	{ "60-130", 200, "60-130", 71 },
	{ "0-16383", CPU_ID_LIMIT, "0-16383", CPU_ID_LIMIT },
	{ "16383", CPU_ID_LIMIT, "16383", 1 },
	/* util-linux's stride (lscpu prints "0-62:2") */
	{ "0-7:2", 8, "0,2,4,6", 4 },
	{ "2-9:3", 10, "2,5,8", 3 },
	{ "0-62:2", 64, "0,2,4,6,8,10,12,14,16,18,20,22,24,26,28,30,32,34,"
	  "36,38,40,42,44,46,48,50,52,54,56,58,60,62", 32 },
	{ "0-7:1", 8, "0-7", 8 },
	/* the kernel's used/group form */
	{ "0-15:2/4", 16, "0-1,4-5,8-9,12-13", 8 },
	{ "0-9:3/5", 10, "0-2,5-7", 6 },
	{ "0-5:3/4", 6, "0-2,4-5", 5 },			/* last group cut short */
	{ "100-2000:2/25", 2001, NULL, 153 },		/* kernel-parameters.rst */
	{ "0-1023:2/256", 1024, "0-1,256-257,512-513,768-769", 8 },
	{ "0-7:4/4", 8, "0-7", 8 },
};

struct parse_err {
	const char *in;
	unsigned int nbits;
	int err;
};

static const struct parse_err list_err[] = {
	{ "3-1", 8, -EINVAL },
	{ "a", 8, -EINVAL },
	{ "all", 8, -EINVAL },
	{ "1,,2", 8, -EINVAL },
	{ ",1", 8, -EINVAL },
	{ "1,", 8, -EINVAL },
	{ ",", 8, -EINVAL },
	{ "-1", 8, -EINVAL },
	{ "1--2", 8, -EINVAL },
	{ "+1", 8, -EINVAL },
	{ "1-", 8, -EINVAL },
	{ "-", 8, -EINVAL },
	{ "1-2-3", 8, -EINVAL },
	{ "1 2", 8, -EINVAL },
	{ "1, 2", 8, -EINVAL },
	{ "1\n2", 8, -EINVAL },
	{ "1 -2", 8, -EINVAL },
	{ "0x1", 8, -EINVAL },
	{ "1a", 8, -EINVAL },
	{ "1.5", 8, -EINVAL },
	{ "(null)", 8, -EINVAL },
	{ "1:2", 8, -EINVAL },		/* a pattern needs a range */
	{ "0-7:", 8, -EINVAL },
	{ "0-7:0", 8, -EINVAL },
	{ "0-7:2/", 8, -EINVAL },
	{ "0-7:/2", 8, -EINVAL },
	{ "0-7:3/2", 8, -EINVAL },	/* uses more than the group */
	{ "0-7:0/2", 8, -EINVAL },
	{ "0-7:1/0", 8, -EINVAL },
	{ "0-7:1/2/3", 8, -EINVAL },
	{ "7-0:1/2", 8, -EINVAL },
	{ "8", 8, -ERANGE },
	{ "0-8", 8, -ERANGE },
	{ "0-15:2/4", 8, -ERANGE },
	{ "0", 0, -ERANGE },
	{ "16384", CPU_ID_LIMIT, -ERANGE },
	{ "4294967296", CPU_ID_LIMIT, -ERANGE },	/* 2^32 */
	{ "99999999999999999999999", CPU_ID_LIMIT, -ERANGE },
	{ "0-99999999999999999999", CPU_ID_LIMIT, -ERANGE },
};

static void test_list_parse_ok(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(list_ok); i++) {
		const struct parse_ok *t = &list_ok[i];
		struct cpuset *set = cpuset_new(t->nbits);
		struct cpuset *again = cpuset_new(t->nbits);

		assert_non_null(set);
		assert_non_null(again);
		/* Dirty on purpose: the parser must start from empty. */
		if (t->nbits > 0)
			cpuset_set(set, t->nbits - 1);
		check(cpulist_parse(t->in, set) == 0, t->in);
		check(cpuset_count(set) == t->count, t->in);
		if (t->out)
			check(strcmp(fmt(set), t->out) == 0, t->in);
		/* Round trip: what we print parses back to the same set. */
		check(cpulist_parse(fmt(set), again) == 0, t->in);
		check(cpuset_equal(set, again), t->in);
		cpuset_free(again);
		cpuset_free(set);
	}
}

static void test_list_parse_err(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(list_err); i++) {
		const struct parse_err *t = &list_err[i];
		struct cpuset *set = cpuset_new(t->nbits);

		assert_non_null(set);
		check(cpulist_parse(t->in, set) == t->err, t->in);
		cpuset_free(set);
	}
}

/* An error after good items leaves nothing behind. */
static void test_list_parse_err_leaves_empty(void **state)
{
	static const char *const in[] = { "1,2,a", "0-3,9", "0-3,3-1", "5,6,"};
	struct cpuset *set = cpuset_new(8);
	unsigned int i;

	(void)state;
	assert_non_null(set);
	for (i = 0; i < ARRAY_SIZE(in); i++) {
		check(cpulist_parse(in[i], set) < 0, in[i]);
		check(cpuset_count(set) == 0, in[i]);
	}
	cpuset_free(set);
}

static const struct parse_ok mask_ok[] = {
	{ "ff,00000001", 64, "0,32-39", 9 },
	{ "00000001", 8, "0", 1 },		/* zeros past nbits are fine */
	{ "f", 4, "0-3", 4 },
	{ "0", 4, "", 0 },
	{ "", 8, "", 0 },
	{ "\n", 8, "", 0 },
	{ "00000000,00000000,80000000\n", 32, "31", 1 },
	{ "FF", 8, "0-7", 8 },
	{ "aBc", 12, "2-5,7,9,11", 7 },
	{ "1,00000000,00000000", 65, "64", 1 },
	{ "80000000,00000000", 64, "63", 1 },
	{ "ffffffff,ffffffff,ffffffff", 96, "0-95", 96 },
	{ "0,0000000f", 32, "0-3", 4 },		/* sparc64 thread_siblings */
	{ "f,ffffffff", 36, "0-35", 36 },
	{ "00000000,00000101", 16, "0,8", 2 },	/* dell r710 */
	{ "000aaaa0", 192, "5,7,9,11,13,15,17,19", 8 },
	{ "  5555 ", 16, "0,2,4,6,8,10,12,14", 8 },
	{ "00000000", 8, "", 0 },
	{ "00000000,00000000", 64, "", 0 },
	{ "0000000,00000000", 64, "", 0 },	/* a short first group */
	{ "1,00000000,00000010", 96, "4,64", 2 },
};

static const struct parse_err mask_err[] = {
	{ "0x1f", 8, -EINVAL },		/* the kernel never prints 0x */
	{ "0X1f", 8, -EINVAL },
	{ "ff,", 64, -EINVAL },
	{ ",ff", 64, -EINVAL },
	{ ",", 64, -EINVAL },
	{ "ff,,00000000", 96, -EINVAL },
	{ "123456789", 64, -EINVAL },	/* nine digits in one group */
	{ "g", 8, -EINVAL },
	{ "ff 00", 64, -EINVAL },
	{ "ff\n00", 64, -EINVAL },
	{ "-1", 8, -EINVAL },
	{ "+1", 8, -EINVAL },
	{ "0-3", 8, -EINVAL },		/* a cpulist is not a mask */
	{ "100", 8, -ERANGE },
	{ "1,00000000", 32, -ERANGE },
	{ "10", 4, -ERANGE },
	{ "8", 3, -ERANGE },
	{ "1", 0, -ERANGE },
	{ "80000000,00000000,00000000", 80, -ERANGE },
	/* whole zero groups are skipped a group at a time: still checked */
	{ "000000000,00000000", 64, -EINVAL },	/* nine zeros */
	{ "00000000,,00000000", 96, -EINVAL },
	{ "00000000,", 64, -EINVAL },
	{ "00000000,0000000g", 64, -EINVAL },
	{ "00000000,00000001,00000000", 32, -ERANGE },
};

static void test_mask_parse_ok(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(mask_ok); i++) {
		const struct parse_ok *t = &mask_ok[i];
		struct cpuset *set = cpuset_new(t->nbits);

		assert_non_null(set);
		if (t->nbits > 0)
			cpuset_set(set, t->nbits - 1);
		check(cpumask_parse(t->in, set) == 0, t->in);
		check(cpuset_count(set) == t->count, t->in);
		check(strcmp(fmt(set), t->out) == 0, t->in);
		cpuset_free(set);
	}
}

static void test_mask_parse_err(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(mask_err); i++) {
		const struct parse_err *t = &mask_err[i];
		struct cpuset *set = cpuset_new(t->nbits);

		assert_non_null(set);
		check(cpumask_parse(t->in, set) == t->err, t->in);
		check(cpuset_count(set) == 0, t->in);
		cpuset_free(set);
	}
}

/* An old kernel prints NR_CPUS bits: 4096 of them for 512 CPUs. */
static void test_mask_parse_wide(void **state)
{
	char in[128 * 9 + 1];
	struct cpuset *set = cpuset_new(512);
	unsigned int i;

	(void)state;
	assert_non_null(set);
	in[0] = '\0';
	for (i = 0; i < 127; i++)
		strcat(in, "00000000,");
	strcat(in, "00000003");
	assert_int_equal(cpumask_parse(in, set), 0);
	assert_string_equal(fmt(set), "0-1");
	/* The same width with a bit past 511 set does not fit. */
	in[0] = '1';
	assert_int_equal(cpumask_parse(in, set), -ERANGE);
	cpuset_free(set);
}

/* cpumask_format: what the kernel's bitmap_parse() reads back, and a
 * round trip through cpumask_parse(). */
static void test_mask_format(void **state)
{
	static const struct {
		unsigned int nbits;
		const char *list, *mask;
	} t[] = {
		{ 4, "", "0" },
		{ 4, "0", "1" },
		{ 8, "0-1", "3" },
		{ 8, "7", "80" },
		{ 64, "31", "80000000" },
		{ 64, "32", "1,00000000" },
		{ 64, "0,33", "2,00000001" },
		{ 128, "100", "10,00000000,00000000,00000000" },
	};
	char buf[64];

	(void)state;
	for (unsigned int i = 0; i < ARRAY_SIZE(t); i++) {
		struct cpuset *set = cpuset_new(t[i].nbits), *back = cpuset_new(t[i].nbits);

		assert_non_null(set);
		assert_non_null(back);
		assert_int_equal(cpulist_parse(t[i].list, set), 0);
		check(cpumask_format(set, buf, sizeof(buf)) == 0, t[i].list);
		check(strcmp(buf, t[i].mask) == 0, t[i].list);
		check(cpumask_parse(buf, back) == 0 && cpuset_equal(set, back), t[i].list);
		cpuset_free(set);
		cpuset_free(back);
	}
	{
		struct cpuset *set = cpuset_new(64);

		assert_non_null(set);
		cpuset_set(set, 32);
		/* "1,00000000" needs 11 bytes */
		assert_int_equal(cpumask_format(set, buf, 10), -ENOSPC);
		assert_string_equal(buf, "");
		cpuset_free(set);
	}
}

static void test_format_nospace(void **state)
{
	struct cpuset *set = cpuset_new(16);
	char buf[8];

	(void)state;
	assert_non_null(set);
	assert_int_equal(cpulist_parse("0-3,8", set), 0);
	/* "0-3,8" needs 6 bytes with its NUL. */
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(cpulist_format(set, buf, 5), -ENOSPC);
	assert_string_equal(buf, "");		/* never half a list */
	assert_int_equal(cpulist_format(set, buf, 6), 0);
	assert_string_equal(buf, "0-3,8");
	assert_int_equal(cpulist_format(set, buf, 0), -ENOSPC);

	cpuset_zero(set);
	assert_int_equal(cpulist_format(set, buf, 1), 0);
	assert_string_equal(buf, "");
	cpuset_free(set);
}

/* Ranges, singles and the pair case ("a-b" with b = a + 1). */
static void test_format_shapes(void **state)
{
	struct cpuset *set = cpuset_new(200);
	unsigned int i;

	(void)state;
	assert_non_null(set);
	assert_string_equal(fmt(set), "");
	cpuset_set(set, 0);
	cpuset_set(set, 1);
	cpuset_set(set, 63);
	cpuset_set(set, 64);
	for (i = 100; i < 200; i++)
		cpuset_set(set, i);
	assert_string_equal(fmt(set), "0-1,63-64,100-199");
	cpuset_clear(set, 150);
	assert_string_equal(fmt(set), "0-1,63-64,100-149,151-199");
	cpuset_free(set);
}

static void test_new_bounds(void **state)
{
	struct cpuset *set;

	(void)state;
	assert_null(cpuset_new(CPU_ID_LIMIT + 1));
	set = cpuset_new(CPU_ID_LIMIT);
	assert_non_null(set);
	cpuset_set(set, CPU_ID_LIMIT - 1);
	assert_true(cpuset_test(set, CPU_ID_LIMIT - 1));
	assert_int_equal(cpuset_first(set), CPU_ID_LIMIT - 1);
	assert_int_equal(cpuset_last(set), CPU_ID_LIMIT - 1);
	cpuset_free(set);

	set = cpuset_new(0);
	assert_non_null(set);
	cpuset_set(set, 0);
	assert_int_equal(cpuset_count(set), 0);
	assert_int_equal(cpuset_first(set), -1);
	assert_int_equal(cpuset_last(set), -1);
	assert_int_equal(cpulist_parse("", set), 0);
	cpuset_free(set);
	cpuset_free(NULL);
	assert_null(cpuset_dup(NULL));
}

static void test_bits(void **state)
{
	static const unsigned int ids[] = { 0, 1, 63, 64, 127, 128, 200 };
	struct cpuset *set = cpuset_new(201);
	unsigned int i;
	int cpu;

	(void)state;
	assert_non_null(set);
	assert_int_equal(cpuset_first(set), -1);
	assert_int_equal(cpuset_next(set, -1), -1);
	for (i = 0; i < ARRAY_SIZE(ids); i++)
		cpuset_set(set, ids[i]);
	cpuset_set(set, 201);			/* ignored: past nbits */
	cpuset_set(set, 100000);
	assert_false(cpuset_test(set, 201));
	assert_false(cpuset_test(set, 100000));
	assert_int_equal(cpuset_count(set), ARRAY_SIZE(ids));

	/* Walk across word boundaries, in order, and nothing else. */
	i = 0;
	for (cpu = cpuset_first(set); cpu >= 0; cpu = cpuset_next(set, cpu)) {
		assert_true(i < ARRAY_SIZE(ids));
		assert_int_equal(cpu, ids[i++]);
	}
	assert_int_equal(i, ARRAY_SIZE(ids));
	assert_int_equal(cpuset_next(set, -5), 0);
	assert_int_equal(cpuset_next(set, 1), 63);
	assert_int_equal(cpuset_next(set, 64), 127);
	assert_int_equal(cpuset_next(set, 200), -1);
	assert_int_equal(cpuset_next(set, 5000), -1);
	assert_int_equal(cpuset_last(set), 200);

	cpuset_clear(set, 63);
	cpuset_clear(set, 5000);		/* ignored */
	assert_false(cpuset_test(set, 63));
	assert_true(cpuset_test(set, 64));
	assert_int_equal(cpuset_next(set, 1), 64);
	assert_int_equal(cpuset_count(set), ARRAY_SIZE(ids) - 1);

	cpuset_zero(set);
	assert_int_equal(cpuset_count(set), 0);
	assert_int_equal(cpuset_last(set), -1);
	cpuset_free(set);
}

static void test_dup_or_andnot_equal(void **state)
{
	struct cpuset *a = cpuset_new(100), *b = cpuset_new(70);
	struct cpuset *big = cpuset_new(300), *d;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(big);
	assert_int_equal(cpulist_parse("0-3,64-66,99", a), 0);
	d = cpuset_dup(a);
	assert_non_null(d);
	assert_true(cpuset_equal(a, d));
	cpuset_clear(d, 99);			/* a copy, not an alias */
	assert_true(cpuset_test(a, 99));
	assert_false(cpuset_equal(a, d));

	/* or: @src's bits past dst->nbits are dropped. */
	assert_int_equal(cpulist_parse("4,69,99-299", big), 0);
	cpuset_or(b, big);
	assert_string_equal(fmt(b), "4,69");
	assert_int_equal(cpuset_count(b), 2);

	/* or from a smaller set. */
	cpuset_or(big, b);
	assert_string_equal(fmt(big), "4,69,99-299");

	/* andnot */
	assert_int_equal(cpulist_parse("0-69", b), 0);
	cpuset_andnot(a, b);
	assert_string_equal(fmt(a), "99");
	cpuset_andnot(big, a);
	assert_string_equal(fmt(big), "4,69,100-299");

	/* equal compares ids, not sizes. */
	assert_int_equal(cpulist_parse("1,5", b), 0);
	assert_int_equal(cpulist_parse("1,5", big), 0);
	assert_true(cpuset_equal(b, big));
	assert_true(cpuset_equal(big, b));
	cpuset_set(big, 250);
	assert_false(cpuset_equal(b, big));
	assert_false(cpuset_equal(big, b));

	cpuset_free(d);
	cpuset_free(big);
	cpuset_free(b);
	cpuset_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list_parse_ok),
		cmocka_unit_test(test_list_parse_err),
		cmocka_unit_test(test_list_parse_err_leaves_empty),
		cmocka_unit_test(test_mask_parse_ok),
		cmocka_unit_test(test_mask_parse_err),
		cmocka_unit_test(test_mask_parse_wide),
		cmocka_unit_test(test_format_nospace),
		cmocka_unit_test(test_mask_format),
		cmocka_unit_test(test_format_shapes),
		cmocka_unit_test(test_new_bounds),
		cmocka_unit_test(test_bits),
		cmocka_unit_test(test_dup_or_andnot_equal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
