/* SPDX-License-Identifier: GPL-2.0-or-later */
/* costs.h - the per-event costs a measured run found on this machine,
 * kept in /run/irqtune/costs for the runs after it that can only estimate
 * (no BPF, not root): their estimate starts from what was measured here
 * instead of typical values. Valid for the boot that wrote it, a day. */
#ifndef IRQTUNE_COSTS_H
#define IRQTUNE_COSTS_H

#include <stddef.h>
#include "estimate.h"
#include "measure.h"

#define COSTS_VERSION	1
#define COSTS_MAX_AGE	86400.0		/* seconds */
#define COSTS_MIN_EVENTS 100		/* fewer measure nothing */
#define COSTS_FILE_MAX	4096

/* The costs @raw measured, per class and softirq vector, in microseconds;
 * kinds with fewer than COSTS_MIN_EVENTS events keep @base's. Pure. */
void costs_from_measure(const struct measure_raw *raw, const struct measure_target *t,
			unsigned int n, const struct estimate_prior *base,
			struct estimate_prior *ret);

/* The file's text; 0 or -ENOSPC. Pure. */
int costs_format(const struct estimate_prior *p, const char *boot_id, double when,
		 char *buf, size_t len);
/* Parse @text written on boot @boot_id at most COSTS_MAX_AGE before @now
 * into @ret (kinds it lacks keep @base's). -EINVAL (malformed, foreign or
 * newer version) or -ESTALE (another boot, too old, from the future) with
 * the reason in @why. Pure. */
int costs_parse(const char *text, const char *boot_id, double now,
		const struct estimate_prior *base, struct estimate_prior *ret,
		double *ret_when, char *why, size_t len);

/* Read and parse @path: a regular file of root's (or ours), writable by no
 * one else, not a symlink, at most COSTS_FILE_MAX bytes. -ENOENT when
 * there is none; -EPERM, -ELOOP, -EFBIG, or costs_parse()'s, with @why. */
int costs_load(const char *path, const char *boot_id, double now,
	       const struct estimate_prior *base, struct estimate_prior *ret,
	       double *ret_when, char *why, size_t len);
/* The same through @src (NULL: the live filesystem), which a capture keeps
 * the file of and a replay reads it from. */
struct source;
int costs_load_from(struct source *src, const char *path, const char *boot_id, double now,
		    const struct estimate_prior *base, struct estimate_prior *ret,
		    double *ret_when, char *why, size_t len);
/* Write it atomically, creating its directory (mode 0755) if need be. */
int costs_save(const char *path, const struct estimate_prior *p,
	       const char *boot_id, double when);

/* This boot's id (/proc/sys/kernel/random/boot_id) into @buf; through
 * @src (NULL: the live filesystem) for a capture and its replay. */
int costs_boot_id(char *buf, size_t len);
int costs_boot_id_from(struct source *src, char *buf, size_t len);

/* What a run reads: this boot's id into @boot ("" when it cannot be
 * read), then @path through @src judged at @now, over the built-in costs.
 * 0 with *@ret and *@ret_when; -ENOENT (no boot id, or no file) and
 * -ESTALE say nothing worth a warning; else costs_load_from()'s error,
 * with @why. */
int costs_read(struct source *src, const char *path, double now, char *boot, size_t boot_len,
	       struct estimate_prior *ret, double *ret_when, char *why, size_t why_len);
/* What a measured run leaves: the costs @raw measured over @prev (NULL:
 * the built-in ones) saved to @path for boot @boot at @now. 0, also when
 * there is no boot id or no measurement and so nothing to save, or
 * costs_save()'s -errno. */
int costs_record(const char *path, const struct measure_raw *raw,
		 const struct measure_target *t, unsigned int n,
		 const struct estimate_prior *prev, const char *boot, double now);

#endif
