/* SPDX-License-Identifier: GPL-2.0-or-later */
/* packstate.h - the file placement = pack leaves for the next run,
 * /run/irqtune/pack beside the load history's state: per node, the pool's
 * size in cores, the runs in a row that needed fewer, and its CPUs. Kept
 * apart from the state so that its format, and a run that spreads, are
 * untouched by it. What is kept and its format; what a run makes of it is
 * pack.h's, one floor up (docs/ARCHITECTURE.md). */
#ifndef IRQTUNE_PACKSTATE_H
#define IRQTUNE_PACKSTATE_H

#include <stddef.h>

struct cpuset;

/* Runs in a row that needed fewer cores before the pool gives one back:
 * at one run a minute, a load that fell stays packed for three minutes
 * before IRQs move again, and a load that comes back finds its cores. */
#define PACK_SHRINK_RUNS	3
#define PACK_MAX_NODES		1024	/* a state that names more is not ours */

/* One node's part of the pool, as a run leaves it for the next. */
struct pack_node {
	unsigned int cores;	/* whole cores in the pool; 0: none */
	unsigned int under;	/* runs in a row that needed fewer cores */
	struct cpuset *cpus;	/* the pool's CPUs on this node; NULL: none */
};

/* What persists between runs: per node (index = node id; one entry for
 * a machine without nodes). */
struct pack_state {
	unsigned int nr_nodes;
	struct pack_node *nodes;
};

#define PACKSTATE_VERSION	1
/* A pool from longer ago than this describes another load; cron may run
 * hourly, so a day. */
#define PACKSTATE_MAX_AGE	86400.0
#define PACKSTATE_FILE_MAX	(1u << 20)

/* The text of @st, written on boot @boot at @when (malloc'd in *@ret);
 * -ENOMEM. Pure. */
int packstate_format(const struct pack_state *st, const char *boot, double when, char **ret);
/* Parse @text, written on boot @boot at most PACKSTATE_MAX_AGE before @now,
 * into *@ret (released with pack_state_release()). -EINVAL (malformed,
 * foreign, newer version) or -ESTALE (another boot, too old, from the
 * future) with the reason in @why; -ENOMEM. Pure. */
int packstate_parse(const char *text, const char *boot, double now, struct pack_state *ret,
		    char *why, size_t len);

/* Read @path as read_own_file() allows; its errors, or the parser's. */
int packstate_load(const char *path, const char *boot, double now, struct pack_state *ret,
		   char *why, size_t len);
/* Write it atomically, creating its directory if need be. */
int packstate_save(const char *path, const struct pack_state *st, const char *boot,
		   double when);
/* Free its CPU sets and nodes, and zero it. */
void pack_state_release(struct pack_state *st);

#endif
