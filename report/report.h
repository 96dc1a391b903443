/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report.h - what one run did, as data, built from what the run's modules
 * left, and the text report printed from it. The same data feeds the JSON
 * output (json.h), the metrics file (metrics.h) and the log lines. Building
 * and formatting only; the caller decides what to print and where. */
#ifndef IRQTUNE_REPORT_H
#define IRQTUNE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "apply.h"
#include "irqclass.h"

/* "moved", "kernel-managed", ... as the text report prints it. */
const char *report_outcome_text(enum report_outcome o);
/* "moved", "kernel_managed", ... as JSON and metrics spell it. */
const char *report_outcome_key(enum report_outcome o);

struct report_irq {
	unsigned int irq;
	const char *name;	/* action names, from the kernel: escaped when printed */
	const char *device;	/* PCI address, "" for none */
	const char *label;	/* interface, disk or driver, "" for none */
	enum irq_class class;
	const char *from;	/* affinity before, as the kernel spelled it */
	int to;			/* CPU now or planned, -1 for none */
	double load;		/* in CPUs, from the run's load source */
	double load_proc;	/* the /proc estimate beside a measurement; NAN: none */
	double load_window;	/* this window's load, when history weighed it; NAN: none */
	bool threaded;		/* its handlers run in irq threads */
	double load_thread;	/* of load, the threads' run time (threaded only) */
	enum report_outcome outcome;
	const char *reason;	/* why this CPU (the planner's words) */
	const char *allowed;	/* policy's cpulist, NULL for none */
	const char *policy;	/* where that came from, NULL for none */
	int vec_full;		/* the CPU it would have taken but for vectors, -1 */
};

struct report_totals {
	unsigned int seen, movable, moved, managed, failed, banned, unchanged;
	double before_min, before_max, after_min, after_max;
	double ratio_before, ratio_after;	/* busiest / mean eligible CPU */
	bool dry_run;
	/* Where application load is known (report_run.app): the share of
	 * all IRQ work on CPUs running pinned application threads (at least
	 * REPORT_APP_BUSY of a CPU), before and after, 0..1. */
	bool app;
	double app_share_before, app_share_after;
};

/* A CPU runs pinned application threads, for the report, from this much
 * of a CPU up: less is a pinned daemon waking now and then. */
#define REPORT_APP_BUSY	0.05	/* PLAN_APP_BUSY, the planner's */

/* Some CPUs kept free of IRQs, and who said so. */
struct report_ban {
	const char *cpus;		/* cpulist */
	const char *source;		/* "--bancpus", "IRQBALANCE_BANNED_CPULIST in FILE:LINE" */
};

struct netfollow_result;
struct appload;
struct kubelet_state;
struct estimate_found;

struct report_run {
	bool dry_run;
	double window;			/* seconds */
	double window_from, window_to;	/* CLOCK_MONOTONIC of the two samples; 0: none */
	const char *load_source;	/* "bpf" or "proc"; NULL before it was chosen */
	const char *load_source_reason;
	const char *counts;		/* "interrupts" or "stat"; NULL: no snapshots */
	const char *counts_reason;	/* the files read, and why */
	const char *history;		/* what became of the load history; NULL: not reached */
	/* How the /proc estimate found each class's per-event costs (fitted,
	 * carried, prior); NULL: no per-device fit ran. */
	const struct estimate_found *estimate_found;
	const char *online;		/* cpulists */
	const char *eligible;
	unsigned int nr_bans;
	const struct report_ban *bans;
	unsigned int nr_cpus;		/* online CPUs, ascending */
	const int *cpus;
	const double *before, *after;	/* per CPU id; NULL when no plan */
	/* Per CPU id, where the online CPUs differ in capacity; NULL where
	 * they are alike (and the report reads as it always did). */
	const unsigned int *capacity;
	const char *capacity_source;	/* "cpu_capacity", "hybrid core lists" */
	/* Per CPU id, the pinned application load the plan was made around
	 * (in CPUs of the biggest); NULL where there was none, and the
	 * report reads as it did before irqtune knew of applications. */
	const double *app;
	/* Where they say something (report_app_source() and the like):
	 * how the application load was measured, the kubelet's exclusive
	 * CPUs, the avoid-cpus set. NULL: nothing to say. */
	const struct appload *app_source;
	const struct kubelet_state *kubelet;
	const char *kubelet_cpus;	/* kubelet->exclusive as a cpulist */
	const char *avoid;		/* cpulist; NULL or "": none */
	/* Vector space, where there is something to say: where it came from
	 * and what it changed, or which source was missing. NULL: nothing. */
	const char *vectors;
	const char *vectors_missing;	/* the file that could not be used; NULL */
	unsigned int nr_irqs;
	const struct report_irq *irqs;	/* OUT_UNUSED ones included */
	struct report_totals totals;
	double started;			/* CLOCK_REALTIME, seconds */
	double locked;			/* lock taken; 0: none (--dry-run) */
	double finished;
	double duration;		/* CLOCK_MONOTONIC, seconds */
	int status;			/* exit status */
	const char *hostname;		/* a replay's captured one; NULL: this host's */
	const struct netfollow_result *netpath;	/* XPS, NAPI threads; NULL: none */
};

/* What a run hands report_build(): its modules' results as they are,
 * NULL where it stopped before them. With @planned, everything from @nr on
 * is set, its arrays parallel, @nr long. */
struct topology;
struct compat_bans;
struct device_map;
struct irq_activity;
struct policy;
struct plan_irq;
struct plan_result;

struct vector_info;
struct appload;
struct kubelet_state;

struct report_input {
	bool dry_run;
	const struct topology *topo;		/* NULL: not read */
	const struct vector_info *vec;		/* NULL: not read */
	const struct compat_bans *bans;		/* NULL: none */
	bool planned;
	unsigned int nr;
	const struct device_map *map;
	const struct irq_activity *act;
	const struct irq_activity *proc_act;	/* the estimate beside a measurement; NULL: none */
	const double *window_load;		/* this window's loads; NULL: history weighed none */
	const struct policy *pol;
	const struct plan_irq *pi;
	const enum report_outcome *out;
	const struct plan_result *res;
	/* Issue 31: the pinned application threads' load per CPU over the
	 * window, as measured (before app-weight; its kind NONE with why when
	 * not measured); NULL: not reached. */
	const struct appload *app;
	double app_weight;			/* as planned with; 0: not planned around */
	/* the kubelet's state file (status ABSENT: none); NULL: not read */
	const struct kubelet_state *kubelet;
	const char *avoid;			/* the avoided CPUs, a cpulist; NULL: none */
};

/* What report_build() allocates for a report_run to point into. */
struct report_store {
	char online[512], eligible[512];
	char vectors[256];
	char kubelet_cpus[256];
	unsigned int *capacity;
	struct report_ban *bans;
	int *cpus;
	struct report_irq *irqs;	/* with the text they point to after them */
};

/* Fill @rr's dry_run, online, eligible and bans from @in, and when
 * @in->planned its CPUs, loads, IRQs and totals, pointing into @in and
 * @st. The other fields are the caller's. 0 or -ENOMEM. */
int report_build(const struct report_input *in, struct report_run *rr,
		 struct report_store *st);
void report_store_release(struct report_store *st);	/* frees the contents */

/* The IRQs report_text() lists: all of them with @verbose or a dry run's,
 * else what changed or failed. */
bool report_listed(const struct report_irq *ri, bool all);
/* The text report of @rr built by report_build(): the IRQ lines, the
 * summary, the load source, and with @verbose where the counts came from
 * and what became of the load history. @both: a measured run's -v, with
 * the /proc estimate's column. */
void report_text(FILE *f, const struct report_run *rr, bool verbose, bool both);

/* "irq 42 (eth0-TxRx-0)", @name escaped. */
void report_irq_tag(char *dst, size_t len, unsigned int irq, const char *name);
#define REPORT_EVENT_MAX	2048
/* The log line of a moved IRQ, REPORT_EVENT_MAX bytes: "irq 42 (eth0-TxRx-0)
 * eth0 0000:01:00.0 net: moved 0-3 -> 5, load 1.250% (REASON)". */
void report_move_event(char *dst, size_t len, const struct report_irq *ri);
/* The run's one summary line for the log; false when nothing changed or
 * failed, and there is none. */
bool report_summary_event(char *dst, size_t len, const struct report_totals *t);
/* Each online CPU's work as a bar, before and after the plan: pinned
 * application work and IRQ work side by side, in at most 80 columns,
 * one line per CPU up to REPORT_PICTURE_LINES CPUs and ranges of CPUs
 * beyond. @colour: ANSI colours (a terminal), else characters alone. */
#define REPORT_PICTURE_LINES	64
void report_picture(FILE *f, const struct report_run *rr, bool colour);
/* One bar of @width cells between brackets into @dst: @app then @irq,
 * each a share of the CPU's time (1 = all of it); '+' at the end where
 * they add up to more. @dst holds at least width + 3 bytes, or
 * width * 10 + 32 with @colour. */
void report_bar(char *dst, size_t len, double app, double irq, unsigned int width,
		bool colour);
/* "proc", "bpf", "none": how @a was measured, as JSON spells it. */
const char *report_app_kind(const struct appload *a);
/* "read", "not_static", "bad", "absent", as JSON spells it. */
const char *report_kubelet_status(const struct kubelet_state *k);

/* One line per ban: "irqtune: CPUs 2-3 banned by SOURCE". */
void report_bans(FILE *f, const struct report_ban *bans, unsigned int nr);

#endif
