/* SPDX-License-Identifier: GPL-2.0-or-later */
/* appload.h - the work of pinned application threads, per CPU, over the
 * sampling window: the load irqtune places IRQs around. A thread is pinned
 * when the CPUs it may run on are fewer than the CPUs irqtune may place
 * IRQs on; kernel threads never count (irq threads are IRQ work already).
 * Measured by the kernel program's sched_switch probe where it runs, else
 * from /proc/PID/task/TID/{stat,status} at both ends of the window, with
 * a cap on how many threads are read. The readers go through a source
 * (source.h), so a capture keeps what they read and a replay serves it. */
#ifndef IRQTUNE_APPLOAD_H
#define IRQTUNE_APPLOAD_H

#include <stdbool.h>

#define APPLOAD_REASON_MAX	192

enum appload_kind {
	APPLOAD_NONE,		/* not measured: the reason says why */
	APPLOAD_PROC,		/* /proc/PID/task/TID at both ends of the window */
	APPLOAD_BPF,		/* the kernel program's sched_switch probe */
};

struct appload {
	enum appload_kind kind;
	char reason[APPLOAD_REASON_MAX];	/* why this source, or why none */
	unsigned int nr_ids;
	/* Per CPU id: pinned application threads' run time over the window,
	 * in CPUs (0..1 each). NULL when kind is APPLOAD_NONE. */
	double *cpu;
	unsigned int threads_seen;	/* user threads looked at */
	unsigned int threads_pinned;	/* of them, pinned and counted */
	unsigned int cap;		/* the most threads read (proc); 0: no cap */
	bool capped;			/* more threads than the cap: the rest unread */
};

#endif
