/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vectors.h - the x86 vector matrix: how many interrupt vectors each CPU
 * has free for an IRQ that arrives, from debugfs's VECTOR domain (the
 * table irq_matrix_debug_show() prints). Parsing is pure; reading goes
 * through source.c, so a capture keeps the file and a replay parses it. */
#ifndef IRQTUNE_VECTORS_H
#define IRQTUNE_VECTORS_H

#include <limits.h>
#include <stddef.h>

#define VECTORS_UNKNOWN	UINT_MAX	/* a CPU the matrix has no row for */

/* Parse the VECTOR file in @buf: the per-CPU table headed "| CPU | avl |
 * ...", into @avail (@nr_ids entries, set to VECTORS_UNKNOWN first). Rows
 * of CPUs at or past @nr_ids are ignored. 0, or -EINVAL (no table, a row
 * that is not numbers, a CPU twice) / -ERANGE (a number too large) with
 * *@ret_line the 1-based line at fault (0: the file as a whole). */
int vector_matrix_parse(const char *buf, unsigned int nr_ids, unsigned int *avail,
			unsigned int *ret_line);

enum vector_status {
	VECTORS_READ,		/* avail holds the matrix */
	VECTORS_NONE,		/* debugfs shows IRQ domains but no VECTOR: not x86 */
	VECTORS_MISSING,	/* could not be read (err): no debugfs, no root */
	VECTORS_BAD,		/* read but malformed (err, line) */
};

struct vector_info {
	enum vector_status status;
	int err;		/* -errno behind MISSING or BAD */
	unsigned int line;	/* BAD: the line at fault, 0: none */
	unsigned int *avail;	/* READ: per CPU id; else NULL */
	unsigned int nr_ids;
};

struct source;
/* Read _PATH_DEBUG_VECTOR through @src (NULL: live) for @nr_ids CPUs into
 * @ret. Never fails the run: 0, or -ENOMEM. */
int vectors_read(struct source *src, unsigned int nr_ids, struct vector_info *ret);
void vectors_release(struct vector_info *vi);
/* Why, in words: "no such file", "line 12: not a number", ... for a
 * message naming _PATH_DEBUG_VECTOR; @buf of @len bytes. */
const char *vectors_why(const struct vector_info *vi, char *buf, size_t len);

#endif
