/* SPDX-License-Identifier: GPL-2.0-or-later */
/* measure.h - the measured load source's arithmetic: from what the kernel
 * program summed in one window (hard-irq time per IRQ and CPU, softirq time
 * per CPU and vector, NET_RX time per NAPI instance) to each IRQ's load, and
 * the checks that the measurement describes the machine /proc shows. Pure:
 * no I/O, so recorded measurements drive the tests. */
#ifndef IRQTUNE_MEASURE_H
#define IRQTUNE_MEASURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "irqclass.h"
#include "sample.h"

#define MEASURE_NR_SOFTIRQS	SOFTIRQ_NR
#define MEASURE_NAME_LEN	24
#define MEASURE_DEV_LEN		16

struct measure_irq {		/* one IRQ on one CPU */
	unsigned int irq, cpu;
	uint64_t handler_ns;	/* its handlers' time */
	uint64_t ctx_ns;	/* its hard-irq contexts' time, 0 if not traced */
	uint64_t count;		/* handler calls */
	char name[MEASURE_NAME_LEN];	/* first action's name, maybe cut */
};

struct measure_napi {		/* one NAPI instance on one CPU */
	unsigned int cpu;
	int irq;		/* from the kernel's napi->irq, -1 unknown */
	uint64_t ns;
	uint64_t polls;
	char dev[MEASURE_DEV_LEN];	/* interface, "" for the backlog */
};

struct measure_thread {		/* one IRQ's threads on one CPU */
	unsigned int irq, cpu;
	uint64_t ns;		/* on-CPU, nested hard irqs excluded */
	uint64_t runs;		/* switch-in to switch-out */
	uint64_t softs, polls;	/* softirqs and NAPI polls inside: their time is in ns */
};

/* What the program's own probes add to each interval they sit inside, in
 * ns per event, measured when it was loaded (bpfload.c); 0: not known.
 * Taken out of every figure so that a per-event bias does not become a
 * per-interrupt count term. */
struct measure_probe {
	double hard;		/* per handler timed */
	double ctx;		/* per hard-irq context timed, more than hard */
	double soft;		/* per softirq run */
	double napi;		/* per NAPI poll */
	double thread;		/* per irq thread run */
};

struct measure_raw {
	double window;			/* seconds the program counted */
	bool use_ctx;			/* hard time is whole contexts */
	unsigned int nr_cpus;		/* rows of soft_ns */
	uint64_t (*soft_ns)[MEASURE_NR_SOFTIRQS];
	uint64_t (*soft_events)[MEASURE_NR_SOFTIRQS];	/* runs timed */
	unsigned int nr_irqs, cap_irqs;	/* cap_*: room allocated, for growing */
	struct measure_irq *irqs;
	unsigned int nr_napi, cap_napi;
	struct measure_napi *napi;
	unsigned int nr_threads, cap_threads;
	struct measure_thread *threads;
	struct measure_probe probe;
	bool threads_timed;		/* irq threads timed: threads[] is all of them */
	/* Pinned application threads (appload.h), when the program counted
	 * them: per CPU (nr_cpus rows), their run time less the hard irqs
	 * and softirqs in it, and the runs timed from a switch-in. */
	bool app_timed;
	unsigned int app_cpus;		/* allowed on fewer CPUs than this: pinned */
	uint64_t *app_ns, *app_runs;
	uint64_t dropped;		/* events a full map could not take */
	uint64_t missed;		/* program runs the kernel skipped */
};

/* A program's cost per run over the window, from its cost per run in
 * each of @nr steps that it ran in (@step) and its @runs and @ns over the
 * whole: the median of the steps where there are 3 or more, so that a
 * step in which the CPU was taken from the machine (a hypervisor's
 * steal, an emulator's host) does not swell the rest; the mean
 * otherwise; 0 when it never ran. @step is reordered. */
double measure_probe_per_run(double *step, unsigned int nr, uint64_t runs, uint64_t ns);

struct measure_raw *measure_raw_new(unsigned int nr_cpus);
void measure_raw_free(struct measure_raw *raw);

/* The pinned application threads' load per CPU id below @nr_ids, in
 * CPUs (their time over the window), less the switch program's own cost
 * per run: 0 for CPUs the measurement has no row of. -ENODATA when it
 * did not count them (an older capture, a kernel program refused). */
int measure_app(const struct measure_raw *raw, double *cpu, unsigned int nr_ids);

/* What the attribution needs of each row of /proc/interrupts. */
struct measure_target {
	unsigned int irq;
	enum irq_class class;
	int group;		/* device index, -1 none */
	const char *label;	/* its interface name for NICs, may be NULL */
};

/* What raw->probe took out, for the reason a run gives ("its probes' own
 * cost taken out: 240 ns a handler, ..."): 0, or -ENODATA when nothing
 * was measured. */
int measure_probe_note(const struct measure_raw *raw, char *buf, size_t len);

/* Index of @irq in @t (ascending irq, the order of /proc/interrupts), -1. */
int measure_find_target(const struct measure_target *t, unsigned int n,
			unsigned int irq);

/* Fill hard, soft, thread and load of act[i] for target t[i] (n rows, the rows of
 * the second snapshot; delta and top_cpu already set). Hard-irq time is the
 * IRQ's own. NET_RX time goes to the IRQ of the NAPI instance that polled
 * (napi->irq; else the interface's IRQs on that CPU by their hard time, or
 * wherever they fired if none fired there);
 * the rest of NET_RX and NET_TX to the CPU's network IRQs, BLOCK and
 * IRQ_POLL to its storage IRQs, HI and TASKLET to its other IRQs, each by
 * hard time (storage work on a CPU that served no storage IRQ, completions
 * sent there by the block layer, goes to all storage IRQs by hard time).
 * Timer, scheduler, hrtimer and RCU softirqs are nobody's. An irq thread's
 * time is its IRQ's (thread, and in load). Every figure is less the
 * probes' own cost (raw->probe) per event it counted. */
int measure_attribute(const struct measure_raw *raw, const struct measure_target *t,
		      unsigned int n, struct irq_activity *act);

/* 0 when the measurement agrees with the window of /proc/interrupts: every
 * IRQ it saw is a row with activity, its name among the row's actions, and
 * every row with at least MEASURE_CHECK_MIN interrupts was seen, no event
 * was dropped or missed. Else -EPROTO with the first disagreement in @why. */
#define MEASURE_CHECK_MIN	20
int measure_check(const struct measure_raw *raw, const struct interrupts *intr,
		  const struct irq_activity *act, char *why, size_t len);

#endif
