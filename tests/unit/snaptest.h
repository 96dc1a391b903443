/* SPDX-License-Identifier: GPL-2.0-or-later */
/* snaptest.h - what the sample, estimate and measure tests share: checks
 * with messages, the real captures of ../shared/realdata, and strings fed
 * to the parsers as files. Header-only, included by each test binary. */
#ifndef IRQTUNE_SNAPTEST_H
#define IRQTUNE_SNAPTEST_H

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sample.h"

#define check_u64(what, got, want) do {					\
	unsigned long long g_ = (got), w_ = (want);			\
	if (g_ != w_)							\
		fail_msg("%s: %s = %llu, want %llu", (what), #got, g_, w_); \
} while (0)

#define check_str(what, got, want) do {					\
	const char *g_ = (got), *w_ = (want);				\
	if (!g_ || strcmp(g_, w_) != 0)					\
		fail_msg("%s: %s = \"%s\", want \"%s\"", (what), #got,	\
			 g_ ? g_ : "(null)", w_);			\
} while (0)

#define check_near(what, got, want) do {				\
	double g_ = (got), w_ = (want);					\
	if (!(fabs(g_ - w_) <= 1e-9 * fmax(fabs(w_), 1e-9)))		\
		fail_msg("%s: %s = %.15g, want %.15g", (what), #got, g_, w_); \
} while (0)

#define check_between(what, got, lo, hi) do {				\
	double g_ = (got), l_ = (lo), h_ = (hi);			\
	if (!(g_ >= l_ - 1e-12 && g_ <= h_ + 1e-12))			\
		fail_msg("%s: %s = %.15g, want %.15g..%.15g", (what), #got, \
			 g_, l_, h_);					\
} while (0)

static inline const char *realdata(void)
{
	const char *d = getenv("IRQTUNE_REALDATA");

	return d && *d ? d : "../shared/realdata";
}

static inline FILE *open_real(const char *sub, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/%s", realdata(), sub, name);
	f = fopen(path, "re");
	if (!f)
		fail_msg("%s: %s", path, strerror(errno));
	return f;
}

/* A string as a FILE; @len counts bytes so a test can embed a NUL. */
static inline FILE *mem_n(const char *s, size_t len)
{
	FILE *f = len ? fmemopen((void *)s, len, "r") : fopen("/dev/null", "re");

	assert_non_null(f);
	return f;
}

static inline FILE *mem(const char *s)
{
	return mem_n(s, strlen(s));
}

static inline int parse_intr(const char *s, struct interrupts **ret,
		      unsigned int *line)
{
	FILE *f = mem(s);
	int r = interrupts_parse(f, ret, line);

	fclose(f);
	return r;
}

static inline int parse_stat(const char *s, struct cpu_stats *st, unsigned int *line)
{
	FILE *f = mem(s);
	int r = stat_parse(f, st, line);

	fclose(f);
	return r;
}

static inline int parse_softirqs(const char *s, struct cpu_stats *st,
			  unsigned int *line)
{
	FILE *f = mem(s);
	int r = softirqs_parse(f, st, line);

	fclose(f);
	return r;
}

static inline struct interrupts *load_intr(const char *file)
{
	struct interrupts *intr = NULL;
	unsigned int line = 0;
	FILE *f = open_real("interrupts", file);
	int r = interrupts_parse(f, &intr, &line);

	fclose(f);
	if (r < 0)
		fail_msg("%s: interrupts_parse: %s at line %u", file,
			 strerror(-r), line);
	return intr;
}

static inline void load_stat(const char *file, struct cpu_stats *st)
{
	unsigned int line = 0;
	FILE *f = open_real("stat", file);
	int r = stat_parse(f, st, &line);

	fclose(f);
	if (r < 0)
		fail_msg("%s: stat_parse: %s at line %u", file, strerror(-r),
			 line);
}

static inline void load_softirqs(const char *file, struct cpu_stats *st)
{
	unsigned int line = 0;
	FILE *f = open_real("softirqs", file);
	int r = softirqs_parse(f, st, &line);

	fclose(f);
	if (r < 0)
		fail_msg("%s: softirqs_parse: %s at line %u", file,
			 strerror(-r), line);
}

#endif
