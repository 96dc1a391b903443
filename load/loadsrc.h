/* SPDX-License-Identifier: GPL-2.0-or-later */
/* loadsrc.h - which load source a run uses, and why: the kernel program
 * (bpfload.c, measure.c) where it can run and agrees with /proc, else the
 * /proc estimate (estimate.c). Both fill the same per-IRQ table. */
#ifndef IRQTUNE_LOADSRC_H
#define IRQTUNE_LOADSRC_H

#include <stdbool.h>
#include "bpfload.h"
#include "config.h"
#include "estimate.h"
#include "irqthread.h"
#include "measure.h"
#include "sample.h"

#define LOADSRC_REASON_MAX 320

enum loadsrc_kind { LOADSRC_PROC, LOADSRC_BPF };

struct loadsrc {
	enum config_load_source want;
	enum loadsrc_kind used;
	char reason[LOADSRC_REASON_MAX];	/* why this source */
	struct bpfload *bpf;
	struct measure_raw *raw;	/* what the program summed, if it ran */
	struct irq_activity *proc_act;	/* the estimate, beside a measurement */
	bool measured_ok;		/* raw agrees with /proc */
	bool native;			/* /proc and /sys are this kernel's */
};

/* Whether /proc and /sys are this kernel's own (not a test tree, not a
 * container's files bound over them): only then do its processes, the
 * irq threads among them, belong to the machine the run reads. */
bool loadsrc_native(void);

/* Before the first snapshot: decide, and load the program if it is to be
 * tried, only @build of it unless that is BPFLOAD_BUILD_ANY (the test
 * switch IRQTUNE_BPF_BUILD, read by the caller), timing irq threads too
 * when there are @threads, and pinned application threads' time with
 * @app_cpus (the CPUs irqtune may place IRQs on; 0: not). -errno only
 * when @want is bpf and it cannot be had (reason says why); otherwise 0,
 * with the proc source chosen and its reason set when the program cannot
 * run. */
int loadsrc_begin(struct loadsrc *ls, enum config_load_source want,
		  enum bpfload_build build, bool threads, unsigned int app_cpus);
/* The same for a replay: the measurement a capture holds (@raw, taken
 * over; NULL: none) in place of the program, and @reason what the run
 * that captured it said on choosing. -ENODATA when @want is bpf and there
 * is none. */
int loadsrc_replay(struct loadsrc *ls, enum config_load_source want,
		   struct measure_raw *raw, const char *reason);
/* Bracket the snapshots with these. */
void loadsrc_start(struct loadsrc *ls);
void loadsrc_stop(struct loadsrc *ls);
/* A step of the window: the program's statistics so far (bpfload_tick). */
void loadsrc_tick(struct loadsrc *ls);

/* After the second snapshot: the table for the planner in *@ret (rows of
 * b). The estimate is always made (with @dev's per-device costs, NULL for
 * none: estimate_proc_dev()) with the run time of @thr's irq threads
 * added; the measurement, which times the threads itself, replaces it
 * when it agrees with /proc. Rows with threads are marked threaded. -EPROTO when @want is bpf and it does not; other
 * -errno for no memory or bad input. */
int loadsrc_finish(struct loadsrc *ls, const struct snapshot *a,
		   const struct snapshot *b, const struct measure_target *t,
		   const enum irq_class *class, long hz,
		   const struct estimate_prior *prior, const struct estimate_dev *dev,
		   const struct irqthreads *thr, struct irq_activity **ret);

/* The program is detached here at the latest. */
void loadsrc_release(struct loadsrc *ls);

const char *loadsrc_name(enum loadsrc_kind k);	/* "bpf", "proc" */

#endif
