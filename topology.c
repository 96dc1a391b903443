// SPDX-License-Identifier: GPL-2.0-or-later
/* topology.c - which CPUs are online, which share a core, a last-level
 * cache, a package and a NUMA node, and which ones IRQs must avoid; all from
 * sysfs, under a root prefix so tests can point it at a captured tree, and
 * through source.c, so that a capture keeps the files and directory
 * listings read and a replay parses them here again. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "pathnames.h"
#include "source.h"
#include "strutil.h"
#include "topology.h"

/* Largest sysfs file we read. A cpulist of 8192 CPUs without one range
 * ("0,2,4,...") is about 40 KiB; a corrupt file must not grow us further. */
#define ATTR_MAX	(64 * 1024)

/* The kernel's MAX_NUMNODES is at most 1 << 10 (NODES_SHIFT <= 10). */
#define NODE_ID_LIMIT	4096

/* Cache levels are small; anything else is a corrupt file. */
#define CACHE_LEVEL_MAX	16

#define REL_PATH_MAX	96	/* "cpuN/cache/indexK/shared_cpu_list" */

struct ctx {
	struct source *src;	/* NULL: the live filesystem */
	char *buf;		/* ATTR_MAX + 2 bytes for read_attr() */
	/* CPU_ID_LIMIT bits, for every list read: node and sibling masks
	 * may name ids past "possible" (sparc64 node cpumaps do), and those
	 * are ignored rather than fatal. */
	struct cpuset *wide;
	struct topology *topo;
	const char *cpu_dir;	/* root + _PATH_SYS_CPU, for messages */
	char *where;		/* the caller's: the file that failed, or NULL */
	size_t where_len;
};

/* Pass @r on; the first time it is an error, name @dir/@rel as the file
 * behind it, so the caller can say which one (sysfs has thousands). */
static int failed(struct ctx *c, const char *dir, const char *rel, int r)
{
	if (r < 0 && c->where && !c->where[0])
		snprintf(c->where, c->where_len, "%s%s%s", dir, rel ? "/" : "",
			 rel ? rel : "");
	return r;
}

/* Read @dir/@rel into c->buf (ATTR_MAX + 2 bytes) and point *@ret_str
 * at its text without surrounding blanks. */
static int read_attr(struct ctx *c, const char *dir, const char *rel, char **ret_str)
{
	char path[PATH_MAX];
	char *buf = c->buf, *s = buf, *e;
	long n;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, rel) >= sizeof(path))
		return -ENAMETOOLONG;
	/* Room for one byte past ATTR_MAX tells a full file from a longer one. */
	n = source_read(c->src, path, buf, ATTR_MAX + 1);
	if (n < 0)
		return (int)n;
	/* RHEL 7's 3.10 prints an unset nohz_full as "\0\n": text ends at
	 * the first NUL. */
	e = buf + strlen(buf);
	while (is_space(*s))
		s++;
	while (e > s && is_space(e[-1]))
		e--;
	*e = '\0';
	*ret_str = s;
	return 0;
}

/* Strict decimal in [@min, @max]: an optional '-', digits, nothing else. */
static int parse_long(const char *s, long min, long max, long *ret)
{
	const char *d = s[0] == '-' ? s + 1 : s;
	char *end;
	long v;

	if (*d < '0' || *d > '9')
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*ret = v;
	return 0;
}

/* "@prefix<N>" as the kernel names it (no sign, no leading zero).
 * -EINVAL when @name is something else, -ERANGE when N >= @limit. */
static int parse_name(const char *name, const char *prefix,
		      unsigned int limit, unsigned int *ret)
{
	size_t plen = strlen(prefix);
	const char *d = name + plen;
	long v;
	int r;

	if (strncmp(name, prefix, plen) != 0)
		return -EINVAL;
	if (d[0] == '0' && d[1] != '\0')
		return -EINVAL;
	if (d[0] == '-')
		return -EINVAL;
	r = parse_long(d, 0, LONG_MAX, &v);
	if (r < 0)
		return r;
	if ((unsigned long)v >= limit)
		return -ERANGE;
	*ret = (unsigned int)v;
	return 0;
}

/* Parse a cpulist at @dir/@list, or failing that a cpumask at @dir/@mask
 * (NULL: none), into @set. -ENOENT when neither exists. */
static int read_cpus(struct ctx *c, const char *dir,
		     const char *list, const char *mask, struct cpuset *set)
{
	char *s;
	int r;

	r = read_attr(c, dir, list, &s);
	if (r == 0)
		return failed(c, dir, list, cpulist_parse(s, set));
	if (r != -ENOENT || !mask)
		return r == -ENOENT ? r : failed(c, dir, list, r);
	r = read_attr(c, dir, mask, &s);
	if (r < 0)
		return r == -ENOENT ? r : failed(c, dir, mask, r);
	return failed(c, dir, mask, cpumask_parse(s, set));
}

static int add_cpu_dir(void *ctx, const char *name)
{
	struct ctx *c = ctx;
	unsigned int cpu;
	int r = parse_name(name, "cpu", CPU_ID_LIMIT, &cpu);

	if (r == -EINVAL)	/* cpufreq, cpuidle, ... */
		return 0;
	if (r < 0)
		return r;
	cpuset_set(c->wide, cpu);
	return 0;
}

/* Every cpuN directory, into c->wide. */
static int scan_cpu_dirs(struct ctx *c)
{
	cpuset_zero(c->wide);
	return failed(c, c->cpu_dir, NULL, source_list(c->src, c->cpu_dir, add_cpu_dir, c));
}

/* Without an "online" file (old kernels), a CPU is online unless its
 * cpuN/online says "0"; cpu0 often has no such file, as it cannot go.
 * @c->wide holds the cpuN directories. */
static int online_from_dirs(struct ctx *c, int last, struct cpuset *online)
{
	char path[REL_PATH_MAX], *s;
	int cpu, r;

	cpuset_zero(online);
	/* Directories past "possible" do not count. */
	for (cpu = cpuset_first(c->wide); cpu >= 0 && cpu <= last;
	     cpu = cpuset_next(c->wide, cpu)) {
		snprintf(path, sizeof(path), "cpu%d/online", cpu);
		r = read_attr(c, c->cpu_dir, path, &s);
		if (r < 0 && r != -ENOENT)
			return failed(c, c->cpu_dir, path, r);
		/* An empty file is no answer either: hwloc's captures
		 * empty the files they do not use. */
		if (r == -ENOENT || !*s || strcmp(s, "1") == 0)
			cpuset_set(online, (unsigned int)cpu);
		else if (strcmp(s, "0") != 0)
			return failed(c, c->cpu_dir, path, -EINVAL);
	}
	return 0;
}

/* How many ids (from "possible", else the cpuN directories and "online")
 * and which are online, into *@ret_online (nbits CPU_ID_LIMIT). */
static int read_online(struct ctx *c, unsigned int *ret_nr_ids,
		       struct cpuset **ret_online)
{
	struct cpuset *online;
	bool have_possible, have_online;
	int last = -1, r;
	char *s;

	online = cpuset_new(CPU_ID_LIMIT);
	if (!online)
		return -ENOMEM;

	r = read_attr(c, c->cpu_dir, "possible", &s);
	have_possible = r == 0;
	if (have_possible) {
		r = cpulist_parse(s, c->wide);
		last = cpuset_last(c->wide);
		if (r == 0 && last < 0)
			r = -EINVAL;
		if (r < 0)
			goto fail_possible;
	} else if (r != -ENOENT) {
		goto fail_possible;
	}

	r = read_attr(c, c->cpu_dir, "online", &s);
	have_online = r == 0;
	if (have_online) {
		r = cpulist_parse(s, online);
		if (r < 0)
			goto fail_online;
	} else if (r != -ENOENT) {
		goto fail_online;
	}

	if (!have_possible || !have_online) {
		r = scan_cpu_dirs(c);
		if (r < 0)
			goto fail;
	}
	if (!have_online) {
		r = online_from_dirs(c, have_possible ? last : INT_MAX, online);
		if (r < 0)
			goto fail;
	}
	if (!have_possible) {
		last = cpuset_last(c->wide);
		if (cpuset_last(online) > last)
			last = cpuset_last(online);
	} else if (cpuset_last(online) > last) {
		/* The kernel keeps online within possible. */
		r = -EINVAL;
		goto fail_online;
	}
	if (last < 0 || cpuset_count(online) == 0) {
		r = -ENODEV;
		goto fail_online;
	}
	*ret_nr_ids = (unsigned int)last + 1;
	*ret_online = online;
	return 0;
fail_possible:
	failed(c, c->cpu_dir, "possible", r);
	goto fail;
fail_online:
	failed(c, c->cpu_dir, "online", r);
fail:
	cpuset_free(online);
	return r;
}

/* "isolated" and "nohz_full" add @bit to the CPUs they list. */
static int read_avoid(struct ctx *c, const char *name, unsigned int bit)
{
	struct topology *t = c->topo;
	char *s;
	int cpu, r;

	r = read_attr(c, c->cpu_dir, name, &s);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return failed(c, c->cpu_dir, name, r);
	/* Without nohz_full= some kernels print "(null)", right-aligned in
	 * nr_cpu_ids columns (captured up to 6.17). */
	if (strcmp(s, "(null)") == 0)
		return 0;
	r = cpulist_parse(s, c->wide);
	if (r < 0)
		return failed(c, c->cpu_dir, name, r);
	for (cpu = cpuset_first(c->wide); cpu >= 0;
	     cpu = cpuset_next(c->wide, cpu)) {
		if ((unsigned int)cpu >= t->nr_ids)
			break;
		t->cpus[cpu].avoid |= bit;
	}
	return 0;
}

enum group { GROUP_CORE, GROUP_LLC };

/* Give every online CPU of c->wide whose core (or llc) is unknown the lowest
 * online id of the set, after adding @cpu in case a buggy list leaves it
 * out. Marking all members at once is what lets their own lists go unread. */
static void assign_group(struct ctx *c, unsigned int cpu, enum group g)
{
	struct topology *t = c->topo;
	int m, lowest = -1;

	cpuset_set(c->wide, cpu);
	for (m = cpuset_first(c->wide); m >= 0; m = cpuset_next(c->wide, m)) {
		struct cpu_info *ci;
		int *v;

		if ((unsigned int)m >= t->nr_ids)
			break;
		ci = &t->cpus[m];
		v = g == GROUP_CORE ? &ci->core : &ci->llc;
		if (!ci->online)
			continue;
		if (lowest < 0)
			lowest = m;
		if (*v < 0)
			*v = lowest;
	}
}

static int read_package(struct ctx *c, unsigned int cpu)
{
	char path[REL_PATH_MAX], *s;
	long v;
	int r;

	snprintf(path, sizeof(path), "cpu%u/topology/physical_package_id", cpu);
	r = read_attr(c, c->cpu_dir, path, &s);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return failed(c, c->cpu_dir, path, r);
	/* s390 and sparc64 report -1 themselves. */
	r = parse_long(s, -1, INT_MAX, &v);
	if (r < 0)
		return failed(c, c->cpu_dir, path, r);
	c->topo->cpus[cpu].package = (int)v;
	return 0;
}

static int read_core(struct ctx *c, unsigned int cpu)
{
	/* core_cpus is the newer name of thread_siblings; trees from before
	 * the *_list files (util-linux's 2012 dumps) have only the masks. */
	static const char *const lists[][2] = {
		{ "thread_siblings_list", "thread_siblings" },
		{ "core_cpus_list", "core_cpus" },
	};
	char list[REL_PATH_MAX], mask[REL_PATH_MAX];
	unsigned int i;
	int r = -ENOENT;

	for (i = 0; i < sizeof(lists) / sizeof(lists[0]) && r == -ENOENT; i++) {
		snprintf(list, sizeof(list), "cpu%u/topology/%s", cpu, lists[i][0]);
		snprintf(mask, sizeof(mask), "cpu%u/topology/%s", cpu, lists[i][1]);
		r = read_cpus(c, c->cpu_dir, list, mask, c->wide);
	}
	if (r == -ENOENT) {
		c->topo->cpus[cpu].core = (int)cpu;
		return 0;
	}
	if (r < 0)
		return r;
	assign_group(c, cpu, GROUP_CORE);
	return 0;
}

/* The cache/indexK of @cpu with the highest level; best = -1 if there is
 * none. Ties go to the lowest K. */
struct llc_walk {
	struct ctx *c;
	const char *cache_dir;
	long best_level;
	int best;
};

static int llc_index(void *ctx, const char *name)
{
	struct llc_walk *w = ctx;
	char path[REL_PATH_MAX], *s;
	unsigned int k;
	long level;
	int r;

	if (parse_name(name, "index", INT_MAX, &k) < 0)
		return 0;
	snprintf(path, sizeof(path), "index%u/level", k);
	r = read_attr(w->c, w->cache_dir, path, &s);
	if (r == -ENOENT)
		return 0;
	if (r == 0)
		r = parse_long(s, 0, CACHE_LEVEL_MAX, &level);
	if (r < 0)
		return failed(w->c, w->cache_dir, path, r);
	if (level > w->best_level || (level == w->best_level && (int)k < w->best)) {
		w->best_level = level;
		w->best = (int)k;
	}
	return 0;
}

static int read_llc(struct ctx *c, unsigned int cpu)
{
	char list[REL_PATH_MAX], mask[REL_PATH_MAX];
	char dir[PATH_MAX];
	struct llc_walk w = { .c = c, .cache_dir = dir, .best_level = -1, .best = -1 };
	int r;

	snprintf(dir, sizeof(dir), "%s/cpu%u/cache", c->cpu_dir, cpu);
	r = source_list(c->src, dir, llc_index, &w);
	if (r == -ENOENT)
		return 0;
	if (r < 0 || w.best < 0)
		return failed(c, dir, NULL, r);
	snprintf(list, sizeof(list), "index%d/shared_cpu_list", w.best);
	snprintf(mask, sizeof(mask), "index%d/shared_cpu_map", w.best);
	r = read_cpus(c, dir, list, mask, c->wide);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	assign_group(c, cpu, GROUP_LLC);
	return 0;
}

struct pkg_cpu {
	int package;
	int cpu;
};

static int cmp_pkg_cpu(const void *pa, const void *pb)
{
	const struct pkg_cpu *a = pa, *b = pb;

	if (a->package != b->package)
		return a->package < b->package ? -1 : 1;
	return (a->cpu > b->cpu) - (a->cpu < b->cpu);
}

/* No cache information: the LLC is taken to be the package's (lowest
 * online CPU of the same package), or the CPU alone if that is unknown.
 * Sorting keeps this O(n log n) however many packages there are. */
static int llc_from_package(struct topology *t)
{
	struct pkg_cpu *v;
	unsigned int i, j, n = 0;
	int cpu;

	v = calloc(cpuset_count(t->online) + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (cpu = cpuset_first(t->online); cpu >= 0;
	     cpu = cpuset_next(t->online, cpu)) {
		if (t->cpus[cpu].package >= 0) {
			v[n].package = t->cpus[cpu].package;
			v[n++].cpu = cpu;
		}
	}
	qsort(v, n, sizeof(*v), cmp_pkg_cpu);
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && v[j].package == v[i].package; j++) {
			if (t->cpus[v[j].cpu].llc < 0)
				t->cpus[v[j].cpu].llc = v[i].cpu;
		}
	}
	free(v);
	for (cpu = cpuset_first(t->online); cpu >= 0;
	     cpu = cpuset_next(t->online, cpu)) {
		if (t->cpus[cpu].llc < 0)
			t->cpus[cpu].llc = cpu;
	}
	return 0;
}

static int lowest_node(void *ctx, const char *name)
{
	int *node = ctx;
	unsigned int m;
	int r = parse_name(name, "node", NODE_ID_LIMIT, &m);

	if (r == -EINVAL)
		return 0;
	if (r < 0)
		return r;
	if (*node < 0 || (int)m < *node)
		*node = (int)m;
	return 0;
}

/* Lowest M of a cpuN/nodeM entry, -1 if none. */
static int find_node_link(struct ctx *c, unsigned int cpu, int *ret_node)
{
	char path[REL_PATH_MAX], dir[PATH_MAX];
	int node = -1, r;

	snprintf(path, sizeof(path), "cpu%u", cpu);
	snprintf(dir, sizeof(dir), "%s/%s", c->cpu_dir, path);
	r = source_list(c->src, dir, lowest_node, &node);
	if (r == -ENOENT)
		r = 0;
	if (r < 0)
		return failed(c, c->cpu_dir, path, r);
	*ret_node = node;
	return 0;
}

struct node_walk {
	struct ctx *c;
	const char *node_path;
	int *listed;
	int max_node;
};

/* One file per node, CPU-less nodes included: they count in nr_nodes
 * since devices may sit on them. */
static int node_dir(void *ctx, const char *name)
{
	struct node_walk *w = ctx;
	struct topology *t = w->c->topo;
	char list[REL_PATH_MAX], mask[REL_PATH_MAX];
	unsigned int m;
	int i, r = parse_name(name, "node", NODE_ID_LIMIT, &m);

	if (r == -EINVAL)
		return 0;
	if (r < 0)
		return r;
	if ((int)m > w->max_node)
		w->max_node = (int)m;
	snprintf(list, sizeof(list), "node%u/cpulist", m);
	snprintf(mask, sizeof(mask), "node%u/cpumap", m);
	r = read_cpus(w->c, w->node_path, list, mask, w->c->wide);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	for (i = cpuset_first(w->c->wide); i >= 0 && (unsigned int)i < t->nr_ids;
	     i = cpuset_next(w->c->wide, i))
		if (w->listed[i] < 0 || (int)m < w->listed[i])
			w->listed[i] = (int)m;
	return 0;
}

/* A CPU's node is the M of its cpuN/nodeM link; the nodeM/cpulist files are
 * the fallback, since some firmware lists every CPU in every node (hwloc's
 * "buggynuma" capture) while the links stay right. A machine without a node
 * directory has no NUMA at all. */
static int read_nodes(struct ctx *c, const char *node_path)
{
	struct topology *t = c->topo;
	struct node_walk w = { .c = c, .node_path = node_path, .max_node = -1 };
	char path[PATH_MAX];
	int cpu, r;

	w.listed = malloc(t->nr_ids * sizeof(*w.listed));
	if (!w.listed)
		return -ENOMEM;
	for (cpu = 0; (unsigned int)cpu < t->nr_ids; cpu++)
		w.listed[cpu] = -1;
	r = source_list(c->src, node_path, node_dir, &w);
	if (r == -ENOENT) {
		r = 0;
		goto out;
	}
	if (r < 0)
		goto out;

	for (cpu = cpuset_first(t->online); cpu >= 0;
	     cpu = cpuset_next(t->online, cpu)) {
		int node = w.listed[cpu];

		/* The usual case costs one stat: the link the list
		 * predicts is there. */
		if (node >= 0) {
			snprintf(path, sizeof(path), "%s/cpu%d/node%d", c->cpu_dir, cpu, node);
			if (source_isdir(c->src, path) == 0) {
				t->cpus[cpu].node = node;
				continue;
			}
		}
		r = find_node_link(c, (unsigned int)cpu, &node);
		if (r < 0)
			goto out;
		t->cpus[cpu].node = node >= 0 ? node : w.listed[cpu];
		if (t->cpus[cpu].node > w.max_node)
			w.max_node = t->cpus[cpu].node;
	}
	t->nr_nodes = w.max_node + 1;
	r = 0;
out:
	free(w.listed);
	return r == -ENOMEM ? r : failed(c, node_path, NULL, r);
}

int capacity_parse(const char *s, unsigned int *ret)
{
	unsigned long v = 0;

	while (is_space(*s))
		s++;
	if (!is_digit(*s))
		return -EINVAL;
	for (; is_digit(*s); s++) {
		v = v * 10 + (unsigned long)(*s - '0');
		if (v > CAPACITY_SCALE * 10UL)
			v = CAPACITY_SCALE * 10UL;	/* saturate: out of range anyway */
	}
	while (is_space(*s))
		s++;
	if (*s)
		return -EINVAL;
	/* 0 is no capacity at all: not a CPU the kernel would run. */
	if (v < 1 || v > CAPACITY_SCALE)
		return -ERANGE;
	*ret = (unsigned int)v;
	return 0;
}

/* A capacity source that cannot be used: say which file and why (the
 * caller reports it), and plan as if every CPU were alike. */
static void capacity_drop(struct ctx *c, const char *file, int r)
{
	struct topology *t = c->topo;

	for (unsigned int k = 0; k < t->nr_ids; k++)
		t->cpus[k].capacity = 0;
	t->capacity_src = CAPACITY_NONE;
	t->capacity_err = r;
	str_copy(t->capacity_file, sizeof(t->capacity_file), file);
}

/* cpuN/cpu_capacity of every online CPU (arm64, riscv). Where the first
 * has none the machine has none (x86): one file read, not one per CPU.
 * Returns 1 when capacities were found, else 0. */
static int read_cpu_capacity(struct ctx *c)
{
	struct topology *t = c->topo;
	char path[REL_PATH_MAX], full[PATH_MAX], *s;
	bool first = true;
	int cpu, r;

	for (cpu = cpuset_first(t->online); cpu >= 0;
	     cpu = cpuset_next(t->online, cpu), first = false) {
		unsigned int v;

		snprintf(path, sizeof(path), "cpu%d/cpu_capacity", cpu);
		r = read_attr(c, c->cpu_dir, path, &s);
		if (r == -ENOENT && first)
			return 0;
		if (r == 0)
			r = capacity_parse(s, &v);
		if (r < 0) {
			/* One CPU without it beside others with it is a
			 * tree no kernel writes: drop them all. */
			snprintf(full, sizeof(full), "%s/%s", c->cpu_dir, path);
			capacity_drop(c, full, r);
			return 0;
		}
		t->cpus[cpu].capacity = v;
	}
	t->capacity_src = CAPACITY_SYSFS;
	return 1;
}

/* Intel hybrid: P-cores (cpu_core) are full, E-cores (cpu_atom)
 * CAPACITY_HYBRID_ATOM. Both lists or neither. */
static int read_hybrid(struct ctx *c, const char *root)
{
	static const struct { const char *path; unsigned int cap; } kinds[] = {
		{ _PATH_SYS_HYBRID_CORE, CAPACITY_SCALE },
		{ _PATH_SYS_HYBRID_ATOM, CAPACITY_HYBRID_ATOM },
	};
	struct topology *t = c->topo;
	char path[PATH_MAX], *s;
	unsigned int i;
	int cpu, r;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (snprintf(path, sizeof(path), "%s%s", root, kinds[i].path) >=
		    (int)sizeof(path))
			return 0;
		r = read_attr(c, path, "cpus", &s);
		if (r == -ENOENT && i == 0)
			return 0;	/* not a hybrid part */
		if (r == 0)
			r = *s ? cpulist_parse(s, c->wide) : -EINVAL;
		if (r < 0) {
			strncat(path, "/cpus", sizeof(path) - strlen(path) - 1);
			capacity_drop(c, path, r);
			return 0;
		}
		for (cpu = cpuset_first(c->wide); cpu >= 0 && (unsigned int)cpu < t->nr_ids;
		     cpu = cpuset_next(c->wide, cpu))
			t->cpus[cpu].capacity = kinds[i].cap;
	}
	t->capacity_src = CAPACITY_HYBRID;
	return 1;
}

/* Capacities never fail a run: a file that cannot be used is named in
 * the topology and the CPUs are taken as alike. */
static void read_capacity(struct ctx *c, const char *root)
{
	if (read_cpu_capacity(c) == 0 && c->topo->capacity_err == 0)
		read_hybrid(c, root);
}

unsigned int topology_capacity(const struct topology *topo, unsigned int cpu)
{
	unsigned int v = cpu < topo->nr_ids ? topo->cpus[cpu].capacity : 0;

	return v ? v : CAPACITY_SCALE;
}

bool topology_capacity_differs(const struct topology *topo)
{
	unsigned int first = 0;
	int cpu;

	for (cpu = cpuset_first(topo->online); cpu >= 0;
	     cpu = cpuset_next(topo->online, cpu)) {
		unsigned int v = topology_capacity(topo, (unsigned int)cpu);

		if (!first)
			first = v;
		else if (v != first)
			return true;
	}
	return false;
}

static int build_path(char *buf, size_t len, const char *root,
		      const char *path)
{
	int n = snprintf(buf, len, "%s%s", root, path);

	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

int topology_read(const char *root, const struct cpuset *banned,
		  struct topology **ret_topo)
{
	return topology_read_where(root, banned, ret_topo, NULL, 0);
}

int topology_read_where(const char *root, const struct cpuset *banned,
			struct topology **ret_topo, char *where, size_t where_len)
{
	return topology_read_from(NULL, root, banned, ret_topo, where, where_len);
}

int topology_read_from(struct source *src, const char *root, const struct cpuset *banned,
		       struct topology **ret_topo, char *where, size_t where_len)
{
	struct ctx c = { .src = src, .where = where_len ? where : NULL,
			 .where_len = where_len };
	struct cpuset *online = NULL;
	char path[PATH_MAX], cpu_dir[PATH_MAX];
	unsigned int nr_ids = 0;
	int cpu, r;

	if (c.where)
		c.where[0] = '\0';
	if (!root)
		root = "";
	r = build_path(cpu_dir, sizeof(cpu_dir), root, _PATH_SYS_CPU);
	if (r < 0)
		return r;
	c.cpu_dir = cpu_dir;
	r = source_isdir(src, cpu_dir);
	if (r < 0)
		return failed(&c, cpu_dir, NULL, r);
	c.buf = malloc(ATTR_MAX + 2);
	c.wide = cpuset_new(CPU_ID_LIMIT);
	if (!c.buf || !c.wide) {
		r = -ENOMEM;
		goto out;
	}

	r = read_online(&c, &nr_ids, &online);
	if (r < 0)
		goto out;
	c.topo = topology_new(nr_ids);
	if (!c.topo) {
		r = -ENOMEM;
		goto out;
	}
	for (cpu = cpuset_first(online); cpu >= 0;
	     cpu = cpuset_next(online, cpu))
		c.topo->cpus[cpu].online = true;
	topology_update_sets(c.topo);

	r = read_avoid(&c, "isolated", AVOID_ISOLATED);
	if (r < 0)
		goto out;
	r = read_avoid(&c, "nohz_full", AVOID_NOHZ_FULL);
	if (r < 0)
		goto out;
	if (banned) {
		for (cpu = cpuset_first(banned); cpu >= 0;
		     cpu = cpuset_next(banned, cpu)) {
			if ((unsigned int)cpu >= nr_ids)
				break;
			c.topo->cpus[cpu].avoid |= AVOID_BANNED;
		}
	}

	for (cpu = cpuset_first(online); cpu >= 0;
	     cpu = cpuset_next(online, cpu)) {
		struct cpu_info *ci = &c.topo->cpus[cpu];

		r = read_package(&c, (unsigned int)cpu);
		if (r < 0)
			goto out;
		/* Already placed by an earlier sibling's list. */
		if (ci->core < 0) {
			r = read_core(&c, (unsigned int)cpu);
			if (r < 0)
				goto out;
		}
		if (ci->llc < 0) {
			r = read_llc(&c, (unsigned int)cpu);
			if (r < 0)
				goto out;
		}
	}
	r = llc_from_package(c.topo);
	if (r < 0)
		goto out;

	r = build_path(path, sizeof(path), root, _PATH_SYS_NODE);
	if (r < 0)
		goto out;
	r = read_nodes(&c, path);
	if (r < 0)
		goto out;
	read_capacity(&c, root);

	topology_update_sets(c.topo);
	*ret_topo = c.topo;
	c.topo = NULL;
out:
	topology_free(c.topo);
	cpuset_free(c.wide);
	cpuset_free(online);
	free(c.buf);
	return r;
}

void topology_free(struct topology *topo)
{
	if (!topo)
		return;
	cpuset_free(topo->online);
	cpuset_free(topo->eligible);
	free(topo->cpus);
	free(topo);
}

struct topology *topology_new(unsigned int nr_ids)
{
	struct topology *t;
	unsigned int i;

	if (nr_ids == 0 || nr_ids > CPU_ID_LIMIT)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->nr_ids = nr_ids;
	t->cpus = calloc(nr_ids, sizeof(*t->cpus));
	t->online = cpuset_new(nr_ids);
	t->eligible = cpuset_new(nr_ids);
	if (!t->cpus || !t->online || !t->eligible) {
		topology_free(t);
		return NULL;
	}
	for (i = 0; i < nr_ids; i++) {
		t->cpus[i].core = -1;
		t->cpus[i].llc = -1;
		t->cpus[i].package = -1;
		t->cpus[i].node = -1;
	}
	return t;
}

void topology_update_sets(struct topology *topo)
{
	unsigned int i;

	cpuset_zero(topo->online);
	cpuset_zero(topo->eligible);
	for (i = 0; i < topo->nr_ids; i++) {
		if (!topo->cpus[i].online)
			continue;
		cpuset_set(topo->online, i);
		if (topo->cpus[i].avoid == 0)
			cpuset_set(topo->eligible, i);
	}
}

void topology_keep_online(struct topology *topo, const unsigned int *cpus, unsigned int nr)
{
	bool changed = false;
	unsigned int j;
	int cpu;

	for (cpu = cpuset_first(topo->online); cpu >= 0;
	     cpu = cpuset_next(topo->online, cpu)) {
		for (j = 0; j < nr; j++)
			if (cpus[j] == (unsigned int)cpu)
				break;
		if (j == nr) {
			topo->cpus[cpu].online = false;
			changed = true;
		}
	}
	if (changed)
		topology_update_sets(topo);
}

const char *topology_strerror(int r)
{
	switch (r) {
	case -ENOENT:	return "missing";
	case -ENOTDIR:	return "not a directory";
	case -EFBIG:	return "larger than any such sysfs file";
	case -ERANGE:	return "an id out of range";
	case -ENODEV:	return "no online CPU";
	case -EINVAL:	return "not what the kernel writes there";
	default:	return strerror(-r);
	}
}
