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
#include <stddef.h>
#include <stdint.h>

#define APPLOAD_REASON_MAX	192
/* The most threads whose stat a run reads at the window's start (proc
 * source): ~25 us of CPU a thread on this project's 2-CPU VM (3 ms for
 * its 130 threads), so ~100 ms at the cap, where a machine of 100,000
 * threads would cost two seconds and more. Processes are taken
 * in /proc's order (ascending PIDs); the rest are not read, and the
 * report says so (capped). */
#define APPLOAD_THREADS_MAX	4096

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
	/* The window's own per CPU id when the load history weighed @cpu
	 * (history.h), for the report; NULL otherwise. */
	double *window;
	unsigned int threads_seen;	/* user threads looked at */
	unsigned int threads_pinned;	/* of them, pinned and counted */
	unsigned int cap;		/* the most threads read (proc); 0: no cap */
	bool capped;			/* more threads than the cap: the rest unread */
};

struct cpuset;
struct source;

/* What /proc/PID/task/TID/stat says of a thread. */
struct appload_stat {
	unsigned long flags;		/* field 9: PF_KTHREAD and friends */
	uint64_t ticks;			/* fields 14 + 15: utime + stime, USER_HZ */
	uint64_t start;			/* field 22: starttime, ticks since boot */
};

/* One user thread, from the window's start. */
struct appthread {
	int pid, tid;
	uint64_t ticks[2], start[2];	/* at each end of the window */
	bool seen[2];
	struct cpuset *allowed;		/* at the end: Cpus_allowed_list & online;
					 * NULL not pinned, or not read */
};

/* The user threads of a run, found at the window's start. */
struct appthreads {
	bool active;			/* to be read at all (appload_decide) */
	bool tree;			/* a test machine's /proc: its processes only */
	char reason[APPLOAD_REASON_MAX];	/* why not, when not */
	unsigned int limit;		/* APPLOAD_THREADS_MAX but for tests */
	const struct cpuset *online, *eligible;	/* borrowed: the topology's */
	unsigned int nr, cap;
	struct appthread *t;
	unsigned int stats_read;	/* stat files read at the start */
	bool capped;
};

/* A stat line: "pid (comm) state ... flags ... utime stime ... starttime
 * ...", whose comm may hold blanks and parentheses. 0 or -EINVAL. */
int appload_parse_stat(const char *buf, struct appload_stat *ret);
/* Cpus_allowed_list of a status file into @set (zeroed first). 0, -EINVAL
 * (missing or malformed) or -ERANGE (a CPU id beyond the set). */
int appload_parse_allowed(const char *buf, struct cpuset *set);
/* Whether a thread allowed on @allowed (online CPUs only) is pinned: it
 * may not run on every CPU of @eligible. */
bool appload_pinned(const struct cpuset *allowed, const struct cpuset *eligible);

/* Whether /proc's processes are the machine's the run reads, so that
 * its pinned threads are: the kernel's own /proc (@native), a replay
 * (what the captured run read), or a test tree that renders its own
 * processes (a /proc that is not procfs). Into @t->active, with the
 * reason when not. */
void appload_decide(struct appthreads *t, bool native, bool replay);

/* Window end @end (0: its start, 1: its end), the stat files kept as
 * members "@tag/proc/PID/task/TID/stat". At the start the user threads
 * are found (at most @t->limit stat files read, kernel threads skipped);
 * at the end those seen are read again, and the status of those that ran
 * meanwhile. 0 or -ENOMEM. */
int appload_sample(struct source *src, const char *tag, struct appthreads *t,
		   unsigned int end);
/* The threads' load per CPU id (< @nr_ids) over a window of @seconds at
 * @hz USER_HZ, into @ret (kind APPLOAD_PROC). Pure. 0 or -ENOMEM. */
int appload_compute(const struct appthreads *t, double seconds, long hz,
		    unsigned int nr_ids, struct appload *ret);
/* Which source gives the run's application load: the kernel program's
 * (@bpf, NULL when it has none) where it has some, else @proc. Both are
 * the caller's; the chosen one is moved into @ret. */
void appload_choose(struct appload *bpf, struct appload *proc, struct appload *ret);

struct topology;
/* What the planner places around (plan_policy.app): per CPU id of @topo,
 * @a's load x @weight in CPUs of the biggest (a thread's time on a
 * smaller CPU is less work), into *@ret; NULL when @weight is 0, nothing
 * was measured or no CPU has any, so that such a plan is today's. 0 or
 * -ENOMEM. Pure. */
int appload_for_plan(const struct appload *a, double weight, const struct topology *topo,
		     double **ret);

void appthreads_release(struct appthreads *t);
void appload_release(struct appload *a);

#endif
