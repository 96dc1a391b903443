// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_cpuset.c - cpulists and cpumasks: cpulist_parse() and
 * cpumask_parse() on any text, into a set of any size up to CPU_ID_LIMIT,
 * checked against a slow reference parser written from the kernel's
 * grammar, and a cpulist_format() round trip.
 * Input: byte 0 picks the parser, bytes 1-2 the set size, the rest is text. */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "cpuset.h"
#include "fuzz.h"

static char *text_of(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	fuzz_assert(s);
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
	       c == '\f';
}

/* Decimal, no sign; *big when it exceeds @max. */
static bool ref_num(const char **p, unsigned long max, unsigned long *v,
		    bool *big)
{
	const char *s = *p;

	if (!isdigit((unsigned char)*s))
		return false;
	*v = 0;
	for (; isdigit((unsigned char)*s); s++) {
		if (*v <= max)
			*v = *v * 10 + (unsigned long)(*s - '0');
		if (*v > max)
			*big = true;
	}
	*p = s;
	return true;
}

/* The grammar of cpuset.h: items "N", "A-B", "A-B:S", "A-B:U/G", comma
 * separated, blanks around the whole. Returns 0, -EINVAL or -ERANGE. */
static int ref_list(const char *s, unsigned int nbits, unsigned char *bits)
{
	const char *e = s + strlen(s);

	while (blank(*s))
		s++;
	while (e > s && blank(e[-1]))
		e--;
	if (s == e)
		return 0;
	for (;;) {
		unsigned long a, b, u = 1, g = 1;
		bool big = false;

		if (!ref_num(&s, CPU_ID_LIMIT, &a, &big))
			return -EINVAL;
		if (big)
			return -ERANGE;
		b = a;
		if (*s == '-') {
			s++;
			if (!ref_num(&s, CPU_ID_LIMIT, &b, &big))
				return -EINVAL;
			if (big)
				return -ERANGE;
			if (*s == ':') {
				s++;
				if (!ref_num(&s, CPU_ID_LIMIT, &u, &big))
					return -EINVAL;
				if (big)
					return -ERANGE;
				if (*s == '/') {
					s++;
					if (!ref_num(&s, CPU_ID_LIMIT, &g, &big))
						return -EINVAL;
					if (big)
						return -ERANGE;
				} else {
					g = u;
					u = 1;
				}
				if (u == 0 || g == 0 || u > g)
					return -EINVAL;
			}
			if (a > b)
				return -EINVAL;
		}
		if (b >= nbits)
			return -ERANGE;
		for (unsigned long c = a; c <= b; c++)
			if ((c - a) % g < u)
				bits[c] = 1;
		if (s == e)
			return 0;
		if (*s != ',')
			return -EINVAL;
		s++;
	}
}

static int hexv(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Comma-separated groups of 1-8 hex digits, most significant first. */
static int ref_mask(const char *s, unsigned int nbits, unsigned char *bits)
{
	const char *e = s + strlen(s), *p;
	unsigned long groups = 1, digits = 0, idx;

	while (blank(*s))
		s++;
	while (e > s && blank(e[-1]))
		e--;
	if (s == e)
		return 0;
	for (p = s; p < e; p++) {
		if (*p == ',') {
			if (!digits)
				return -EINVAL;
			groups++;
			digits = 0;
		} else if (hexv(*p) < 0 || ++digits > 8) {
			return -EINVAL;
		}
	}
	if (!digits)
		return -EINVAL;
	for (idx = groups, p = s; idx-- > 0; p++) {
		unsigned long v = 0;

		for (; p < e && *p != ','; p++)
			v = v << 4 | (unsigned long)hexv(*p);
		for (unsigned int k = 0; k < 32; k++) {
			unsigned long id = idx * 32 + k;

			if (!(v >> k & 1))
				continue;
			if (id >= nbits) {
				memset(bits, 0, nbits);
				return -ERANGE;
			}
			bits[id] = 1;
		}
	}
	return 0;
}

static char out[CPU_ID_LIMIT * 8];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cpuset *set, *again;
	unsigned char *want;
	unsigned int nbits, i;
	bool mask;
	char *text;
	int r, rr;

	if (size < 3)
		return 0;
	mask = data[0] & 1;
	nbits = (unsigned int)(data[1] | data[2] << 8) % (CPU_ID_LIMIT + 1);
	text = text_of(data + 3, size - 3);
	set = cpuset_new(nbits);
	want = calloc(nbits + 1, 1);
	fuzz_assert(set && want);
	/* garbage in the set first: parsers start from zero */
	for (i = 0; i < nbits; i += 7)
		cpuset_set(set, i);
	r = mask ? cpumask_parse(text, set) : cpulist_parse(text, set);
	rr = mask ? ref_mask(text, nbits, want) : ref_list(text, nbits, want);
	if (r != rr) {
		fprintf(stderr, "%s \"%s\" nbits %u: %d, reference %d\n",
			mask ? "mask" : "list", text, nbits, r, rr);
		fuzz_assert(r == rr);
	}
	if (r < 0)
		fuzz_assert(cpuset_count(set) == 0);
	for (i = 0; r == 0 && i < nbits; i++)
		fuzz_assert(cpuset_test(set, i) == (want[i] != 0));
	fuzz_assert(cpuset_last(set) < (int)nbits);

	/* format and parse back, also into a buffer too small */
	if (r == 0) {
		size_t small = data[0] >> 1;

		fuzz_assert(cpulist_format(set, out, sizeof(out)) == 0);
		again = cpuset_new(nbits);
		fuzz_assert(again);
		fuzz_assert(cpulist_parse(out, again) == 0);
		fuzz_assert(cpuset_equal(set, again));
		cpuset_free(again);
		if (small < strlen(out) + 1) {
			fuzz_assert(cpulist_format(set, out, small) == -ENOSPC);
			fuzz_assert(small == 0 || out[0] == '\0');
		}
	}
	cpuset_free(set);
	free(want);
	free(text);
	return 0;
}
