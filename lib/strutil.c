// SPDX-License-Identifier: GPL-2.0-or-later
/* strutil.c - see strutil.h: the one copy of each small string helper. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "strutil.h"

bool all_digits(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!is_digit(s[i]))
			return false;
	return len > 0;
}

static const char hex_lower[] = "0123456789abcdef";
static const char hex_upper[] = "0123456789ABCDEF";

void str_escape_text(char *dst, size_t len, const char *src)
{
	size_t o = 0;

	if (len == 0)
		return;
	for (; src && *src; src++) {
		unsigned char ch = (unsigned char)*src;

		if (ch >= 0x20 && ch < 0x7f && ch != '\\') {
			if (o + 1 >= len)
				break;
			dst[o++] = (char)ch;
		} else {
			if (o + 4 >= len)
				break;
			dst[o++] = '\\';
			dst[o++] = 'x';
			dst[o++] = hex_lower[ch >> 4];
			dst[o++] = hex_lower[ch & 15];
		}
	}
	dst[o] = '\0';
}

void str_escape_field(char *dst, size_t len, const char *s)
{
	size_t o = 0;

	if (len == 0)
		return;
	if (!s || !*s) {
		const char *mark = s ? "." : "-";

		if (len > 1)
			dst[o++] = mark[0];
		dst[o] = '\0';
		return;
	}
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		bool esc = *p <= ' ' || *p > '~' || *p == '\\' ||
			   (p == (const unsigned char *)s && !p[1] && (*p == '-' || *p == '.'));

		if (o + (esc ? 4 : 1) >= len)
			break;
		if (esc) {
			dst[o++] = '\\';
			dst[o++] = 'x';
			dst[o++] = hex_lower[*p >> 4];
			dst[o++] = hex_lower[*p & 15];
		} else {
			dst[o++] = (char)*p;
		}
	}
	dst[o] = '\0';
}

char *str_escape_pct(char *dst, size_t len, const char *src)
{
	size_t o = 0;

	if (!*src) {
		dst[0] = '-';
		dst[1] = '\0';
		return dst + 1;
	}
	for (; *src && o + 4 < len; src++) {
		unsigned char c = (unsigned char)*src;

		if (c <= ' ' || c >= 0x7f || c == '%' || (c == '-' && o == 0 && !src[1])) {
			dst[o++] = '%';
			dst[o++] = hex_upper[c >> 4];
			dst[o++] = hex_upper[c & 15];
		} else {
			dst[o++] = (char)c;
		}
	}
	dst[o] = '\0';
	return dst + o;
}

int parse_u64(const char *s, uint64_t max, uint64_t *ret)
{
	uint64_t v = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	for (; isdigit((unsigned char)*s); s++) {
		unsigned int d = (unsigned int)(*s - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	while (isspace((unsigned char)*s))
		s++;
	if (*s)
		return -EINVAL;
	if (v > max)
		return -ERANGE;
	*ret = v;
	return 0;
}

int parse_int(const char *s, int min, int max, int *ret)
{
	uint64_t v;
	int neg = 0, r;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '-') {
		neg = 1;
		s++;
		/* "- 5" is not a number: the sign is the number's */
		if (!isdigit((unsigned char)*s))
			return -EINVAL;
	}
	r = parse_u64(s, (uint64_t)INT_MAX + 1, &v);
	if (r < 0)
		return r;
	if (neg ? -(int64_t)v < min : (int64_t)v > max)
		return -ERANGE;
	*ret = neg ? (int)-(int64_t)v : (int)v;
	return 0;
}

char *utoa_into(char *buf, unsigned int v)
{
	char tmp[10];
	unsigned int n = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10) > 0);
	while (n)
		*buf++ = tmp[--n];
	*buf = '\0';
	return buf;
}

void str_copy(char *dst, size_t len, const char *src)
{
	size_t n;

	if (len == 0)
		return;
	n = src ? strnlen(src, len - 1) : 0;
	memcpy(dst, src ? src : "", n);
	dst[n] = '\0';
}
