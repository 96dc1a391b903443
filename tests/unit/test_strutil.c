// SPDX-License-Identifier: GPL-2.0-or-later
/* test_strutil.c - the one copy of each small string helper: character
 * classes against the C library's in the C locale, digit runs, and the
 * three escapers' exact output, truncation included. */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "strutil.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Every byte value, as the C library classifies it in the C locale
 * (the process never calls setlocale here, so that is the one in force). */
static void test_classes(void **state)
{
	(void)state;
	for (int c = -128; c < 256; c++) {
		char ch = (char)c;
		int u = (unsigned char)ch;
		int want_hex = isxdigit(u) ? (isdigit(u) ? u - '0' : tolower(u) - 'a' + 10) : -1;

		assert_int_equal(is_blank(ch), isblank(u) != 0);
		assert_int_equal(is_space(ch), isspace(u) != 0);
		assert_int_equal(is_digit(ch), isdigit(u) != 0);
		assert_int_equal(hex_digit(u), want_hex);
	}
	/* a negative char (a byte above 0x7f) is no hex digit */
	assert_int_equal(hex_digit((char)0xc1), -1);
}

static void test_all_digits(void **state)
{
	static const struct {
		const char *s;
		size_t len;
		bool want;
	} cases[] = {
		{ "0", 1, true },
		{ "123456789", 9, true },
		{ "", 0, false },		/* there must be one */
		{ "12a", 3, false },
		{ "12a", 2, true },		/* only @len bytes count */
		{ " 12", 3, false },
		{ "12 ", 3, false },
		{ "-1", 2, false },
		{ "+1", 2, false },
		{ "\xd9\xa1", 2, false },	/* ARABIC-INDIC ONE is no digit */
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++)
		assert_int_equal(all_digits(cases[i].s, cases[i].len), cases[i].want);
}

struct esc_case {
	const char *in;
	size_t len;		/* room in dst */
	const char *want;
};

static void test_escape_text(void **state)
{
	static const struct esc_case cases[] = {
		{ "eth0-TxRx-0", 64, "eth0-TxRx-0" },
		{ "", 64, "" },
		{ NULL, 64, "" },
		{ "a b~", 64, "a b~" },			/* space and ~ are printable */
		{ "back\\slash", 64, "back\\x5cslash" },
		{ "\x1b[2J\n", 64, "\\x1b[2J\\x0a" },
		{ "caf\xc3\xa9", 64, "caf\\xc3\\xa9" },
		{ "\x7f", 64, "\\x7f" },
		{ "abcdef", 4, "abc" },			/* room for 3 and the NUL */
		{ "ab\x01", 6, "ab" },			/* never half an escape */
		{ "ab\x01", 7, "ab\\x01" },
		{ "x", 1, "" },
	};
	char dst[64];

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		memset(dst, 'Z', sizeof(dst));
		str_escape_text(dst, cases[i].len, cases[i].in);
		assert_string_equal(dst, cases[i].want);
	}
	/* no room at all: nothing written */
	dst[0] = 'Z';
	str_escape_text(dst, 0, "x");
	assert_int_equal(dst[0], 'Z');
}

static void test_escape_field(void **state)
{
	static const struct esc_case cases[] = {
		{ "eth0", 64, "eth0" },
		{ NULL, 64, "-" },
		{ "", 64, "." },
		{ "-", 64, "\\x2d" },			/* would read back as NULL */
		{ ".", 64, "\\x2e" },			/* would read back as "" */
		{ "-x", 64, "-x" },
		{ "a b\tc", 64, "a\\x20b\\x09c" },
		{ "back\\slash", 64, "back\\x5cslash" },
		{ "caf\xc3\xa9", 64, "caf\\xc3\\xa9" },
		{ "~\x7f", 64, "~\\x7f" },
		{ "abcdef", 4, "abc" },
		{ "ab cd", 6, "ab" },			/* never half an escape */
		{ NULL, 1, "" },
		{ "", 2, "." },
	};
	char dst[64];

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		memset(dst, 'Z', sizeof(dst));
		str_escape_field(dst, cases[i].len, cases[i].in);
		assert_string_equal(dst, cases[i].want);
	}
}

static void test_escape_pct(void **state)
{
	static const struct esc_case cases[] = {
		{ "eth0", 64, "eth0" },
		{ "", 64, "-" },
		{ "-", 64, "%2D" },			/* a whole "-" is the empty one */
		{ "-x", 64, "-x" },
		{ "x-", 64, "x-" },
		{ "50%", 64, "50%25" },
		{ "a b", 64, "a%20b" },
		{ "\\", 64, "\\" },			/* only % is special */
		{ "caf\xc3\xa9", 64, "caf%C3%A9" },
		{ "\x7f", 64, "%7F" },
		/* each byte wants room for an escape and the NUL */
		{ "abcdef", 4, "" },
		{ "abcdef", 5, "a" },
		{ "abcdef", 8, "abcd" },
	};
	char dst[64];

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		char *end;

		memset(dst, 'Z', sizeof(dst));
		end = str_escape_pct(dst, cases[i].len, cases[i].in);
		assert_string_equal(dst, cases[i].want);
		assert_ptr_equal(end, dst + strlen(cases[i].want));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_all_digits),
		cmocka_unit_test(test_escape_text),
		cmocka_unit_test(test_escape_field),
		cmocka_unit_test(test_escape_pct),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
