/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy.h - site policy per IRQ: which IRQs are banned and which CPUs each
 * may use, from the configuration (banirq, [net]/[storage]/[other] cpus,
 * affinity-hint) and from udev properties on its device (IRQTUNE_BAN,
 * IRQTUNE_CPUS). Pure: no I/O; malformed properties are returned for the
 * caller to report. */
#ifndef IRQTUNE_POLICY_H
#define IRQTUNE_POLICY_H

#include <stdbool.h>
#include "config.h"
#include "cpuset.h"
#include "device.h"
#include "topology.h"

enum policy_ban {
	BAN_NONE,
	BAN_LIST,	/* --banirq, or banirq in the configuration */
	BAN_UDEV,	/* IRQTUNE_BAN on its device */
	BAN_LINK,	/* its NIC's .link file sets its affinity (systemd-udevd's) */
};

struct policy_irq {
	enum policy_ban ban;
	struct cpuset *allowed;	/* NULL: any eligible CPU */
	char source[128];	/* what narrowed it, e.g. "[net] cpus" */
	bool no_cpu;		/* allowed holds no eligible CPU */
	char wanted[64];	/* with no_cpu: the CPUs asked for, a cpulist */
};

struct policy_group {
	struct cpuset *cpus;	/* IRQTUNE_CPUS, NULL if unset or malformed */
	bool ban;		/* IRQTUNE_BAN=1 */
	int cpus_err;		/* -EINVAL/-ERANGE: IRQTUNE_CPUS malformed, ignored */
	int ban_err;		/* -EINVAL: IRQTUNE_BAN not 0/1/yes/no/true/false */
};

struct policy {
	unsigned int nr_irqs;
	struct policy_irq *irqs;	/* parallel to map->irqs */
	unsigned int nr_groups;
	struct policy_group *groups;	/* parallel to map->groups */
};

/* Resolve the policy of every IRQ of @map. Per IRQ, the narrowest source
 * wins: the device's IRQTUNE_CPUS over its class's cpus; with
 * affinity-hint = follow, a driver's hint narrows that further when it
 * leaves an eligible CPU. Then @cfg->avoidcpus are taken out of what is
 * left, where an eligible CPU remains (source then ends in "avoid-cpus").
 * Returns 0 or -ENOMEM. */
int policy_build(const struct config *cfg, const struct topology *topo,
		 const struct device_map *map, struct policy *ret);
void policy_release(struct policy *pol);

/* IRQTUNE_BAN's value: 1 ban, 0 not, -EINVAL neither. */
int policy_parse_bool(const char *s);

#endif
