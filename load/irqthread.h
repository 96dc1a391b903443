/* SPDX-License-Identifier: GPL-2.0-or-later */
/* irqthread.h - the threads of threaded IRQs (PREEMPT_RT, or threadirqs):
 * each IRQ's handler runs in a kernel thread "irq/N-name" (and a secondary
 * "irq/N-s-name"), in process context, where neither the hard-irq time
 * of /proc/stat nor the handler tracepoints see it. Their run time over
 * the window, from /proc/PID/schedstat, is part of the IRQ's load. The
 * parsers take buffers; the readers go through a source (source.h), so a
 * capture keeps what they read and a replay serves it. */
#ifndef IRQTUNE_IRQTHREAD_H
#define IRQTUNE_IRQTHREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sample.h"
#include "source.h"

struct irqthread {
	int pid;
	unsigned int irq;
	uint64_t run_ns[2];	/* schedstat's run time at each end of the window */
	bool seen[2];
};

struct irqthreads {
	unsigned int nr, cap;
	struct irqthread *t;
};

/* The IRQ of a thread named @comm ("irq/42-nvme0q1", "irq/42-s-eth0"),
 * into *@ret_irq: 0, or -EINVAL for any other name. */
int irqthread_parse_name(const char *comm, unsigned int *ret_irq);
/* /proc/PID/stat: the name between the parentheses (cut to @len) and the
 * flags (the ninth field). 0 or -EINVAL. */
int irqthread_parse_stat(const char *buf, char *ret_comm, size_t len,
			 unsigned long *ret_flags);
/* /proc/PID/schedstat: its first field, ns on a CPU. 0 or -EINVAL. */
int irqthread_parse_schedstat(const char *buf, uint64_t *ret_ns);

/* Find the irq threads: kernel threads (PF_KTHREAD) so named. 0 (none
 * found is 0 with ret->nr 0), or -ENOMEM. */
int irqthread_find(struct source *src, struct irqthreads *ret);
/* Their run times now, as end @end (0 or 1) of the window, the files kept
 * as members "@tag/proc/PID/schedstat". A thread gone meanwhile is not
 * seen. */
void irqthread_sample(struct source *src, const char *tag, struct irqthreads *t,
		      unsigned int end);
/* Mark the rows of @intr (n rows, the order of act) that have threads as
 * threaded and, when @add_time, add each thread's run time over the window
 * of @seconds to its IRQ's thread and load. Pure. */
void irqthread_apply(const struct irqthreads *t, const struct interrupts *intr,
		     double seconds, bool add_time, struct irq_activity *act);

void irqthread_release(struct irqthreads *t);

#endif
