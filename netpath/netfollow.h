/* SPDX-License-Identifier: GPL-2.0-or-later */
/* netfollow.h - one run's network path step, after the IRQs are placed:
 * gathers each NIC's queues, XPS masks and NAPI threads (netpathio.h),
 * plans them from the placement (netpath.h), writes what differs unless
 * it is a dry run, and keeps every outcome for the report. */
#ifndef IRQTUNE_NETFOLLOW_H
#define IRQTUNE_NETFOLLOW_H

#include <stdbool.h>
#include <stdio.h>
#include "device.h"
#include "netpath.h"
#include "plan.h"
#include "report.h"
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

enum netfollow_outcome {
	NETFOLLOW_WRITTEN,	/* written and accepted */
	NETFOLLOW_WOULD,	/* --dry-run: would be written */
	NETFOLLOW_KEPT,		/* already so */
	NETFOLLOW_LEFT,		/* not irqtune's to set */
	NETFOLLOW_FAILED,	/* the write was refused; left as it was */
	NETFOLLOW_GONE,		/* the thread exited, or the queue vanished */
};

struct netfollow_change {
	bool xps;		/* an XPS mask, else a NAPI thread */
	char ifname[DEVICE_NAME_MAX];
	char what[48];		/* "tx-3", "napi/eth0-8193" */
	int pid;		/* a thread's; 0 for XPS */
	char from[64];		/* cpulist now, "?" unread */
	char to[64];		/* cpulist planned, "" when left */
	enum netfollow_outcome outcome;
	int err;		/* errno of a refusal */
	char reason[NETPATH_REASON_MAX];
};

struct netfollow_note {
	bool xps;
	char ifname[DEVICE_NAME_MAX];
	char text[NETPATH_REASON_MAX];
};

/* One NIC's NAPIs as netdev netlink told them: how its threads were
 * matched to IRQs, which busy-poll, and the per-NAPI settings (6.13) that
 * take interrupts away while the poll work stays. */
struct netfollow_nic {
	char ifname[DEVICE_NAME_MAX];
	const char *matched_by;		/* "netlink", "names"; NULL: no NAPI threads */
	char netlink[NETPATH_REASON_MAX];	/* why not by netlink; "" when it was */
	unsigned int nr_threads, nr_busy_poll;
	/* The largest over its NAPIs; -1 not said (before 6.13). */
	int defer_hard_irqs;
	int64_t gro_flush_timeout, irq_suspend_timeout;	/* ns */
	unsigned int nr_deferred;	/* NAPIs deferring or suspending their IRQ */
};

struct netfollow_result {
	unsigned int nr_nics;
	struct netfollow_nic *nics;	/* those with NAPI threads or settings */
	bool counts_only;		/* the ctx's: /proc cannot see poll work */
	unsigned int nr, nr_notes;
	struct netfollow_change *changes;
	struct netfollow_note *notes;
	unsigned int failed;	/* refused writes */
	/* How NAPI threads were matched to IRQs: "netlink", "names", or
	 * NULL when there were none. */
	const char *napi_source;
};

/* Gather, plan and (unless a dry run) write. 0 or -ENOMEM; a refused
 * write is an outcome, not an error. */
int netfollow_run(const struct netfollow_ctx *ctx, struct netfollow_result **ret);
void netfollow_result_free(struct netfollow_result *res);

const char *netfollow_outcome_text(enum netfollow_outcome o);
/* "written", "would_write", "kept", "left", "failed", "gone" */
const char *netfollow_outcome_key(enum netfollow_outcome o);

/* The text report's lines: what changed, and with @verbose what was
 * kept or left and why; nothing when there is nothing to say. */
void netfollow_print(FILE *f, const struct netfollow_result *res, bool verbose);
/* Whether the proc source missed @nic's poll work (its IRQs deferred). */
bool netfollow_poll_unseen(const struct netfollow_result *res, const struct netfollow_nic *nic);
/* A warning per refused write (as for a refused affinity), and with
 * syslog one event per write. */
void netfollow_log(const struct netfollow_result *res, bool dry_run);

#endif
