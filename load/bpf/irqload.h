/* SPDX-License-Identifier: GPL-2.0-or-later */
/* irqload.h - what the in-kernel load program (irqload.bpf.c) leaves in its
 * maps, shared by the program and by bpfload.c that reads them. Fixed-width
 * types only: the same layout on both sides of the syscall. */
#ifndef IRQTUNE_IRQLOAD_H
#define IRQTUNE_IRQLOAD_H

/* __u32, __u64: the uapi header both sides have (the BPF target's from
 * the multiarch include directory, as irqload.bpf.c takes it too). */
#include <linux/types.h>

#define IRQLOAD_NR_SOFTIRQS	10	/* HI .. RCU, as in /proc/softirqs */
#define IRQLOAD_VEC_NET_TX	2
#define IRQLOAD_VEC_NET_RX	3
#define IRQLOAD_NAME_LEN	24
#define IRQLOAD_DEV_LEN		16	/* IFNAMSIZ */
#define IRQLOAD_MAX_IRQ_CPUS	65536	/* (IRQ, CPU) pairs the map holds */
#define IRQLOAD_MAX_NAPI_CPUS	4096	/* (NAPI, CPU) pairs */

/* One IRQ on one CPU. Keyed by both so that each CPU writes only its own
 * entries: no atomics, no contention. */
struct irqload_irq_key {
	__u32 irq;
	__u32 cpu;
};

struct irqload_irq_val {
	__u64 handler_ns;	/* irq_handler_entry .. irq_handler_exit */
	__u64 ctx_ns;		/* irq_enter_rcu .. irq_exit_rcu, where traced */
	__u64 count;		/* handler calls timed */
	char name[IRQLOAD_NAME_LEN];	/* the first action's name */
};

/* The thread of one threaded IRQ (irq/N-name, irq/N-s-name) on one CPU,
 * keyed as irq_time. */
struct irqload_thread_val {
	__u64 ns;		/* on-CPU time, nested hard irqs excluded */
	__u64 runs;		/* switch-in to switch-out, timed */
	__u64 softs;		/* softirqs run inside those runs (their time is in ns) */
	__u64 polls;		/* NAPI polls run inside them */
};

/* Per CPU, per softirq vector. */
struct irqload_soft_val {
	__u64 ns;		/* softirq_entry .. softirq_exit, nested hard-irq time excluded */
	__u64 count;
};

/* One NAPI instance polled on one CPU inside NET_RX. */
struct irqload_napi_key {
	__u64 napi;		/* the napi_struct's address: unique while it lives */
	__u32 cpu;
	__u32 pad;
};

struct irqload_napi_val {
	__u64 ns;		/* the time its polls took, nested hard irqs excluded */
	__u64 polls;
	__s32 irq;		/* napi->irq where the kernel has it, else -1 */
	__u32 napi_id;
	char dev[IRQLOAD_DEV_LEN];	/* its net_device's name, "" for backlog */
};

/* Per CPU: the run time of pinned application threads (user threads
 * allowed on fewer CPUs than irqtune may place IRQs on), nested hard irqs
 * and softirqs excluded. */
struct irqload_app_val {
	__u64 ns;
	__u64 runs;		/* runs timed from a switch-in: each holds one
				 * switch program's cost after its clock read */
};

/* Per CPU: events the program could not account for. */
struct irqload_drops {
	__u64 irq_full;		/* the IRQ map was full */
	__u64 napi_full;	/* the NAPI map was full */
};

#endif
