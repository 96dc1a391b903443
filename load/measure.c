// SPDX-License-Identifier: GPL-2.0-or-later
/* measure.c - each IRQ's load from the times the kernel program summed, and
 * the check that those times describe the machine /proc shows. Pure: no
 * I/O; functions return 0 or -errno. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"

struct measure_raw *measure_raw_new(unsigned int nr_cpus)
{
	struct measure_raw *raw = calloc(1, sizeof(*raw));

	if (!raw)
		return NULL;
	raw->nr_cpus = nr_cpus;
	raw->soft_ns = calloc(nr_cpus ? nr_cpus : 1, sizeof(*raw->soft_ns));
	raw->soft_events = calloc(nr_cpus ? nr_cpus : 1, sizeof(*raw->soft_events));
	raw->app_ns = calloc(nr_cpus ? nr_cpus : 1, sizeof(*raw->app_ns));
	raw->app_runs = calloc(nr_cpus ? nr_cpus : 1, sizeof(*raw->app_runs));
	if (!raw->soft_ns || !raw->soft_events || !raw->app_ns || !raw->app_runs) {
		measure_raw_free(raw);
		return NULL;
	}
	return raw;
}

void measure_raw_free(struct measure_raw *raw)
{
	if (!raw)
		return;
	free(raw->soft_ns);
	free(raw->soft_events);
	free(raw->app_ns);
	free(raw->app_runs);
	free(raw->irqs);
	free(raw->napi);
	free(raw->threads);
	free(raw);
}

int measure_probe_note(const struct measure_raw *raw, char *buf, size_t len)
{
	const struct measure_probe *p = &raw->probe;
	bool ctx = raw->use_ctx && p->ctx > 0;

	if (!(p->hard > 0 || p->ctx > 0 || p->soft > 0 || p->napi > 0 || p->thread > 0))
		return -ENODATA;
	char thread[48] = "";

	if (p->thread > 0)
		snprintf(thread, sizeof(thread), ", %.0f an irq thread's run", p->thread);
	snprintf(buf, len, "its probes' own cost taken out: %.0f ns a handler%s, %.0f a softirq%s",
		 ctx ? p->ctx : p->hard, ctx ? " context" : "", p->soft, thread);
	return 0;
}

int measure_find_target(const struct measure_target *t, unsigned int n,
			unsigned int irq)
{
	unsigned int lo = 0, hi = n;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (t[mid].irq == irq)
			return (int)mid;
		if (t[mid].irq < irq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* One measured (IRQ, CPU) pair, resolved to its target row. */
struct share {
	unsigned int cpu;
	int row;
	double hard;		/* ns: the weight softirq time is split by */
};

static int share_cmp(const void *x, const void *y)
{
	const struct share *a = x, *b = y;

	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	return a->row - b->row;
}

static int napi_cmp(const void *x, const void *y)
{
	const struct measure_napi *a = x, *b = y;

	return a->cpu < b->cpu ? -1 : a->cpu > b->cpu;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double measure_probe_per_run(double *step, unsigned int nr, uint64_t runs, uint64_t ns)
{
	if (nr >= 3) {
		qsort(step, nr, sizeof(*step), dbl_cmp);
		return nr % 2 ? step[nr / 2] : (step[nr / 2 - 1] + step[nr / 2]) / 2;
	}
	return runs ? (double)ns / (double)runs : 0;
}

/* @ns less @events times the probes' cost @per, not below 0. */
static double less(uint64_t ns, uint64_t events, double per)
{
	double d = (double)ns - (double)events * per;

	return d > 0 ? d : 0;
}

int measure_app(const struct measure_raw *raw, double *cpu, unsigned int nr_ids)
{
	if (!raw || !raw->app_timed || !(raw->window > 0))
		return -ENODATA;
	for (unsigned int c = 0; c < nr_ids; c++)
		cpu[c] = c < raw->nr_cpus ?
			 less(raw->app_ns[c], raw->app_runs[c], raw->probe.thread) * 1e-9 /
			 raw->window : 0;
	return 0;
}

static double hard_ns(const struct measure_raw *raw, const struct measure_irq *e)
{
	/* A context that was not traced (attached mid-interrupt) has 0.
	 * Contexts are counted by their handlers: one each, but for a
	 * shared IRQ whose handlers all ran. */
	if (raw->use_ctx && e->ctx_ns > e->handler_ns)
		return less(e->ctx_ns, e->count, raw->probe.ctx);
	return less(e->handler_ns, e->count, raw->probe.hard);
}

/* Split @ns among the shares [from, to) that pass @want, by hard time. */
static double split(const struct share *s, unsigned int from, unsigned int to,
		    const struct measure_target *t, int class, const char *label,
		    double ns, double *soft)
{
	double all = 0;
	unsigned int i;

	for (i = from; i < to; i++)
		if ((int)t[s[i].row].class == class &&
		    (!label || (t[s[i].row].label && strcmp(t[s[i].row].label, label) == 0)))
			all += s[i].hard;
	if (!(all > 0))
		return 0;
	for (i = from; i < to; i++)
		if ((int)t[s[i].row].class == class &&
		    (!label || (t[s[i].row].label && strcmp(t[s[i].row].label, label) == 0)))
			soft[s[i].row] += ns * s[i].hard / all;
	return ns;
}

int measure_attribute(const struct measure_raw *raw, const struct measure_target *t,
		      unsigned int n, struct irq_activity *act)
{
	struct share *s = NULL;
	double *hard = NULL, *soft = NULL, *thread = NULL;
	struct measure_napi *pn = NULL;
	unsigned int ns = 0, i, from;
	int r = -ENOMEM;

	if (!raw || (n && (!t || !act)) || !(raw->window > 0))
		return -EINVAL;
	s = calloc(raw->nr_irqs ? raw->nr_irqs : 1, sizeof(*s));
	hard = calloc(n ? n : 1, sizeof(*hard));
	soft = calloc(n ? n : 1, sizeof(*soft));
	thread = calloc(n ? n : 1, sizeof(*thread));
	pn = calloc(raw->nr_napi ? raw->nr_napi : 1, sizeof(*pn));
	if (!s || !hard || !soft || !thread || !pn)
		goto out;
	for (i = 0; i < raw->nr_threads; i++) {
		const struct measure_thread *e = &raw->threads[i];
		int row = measure_find_target(t, n, e->irq);

		/* The probes that ran inside its runs: the switch's, and
		 * those of the softirqs and polls it ran. */
		if (row >= 0)
			thread[row] += less(e->ns, 1, e->runs * raw->probe.thread +
					    e->softs * raw->probe.soft + e->polls * raw->probe.napi);
	}
	for (i = 0; i < raw->nr_irqs; i++) {
		const struct measure_irq *e = &raw->irqs[i];
		int row = measure_find_target(t, n, e->irq);

		if (row < 0)	/* gone from /proc: measure_check() says so */
			continue;
		s[ns++] = (struct share){ e->cpu, row, hard_ns(raw, e) };
		hard[row] += hard_ns(raw, e);
	}
	qsort(s, ns, sizeof(*s), share_cmp);
	i = 0;

	/* The NAPI instances in CPU order too, to walk beside the shares. */
	if (raw->nr_napi)
		memcpy(pn, raw->napi, raw->nr_napi * sizeof(*pn));
	qsort(pn, raw->nr_napi, sizeof(*pn), napi_cmp);

	/* Every CPU: the shares [from, i) are the IRQs it served, and pn[pj]
	 * onwards the NAPI instances it polled. */
	for (unsigned int cpu = 0, pj = 0; cpu < raw->nr_cpus; cpu++) {
		double napi = 0;
		bool storage = false;

		while (i < ns && s[i].cpu < cpu)	/* CPUs beyond soft_ns: none */
			i++;
		from = i;
		while (i < ns && s[i].cpu == cpu)
			storage |= t[s[i++].row].class == CLASS_STORAGE;
		while (pj < raw->nr_napi && pn[pj].cpu < cpu)
			pj++;
		for (; pj < raw->nr_napi && pn[pj].cpu == cpu; pj++) {
			const struct measure_napi *p = &pn[pj];
			int row = p->irq > 0 ? measure_find_target(t, n, (unsigned int)p->irq) : -1;
			double pns = less(p->ns, p->polls, raw->probe.napi);

			if (row >= 0) {
				soft[row] += pns;
				napi += pns;
			} else if (p->dev[0]) {
				/* Its IRQs on this CPU; if none fired here (one
				 * moved in the window), its IRQs wherever. */
				double got = split(s, from, i, t, CLASS_NET, p->dev, pns, soft);

				if (!(got > 0))
					got = split(s, 0, ns, t, CLASS_NET, p->dev, pns, soft);
				napi += got;
			}
		}
		for (unsigned int v = 0; v < MEASURE_NR_SOFTIRQS; v++) {
			double left = less(raw->soft_ns[cpu][v], raw->soft_events[cpu][v],
					   raw->probe.soft);

			if (sample_softirq_class[v] < 0 || !(left > 0))
				continue;
			if (v == SOFTIRQ_NET_RX)
				left = left > napi ? left - napi : 0;
			/* Storage work on a CPU that served no storage IRQ: the
			 * block layer completed requests there for their
			 * submitters. */
			if (sample_softirq_class[v] == CLASS_STORAGE && !storage)
				split(s, 0, ns, t, CLASS_STORAGE, NULL, left, soft);
			else
				split(s, from, i, t, sample_softirq_class[v], NULL, left, soft);
		}
	}
	for (i = 0; i < n; i++) {
		act[i].hard = hard[i] * 1e-9 / raw->window;
		act[i].soft = soft[i] * 1e-9 / raw->window;
		act[i].thread = thread[i] * 1e-9 / raw->window;
		act[i].load = act[i].hard + act[i].soft + act[i].thread;
	}
	r = 0;
out:
	free(s);
	free(hard);
	free(thread);
	free(soft);
	free(pn);
	return r;
}

static void unseen(char *why, size_t len, const struct irq_row *row, uint64_t delta)
{
	snprintf(why, len, "/proc/interrupts counted %llu interrupts of irq %u (%s) that it did not see",
		 (unsigned long long)delta, row->irq, row->name);
}

static int irq_cmp(const void *x, const void *y)
{
	const struct measure_irq *a = x, *b = y;

	return a->irq < b->irq ? -1 : a->irq > b->irq;
}

int measure_check(const struct measure_raw *raw, const struct interrupts *intr,
		  const struct irq_activity *act, char *why, size_t len)
{
	struct measure_irq *e = NULL;
	unsigned int i, j, k;
	int r = -EPROTO;

	if (!raw || !intr || (intr->nr_rows && !act))
		return -EINVAL;
	if (raw->dropped) {
		snprintf(why, len, "its map was full: %llu events not counted",
			 (unsigned long long)raw->dropped);
		return -EPROTO;
	}
	if (raw->missed) {
		snprintf(why, len, "the kernel skipped it %llu times",
			 (unsigned long long)raw->missed);
		return -EPROTO;
	}
	/* By IRQ, so one pass over both lists does: rows ascend too. */
	e = malloc((raw->nr_irqs ? raw->nr_irqs : 1) * sizeof(*e));
	if (!e)
		return -ENOMEM;
	if (raw->nr_irqs)
		memcpy(e, raw->irqs, raw->nr_irqs * sizeof(*e));
	qsort(e, raw->nr_irqs, sizeof(*e), irq_cmp);
	for (i = 0, j = 0; i < raw->nr_irqs; i = k) {
		uint64_t seen = 0;

		/* e[i, k): one IRQ, on each CPU it fired on */
		for (k = i; k < raw->nr_irqs && e[k].irq == e[i].irq; k++)
			seen += e[k].count;
		while (j < intr->nr_rows && intr->rows[j].irq < e[i].irq) {
			if (act[j].delta >= MEASURE_CHECK_MIN) {
				unseen(why, len, &intr->rows[j], act[j].delta);
				goto out;
			}
			j++;
		}
		if (j == intr->nr_rows || intr->rows[j].irq != e[i].irq) {
			snprintf(why, len, "it saw irq %u, which /proc/interrupts does not list",
				 e[i].irq);
			goto out;
		}
		for (unsigned int m = i; m < k; m++)
			/* No description: counts read without /proc/interrupts. */
			if (e[m].name[0] && intr->rows[j].desc[0] &&
			    !strstr(intr->rows[j].desc, e[m].name)) {
				snprintf(why, len, "it saw irq %u as \"%s\", /proc/interrupts as \"%s\"",
					 e[m].irq, e[m].name, intr->rows[j].name);
				goto out;
			}
		/* Its window is a little wider than that of the snapshots. */
		if (seen >= MEASURE_CHECK_MIN && act[j].delta == 0) {
			snprintf(why, len, "it saw %llu interrupts of irq %u, /proc/interrupts none",
				 (unsigned long long)seen, e[i].irq);
			goto out;
		}
		if (seen == 0 && act[j].delta >= MEASURE_CHECK_MIN) {
			unseen(why, len, &intr->rows[j], act[j].delta);
			goto out;
		}
		j++;
	}
	for (; j < intr->nr_rows; j++)
		if (act[j].delta >= MEASURE_CHECK_MIN) {
			unseen(why, len, &intr->rows[j], act[j].delta);
			goto out;
		}
	r = 0;
out:
	free(e);
	return r;
}
