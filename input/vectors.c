// SPDX-License-Identifier: GPL-2.0-or-later
/* vectors.c - the x86 vector matrix from debugfs: per CPU, how many
 * interrupt vectors are free for an IRQ that moves there (the "avl"
 * column). An IRQ needs one on its new CPU before the kernel lets go of
 * the old one, so a CPU with none refuses the write with ENOSPC; the
 * planner uses these counts to stay clear of that up front. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pathnames.h"
#include "source.h"
#include "strutil.h"
#include "vectors.h"

/* A CPU has 256 vectors (NR_VECTORS); room for other matrices' sizes, and
 * a bound that a corrupt file cannot push past. */
#define VECTOR_COUNT_MAX	65536
/* 8192 CPUs, each row with its allocated vectors as a cpulist. */
#define VECTOR_FILE_MAX		(4 * 1024 * 1024)
#define MATRIX_COLS		16

/* The words of one line, split at blanks (and, in the header, at '|'),
 * into @w; returns how many, at most @max. @line ends at '\n' or NUL. */
static unsigned int split_words(const char *line, bool bars, const char **w,
				size_t *wl, unsigned int max)
{
	unsigned int n = 0;
	const char *p = line;

	for (;;) {
		while (is_blank(*p) || (bars && *p == '|'))
			p++;
		if (!*p || *p == '\n' || n == max)
			return n;
		w[n] = p;
		while (*p && *p != '\n' && !is_blank(*p) && !(bars && *p == '|'))
			p++;
		wl[n] = (size_t)(p - w[n]);
		n++;
	}
}

static bool word_is(const char *w, size_t wl, const char *s)
{
	return strlen(s) == wl && memcmp(w, s, wl) == 0;
}

/* A decimal word; -EINVAL or -ERANGE past @max. */
static int word_uint(const char *w, size_t wl, unsigned long max, unsigned long *ret)
{
	unsigned long v = 0;

	if (!wl || !all_digits(w, wl))
		return -EINVAL;
	for (size_t i = 0; i < wl; i++) {
		v = v * 10 + (unsigned long)(w[i] - '0');
		if (v > max)
			return -ERANGE;
	}
	*ret = v;
	return 0;
}

int vector_matrix_parse(const char *buf, unsigned int nr_ids, unsigned int *avail,
			unsigned int *ret_line)
{
	const char *w[MATRIX_COLS];
	size_t wl[MATRIX_COLS];
	int cpu_col = -1, avl_col = -1;
	unsigned int lineno = 0, rows = 0;
	const char *line = buf;

	for (unsigned int k = 0; k < nr_ids; k++)
		avail[k] = VECTORS_UNKNOWN;
	*ret_line = 0;
	for (; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		unsigned int n;
		unsigned long cpu, v;
		int r;

		lineno++;
		if (cpu_col < 0) {
			/* "     | CPU | avl | man | mac | act | vectors";
			 * kernels before 4.17 have no "mac" column. */
			if (!strchr(line, '|') || (strchr(line, '\n') &&
			    strchr(line, '|') > strchr(line, '\n')))
				continue;
			n = split_words(line, true, w, wl, MATRIX_COLS);
			for (unsigned int i = 0; i < n; i++) {
				if (word_is(w[i], wl[i], "CPU"))
					cpu_col = (int)i;
				else if (word_is(w[i], wl[i], "avl"))
					avl_col = (int)i;
			}
			if (cpu_col < 0 || avl_col < 0) {
				*ret_line = lineno;
				return -EINVAL;
			}
			continue;
		}
		n = split_words(line, false, w, wl, MATRIX_COLS);
		if (n == 0)
			break;	/* the table ends */
		if (n <= (unsigned int)cpu_col || n <= (unsigned int)avl_col) {
			*ret_line = lineno;
			return -EINVAL;
		}
		r = word_uint(w[cpu_col], wl[cpu_col], 1UL << 20, &cpu);
		if (r == 0)
			r = word_uint(w[avl_col], wl[avl_col], VECTOR_COUNT_MAX, &v);
		if (r < 0) {
			*ret_line = lineno;
			return r;
		}
		rows++;
		if (cpu >= nr_ids)
			continue;
		if (avail[cpu] != VECTORS_UNKNOWN) {
			*ret_line = lineno;
			return -EINVAL;
		}
		avail[cpu] = (unsigned int)v;
	}
	if (cpu_col < 0 || rows == 0)
		return -EINVAL;
	return 0;
}

int vectors_read(struct source *src, unsigned int nr_ids, struct vector_info *ret)
{
	char *buf;
	long n;
	int r;

	memset(ret, 0, sizeof(*ret));
	ret->nr_ids = nr_ids;
	buf = malloc(VECTOR_FILE_MAX + 1);
	if (!buf)
		return -ENOMEM;
	n = source_read(src, _PATH_DEBUG_VECTOR, buf, VECTOR_FILE_MAX + 1);
	if (n < 0) {
		/* A domains directory without it: IRQ domains of another
		 * architecture, which has no per-CPU vector space. */
		ret->status = n == -ENOENT && source_isdir(src, _PATH_DEBUG_IRQ_DOMAINS) == 0 ?
			      VECTORS_NONE : VECTORS_MISSING;
		ret->err = (int)n;
		free(buf);
		return 0;
	}
	ret->avail = malloc((nr_ids ? nr_ids : 1) * sizeof(*ret->avail));
	if (!ret->avail) {
		free(buf);
		return -ENOMEM;
	}
	r = vector_matrix_parse(buf, nr_ids, ret->avail, &ret->line);
	free(buf);
	if (r < 0) {
		free(ret->avail);
		ret->avail = NULL;
		ret->status = VECTORS_BAD;
		ret->err = r;
		return 0;
	}
	ret->status = VECTORS_READ;
	return 0;
}

void vectors_release(struct vector_info *vi)
{
	free(vi->avail);
	vi->avail = NULL;
}

const char *vectors_why(const struct vector_info *vi, char *buf, size_t len)
{
	const char *what;

	if (vi->status == VECTORS_BAD)
		what = vi->err == -ERANGE ? "a count out of range" :
		       vi->line ? "not the kernel's per-CPU table" : "no per-CPU table";
	else
		what = strerror(-vi->err);
	if (vi->status == VECTORS_BAD && vi->line)
		snprintf(buf, len, "line %u: %s", vi->line, what);
	else
		snprintf(buf, len, "%s", what);
	return buf;
}
