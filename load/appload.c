// SPDX-License-Identifier: GPL-2.0-or-later
/* appload.c - the pinned application threads' run time per CPU, from
 * /proc/PID/task/TID/{stat,status} at both ends of the window (the proc
 * source of appload.h). No logging: a thread that cannot be read, or read
 * whole, is not counted, and the caller says what was measured. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/vfs.h>

#include "appload.h"
#include "cpuset.h"
#include "fileio.h"
#include "pathnames.h"
#include "procfs.h"
#include "source.h"
#include "strutil.h"
#include "topology.h"

/* include/linux/sched.h; as irqthread.c tests it. */
#define PF_KTHREAD	0x00200000UL
/* kthreadd's children: ~5 a CPU, 40,000 at 8192 CPUs; more is not a list
 * of kernel threads to trust. */
#define KTHREADS_LIST_MAX	(1024 * 1024)

/* The fields of a stat line after "pid (comm) ", counted from 0 at state
 * (field 3 of proc(5)). */
enum { ST_FLAGS = 6, ST_UTIME = 11, ST_STIME = 12, ST_START = 19, ST_NEEDED };

int appload_parse_stat(const char *buf, struct appload_stat *ret)
{
	/* The name may hold blanks and parentheses: it ends at the last ')'. */
	const char *open = strchr(buf, '('), *close = strrchr(buf, ')'), *p;
	uint64_t v[ST_NEEDED] = { 0 };
	char field[32];

	if (!open || !close || close < open || close[1] != ' ')
		return -EINVAL;
	p = close + 2;
	for (int i = 0; i < ST_NEEDED; i++) {
		size_t n = strcspn(p, " \n");

		if (n == 0)
			return -EINVAL;
		if (i == ST_FLAGS || i == ST_UTIME || i == ST_STIME || i == ST_START) {
			if (n >= sizeof(field))
				return -EINVAL;
			memcpy(field, p, n);
			field[n] = '\0';
			if (parse_u64(field, UINT64_MAX, &v[i]) < 0)
				return -EINVAL;
		}
		p += n;
		if (i + 1 < ST_NEEDED) {
			if (*p != ' ')
				return -EINVAL;
			p++;
		}
	}
	/* Two counters that wrap would need 5.8e9 years at USER_HZ 100. */
	if (v[ST_UTIME] > UINT64_MAX - v[ST_STIME] || v[ST_FLAGS] > UINT32_MAX)
		return -EINVAL;
	ret->flags = (unsigned long)v[ST_FLAGS];
	ret->ticks = v[ST_UTIME] + v[ST_STIME];
	ret->start = v[ST_START];
	return 0;
}

bool appload_pinned(const struct cpuset *allowed, const struct cpuset *eligible)
{
	for (int c = cpuset_first(eligible); c >= 0; c = cpuset_next(eligible, c))
		if (!cpuset_test(allowed, (unsigned int)c))
			return true;
	return false;
}

/* Whether @dir opens to the kernel's procfs (as source_subdirs() opens
 * it); one that cannot be opened is taken for it, and not read. */
static bool is_procfs(const char *dir)
{
	struct statfs st;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bool r;

	if (fd < 0)
		return true;
	r = fstatfs(fd, &st) < 0 || st.f_type == PROC_SUPER_MAGIC;
	close(fd);
	return r;
}

void appload_decide(struct appthreads *t, bool native, bool replay)
{
	t->tree = false;
	t->active = native || replay;
	t->reason[0] = '\0';
	if (t->active)
		return;
	/* The directory a listing of /proc reads: a test machine's tree
	 * (umockdev's redirection) renders the machine's own threads; the
	 * kernel's procfs under test files, or under a container's
	 * bound-over ones, lists this host's or container's. */
	t->active = t->tree = !is_procfs(_PATH_PROC "/");
	if (!t->active)
		snprintf(t->reason, sizeof(t->reason), "not measured: /proc/interrupts is not "
			 "the kernel's own, so its processes are not the machine's");
}

/* Scratch of the walk at the window's start. */
struct walk {
	struct source *src;
	const char *tag;
	struct appthreads *t;
	int *kthreads;			/* sorted; NULL: none known */
	size_t nr_kthreads;
	int pid;
};

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* The kernel threads' PIDs, from kthreadd's children, so that a machine
 * with tens of thousands of them spends no stat read on them: only where
 * the kernel lists them (CONFIG_PROC_CHILDREN). -ENOMEM only. */
static int known_kthreads(struct walk *w)
{
	char *buf = malloc(KTHREADS_LIST_MAX), *p, *save = NULL;
	size_t cap = 0;
	uint64_t v;

	if (!buf)
		return -ENOMEM;
	if (source_read(w->src, _PATH_PROC_KTHREADS, buf, KTHREADS_LIST_MAX) < 0) {
		free(buf);
		return 0;
	}
	for (p = strtok_r(buf, " \n", &save); p; p = strtok_r(NULL, " \n", &save)) {
		if (parse_u64(p, INT32_MAX, &v) < 0)
			continue;
		if (w->nr_kthreads == cap) {
			int *n = reallocarray(w->kthreads, cap ? cap * 2 : 256, sizeof(*n));

			if (!n) {
				free(buf);
				return -ENOMEM;
			}
			w->kthreads = n;
			cap = cap ? cap * 2 : 256;
		}
		w->kthreads[w->nr_kthreads++] = (int)v;
	}
	free(buf);
	if (w->kthreads)
		qsort(w->kthreads, w->nr_kthreads, sizeof(*w->kthreads), cmp_int);
	return 0;
}

static bool is_kthread(const struct walk *w, int pid)
{
	/* kthreadd itself (PID 2) is no child of its own. */
	return pid == 2 || (w->kthreads &&
			    bsearch(&pid, w->kthreads, w->nr_kthreads, sizeof(pid), cmp_int));
}

static int add(struct appthreads *t, int pid, int tid, const struct appload_stat *s)
{
	if (t->nr == t->cap) {
		unsigned int cap = t->cap ? t->cap * 2 : 64;
		struct appthread *n = reallocarray(t->t, cap, sizeof(*n));

		if (!n)
			return -ENOMEM;
		t->t = n;
		t->cap = cap;
	}
	t->t[t->nr++] = (struct appthread){
		.pid = pid, .tid = tid, .ticks[0] = s->ticks, .start[0] = s->start,
		.seen[0] = true,
	};
	return 0;
}

static void stat_path(char *buf, size_t len, int pid, int tid, const char *file)
{
	snprintf(buf, len, "%s/%d/task/%d/%s", _PATH_PROC, pid, tid, file);
}

/* One thread of w->pid: a user thread is kept. 1 stops the walk at the
 * cap. */
static int consider_thread(void *ctx, const char *name)
{
	struct walk *w = ctx;
	struct appload_stat s;
	char path[96], buf[1024];
	uint64_t tid;

	if (parse_u64(name, INT32_MAX, &tid) < 0 || tid == 0)
		return 0;
	if (w->t->stats_read >= w->t->limit) {
		w->t->capped = true;
		return 1;
	}
	w->t->stats_read++;
	stat_path(path, sizeof(path), w->pid, (int)tid, "stat");
	/* Gone meanwhile (ENOENT, ESRCH), malformed, or the kernel's. */
	if (source_read_tag(w->src, w->tag, path, buf, sizeof(buf)) < 0 ||
	    appload_parse_stat(buf, &s) < 0 || (s.flags & PF_KTHREAD))
		return 0;
	return add(w->t, w->pid, (int)tid, &s);
}

static int consider_process(void *ctx, const char *name)
{
	struct walk *w = ctx;
	char path[64];
	uint64_t pid;

	if (parse_u64(name, INT32_MAX, &pid) < 0 || pid == 0 || is_kthread(w, (int)pid))
		return 0;
	if (w->t->stats_read >= w->t->limit) {
		w->t->capped = true;
		return 1;
	}
	w->pid = (int)pid;
	snprintf(path, sizeof(path), "%s/%d/task", _PATH_PROC, w->pid);
	/* A test tree's process without threads of its own there would be
	 * this host's (umockdev passes what the tree lacks through). */
	if (w->t->tree && is_procfs(path))
		return 0;
	return source_subdirs(w->src, path, consider_thread, w);
}

static void forget(struct appthreads *t)
{
	for (unsigned int i = 0; t->t && i < t->nr; i++)
		cpuset_free(t->t[i].allowed);
	t->nr = 0;
	t->stats_read = 0;
	t->capped = false;
}

static int find(struct source *src, const char *tag, struct appthreads *t)
{
	struct walk w = { .src = src, .tag = tag, .t = t };
	int r;

	forget(t);		/* a window taken again starts afresh */
	/* A test tree that lacks the list would read this host's. */
	r = t->tree ? 0 : known_kthreads(&w);
	if (r == 0)
		r = source_subdirs(src, _PATH_PROC, consider_process, &w);
	free(w.kthreads);
	return r < 0 ? r : 0;
}

/* Thread @e at the window's end: its stat, and when it ran meanwhile and
 * is the same thread, the CPUs it may run on. -ENOMEM only. */
static int again(struct source *src, const char *tag, struct appthreads *t,
		 struct appthread *e)
{
	struct appload_stat s;
	char path[96], buf[4096];
	struct cpuset *set, *wide;

	stat_path(path, sizeof(path), e->pid, e->tid, "stat");
	e->seen[1] = source_read_tag(src, tag, path, buf, sizeof(buf)) >= 0 &&
		     appload_parse_stat(buf, &s) == 0 && !(s.flags & PF_KTHREAD);
	if (!e->seen[1])
		return 0;	/* exited in the window: not counted */
	e->ticks[1] = s.ticks;
	e->start[1] = s.start;
	/* Another thread under a reused TID started later; an idle one adds
	 * nothing, and spares its status read. */
	if (e->start[1] != e->start[0] || e->ticks[1] <= e->ticks[0])
		return 0;
	stat_path(path, sizeof(path), e->pid, e->tid, "status");
	if (source_read(src, path, buf, sizeof(buf)) < 0)
		return 0;
	/* A cpuset may name CPUs that are offline, or beyond those this
	 * machine has: the thread runs on the online ones. */
	wide = cpuset_new(CPU_ID_LIMIT);
	set = cpuset_new(t->online->nbits);
	if (!wide || !set) {
		cpuset_free(wide);
		cpuset_free(set);
		return -ENOMEM;
	}
	if (procfs_parse_cpus_allowed(buf, wide) == 0)
		for (int c = cpuset_first(wide); c >= 0; c = cpuset_next(wide, c))
			if (cpuset_test(t->online, (unsigned int)c))
				cpuset_set(set, (unsigned int)c);
	cpuset_free(wide);
	/* Malformed, or only offline CPUs: not counted. */
	if (cpuset_count(set) == 0 || !appload_pinned(set, t->eligible)) {
		cpuset_free(set);
		return 0;
	}
	e->allowed = set;
	return 0;
}

int appload_sample(struct source *src, const char *tag, struct appthreads *t,
		   unsigned int end)
{
	int r;

	if (!t->active || !t->online || !t->eligible)
		return 0;
	if (end == 0) {
		r = find(src, tag, t);
	} else {
		r = 0;
		for (unsigned int i = 0; i < t->nr && r == 0; i++)
			r = again(src, tag, t, &t->t[i]);
	}
	if (r < 0) {
		/* Half a window's threads tell nothing: none counted. */
		forget(t);
		t->active = false;
		snprintf(t->reason, sizeof(t->reason), "not measured: %s", strerror(-r));
	}
	return r;
}

int appload_compute(const struct appthreads *t, double seconds, long hz,
		    unsigned int nr_ids, struct appload *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->cap = t->limit;
	ret->capped = t->capped;
	ret->threads_seen = t->nr;
	if (!(seconds > 0) || hz <= 0) {
		snprintf(ret->reason, sizeof(ret->reason), "not measured: no window");
		return 0;
	}
	ret->cpu = calloc(nr_ids ? nr_ids : 1, sizeof(*ret->cpu));
	if (!ret->cpu)
		return -ENOMEM;
	ret->kind = APPLOAD_PROC;
	ret->nr_ids = nr_ids;
	snprintf(ret->reason, sizeof(ret->reason),
		 "/proc/PID/task/TID/stat at both ends of the window");
	for (unsigned int i = 0; i < t->nr; i++) {
		const struct appthread *e = &t->t[i];
		unsigned int n = 0;
		double d;

		if (!e->allowed || !e->seen[0] || !e->seen[1] || e->start[0] != e->start[1] ||
		    e->ticks[1] <= e->ticks[0])
			continue;
		for (int c = cpuset_first(e->allowed); c >= 0 && (unsigned int)c < nr_ids;
		     c = cpuset_next(e->allowed, c))
			n++;
		if (n == 0)
			continue;
		/* /proc cannot tell on which of its CPUs a thread ran: stat's
		 * "processor" is only the last one. Spread evenly, it is right
		 * for one CPU and for a thread the scheduler moves about, and
		 * the planner sees the set as loaded, not one CPU of it. */
		d = (double)(e->ticks[1] - e->ticks[0]) / (double)hz / seconds / n;
		for (int c = cpuset_first(e->allowed); c >= 0 && (unsigned int)c < nr_ids;
		     c = cpuset_next(e->allowed, c))
			ret->cpu[c] += d;
		ret->threads_pinned++;
	}
	/* Tick sampling over a short window can overshoot; no CPU runs more
	 * than itself. */
	for (unsigned int c = 0; c < nr_ids; c++)
		if (ret->cpu[c] > 1.0)
			ret->cpu[c] = 1.0;
	return 0;
}

void appload_choose(struct appload *bpf, struct appload *proc, struct appload *ret)
{
	/* The program sees every switch of every thread, on the CPU it ran
	 * on: believed over /proc's spread estimate whenever it has some. */
	struct appload *from = bpf && bpf->kind == APPLOAD_BPF && bpf->cpu ? bpf : proc;

	*ret = *from;
	memset(from, 0, sizeof(*from));
	if (from == bpf)
		appload_release(proc);
	else if (bpf)
		appload_release(bpf);
}

int appload_for_plan(const struct appload *a, double weight, const struct topology *topo,
		     double **ret)
{
	unsigned int n = topo->nr_ids < a->nr_ids ? topo->nr_ids : a->nr_ids;
	bool any = false;
	double *v;

	*ret = NULL;
	if (!(weight > 0) || a->kind == APPLOAD_NONE || !a->cpu)
		return 0;
	for (unsigned int c = 0; c < n; c++)
		any |= a->cpu[c] > 0 && topo->cpus[c].online;
	if (!any)
		return 0;
	v = calloc(topo->nr_ids, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (unsigned int c = 0; c < n; c++)
		if (topo->cpus[c].online)
			v[c] = a->cpu[c] * weight * topology_capacity(topo, c) / CAPACITY_SCALE;
	*ret = v;
	return 0;
}

void appthreads_release(struct appthreads *t)
{
	if (!t)
		return;
	forget(t);
	free(t->t);
	t->t = NULL;
	t->cap = 0;
}

void appload_release(struct appload *a)
{
	if (!a)
		return;
	free(a->cpu);
	free(a->window);
	memset(a, 0, sizeof(*a));
}
