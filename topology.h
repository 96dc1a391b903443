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
	/* What the CPU can do beside the biggest, in the scheduler's units
	 * (SCHED_CAPACITY_SCALE, 1024: the biggest); 0: unknown, taken as
	 * full. */
	unsigned int capacity;
};

#define CAPACITY_SCALE	1024

/* An Intel hybrid E-core (cpu_atom) beside a P-core thread (cpu_core),
 * where the kernel gives no cpu_capacity (x86 has none in sysfs): 5/8.
 * An Alder Lake E-core runs at about 0.78 of the P-core's top clock (3.9
 * against 5.0 GHz on the i9-12900K) with roughly 0.8 of its instructions
 * per clock on short, branchy kernel paths such as IRQ handlers: about
 * 0.62. A guess, kept on the low side of what the scheduler's own figure
 * (from HWP highest performance) gives, so that heavy IRQs go to the
 * P-cores first, where admins ask for them. */
#define CAPACITY_HYBRID_ATOM	640

/* Where the capacities came from. */
enum capacity_source {
	CAPACITY_NONE,		/* none: every CPU alike */
	CAPACITY_SYSFS,		/* cpuN/cpu_capacity (arm64, riscv) */
	CAPACITY_HYBRID,	/* the hybrid core lists, CAPACITY_HYBRID_ATOM */
};

struct topology {
	unsigned int nr_ids;	/* cpus[] size: highest possible id + 1 */
	struct cpu_info *cpus;	/* indexed by CPU id; offline ones have online=false */
	struct cpuset *online;	/* nbits = nr_ids */
	struct cpuset *eligible;	/* online and avoid == 0 */
	int nr_nodes;		/* highest node id + 1, 0 if the machine has no nodes */
	enum capacity_source capacity_src;
	/* A capacity file that could not be used (-errno, with the file): the
	 * capacities are all dropped then, and the run goes on without. */
	int capacity_err;
	char capacity_file[160];
};

/* One cpu_capacity file's text: a decimal in 1..CAPACITY_SCALE, blanks
 * around it allowed. -EINVAL (not a number) or -ERANGE. */
int capacity_parse(const char *s, unsigned int *ret);
/* Whether the online CPUs differ in capacity. */
bool topology_capacity_differs(const struct topology *topo);
/* CPU @cpu's capacity, CAPACITY_SCALE when unknown. */
unsigned int topology_capacity(const struct topology *topo, unsigned int cpu);

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
