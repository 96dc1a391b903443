// SPDX-License-Identifier: GPL-2.0-or-later
/* cpuset.c - bitmaps of CPU ids and their two kernel spellings.
 *
 * Invariant: bits at and beyond nbits are always zero, so counting, scanning
 * and comparing can work on whole words without masking. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpuset.h"
#include "fileio.h"
#include "strutil.h"

#define WORD_BITS	64u
#define MASK_GROUP_BITS	32u	/* one comma-separated group of a cpumask */
#define MASK_GROUP_HEX	8u	/* at most this many hex digits per group */

static unsigned int nwords(unsigned int nbits)
{
	return (nbits + WORD_BITS - 1) / WORD_BITS;
}

struct cpuset *cpuset_new(unsigned int nbits)
{
	struct cpuset *set;
	unsigned int n = nwords(nbits);

	if (nbits > CPU_ID_LIMIT)
		return NULL;
	set = calloc(1, sizeof(*set));
	if (!set)
		return NULL;
	/* Never a NULL bits pointer, even for an empty set, so no caller
	 * has to special-case nbits == 0. */
	set->bits = calloc(n ? n : 1, sizeof(*set->bits));
	if (!set->bits) {
		free(set);
		return NULL;
	}
	set->nbits = nbits;
	return set;
}

void cpuset_free(struct cpuset *set)
{
	if (!set)
		return;
	free(set->bits);
	free(set);
}

struct cpuset *cpuset_dup(const struct cpuset *set)
{
	struct cpuset *dup;

	if (!set)
		return NULL;
	dup = cpuset_new(set->nbits);
	if (!dup)
		return NULL;
	memcpy(dup->bits, set->bits, nwords(set->nbits) * sizeof(*set->bits));
	return dup;
}

void cpuset_zero(struct cpuset *set)
{
	memset(set->bits, 0, nwords(set->nbits) * sizeof(*set->bits));
}

void cpuset_set(struct cpuset *set, unsigned int cpu)
{
	if (cpu < set->nbits)
		set->bits[cpu / WORD_BITS] |= UINT64_C(1) << (cpu % WORD_BITS);
}

void cpuset_clear(struct cpuset *set, unsigned int cpu)
{
	if (cpu < set->nbits)
		set->bits[cpu / WORD_BITS] &= ~(UINT64_C(1) << (cpu % WORD_BITS));
}

bool cpuset_test(const struct cpuset *set, unsigned int cpu)
{
	if (cpu >= set->nbits)
		return false;
	return set->bits[cpu / WORD_BITS] >> (cpu % WORD_BITS) & 1;
}

unsigned int cpuset_count(const struct cpuset *set)
{
	unsigned int i, n = 0;

	for (i = 0; i < nwords(set->nbits); i++)
		n += (unsigned int)__builtin_popcountll(set->bits[i]);
	return n;
}

/* Lowest id >= @start whose bit equals @value, or nbits if there is none. */
static unsigned int find_next(const struct cpuset *set, unsigned int start,
			      bool value)
{
	unsigned int i, n = nwords(set->nbits);
	uint64_t w;

	if (start >= set->nbits)
		return set->nbits;
	i = start / WORD_BITS;
	w = value ? set->bits[i] : ~set->bits[i];
	w &= ~UINT64_C(0) << (start % WORD_BITS);
	for (;;) {
		if (w) {
			unsigned int id = i * WORD_BITS +
					  (unsigned int)__builtin_ctzll(w);

			/* Zero bits past nbits look "clear"; clamp them. */
			return id < set->nbits ? id : set->nbits;
		}
		if (++i >= n)
			return set->nbits;
		w = value ? set->bits[i] : ~set->bits[i];
	}
}

int cpuset_first(const struct cpuset *set)
{
	return cpuset_next(set, -1);
}

int cpuset_next(const struct cpuset *set, int prev)
{
	unsigned int start = prev < 0 ? 0 : (unsigned int)prev + 1;
	unsigned int id;

	if (prev >= 0 && (unsigned int)prev >= set->nbits)
		return -1;
	id = find_next(set, start, true);
	return id < set->nbits ? (int)id : -1;
}

int cpuset_last(const struct cpuset *set)
{
	unsigned int i = nwords(set->nbits);

	while (i-- > 0) {
		if (set->bits[i])
			return (int)(i * WORD_BITS + 63 -
				     (unsigned int)__builtin_clzll(set->bits[i]));
	}
	return -1;
}

/* Clear the bits of the last word that lie beyond nbits. */
static void trim_tail(struct cpuset *set)
{
	unsigned int r = set->nbits % WORD_BITS;

	if (r)
		set->bits[set->nbits / WORD_BITS] &= (UINT64_C(1) << r) - 1;
}

void cpuset_or(struct cpuset *dst, const struct cpuset *src)
{
	unsigned int i, n = nwords(dst->nbits);

	if (nwords(src->nbits) < n)
		n = nwords(src->nbits);
	for (i = 0; i < n; i++)
		dst->bits[i] |= src->bits[i];
	trim_tail(dst);
}

void cpuset_andnot(struct cpuset *dst, const struct cpuset *src)
{
	unsigned int i, n = nwords(dst->nbits);

	if (nwords(src->nbits) < n)
		n = nwords(src->nbits);
	for (i = 0; i < n; i++)
		dst->bits[i] &= ~src->bits[i];
}

/* Equal as sets of ids: a different nbits does not matter. */
bool cpuset_equal(const struct cpuset *a, const struct cpuset *b)
{
	unsigned int na = nwords(a->nbits), nb = nwords(b->nbits), i;

	for (i = 0; i < na || i < nb; i++) {
		uint64_t wa = i < na ? a->bits[i] : 0;
		uint64_t wb = i < nb ? b->bits[i] : 0;

		if (wa != wb)
			return false;
	}
	return true;
}

/* Set ids @first..@last, both < nbits, a word at a time. */
static void set_range(struct cpuset *set, unsigned int first,
		      unsigned int last)
{
	unsigned int i = first / WORD_BITS, j = last / WORD_BITS;
	uint64_t lo = ~UINT64_C(0) << (first % WORD_BITS);
	uint64_t hi = ~UINT64_C(0) >> (WORD_BITS - 1 - last % WORD_BITS);

	if (i == j) {
		set->bits[i] |= lo & hi;
		return;
	}
	set->bits[i++] |= lo;
	while (i < j)
		set->bits[i++] = ~UINT64_C(0);
	set->bits[j] |= hi;
}

/* Bounds of @s without surrounding blanks: [*ret_begin, *ret_end). */
static void trim(const char *s, const char **ret_begin, const char **ret_end)
{
	const char *e = s + strlen(s);

	while (is_space(*s))
		s++;
	while (e > s && is_space(e[-1]))
		e--;
	*ret_begin = s;
	*ret_end = e;
}

/* Decimal digits only: no sign, no blank, no base prefix. Every digit is
 * consumed even past @max, so the value cannot overflow and the caller sees
 * -ERANGE rather than a syntax error for "99999999999". */
static int parse_num(const char **sp, unsigned int max, unsigned int *ret)
{
	const char *s = *sp;
	unsigned int v = 0;
	bool big = false;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (!big && v > (max - (unsigned int)(*s - '0')) / 10)
			big = true;
		else if (!big)
			v = v * 10 + (unsigned int)(*s - '0');
	}
	*sp = s;
	if (big)
		return -ERANGE;
	*ret = v;
	return 0;
}

/* One item of a cpulist: "N", "A-B", "A-B:U/G" (the kernel's: the first U
 * ids of every group of G) or "A-B:S" (ours, every S-th id; the kernel
 * insists on the "/G"). */
static int parse_item(const char **sp, struct cpuset *set)
{
	const char *s = *sp;
	unsigned int a, b, used = 1, group = 1, start;
	int r;

	r = parse_num(&s, CPU_ID_LIMIT, &a);
	if (r < 0)
		return r;
	b = a;
	if (*s == '-') {
		s++;
		r = parse_num(&s, CPU_ID_LIMIT, &b);
		if (r < 0)
			return r;
		if (*s == ':') {
			s++;
			r = parse_num(&s, CPU_ID_LIMIT, &used);
			if (r < 0)
				return r;
			if (*s == '/') {
				s++;
				r = parse_num(&s, CPU_ID_LIMIT, &group);
				if (r < 0)
					return r;
			} else {
				group = used;
				used = 1;
			}
			if (used == 0 || group == 0 || used > group)
				return -EINVAL;
		}
		if (a > b)
			return -EINVAL;
	}
	if (b >= set->nbits)
		return -ERANGE;
	if (group == 1) {
		set_range(set, a, b);
	} else {
		for (start = a; start <= b; start += group)
			set_range(set, start,
				  b - start < used - 1 ? b : start + used - 1);
	}
	*sp = s;
	return 0;
}

int cpulist_parse(const char *s, struct cpuset *set)
{
	const char *p, *end;
	int r;

	cpuset_zero(set);
	trim(s, &p, &end);
	if (p == end)
		return 0;
	for (;;) {
		r = parse_item(&p, set);
		if (r < 0)
			goto fail;
		if (p == end)
			return 0;
		/* A blank inside, an empty item ("1,,2") or a trailing
		 * comma: the next item must start with a digit. */
		if (*p != ',') {
			r = -EINVAL;
			goto fail;
		}
		p++;
	}
fail:
	/* Never leave half a list behind. */
	cpuset_zero(set);
	return r;
}

/* Whether a whole group of eight zeros starts at @q. */
static bool zero_group(const char *q, const char *end)
{
	return end - q >= MASK_GROUP_HEX && memcmp(q, "00000000", MASK_GROUP_HEX) == 0 &&
	       (end - q == MASK_GROUP_HEX || q[MASK_GROUP_HEX] == ',');
}

/* The kernel prints a cpumask as 32-bit groups of hex, most significant
 * first, joined by commas, with no "0x"; the first group may be short. */
int cpumask_parse(const char *s, struct cpuset *set)
{
	const char *p, *end, *q;
	size_t ngroups = 1, idx;
	unsigned int digits = 0;

	cpuset_zero(set);
	trim(s, &p, &end);
	if (p == end)
		return 0;

	/* First pass: syntax, and the number of groups, which tells the
	 * bit position of the first one. */
	for (q = p; q < end; q++) {
		/* A big machine's masks (affinity hints: one CPU of 8192)
		 * are nearly all "00000000" groups: one compare each. */
		if (digits == 0 && zero_group(q, end)) {
			q += MASK_GROUP_HEX - 1;
			digits = MASK_GROUP_HEX;
			continue;
		}
		if (*q == ',') {
			if (digits == 0)
				return -EINVAL;
			ngroups++;
			digits = 0;
		} else if (hex_digit(*q) < 0 || ++digits > MASK_GROUP_HEX) {
			return -EINVAL;
		}
	}
	if (digits == 0)
		return -EINVAL;

	for (idx = ngroups, q = p; idx-- > 0; q++) {
		uint64_t v = 0, base = (uint64_t)idx * MASK_GROUP_BITS;

		if (zero_group(q, end)) {
			q += MASK_GROUP_HEX;
			continue;
		}

		for (; q < end && *q != ','; q++)
			v = v << 4 | (uint64_t)hex_digit(*q);
		if (!v)
			continue;
		/* Zero groups past nbits are fine: old kernels print
		 * NR_CPUS bits. A set one is a CPU we cannot hold. */
		if (base >= set->nbits ||
		    (set->nbits - base < MASK_GROUP_BITS &&
		     v >> (set->nbits - base) != 0)) {
			cpuset_zero(set);
			return -ERANGE;
		}
		set->bits[base / WORD_BITS] |= v << (base % WORD_BITS);
	}
	return 0;
}

int cpulist_format(const struct cpuset *set, char *buf, size_t len)
{
	unsigned int a, b;
	size_t off = 0;
	int n;

	if (len == 0)
		return -ENOSPC;
	buf[0] = '\0';
	for (a = find_next(set, 0, true); a < set->nbits;
	     a = find_next(set, b + 1, true)) {
		b = find_next(set, a + 1, false) - 1;
		if (a == b)
			n = snprintf(buf + off, len - off, "%s%u",
				     off ? "," : "", a);
		else
			n = snprintf(buf + off, len - off, "%s%u-%u",
				     off ? "," : "", a, b);
		if (n < 0 || (size_t)n >= len - off) {
			buf[0] = '\0';
			return -ENOSPC;
		}
		off += (size_t)n;
	}
	return 0;
}

int cpumask_format(const struct cpuset *set, char *buf, size_t len)
{
	int last = cpuset_last(set), n;
	unsigned int g, top;
	size_t off = 0;

	if (len == 0)
		return -ENOSPC;
	buf[0] = '\0';
	top = last < 0 ? 0 : (unsigned int)last / MASK_GROUP_BITS;
	/* The highest group unpadded, as the kernel reads any width; the
	 * others in full, since a group's digits are its position. */
	for (g = top + 1; g-- > 0;) {
		uint32_t v = 0;

		for (unsigned int b = 0; b < MASK_GROUP_BITS; b++)
			if (cpuset_test(set, g * MASK_GROUP_BITS + b))
				v |= UINT32_C(1) << b;
		n = snprintf(buf + off, len - off, g == top ? "%x" : ",%08x", v);
		if (n < 0 || (size_t)n >= len - off) {
			buf[0] = '\0';
			return -ENOSPC;
		}
		off += (size_t)n;
	}
	return 0;
}
