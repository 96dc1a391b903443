/* SPDX-License-Identifier: GPL-2.0-or-later */
/* topology.h - online CPUs, how they relate (SMT siblings, physical cores,
 * last-level caches, packages, NUMA nodes) and which of them IRQs must avoid.
 * Knows nothing of IRQs. */
#ifndef IRQTUNE_TOPOLOGY_H
#define IRQTUNE_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>
#include "cpuset.h"

/* Why a CPU is avoided; bits, since one CPU can have several reasons. */
enum {
	AVOID_ISOLATED	= 1 << 0,	/* /sys/devices/system/cpu/isolated */
	AVOID_NOHZ_FULL	= 1 << 1,	/* /sys/devices/system/cpu/nohz_full */
	AVOID_BANNED	= 1 << 2,	/* --bancpus / configuration */
};

struct cpu_info {
	bool online;
	int core;	/* lowest CPU id sharing this physical core (SMT siblings) */
	int llc;	/* lowest CPU id sharing the last-level cache */
	int package;	/* physical_package_id, -1 if unknown */
	int node;	/* NUMA node, -1 if none */
	unsigned int avoid;	/* AVOID_* bits, 0 if IRQs may go here */
};

struct topology {
	unsigned int nr_ids;	/* cpus[] size: highest possible id + 1 */
	struct cpu_info *cpus;	/* indexed by CPU id; offline ones have online=false */
	struct cpuset *online;	/* nbits = nr_ids */
	struct cpuset *eligible;	/* online and avoid == 0 */
	int nr_nodes;		/* highest node id + 1, 0 if the machine has no nodes */
};

/* Read from @root + _PATH_SYS_CPU and _PATH_SYS_NODE (@root is "" on a live
 * machine). @banned may be NULL; its CPUs are added to the avoided set, never
 * replace it. A CPU id in @banned beyond the machine is ignored.
 * Returns 0 or -errno; on failure *@ret_topo is untouched. */
int topology_read(const char *root, const struct cpuset *banned,
		  struct topology **ret_topo);
/* The same; on failure @where (of @where_len bytes) names the file or
 * directory that failed, or is "" when none did (no memory, say). */
int topology_read_where(const char *root, const struct cpuset *banned,
			struct topology **ret_topo, char *where, size_t where_len);
void topology_free(struct topology *topo);

/* The same through @src (NULL: the live filesystem): recording keeps every
 * file and directory listing read, and a replay reads them from the
 * capture with the same parsers, @root "" then. */
struct source;
int topology_read_from(struct source *src, const char *root, const struct cpuset *banned,
		       struct topology **ret_topo, char *where, size_t where_len);

/* Why topology_read*() refused a file (its -errno @r), in a few words
 * for a message that names the file: "missing", "an id out of range". */
const char *topology_strerror(int r);

/* For tests and the planner's callers: build a topology in memory. */
struct topology *topology_new(unsigned int nr_ids);
/* Recompute online/eligible from cpus[]. */
void topology_update_sets(struct topology *topo);
/* Only the @nr CPUs of @cpus are still online: any other went offline
 * after the topology was read, and leaves online and eligible. */
void topology_keep_online(struct topology *topo, const unsigned int *cpus, unsigned int nr);

#endif
