// SPDX-License-Identifier: GPL-2.0-or-later
/* strutil.c - see strutil.h: the one copy of each small string helper. */
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
