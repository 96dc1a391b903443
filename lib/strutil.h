/* SPDX-License-Identifier: GPL-2.0-or-later */
/* strutil.h - the small string helpers, one copy of each: character
 * classes (as the C locale has them, whatever locale the process runs
 * in), digit runs, strict decimal numbers, bounded copies, and the
 * escapers of irqtune's three text formats.
 * Pure; nothing here allocates or logs. */
#ifndef IRQTUNE_STRUTIL_H
#define IRQTUNE_STRUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Inline: the /proc parsers call these per byte of files of megabytes. */

/* A blank inside a line: space or tab, isblank(3). */
static inline bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* White space, isspace(3): a blank, a line end, \v or \f. */
static inline bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
	       c == '\v' || c == '\f';
}

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The value of one hex digit (either case), -1 for anything else. */
static inline int hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Whether the @len bytes at @s are decimal digits, and there is one. */
bool all_digits(const char *s, size_t len);

/* For people (the report, logs, JSON): printable ASCII but '\' as is,
 * every other byte as \xNN (lowercase). Truncated to fit @len, never in
 * the middle of an escape. NULL is "". */
void str_escape_text(char *dst, size_t len, const char *src);
/* One field of a capture's space-separated lines: bytes up to ' ', above
 * '~' and '\' as \xNN (lowercase), and a whole "-" or "." too, so that
 * "-" can stand for NULL and "." for the empty string. */
void str_escape_field(char *dst, size_t len, const char *s);
/* One field of the state file: space and control bytes, 0x7f and up,
 * '%' and a whole "-" as %NN (uppercase); "" is "-". Room for @len
 * bytes, at least 2; returns the end (the NUL). */
char *str_escape_pct(char *dst, size_t len, const char *src);

/* Strict decimal parse of all of @s (leading/trailing blanks allowed):
 * -EINVAL on anything else, -ERANGE above @max. */
int parse_u64(const char *s, uint64_t max, uint64_t *ret);
int parse_int(const char *s, int min, int max, int *ret);

/* Copy @src into @dst of size @len, truncating; always NUL-terminated. */
void str_copy(char *dst, size_t len, const char *src);
/* @v in decimal at @buf (room for 11 bytes), NUL-terminated; returns the
 * end (the NUL). For the paths built per IRQ, where snprintf(3) cost more
 * than the system call they name. */
char *utoa_into(char *buf, unsigned int v);

#endif
