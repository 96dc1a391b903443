// SPDX-License-Identifier: GPL-2.0-or-later
/* bpfload.c - loads the kernel program for one sampling window and reads
 * its maps once at the end. No logging: functions return 0 or -errno and
 * say why in the caller's buffer; the caller reports. Nothing is pinned, so
 * the program goes when the process does, however it ends (a signal in the
 * window included): the links and maps are its file descriptors. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpfload.h"
#include "bpf/irqload.h"
#include "sample.h"
#include "irqload_ctx.lskel.h"
#include "irqload_btf.lskel.h"
#include "irqload_raw.lskel.h"

struct bpfload {
	void *skel;			/* one of the three light skeletons */
	void (*destroy)(void *skel);
	int fd_irq, fd_thread, fd_soft, fd_napi, fd_drops, fd_app;
	int fd_close;			/* the program that closes open runs */
	unsigned int app_cpus;		/* pinned: allowed on fewer; 0: not counted */
	int close_err;			/* why app_close could not run, 0 */
	__u64 *start_ns, *stop_ns;	/* its data section, mmapped */
	int prog_fd[BPFLOAD_MAX_PROGS];
	unsigned int nr_progs;
	int idx_switch;			/* of the sched_switch program, -1 none */
	int switch_err;			/* why it could not be attached, 0 */
	bool threads;			/* it was asked to time irq threads */
	struct measure_probe probe;	/* its own cost per event, measured */
	char probe_note[128];		/* what was measured of it, or why not */
	/* The kernel's run-time statistics over the window (BPF_ENABLE_STATS,
	 * 5.8), and the counts when it opened. */
	int stats_fd;
	__u64 cnt0[BPFLOAD_MAX_PROGS], ns0[BPFLOAD_MAX_PROGS];
	/* ... at the last step, and the cost per run in each step since */
	__u64 cnt1[BPFLOAD_MAX_PROGS], ns1[BPFLOAD_MAX_PROGS];
	double step[BPFLOAD_MAX_PROGS][SAMPLE_TICKS + 1];
	unsigned int nr_steps[BPFLOAD_MAX_PROGS];
	unsigned int nr_cpus;		/* possible CPUs: per-CPU value count */
	int mode;			/* enum mode */
	__u64 start, stop;
};

static __u64 now_ns(void)
{
	struct timespec ts;

	/* bpf_ktime_get_ns() is this clock. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + (__u64)ts.tv_nsec;
}

static int is_fs(const char *path, long magic, const char *what, char *why, size_t len)
{
	struct statfs st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), r = 0;

	/* The descriptor, not the path: a file bound over the kernel's
	 * (lxcfs in containers, the test machines) is what a read gets. */
	if (fd < 0) {
		snprintf(why, len, "cannot open %s: %s", path, strerror(errno));
		return -errno;
	}
	if (fstatfs(fd, &st) < 0) {
		r = -errno;
		snprintf(why, len, "cannot statfs %s: %s", path, strerror(errno));
	} else if (st.f_type != magic) {
		r = -EXDEV;
		snprintf(why, len, "%s is not the kernel's own (not %s)", path, what);
	}
	close(fd);
	return r;
}

int bpfload_native(const char *const *proc_files, const char *const *sys_files,
		   char *why, size_t len)
{
	int r;

	for (; proc_files && *proc_files; proc_files++)
		if ((r = is_fs(*proc_files, PROC_SUPER_MAGIC, "procfs", why, len)) < 0)
			return r;
	for (; sys_files && *sys_files; sys_files++)
		if ((r = is_fs(*sys_files, SYSFS_MAGIC, "sysfs", why, len)) < 0)
			return r;
	return 0;
}

/* The three builds of the program, best first: whole hard-irq contexts
 * need fentry on irq_enter_rcu and irq_exit_rcu; handler-only needs tp_btf
 * (5.5); raw tracepoints work wherever BPF tracing does. All are light
 * skeletons, whose loader relocates in the kernel (5.17). */
enum mode { MODE_CONTEXT, MODE_BTF, MODE_RAW, MODE_NR };

static const char *const mode_name[MODE_NR] = {
	[MODE_CONTEXT] = "whole hard-irq contexts, fentry and tp_btf",
	[MODE_BTF] = "hard-irq handlers, tp_btf",
	[MODE_RAW] = "hard-irq handlers, raw tracepoints",
};

/* Each light skeleton is a type of its own; this is what is needed of it.
 * Its programs are attached one by one: the sched_switch one only where
 * there are irq threads to time, as it runs at every context switch. */
#define OPEN_MODE(fn, type)						\
static int fn(struct bpfload *b, bool threads)				\
{									\
	struct type *s = type##__open();				\
	int r;								\
	bool sw = false;						\
									\
	if (!s)								\
		return errno ? -errno : -EINVAL;			\
	/* Before the load: a constant to the verifier. */		\
	s->rodata->app_cpus = b->app_cpus;				\
	r = type##__load(s);						\
	if (r == 0)							\
		r = ATTACH(type, s);					\
	if (r < 0) {							\
		r = errno ? -errno : r;					\
		type##__destroy(s);					\
		return r;						\
	}								\
	/* Without it the rest still measures; the caller adds the	\
	 * threads' /proc run time instead. */				\
	b->switch_err = 0;						\
	if (threads || b->app_cpus) {					\
		errno = 0;						\
		sw = ATTACH_SWITCH(type, s) == 0;			\
		if (!sw)						\
			b->switch_err = errno ? errno : EINVAL;		\
	}								\
	b->skel = s;							\
	b->destroy = (void (*)(void *))type##__destroy;			\
	b->fd_irq = s->maps.irq_time.map_fd;				\
	b->fd_thread = s->maps.thread_time.map_fd;			\
	b->fd_soft = s->maps.soft_time.map_fd;				\
	b->fd_napi = s->maps.napi_time.map_fd;				\
	b->fd_drops = s->maps.drops.map_fd;				\
	b->fd_app = s->maps.app_time.map_fd;				\
	b->fd_close = s->progs.app_close.prog_fd;			\
	b->start_ns = &s->data->start_ns;				\
	b->stop_ns = &s->data->stop_ns;					\
	PROG_FDS(s);							\
	b->idx_switch = -1;						\
	if (sw) {							\
		b->idx_switch = (int)b->nr_progs;			\
		SWITCH_FD(s);						\
	}								\
	return 0;							\
}

/* The programs' descriptors, for the run counts (missed()). */
#define ADD_FD(p)	(b->prog_fd[b->nr_progs++] = (p).prog_fd)
#define PROG_FDS_TP(s, pre) do {					\
	ADD_FD(s->progs.pre##_hard_entry);				\
	ADD_FD(s->progs.pre##_hard_exit);				\
	ADD_FD(s->progs.pre##_soft_entry);				\
	ADD_FD(s->progs.pre##_soft_exit);				\
	ADD_FD(s->progs.pre##_napi_poll);				\
} while (0)
/* The lskel's attach functions return 0 or a negative error. */
#define ATTACH_TP(type, s, pre)						\
	(type##__##pre##_hard_entry__attach(s) < 0 ||			\
	 type##__##pre##_hard_exit__attach(s) < 0 ||			\
	 type##__##pre##_soft_entry__attach(s) < 0 ||			\
	 type##__##pre##_soft_exit__attach(s) < 0 ||			\
	 type##__##pre##_napi_poll__attach(s) < 0 ? -EINVAL : 0)

#define ATTACH(type, s) ATTACH_TP(type, s, btf)
#define ATTACH_SWITCH(type, s) (type##__btf_switch__attach(s) < 0 ? -EINVAL : 0)
#define SWITCH_FD(s) ADD_FD(s->progs.btf_switch)
#define PROG_FDS(s) PROG_FDS_TP(s, btf)
OPEN_MODE(open_btf, irqload_btf)
#undef PROG_FDS
#undef ATTACH
#define ATTACH(type, s)							\
	(ATTACH_TP(type, s, btf) < 0 || type##__ctx_enter__attach(s) < 0 || \
	 type##__ctx_exit__attach(s) < 0 ? -EINVAL : 0)
#define PROG_FDS(s) do {						\
	PROG_FDS_TP(s, btf);						\
	ADD_FD(s->progs.ctx_enter);					\
	ADD_FD(s->progs.ctx_exit);					\
} while (0)
OPEN_MODE(open_ctx, irqload_ctx)
#undef PROG_FDS
#undef ATTACH
#undef ATTACH_SWITCH
#undef SWITCH_FD
#define ATTACH(type, s) ATTACH_TP(type, s, raw)
#define ATTACH_SWITCH(type, s) (type##__raw_switch__attach(s) < 0 ? -EINVAL : 0)
#define SWITCH_FD(s) ADD_FD(s->progs.raw_switch)
#define PROG_FDS(s) PROG_FDS_TP(s, raw)
OPEN_MODE(open_raw, irqload_raw)
#undef PROG_FDS
#undef ATTACH
#undef ATTACH_SWITCH
#undef SWITCH_FD

_Static_assert(BPFLOAD_BUILD_RAW - BPFLOAD_BUILD_CONTEXT == MODE_RAW &&
	       BPFLOAD_BUILD_HANDLERS - BPFLOAD_BUILD_CONTEXT == MODE_BTF,
	       "enum bpfload_build follows enum mode");

static int (*const open_mode[MODE_NR])(struct bpfload *, bool) = {
	[MODE_CONTEXT] = open_ctx,
	[MODE_BTF] = open_btf,
	[MODE_RAW] = open_raw,
};

/* Runs and run time the kernel counted of each program so far. */
static void prog_counts(const struct bpfload *b, __u64 *cnt, __u64 *ns)
{
	for (unsigned int i = 0; i < b->nr_progs; i++) {
		struct bpf_prog_info info;
		__u32 sz = sizeof(info);

		memset(&info, 0, sizeof(info));
		cnt[i] = ns[i] = 0;
		if (bpf_obj_get_info_by_fd(b->prog_fd[i], &info, &sz) == 0) {
			cnt[i] = info.run_cnt;
			ns[i] = info.run_time_ns;
		}
	}
}

/* Each program's cost per run since the last step, where it ran. */
static void take_step(struct bpfload *b)
{
	__u64 cnt[BPFLOAD_MAX_PROGS], ns[BPFLOAD_MAX_PROGS];

	prog_counts(b, cnt, ns);
	for (unsigned int i = 0; i < b->nr_progs; i++) {
		if (cnt[i] > b->cnt1[i] && ns[i] >= b->ns1[i] && b->nr_steps[i] <= SAMPLE_TICKS)
			b->step[i][b->nr_steps[i]++] = (double)(ns[i] - b->ns1[i]) /
						       (double)(cnt[i] - b->cnt1[i]);
		b->cnt1[i] = cnt[i];
		b->ns1[i] = ns[i];
	}
}

void bpfload_tick(struct bpfload *b)
{
	if (b->stats_fd >= 0)
		take_step(b);
}

/* The programs' own cost per event from what the kernel counted of them
 * over the window: each probe's run inside an interval it times (the
 * entry program after its clock read, the handlers' programs inside a
 * whole context) is a bias per event, which would become a term in the
 * count. */
static void probe_cost(struct bpfload *b)
{
	__u64 cnt[BPFLOAD_MAX_PROGS], ns[BPFLOAD_MAX_PROGS];
	double per[BPFLOAD_MAX_PROGS];

	memset(&b->probe, 0, sizeof(b->probe));
	if (b->stats_fd < 0)
		return;
	take_step(b);
	prog_counts(b, cnt, ns);
	close(b->stats_fd);
	b->stats_fd = -1;
	for (unsigned int i = 0; i < b->nr_progs; i++)
		per[i] = measure_probe_per_run(b->step[i], b->nr_steps[i], cnt[i] - b->cnt0[i],
					       ns[i] - b->ns0[i]);
	/* The order of PROG_FDS_TP, then ctx_enter and ctx_exit, then the
	 * switch program. An entry program reads the clock first: all of
	 * its run is inside the interval it opens. */
	b->probe.hard = per[0];
	b->probe.soft = per[2];
	b->probe.napi = per[4];
	if (b->mode == MODE_CONTEXT)
		b->probe.ctx = per[5] + per[0] + per[1];
	if (b->idx_switch >= 0)
		b->probe.thread = per[b->idx_switch];
	/* Said by measure_probe_note(), from what was measured. */
	b->probe_note[0] = '\0';
}

int bpfload_build_parse(const char *s, enum bpfload_build *ret)
{
	static const char *const names[] = {
		[BPFLOAD_BUILD_CONTEXT] = "context",
		[BPFLOAD_BUILD_HANDLERS] = "handlers",
		[BPFLOAD_BUILD_RAW] = "raw",
	};

	if (!s || !*s) {
		*ret = BPFLOAD_BUILD_ANY;
		return 0;
	}
	for (unsigned int i = BPFLOAD_BUILD_CONTEXT; i <= BPFLOAD_BUILD_RAW; i++)
		if (strcmp(s, names[i]) == 0) {
			*ret = (enum bpfload_build)i;
			return 0;
		}
	return -EINVAL;
}

int bpfload_open(unsigned int nr_irqs, enum bpfload_build build, bool threads,
		 unsigned int app_cpus, struct bpfload **ret, char *why, size_t len)
{
	/* The builds in enum bpfload_build's order, after ANY. */
	enum mode first = MODE_CONTEXT, last = MODE_RAW;
	struct bpfload *b;
	int r = -ENOSYS, possible;

	if (access("/sys/kernel/btf/vmlinux", R_OK) < 0) {
		snprintf(why, len, "the kernel has no BTF (/sys/kernel/btf/vmlinux: %s)",
			 strerror(errno));
		return -ENOENT;
	}
	if (nr_irqs * 4 > IRQLOAD_MAX_IRQ_CPUS) {
		snprintf(why, len, "%u IRQs are more than its map holds", nr_irqs);
		return -E2BIG;
	}
	possible = libbpf_num_possible_cpus();
	if (possible <= 0) {
		snprintf(why, len, "cannot count the possible CPUs: %s", strerror(-possible));
		return possible < 0 ? possible : -EINVAL;
	}
	b = calloc(1, sizeof(*b));
	if (!b) {
		snprintf(why, len, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	b->nr_cpus = (unsigned int)possible;
	/* With one CPU to place IRQs on, no thread is allowed fewer. */
	b->app_cpus = app_cpus > 1 ? app_cpus : 0;
	b->threads = threads;
	if (build != BPFLOAD_BUILD_ANY)
		first = last = (enum mode)(build - BPFLOAD_BUILD_CONTEXT);
	/* Some kernels refuse fentry alone (EPERM on 6.18 guests without
	 * trampolines), so each build is tried in turn; when none loads,
	 * the most basic one's reason is the one worth telling. */
	for (enum mode m = first; m <= last; m++) {
		errno = 0;
		b->nr_progs = 0;
		r = open_mode[m](b, threads);
		if (r == 0) {
			b->mode = (int)m;
			break;
		}
		snprintf(why, len, "the kernel refused the program (%s): %s",
			 mode_name[m], strerror(-r));
	}
	if (r) {
		free(b);
		return r;
	}
	b->stats_fd = -1;
	*ret = b;
	return 0;
}

int bpfload_threads(const struct bpfload *b)
{
	/* Attached for pinned threads alone, it times irq threads too. */
	if (b->idx_switch >= 0)
		return 1;
	return b->threads && b->switch_err ? -b->switch_err : 0;
}

const char *bpfload_probe_note(const struct bpfload *b)
{
	return b->probe_note;
}

void bpfload_start(struct bpfload *b)
{
	/* On for the window only: the statistics cost each run two clock
	 * reads of their own, not counted in it. What cannot be measured
	 * stays 0, and the note says why. */
	if (b->stats_fd >= 0)
		close(b->stats_fd);
	b->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (b->stats_fd < 0)
		snprintf(b->probe_note, sizeof(b->probe_note),
			 "its probes' own cost not measured: BPF_ENABLE_STATS: %s", strerror(errno));
	else
		prog_counts(b, b->cnt0, b->ns0);
	memcpy(b->cnt1, b->cnt0, sizeof(b->cnt1));
	memcpy(b->ns1, b->ns0, sizeof(b->ns1));
	memset(b->nr_steps, 0, sizeof(b->nr_steps));
	b->start = now_ns();
	__atomic_store_n(b->start_ns, b->start, __ATOMIC_RELEASE);
}

/* The pinned threads' runs still open when the window closed, closed at
 * its end on each CPU: app_close run there, in an IPI. An offline CPU
 * runs nothing (ENXIO): none is open there. */
static void close_app_runs(struct bpfload *b)
{
	b->close_err = 0;
	if (!b->app_cpus || b->idx_switch < 0)
		return;
	for (unsigned int c = 0; c < b->nr_cpus; c++) {
		LIBBPF_OPTS(bpf_test_run_opts, o, .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = c);

		if (bpf_prog_test_run_opts(b->fd_close, &o) < 0 && errno != ENXIO &&
		    !b->close_err)
			b->close_err = errno;
	}
}

void bpfload_stop(struct bpfload *b)
{
	b->stop = now_ns();
	__atomic_store_n(b->stop_ns, b->stop, __ATOMIC_RELEASE);
	probe_cost(b);
	close_app_runs(b);
}

int bpfload_app(const struct bpfload *b)
{
	if (!b->app_cpus)
		return 0;
	if (b->idx_switch < 0)
		return -(b->switch_err ? b->switch_err : EINVAL);
	return b->close_err ? -b->close_err : 1;
}

int bpfload_read_app(const struct bpfload *b, uint64_t *ret_ns, uint64_t *ret_runs,
		     unsigned int nr_ids)
{
	struct irqload_app_val *v;
	__u32 zero = 0;

	if (!b->app_cpus || b->idx_switch < 0)
		return -ENODATA;
	v = calloc(b->nr_cpus, sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (bpf_map_lookup_elem(b->fd_app, &zero, v) < 0) {
		int r = -errno;

		free(v);
		return r;
	}
	for (unsigned int c = 0; c < nr_ids; c++) {
		ret_ns[c] = c < b->nr_cpus ? v[c].ns : 0;
		if (ret_runs)
			ret_runs[c] = c < b->nr_cpus ? v[c].runs : 0;
	}
	free(v);
	return 0;
}

const char *bpfload_mode(const struct bpfload *b)
{
	return mode_name[b->mode];
}

/* Runs the kernel skipped (another BPF program of this CPU already running:
 * a nested tracepoint) for every attached program. */
static __u64 missed(const struct bpfload *b)
{
	__u64 n = 0;

	for (unsigned int i = 0; i < b->nr_progs; i++) {
		struct bpf_prog_info info;
		__u32 sz = sizeof(info);

		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(b->prog_fd[i], &info, &sz) == 0)
			n += info.recursion_misses;
	}
	return n;
}

/* Room for one more entry in *@arr of @n, doubling; false: no memory. */
static bool grow(void **arr, unsigned int n, unsigned int *cap, size_t size)
{
	void *p;

	if (n < *cap)
		return true;
	p = reallocarray(*arr, *cap ? *cap * 2 : 64, size);
	if (!p)
		return false;
	*arr = p;
	*cap = *cap ? *cap * 2 : 64;
	return true;
}

/* Entry by entry: the maps hold one entry per (IRQ, CPU) that fired, a few
 * dozen to a few thousand, read once. @take copies one into the raw table;
 * an entry that vanished between the two calls (it cannot: nothing deletes)
 * is skipped. */
static int read_map(int fd, size_t key_size, size_t val_size, unsigned int max,
		    struct measure_raw *raw,
		    int (*take)(struct measure_raw *, const void *key, const void *val))
{
	unsigned char key[32], next[32], val[64];
	void *prev = NULL;
	int r;

	if (key_size > sizeof(key) || val_size > sizeof(val))
		return -EINVAL;
	for (unsigned int n = 0; n < max && bpf_map_get_next_key(fd, prev, next) == 0; n++) {
		memcpy(key, next, key_size);
		prev = key;
		if (bpf_map_lookup_elem(fd, key, val) < 0)
			continue;
		r = take(raw, key, val);
		if (r < 0)
			return r;
	}
	return 0;
}

static int take_irq(struct measure_raw *raw, const void *key, const void *val)
{
	const struct irqload_irq_key *k = key;
	const struct irqload_irq_val *v = val;
	struct measure_irq *e;

	if (!grow((void **)&raw->irqs, raw->nr_irqs, &raw->cap_irqs, sizeof(*raw->irqs)))
		return -ENOMEM;
	e = &raw->irqs[raw->nr_irqs++];
	*e = (struct measure_irq){
		.irq = k->irq, .cpu = k->cpu, .handler_ns = v->handler_ns,
		.ctx_ns = v->ctx_ns, .count = v->count,
	};
	memcpy(e->name, v->name, sizeof(e->name));
	e->name[sizeof(e->name) - 1] = '\0';
	return 0;
}

static int take_thread(struct measure_raw *raw, const void *key, const void *val)
{
	const struct irqload_irq_key *k = key;
	const struct irqload_thread_val *v = val;

	if (!grow((void **)&raw->threads, raw->nr_threads, &raw->cap_threads,
		  sizeof(*raw->threads)))
		return -ENOMEM;
	raw->threads[raw->nr_threads++] = (struct measure_thread){
		.irq = k->irq, .cpu = k->cpu, .ns = v->ns, .runs = v->runs,
		.softs = v->softs, .polls = v->polls,
	};
	return 0;
}

static int take_napi(struct measure_raw *raw, const void *key, const void *val)
{
	const struct irqload_napi_key *k = key;
	const struct irqload_napi_val *v = val;
	struct measure_napi *e;

	if (!grow((void **)&raw->napi, raw->nr_napi, &raw->cap_napi, sizeof(*raw->napi)))
		return -ENOMEM;
	e = &raw->napi[raw->nr_napi++];
	*e = (struct measure_napi){ .cpu = k->cpu, .irq = v->irq, .ns = v->ns, .polls = v->polls };
	memcpy(e->dev, v->dev, sizeof(e->dev));
	e->dev[sizeof(e->dev) - 1] = '\0';
	return 0;
}

int bpfload_read(struct bpfload *b, struct measure_raw **ret)
{
	struct measure_raw *raw = measure_raw_new(b->nr_cpus);
	struct irqload_soft_val *soft = NULL;
	struct irqload_drops *drops = NULL;
	int fd, r = -ENOMEM;
	__u32 zero = 0;

	if (!raw)
		return -ENOMEM;
	soft = calloc(b->nr_cpus, sizeof(*soft));
	drops = calloc(b->nr_cpus, sizeof(*drops));
	if (!soft || !drops)
		goto fail;
	raw->window = (double)(b->stop - b->start) / 1e9;
	raw->use_ctx = b->mode == MODE_CONTEXT;
	fd = b->fd_soft;
	for (__u32 v = 0; v < IRQLOAD_NR_SOFTIRQS; v++) {
		if (bpf_map_lookup_elem(fd, &v, soft) < 0) {
			r = -errno;
			goto fail;
		}
		for (unsigned int c = 0; c < b->nr_cpus; c++) {
			raw->soft_ns[c][v] = soft[c].ns;
			raw->soft_events[c][v] = soft[c].count;
		}
	}
	if (bpf_map_lookup_elem(b->fd_drops, &zero, drops) < 0) {
		r = -errno;
		goto fail;
	}
	for (unsigned int c = 0; c < b->nr_cpus; c++)
		raw->dropped += drops[c].irq_full + drops[c].napi_full;
	raw->missed = missed(b);
	raw->probe = b->probe;
	raw->threads_timed = b->idx_switch >= 0;
	r = bpfload_read_app(b, raw->app_ns, raw->app_runs, b->nr_cpus);
	raw->app_timed = r == 0;
	raw->app_cpus = raw->app_timed ? b->app_cpus : 0;
	if (r == -ENODATA)
		r = 0;
	if (r == 0)
		r = read_map(b->fd_irq, sizeof(struct irqload_irq_key), sizeof(struct irqload_irq_val),
		     IRQLOAD_MAX_IRQ_CPUS, raw, take_irq);
	if (r == 0)
		r = read_map(b->fd_thread, sizeof(struct irqload_irq_key),
			     sizeof(struct irqload_thread_val), IRQLOAD_MAX_IRQ_CPUS, raw, take_thread);
	if (r == 0)
		r = read_map(b->fd_napi, sizeof(struct irqload_napi_key),
			     sizeof(struct irqload_napi_val), IRQLOAD_MAX_NAPI_CPUS, raw, take_napi);
	if (r < 0)
		goto fail;
	free(soft);
	free(drops);
	*ret = raw;
	return 0;
fail:
	free(soft);
	free(drops);
	measure_raw_free(raw);
	return r;
}

static __u64 memlock(int fd)
{
	char path[64], line[128];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %llu", &v) == 1)
			break;
	fclose(f);
	return v;
}

int bpfload_stats(const struct bpfload *b, struct bpfload_stats *ret)
{
	memset(ret, 0, sizeof(*ret));
	for (unsigned int i = 0; i < b->nr_progs && i < BPFLOAD_MAX_PROGS; i++) {
		struct bpf_prog_info info;
		__u32 sz = sizeof(info);

		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(b->prog_fd[i], &info, &sz) < 0)
			return -errno;
		memcpy(ret->prog[i].name, info.name, sizeof(ret->prog[i].name));
		ret->prog[i].name[sizeof(ret->prog[i].name) - 1] = '\0';
		ret->prog[i].run_cnt = info.run_cnt;
		ret->prog[i].run_time_ns = info.run_time_ns;
		ret->nr_progs++;
	}
	ret->map_memlock = memlock(b->fd_irq) + memlock(b->fd_thread) + memlock(b->fd_soft) + memlock(b->fd_napi) +
			   memlock(b->fd_drops) + memlock(b->fd_app);
	return 0;
}

void bpfload_free(struct bpfload *b)
{
	if (!b)
		return;
	if (b->stats_fd >= 0)
		close(b->stats_fd);
	b->destroy(b->skel);
	free(b);
}
