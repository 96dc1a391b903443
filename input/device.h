/* SPDX-License-Identifier: GPL-2.0-or-later */
/* device.h - which device is behind each IRQ, its class and NUMA node (from
 * libudev), and the IRQ's current state in /proc/irq/N. */
#ifndef IRQTUNE_DEVICE_H
#define IRQTUNE_DEVICE_H

#include <stdbool.h>
#include "cpuset.h"
#include "irqclass.h"
#include "procfs.h"

#define DEVICE_NAME_MAX 64

/* One device that owns IRQs; its queues share a group index. */
struct device_group {
	char id[DEVICE_NAME_MAX];	/* PCI address, or "" for non-PCI IRQs */
	char label[DEVICE_NAME_MAX];	/* interface or disk name, else driver */
	enum irq_class class;
	int node;			/* -1 when unknown */
	unsigned int nr_irqs;
	/* Site policy from udev properties (rules set them, libudev reads
	 * them from the udev database), on the PCI function or else on its
	 * net, nvme, disk or scsi_host child; NULL when not set. */
	char *policy_cpus;		/* IRQTUNE_CPUS: a cpulist */
	char *policy_ban;		/* IRQTUNE_BAN: "1" bans its IRQs */
	char *policy_xps;		/* IRQTUNE_XPS: "0" leaves its XPS masks */
	char cpus_from[DEVICE_NAME_MAX];	/* sysname that had each */
	char ban_from[DEVICE_NAME_MAX];
	char xps_from[DEVICE_NAME_MAX];
	/* A NIC whose systemd-udevd .link file (ID_NET_LINK_FILE, set by
	 * udevd on the interface) gives its IRQs an affinity policy in
	 * [Link]: "IRQAffinityPolicy=spread in /etc/systemd/network/x.link";
	 * NULL when none. Its IRQs, XPS and NAPI threads are the admin's. */
	char *link_policy;
};

struct irq_info {
	unsigned int irq;
	int group;		/* index into groups[], -1 for no known device */
	enum irq_class class;
	int node;		/* device node, else /proc/irq/N/node, else -1 */
	int pinned;		/* the one CPU of smp_affinity_list, -1 if several */
	int effective;		/* first CPU of effective_affinity_list, -1 unknown */
	bool managed;		/* smp_affinity_list not writable: kernel-managed */
	bool refused_before;	/* managed: the state remembers a refused write */
	bool gone;		/* /proc/irq/N vanished */
	char name[DEVICE_NAME_MAX];	/* action names, from /proc/irq/N/ */
	char affinity[32];	/* smp_affinity_list as read, for the report */
	struct cpuset *hint;	/* affinity_hint, NULL when none or all zero */
};

struct device_map {
	unsigned int nr_irqs;
	struct irq_info *irqs;		/* parallel to intr->rows */
	unsigned int nr_groups;
	struct device_group *groups;
};

/* Fill a map for every numbered IRQ of @intr. @nr_ids bounds CPU ids.
 * A driver's /proc/irq/N/affinity_hint is read too (into irq_info.hint).
 * Returns 0 or -errno (libudev unusable: -ENXIO; no memory: -ENOMEM);
 * a single unreadable /proc/irq/N is not an error. Through @src (NULL:
 * the live machine): recording keeps what libudev said as the member
 * "devices" and the /proc/irq/N files read; replaying takes them from the
 * capture instead of libudev and /proc, and a malformed "devices" is
 * -EINVAL with its line in *@ret_line. */
struct source;
/* The IRQ affinity setting of the [Link] section of the .link file
 * @path (IRQAffinityPolicy=, IRQAffinity=, IRQAffinityNUMA=: the last
 * set, an empty value resetting it), as "KEY=VALUE" into @ret: 1 when
 * one is set, 0 when none, else -errno (unreadable, or not a .link file
 * inih can parse). */
int device_link_policy(const char *path, char *ret, size_t len);

int device_scan_from(const struct interrupts *intr, unsigned int nr_ids,
		     struct source *src, struct device_map **ret_map,
		     unsigned int *ret_line);
void device_map_free(struct device_map *map);

#endif
