// SPDX-License-Identifier: GPL-2.0-or-later
/* estimate.c - the /proc load source: each IRQ's CPU work estimated from
 * its interrupt counts and the per-CPU irq and softirq times of /proc/stat
 * and /proc/softirqs, with per-event costs fitted across CPUs. The fallback
 * where the kernel program cannot run (bpfload.c). Pure: no I/O. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devfit.h"
#include "estimate.h"

/*
 * The load model. Only the ratios inside each table matter when the kernel
 * accounts irq and softirq time; the absolute values are used when it does
 * not (no CONFIG_IRQ_TIME_ACCOUNTING, where the irq column stays 0).
 */

/* Hard-irq handler cost per interrupt, in microseconds: a NIC handler also
 * schedules NAPI and touches its ring, so it costs a little more. */
static const double hard_cost_us[CLASS_NR] = {
	[CLASS_NET] = 3.0,
	[CLASS_STORAGE] = 2.0,
	[CLASS_OTHER] = 2.0,
};

/* Softirq cost per event, in microseconds: one NET_RX run is a NAPI poll of
 * up to 64 packets through GRO and the stack, far more than any other. */
static const double softirq_cost_us[SOFTIRQ_NR] = {
	[SOFTIRQ_HI] = 2.0,
	[SOFTIRQ_TIMER] = 2.0,
	[SOFTIRQ_NET_TX] = 5.0,
	[SOFTIRQ_NET_RX] = 25.0,
	[SOFTIRQ_BLOCK] = 5.0,
	[SOFTIRQ_IRQ_POLL] = 5.0,
	[SOFTIRQ_TASKLET] = 2.0,
	[SOFTIRQ_SCHED] = 5.0,
	[SOFTIRQ_HRTIMER] = 1.0,
	[SOFTIRQ_RCU] = 2.0,
};

void estimate_default_prior(struct estimate_prior *p)
{
	memcpy(p->hard_us, hard_cost_us, sizeof(p->hard_us));
	memcpy(p->soft_us, softirq_cost_us, sizeof(p->soft_us));
}

/* Accounted time in seconds per second; /proc/stat times only grow, a drop
 * (CPU hotplug on some kernels) is read as no data. */
static double ticks_rate(uint64_t a, uint64_t b, long hz, double dt)
{
	return b > a ? (double)(b - a) / (double)hz / dt : 0.0;
}

/* ---- fitting per-event costs to the measured times ----
 *
 * The constant costs above are only priors. Each CPU is one equation:
 * its measured time = sum over event kinds of (events per second x cost).
 * CPUs that serve different mixes (one only NIC queues, one a NIC queue and
 * a disk controller) pin the costs down, so a disk controller's cheap
 * interrupts are not charged at a NIC's price. The fit is a least-squares
 * solve pulled towards the priors with a weight of FIT_PRIOR of an average
 * kind's data: a kind with many events is set by the data, a kind with few
 * (or none) keeps its prior, and no cost goes below zero. Timer, scheduler
 * and RCU softirqs are no device's work and keep their priors: they happen
 * on every CPU alike, so the data could not tell them from a device's. */
#define FIT_MAX		SOFTIRQ_NR
#define FIT_PRIOR	0.1
/* How far the data may move a cost from its prior: hard-irq time includes
 * the timer's and IPIs', so a CPU serving a few interrupts would otherwise
 * charge them milliseconds each. */
#define FIT_MIN		0.1
#define FIT_MAX_HARD	10.0
#define FIT_MAX_SOFT	20.0

struct fit {
	unsigned int n;			/* unknowns */
	double ata[FIT_MAX][FIT_MAX];	/* normal equations */
	double aty[FIT_MAX];
	unsigned int rows;
};

static void fit_add(struct fit *f, const double *x, double y)
{
	for (unsigned int i = 0; i < f->n; i++) {
		for (unsigned int j = 0; j < f->n; j++)
			f->ata[i][j] += x[i] * x[j];
		f->aty[i] += x[i] * y;
	}
	f->rows++;
}

/* Solve (AtA + D) k = Aty + D prior over the unknowns not in @out, by
 * Gaussian elimination with partial pivoting; false if singular. */
static bool fit_solve(const struct fit *f, const double *prior,
		      const bool *out, double *k)
{
	double m[FIT_MAX][FIT_MAX + 1];
	unsigned int idx[FIT_MAX], n = 0;

	for (unsigned int i = 0; i < f->n; i++)
		if (!out[i])
			idx[n++] = i;
	double d = 0;

	for (unsigned int i = 0; i < f->n; i++)
		d += f->ata[i][i];
	d = FIT_PRIOR * d / f->n + 1e-12;
	for (unsigned int r = 0; r < n; r++) {
		unsigned int i = idx[r];

		for (unsigned int c = 0; c < n; c++)
			m[r][c] = f->ata[i][idx[c]] + (r == c ? d : 0);
		m[r][n] = f->aty[i] + d * prior[i];
	}
	for (unsigned int col = 0; col < n; col++) {
		unsigned int piv = col;

		for (unsigned int r = col + 1; r < n; r++)
			if (fabs(m[r][col]) > fabs(m[piv][col]))
				piv = r;
		if (fabs(m[piv][col]) < 1e-300)
			return false;
		if (piv != col)
			for (unsigned int c = 0; c <= n; c++) {
				double t = m[col][c];

				m[col][c] = m[piv][c];
				m[piv][c] = t;
			}
		for (unsigned int r = 0; r < n; r++) {
			double q;

			if (r == col)
				continue;
			q = m[r][col] / m[col][col];
			for (unsigned int c = col; c <= n; c++)
				m[r][c] -= q * m[col][c];
		}
	}
	for (unsigned int i = 0; i < f->n; i++)
		k[i] = 0;
	for (unsigned int r = 0; r < n; r++)
		k[idx[r]] = m[r][n] / m[r][r];
	return true;
}

/* Fitted costs in @k (same units as @prior); the priors when there is no
 * data. The unknowns are multipliers of the priors (prior 1), so kinds the
 * data cannot tell apart keep their priors' ratio. Negative multipliers are
 * pinned at zero and the rest solved again. @f holds the events, not yet
 * multiplied by the priors. */
static void fit_costs(const struct fit *f, const double *prior, double hi,
		      double *k, bool *floored)
{
	bool out[FIT_MAX] = { false };
	double one[FIT_MAX], m[FIT_MAX];
	struct fit g = *f;

	for (unsigned int i = 0; i < f->n; i++) {
		k[i] = prior[i];
		one[i] = 1;
		if (floored)
			floored[i] = false;
	}
	if (f->rows == 0)
		return;
	for (unsigned int i = 0; i < f->n; i++) {
		for (unsigned int j = 0; j < f->n; j++)
			g.ata[i][j] *= prior[i] * prior[j];
		g.aty[i] *= prior[i];
	}
	for (unsigned int round = 0; round < f->n; round++) {
		bool again = false;

		if (!fit_solve(&g, one, out, m))
			return;
		for (unsigned int i = 0; i < f->n; i++)
			if (!out[i] && m[i] < 0) {
				out[i] = true;
				again = true;
			}
		if (!again)
			break;
	}
	for (unsigned int i = 0; i < f->n; i++) {
		k[i] = prior[i] * fmin(fmax(m[i], FIT_MIN), hi);
		if (floored)
			floored[i] = !(m[i] > FIT_MIN);
	}
}

/* What one CPU did in the window, for splitting among its IRQs. */
struct cpu_work {
	double hard_w;			/* sum of delta * hard cost * device multiplier */
	double delta[CLASS_NR];		/* sum of deltas per class */
	bool have_stat;			/* in /proc/stat both times */
	double irq_s;			/* accounted hard-irq s/s, 0 if none */
	double soft_s;			/* accounted softirq s/s, 0 if none */
	double events[SOFTIRQ_NR];	/* softirqs raised in the window */
	bool have_soft;			/* in /proc/softirqs both times */
	double work[SOFTIRQ_NR];	/* softirq work the costs predict per vector, us */
	double share[SOFTIRQ_NR];	/* interrupts that share it, weighed */
	double other;			/* softirq work of no device's (timers, RCU), us */
	double pred_all;		/* all of it, the devices' with their multipliers */
	double soft_gain;		/* how much of soft_s to believe against pred_all */
};

static bool stat_seen(const struct cpu_stats *s, unsigned int cpu,
		      unsigned char bit)
{
	return cpu < s->nr_ids && (s->cpu[cpu].seen & bit);
}

static void cpu_work_events(struct cpu_work *w, const struct cpu_stat *a,
			    const struct cpu_stat *b)
{
	for (unsigned int t = 0; t < SOFTIRQ_NR; t++)
		w->events[t] = (double)sample_counter_delta(a->softirqs[t], b->softirqs[t]);
	w->have_soft = true;
}

/* The softirq work @cost (us per event) predicts on the CPU, per vector
 * and for no device. */
static void cpu_work_soft(struct cpu_work *w, const double *cost)
{
	for (unsigned int t = 0; t < SOFTIRQ_NR; t++) {
		double x = w->events[t] * cost[t];

		if (sample_softirq_class[t] >= 0)
			w->work[t] = x;
		else
			w->other += x;
	}
}

/* The softirq work predicted for one IRQ's @delta interrupts of class @k
 * on a CPU: of each vector of its class, its share by interrupts weighed
 * with its device's softirqs per interrupt @ev (NULL: 1 each). */
static double soft_pred(const struct cpu_work *w, enum irq_class k, double delta,
			const double *ev)
{
	double x = 0;

	for (unsigned int t = 0; t < SOFTIRQ_NR; t++)
		if (sample_softirq_class[t] == (int)k && w->share[t] > 0)
			x += w->work[t] * delta * (ev ? ev[t] : 1) / w->share[t];
	return x;
}

/* The same priced at @cost. */
static double soft_pred_at(const struct cpu_work *w, enum irq_class k, double delta,
			   const double *ev, const double *cost)
{
	double x = 0;

	for (unsigned int t = 0; t < SOFTIRQ_NR; t++)
		if (sample_softirq_class[t] == (int)k && w->share[t] > 0)
			x += w->events[t] * cost[t] * delta * (ev ? ev[t] : 1) / w->share[t];
	return x;
}

/* The same priced at the built-in costs, which no run changes. */
static double soft_pred_ref(const struct cpu_work *w, enum irq_class k, double delta,
			    const double *ev)
{
	return soft_pred_at(w, k, delta, ev, softirq_cost_us);
}

/* Which devices raise a class's softirqs, and how many per interrupt:
 * per vector, each CPU's count of them against its devices' interrupts.
 * /proc/softirqs counts are exact, so one window tells an HBA whose
 * completions run in BLOCK from NVMe drives that complete in the hard
 * handler, where CPUs hold them in different mixes; where they cannot,
 * each device keeps one per interrupt. Devices' rows of @ev (SOFTIRQ_NR
 * each), 1 where not known. */
#define EV_PRIOR	0.01
#define EV_MAX		64.0
static int fit_events(const struct estimate_dev *dev, const struct irq_row *const *pa,
		      const struct snapshot *b, const enum irq_class *class,
		      const unsigned char *col, unsigned int nr_ids, struct cpu_delta *d,
		      const struct cpu_work *work, double *ev)
{
	const struct interrupts *ib = b->intr;
	size_t nd = dev->nr;
	double *x = calloc((size_t)nr_ids * nd * CLASS_NR, sizeof(double));
	double *lone = calloc((size_t)nr_ids * CLASS_NR, sizeof(double));
	double *m = malloc(nd * sizeof(double));
	unsigned int *idx = malloc(nd * sizeof(*idx));
	int r = -ENOMEM;

	for (size_t v = 0; v < nd * SOFTIRQ_NR; v++)
		ev[v] = 1;
	if (!x || !lone || !m || !idx)
		goto out;
	for (unsigned int v = 0; v < dev->nr; v++)
		idx[v] = v;
	/* Per CPU and class each device's interrupts, and those of IRQs of
	 * no device (counted at one softirq each). */
	for (unsigned int i = 0; i < ib->nr_rows; i++) {
		const struct irq_row *rb = &ib->rows[i];
		int v = dev->row_dev[i];
		unsigned int n = sample_row_deltas(pa[i], rb, col, nr_ids, d);

		for (unsigned int j = 0; j < n; j++) {
			size_t c = d[j].cpu;

			if (v >= 0 && (unsigned int)v < dev->nr)
				x[(c * CLASS_NR + class[i]) * nd + v] += (double)d[j].delta;
			else
				lone[c * CLASS_NR + class[i]] += (double)d[j].delta;
		}
	}
	for (unsigned int t = 0; t < SOFTIRQ_NR; t++) {
		int k = sample_softirq_class[t];
		struct devfit *g;

		if (k < 0)
			continue;
		g = devfit_new(dev->nr);
		if (!g)
			goto out;
		for (size_t c = 0; c < nr_ids; c++) {
			double y;

			if (!work[c].have_soft)
				continue;
			y = work[c].events[t] - lone[c * CLASS_NR + k];
			devfit_add(g, DEVFIT_SOFT, idx, &x[(c * CLASS_NR + k) * nd], dev->nr,
				   y > 0 ? y : 0, 1);
		}
		devfit_solve_in(g, DEVFIT_SOFT, EV_PRIOR, 0, EV_MAX, m);
		devfit_free(g);
		for (unsigned int v = 0; v < dev->nr; v++)
			ev[(size_t)v * SOFTIRQ_NR + t] = m[v];
	}
	r = 0;
out:
	free(x);
	free(lone);
	free(m);
	free(idx);
	return r;
}

static double soft_var(const struct cpu_work *w, double tick, bool sampled);

/* Row @i's device's softirqs per interrupt, NULL for none known. */
static const double *row_ev(const struct estimate_dev *dev, const double *ev, unsigned int i)
{
	int v = dev && ev ? dev->row_dev[i] : -1;

	return v >= 0 && (unsigned int)v < dev->nr ? ev + (size_t)v * SOFTIRQ_NR : NULL;
}

/* How far a CPU's time departs from what any fixed per-device costs
 * predict, beside the clock's resolution: a device's interrupts cost more
 * or less as its mix of requests changes. Over a minute this is most of an
 * equation's error; over a second the tick is. */
#define ESTIMATE_MODEL_ERR	0.05

/*
 * This window's equations for the per-device multipliers, per CPU: its
 * hard-irq time against each device's interrupts times its class's
 * built-in cost (and a base, the timer's and IPIs' time); its softirq
 * time, less what no device explains, against each device's share of the
 * softirq work the built-in costs predict. One equation per CPU, not per
 * class: a CPU's split between NET_RX and BLOCK time is what the fit must
 * find. The built-in costs never change, so a history of windows whose
 * fitted class costs differed (a busier HBA lowers storage's) still adds
 * up. Each equation weighs one over its variance: a tick of the clock,
 * the sampling of ticks without irq time accounting, and the model's
 * error; a minute's equations thus count far more than a second's.
 */
static int add_rows(const struct estimate_dev *dev, const struct irq_row *const *pa,
		    const struct snapshot *b, const enum irq_class *class,
		    const unsigned char *col, unsigned int nr_ids, struct cpu_delta *d,
		    const struct cpu_work *work, const double *ev, double tick, bool sampled,
		    double dt)
{
	const struct interrupts *ib = b->intr;
	size_t nd = dev->nr ? dev->nr : 1;
	double *xh = calloc((size_t)nr_ids * nd, sizeof(double));
	double *xs = calloc((size_t)nr_ids * nd, sizeof(double));
	unsigned int *idx = malloc(nd * sizeof(*idx));
	const double e2 = ESTIMATE_MODEL_ERR * ESTIMATE_MODEL_ERR;
	int r = -ENOMEM;
	bool soft_seen = false;

	if (!xh || !xs || !idx)
		goto out;
	for (unsigned int i = 0; i < ib->nr_rows; i++) {
		const struct irq_row *rb = &ib->rows[i];
		int v = dev->row_dev[i];
		unsigned int n;

		if (v < 0 || (unsigned int)v >= dev->nr)
			continue;
		n = sample_row_deltas(pa[i], rb, col, nr_ids, d);
		for (unsigned int j = 0; j < n; j++) {
			double dd = (double)d[j].delta;
			size_t at = (size_t)d[j].cpu * dev->nr + v;

			xh[at] += dd * hard_cost_us[class[i]] / dt;
			xs[at] += soft_pred_ref(&work[d[j].cpu], class[i], dd, row_ev(dev, ev, i)) / dt;
		}
	}
	for (unsigned int i = 0; i < dev->nr; i++)
		idx[i] = i;
	for (unsigned int c = 0; c < nr_ids; c++)
		soft_seen |= work[c].soft_s > 0;
	for (unsigned int c = 0; c < nr_ids; c++) {
		const struct cpu_work *w = &work[c];
		double y;

		/* variances in CPUs squared; the equations are in us/s; a
		 * CPU whose softirq time read no tick says so too
		 * (fit_class_costs) */
		if (w->irq_s > 0)
			devfit_add(dev->fit, DEVFIT_HARD, idx, &xh[(size_t)c * dev->nr], dev->nr,
				   w->irq_s * 1e6,
				   1e-12 / (tick * tick / 6 + e2 * w->irq_s * w->irq_s));
		if (!w->have_soft || !w->have_stat || !soft_seen)
			continue;
		y = w->soft_s * 1e6 - w->other / dt;
		devfit_add(dev->fit, DEVFIT_SOFT, idx, &xs[(size_t)c * dev->nr], dev->nr,
			   y > 0 ? y : 0,
			   1e-12 / (soft_var(w, tick, sampled) + e2 * w->soft_s * w->soft_s));
	}
	r = 0;
out:
	free(xh);
	free(xs);
	free(idx);
	return r;
}

/* Each device's costs of this window against the built-in ones: hard,
 * its class's fitted cost (@th) and the prior's (@ph); soft, what the
 * fitted softirq costs (@ts) and the prior's (@ps) predict for its
 * interrupts against what the built-in ones do (1 where it raised none). */
struct dev_target {
	double *th, *ts, *ph, *ps;
};

static void dev_targets(const struct estimate_dev *dev, const struct irq_row *const *pa,
			const struct snapshot *b, const enum irq_class *class,
			const unsigned char *col, unsigned int nr_ids, struct cpu_delta *d,
			const struct cpu_work *work, const double *ev, const double *hard_cost,
			const struct estimate_prior *prior, double *ref, struct dev_target *tg)
{
	const struct interrupts *ib = b->intr;

	for (unsigned int v = 0; v < dev->nr; v++) {
		int k = dev->dev_class[v];
		bool ok = k >= 0 && k < CLASS_NR;

		tg->th[v] = ok ? hard_cost[k] / hard_cost_us[k] : 1;
		tg->ph[v] = ok ? prior->hard_us[k] / hard_cost_us[k] : 1;
		tg->ts[v] = tg->ps[v] = ref[v] = 0;
	}
	for (unsigned int i = 0; i < ib->nr_rows; i++) {
		int v = dev->row_dev[i];
		unsigned int n;

		if (v < 0 || (unsigned int)v >= dev->nr)
			continue;
		n = sample_row_deltas(pa[i], &ib->rows[i], col, nr_ids, d);
		for (unsigned int j = 0; j < n; j++) {
			const struct cpu_work *w = &work[d[j].cpu];
			double dd = (double)d[j].delta;
			const double *e = row_ev(dev, ev, i);

			if (!w->have_soft)
				continue;
			tg->ts[v] += soft_pred(w, class[i], dd, e);
			tg->ps[v] += soft_pred_at(w, class[i], dd, e, prior->soft_us);
			ref[v] += soft_pred_ref(w, class[i], dd, e);
		}
	}
	for (unsigned int v = 0; v < dev->nr; v++) {
		bool ok = ref[v] > 0;

		tg->ts[v] = ok && tg->ts[v] > 0 ? tg->ts[v] / ref[v] : 1;
		tg->ps[v] = ok && tg->ps[v] > 0 ? tg->ps[v] / ref[v] : 1;
	}
}

/*
 * How much of each CPU's measured softirq time to believe against what the
 * fitted costs predict for it. The clock counts a window in ticks of
 * 1/(hz dt) of a CPU, each reading truncated: a variance of a sixth of a
 * tick squared. Without irq time accounting the tick also samples the
 * context it lands in, a CPU busy a fraction p of the time showing it with
 * the binomial variance p(1-p) ticks. The fitted costs are off by a
 * relative error tau the spread of the CPUs shows: tau^2 solves
 * sum r^2 / (tau^2 P^2 + var) = n over the n CPUs with both (r the measured
 * time less the predicted P), and is never taken below ESTIMATE_TAU_MIN:
 * one window cannot show how the queues of one device differ. A CPU's
 * measured time then counts for tau^2 P^2 / (tau^2 P^2 + var): over a
 * minute nearly all of it, over a second on a CPU with a few light IRQs
 * little, where one tick more or less would be a third of their load.
 */
#define ESTIMATE_TAU_MIN	0.05
#define ESTIMATE_TAU_MAX2	4.0
static double soft_var(const struct cpu_work *w, double tick, bool sampled)
{
	double p = fmin(w->soft_s, 1);

	return tick * tick / 6 + (sampled ? p * (1 - p) * tick : 0);
}

static void weigh_measured(struct cpu_work *work, unsigned int nr_ids, double tick,
			   double dt, bool sampled)
{
	double lo = 0, hi = ESTIMATE_TAU_MAX2, tau2;
	unsigned int n = 0;

	for (unsigned int c = 0; c < nr_ids; c++) {
		work[c].soft_gain = 1;
		n += work[c].have_soft && work[c].soft_s > 0 && work[c].pred_all > 0;
	}
	if (!n)
		return;
	/* The left side falls as tau^2 grows: bisect. */
	for (int it = 0; it < 32; it++) {
		double t = (lo + hi) / 2, q = 0;

		for (unsigned int c = 0; c < nr_ids; c++) {
			const struct cpu_work *w = &work[c];
			double p = w->pred_all * 1e-6 / dt, r = w->soft_s - p;

			if (w->have_soft && w->soft_s > 0 && p > 0)
				q += r * r / (t * p * p + soft_var(w, tick, sampled));
		}
		if (q > n)
			lo = t;
		else
			hi = t;
	}
	tau2 = fmax(lo, ESTIMATE_TAU_MIN * ESTIMATE_TAU_MIN);
	for (unsigned int c = 0; c < nr_ids; c++) {
		struct cpu_work *w = &work[c];
		double p = w->pred_all * 1e-6 / dt;

		if (w->have_soft && w->soft_s > 0 && p > 0)
			w->soft_gain = tau2 * p * p / (tau2 * p * p + soft_var(w, tick, sampled));
	}
}

static const char *const how_word[] = {
	[ESTIMATE_PRIOR] = "prior", [ESTIMATE_FITTED] = "fitted",
	[ESTIMATE_CARRIED] = "carried", [ESTIMATE_NONE] = "", [ESTIMATE_BOOT] = "boot",
};

unsigned int estimate_found_items(const struct estimate_found *f,
				  struct estimate_cost_item *ret)
{
	static const char *const cname[CLASS_NR] = {
		[CLASS_NET] = "net", [CLASS_STORAGE] = "storage", [CLASS_OTHER] = "other",
	};
	/* each class's softirq named by the one its devices mostly raise */
	static const int vec[CLASS_NR] = {
		[CLASS_NET] = SOFTIRQ_NET_RX, [CLASS_STORAGE] = SOFTIRQ_BLOCK,
		[CLASS_OTHER] = SOFTIRQ_TASKLET,
	};
	static const char *const vname[CLASS_NR] = {
		[CLASS_NET] = "NET_RX", [CLASS_STORAGE] = "BLOCK", [CLASS_OTHER] = "TASKLET",
	};
	unsigned int n = 0;

	if (!f->set)
		return 0;
	for (unsigned int k = 0; k < CLASS_NR; k++) {
		const struct estimate_class_cost *h = &f->hard[k], *s = &f->soft[k];

		if (h->how != ESTIMATE_NONE)
			ret[n++] = (struct estimate_cost_item){ .class_name = cname[k],
				.kind = "hard", .us = h->m * hard_cost_us[k],
				.how = how_word[h->how] };
		if (s->how != ESTIMATE_NONE)
			ret[n++] = (struct estimate_cost_item){ .class_name = cname[k],
				.kind = vname[k], .us = s->m * softirq_cost_us[vec[k]],
				.how = how_word[s->how] };
	}
	return n;
}

int estimate_found_format(const struct estimate_found *f, char *buf, size_t len)
{
	struct estimate_cost_item it[ESTIMATE_COST_ITEMS];
	unsigned int n = estimate_found_items(f, it);
	size_t o = 0;

	if (len)
		buf[0] = '\0';
	for (unsigned int i = 0; i < n; i++) {
		bool hard = !strcmp(it[i].kind, "hard");
		int w = snprintf(buf + o, len - o, "%s%s%s%s %.2f us %s", o ? ", " : "",
				 hard ? it[i].class_name : "", hard ? " " : "", it[i].kind,
				 it[i].us, it[i].how);

		if (w < 0 || (size_t)w >= len - o)
			return -ENOSPC;
		o += (size_t)w;
	}
	return 0;
}

int estimate_proc(const struct snapshot *a, const struct snapshot *b,
		  const enum irq_class *class, long hz,
		  const struct estimate_prior *prior, struct irq_activity **ret)
{
	return estimate_proc_dev(a, b, class, hz, prior, NULL, ret);
}

/* One estimate_proc_dev(): its inputs and what its passes build. */
struct est {
	const struct snapshot *a, *b;
	const struct interrupts *ib;
	const enum irq_class *class;
	long hz;
	double dt;
	const struct estimate_prior *prior;
	const struct estimate_dev *dev;	/* NULL: class costs only */
	unsigned char *col;
	unsigned int nr_ids;
	struct cpu_work *work;		/* per CPU */
	struct cpu_delta *d;		/* one row's deltas */
	const struct irq_row **pa;	/* each row's pair in @a, found once */
	double soft_cost[SOFTIRQ_NR], hard_cost[CLASS_NR];
	bool soft_floor[SOFTIRQ_NR];	/* the type's fitted cost is its floor */
	double *hm, *sm;		/* per row: its device's multipliers */
	double *ev;			/* per device: softirq events raised */
	struct irq_activity *act;
	bool boot;			/* the fit has the interval since boot */
};

/* Pass 1: what each CPU served in total, per class. */
static void serve_deltas(struct est *st)
{
	for (unsigned int i = 0; i < st->ib->nr_rows; i++) {
		const struct irq_row *rb = &st->ib->rows[i];
		unsigned int n = sample_row_deltas(st->pa[i], rb, st->col, st->nr_ids, st->d);

		for (unsigned int j = 0; j < n; j++)
			st->work[st->d[j].cpu].delta[st->class[i]] += (double)st->d[j].delta;
	}
}

/* Per CPU: accounted time where the kernel keeps it, and the costs that
 * explain it best across CPUs. */
static void fit_class_costs(struct est *st)
{
	const struct snapshot *a = st->a, *b = st->b;
	const struct estimate_prior *prior = st->prior;
	struct fit soft_fit = { 0 }, hard_fit = { 0 };
	double dt = st->dt;

	soft_fit.n = SOFTIRQ_NR;
	hard_fit.n = CLASS_NR;
	bool soft_seen = false;

	for (unsigned int c = 0; c < st->nr_ids; c++) {
		struct cpu_work *w = &st->work[c];

		w->have_stat = stat_seen(&a->stats, c, SAMPLE_SEEN_STAT) &&
			       stat_seen(&b->stats, c, SAMPLE_SEEN_STAT);
		if (w->have_stat) {
			w->irq_s = ticks_rate(a->stats.cpu[c].irq,
					      b->stats.cpu[c].irq, st->hz, dt);
			w->soft_s = ticks_rate(a->stats.cpu[c].softirq,
					       b->stats.cpu[c].softirq, st->hz, dt);
		}
		soft_seen |= w->soft_s > 0;
		/* An offline CPU has no softirq counts: no soft part. */
		if (stat_seen(&a->stats, c, SAMPLE_SEEN_SOFTIRQS) &&
		    stat_seen(&b->stats, c, SAMPLE_SEEN_SOFTIRQS))
			cpu_work_events(w, &a->stats.cpu[c], &b->stats.cpu[c]);
	}
	/* A CPU whose softirq time reads no tick is an equation too: left
	 * out, the light devices would be judged on the CPUs where the
	 * clock's phase happened to show a tick, a tick's worth each. The
	 * hard-irq equations keep only CPUs that show some: share_out()
	 * caps a CPU's irq time at what its interrupts explain (timers and
	 * IPIs are in it too), which leans the other way, and big's NVMe
	 * drives, beside NIC queues on every CPU, came out 40% low with
	 * both changed (issue 34). */
	for (unsigned int c = 0; c < st->nr_ids; c++) {
		struct cpu_work *w = &st->work[c];
		double x[FIT_MAX];

		if (w->have_soft && w->have_stat && soft_seen) {
			double y = w->soft_s * 1e6;

			for (unsigned int t = 0; t < SOFTIRQ_NR; t++) {
				x[t] = sample_softirq_class[t] >= 0 ? w->events[t] / dt : 0;
				if (sample_softirq_class[t] < 0)
					y -= w->events[t] / dt * prior->soft_us[t];
			}
			fit_add(&soft_fit, x, y > 0 ? y : 0);
		}
		if (w->irq_s > 0) {
			for (unsigned int k = 0; k < CLASS_NR; k++)
				x[k] = w->delta[k] / dt;
			fit_add(&hard_fit, x, w->irq_s * 1e6);
		}
	}
	fit_costs(&soft_fit, prior->soft_us, FIT_MAX_SOFT, st->soft_cost, st->soft_floor);
	for (unsigned int t = 0; t < SOFTIRQ_NR; t++)
		if (sample_softirq_class[t] < 0)
			st->soft_cost[t] = prior->soft_us[t];
	fit_costs(&hard_fit, prior->hard_us, FIT_MAX_HARD, st->hard_cost, NULL);
	for (unsigned int c = 0; c < st->nr_ids; c++)
		if (st->work[c].have_soft)
			cpu_work_soft(&st->work[c], st->soft_cost);
}

/* Which devices raise their class's softirqs, and how many each; then
 * each CPU's softirq events shared out by the interrupts it served. */
static int device_events(struct est *st)
{
	const struct estimate_dev *dev = st->dev;
	struct cpu_delta *d = st->d;
	int r;

	if (dev && dev->nr > 0) {
		st->ev = malloc((size_t)dev->nr * SOFTIRQ_NR * sizeof(*st->ev));
		if (!st->ev)
			return -ENOMEM;
		if (dev->ev_use) {
			memcpy(st->ev, dev->ev_use, (size_t)dev->nr * SOFTIRQ_NR * sizeof(*st->ev));
		} else {
			r = fit_events(dev, st->pa, st->b, st->class, st->col, st->nr_ids, d,
				       st->work, st->ev);
			if (r < 0)
				return r;
			if (dev->ev_keep)
				memcpy(dev->ev_keep, st->ev, (size_t)dev->nr * SOFTIRQ_NR * sizeof(*st->ev));
		}
	}
	for (unsigned int i = 0; i < st->ib->nr_rows; i++) {
		const struct irq_row *rb = &st->ib->rows[i];
		unsigned int n = sample_row_deltas(st->pa[i], rb, st->col, st->nr_ids, d);
		const double *e = row_ev(dev, st->ev, i);

		for (unsigned int j = 0; j < n; j++)
			for (unsigned int t = 0; t < SOFTIRQ_NR; t++)
				if (sample_softirq_class[t] == (int)st->class[i])
					st->work[d[j].cpu].share[t] += (double)d[j].delta * (e ? e[t] : 1);
	}
	return 0;
}

/* What the pooled solve found of each class, for the report. */
static void found_keep(struct estimate_found *f, const struct devfit_group *grp, bool hard)
{
	if (!f)
		return;
	for (unsigned int k = 0; k < CLASS_NR; k++) {
		struct estimate_class_cost *c = hard ? &f->hard[k] : &f->soft[k];

		c->m = grp[k].m > 0 ? grp[k].m : grp[k].prior;
		c->how = grp[k].m > 0 ? (enum estimate_how)grp[k].how : ESTIMATE_NONE;
	}
	f->set = true;
}

/*
 * Which softirq model each class's devices take: one cost per softirq
 * type (devfit_solve() against the fitted type costs) unless the window
 * shows the class's devices differ beyond their standard errors, by more
 * than the extra parameters pay for (Akaike: chi-square above twice its
 * degrees of freedom); then each its pooled cost (@pool) in @m. On
 * crowd-a, whose two NICs cost the same, the pooled costs put its NVMe
 * drive at x0.66 and MegaRAID at x0.39 of their true load (x0.84, x0.58
 * with one cost per type); router's, smt's and cloud-vm's storage moved
 * 6-9 points down too (issue 34).
 *
 * Nor where a type of the class has a cost at its floor (@floor, per
 * type: fit_costs() pinned it at FIT_MIN of its prior): one cost per type
 * then explains the CPUs only by giving that type nothing, and is no
 * estimate of it. softmix's one NET_RX cost for two NICs, fitted to the
 * dearer one alone on its CPUs, left BLOCK below zero on the CPUs where
 * an X710 and an NVMe queue sit one to one; its storage devices took
 * their pooled costs then (the storage class found from its devices the
 * equations single out): NVMe x0.68 -> x0.81 and MegaRAID x0.55 -> x0.62
 * in one window, x0.81 and x0.97 from the second cron run on, over the
 * minute since the last run. Of the simulated machines only softmix has
 * a type at its floor, in one window (six phase draws each) and in cron
 * runs. Not where the class's cost is the prior's alone: the pooled
 * costs would be no better known.
 */
static void pooled_where_differ(const struct estimate_dev *dev, const struct devfit_group *grp,
				const bool *floor, const double *pool, double *m)
{
	bool floored[CLASS_NR] = { false };

	for (unsigned int t = 0; t < SOFTIRQ_NR; t++)
		if (sample_softirq_class[t] >= 0 && floor[t])
			floored[sample_softirq_class[t]] = true;
	for (unsigned int v = 0; v < dev->nr; v++) {
		int k = dev->dev_class[v];

		if (k < 0 || k >= CLASS_NR)
			continue;
		if ((grp[k].dof > 0 && grp[k].chi2 > 2.0 * grp[k].dof) ||
		    (floored[k] && grp[k].how != DEVFIT_PRIOR))
			m[v] = pool[v];
	}
}

/* Per-device multipliers of the built-in costs: this window's equations
 * join those of the runs before it, and the sum says what each device's
 * interrupts cost; without a fit, what earlier runs found. Each row then
 * scales its class's fitted costs by its device's multiplier over the
 * target (what the class costs are in the same terms), so a device the
 * data cannot single out costs what its class does. */
static int device_multipliers(struct est *st)
{
	const struct estimate_dev *dev = st->dev;
	const struct interrupts *ib = st->ib;
	size_t nd = dev->nr;
	double *dm = calloc(7 * nd, sizeof(*dm));
	struct dev_target tg = { .th = dm + 2 * nd, .ts = dm + 3 * nd, .ph = dm + 4 * nd,
				 .ps = dm + 5 * nd };
	struct devfit_group grp[CLASS_NR];
	bool sampled = true;
	int r = 0;

	st->hm = calloc(ib->nr_rows ? ib->nr_rows : 1, sizeof(*st->hm));
	st->sm = calloc(ib->nr_rows ? ib->nr_rows : 1, sizeof(*st->sm));
	if (!dm || !st->hm || !st->sm) {
		free(dm);
		return -ENOMEM;
	}
	dev_targets(dev, st->pa, st->b, st->class, st->col, st->nr_ids, st->d, st->work,
		    st->ev, st->hard_cost, st->prior, dm + 6 * nd, &tg);
	for (unsigned int v = 0; v < nd; v++) {
		dm[v] = dev->hard_m ? dev->hard_m[v] : tg.th[v];
		dm[nd + v] = dev->soft_m ? dev->soft_m[v] : tg.ts[v];
	}
	for (unsigned int c = 0; c < st->nr_ids; c++)
		sampled &= !(st->work[c].irq_s > 0);
	if (dev->fit) {
		r = add_rows(dev, st->pa, st->b, st->class, st->col, st->nr_ids, st->d,
			     st->work, st->ev, 1.0 / ((double)st->hz * st->dt), sampled, st->dt);
		if (r == 0) {
			/* Hard-irq costs: each device within DEVFIT_SPREAD of
			 * its class's cost as fitted across CPUs. Pooled as
			 * the softirq costs are, storage's HBA after its
			 * rebuild came out 5.8% above the oracle in cron mode
			 * (1.9% so): the pooled solve says only how each
			 * class's cost was found. */
			devfit_solve(dev->fit, DEVFIT_HARD, tg.th, dm);
			devfit_solve_pooled(dev->fit, DEVFIT_HARD, dev->dev_class, CLASS_NR,
					    tg.ph, dm + 6 * nd, grp);
			for (unsigned int k = 0; k < CLASS_NR; k++)
				grp[k].m = grp[k].m > 0 ? st->hard_cost[k] / hard_cost_us[k] : 0;
			found_keep(dev->found, grp, true);
			devfit_solve_pooled(dev->fit, DEVFIT_SOFT, dev->dev_class, CLASS_NR,
					    tg.ps, dm + 6 * nd, grp);
			devfit_solve(dev->fit, DEVFIT_SOFT, tg.ts, dm + nd);
			pooled_where_differ(dev, grp, st->soft_floor, dm + 6 * nd, dm + nd);
			found_keep(dev->found, grp, false);
		}
	}
	if (r == 0 && dev->m_keep)
		memcpy(dev->m_keep, dm, 2 * nd * sizeof(*dm));

	for (unsigned int i = 0; i < ib->nr_rows; i++) {
		int v = dev->row_dev[i];
		bool known = v >= 0 && (unsigned int)v < nd;

		st->hm[i] = known ? dm[v] / tg.th[v] : 1;
		st->sm[i] = known ? dm[nd + v] / tg.ts[v] : 1;
	}
	free(dm);
	return r;
}

/* Pass 2: the work the costs predict per CPU, and how far each CPU's
 * measured time is believed over it. */
static void predict_work(struct est *st)
{
	const struct estimate_dev *dev = st->dev;
	struct cpu_work *work = st->work;
	struct cpu_delta *d = st->d;
	const double *hm = st->hm, *sm = st->sm;
	double dt = st->dt;
	bool accounted = false;

	for (unsigned int c = 0; c < st->nr_ids; c++) {
		work[c].pred_all = work[c].other;
		for (unsigned int t = 0; t < SOFTIRQ_NR; t++)
			if (!(work[c].share[t] > 0))
				work[c].pred_all += work[c].work[t];
	}
	for (unsigned int i = 0; i < st->ib->nr_rows; i++) {
		const struct irq_row *rb = &st->ib->rows[i];
		unsigned int n = sample_row_deltas(st->pa[i], rb, st->col, st->nr_ids, d);
		const double *e = row_ev(dev, st->ev, i);

		for (unsigned int j = 0; j < n; j++) {
			struct cpu_work *w = &work[d[j].cpu];
			double dd = (double)d[j].delta;

			w->hard_w += dd * st->hard_cost[st->class[i]] * (hm ? hm[i] : 1);
			w->pred_all += soft_pred(w, st->class[i], dd, e) * (sm ? sm[i] : 1);
		}
	}
	for (unsigned int c = 0; c < st->nr_ids; c++) {
		struct cpu_work *w = &work[c];

		/* Timer and IPI time is in irq_s too: devices take only
		 * what their interrupts explain. */
		accounted |= w->irq_s > 0;
		if (w->irq_s > w->hard_w * 1e-6 / dt)
			w->irq_s = w->hard_w * 1e-6 / dt;
	}
	/* irq time shows only with CONFIG_IRQ_TIME_ACCOUNTING, which also
	 * counts softirq time exactly, not by sampling ticks. */
	weigh_measured(work, st->nr_ids, 1.0 / ((double)st->hz * dt), dt, !accounted);
}

/* How far a CPU's hard-irq time may differ from what its devices' costs
 * predict when those come from the hours since boot: a tenth. Over one
 * second the clock's tick is worth more than that on a CPU with a few
 * light IRQs (a MegaRAID vector's 1.2% is about a tick), so there the
 * prediction counts for more than the ticks, as weigh_measured() does for
 * softirq time; from the window alone the costs are no better known than
 * its ticks, and the ticks are shared out as they are. */
#define ESTIMATE_HARD_TAU	0.1
/* Pass 3: each IRQ's share of what its CPUs did. */
static void share_out(struct est *st)
{
	const double *hm = st->hm, *sm = st->sm;
	struct cpu_delta *d = st->d;
	double dt = st->dt;

	for (unsigned int i = 0; i < st->ib->nr_rows; i++) {
		const struct irq_row *rb = &st->ib->rows[i];
		const struct irq_row *ra = st->pa[i];
		struct irq_activity *x = &st->act[i];
		enum irq_class k = st->class[i];
		unsigned int n = sample_row_deltas(ra, rb, st->col, st->nr_ids, d);
		double hc = st->hard_cost[k] * (hm ? hm[i] : 1);
		const double *e = row_ev(st->dev, st->ev, i);

		for (unsigned int j = 0; j < n; j++) {
			const struct cpu_work *w = &st->work[d[j].cpu];
			double dd = (double)d[j].delta;
			double q = soft_pred(w, k, dd, e) * (sm ? sm[i] : 1);

			if (w->irq_s > 0 && w->hard_w > 0 && st->boot) {
				double p = w->hard_w * 1e-6 / dt, tick = 1.0 / ((double)st->hz * dt);
				double v = ESTIMATE_HARD_TAU * ESTIMATE_HARD_TAU * p * p;
				double g = v / (v + tick * tick / 6);

				x->hard += g * w->irq_s * dd * hc / w->hard_w +
					   (1 - g) * dd * hc * 1e-6 / dt;
			} else if (w->irq_s > 0 && w->hard_w > 0)
				x->hard += w->irq_s * dd * hc / w->hard_w;
			else	/* no irq time accounting (the common case) */
				x->hard += dd * hc * 1e-6 / dt;
			if (!w->have_soft)
				continue;
			if (w->soft_s > 0 && w->pred_all > 0)
				x->soft += w->soft_gain * w->soft_s * q / w->pred_all +
					   (1 - w->soft_gain) * q * 1e-6 / dt;
			else if (!(w->soft_s > 0))
				x->soft += q * 1e-6 / dt;
		}
		x->load = x->hard + x->soft;
	}
}

static int estimate_pass(const struct snapshot *a, const struct snapshot *b,
			 const enum irq_class *class, long hz,
			 const struct estimate_prior *prior, const struct estimate_dev *dev,
			 bool boot, struct irq_activity **ret)
{
	struct est st = { .a = a, .b = b, .class = class, .hz = hz, .prior = prior,
			  .dev = dev, .boot = boot };
	struct estimate_prior dflt;
	int r;

	if (!a || !b || !a->intr || !b->intr || !ret || hz <= 0)
		return -EINVAL;
	st.ib = b->intr;
	if (st.ib->nr_rows > 0 && !class)
		return -EINVAL;
	st.dt = b->when - a->when;
	if (!(st.dt > 0))
		return -EINVAL;
	for (unsigned int i = 0; i < st.ib->nr_rows; i++)
		if ((unsigned int)class[i] >= CLASS_NR)
			return -EINVAL;

	if (!prior) {
		estimate_default_prior(&dflt);
		st.prior = &dflt;
	}
	if (dev && dev->nr > DEVFIT_MAX)
		st.dev = NULL;	/* too many to fit: the class costs do */
	st.col = sample_columns(a, b, &st.nr_ids);
	st.work = calloc(st.nr_ids, sizeof(*st.work));
	st.d = malloc(sample_max_deltas(a, b) * sizeof(*st.d));
	/* Each row's pair in @a, found once: every pass below walks them. */
	st.pa = malloc((st.ib->nr_rows ? st.ib->nr_rows : 1) * sizeof(*st.pa));
	if (!st.col || !st.work || !st.d || !st.pa) {
		r = -ENOMEM;
		goto fail;
	}
	for (unsigned int i = 0; i < st.ib->nr_rows; i++)
		st.pa[i] = sample_pair_row(a->intr, &st.ib->rows[i]);
	r = sample_counts(a, b, &st.act);
	if (r < 0)
		goto fail;

	serve_deltas(&st);
	fit_class_costs(&st);
	r = device_events(&st);
	if (r < 0)
		goto fail;
	if (st.dev && st.dev->nr > 0) {
		r = device_multipliers(&st);
		if (r < 0)
			goto fail;
	}
	predict_work(&st);
	share_out(&st);
	*ret = st.act;
	st.act = NULL;
	r = 0;
fail:
	free(st.act);
	free(st.d);
	free(st.work);
	free(st.col);
	free(st.hm);
	free(st.sm);
	free(st.ev);
	free(st.pa);
	return r;
}

/*
 * With no history, the first snapshot is one: its counters hold every
 * interrupt, and every tick of irq and softirq time, since boot (or since
 * the CPU came online), per CPU. Over hours a CPU's time is known to far
 * better than a window's tick, and the IRQs have usually sat elsewhere
 * before (the kernel's spread at probe, an earlier balancer), which is
 * what tells apart two devices that share CPUs one to one now. So a run
 * with no history first adds the interval since boot to the per-device
 * fit, as if it were a run before this one (devfit_decay() marks it
 * carried). Its equations weigh by the model's error, as a minute's do,
 * not by their hours: a device's cost per interrupt drifts with its mix
 * over a day, and where this window's data is precise it still decides.
 * Not in the first minutes after boot (ESTIMATE_BOOT_MIN), whose counts
 * are mostly the devices' probing and udev's runs, and not from counts
 * read without /proc/interrupts (each IRQ's total on its CPU of the
 * moment, not where it was served).
 */
#define ESTIMATE_BOOT_MIN	120.0	/* seconds of uptime */
#define ESTIMATE_BOOT_MAX	1e9	/* 31 years: no machine's; a corrupt capture's */

static bool boot_usable(const struct snapshot *a, const struct snapshot *b,
			const struct estimate_dev *dev)
{
	const struct devfit *f = dev ? dev->fit : NULL;

	if (!f || dev->nr == 0 || dev->nr > DEVFIT_MAX || dev->hard_m || dev->soft_m)
		return false;
	if (a->input != SNAPSHOT_INTERRUPTS || b->input != SNAPSHOT_INTERRUPTS ||
	    !(a->when >= ESTIMATE_BOOT_MIN && a->when < ESTIMATE_BOOT_MAX))
		return false;
	for (int k = 0; k < DEVFIT_KINDS; k++)
		for (unsigned int i = 0; i <= f->nr; i++)
			if (f->old[k][i] > 0)
				return false;	/* the history carried a fit */
	return true;
}

/* The kernel counts interrupts and softirqs per CPU in 32 bits, which a
 * busy queue fills in a day (50,000 a second): a count since boot may
 * have wrapped any number of times, unseen. A CPU whose count of a
 * device's interrupts or softirqs reads 2^31 or more, or would at this
 * window's rate over the uptime, has no equation since boot (its seen
 * flags cleared in @zcpu). A rate far higher before than now can still
 * hide a wrap; its CPU's equation is then one of many, and the window's
 * own still count. The softirqs no device raises (the timer's, RCU's,
 * the scheduler's) wrap within weeks on every CPU alike, and are only
 * priced at their priors and taken off: theirs since boot are taken as
 * the window's rate over the uptime (in @scpu) where they may have. */
#define ESTIMATE_BOOT_WRAP	2147483648.0

static void zap_if(struct cpu_stat *zcpu, unsigned int nr_ids, unsigned int c, double n)
{
	if (c < nr_ids && !(n < ESTIMATE_BOOT_WRAP))
		zcpu[c].seen = 0;
}

static void boot_wraps(const struct snapshot *a, const struct snapshot *b,
		       const struct irq_row *arows, struct cpu_stat *zcpu,
		       struct cpu_stat *scpu)
{
	const struct interrupts *ib = b->intr;
	double up = a->when, dt = b->when - a->when;

	if (!(dt > 0))
		return;
	for (unsigned int i = 0; i < ib->nr_rows; i++) {
		const struct irq_row *ra = &arows[i], *rb = &ib->rows[i];
		unsigned int j = 0;

		for (unsigned int k = 0; k < rb->nr_counts; k++) {
			unsigned int c = rb->counts[k].cpu;
			double ca = 0, d;

			for (; j < ra->nr_counts && ra->counts[j].cpu < c; j++)
				zap_if(zcpu, a->stats.nr_ids, ra->counts[j].cpu,
				       (double)ra->counts[j].count);
			if (j < ra->nr_counts && ra->counts[j].cpu == c)
				ca = (double)ra->counts[j++].count;
			d = (double)sample_counter_delta((uint64_t)ca, rb->counts[k].count);
			zap_if(zcpu, a->stats.nr_ids, c, fmax(ca, d / dt * up));
		}
		for (; j < ra->nr_counts; j++)
			zap_if(zcpu, a->stats.nr_ids, ra->counts[j].cpu, (double)ra->counts[j].count);
	}
	for (unsigned int c = 0; c < a->stats.nr_ids && c < b->stats.nr_ids; c++) {
		const struct cpu_stat *sa = &a->stats.cpu[c], *sb = &b->stats.cpu[c];

		for (unsigned int t = 0; t < SOFTIRQ_NR; t++) {
			double d = (double)sample_counter_delta(sa->softirqs[t], sb->softirqs[t]);
			double n = fmax((double)sa->softirqs[t], d / dt * up);

			if (sample_softirq_class[t] >= 0)
				zap_if(zcpu, a->stats.nr_ids, c, n);
			else if (!(n < ESTIMATE_BOOT_WRAP))
				scpu[c].softirqs[t] = (uint64_t)(d / dt * up);
		}
	}
}

/* The interval since boot as a window: @a's counters against zeros, each
 * row of @b paired with its row of @a (none: no interrupts yet), so that
 * @class and the devices' rows apply as they are. Its equations go into
 * the devices' fit; its loads are dropped. 1 when it added equations, 0
 * when no CPU could, or -errno. */
static int boot_pass(const struct snapshot *a, const struct snapshot *b,
		     const enum irq_class *class, long hz,
		     const struct estimate_prior *prior, const struct estimate_dev *dev)
{
	const struct interrupts *ia = a->intr, *ib = b->intr;
	size_t nr = ib->nr_rows ? ib->nr_rows : 1;
	struct irq_row *zrows = calloc(nr, sizeof(*zrows));
	struct irq_row *arows = calloc(nr, sizeof(*arows));
	size_t nc = a->stats.nr_ids ? a->stats.nr_ids : 1;
	struct cpu_stat *zcpu = calloc(nc, sizeof(*zcpu)), *scpu = malloc(nc * sizeof(*scpu));
	struct interrupts zi = { .nr_cols = ia->nr_cols, .col_cpu = ia->col_cpu,
				 .nr_rows = ib->nr_rows, .rows = zrows };
	struct interrupts ai = zi;
	struct snapshot z = { .input = a->input, .intr = &zi,
			      .stats = { .nr_ids = a->stats.nr_ids, .cpu = zcpu } };
	struct snapshot s = { .input = a->input, .intr = &ai,
			      .stats = { .nr_ids = a->stats.nr_ids, .cpu = scpu }, .when = a->when };
	struct estimate_dev bd = { .nr = dev->nr, .row_dev = dev->row_dev,
				   .dev_class = dev->dev_class, .fit = dev->fit };
	struct irq_activity *act = NULL;
	unsigned int usable = 0;
	int r = -ENOMEM;

	ai.rows = arows;
	if (!zrows || !arows || !zcpu || !scpu)
		goto out;
	if (a->stats.nr_ids)
		memcpy(scpu, a->stats.cpu, a->stats.nr_ids * sizeof(*scpu));
	for (unsigned int i = 0; i < ib->nr_rows; i++) {
		const struct irq_row *rb = &ib->rows[i];
		const struct irq_row *ra = sample_pair_row(ia, rb);

		zrows[i] = (struct irq_row){ .irq = rb->irq, .desc = rb->desc,
					     .desc_hash = rb->desc_hash, .name = rb->name,
					     .effective = -1 };
		arows[i] = zrows[i];
		if (ra) {
			arows[i].total = ra->total;
			arows[i].nr_counts = ra->nr_counts;
			arows[i].counts = ra->counts;
		}
	}
	for (unsigned int c = 0; c < a->stats.nr_ids; c++)
		zcpu[c].seen = a->stats.cpu[c].seen;
	boot_wraps(a, b, arows, zcpu, scpu);
	for (unsigned int c = 0; c < a->stats.nr_ids; c++)
		usable += (zcpu[c].seen & SAMPLE_SEEN_STAT) != 0;
	r = 0;
	if (!usable)
		goto out;
	r = estimate_pass(&z, &s, class, hz, prior, &bd, false, &act);
	if (r == 0) {
		devfit_decay(dev->fit, 1.0);
		r = 1;
	}
out:
	free(act);
	free(zrows);
	free(arows);
	free(zcpu);
	free(scpu);
	return r;
}

int estimate_proc_dev(const struct snapshot *a, const struct snapshot *b,
		      const enum irq_class *class, long hz,
		      const struct estimate_prior *prior, const struct estimate_dev *dev,
		      struct irq_activity **ret)
{
	bool boot = false;
	int r;

	if (!a || !b || !a->intr || !b->intr || !ret || hz <= 0)
		return -EINVAL;
	if (boot_usable(a, b, dev)) {
		r = boot_pass(a, b, class, hz, prior, dev);
		if (r == -ENOMEM)
			return r;
		boot = r > 0;
	}
	r = estimate_pass(a, b, class, hz, prior, dev, boot, ret);
	if (r == 0 && boot && dev->found)
		for (unsigned int k = 0; k < CLASS_NR; k++) {
			if (dev->found->hard[k].how == ESTIMATE_CARRIED)
				dev->found->hard[k].how = ESTIMATE_BOOT;
			if (dev->found->soft[k].how == ESTIMATE_CARRIED)
				dev->found->soft[k].how = ESTIMATE_BOOT;
		}
	return r;
}
