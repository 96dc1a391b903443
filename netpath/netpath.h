/* SPDX-License-Identifier: GPL-2.0-or-later */
/* netpath.h - the rest of a NIC queue's path after its IRQ is placed: each
 * transmit queue's XPS mask (/sys/class/net/X/queues/tx-N/xps_cpus) and
 * the CPU of each threaded-NAPI kernel thread (napi/X-ID), derived from
 * the CPUs the plan gave the NIC's IRQs. Pure: no I/O, no logging, every
 * decision carries its reason; netpathio.h reads and writes. */
#ifndef IRQTUNE_NETPATH_H
#define IRQTUNE_NETPATH_H

#include <stdbool.h>
#include "cpuset.h"
#include "device.h"

#define NETPATH_REASON_MAX	192

/* What an IRQ's name says it serves. A TXRX vector completes transmit
 * queue K and receives on queue K; TX and RX one direction only. */
enum netpath_kind {
	NETPATH_Q_NONE,		/* link, admin or mailbox vector, or unknown */
	NETPATH_Q_TXRX,		/* ethX-TxRx-K, ethX-rxtx-K, mlx5_compK */
	NETPATH_Q_TX,		/* ethX-tx-K, virtioN-output.K */
	NETPATH_Q_RX,		/* ethX-rx-K, virtioN-input.K */
};

/* The queue the IRQ named @name (one action name, as /proc/irq/N/ has
 * it) serves: 0 with kind and index, or -ENOENT when the name says none. */
int netpath_queue_of(const char *name, enum netpath_kind *ret_kind,
		     unsigned int *ret_index);

/* The NAPI id of a thread named @comm when it is "napi/@ifname-ID": 0
 * with *@ret_id (the id, or -1 when the kernel's 15 characters cut it
 * short), -ENOENT for any other name. */
int netpath_napi_of(const char *comm, const char *ifname, int *ret_id);

/* One IRQ of a NIC, as the plan left it. */
struct netpath_irq {
	unsigned int irq;
	const char *name;	/* action names */
	int cpu;		/* the one CPU it is on (or, in a dry run, would be); -1 none */
	bool placed;		/* irqtune chose that CPU (moved, or kept as good) */
	const char *why_not;	/* when not placed: "kernel-managed", ... */
};

/* One threaded-NAPI kernel thread of a NIC. */
struct netpath_napi {
	int pid;
	char comm[16];
	int id;			/* NAPI id; -1 unknown (the name was cut) */
	int irq;		/* from netdev netlink (napi-get); -1 unknown */
	bool bound;		/* PF_NO_SETAFFINITY: the kernel binds it */
	const struct cpuset *now;	/* its CPUs now; NULL unknown */
	bool busy_poll;		/* netlink: threaded busy polling, it spins */
};

struct netpath_nic {
	const char *ifname;
	int node;		/* -1 unknown */
	const char *xps_off_from;	/* IRQTUNE_XPS=0 on this device; NULL: not set */
	unsigned int nr_irqs;
	const struct netpath_irq *irqs;
	unsigned int nr_tx;	/* transmit queues (queues/tx-N) */
	const struct cpuset *const *xps_now;	/* per queue; NULL or a NULL entry: unread */
	int threaded;		/* /sys/class/net/X/threaded: 0, 1, or -1 unread */
	unsigned int nr_napi;
	const struct netpath_napi *napi;
};

struct netpath_input {
	unsigned int nr_ids;	/* CPU ids */
	const int *cpu_node;	/* per CPU id, -1 none */
	bool xps;		/* xps = auto */
	bool napi;		/* napi-threads = auto */
	unsigned int nr_nics;
	const struct netpath_nic *nics;
};

enum netpath_action {
	NETPATH_WRITE,		/* differs from now: to be written */
	NETPATH_KEEP,		/* already so */
	NETPATH_LEAVE,		/* not irqtune's to set; the reason says why */
};

struct netpath_xps {
	unsigned int nic, queue;
	enum netpath_action action;
	struct cpuset *mask;	/* the mask to hold; NULL when left */
	char reason[NETPATH_REASON_MAX];
};

struct netpath_thread {
	unsigned int nic, napi;	/* indices into the input */
	enum netpath_action action;
	int cpu;		/* the CPU to run on; -1 when left */
	char reason[NETPATH_REASON_MAX];
};

/* Why a NIC gets nothing of a kind (one transmit queue, XPS turned off
 * for it, an IRQ irqtune does not place...). */
struct netpath_note {
	unsigned int nic;
	bool xps;		/* about XPS, else about NAPI threads */
	char text[NETPATH_REASON_MAX];
};

struct netpath_plan {
	unsigned int nr_xps, nr_threads, nr_notes;
	struct netpath_xps *xps;
	struct netpath_thread *threads;
	struct netpath_note *notes;
};

/* Decide every XPS mask and NAPI thread CPU of @in. 0 or -ENOMEM. */
int netpath_plan(const struct netpath_input *in, struct netpath_plan **ret_plan);
void netpath_plan_free(struct netpath_plan *plan);

/* What became of each XPS mask and NAPI thread of a run (netfollow.h's
 * step fills it), as the report and the outputs tell it. */
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

void netfollow_result_free(struct netfollow_result *res);
const char *netfollow_outcome_text(enum netfollow_outcome o);
/* "written", "would_write", "kept", "left", "failed", "gone" */
const char *netfollow_outcome_key(enum netfollow_outcome o);
/* Whether the proc source missed @nic's poll work (its IRQs deferred). */
bool netfollow_poll_unseen(const struct netfollow_result *res, const struct netfollow_nic *nic);

#endif
