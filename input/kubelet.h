/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kubelet.h - the kubelet's CPU manager state
 * (/var/lib/kubelet/cpu_manager_state): under its static policy, the CPUs
 * given exclusively to guaranteed pods' containers, which a sampling
 * window may catch idle. Both checkpoint layouts: v2 (policyName,
 * defaultCpuSet, entries as pod UID -> container name -> cpuset,
 * checksum) and v1 (entries as container ID -> cpuset). The kubelet
 * writes the file whole, so one that does not parse is named and
 * ignored. The parser takes a buffer. */
#ifndef IRQTUNE_KUBELET_H
#define IRQTUNE_KUBELET_H

#include <stddef.h>
#include "cpuset.h"

enum kubelet_status {
	KUBELET_ABSENT,		/* no state file: not a kubelet node */
	KUBELET_NOT_STATIC,	/* another policy: no exclusive CPUs */
	KUBELET_READ,		/* static: exclusive holds its CPUs */
	KUBELET_BAD,		/* unreadable or malformed: why says which */
};

#define KUBELET_WHY_MAX	256

struct kubelet_state {
	enum kubelet_status status;
	char policy[32];		/* policyName as read, "" unknown */
	unsigned int nr_containers;	/* entries with CPUs */
	struct cpuset *exclusive;	/* KUBELET_READ: the union of entries */
	char why[KUBELET_WHY_MAX];	/* KUBELET_BAD: what was wrong */
};

struct source;

/* The most a state file may hold: a node's 110 pods of a few containers
 * take a few KiB. */
#define KUBELET_FILE_MAX	(256 * 1024)

/* Parse @len bytes of @buf, a checkpoint of either layout, into @ret:
 * KUBELET_READ with the union of the entries' cpusets (CPU ids below
 * @nr_ids), KUBELET_NOT_STATIC for another policy, or KUBELET_BAD with
 * why. 0, or -ENOMEM (ret released). */
int kubelet_parse(const char *buf, size_t len, unsigned int nr_ids,
		  struct kubelet_state *ret);
/* Read and parse @path through @src (a capture keeps it, a replay reads
 * the kept one): as kubelet_parse(), and KUBELET_ABSENT when there is no
 * such file. A file someone but root (or us) may write is KUBELET_BAD:
 * it would decide where IRQs go. 0 or -ENOMEM. */
int kubelet_read(struct source *src, const char *path, unsigned int nr_ids,
		 struct kubelet_state *ret);
void kubelet_release(struct kubelet_state *k);	/* frees the contents */

#endif
