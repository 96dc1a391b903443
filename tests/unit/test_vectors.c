// SPDX-License-Identifier: GPL-2.0-or-later
/* test_vectors.c - the parsers of CPU capacity and of the x86 vector
 * matrix, table by table, malformed input included. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <errno.h>

#include "topology.h"
#include "vectors.h"

struct cap_case {
	const char *text;
	int err;
	unsigned int want;
};

static void test_capacity_parse(void **state)
{
	static const struct cap_case cases[] = {
		{ "1024\n", 0, 1024 },
		{ "446", 0, 446 },
		{ "  160 \n", 0, 160 },
		{ "1", 0, 1 },
		{ "0\n", -ERANGE, 0 },
		{ "1025", -ERANGE, 0 },
		{ "99999999999999999999999", -ERANGE, 0 },
		{ "", -EINVAL, 0 },
		{ "\n", -EINVAL, 0 },
		{ "-5", -EINVAL, 0 },
		{ "+5", -EINVAL, 0 },
		{ "12x", -EINVAL, 0 },
		{ "1024 512", -EINVAL, 0 },
		{ "0x400", -EINVAL, 0 },
	};

	(void)state;
	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned int v = 7;
		int r = capacity_parse(cases[i].text, &v);

		if (r != cases[i].err)
			fail_msg("'%s': %d, want %d", cases[i].text, r, cases[i].err);
		assert_int_equal(v, cases[i].err ? 7u : cases[i].want);
	}
}

/* As a 6.x kernel prints the VECTOR domain (ind 1), trimmed to 4 CPUs. */
static const char matrix_6x[] =
	"name:   VECTOR\n"
	" size:   0\n"
	" mapped: 41\n"
	" flags:  0x00000003\n"
	"Online bitmaps:        4\n"
	"Global available:    786\n"
	"Global reserved:      13\n"
	"Total allocated:      28\n"
	"System: 38: 0-19,32,50,128,236,240-242,244,246-255\n"
	" | CPU | avl | man | mac | act | vectors\n"
	"     0   197     0     0    4  33-35,48\n"
	"     1   197     0     0    4  33-36\n"
	"     2     0     0     0  201  33-233\n"
	"     3   192     2     1    9  \n";

/* 4.15 and 4.16: no managed_allocated ("mac") column. */
static const char matrix_415[] =
	"Online bitmaps:        2\n"
	" | CPU | avl | man | act | vectors\n"
	"     0   197     0    4  33-35,48\n"
	"     1   150     0   51  33-83\n";

struct matrix_case {
	const char *name;
	const char *text;
	unsigned int nr_ids;
	int err;
	unsigned int line;	/* at fault */
	unsigned int want[4];	/* VECTORS_UNKNOWN: no row */
};

#define U VECTORS_UNKNOWN

static void test_matrix_parse(void **state)
{
	static const struct matrix_case cases[] = {
		{ "6.x", matrix_6x, 4, 0, 0, { 197, 197, 0, 192 } },
		{ "4.15", matrix_415, 4, 0, 0, { 197, 150, U, U } },
		{ "rows past nr_ids ignored", matrix_6x, 2, 0, 0, { 197, 197, U, U } },
		{ "table ends at a blank line",
		  " | CPU | avl | man | mac | act | vectors\n  0 10 0 0 1 33\n\n junk\n",
		  1, 0, 0, { 10, U, U, U } },
		{ "empty", "", 4, -EINVAL, 0, { U, U, U, U } },
		{ "no table", "name:   VECTOR\n size:   0\n", 4, -EINVAL, 0, { U, U, U, U } },
		{ "header without rows", " | CPU | avl | man | mac | act | vectors\n",
		  4, -EINVAL, 0, { U, U, U, U } },
		{ "header without avl", "x\n | CPU | man | act\n 0 1 2\n", 4, -EINVAL, 2,
		  { U, U, U, U } },
		{ "not a number", " | CPU | avl | man\n 0 197 0\n 1 x 0\n", 4, -EINVAL, 3,
		  { U, U, U, U } },
		{ "negative", " | CPU | avl | man\n 0 -1 0\n", 4, -EINVAL, 2, { U, U, U, U } },
		{ "short row", " | CPU | avl | man\n 0\n", 4, -EINVAL, 2, { U, U, U, U } },
		{ "a CPU twice", " | CPU | avl\n 1 5\n 1 6\n", 4, -EINVAL, 3, { U, U, U, U } },
		{ "count too large", " | CPU | avl\n 0 99999999\n", 4, -ERANGE, 2,
		  { U, U, U, U } },
	};

	(void)state;
	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct matrix_case *mc = &cases[i];
		unsigned int avail[4], line = 99;
		int r = vector_matrix_parse(mc->text, mc->nr_ids, avail, &line);

		if (r != mc->err)
			fail_msg("%s: %d, want %d", mc->name, r, mc->err);
		if (r < 0) {
			if (line != mc->line)
				fail_msg("%s: line %u, want %u", mc->name, line, mc->line);
			continue;
		}
		for (unsigned int k = 0; k < mc->nr_ids; k++)
			if (avail[k] != mc->want[k])
				fail_msg("%s: CPU %u: %u, want %u", mc->name, k, avail[k],
					 mc->want[k]);
	}
}

/* The words the report and the warning use, from what the parser said. */
static void test_why(void **state)
{
	struct vector_info vi = { .status = VECTORS_BAD, .err = -EINVAL, .line = 12 };
	char buf[96];

	(void)state;
	assert_string_equal(vectors_why(&vi, buf, sizeof(buf)),
			    "line 12: not the kernel's per-CPU table");
	vi.line = 0;
	assert_string_equal(vectors_why(&vi, buf, sizeof(buf)), "no per-CPU table");
	vi.err = -ERANGE;
	vi.line = 3;
	assert_string_equal(vectors_why(&vi, buf, sizeof(buf)), "line 3: a count out of range");
	vi = (struct vector_info){ .status = VECTORS_MISSING, .err = -ENOENT };
	assert_string_equal(vectors_why(&vi, buf, sizeof(buf)), "No such file or directory");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capacity_parse),
		cmocka_unit_test(test_matrix_parse),
		cmocka_unit_test(test_why),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
