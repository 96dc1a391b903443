/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bpfload.h - the measured load source: loads the kernel program
 * (bpf/irqload.bpf.c) for one sampling window, and reads what it summed.
 * The only module that talks to the BPF syscall. */
#ifndef IRQTUNE_BPFLOAD_H
#define IRQTUNE_BPFLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "measure.h"

struct bpfload;

/* Are these files (NULL-terminated lists) the kernel's own procfs and sysfs,
 * not files bound over them? Only then does a measurement describe the
 * machine the run reads. 0, or -errno (-EXDEV: not the kernel's) with the
 * reason in @why. */
int bpfload_native(const char *const *proc_files, const char *const *sys_files,
		   char *why, size_t len);

/* Which build of the program to try. ANY tries each, best first, and
 * keeps the first the kernel takes; the others force that one build and
 * never fall back (the guest tests compare the builds one by one). */
enum bpfload_build {
	BPFLOAD_BUILD_ANY,
	BPFLOAD_BUILD_CONTEXT,		/* "context": whole contexts, fentry and tp_btf */
	BPFLOAD_BUILD_HANDLERS,		/* "handlers": tp_btf handlers */
	BPFLOAD_BUILD_RAW,		/* "raw": raw tracepoints */
};
/* "context", "handlers" or "raw" (NULL or "": any); -EINVAL for anything
 * else. */
int bpfload_build_parse(const char *s, enum bpfload_build *ret);

/* Load and attach @build, with maps sized for @nr_irqs IRQs; with
 * @threads (the kernel runs irq threads: PREEMPT_RT, threadirqs) the
 * sched_switch program that times them too. With @app_cpus (the number
 * of CPUs irqtune may place IRQs on; 0: none) that program also sums,
 * per CPU, the run time of pinned application threads: user threads
 * allowed on fewer CPUs than that. -errno with the reason in @why: no
 * BTF, not root, the verifier said no, a tracepoint missing. */
int bpfload_open(unsigned int nr_irqs, enum bpfload_build build, bool threads,
		 unsigned int app_cpus, struct bpfload **ret, char *why, size_t len);
/* The window: events are counted from start to stop only. */
void bpfload_start(struct bpfload *b);
/* A step of the window: each program's cost per run since the last step
 * is kept, so that one step in which the CPU was taken away (a
 * hypervisor's steal, an emulator's host) counts once, not for all. */
void bpfload_tick(struct bpfload *b);
/* Ends the window; pinned threads' runs still open are closed at its
 * end, on each CPU. */
void bpfload_stop(struct bpfload *b);
/* Whether it counts pinned application threads: 1; 0 when not asked to;
 * -errno when the sched_switch program could not be attached (nothing
 * counted), or runs open at the window's end could not be closed
 * (counted, less those). */
int bpfload_app(const struct bpfload *b);
/* Pinned application threads' run time over the window per CPU id below
 * @nr_ids (0 beyond the possible CPUs), in ns, and the runs timed
 * (@ret_runs may be NULL); bpfload_read() puts the same in its
 * measure_raw. 0; -ENODATA when it does not count them; -errno. */
int bpfload_read_app(const struct bpfload *b, uint64_t *ret_ns, uint64_t *ret_runs,
		     unsigned int nr_ids);
/* What it summed; the program stays attached until bpfload_free(). */
int bpfload_read(struct bpfload *b, struct measure_raw **ret);
/* What the kernel counted of the attached programs (BPF_ENABLE_STATS
 * must be on for run_time_ns), and the maps' kernel memory: for the
 * benchmark, make bench-bpf. */
#define BPFLOAD_MAX_PROGS	10
struct bpfload_stats {
	unsigned int nr_progs;
	struct {
		char name[16];
		__u64 run_cnt, run_time_ns;
	} prog[BPFLOAD_MAX_PROGS];
	__u64 map_memlock;		/* bytes, from the maps' fdinfo */
};
int bpfload_stats(const struct bpfload *b, struct bpfload_stats *ret);

/* Detach and unload; NULL is fine. */
void bpfload_free(struct bpfload *b);
/* Whether it times irq threads: 1, 0 when not asked to, or -errno when
 * their program could not be attached (the rest is attached and
 * measures). */
int bpfload_threads(const struct bpfload *b);
/* Why its probes' own cost per event could not be measured over the
 * window (it is then not taken out of what it reads), "" when it was:
 * for the reason a run gives. */
const char *bpfload_probe_note(const struct bpfload *b);
/* What is timed and how: "hard-irq handlers, tp_btf", ... */
const char *bpfload_mode(const struct bpfload *b);

#endif
