// SPDX-License-Identifier: GPL-2.0-or-later
/* machine.c - the CPUs and devices a run plans with, and what it says
 * when they cannot be read; see machine.h. */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

#include "capture.h"
#include "device.h"
#include "fileio.h"
#include "log.h"
#include "machine.h"
#include "pathnames.h"
#include "procfs.h"
#include "source.h"
#include "strutil.h"
#include "topology.h"
#include "vectors.h"

/* Every online CPU avoided: nothing to place IRQs on. */
static int no_cpu_left(void)
{
	log_msg(LOG_ERR, "no CPU left for IRQs: every online CPU is isolated, nohz_full or banned");
	return -ENOSPC;
}

/* The topology from /sys, through in->fs: a capture keeps the files and
 * directory listings read, a replay parses those. */
static int read_topology(const struct machine_input *in, struct topology **ret_topo)
{
	char where[PATH_MAX], member[CAPTURE_NAME_MAX];
	int r;

	r = topology_read_from(in->fs, "", in->banned, ret_topo, where, sizeof(where));
	if (r == -ENOMEM) {
		log_msg(LOG_ERR, "out of memory");
		return r;
	}
	if (r < 0 && in->fs->mode == SOURCE_REPLAY) {
		if (source_member(member, sizeof(member), NULL, where[0] ? where : _PATH_SYS_CPU) < 0)
			str_copy(member, sizeof(member), "root" _PATH_SYS_CPU);
		log_msg(LOG_ERR, "capture %s: member %s: %s", in->capture, member,
			topology_strerror(r));
		return -EBADMSG;
	}
	if (r < 0)
		log_msg(LOG_ERR, "cannot read the CPU topology: %s: %s",
			where[0] ? where : _PATH_SYS_CPU, strerror(-r));
	return r;
}

/* Capacities that cannot be read are no reason to stop: CPUs are taken
 * as alike, as before Linux read them. */
static void capacity_said(const struct topology *topo)
{
	if (topo->capacity_err < 0)
		log_msg(LOG_WARNING, "%s: %s; planning as if every CPU were alike",
			topo->capacity_file, topo->capacity_err == -ERANGE ?
			"not a capacity in 1..1024" : topo->capacity_err == -EINVAL ?
			"not what the kernel writes there" : strerror(-topo->capacity_err));
}

/* The free vectors of each CPU (x86, debugfs). Only a malformed file is
 * said at once; a missing one is the report's. */
static int read_vectors(const struct machine_input *in, const struct topology *topo,
			struct vector_info *vec)
{
	char why[96];
	int r = vectors_read(in->fs, topo->nr_ids, vec);

	if (r < 0) {
		log_msg(LOG_ERR, "out of memory");
		return r;
	}
	if (vec->status == VECTORS_BAD)
		log_msg(LOG_WARNING, "%s: %s; planning without vector space",
			_PATH_DEBUG_VECTOR, vectors_why(vec, why, sizeof(why)));
	return 0;
}

int machine_read(const struct machine_input *in, struct topology **ret_topo,
		 struct vector_info *ret_vec)
{
	struct stat st;
	int r;

	r = read_topology(in, ret_topo);
	if (r < 0)
		return r;
	capacity_said(*ret_topo);
	r = read_vectors(in, *ret_topo, ret_vec);
	if (r < 0)
		return r;
	if (cpuset_count((*ret_topo)->eligible) == 0)
		return no_cpu_left();
	if (in->fs->mode != SOURCE_REPLAY && stat(_PATH_PROC_IRQ, &st) < 0) {
		r = -errno;
		log_msg(LOG_ERR, "cannot read %s: %s (in a container?); nothing to balance",
			_PATH_PROC_IRQ, strerror(-r));
		return r;
	}
	return 0;
}

int machine_devices(const struct machine_input *in, struct topology *topo,
		    const struct interrupts *intr, struct device_map **ret_map)
{
	unsigned int line = 0;
	int r;

	topology_keep_online(topo, intr->col_cpu, intr->nr_cols);
	if (cpuset_count(topo->eligible) == 0)
		return no_cpu_left();
	r = device_scan_from(intr, topo->nr_ids, in->fs, ret_map, &line);
	if (r == -ENOMEM || r >= 0)
		return r;
	if (in->fs->mode == SOURCE_REPLAY) {
		const char *why = r == -ENOENT ? "missing" : "not a device line";

		if (line)
			log_msg(LOG_ERR, "capture %s: devices:%u: %s", in->capture, line, why);
		else
			log_msg(LOG_ERR, "capture %s: devices: %s", in->capture, why);
		return -EBADMSG;
	}
	log_msg(LOG_ERR, "cannot map IRQs to devices with libudev: %s", strerror(-r));
	return r;
}
