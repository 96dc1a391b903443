/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpuset.h - bitmaps of CPU ids and their two kernel spellings:
 * a cpulist ("0-3,8") and a cpumask (hex, comma-separated 32-bit groups). */
#ifndef IRQTUNE_CPUSET_H
#define IRQTUNE_CPUSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* No kernel supports more CPU ids than this (x86 NR_CPUS tops out at 8192);
 * the cap keeps a corrupt file from making us allocate without bound. */
#define CPU_ID_LIMIT 16384

struct cpuset {
	unsigned int nbits;	/* ids 0..nbits-1 fit */
	uint64_t *bits;
};

struct cpuset *cpuset_new(unsigned int nbits);	/* NULL on ENOMEM */
void cpuset_free(struct cpuset *set);		/* accepts NULL */
struct cpuset *cpuset_dup(const struct cpuset *set);

void cpuset_zero(struct cpuset *set);
void cpuset_set(struct cpuset *set, unsigned int cpu);	/* ignores cpu >= nbits */
void cpuset_clear(struct cpuset *set, unsigned int cpu);
bool cpuset_test(const struct cpuset *set, unsigned int cpu); /* false if >= nbits */
unsigned int cpuset_count(const struct cpuset *set);
int cpuset_first(const struct cpuset *set);		 /* -1 if empty */
int cpuset_next(const struct cpuset *set, int prev);	 /* -1 at the end */
int cpuset_last(const struct cpuset *set);		 /* -1 if empty */
void cpuset_or(struct cpuset *dst, const struct cpuset *src);	/* up to dst->nbits */
void cpuset_andnot(struct cpuset *dst, const struct cpuset *src);
bool cpuset_equal(const struct cpuset *a, const struct cpuset *b);

/* Parse into a zeroed @set. Trailing newline and surrounding blanks are
 * allowed; "" means empty. -EINVAL on syntax, -ERANGE for an id >= nbits. */
int cpulist_parse(const char *s, struct cpuset *set);
int cpumask_parse(const char *s, struct cpuset *set);

/* Format as a cpulist ("" when empty); -ENOSPC if @len is too small. */
int cpulist_format(const struct cpuset *set, char *buf, size_t len);
/* Format as a cpumask ("0" when empty, "3", "1,00000000"), as xps_cpus
 * and smp_affinity take it; -ENOSPC if @len is too small. */
int cpumask_format(const struct cpuset *set, char *buf, size_t len);

#endif
