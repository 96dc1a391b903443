/* SPDX-License-Identifier: GPL-2.0-or-later */
/* acct.h - the per-CPU clock arithmetic of the load program: which interval
 * of time belongs to which hard irq, softirq and NAPI poll. Pure inline
 * functions on one CPU's state, compiled into the BPF program and into the
 * unit tests, which replay recorded event sequences through them.
 *
 * Why nested time is subtracted: softirqs run with interrupts enabled, so a
 * hard irq that arrives during a NET_RX poll would otherwise be counted
 * twice, once as its own and once as the poll's. The same holds for the
 * threads of threaded IRQs (PREEMPT_RT, threadirqs), whose on-CPU time is
 * counted from sched_switch to sched_switch: hard irqs interrupt them and
 * are counted as their own already.
 *
 * Softirqs that run inside an irq thread (local_bh_enable() at the end of
 * irq_forced_thread_fn() runs every pending one) are the other way round:
 * their time stays the thread's and is not counted as softirq time. That
 * is how the kernel accounts them (the thread's schedstat run time holds
 * them), and on PREEMPT_RT they are preemptible, so a softirq_entry ..
 * softirq_exit span there can hold other tasks' runs; the thread's own
 * switch-to-switch time cannot. Measured on Debian's 6.1 PREEMPT_RT, the
 * softirqs taken out of the storage threads were 15-30% of what the
 * kernel accounted to them. */
#ifndef IRQTUNE_ACCT_H
#define IRQTUNE_ACCT_H

/* __u32, __u64: the uapi header both sides have (the BPF target's from
 * the multiarch include directory, as irqload.bpf.c takes it too). */
#include <linux/types.h>
#include "irqload.h"

#ifndef ACCT_INLINE
#define ACCT_INLINE static inline __attribute__((always_inline))
#endif

struct acct_cpu {
	__u64 hard_start;	/* of the running handler, 0 if none seen */
	__u64 ctx_start;	/* of the hard-irq context, 0 if none seen */
	__u64 hard_total;	/* hard-irq time on this CPU so far */
	__u64 soft_start;	/* of the running softirq, 0 if none seen */
	__u64 soft_hard0;	/* hard_total when it began */
	__u64 seg_start;	/* of the running NAPI poll */
	__u64 seg_hard0;
	__u64 soft_total;	/* softirq time on this CPU so far, its own */
	__u64 thr_start;	/* an irq thread was switched in, 0 if none seen */
	__u64 thr_hard0;	/* hard_total then */
	__u64 thr_soft0;	/* soft_total then */
	__u32 thr_irq;
	__u32 thr_pid;		/* the thread's */
	__u32 thr_softs;	/* softirqs run inside its current run */
	__u32 thr_polls;	/* NAPI polls run inside them */
	__u32 soft_thr;		/* the running softirq runs in that thread */
	__u32 switched;		/* a switch was seen on this CPU */
	__s32 ctx_irq;		/* first handler in this context, -1 none */
	__u32 hard_irq;
	__u32 soft_vec;
	__u32 use_ctx;		/* hard_total grows by contexts, not handlers */
	__u32 app_pid;		/* the pinned user thread switched in */
	__u64 app_start;	/* of its run, 0 if none is open */
	__u64 app_hard0;	/* hard_total then */
	__u64 app_soft0;	/* soft_total then */
};

/* A handler begins. */
ACCT_INLINE void acct_hard_entry(struct acct_cpu *s, __u32 irq, __u64 now)
{
	s->hard_start = now;
	s->hard_irq = irq;
	if (s->ctx_start && s->ctx_irq < 0)
		s->ctx_irq = (__s32)irq;
}

/* A handler returns: its time, or 0 when its start was not seen. */
ACCT_INLINE __u64 acct_hard_exit(struct acct_cpu *s, __u32 irq, __u64 now)
{
	__u64 d;

	if (!s->hard_start || s->hard_irq != irq || now < s->hard_start) {
		s->hard_start = 0;
		return 0;
	}
	d = now - s->hard_start;
	s->hard_start = 0;
	if (!s->use_ctx)
		s->hard_total += d;
	return d;
}

/* The CPU enters hard-irq context (irq_enter_rcu): device or not. */
ACCT_INLINE void acct_ctx_enter(struct acct_cpu *s, __u64 now)
{
	s->ctx_start = now;
	s->ctx_irq = -1;
}

/* It leaves (irq_exit_rcu, before pending softirqs run): the context's time
 * in *ret_ns, and the IRQ it served, or -1 for a timer or IPI context. */
ACCT_INLINE __s32 acct_ctx_exit(struct acct_cpu *s, __u64 now, __u64 *ret_ns)
{
	__s32 irq = s->ctx_irq;
	__u64 d;

	*ret_ns = 0;
	if (!s->ctx_start || now < s->ctx_start) {
		s->ctx_start = 0;
		return -1;
	}
	d = now - s->ctx_start;
	s->ctx_start = 0;
	s->ctx_irq = -1;
	/* Only a device's context is counted, as its IRQ's: a timer's or an
	 * IPI's stays in the softirq or irq thread it interrupted, as it
	 * does where handlers alone are timed, so that no time is dropped
	 * and the whole-context figures are never below the handlers'. */
	if (s->use_ctx && irq >= 0)
		s->hard_total += d;
	*ret_ns = d;
	return irq;
}

ACCT_INLINE void acct_soft_entry(struct acct_cpu *s, __u32 vec, __u64 now)
{
	s->soft_thr = s->thr_start != 0;
	s->soft_vec = vec;
	s->soft_start = now;
	s->soft_hard0 = s->hard_total;
	s->seg_start = now;
	s->seg_hard0 = s->hard_total;
}

/* Time since @start less the hard irqs that interrupted it. */
ACCT_INLINE __u64 acct_net(const struct acct_cpu *s, __u64 start, __u64 hard0,
			   __u64 now)
{
	__u64 d = now > start ? now - start : 0;
	__u64 h = s->hard_total - hard0;

	return d > h ? d - h : 0;
}

/* A softirq returns: its own time, 0 when its start was not seen or when
 * it ran inside an irq thread (the thread's time, counted there). */
ACCT_INLINE __u64 acct_soft_exit(struct acct_cpu *s, __u32 vec, __u64 now)
{
	__u64 d;

	if (!s->soft_start || s->soft_vec != vec) {
		s->soft_start = 0;
		return 0;
	}
	if (s->soft_thr) {
		s->soft_start = 0;
		s->thr_softs++;
		return 0;
	}
	d = acct_net(s, s->soft_start, s->soft_hard0, now);
	s->soft_start = 0;
	s->soft_total += d;
	return d;
}

/* napi:napi_poll fires when one poll has returned. Inside NET_RX it ends
 * the poll that began at the previous one, or at the softirq's entry; the
 * time in between (net_rx_action's own) is charged to that poll too, as it
 * exists only to run it. A poll outside NET_RX (busy polling, threaded
 * NAPI) is a task's time, not a softirq's: 0; so is one in a NET_RX that
 * runs inside an irq thread, whose time is the thread's. */
ACCT_INLINE __u64 acct_napi_poll(struct acct_cpu *s, __u64 now)
{
	__u64 d;

	if (!s->soft_start || s->soft_vec != IRQLOAD_VEC_NET_RX)
		return 0;
	if (s->soft_thr) {
		s->thr_polls++;
		return 0;
	}
	d = acct_net(s, s->seg_start, s->seg_hard0, now);
	s->seg_start = now;
	s->seg_hard0 = s->hard_total;
	return d;
}

/* The IRQ an irq thread serves, from its name: "irq/N-name" or, for the
 * secondary thread of a forced-threaded IRQ, "irq/N-s-name" (both as
 * kernel/irq/manage.c setup_irq_thread() names them since 2.6.30 and
 * 4.17). comm is cut at 15 characters, after the number. -1 for any other
 * name. */
ACCT_INLINE __s32 acct_thread_irq(const char *comm)
{
	__s32 irq = 0;
	int i;

	if (comm[0] != 'i' || comm[1] != 'r' || comm[2] != 'q' || comm[3] != '/')
		return -1;
	for (i = 4; i < 12; i++) {
		char c = comm[i];

		if (c == '-')
			return i > 4 ? irq : -1;
		if (c < '0' || c > '9')
			return -1;
		irq = irq * 10 + (c - '0');
	}
	return -1;
}

/* sched_switch puts an irq thread (@pid, of @irq) on this CPU: its run
 * begins. */
ACCT_INLINE void acct_thread_in(struct acct_cpu *s, __u32 irq, __u32 pid, __u64 now)
{
	s->thr_start = now;
	s->thr_irq = irq;
	s->thr_pid = pid;
	s->thr_hard0 = s->hard_total;
	s->thr_soft0 = s->soft_total;
	s->thr_softs = 0;
	s->thr_polls = 0;
}

/* sched_switch takes task @pid off this CPU. When it is the irq thread
 * that was switched in (it sleeps, blocks on a lock, or is preempted):
 * the run's own time, without the hard irqs inside it (and without
 * softirqs counted as such: those that ran on it from a hard irq's exit),
 * and its IRQ in *@ret_irq; thr_softs and thr_polls say how many softirqs
 * and polls its time holds. 0 for any other task, or when the run's start
 * was not seen (it was running when the window opened). */
ACCT_INLINE __u64 acct_thread_out(struct acct_cpu *s, __u32 pid, __u64 now, __u32 *ret_irq)
{
	__u64 d, nested;

	*ret_irq = s->thr_irq;
	if (!s->thr_start || s->thr_pid != pid || now < s->thr_start) {
		s->thr_start = 0;
		return 0;
	}
	d = now - s->thr_start;
	nested = (s->hard_total - s->thr_hard0) + (s->soft_total - s->thr_soft0);
	s->thr_start = 0;
	return d > nested ? d - nested : 0;
}

/* The first switch seen on this CPU takes off the task that was running
 * when the window opened at @start. When that is an irq thread (@irq not
 * -1: the caller read its name), its run so far is its own since @start,
 * less everything else this CPU timed since, all of which interrupted it
 * or ran in it. Without this, a thread busy when the window opens would
 * count only from its next run. 0 for any later switch. */
ACCT_INLINE __u64 acct_thread_first(struct acct_cpu *s, __s32 irq, __u64 start, __u64 now)
{
	__u64 d, nested = s->hard_total + s->soft_total;

	if (s->switched)
		return 0;
	s->switched = 1;
	if (irq < 0 || s->thr_start || now < start)
		return 0;
	d = now - start;
	return d > nested ? d - nested : 0;
}

/* Pinned application threads: user threads that may run on fewer CPUs
 * than irqtune may place IRQs on. Their run time on each CPU is the load
 * IRQs would share the CPU with. Hard irqs and softirqs that interrupt
 * them are taken out, as for irq threads: those are IRQ work, counted as
 * such, and the kernel's own run time of a task leaves them out as well
 * (IRQ_TIME_ACCOUNTING). */

/* sched_switch puts pinned thread @pid on this CPU: its run begins. */
ACCT_INLINE void acct_app_in(struct acct_cpu *s, __u32 pid, __u64 now)
{
	s->app_start = now;
	s->app_pid = pid;
	s->app_hard0 = s->hard_total;
	s->app_soft0 = s->soft_total;
}

/* The open run's time to @now, less the hard irqs and softirqs in it. */
ACCT_INLINE __u64 acct_app_run(const struct acct_cpu *s, __u64 now)
{
	__u64 d = acct_net(s, s->app_start, s->app_hard0, now);
	__u64 soft = s->soft_total - s->app_soft0;

	return d > soft ? d - soft : 0;
}

/* The run open on this CPU ends at @now: its own time, 0 when none is
 * open or it is another task's (@pid: the one going off the CPU). */
ACCT_INLINE __u64 acct_app_out(struct acct_cpu *s, __u32 pid, __u64 now)
{
	__u64 d;

	if (!s->app_start || s->app_pid != pid || now < s->app_start) {
		s->app_start = 0;
		return 0;
	}
	d = acct_app_run(s, now);
	s->app_start = 0;
	return d;
}

/* The first switch seen on this CPU takes off the task that was running
 * when the window opened at @start; when that was a pinned thread
 * (@pinned), its run counts from @start, less what this CPU timed since,
 * all of which interrupted it. Call before acct_thread_first(), which
 * marks the switch seen. 0 for any later switch. */
ACCT_INLINE __u64 acct_app_first(const struct acct_cpu *s, int pinned, __u64 start, __u64 now)
{
	__u64 d, nested = s->hard_total + s->soft_total;

	if (s->switched || !pinned || s->app_start || now < start)
		return 0;
	d = now - start;
	return d > nested ? d - nested : 0;
}

/* The window closes at @stop while pinned thread @pid (the task running
 * on this CPU now, if @pinned) may still be on it: a CPU-bound thread
 * alone on its CPU is never switched out, so its run is closed here, by
 * a program user space runs on each CPU once the window is over. Events
 * after @stop are not counted, so the state is the state at @stop. The
 * CPU may have switched since @stop: a run switched in within the window
 * is open still (app_start) whatever runs now; a task that ran through
 * the whole window without a switch is the one running now, give or take
 * a switch in the microseconds since. */
ACCT_INLINE __u64 acct_app_close(struct acct_cpu *s, int pinned, __u64 start, __u64 stop)
{
	__u64 d;

	if (s->app_start) {
		if (stop < s->app_start) {
			s->app_start = 0;
			return 0;
		}
		d = acct_app_run(s, stop);
		s->app_start = 0;
		return d;
	}
	if (s->switched)
		return 0;
	/* No switch in the whole window: nobody else ran here. */
	s->switched = 1;
	if (!pinned || stop < start)
		return 0;
	d = stop - start;
	return d > s->hard_total + s->soft_total ? d - s->hard_total - s->soft_total : 0;
}

#endif
