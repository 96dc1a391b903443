// SPDX-License-Identifier: GPL-2.0-or-later
/* app.c - application threads on a simulated machine: the processes a
 * balancer should place IRQs around. Each thread asks for a share of a CPU
 * (its load), spread evenly over the online CPUs it may run on, as the
 * scheduler would over a window; a CPU gives threads what its IRQs and
 * background leave (interrupts preempt them), and their utime and stime
 * advance by what they got. Rendered as a kernel shows them:
 * /proc/PID/{stat,status,comm} and /proc/PID/task/TID/{stat,status}
 * (utime, stime, starttime, processor, flags with PF_KTHREAD for kernel
 * threads; Cpus_allowed and Cpus_allowed_list). Also the kubelet's CPU
 * manager state file of a Kubernetes node, for pods' containers.
 * README.md, "Application threads", has the description syntax. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

#define PF_KTHREAD	0x00200000
#define FLAGS_USER	0x00400100	/* PF_RANDOMIZE | PF_FORKNOEXEC */
#define FLAGS_KERNEL	(PF_KTHREAD | 0x8040)	/* + PF_NOFREEZE | PF_FORKNOEXEC */

struct sim_thread *sim_add_thread(struct sim *s)
{
	struct sim_thread *t;

	if (s->nr_threads % 16 == 0) {
		t = realloc(s->threads, (s->nr_threads + 16) * sizeof(*t));
		if (!t)
			return NULL;
		s->threads = t;
	}
	t = &s->threads[s->nr_threads];
	memset(t, 0, sizeof(*t));
	t->cpus = sim_set_new(s);
	if (!t->cpus)
		return NULL;
	s->nr_threads++;
	return t;
}

static bool eligible(const struct sim_cpu *c)
{
	return c->online && !c->isolated && !c->nohz_full;
}

/* The online CPUs @t may run on. */
static unsigned int online_allowed(const struct sim *s, const struct sim_thread *t)
{
	unsigned int n = 0;

	for (unsigned int c = 0; c < s->nr_cpus; c++)
		n += s->cpu[c].online && sim_set_test(t->cpus, c);
	return n;
}

bool sim_thread_pinned(const struct sim *s, const struct sim_thread *t)
{
	unsigned int elig = 0;

	if (t->kernel)
		return false;
	for (unsigned int c = 0; c < s->nr_cpus; c++)
		elig += eligible(&s->cpu[c]);
	return online_allowed(s, t) < elig;
}

/* Add each thread's load (times @f of it: 1, its user or its system
 * share) evenly over its allowed online CPUs to @ret. */
static void spread(const struct sim *s, const struct sim_thread *t, double f,
		   double *ret)
{
	unsigned int n = online_allowed(s, t);

	for (unsigned int c = 0; n && c < s->nr_cpus; c++)
		if (s->cpu[c].online && sim_set_test(t->cpus, c))
			ret[c] += t->load * f / n;
}

void sim_app_load(const struct sim *s, double *ret)
{
	memset(ret, 0, s->nr_cpus * sizeof(*ret));
	for (unsigned int i = 0; i < s->nr_threads; i++)
		if (sim_thread_pinned(s, &s->threads[i]))
			spread(s, &s->threads[i], 1.0, ret);
}

void sim_app_demand(const struct sim *s, double *user, double *sys)
{
	memset(user, 0, s->nr_cpus * sizeof(*user));
	memset(sys, 0, s->nr_cpus * sizeof(*sys));
	for (unsigned int i = 0; i < s->nr_threads; i++) {
		const struct sim_thread *t = &s->threads[i];

		spread(s, t, 1.0 - t->sys, user);
		spread(s, t, t->sys, sys);
	}
}

void sim_app_advance(struct sim *s, const double *grant, double dt)
{
	for (unsigned int i = 0; i < s->nr_threads; i++) {
		struct sim_thread *t = &s->threads[i];
		unsigned int n = online_allowed(s, t);
		double got = 0, ticks;

		for (unsigned int c = 0; n && c < s->nr_cpus; c++)
			if (s->cpu[c].online && sim_set_test(t->cpus, c))
				got += t->load / n * grant[c];
		ticks = got * dt * s->hz;
		/* like sim_acc's other counters: whole ticks, a remainder */
		t->utime.frac += ticks * (1.0 - t->sys);
		t->stime.frac += ticks * t->sys;
		t->utime.n += (uint64_t)t->utime.frac;
		t->utime.frac -= (double)(uint64_t)t->utime.frac;
		t->stime.n += (uint64_t)t->stime.frac;
		t->stime.frac -= (double)(uint64_t)t->stime.frac;
	}
}

void sim_app_save(const struct sim *s, struct sim_buf *b)
{
	char list[16384];

	for (unsigned int i = 0; i < s->nr_threads; i++) {
		const struct sim_thread *t = &s->threads[i];

		sim_set_list(s, t->cpus, list, sizeof(list));
		sim_buf_printf(b, "thr %u %u %d %.17g %.17g %llu %llu:%.17g "
			       "%llu:%.17g %s %s %s %s\n", t->tgid, t->tid,
			       t->kernel, t->load, t->sys,
			       (unsigned long long)t->start,
			       (unsigned long long)t->utime.n, t->utime.frac,
			       (unsigned long long)t->stime.n, t->stime.frac,
			       list[0] ? list : "-", t->comm,
			       t->pod[0] ? t->pod : "-",
			       t->container[0] ? t->container : "-");
	}
}

static int acc_parse(const char *str, struct sim_acc *a)
{
	unsigned long long n;
	int used = 0;

	if (sscanf(str, "%llu:%lf%n", &n, &a->frac, &used) != 2 || str[used])
		return -EINVAL;
	a->n = n;
	return 0;
}

int sim_app_load_line(struct sim *s, char *rest)
{
	char *f[13], *save = NULL;
	struct sim_thread *t;
	unsigned long u[4];
	int n = 0;

	for (char *p = strtok_r(rest, " ", &save); p && n < 13;
	     p = strtok_r(NULL, " ", &save))
		f[n++] = p;
	if (n != 12)
		return -EINVAL;
	t = sim_add_thread(s);
	if (!t)
		return -ENOMEM;
	if (sim_parse_uint(f[0], 4194304, &u[0]) < 0 ||
	    sim_parse_uint(f[1], 4194304, &u[1]) < 0 ||
	    sim_parse_uint(f[2], 1, &u[2]) < 0 ||
	    sim_parse_double(f[3], &t->load) < 0 ||
	    sim_parse_double(f[4], &t->sys) < 0 ||
	    sim_parse_uint(f[5], ULONG_MAX, &u[3]) < 0 ||
	    acc_parse(f[6], &t->utime) < 0 || acc_parse(f[7], &t->stime) < 0 ||
	    (strcmp(f[8], "-") != 0 &&
	     sim_parse_list(s, f[8], strlen(f[8]), t->cpus) < 0))
		return -EINVAL;
	t->tgid = (unsigned int)u[0];
	t->tid = (unsigned int)u[1];
	t->kernel = u[2];
	t->start = u[3];
	snprintf(t->comm, sizeof(t->comm), "%s", f[9]);
	if (strcmp(f[10], "-") != 0)
		snprintf(t->pod, sizeof(t->pod), "%s", f[10]);
	if (strcmp(f[11], "-") != 0)
		snprintf(t->container, sizeof(t->container), "%s", f[11]);
	return 0;
}

int sim_app_exit(struct sim *s, unsigned int pid)
{
	unsigned int k = 0, tgid = 0;
	bool whole = false;
	char rel[64];

	for (unsigned int i = 0; i < s->nr_threads; i++)
		if (s->threads[i].tid == pid) {
			tgid = s->threads[i].tgid;
			whole = tgid == pid;
		}
	if (!tgid)
		return -ENOENT;
	for (unsigned int i = 0; i < s->nr_threads; i++) {
		struct sim_thread *t = &s->threads[i];

		if (whole ? t->tgid == tgid : t->tid == pid)
			free(t->cpus);
		else
			s->threads[k++] = *t;
	}
	s->nr_threads = k;
	if (whole)
		snprintf(rel, sizeof(rel), "proc/%u", tgid);
	else
		snprintf(rel, sizeof(rel), "proc/%u/task/%u", tgid, pid);
	return sim_rm_rf(s->dir, rel);
}

int sim_app_reuse(struct sim *s, unsigned int pid)
{
	bool found = false;

	for (unsigned int i = 0; i < s->nr_threads; i++) {
		struct sim_thread *t = &s->threads[i];

		if (t->tgid != pid)
			continue;
		found = true;
		t->utime = (struct sim_acc){ 0 };
		t->stime = (struct sim_acc){ 0 };
		/* starttime in ticks since boot: the model's clock is it */
		t->start = (uint64_t)(s->time * s->hz);
	}
	return found ? 0 : -ENOENT;
}

/* The CPU a thread last ran on: one of its allowed online CPUs, by its
 * TID, so that threads sharing a set show different ones. */
static int processor(const struct sim *s, const struct sim_thread *t)
{
	unsigned int n = online_allowed(s, t), k;

	if (!n)
		return 0;
	k = t->tid % n;
	for (unsigned int c = 0; c < s->nr_cpus; c++)
		if (s->cpu[c].online && sim_set_test(t->cpus, c) && k-- == 0)
			return (int)c;
	return 0;
}

/* A stat line (proc_pid_stat(): 52 fields) for thread @t, or for its
 * whole process (@threads > 0: the summed times of its threads). */
static void put_stat(const struct sim *s, struct sim_buf *b,
		     const struct sim_thread *t, unsigned int id,
		     unsigned int threads, uint64_t utime, uint64_t stime)
{
	sim_buf_printf(b, "%u (%s) %c %u %u %u 0 -1 %u 0 0 0 0 %llu %llu 0 0 "
		       "20 0 %u 0 %llu %llu %u 18446744073709551615 "
		       "0 0 0 0 0 0 0 0 0 0 0 0 17 %d 0 0 0 0 0 "
		       "0 0 0 0 0 0 0 0\n", id, t->comm,
		       t->load > 0 ? 'R' : 'S', t->kernel ? 2 : 1, t->tgid,
		       t->kernel ? 0 : t->tgid,
		       t->kernel ? FLAGS_KERNEL : FLAGS_USER,
		       (unsigned long long)utime, (unsigned long long)stime,
		       threads, (unsigned long long)t->start,
		       t->kernel ? 0ULL : 4096ULL * 1024, t->kernel ? 0 : 512,
		       processor(s, t));
}

static void put_status(const struct sim *s, struct sim_buf *b,
		       const struct sim_thread *t, unsigned int id,
		       unsigned int threads)
{
	char list[16384], mask[16384];

	sim_set_list(s, t->cpus, list, sizeof(list));
	sim_set_mask(s, t->cpus, mask, sizeof(mask));
	sim_buf_printf(b, "Name:\t%s\nUmask:\t0022\nState:\t%s\nTgid:\t%u\n"
		       "Ngid:\t0\nPid:\t%u\nPPid:\t%u\nTracerPid:\t0\n"
		       "Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nThreads:\t%u\n"
		       "Cpus_allowed:\t%s\nCpus_allowed_list:\t%s\n"
		       "Mems_allowed:\t1\nMems_allowed_list:\t0\n"
		       "voluntary_ctxt_switches:\t10\n"
		       "nonvoluntary_ctxt_switches:\t1\n", t->comm,
		       t->load > 0 ? "R (running)" : "S (sleeping)", t->tgid,
		       id, t->kernel ? 2 : 1, threads, mask, list);
}

static int put(const struct sim *s, struct sim_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int put(const struct sim *s, struct sim_buf *b, const char *fmt, ...)
{
	char rel[96];
	va_list ap;
	int r;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	r = b->oom ? -ENOMEM : sim_put_atomic(s->dir, rel, b->p, b->len);
	sim_buf_reset(b);
	return r;
}

/* Process @i's files: threads i.. share its TGID (they are adjacent). */
static int render_process(const struct sim *s, unsigned int i, unsigned int n,
			  bool all, struct sim_buf *b)
{
	const struct sim_thread *m = &s->threads[i];
	uint64_t ut = 0, st = 0;
	char rel[96];
	int r = 0;

	for (unsigned int k = i; k < i + n; k++) {
		ut += s->threads[k].utime.n;
		st += s->threads[k].stime.n;
	}
	for (unsigned int k = i; all && r == 0 && k < i + n; k++) {
		snprintf(rel, sizeof(rel), "proc/%u/task/%u", m->tgid,
			 s->threads[k].tid);
		r = sim_mkdirs(s->dir, rel);
	}
	if (r == 0 && all) {
		sim_buf_printf(b, "%s\n", m->comm);
		r = put(s, b, "proc/%u/comm", m->tgid);
	}
	if (r == 0) {
		put_stat(s, b, m, m->tgid, n, ut, st);
		r = put(s, b, "proc/%u/stat", m->tgid);
	}
	if (r == 0) {
		put_status(s, b, m, m->tgid, n);
		r = put(s, b, "proc/%u/status", m->tgid);
	}
	for (unsigned int k = i; r == 0 && k < i + n; k++) {
		const struct sim_thread *t = &s->threads[k];

		put_stat(s, b, t, t->tid, n, t->utime.n, t->stime.n);
		r = put(s, b, "proc/%u/task/%u/stat", t->tgid, t->tid);
		if (r == 0) {
			put_status(s, b, t, t->tid, n);
			r = put(s, b, "proc/%u/task/%u/status", t->tgid, t->tid);
		}
	}
	return r;
}

int sim_app_render(const struct sim *s, bool all)
{
	struct sim_buf b = { 0 };
	int r = 0;

	for (unsigned int i = 0, n; r == 0 && i < s->nr_threads; i += n) {
		for (n = 1; i + n < s->nr_threads &&
		     s->threads[i + n].tgid == s->threads[i].tgid; n++)
			;
		r = render_process(s, i, n, all, &b);
	}
	sim_buf_free(&b);
	return r;
}

/* The containers of pods, each once with the union of its threads' CPUs,
 * as "entries" of either layout. */
static void put_entries(const struct sim *s, struct sim_buf *b,
			enum sim_kubelet layout, uint64_t *excl)
{
	uint64_t *set = sim_set_new(s);
	char list[16384];
	bool first_pod = true, any = false;

	if (!set) {
		b->oom = true;
		return;
	}
	for (unsigned int i = 0; i < s->nr_threads; i++) {
		const struct sim_thread *t = &s->threads[i];
		bool seen = false, first = true;

		for (unsigned int k = 0; k < i && !seen; k++)
			seen = strcmp(s->threads[k].pod, t->pod) == 0;
		if (!t->pod[0] || seen)
			continue;
		if (layout == KUBELET_V2)
			sim_buf_printf(b, "%s\"%s\":{", first_pod ? "" : ",", t->pod);
		first_pod = false;
		for (unsigned int k = i; k < s->nr_threads; k++) {
			const struct sim_thread *c = &s->threads[k];

			seen = false;
			for (unsigned int j = i; j < k && !seen; j++)
				seen = strcmp(s->threads[j].pod, c->pod) == 0 &&
				       strcmp(s->threads[j].container, c->container) == 0;
			if (strcmp(c->pod, t->pod) != 0 || seen)
				continue;
			sim_set_zero(s, set);
			for (unsigned int j = k; j < s->nr_threads; j++)
				if (strcmp(s->threads[j].pod, c->pod) == 0 &&
				    strcmp(s->threads[j].container, c->container) == 0)
					for (unsigned int w = 0; w < s->nwords; w++)
						set[w] |= s->threads[j].cpus[w];
			for (unsigned int w = 0; w < s->nwords; w++)
				excl[w] |= set[w];
			sim_set_list(s, set, list, sizeof(list));
			/* v1 keys entries by container ID: the pod UID and
			 * the name stand in for one */
			if (layout == KUBELET_V2)
				sim_buf_printf(b, "%s\"%s\":\"%s\"", first ? "" : ",",
					       c->container, list);
			else
				sim_buf_printf(b, "%s\"%s-%s\":\"%s\"",
					       any ? "," : "", c->pod, c->container,
					       list);
			first = false;
			any = true;
		}
		if (layout == KUBELET_V2)
			sim_buf_putc(b, '}');
	}
	free(set);
}

int sim_kubelet_render(const struct sim *s, enum sim_kubelet layout,
		       const char *policy, long truncate)
{
	struct sim_buf e = { 0 }, b = { 0 };
	uint64_t *excl = sim_set_new(s), *def = sim_set_new(s);
	char list[16384];
	int r;

	if (!excl || !def) {
		free(excl);
		free(def);
		return -ENOMEM;
	}
	if (strcmp(policy, "static") == 0)
		put_entries(s, &e, layout, excl);
	for (unsigned int c = 0; c < s->nr_cpus; c++)
		if (s->cpu[c].online && !sim_set_test(excl, c))
			sim_set_add(def, c);
	sim_set_list(s, def, list, sizeof(list));
	/* checkpoint.go's field order; the checksum is the kubelet's FNV-32a
	 * of the rest, which no reader here verifies: a fixed number */
	sim_buf_printf(&b, "{\"policyName\":\"%s\",\"defaultCpuSet\":\"%s\","
		       "\"entries\":{%s},\"checksum\":%u}", policy, list,
		       e.p ? e.p : "", layout == KUBELET_V2 ? 1844674407u : 3360421611u);
	r = sim_mkdirs(s->dir, "var/lib/kubelet");
	if (r == 0)
		r = b.oom || e.oom ? -ENOMEM :
		    sim_put_atomic(s->dir, "var/lib/kubelet/cpu_manager_state", b.p,
				   truncate > 0 && (size_t)truncate < b.len ?
				   (size_t)truncate : b.len);
	sim_buf_free(&e);
	sim_buf_free(&b);
	free(excl);
	free(def);
	return r;
}

void sim_app_figures(const struct sim *s, const double *irq, const double *app,
		     double *ret_pct, double *ret_on_app, double *ret_whole,
		     int *ret_cpu)
{
	double total = 0, on = 0, whole = -1;
	int cpu = -1;

	for (unsigned int c = 0; c < s->nr_cpus; c++) {
		if (!s->cpu[c].online)
			continue;
		total += irq[c];
		if (app[c] > SIM_APP_BUSY)
			on += irq[c];
		if (irq[c] + app[c] > whole) {
			whole = irq[c] + app[c];
			cpu = (int)c;
		}
	}
	*ret_pct = total > 0 ? 100.0 * on / total : 0;
	*ret_on_app = on;
	*ret_whole = whole < 0 ? 0 : whole;
	*ret_cpu = cpu;
}

void sim_app_score(const struct sim *s, const double *irq, FILE *out)
{
	double *app, pct, on, whole, sum = 0;
	unsigned int cpus = 0, pinned = 0;
	int cpu;

	if (!s->nr_threads)
		return;
	app = calloc(s->nr_cpus, sizeof(*app));
	if (!app)
		return;
	sim_app_load(s, app);
	for (unsigned int c = 0; c < s->nr_cpus; c++) {
		sum += app[c];
		cpus += s->cpu[c].online && app[c] > SIM_APP_BUSY;
	}
	for (unsigned int i = 0; i < s->nr_threads; i++)
		pinned += sim_thread_pinned(s, &s->threads[i]);
	sim_app_figures(s, irq, app, &pct, &on, &whole, &cpu);
	fprintf(out, "app_threads %u\n", s->nr_threads);
	fprintf(out, "app_pinned_threads %u\n", pinned);
	fprintf(out, "app_load %.6f\n", sum);
	fprintf(out, "app_cpus %u\n", cpus);
	fprintf(out, "irq_on_app_load %.6f\n", on);
	fprintf(out, "irq_on_app_pct %.2f\n", pct);
	fprintf(out, "whole_max_load %.6f\n", whole);
	fprintf(out, "whole_max_load_cpu %d\n", cpu);
	free(app);
}

void sim_app_measure(const struct sim *s, double from, double to, FILE *out)
{
	double *busy = calloc(s->nr_cpus, sizeof(*busy));
	double *pin = calloc(s->nr_cpus, sizeof(*pin));
	double *user = calloc(s->nr_cpus, sizeof(*user));
	double *sys = calloc(s->nr_cpus, sizeof(*sys));
	double dt = to - from;
	unsigned int elig = 0;

	if (!busy || !pin || !user || !sys || !(dt > 0))
		goto out_free;
	for (unsigned int i = 0; i < s->nr_irqs; i++) {
		const struct sim_irq *q = &s->irqs[i];
		double f = 0;

		if (q->eff < 0 || !s->cpu[q->eff].online || q->rate <= 0)
			continue;
		/* the window's mean noise factor, as sim_step sums it */
		for (double t = from; t < to; t += dt / 64)
			f += sim_noise_factor(s, q, t + dt / 128) / 64;
		busy[q->eff] += sim_irq_load(q) * f * sim_slowdown(s, (unsigned int)q->eff);
	}
	sim_app_load(s, pin);
	sim_app_demand(s, user, sys);
	for (unsigned int c = 0; c < s->nr_cpus; c++)
		elig += eligible(&s->cpu[c]);
	fprintf(out, "# app CPU NS RUNS: pinned application threads, app_cpus: "
		"allowed on fewer CPUs than this\napp_cpus %u\n", elig ? elig : 1);
	for (unsigned int c = 0; c < s->nr_cpus; c++) {
		double want = user[c] + sys[c];
		double left = 1.0 - busy[c] - s->bg_user - s->bg_system;

		if (!s->cpu[c].online || pin[c] <= 0)
			continue;
		if (left < 0)
			left = 0;
		/* what sim_step grants: what interrupts leave, shared alike */
		fprintf(out, "app %u %.0f %.0f\n", c,
			pin[c] * (want > left ? left / want : 1.0) * dt * 1e9,
			100 * dt);
	}
out_free:
	free(busy);
	free(pin);
	free(user);
	free(sys);
}
