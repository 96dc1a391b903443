// SPDX-License-Identifier: GPL-2.0-or-later
/* test_topology.c - topology_read() against real captured sysfs trees
 * (counts checked against lscpu/hwloc outputs of the same machines) and
 * against small trees built here for the cases no capture has. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <setjmp.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "capture.h"
#include "source.h"
#include "topology.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

extern char **environ;

static char tmpdir[PATH_MAX];	/* everything a test writes goes here */
static char fmtbuf[65536];

static const char *fmt(const struct cpuset *set)
{
	assert_int_equal(cpulist_format(set, fmtbuf, sizeof(fmtbuf)), 0);
	return fmtbuf;
}

static const char *realdata(void)
{
	const char *dir = getenv("IRQTUNE_REALDATA");

	return dir && *dir ? dir : "../shared/realdata";
}

/* mkdir -p */
static void mkdirs(const char *path)
{
	char buf[PATH_MAX], *p;

	assert_true(strlen(path) < sizeof(buf));
	strcpy(buf, path);
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			fail_msg("mkdir %s: %s", buf, strerror(errno));
		*p = '/';
	}
	if (mkdir(buf, 0755) < 0 && errno != EEXIST)
		fail_msg("mkdir %s: %s", buf, strerror(errno));
}

static void join(char *buf, const char *a, const char *b)
{
	int n = snprintf(buf, PATH_MAX, "%s/%s", a, b);

	assert_true(n > 0 && n < PATH_MAX);
}

/* Write @len bytes at @root/@rel, creating directories on the way. */
static void put_bytes(const char *root, const char *rel, const void *data,
		      size_t len)
{
	char path[PATH_MAX], *slash;
	int fd;

	join(path, root, rel);
	slash = strrchr(path, '/');
	*slash = '\0';
	mkdirs(path);
	*slash = '/';
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		fail_msg("open %s: %s", path, strerror(errno));
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	assert_int_equal(close(fd), 0);
}

static void put(const char *root, const char *rel, const char *text)
{
	put_bytes(root, rel, text, strlen(text));
}

/* @root/@rel -> @target, creating @rel's directory. */
static void put_link(const char *root, const char *rel, const char *target)
{
	char path[PATH_MAX], *slash;

	join(path, root, rel);
	slash = strrchr(path, '/');
	*slash = '\0';
	mkdirs(path);
	*slash = '/';
	if (symlink(target, path) < 0)
		fail_msg("symlink %s: %s", path, strerror(errno));
}

static int rm_one(const char *path, const struct stat *st, int type,
		  struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

static void rm_tree(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* A fresh, empty directory @tmpdir/@name for one test's tree. */
static void fresh(char *root, const char *name)
{
	join(root, tmpdir, name);
	rm_tree(root);
	mkdirs(root);
}

/* tar -xf @tarball -C @dest @member */
static void extract(const char *tarball, const char *member, const char *dest)
{
	char *argv[] = { "tar", "-xf", (char *)tarball, "-C", (char *)dest,
			 (char *)member, NULL };
	int status, r;
	pid_t pid;

	if (access(tarball, R_OK) < 0)
		fail_msg("%s: %s (set IRQTUNE_REALDATA to the realdata "
			 "directory)", tarball, strerror(errno));
	r = posix_spawnp(&pid, "tar", NULL, NULL, argv, environ);
	if (r != 0)
		fail_msg("spawn tar: %s", strerror(r));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("tar -xf %s %s failed", tarball, member);
}

static int cmp_int(const void *pa, const void *pb)
{
	int a = *(const int *)pa, b = *(const int *)pb;

	return (a > b) - (a < b);
}

enum field { F_CORE, F_LLC, F_PACKAGE, F_NODE };

static int field(const struct cpu_info *ci, enum field f)
{
	switch (f) {
	case F_CORE:
		return ci->core;
	case F_LLC:
		return ci->llc;
	case F_PACKAGE:
		return ci->package;
	case F_NODE:
		break;
	}
	return ci->node;
}

/* Distinct known (>= 0) values of @f over the online CPUs. */
static unsigned int distinct(const struct topology *t, enum field f)
{
	int *v = calloc(t->nr_ids, sizeof(*v));
	unsigned int i, n = 0, d = 0;

	assert_non_null(v);
	for (i = 0; i < t->nr_ids; i++) {
		if (t->cpus[i].online && field(&t->cpus[i], f) >= 0)
			v[n++] = field(&t->cpus[i], f);
	}
	qsort(v, n, sizeof(*v), cmp_int);
	for (i = 0; i < n; i++)
		d += i == 0 || v[i] != v[i - 1];
	free(v);
	return d;
}

/* Pairs of online CPUs sharing a core: one per 2-way SMT core. */
static unsigned int smt_pairs(const struct topology *t)
{
	unsigned int *n = calloc(t->nr_ids, sizeof(*n));
	unsigned int i, pairs = 0;

	assert_non_null(n);
	for (i = 0; i < t->nr_ids; i++) {
		if (t->cpus[i].online)
			n[t->cpus[i].core]++;
	}
	for (i = 0; i < t->nr_ids; i++) {
		if (n[i] > 1)
			pairs += n[i] * (n[i] - 1) / 2;
	}
	free(n);
	return pairs;
}

/* What every topology must satisfy, whatever the machine. */
static void check_invariants(const struct topology *t)
{
	unsigned int i;

	assert_int_equal(t->online->nbits, t->nr_ids);
	assert_int_equal(t->eligible->nbits, t->nr_ids);
	for (i = 0; i < t->nr_ids; i++) {
		const struct cpu_info *ci = &t->cpus[i];

		assert_int_equal(cpuset_test(t->online, i), ci->online);
		assert_int_equal(cpuset_test(t->eligible, i),
				 ci->online && ci->avoid == 0);
		if (!ci->online) {
			assert_int_equal(ci->core, -1);
			assert_int_equal(ci->llc, -1);
			assert_int_equal(ci->node, -1);
			continue;
		}
		/* A key is the lowest online member of its group, so it
		 * names an online CPU that is its own key. */
		assert_in_range(ci->core, 0, i);
		assert_true(t->cpus[ci->core].online);
		assert_int_equal(t->cpus[ci->core].core, ci->core);
		assert_in_range(ci->llc, 0, i);
		assert_true(t->cpus[ci->llc].online);
		assert_int_equal(t->cpus[ci->llc].llc, ci->llc);
		assert_true(ci->node < t->nr_nodes);
		/* SMT siblings share their cache. */
		assert_int_equal(t->cpus[ci->core].llc, ci->llc);
	}
}

/* ---- Through a capture ---- */

/* topology_read_from() of @root recorded into a capture, the capture
 * written and read back, and replayed: the same result, or the same
 * error naming the same file, as reading @root itself gave (@want_r,
 * @want_t, @want_where). What makes a topology bug reproduce from a
 * capture. */
static void check_replayed(const char *root, const struct cpuset *banned, int want_r,
			   const struct topology *want_t, const char *want_where)
{
	char path[] = "/tmp/test_topology.cap.XXXXXX", why[CAPTURE_WHY_MAX];
	char where[PATH_MAX], meta[64];
	struct source rec = { .mode = SOURCE_RECORD }, rep = { .mode = SOURCE_REPLAY };
	struct topology *t = NULL;
	int fd = mkstemp(path), r;

	assert_true(fd >= 0);
	close(fd);
	rec.cap = capture_new();
	assert_non_null(rec.cap);
	snprintf(meta, sizeof(meta), "format %s\nversion %d\n", CAPTURE_FORMAT, CAPTURE_VERSION);
	assert_int_equal(capture_put(rec.cap, CAPTURE_META, meta, strlen(meta), 0), 0);
	r = topology_read_from(&rec, root, banned, &t, where, sizeof(where));
	assert_int_equal(r, want_r);
	topology_free(t);
	t = NULL;
	assert_int_equal(rec.err, 0);
	assert_int_equal(capture_write(rec.cap, path, why, sizeof(why)), 0);
	capture_free(rec.cap);
	assert_int_equal(capture_read(path, &rep.cap, why, sizeof(why)), 0);
	unlink(path);
	r = topology_read_from(&rep, root, banned, &t, where, sizeof(where));
	if (r != want_r)
		fail_msg("%s: replayed %d, read %d (%s)", root, r, want_r, where);
	if (r < 0) {
		if (want_where && strcmp(where, want_where) != 0)
			fail_msg("%s: replay named \"%s\", not \"%s\"", root, where, want_where);
	} else {
		assert_int_equal(t->nr_ids, want_t->nr_ids);
		assert_int_equal(t->nr_nodes, want_t->nr_nodes);
		assert_memory_equal(t->cpus, want_t->cpus, t->nr_ids * sizeof(*t->cpus));
		assert_true(cpuset_equal(t->eligible, want_t->eligible));
	}
	topology_free(t);
	capture_free(rep.cap);
}

/* ---- Real machines ---- */

struct real_case {
	const char *name;
	const char *tarball;	/* in <realdata>/topology/ */
	const char *dir;	/* directory holding sys/ ("" for the top) */
	unsigned int nr_ids;	/* highest possible id + 1 */
	const char *online;
	unsigned int cores, packages, nodes, nr_nodes, smt_pairs;
	int llcs;		/* -1: no oracle */
	int sib[2];		/* two CPUs of one core, or -1 */
	const char *eligible;	/* NULL: all online */
	const char *isolated;	/* CPUs with AVOID_ISOLATED, NULL: none */
};

/* Oracles: the README table and expected/ (lscpu, lstopo) for the same
 * captures; where those disagree with sysfs, the comment says why. */
static const struct real_case real_cases[] = {
	{
		/* lscpu: 20 CPUs, 17 online, 1 thread per core. lscpu
		 * counts 7 sockets from core_siblings; sysfs says
		 * physical_package_id -1 for every CPU. */
		.name = "s390-lpar: cpu0 offline, no package ids",
		.tarball = "utillinux-lscpu-s390-lpar.tar.gz",
		.dir = "s390-lpar", .nr_ids = 64, .online = "1-5,8-19",
		.cores = 17, .packages = 0, .nodes = 0, .nr_nodes = 0,
		.smt_pairs = 0, .llcs = 17, .sib = { -1, -1 },
	},
	{
		/* lscpu: 6 CPUs 6,7,10,11,14,15, 1 thread per core; its 6
		 * sockets again come from core_siblings, not the -1 ids. */
		.name = "sparc64: non-contiguous ids, no cpu0",
		.tarball = "utillinux-lscpu-sparc64.tar.gz",
		.dir = "sparc64", .nr_ids = 16, .online = "6-7,10-11,14-15",
		.cores = 6, .packages = 0, .nodes = 0, .nr_nodes = 0,
		.smt_pairs = 0, .llcs = 6, .sib = { -1, -1 },
	},
	{
		/* lscpu: 2 sockets x 24 cores x 2 threads, 8 nodes,
		 * L3 16 instances; nohz_full is blank-padded "(null)". */
		.name = "epyc_7451: 96 CPUs, 8 nodes",
		.tarball = "utillinux-lscpu-x86_64-epyc_7451.tar.gz",
		.dir = "x86_64-epyc_7451", .nr_ids = 96, .online = "0-95",
		.cores = 48, .packages = 2, .nodes = 8, .nr_nodes = 8,
		.smt_pairs = 48, .llcs = 16, .sib = { 0, 48 },
	},
	{
		/* lscpu: 16 of 32 possible online, 8 cores, 2 sockets,
		 * 4 nodes, L3 4 instances. */
		.name = "vmware_fpe: 16 online of 32 possible",
		.tarball = "utillinux-lscpu-vmware_fpe.tar.gz",
		.dir = "vmware_fpe", .nr_ids = 32, .online = "0-15",
		.cores = 8, .packages = 2, .nodes = 4, .nr_nodes = 4,
		.smt_pairs = 8, .llcs = 4, .sib = { 0, 1 },
	},
	{
		/* 2012 kernel: no online/possible files, masks only
		 * (thread_siblings 0x101). /proc/cpuinfo: 2 physical ids x
		 * 4 cores x 2 siblings; node cpumaps 0x5555 and 0xaaaa. */
		.name = "dellr710: old tree, masks only",
		.tarball = "utillinux-lscpu-removed2012-x86_64-dellr710.tar.gz",
		.dir = "x86_64-dellr710", .nr_ids = 16, .online = "0-15",
		.cores = 8, .packages = 2, .nodes = 2, .nr_nodes = 2,
		.smt_pairs = 8, .llcs = 2, .sib = { 0, 8 },
	},
	{
		/* README: 512 CPUs, 128 nodes, 4096-bit masks. cpuinfo: 2
		 * cores per physical id, 1 thread each. No cache files: the
		 * LLC is the package. */
		.name = "ia64-512cpus: old tree, NR_CPUS-wide masks",
		.tarball = "utillinux-lscpu-removed2012-ia64-512cpus.tar.gz",
		.dir = "ia64-512cpus", .nr_ids = 512, .online = "0-511",
		.cores = 512, .packages = 256, .nodes = 128, .nr_nodes = 128,
		.smt_pairs = 0, .llcs = 256, .sib = { -1, -1 },
	},
	{
		/* lstopo: 17 PUs/cores, 2 packages, 2 L3. It shows one
		 * NUMA node: node0's directory is missing from the capture
		 * though the even CPUs' cpuN/node0 links remain, and the
		 * links win. nohz_full reads "\0\n". */
		.name = "offline-cpu0-node0: cpu0-3 offline, node0 gone",
		.tarball = "hwloc-offline-cpu0-node0.tar.bz2",
		.dir = "offline-cpu0-node0", .nr_ids = 192, .online = "4-20",
		.cores = 17, .packages = 2, .nodes = 2, .nr_nodes = 2,
		.smt_pairs = 0, .llcs = 2, .sib = { -1, -1 },
	},
	{
		/* Real isolcpus: isolated = 4-7,60-63; nodes 4 and 5 have
		 * no CPUs (node4/5 cpulist empty). */
		.name = "cri server: isolated CPUs, CPU-less nodes",
		.tarball = "cri-resource-manager-topology-aware-sysfs-"
			   "desktop+server+4socket-144cpu.tar.bz2",
		.dir = "sysfs/server", .nr_ids = 112, .online = "0-111",
		.cores = 56, .packages = 2, .nodes = 4, .nr_nodes = 6,
		.smt_pairs = 56, .llcs = 2, .sib = { 0, 56 },
		.eligible = "0-3,8-59,64-111", .isolated = "4-7,60-63",
	},
	{
		/* Every node cpumap is ff; the cpuN/nodeN links are one
		 * per node. lstopo distrusts the maps and shows 1 node. */
		.name = "buggynuma: node links beat node cpumaps",
		.tarball = "hwloc-8em64t-2s2ca2c-buggynuma.tar.bz2",
		.dir = "8em64t-2s2ca2c-buggynuma", .nr_ids = 8,
		.online = "0-7", .cores = 8, .packages = 2, .nodes = 8,
		.nr_nodes = 8, .smt_pairs = 0, .llcs = 4, .sib = { -1, -1 },
	},
	{
		/* lscpu: 4 sockets x 8 cores x 2 threads, 3 NUMA nodes
		 * named 0, 2, 3 (no node1), L3 4 instances. */
		.name = "x86_64-64cpu: node ids 0,2,3",
		.tarball = "utillinux-lscpu-x86_64-64cpu.tar.gz",
		.dir = "x86_64-64cpu", .nr_ids = 80, .online = "0-63",
		.cores = 32, .packages = 4, .nodes = 3, .nr_nodes = 4,
		.smt_pairs = 32, .llcs = 4, .sib = { 0, 32 },
	},
	{
		/* lstopo: 64 packages, 128 cores/PUs, 17 nodes (one has
		 * no CPUs). No online file and every cpuN/online empty. */
		.name = "128ia64: empty cpuN/online files",
		.tarball = "hwloc-128ia64-17n4s2c.tar.bz2",
		.dir = "128ia64-17n4s2c", .nr_ids = 128, .online = "0-127",
		.cores = 128, .packages = 64, .nodes = 16, .nr_nodes = 17,
		.smt_pairs = 0, .llcs = 64, .sib = { -1, -1 },
	},
	{
		/* README: 24 of 32 online, 4 threads per core, 1 node whose
		 * cpumap (f,ffffffff) names 36 CPUs, past "possible". */
		.name = "UltraSparc-T1: node cpumap wider than possible",
		.tarball = "utillinux-lscpu-removed2012-sparc64-UltraSparc-T1.tar.gz",
		.dir = "sparc64-UltraSparc-T1", .nr_ids = 32, .online = "0-23",
		.cores = 6, .packages = 6, .nodes = 1, .nr_nodes = 1,
		.smt_pairs = 36, .llcs = 6, .sib = { 0, 3 },
	},
	{
		/* README: cpu2-3 offline, present 0-3; nohz_full is an
		 * unpadded "(null)". Tarball holds sys/ at the top. */
		.name = "ghw offlineCPUs: cpu2-3 offline",
		.tarball = "ghw-linux-amd64-offlineCPUs.tar.gz",
		.dir = "", .nr_ids = 4, .online = "0-1",
		.cores = 2, .packages = 2, .nodes = 1, .nr_nodes = 1,
		.smt_pairs = 0, .llcs = 2, .sib = { -1, -1 },
	},
};

static void test_real(void **state)
{
	const struct real_case *rc = *state;
	char tarball[PATH_MAX], dest[PATH_MAX], member[PATH_MAX];
	char root[PATH_MAX];
	struct topology *t = NULL;
	struct cpuset *iso;
	unsigned int i;

	snprintf(tarball, sizeof(tarball), "%s/topology/%s", realdata(),
		 rc->tarball);
	fresh(dest, rc->tarball);
	/* Only what topology_read() looks at, to stay fast. */
	snprintf(member, sizeof(member), "%s%ssys/devices/system", rc->dir,
		 *rc->dir ? "/" : "");
	extract(tarball, member, dest);
	if (*rc->dir)
		join(root, dest, rc->dir);
	else
		strcpy(root, dest);

	assert_int_equal(topology_read(root, NULL, &t), 0);
	assert_non_null(t);
	check_invariants(t);
	assert_int_equal(t->nr_ids, rc->nr_ids);
	assert_string_equal(fmt(t->online), rc->online);
	assert_int_equal(distinct(t, F_CORE), rc->cores);
	assert_int_equal(distinct(t, F_PACKAGE), rc->packages);
	assert_int_equal(distinct(t, F_NODE), rc->nodes);
	assert_int_equal(t->nr_nodes, rc->nr_nodes);
	assert_int_equal(smt_pairs(t), rc->smt_pairs);
	if (rc->llcs >= 0)
		assert_int_equal(distinct(t, F_LLC), rc->llcs);
	if (rc->sib[0] >= 0)
		assert_int_equal(t->cpus[rc->sib[0]].core,
				 t->cpus[rc->sib[1]].core);
	assert_string_equal(fmt(t->eligible),
			    rc->eligible ? rc->eligible : rc->online);
	iso = cpuset_new(t->nr_ids);
	assert_non_null(iso);
	if (rc->isolated)
		assert_int_equal(cpulist_parse(rc->isolated, iso), 0);
	for (i = 0; i < t->nr_ids; i++)
		assert_int_equal(t->cpus[i].avoid,
				 cpuset_test(iso, i) ? AVOID_ISOLATED : 0);
	cpuset_free(iso);
	check_replayed(root, NULL, 0, t, NULL);
	topology_free(t);
	rm_tree(dest);
}

/* ---- Built trees ---- */

/* possible, online and per-CPU files for @n CPUs, nothing else. */
static void base_tree(const char *root, const char *possible,
		      const char *online)
{
	if (possible)
		put(root, "sys/devices/system/cpu/possible", possible);
	if (online)
		put(root, "sys/devices/system/cpu/online", online);
	else
		mkdirs(root);
}

static void cpu_file(const char *root, int cpu, const char *rel,
		     const char *text)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "sys/devices/system/cpu/cpu%d/%s", cpu,
		 rel);
	put(root, path, text);
}

/* cpu_capacity where the kernel gives it, the hybrid core lists where
 * not; a bad file is named and every CPU taken as alike, never fatal. */
static void test_capacity(void **state)
{
	static const struct {
		const char *name;
		const char *cap[4];	/* cpuN/cpu_capacity, NULL: none */
		const char *core, *atom;	/* hybrid lists, NULL: none */
		enum capacity_source src;
		unsigned int want[4];
		int err;
		const char *file;	/* the one named, under the root */
	} cases[] = {
		{ "big.LITTLE", { "1024\n", "1024\n", "446\n", "446\n" }, NULL, NULL,
		  CAPACITY_SYSFS, { 1024, 1024, 446, 446 }, 0, NULL },
		{ "alike", { "1024\n", "1024\n", "1024\n", "1024\n" }, NULL, NULL,
		  CAPACITY_SYSFS, { 1024, 1024, 1024, 1024 }, 0, NULL },
		{ "x86", { NULL, NULL, NULL, NULL }, NULL, NULL,
		  CAPACITY_NONE, { 0, 0, 0, 0 }, 0, NULL },
		{ "hybrid", { NULL, NULL, NULL, NULL }, "0-1\n", "2-3\n",
		  CAPACITY_HYBRID, { 1024, 1024, CAPACITY_HYBRID_ATOM, CAPACITY_HYBRID_ATOM },
		  0, NULL },
		{ "malformed", { "1024\n", "big\n", "446\n", "446\n" }, NULL, NULL,
		  CAPACITY_NONE, { 0, 0, 0, 0 }, -EINVAL,
		  "sys/devices/system/cpu/cpu1/cpu_capacity" },
		{ "out of range", { "1024\n", "1024\n", "0\n", "446\n" }, NULL, NULL,
		  CAPACITY_NONE, { 0, 0, 0, 0 }, -ERANGE,
		  "sys/devices/system/cpu/cpu2/cpu_capacity" },
		{ "one missing", { "1024\n", "1024\n", NULL, "446\n" }, NULL, NULL,
		  CAPACITY_NONE, { 0, 0, 0, 0 }, -ENOENT,
		  "sys/devices/system/cpu/cpu2/cpu_capacity" },
		{ "hybrid bad list", { NULL, NULL, NULL, NULL }, "0-1\n", "2-x\n",
		  CAPACITY_NONE, { 0, 0, 0, 0 }, -EINVAL, "sys/devices/cpu_atom/cpus" },
	};

	(void)state;
	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct topology *t;
		char root[PATH_MAX], want[PATH_MAX];

		fresh(root, "capacity");
		base_tree(root, "0-3\n", "0-3\n");
		for (int k = 0; k < 4; k++)
			if (cases[i].cap[k])
				cpu_file(root, k, "cpu_capacity", cases[i].cap[k]);
		if (cases[i].core)
			put(root, "sys/devices/cpu_core/cpus", cases[i].core);
		if (cases[i].atom)
			put(root, "sys/devices/cpu_atom/cpus", cases[i].atom);
		assert_int_equal(topology_read(root, NULL, &t), 0);
		if (t->capacity_src != cases[i].src || t->capacity_err != cases[i].err)
			fail_msg("%s: source %d err %d", cases[i].name, t->capacity_src,
				 t->capacity_err);
		for (int k = 0; k < 4; k++)
			assert_int_equal(t->cpus[k].capacity, cases[i].want[k]);
		if (cases[i].file) {
			join(want, root, cases[i].file);
			assert_string_equal(t->capacity_file, want);
		}
		assert_int_equal(topology_capacity_differs(t),
				 cases[i].want[0] != cases[i].want[3]);
		topology_free(t);
	}
}

static void test_avoid_and_banned(void **state)
{
	struct topology *t;
	struct cpuset *banned, *copy;
	char root[PATH_MAX];

	(void)state;
	fresh(root, "avoid");
	base_tree(root, "0-7\n", "0-7\n");
	put(root, "sys/devices/system/cpu/isolated", "4-7\n");
	put(root, "sys/devices/system/cpu/nohz_full", "6-7\n");

	assert_int_equal(topology_read(root, NULL, &t), 0);
	check_invariants(t);
	assert_int_equal(t->cpus[0].avoid, 0);
	assert_int_equal(t->cpus[4].avoid, AVOID_ISOLATED);
	assert_int_equal(t->cpus[6].avoid, AVOID_ISOLATED | AVOID_NOHZ_FULL);
	assert_string_equal(fmt(t->eligible), "0-3");
	topology_free(t);

	/* Banned adds to the kernel's list; ids past the machine are
	 * ignored, and the caller's set is left alone. */
	banned = cpuset_new(128);
	assert_non_null(banned);
	assert_int_equal(cpulist_parse("1,6,100", banned), 0);
	copy = cpuset_dup(banned);
	assert_int_equal(topology_read(root, banned, &t), 0);
	check_invariants(t);
	assert_true(cpuset_equal(banned, copy));
	assert_int_equal(t->cpus[0].avoid, 0);
	assert_int_equal(t->cpus[1].avoid, AVOID_BANNED);
	assert_int_equal(t->cpus[4].avoid, AVOID_ISOLATED);
	assert_int_equal(t->cpus[6].avoid,
			 AVOID_ISOLATED | AVOID_NOHZ_FULL | AVOID_BANNED);
	assert_int_equal(t->cpus[7].avoid, AVOID_ISOLATED | AVOID_NOHZ_FULL);
	assert_string_equal(fmt(t->eligible), "0,2-3");
	assert_string_equal(fmt(t->online), "0-7");
	topology_free(t);

	/* A banned set smaller than the machine is fine too. */
	assert_int_equal(cpulist_parse("0", banned), 0);
	cpuset_free(copy);
	copy = cpuset_new(2);
	assert_non_null(copy);
	cpuset_set(copy, 0);
	assert_int_equal(topology_read(root, copy, &t), 0);
	assert_int_equal(t->cpus[0].avoid, AVOID_BANNED);
	assert_string_equal(fmt(t->eligible), "1-3");
	topology_free(t);
	cpuset_free(copy);
	cpuset_free(banned);
}

/* Every way a kernel spells "nothing" in isolated and nohz_full. */
static void test_avoid_empty_spellings(void **state)
{
	static const struct {
		const char *text;
		size_t len;
	} empty[] = {
		{ "", 0 },
		{ "\n", 1 },
		{ "  \n", 3 },
		{ "(null)\n", 7 },
		{ "                    (null)\n", 27 },	/* padded */
		{ "\0\n", 2 },				/* NUL, then newline */
	};
	struct topology *t;
	char root[PATH_MAX];
	unsigned int i, j;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(empty); i++) {
		for (j = 0; j < 2; j++) {
			fresh(root, "spellings");
			base_tree(root, "0-3", "0-3");
			put_bytes(root, j ? "sys/devices/system/cpu/isolated"
					  : "sys/devices/system/cpu/nohz_full",
				  empty[i].text, empty[i].len);
			t = NULL;
			assert_int_equal(topology_read(root, NULL, &t), 0);
			assert_string_equal(fmt(t->eligible), "0-3");
			topology_free(t);
		}
	}
}

struct tree_file {
	const char *path;	/* under sys/devices/system/ */
	const char *text;	/* NULL: make a directory */
};

struct err_case {
	const char *name;
	struct tree_file files[4];
	int err;
	const char *where;	/* the file named, under sys/devices/system/ */
};

static const struct err_case err_cases[] = {
	{ "online with a dangling range", {
		{ "cpu/online", "0-\n" } }, -EINVAL,
	  "cpu/online" },
	{ "online not a list", {
		{ "cpu/online", "abc\n" } }, -EINVAL,
	  "cpu/online" },
	{ "online (null)", {
		{ "cpu/online", "(null)\n" } }, -EINVAL,
	  "cpu/online" },
	{ "nothing online", {
		{ "cpu/possible", "0-3\n" }, { "cpu/online", "\n" } }, -ENODEV,
	  "cpu/online" },
	{ "online beyond possible", {
		{ "cpu/possible", "0-3\n" }, { "cpu/online", "0-5\n" } },
	  -EINVAL,
	  "cpu/online" },
	{ "empty possible", {
		{ "cpu/possible", "\n" }, { "cpu/online", "0\n" } }, -EINVAL,
	  "cpu/possible" },
	{ "possible too big", {
		{ "cpu/possible", "0-16384\n" }, { "cpu/online", "0\n" } },
	  -ERANGE,
	  "cpu/possible" },
	{ "online unreadable", {
		{ "cpu/online", NULL } }, -EISDIR,
	  "cpu/online" },
	{ "cpuN/online neither 0 nor 1", {
		{ "cpu/cpu0/online", "2\n" } }, -EINVAL,
	  "cpu/cpu0/online" },
	{ "no CPU at all", {
		{ "cpu/cpufreq", NULL } }, -ENODEV,
	  "cpu/online" },
	{ "package id not a number", {
		{ "cpu/online", "0\n" },
		{ "cpu/cpu0/topology/physical_package_id", "x\n" } }, -EINVAL,
	  "cpu/cpu0/topology/physical_package_id" },
	{ "package id below -1", {
		{ "cpu/online", "0\n" },
		{ "cpu/cpu0/topology/physical_package_id", "-2\n" } }, -ERANGE,
	  "cpu/cpu0/topology/physical_package_id" },
	{ "package id empty", {
		{ "cpu/online", "0\n" },
		{ "cpu/cpu0/topology/physical_package_id", "\n" } }, -EINVAL,
	  "cpu/cpu0/topology/physical_package_id" },
	{ "sibling list garbage", {
		{ "cpu/online", "0\n" },
		{ "cpu/cpu0/topology/thread_siblings_list", "zz\n" } }, -EINVAL,
	  "cpu/cpu0/topology/thread_siblings_list" },
	{ "sibling mask garbage", {
		{ "cpu/online", "0\n" },
		{ "cpu/cpu0/topology/thread_siblings", "0x1\n" } }, -EINVAL,
	  "cpu/cpu0/topology/thread_siblings" },
	{ "cache level garbage", {
		{ "cpu/online", "0\n" },
		{ "cpu/cpu0/cache/index0/level", "L3\n" } }, -EINVAL,
	  "cpu/cpu0/cache/index0/level" },
	{ "node cpulist garbage", {
		{ "cpu/online", "0\n" },
		{ "node/node0/cpulist", "zero\n" } }, -EINVAL,
	  "node/node0/cpulist" },
	{ "node id past the limit", {
		{ "cpu/online", "0\n" },
		{ "node/node99999/cpulist", "0\n" } }, -ERANGE,
	  "node" },
	{ "isolated garbage", {
		{ "cpu/online", "0-3\n" }, { "cpu/isolated", "4-\n" } },
	  -EINVAL,
	  "cpu/isolated" },
	{ "nohz_full garbage", {
		{ "cpu/online", "0-3\n" }, { "cpu/nohz_full", "zz\n" } },
	  -EINVAL,
	  "cpu/nohz_full" },
};

static void test_errors(void **state)
{
	static struct topology sentinel_topo;
	struct topology *const sentinel = &sentinel_topo;
	struct topology *t;
	char root[PATH_MAX], rel[PATH_MAX], where[PATH_MAX], want[PATH_MAX + 64];
	unsigned int i, j;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(err_cases); i++) {
		const struct err_case *ec = &err_cases[i];

		fresh(root, "errors");
		mkdirs(root);
		for (j = 0; j < ARRAY_SIZE(ec->files) && ec->files[j].path; j++) {
			snprintf(rel, sizeof(rel), "sys/devices/system/%s",
				 ec->files[j].path);
			if (ec->files[j].text) {
				put(root, rel, ec->files[j].text);
			} else {
				char full[PATH_MAX];

				join(full, root, rel);
				mkdirs(full);
			}
		}
		t = sentinel;
		if (topology_read_where(root, NULL, &t, where, sizeof(where)) != ec->err) {
			print_error("case \"%s\"\n", ec->name);
			fail();
		}
		/* Untouched on failure. */
		assert_ptr_equal(t, sentinel);
		/* The message can name the file. */
		snprintf(want, sizeof(want), "%s/sys/devices/system/%s", root, ec->where);
		if (strcmp(where, want) != 0)
			fail_msg("case \"%s\": named \"%s\", not \"%s\"", ec->name,
				 where, want);
		/* A capture of it fails the same way on replay. */
		check_replayed(root, NULL, ec->err, NULL, want);
	}

	/* No sys/ under the root. */
	fresh(root, "errors");
	t = sentinel;
	assert_int_equal(topology_read_where(root, NULL, &t, where, sizeof(where)), -ENOENT);
	assert_ptr_equal(t, sentinel);
	snprintf(want, sizeof(want), "%s/sys/devices/system/cpu", root);
	assert_string_equal(where, want);
}

/* A corrupt, huge file is refused, not read whole. */
static void test_file_too_big(void **state)
{
	struct topology *t = NULL;
	char root[PATH_MAX], *big;
	size_t len = 70000;

	(void)state;
	fresh(root, "big");
	base_tree(root, "0-3", "0-3");
	big = malloc(len);
	assert_non_null(big);
	memset(big, '0', len);	/* "000...0" would parse as cpu 0 */
	put_bytes(root, "sys/devices/system/cpu/isolated", big, len);
	free(big);
	assert_int_equal(topology_read(root, NULL, &t), -EFBIG);
	assert_null(t);
	check_replayed(root, NULL, -EFBIG, NULL, NULL);
}

/* Old kernels: no online nor possible file. cpu0 has no online file,
 * hwloc captures leave some empty, and only "0" means offline. */
static void test_online_from_dirs(void **state)
{
	struct topology *t = NULL;
	char root[PATH_MAX], path[PATH_MAX];

	(void)state;
	fresh(root, "olddirs");
	mkdirs(root);
	cpu_file(root, 0, "topology/core_id", "0\n");
	cpu_file(root, 1, "online", "1\n");
	cpu_file(root, 2, "online", "0\n");
	cpu_file(root, 3, "online", "");
	cpu_file(root, 5, "topology/core_id", "0\n");
	put(root, "sys/devices/system/cpu/cpufreq/boost", "1\n");
	put(root, "sys/devices/system/cpu/cpuidle/current_driver", "none\n");
	put(root, "sys/devices/system/cpu/cpu07/online", "1\n");	/* not a kernel name */

	assert_int_equal(topology_read(root, NULL, &t), 0);
	check_invariants(t);
	assert_int_equal(t->nr_ids, 6);
	assert_string_equal(fmt(t->online), "0-1,3,5");
	assert_false(t->cpus[2].online);
	assert_false(t->cpus[4].online);
	/* No topology files: each CPU is its own core and cache. */
	assert_int_equal(t->cpus[5].core, 5);
	assert_int_equal(t->cpus[5].llc, 5);
	assert_int_equal(t->cpus[5].package, -1);
	assert_int_equal(t->nr_nodes, 0);
	topology_free(t);

	/* With "possible", directories past it do not count. */
	put(root, "sys/devices/system/cpu/possible", "0-3\n");
	assert_int_equal(topology_read(root, NULL, &t), 0);
	assert_int_equal(t->nr_ids, 4);
	assert_string_equal(fmt(t->online), "0-1,3");
	topology_free(t);

	/* "online" wins over the directories, and "possible" over both
	 * for the size. */
	put(root, "sys/devices/system/cpu/online", "0-2\n");
	assert_int_equal(topology_read(root, NULL, &t), 0);
	assert_int_equal(t->nr_ids, 4);
	assert_string_equal(fmt(t->online), "0-2");
	topology_free(t);

	/* Without "possible", the highest of the directories and "online". */
	put(root, "sys/devices/system/cpu/online", "0-9\n");
	join(path, root, "sys/devices/system/cpu/possible");
	assert_int_equal(unlink(path), 0);
	assert_int_equal(topology_read(root, NULL, &t), 0);
	assert_int_equal(t->nr_ids, 10);
	assert_string_equal(fmt(t->online), "0-9");
	topology_free(t);
}

/* No siblings, no caches: the LLC is the package's lowest online CPU,
 * or the CPU itself when the package is unknown. */
static void test_llc_fallbacks(void **state)
{
	struct topology *t = NULL;
	char root[PATH_MAX];

	(void)state;
	fresh(root, "fallback");
	base_tree(root, "0-5", "0-3,5");
	cpu_file(root, 0, "topology/physical_package_id", "1\n");
	cpu_file(root, 1, "topology/physical_package_id", "0\n");
	cpu_file(root, 2, "topology/physical_package_id", "1\n");
	cpu_file(root, 4, "topology/physical_package_id", "0\n");  /* offline */
	cpu_file(root, 5, "topology/physical_package_id", "0\n");
	/* cpu3 has none; s390 says -1 itself */
	cpu_file(root, 3, "topology/physical_package_id", "-1\n");
	/* A node link but no node directory: not a NUMA machine. */
	put_link(root, "sys/devices/system/cpu/cpu0/node0", "../../node/node0");

	assert_int_equal(topology_read(root, NULL, &t), 0);
	check_invariants(t);
	assert_int_equal(t->cpus[0].package, 1);
	assert_int_equal(t->cpus[3].package, -1);
	assert_int_equal(t->cpus[4].package, -1);	/* offline: not read */
	assert_int_equal(t->cpus[0].llc, 0);
	assert_int_equal(t->cpus[1].llc, 1);
	assert_int_equal(t->cpus[2].llc, 0);
	assert_int_equal(t->cpus[3].llc, 3);
	assert_int_equal(t->cpus[5].llc, 1);
	assert_int_equal(t->cpus[2].core, 2);
	assert_int_equal(t->cpus[0].node, -1);
	assert_int_equal(t->nr_nodes, 0);
	topology_free(t);
}

/* The highest cache level wins, masks stand in for lists, and
 * core_cpus_list stands in for thread_siblings_list. */
static void test_core_and_cache_sources(void **state)
{
	struct topology *t = NULL;
	char root[PATH_MAX];
	int cpu;

	(void)state;
	fresh(root, "sources");
	base_tree(root, "0-5", "0-5");
	cpu_file(root, 0, "topology/core_cpus_list", "0-1\n");
	cpu_file(root, 2, "topology/thread_siblings", "0000000c\n");
	cpu_file(root, 4, "topology/thread_siblings_list", "4\n");
	cpu_file(root, 5, "topology/thread_siblings_list", "5\n");
	/* Index order is not level order. */
	cpu_file(root, 0, "cache/index0/level", "1\n");
	cpu_file(root, 0, "cache/index0/shared_cpu_list", "0-1\n");
	cpu_file(root, 0, "cache/index1/level", "3\n");
	cpu_file(root, 0, "cache/index1/shared_cpu_map", "0000000f\n");
	cpu_file(root, 0, "cache/index2/level", "2\n");
	cpu_file(root, 0, "cache/index2/shared_cpu_list", "0-1\n");
	cpu_file(root, 0, "cache/index3/type", "Unified\n");	/* no level */
	cpu_file(root, 4, "cache/index0/level", "2\n");
	cpu_file(root, 4, "cache/index0/shared_cpu_list", "4-5\n");

	assert_int_equal(topology_read(root, NULL, &t), 0);
	check_invariants(t);
	assert_int_equal(t->cpus[1].core, 0);
	assert_int_equal(t->cpus[3].core, 2);
	assert_int_equal(t->cpus[5].core, 5);
	for (cpu = 0; cpu < 4; cpu++)
		assert_int_equal(t->cpus[cpu].llc, 0);
	assert_int_equal(t->cpus[4].llc, 4);
	assert_int_equal(t->cpus[5].llc, 4);
	topology_free(t);
}

/* Siblings and caches known from an earlier CPU's list are not read
 * again: the garbage in cpu1-3's files is never seen. */
static void test_known_cpus_not_reread(void **state)
{
	struct topology *t = NULL;
	char root[PATH_MAX];
	int cpu;

	(void)state;
	fresh(root, "reread");
	base_tree(root, "0-3", "0-3");
	cpu_file(root, 0, "topology/thread_siblings_list", "0-1\n");
	cpu_file(root, 1, "topology/thread_siblings_list", "garbage\n");
	cpu_file(root, 2, "topology/thread_siblings_list", "2-3\n");
	cpu_file(root, 3, "topology/thread_siblings_list", "garbage\n");
	cpu_file(root, 0, "cache/index0/level", "3\n");
	cpu_file(root, 0, "cache/index0/shared_cpu_list", "0-3\n");
	for (cpu = 1; cpu < 4; cpu++)
		cpu_file(root, cpu, "cache/index0/level", "garbage\n");

	assert_int_equal(topology_read(root, NULL, &t), 0);
	check_invariants(t);
	assert_int_equal(t->cpus[1].core, 0);
	assert_int_equal(t->cpus[3].core, 2);
	assert_int_equal(t->cpus[3].llc, 0);
	topology_free(t);

	/* Control: once cpu1 is not covered, its garbage is read. */
	cpu_file(root, 0, "topology/thread_siblings_list", "0\n");
	t = NULL;
	assert_int_equal(topology_read(root, NULL, &t), -EINVAL);
	assert_null(t);
}

/* Node links win over node lists; lists fill in where links are
 * missing; CPU-less nodes count in nr_nodes. */
static void test_nodes(void **state)
{
	struct topology *t = NULL;
	char root[PATH_MAX];

	(void)state;
	fresh(root, "nodes");
	base_tree(root, "0-5", "0-4");
	put(root, "sys/devices/system/node/node0/cpulist", "0-1\n");
	put(root, "sys/devices/system/node/node1/cpumap", "0000003c\n");
	put(root, "sys/devices/system/node/node3/cpulist", "\n");
	put(root, "sys/devices/system/node/online", "0-1,3\n");
	put(root, "sys/devices/system/node/has_cpu", "0-1\n");
	/* cpu2: the link the list predicts; cpu3: a link that disagrees
	 * with the list; cpu4: none, and the list says 1. */
	put_link(root, "sys/devices/system/cpu/cpu2/node1", "../../node/node1");
	put_link(root, "sys/devices/system/cpu/cpu3/node2", "../../node/node2");

	assert_int_equal(topology_read(root, NULL, &t), 0);
	check_invariants(t);
	assert_int_equal(t->cpus[0].node, 0);
	assert_int_equal(t->cpus[1].node, 0);
	assert_int_equal(t->cpus[2].node, 1);
	assert_int_equal(t->cpus[3].node, 2);
	assert_int_equal(t->cpus[4].node, 1);
	assert_int_equal(t->cpus[5].node, -1);		/* offline */
	assert_int_equal(t->nr_nodes, 4);
	/* The links, cpu3's dangling one too, are in the capture. */
	check_replayed(root, NULL, 0, t, NULL);
	topology_free(t);
}

/* x86's NR_CPUS limit: 8192 CPUs, 2 threads per core, 2 packages and
 * nodes, every file the kernel would have. */
static void test_8192_cpus(void **state)
{
	struct topology *t = NULL;
	char root[PATH_MAX], text[64], rel[PATH_MAX];
	struct timespec a, b;
	int cpu, half = 4096;

	(void)state;
	fresh(root, "big8192");
	base_tree(root, "0-8191\n", "0-8191\n");
	put(root, "sys/devices/system/node/node0/cpulist", "0-4095\n");
	put(root, "sys/devices/system/node/node1/cpulist", "4096-8191\n");
	for (cpu = 0; cpu < 8192; cpu++) {
		snprintf(text, sizeof(text), "%d-%d\n", cpu & ~1, cpu | 1);
		cpu_file(root, cpu, "topology/thread_siblings_list", text);
		cpu_file(root, cpu, "topology/physical_package_id",
			 cpu < half ? "0\n" : "1\n");
		cpu_file(root, cpu, "cache/index0/level", "3\n");
		cpu_file(root, cpu, "cache/index0/shared_cpu_list",
			 cpu < half ? "0-4095\n" : "4096-8191\n");
		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/node%d",
			 cpu, cpu < half ? 0 : 1);
		put_link(root, rel, cpu < half ? "../../node/node0"
					       : "../../node/node1");
	}

	clock_gettime(CLOCK_MONOTONIC, &a);
	assert_int_equal(topology_read(root, NULL, &t), 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	print_message("    topology_read of 8192 CPUs: %.1f ms\n",
		      (b.tv_sec - a.tv_sec) * 1e3 +
		      (b.tv_nsec - a.tv_nsec) / 1e6);
	check_invariants(t);
	assert_int_equal(t->nr_ids, 8192);
	assert_int_equal(cpuset_count(t->eligible), 8192);
	assert_int_equal(distinct(t, F_CORE), 4096);
	assert_int_equal(smt_pairs(t), 4096);
	assert_int_equal(distinct(t, F_LLC), 2);
	assert_int_equal(t->cpus[8191].core, 8190);
	assert_int_equal(t->cpus[8191].llc, 4096);
	assert_int_equal(t->cpus[8191].node, 1);
	assert_int_equal(t->cpus[4095].node, 0);
	assert_int_equal(t->nr_nodes, 2);
	topology_free(t);
	rm_tree(root);
}

static void test_new_and_update_sets(void **state)
{
	struct topology *t;
	unsigned int i;

	(void)state;
	assert_null(topology_new(0));
	assert_null(topology_new(CPU_ID_LIMIT + 1));
	topology_free(NULL);

	t = topology_new(130);
	assert_non_null(t);
	assert_int_equal(t->nr_ids, 130);
	assert_int_equal(t->nr_nodes, 0);
	for (i = 0; i < t->nr_ids; i++) {
		assert_false(t->cpus[i].online);
		assert_int_equal(t->cpus[i].core, -1);
		assert_int_equal(t->cpus[i].llc, -1);
		assert_int_equal(t->cpus[i].package, -1);
		assert_int_equal(t->cpus[i].node, -1);
		assert_int_equal(t->cpus[i].avoid, 0);
	}
	assert_int_equal(cpuset_count(t->online), 0);
	assert_int_equal(cpuset_count(t->eligible), 0);

	t->cpus[1].online = true;
	t->cpus[2].online = true;
	t->cpus[2].avoid = AVOID_BANNED;
	t->cpus[129].online = true;
	t->cpus[100].avoid = AVOID_ISOLATED;	/* offline: in neither */
	topology_update_sets(t);
	assert_string_equal(fmt(t->online), "1-2,129");
	assert_string_equal(fmt(t->eligible), "1,129");

	/* Recomputed, not accumulated. */
	t->cpus[1].online = false;
	t->cpus[2].avoid = 0;
	topology_update_sets(t);
	assert_string_equal(fmt(t->online), "2,129");
	assert_string_equal(fmt(t->eligible), "2,129");
	topology_free(t);
}

/* The CPUs that keep a column stay online; the rest leave online and
 * eligible, whatever order the columns come in. */
static void test_keep_online(void **state)
{
	static const struct {
		unsigned int cols[6], nr;
		const char *online, *eligible;
	} cases[] = {
		{ { 0, 1, 2, 3 }, 4, "0-3", "0,2-3" },	/* nothing went */
		{ { 3, 0, 2 }, 3, "0,2-3", "0,2-3" },	/* the banned one went */
		{ { 0, 1 }, 2, "0-1", "0" },
		{ { 1 }, 1, "1", "" },			/* only the banned one left */
		{ { 0, 1, 2, 3, 7 }, 5, "0-3", "0,2-3" }, /* a column of no known CPU */
		{ { 0 }, 0, "", "" },			/* no column at all */
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct topology *t = topology_new(8);

		assert_non_null(t);
		for (unsigned int cpu = 0; cpu < 4; cpu++)
			t->cpus[cpu].online = true;
		t->cpus[1].avoid = AVOID_BANNED;
		topology_update_sets(t);
		topology_keep_online(t, cases[i].cols, cases[i].nr);
		assert_string_equal(fmt(t->online), cases[i].online);
		assert_string_equal(fmt(t->eligible), cases[i].eligible);
		for (unsigned int cpu = 0; cpu < t->nr_ids; cpu++)
			assert_int_equal(t->cpus[cpu].online, cpuset_test(t->online, cpu));
		topology_free(t);
	}
}

/* Each refusal of the readers in words a message can follow the file
 * with; anything else as strerror() says it. */
static void test_strerror(void **state)
{
	static const struct {
		int r;
		const char *text;
	} cases[] = {
		{ -ENOENT, "missing" },
		{ -ENOTDIR, "not a directory" },
		{ -EFBIG, "larger than any such sysfs file" },
		{ -ERANGE, "an id out of range" },
		{ -ENODEV, "no online CPU" },
		{ -EINVAL, "not what the kernel writes there" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		assert_string_equal(topology_strerror(cases[i].r), cases[i].text);
	assert_string_equal(topology_strerror(-EACCES), strerror(EACCES));
}

/* The machine the tests run on, when it has a sysfs: online matches
 * what glibc counts from the same file. */
static void test_live(void **state)
{
	struct topology *t = NULL;
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	(void)state;
	if (access("/sys/devices/system/cpu/online", R_OK) < 0)
		skip();
	assert_int_equal(topology_read("", NULL, &t), 0);
	check_invariants(t);
	assert_int_equal(cpuset_count(t->online), n);
	topology_free(t);
}

/* $TMPDIR, else tmpfs: the 8192-CPU tree is some 70,000 small files,
 * a second on tmpfs but close to a minute on a slow disk. */
static const char *scratch_base(void)
{
	const char *base = getenv("TMPDIR");
	struct stat st;

	if (base && *base)
		return base;
	if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) &&
	    access("/dev/shm", W_OK) == 0)
		return "/dev/shm";
	return "/tmp";
}

static int group_setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "%s/irqtune-topology.XXXXXX",
		 scratch_base());
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int group_teardown(void **state)
{
	(void)state;
	rm_tree(tmpdir);
	return 0;
}

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_avoid_and_banned),
		cmocka_unit_test(test_avoid_empty_spellings),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_file_too_big),
		cmocka_unit_test(test_online_from_dirs),
		cmocka_unit_test(test_llc_fallbacks),
		cmocka_unit_test(test_core_and_cache_sources),
		cmocka_unit_test(test_known_cpus_not_reread),
		cmocka_unit_test(test_nodes),
		cmocka_unit_test(test_8192_cpus),
		cmocka_unit_test(test_new_and_update_sets),
		cmocka_unit_test(test_keep_online),
		cmocka_unit_test(test_strerror),
		cmocka_unit_test(test_capacity),
		cmocka_unit_test(test_live),
	};
	struct CMUnitTest tests[ARRAY_SIZE(real_cases) + ARRAY_SIZE(fixed)];
	unsigned int i, n = 0;

	/* One named test per real machine. */
	for (i = 0; i < ARRAY_SIZE(real_cases); i++) {
		tests[n] = (struct CMUnitTest)cmocka_unit_test(test_real);
		tests[n].name = real_cases[i].name;
		tests[n++].initial_state = (void *)&real_cases[i];
	}
	for (i = 0; i < ARRAY_SIZE(fixed); i++)
		tests[n++] = fixed[i];
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
