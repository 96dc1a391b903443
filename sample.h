/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sample.h - snapshots of /proc/interrupts, /proc/stat and /proc/softirqs,
 * and the counts between two of them. The files' parsers are procfs.h's.
 * The per-IRQ table both load sources fill is here. */
#ifndef IRQTUNE_SAMPLE_H
#define IRQTUNE_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "irqclass.h"
#include "procfs.h"

/* Which device class raises each softirq type; -1: timers, the scheduler
 * and RCU are no device's work and stay with the CPU. */
extern const int sample_softirq_class[SOFTIRQ_NR];


/* Where a snapshot's per-IRQ counts came from. */
enum snapshot_input {
	SNAPSHOT_INTERRUPTS,	/* /proc/interrupts, every CPU's count */
	SNAPSHOT_STAT,		/* /proc/stat's totals on each effective CPU */
};

struct snapshot {
	enum snapshot_input input;
	struct interrupts *intr;
	struct cpu_stats stats;
	double when;		/* CLOCK_MONOTONIC seconds */
};

/* Read the three files (paths from pathnames.h). On failure *@ret_path names
 * the file and *@ret_line the line (0 when the file could not be read). */
int snapshot_take(struct snapshot *snap, const char **ret_path,
		  unsigned int *ret_line);
/* The same through @src (NULL: the live files), the files kept or served
 * as members "@tag/proc/..." (@tag NULL: "root/proc/..."). */
struct source;
int snapshot_take_from(struct snapshot *snap, struct source *src, const char *tag,
		       const char **ret_path, unsigned int *ret_line);
void snapshot_release(struct snapshot *snap);
/* A snapshot without /proc/interrupts, whose size grows with CPUs x IRQs
 * (1.4 GB a reading at 8192 CPUs and 16000 IRQs): the rows it would show
 * (IRQs with a handler, a directory under /proc/irq/N, or with counts),
 * each IRQ's total from /proc/stat's intr line put on the one CPU of its
 * effective_affinity_list (no count: several or none), the columns the
 * online CPUs of /proc/stat. A zero count is kept on that CPU, for the
 * second snapshot; @prev is the first, taken so, when this is the second. The deltas between two are
 * /proc/interrupts' exactly when every IRQ that moved was on one CPU,
 * the same at both, and its total grew: otherwise -EDOM, with the IRQ in
 * *@ret_line, and only /proc/interrupts can tell (-EDOM also without an
 * intr line). Files as members "@tag/proc/...", as snapshot_take_from(). */
int snapshot_take_stat(struct snapshot *snap, struct source *src, const char *tag,
		       const struct snapshot *prev, const char **ret_path,
		       unsigned int *ret_line);

/* What one IRQ did between two snapshots. */
struct irq_activity {
	unsigned int irq;
	uint64_t delta;		/* interrupts in the window (32-bit wrap aware) */
	double rate;		/* interrupts per second */
	int top_cpu;		/* CPU that served most of them, -1 if none */
	double load;		/* estimated CPU work, in CPUs (1.0 = one CPU busy) */
	double hard;		/* of which hard-irq time */
	double soft;		/* of which softirq time */
	double thread;		/* of which its irq threads' time */
	bool threaded;		/* it has irq threads (PREEMPT_RT, threadirqs) */
};

/* Per IRQ of @b (in the order of b->intr->rows) its counts since @a:
 * delta, rate and top_cpu; the load fields are 0 for a load source to fill.
 * IRQs absent from @a, or whose description changed (the number was freed
 * and reused), get delta 0. *@ret has b->intr->nr_rows entries. Pure. */
int sample_counts(const struct snapshot *a, const struct snapshot *b,
		  struct irq_activity **ret);

/* The pieces of that, for the /proc estimator. */
struct cpu_delta {
	unsigned int cpu;
	uint64_t delta;
};
#define SAMPLE_COL_A	0x1	/* a column of the first /proc/interrupts */
#define SAMPLE_COL_B	0x2	/* and of the second */
/* Events between two readings of one kernel counter (32-bit wrap aware). */
uint64_t sample_counter_delta(uint64_t a, uint64_t b);
/* A 64-bit hash of a row's description: what a load history keeps of it
 * to tell a reused IRQ number from the same interrupt. */
uint64_t sample_desc_hash(const char *desc);
/* The row of @a that is the same interrupt as @rb (the same number and
 * description, or its hash where a row has no description), NULL if none. */
const struct irq_row *sample_pair_row(const struct interrupts *a,
				      const struct irq_row *rb);
/* SAMPLE_COL_* per CPU id, *@ret_nr_ids of them; NULL: no memory. */
unsigned char *sample_columns(const struct snapshot *a, const struct snapshot *b,
			      unsigned int *ret_nr_ids);
/* Room sample_row_deltas() needs for any row of @b. */
unsigned int sample_max_deltas(const struct snapshot *a, const struct snapshot *b);
/* Non-zero per-CPU deltas of one IRQ, ascending CPU, CPUs in both. */
unsigned int sample_row_deltas(const struct irq_row *ra, const struct irq_row *rb,
			       const unsigned char *col, unsigned int nr_ids,
			       struct cpu_delta *out);

/* One run's window: the counts chosen, then two snapshots a window apart.
 * Counts read without /proc/interrupts that it alone could tell (an IRQ
 * moved or spread over CPUs in the window) are taken again from it, a
 * window later, as snapshots 3 and 4. */
#define SAMPLE_REASON_MAX	160
/* At this many online CPUs and more, /proc/interrupts is not read: it holds
 * a count per CPU and IRQ (1.4 GB at 8192 CPUs and 16000 IRQs, each time),
 * where /proc/stat and one small file per IRQ say the same. */
#define SAMPLE_STAT_CPUS	2048
#define SAMPLE_TICKS		20

struct sample_window {
	/* The caller's: */
	struct source *src;		/* replaying: no sleep, the captured times */
	double seconds;
	double replayed[4];		/* a replay's times of snapshot-N; NAN: none valid */
	void (*begin)(void *ctx);	/* a pair of snapshots begins */
	void (*taken)(void *ctx, const char *tag, int n);	/* snapshot @n is read */
	/* Called at SAMPLE_TICKS even steps of a live window's sleep, the
	 * last at its end; NULL: the window is one sleep. */
	void (*tick)(void *ctx);
	void *ctx;
	/* The window's: */
	enum snapshot_input counts;
	char reason[SAMPLE_REASON_MAX];	/* what the counts come from, and why */
	char first[SAMPLE_REASON_MAX];	/* the first pair's reason */
	struct snapshot a, b;
	double when[4];			/* snapshot-N's time, 0: not taken */
	/* Where it failed: the snapshot, the file (NULL: /proc) and line (0:
	 * unreadable), or that a replay has no valid time for it. */
	char tag[16];
	const char *path;
	unsigned int line;
	bool no_time;
};

/* Choose the counts: a replay's as captured (@captured "stat" or not,
 * @captured_reason NULL: not recorded), else @env (IRQTUNE_COUNTS, a test
 * switch: "stat" or "interrupts"), else by @online CPUs. */
void sample_choose_counts(struct sample_window *w, const char *env, unsigned int online,
			  const char *captured, const char *captured_reason);
/* Take the window's snapshots. 0, or -errno of the snapshot named by
 * @w->tag (-EINVAL with @w->no_time); sample_window_release() frees what
 * was taken either way. */
int sample_window_take(struct sample_window *w);
void sample_window_release(struct sample_window *w);	/* frees the contents */
/* Sleep @seconds of CLOCK_MONOTONIC, signals notwithstanding. */
void sample_sleep(double seconds);

#endif
