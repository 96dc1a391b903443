/* SPDX-License-Identifier: GPL-2.0-or-later */
/* netfollow.h - one run's network path step, after the IRQs are placed:
 * gathers each NIC's queues, XPS masks and NAPI threads (netpathio.h),
 * plans them from the placement (netpath.h), writes what differs unless
 * it is a dry run, and keeps every outcome for the report. */
#ifndef IRQTUNE_NETFOLLOW_H
#define IRQTUNE_NETFOLLOW_H

#include <stdbool.h>
#include <stdio.h>
#include "apply.h"
#include "device.h"
#include "netpath.h"
#include "plan.h"
#include "source.h"
#include "topology.h"

struct netfollow_ctx {
	const struct device_map *map;
	const struct topology *topo;
	const struct plan_irq *pi;		/* parallel to map->irqs */
	const enum report_outcome *out;		/* parallel too */
	bool xps, napi;				/* xps, napi-threads = auto */
	bool dry_run;
	struct source *src;			/* NULL: live */
	bool counts_only;			/* the load is /proc's interrupt counts */
};

/* Gather, plan and (unless a dry run) write. 0 or -ENOMEM; a refused
 * write is an outcome, not an error (netpath.h's netfollow_result). */
int netfollow_run(const struct netfollow_ctx *ctx, struct netfollow_result **ret);

/* The text report's lines: what changed, and with @verbose what was
 * kept or left and why; nothing when there is nothing to say. */
void netfollow_print(FILE *f, const struct netfollow_result *res, bool verbose);
/* A warning per refused write (as for a refused affinity), and with
 * syslog one event per write. */
void netfollow_log(const struct netfollow_result *res, bool dry_run);

#endif
