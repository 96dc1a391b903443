// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_topology.c - the sysfs CPU tree: topology_read() on a tree built
 * from the input under /dev/shm. Whatever the files say, a topology that
 * reads must be one the planner can trust: ids within bounds, every online
 * CPU's core and LLC an online CPU, eligible within online.
 * Input: records "PATH\x01VALUE\x00", PATH relative to
 * sys/devices/system/ (e.g. "cpu/online", "cpu/cpu3/topology/core_cpus_list",
 * "node/node1/cpulist"); a PATH ending in '/' is a directory. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpuset.h"
#include "topology.h"
#include "fuzz.h"

#define MAX_RECORDS	512

static char root[64];

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static void mkdirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
}

static bool path_ok(const char *p, size_t len)
{
	if (len == 0 || len > 120 || p[0] == '/')
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = p[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-' ||
		      c == '/' || c == '.'))
			return false;
		if (c == '.' && i + 1 < len && p[i + 1] == '.')
			return false;
	}
	return true;
}

static void cleanup(void)
{
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void build(const uint8_t *data, size_t size)
{
	char path[256];
	size_t i = 0;
	int records = 0;

	if (!root[0]) {
		snprintf(root, sizeof(root), "/dev/shm/irqtune-fuzz-topo.%d",
			 (int)getpid());
		atexit(cleanup);
	}
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/", root);
	mkdirs(path);
	while (i < size && records++ < MAX_RECORDS) {
		const uint8_t *sep = memchr(data + i, 1, size - i), *end;
		size_t plen, vlen;
		int fd;

		if (!sep)
			break;
		end = memchr(sep + 1, 0, size - (size_t)(sep + 1 - data));
		if (!end)
			end = data + size;
		plen = (size_t)(sep - (data + i));
		vlen = (size_t)(end - (sep + 1));
		if (path_ok((const char *)data + i, plen)) {
			snprintf(path, sizeof(path), "%s/sys/devices/system/%.*s",
				 root, (int)plen, (const char *)data + i);
			mkdirs(path);
			if (path[strlen(path) - 1] == '/') {
				mkdir(path, 0755);
			} else {
				fd = open(path, O_WRONLY | O_CREAT | O_TRUNC |
					  O_CLOEXEC, 0644);
				if (fd >= 0) {
					if (write(fd, sep + 1, vlen) < 0)
						(void)0;
					close(fd);
				}
			}
		}
		i = (size_t)(end - data) + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct topology *t = NULL;
	struct cpuset *banned = cpuset_new(8);
	int r, cpu;

	fuzz_assert(banned);
	cpuset_set(banned, 1);
	build(data, size);
	r = topology_read(root, banned, &t);
	cpuset_free(banned);
	/* gone after every input: libFuzzer may end without atexit() */
	cleanup();
	if (r < 0) {
		fuzz_assert(!t);
		fuzz_assert(r == -EINVAL || r == -ERANGE || r == -ENOENT ||
			    r == -ENODEV || r == -EFBIG || r == -ENOTDIR ||
			    r == -EISDIR || r == -ENOMEM);
		return 0;
	}
	fuzz_assert(t);
	fuzz_assert(t->nr_ids >= 1 && t->nr_ids <= CPU_ID_LIMIT);
	fuzz_assert(t->online->nbits == t->nr_ids && t->eligible->nbits == t->nr_ids);
	fuzz_assert(cpuset_count(t->online) >= 1);
	fuzz_assert(t->nr_nodes >= 0 && t->nr_nodes <= 4096);
	for (cpu = 0; (unsigned int)cpu < t->nr_ids; cpu++) {
		const struct cpu_info *ci = &t->cpus[cpu];

		fuzz_assert(ci->online == cpuset_test(t->online, (unsigned int)cpu));
		fuzz_assert(!cpuset_test(t->eligible, (unsigned int)cpu) ||
			    (ci->online && ci->avoid == 0));
		fuzz_assert(ci->online == false || cpu != 1 ||
			    (ci->avoid & AVOID_BANNED));
		if (!ci->online)
			continue;
		fuzz_assert(ci->core >= 0 && (unsigned int)ci->core < t->nr_ids &&
			    t->cpus[ci->core].online && ci->core <= cpu);
		fuzz_assert(ci->llc >= 0 && (unsigned int)ci->llc < t->nr_ids &&
			    t->cpus[ci->llc].online);
		fuzz_assert(ci->node >= -1 && ci->node < t->nr_nodes);
		fuzz_assert(ci->package >= -1);
	}
	topology_free(t);
	return 0;
}
