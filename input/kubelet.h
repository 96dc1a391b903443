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

#endif
