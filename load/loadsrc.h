/* SPDX-License-Identifier: GPL-2.0-or-later */
/* loadsrc.h - which load source a run uses, and why. Each source is one
 * table of operations (struct loadsrc_ops) in its own file: the kernel
 * program (bpfsrc.c) and the /proc estimate (procsrc.c). The table of
 * sources (loadsrc.c) lists them best first; the last one always opens and
 * is always read, so that it stands beside a measurement and in for one
 * that cannot be had or does not agree with /proc. A new source is its
 * file and one entry in that table; its name is the load-source= word. */
#ifndef IRQTUNE_LOADSRC_H
#define IRQTUNE_LOADSRC_H

#include <stdbool.h>
#include <stddef.h>
#include "appload.h"
#include "bpfload.h"
#include "estimate.h"
#include "irqthread.h"
#include "measure.h"
#include "sample.h"

#define LOADSRC_REASON_MAX 320

struct loadsrc;

/* What a source is opened with, before the first snapshot. */
struct loadsrc_open {
	/* Why /proc and /sys are not this kernel's own (loadsrc_native());
	 * NULL: they are. A source that measures this kernel then has
	 * nothing to measure. */
	const char *not_native;
	bool threads;			/* there are irq threads to time */
	unsigned int app_cpus;		/* pinned application threads: allowed on
					 * fewer CPUs than this (0: not timed) */
	enum bpfload_build build;	/* IRQTUNE_BPF_BUILD, the bpf source's test switch */
	/* A replay: what the capture kept of a measurement, in place of
	 * taking one (NULL: it kept none), handed to the source that
	 * measures; live runs have @replay false. */
	bool replay;
	struct measure_raw *raw;
};

/* What a source reads its load from, after the second snapshot. */
struct loadsrc_window {
	const struct snapshot *a, *b;
	const struct measure_target *t;	/* per IRQ of b, how a measurement names it */
	const enum irq_class *class;	/* per row of b */
	long hz;			/* USER_HZ of /proc/stat */
	const struct estimate_prior *prior;	/* per-event costs measured before; NULL */
	const struct estimate_dev *dev;	/* per-device costs; NULL: none */
	const struct irqthreads *thr;	/* irq threads' run time; NULL: none */
};

/* One load source. Every operation but name, open and read may be NULL:
 * nothing to do. Operations return 0 or -errno, and put what they have to
 * say in ls->reason (a failed open: why it cannot run; a successful one:
 * what it measures with; a read may append "; ..." remarks). */
struct loadsrc_ops {
	const char *name;	/* the load-source= word and the report's */
	/* Ready the source for the window (load a program, open files),
	 * its state in ls->priv. -errno when it cannot run (ls->reason). */
	int (*open)(struct loadsrc *ls, const struct loadsrc_open *o);
	/* What it measures with, after a successful open, into @buf: the
	 * reason the report gives until the read. */
	void (*describe)(const struct loadsrc *ls, char *buf, size_t len);
	/* The window, live only: its start (once for each pair of
	 * snapshots), its even steps (NULL: one sleep), its end. */
	void (*window_start)(struct loadsrc *ls);
	void (*window_tick)(struct loadsrc *ls);
	void (*window_end)(struct loadsrc *ls);
	/* Each IRQ's load over @w into *@ret (rows of w->b). -EPROTO with
	 * @why: what was read is not to be believed (the last source's
	 * read is then used); another -errno fails the run. A source that
	 * took a measurement leaves it in ls->raw, read or not. */
	int (*read)(struct loadsrc *ls, const struct loadsrc_window *w,
		    struct irq_activity **ret, char *why, size_t len);
	/* The pinned application threads' load per CPU id below @nr_ids
	 * that it timed over the window, into @ret (memset to 0 by the
	 * caller; kind APPLOAD_NONE: none). -ENOMEM only. */
	int (*app)(const struct loadsrc *ls, unsigned int nr_ids, struct appload *ret);
	/* Let go of ls->priv (a program detached). */
	void (*close)(struct loadsrc *ls);
};

/* The sources, best first, NULL-terminated, and their names in the same
 * order (the words load-source= takes besides "auto"). */
extern const struct loadsrc_ops *const loadsrc_table[];
extern const char *const loadsrc_names[];

struct loadsrc {
	const struct loadsrc_ops *const *table;	/* the sources chosen among */
	const struct loadsrc_ops *want;	/* the one asked for; NULL: auto */
	const struct loadsrc_ops *ops;	/* the one open for the window */
	const struct loadsrc_ops *used;	/* the one the load came from */
	char reason[LOADSRC_REASON_MAX];	/* why this source */
	void *priv;			/* ops's own, from open to close */
	bool replayed;			/* a replay: nothing runs in the window */
	bool native;			/* /proc and /sys are this kernel's */
	/* The measurement, in measure.h's terms, of the source that took
	 * one (or the capture's, in a replay): what the costs, the pinned
	 * application load and a capture are taken from. NULL: none. */
	struct measure_raw *raw;
	struct irq_activity *proc_act;	/* the last source's load, beside the one used */
};

/* Whether /proc and /sys are this kernel's own (not a test tree, not a
 * container's files bound over them): only then do its processes, the
 * irq threads among them, belong to the machine the run reads. */
bool loadsrc_native(void);

/* The last source of @table: the one that always opens. */
const struct loadsrc_ops *loadsrc_last(const struct loadsrc_ops *const *table);

/* The source of @table named @name, "auto" or NULL: NULL. -ENOENT for a
 * name @table does not hold. */
int loadsrc_find(const struct loadsrc_ops *const *table, const char *name,
		 const struct loadsrc_ops **ret);

/* Before the first snapshot: open the source @want names ("auto" or
 * NULL: the first of @table that opens; @o->not_native is filled here),
 * and say why it was chosen. -errno only when a source was asked for by
 * name and cannot be had (the reason says why); otherwise 0. */
int loadsrc_begin(struct loadsrc *ls, const struct loadsrc_ops *const *table,
		  const char *want, struct loadsrc_open *o);
/* The same for a replay: @raw (taken over; NULL: none) is the
 * measurement the capture holds, and @reason what the run that captured
 * it said on choosing. -ENODATA when a measuring source was asked for
 * and there is none. */
int loadsrc_replay(struct loadsrc *ls, const struct loadsrc_ops *const *table,
		   const char *want, struct measure_raw *raw, const char *reason);
/* Bracket the snapshots with these. */
void loadsrc_start(struct loadsrc *ls);
void loadsrc_stop(struct loadsrc *ls);
/* A step of the window, where the source takes steps (loadsrc_ticks). */
void loadsrc_tick(struct loadsrc *ls);
bool loadsrc_ticks(const struct loadsrc *ls);

/* After the second snapshot: the table for the planner in *@ret (rows of
 * w->b). The last source of the table is always read; the source open,
 * if another, replaces it when its read succeeds. -EPROTO when that
 * source was asked for and its read was not believed; other -errno for
 * no memory or bad input. */
int loadsrc_finish(struct loadsrc *ls, const struct loadsrc_window *w,
		   struct irq_activity **ret);

/* Whether a source other than the last of the table is open (measures),
 * and whether the load came from one. */
bool loadsrc_measures(const struct loadsrc *ls);
bool loadsrc_measured(const struct loadsrc *ls);

/* The pinned application load the open source timed (its app), into
 * @ret; kind APPLOAD_NONE where it times none. -ENOMEM only. */
int loadsrc_app(const struct loadsrc *ls, unsigned int nr_ids, struct appload *ret);

/* The source is closed here at the latest. */
void loadsrc_release(struct loadsrc *ls);

/* The used source's name ("bpf", "proc"), and the wanted one's ("auto"). */
const char *loadsrc_name(const struct loadsrc *ls);
const char *loadsrc_wanted(const struct loadsrc *ls);

#endif
