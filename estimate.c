/* estimate.c - the /proc load source: each IRQ's CPU work estimated from
 * its interrupt counts and the per-CPU irq and softirq times of /proc/stat
 * and /proc/softirqs, with per-event costs fitted across CPUs. The fallback
 * where the kernel program cannot run (bpfload.c). Pure: no I/O. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
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
		      double *k)
{
	bool out[FIT_MAX] = { false };
	double one[FIT_MAX], m[FIT_MAX];
	struct fit g = *f;

	for (unsigned int i = 0; i < f->n; i++) {
		k[i] = prior[i];
		one[i] = 1;
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
	for (unsigned int i = 0; i < f->n; i++)
		k[i] = prior[i] * fmin(fmax(m[i], FIT_MIN), hi);
}

/* What one CPU did in the window, for splitting among its IRQs. */
struct cpu_work {
	double hard_w;			/* sum of delta * hard cost */
	double delta[CLASS_NR];		/* sum of deltas per class */
	double irq_s;			/* accounted hard-irq s/s, 0 if none */
	double soft_s;			/* accounted softirq s/s, 0 if none */
	double events[SOFTIRQ_NR];	/* softirqs raised in the window */
	bool have_soft;			/* in /proc/softirqs both times */
	double soft[CLASS_NR];		/* softirq s/s per class */
	double hard_dev;		/* sum of delta * cost * device multiplier */
	double soft_dev[CLASS_NR];	/* sum of delta * device multiplier */
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

/* Split the CPU's softirq time among the classes by its events weighted
 * with @cost (us per event); with no time accounted, the costs are the time. */
static void cpu_work_soft(struct cpu_work *w, const double *cost, double dt)
{
	double wt[CLASS_NR] = { 0 }, all = 0;
	unsigned int t, k;

	for (t = 0; t < SOFTIRQ_NR; t++) {
		double x = w->events[t] * cost[t];

		all += x;
		if (sample_softirq_class[t] >= 0)
			wt[sample_softirq_class[t]] += x;
	}
	for (k = 0; k < CLASS_NR; k++) {
		if (w->soft_s > 0 && all > 0)
			w->soft[k] = w->soft_s * wt[k] / all;
		else
			w->soft[k] = wt[k] * 1e-6 / dt;
	}
}

/* This window's equations for the per-device multipliers: per CPU its
 * hard-irq time against each device's interrupts times its class's cost;
 * per CPU and class its share of softirq time against each device's
 * interrupts times the class's average cost in this window. */
static void add_rows(const struct estimate_dev *dev, const struct snapshot *a,
		     const struct snapshot *b, const enum irq_class *class,
		     const unsigned char *col, unsigned int nr_ids, struct cpu_delta *d,
		     const struct cpu_work *work, const double *irq_raw,
		     const double *hard_cost, double dt)
{
	const struct interrupts *ib = b->intr;
	double soft_all[CLASS_NR] = { 0 }, rate_all[CLASS_NR] = { 0 }, avg[CLASS_NR];
	double *xh = calloc((size_t)nr_ids * (dev->nr ? dev->nr : 1), sizeof(double));
	double *xs = calloc((size_t)nr_ids * (dev->nr ? dev->nr : 1), sizeof(double));
	unsigned int *idx = malloc((dev->nr ? dev->nr : 1) * sizeof(*idx));

	if (!xh || !xs || !idx)
		goto out;
	for (unsigned int c = 0; c < nr_ids; c++)
		for (int k = 0; k < CLASS_NR; k++) {
			soft_all[k] += work[c].soft[k];
			rate_all[k] += work[c].delta[k] / dt;
		}
	for (int k = 0; k < CLASS_NR; k++)
		avg[k] = rate_all[k] > 0 ? soft_all[k] * 1e6 / rate_all[k] : 0;
	for (unsigned int i = 0; i < ib->nr_rows; i++) {
		const struct irq_row *rb = &ib->rows[i];
		int v = dev->row_dev[i];
		unsigned int n;

		if (v < 0 || (unsigned int)v >= dev->nr)
			continue;
		n = sample_row_deltas(sample_pair_row(a->intr, rb), rb, col, nr_ids, d);
		for (unsigned int j = 0; j < n; j++) {
			double r = (double)d[j].delta / dt;

			xh[(size_t)d[j].cpu * dev->nr + v] += r * hard_cost[class[i]];
			xs[(size_t)d[j].cpu * dev->nr + v] += r * avg[class[i]];
		}
	}
	for (unsigned int i = 0; i < dev->nr; i++)
		idx[i] = i;
	for (unsigned int c = 0; c < nr_ids; c++) {
		if (irq_raw[c] > 0)
			devfit_add(dev->fit, DEVFIT_HARD, idx, &xh[(size_t)c * dev->nr], dev->nr,
				   irq_raw[c] * 1e6);
		for (int k = 0; k < CLASS_NR; k++) {
			double x[DEVFIT_MAX];

			if (!(work[c].soft[k] > 0) || !work[c].have_soft)
				continue;
			/* only this class's devices: the class split is known */
			for (unsigned int v = 0; v < dev->nr; v++)
				x[v] = dev->dev_class[v] == (int)k ? xs[(size_t)c * dev->nr + v] : 0;
			devfit_add(dev->fit, DEVFIT_SOFT, idx, x, dev->nr, work[c].soft[k] * 1e6);
		}
	}
out:
	free(xh);
	free(xs);
	free(idx);
}

int estimate_proc(const struct snapshot *a, const struct snapshot *b,
		  const enum irq_class *class, long hz,
		  const struct estimate_prior *prior, struct irq_activity **ret)
{
	return estimate_proc_dev(a, b, class, hz, prior, NULL, ret);
}

int estimate_proc_dev(const struct snapshot *a, const struct snapshot *b,
		      const enum irq_class *class, long hz,
		      const struct estimate_prior *prior, const struct estimate_dev *dev,
		      struct irq_activity **ret)
{
	const struct interrupts *ia, *ib;
	struct irq_activity *act = NULL;
	struct cpu_work *work = NULL;
	struct cpu_delta *d = NULL;
	unsigned char *col = NULL;
	unsigned int nr_ids = 0, i, j, c;
	struct estimate_prior dflt;
	struct fit soft_fit = { 0 }, hard_fit = { 0 };
	double soft_cost[SOFTIRQ_NR], hard_cost[CLASS_NR];
	double *irq_raw = NULL, *hm = NULL, *sm = NULL;
	double dt;
	int r;

	if (!a || !b || !a->intr || !b->intr || !ret || hz <= 0)
		return -EINVAL;
	ia = a->intr;
	ib = b->intr;
	if (ib->nr_rows > 0 && !class)
		return -EINVAL;
	dt = b->when - a->when;
	if (!(dt > 0))
		return -EINVAL;
	for (i = 0; i < ib->nr_rows; i++)
		if ((unsigned int)class[i] >= CLASS_NR)
			return -EINVAL;

	if (!prior) {
		estimate_default_prior(&dflt);
		prior = &dflt;
	}
	if (dev && dev->nr > DEVFIT_MAX)
		dev = NULL;	/* too many to fit: the class costs do */
	col = sample_columns(a, b, &nr_ids);
	work = calloc(nr_ids, sizeof(*work));
	d = malloc(sample_max_deltas(a, b) * sizeof(*d));
	irq_raw = calloc(nr_ids ? nr_ids : 1, sizeof(*irq_raw));
	if (!col || !work || !d || !irq_raw) {
		r = -ENOMEM;
		goto fail;
	}
	r = sample_counts(a, b, &act);
	if (r < 0)
		goto fail;

	/* Pass 1: what each CPU served in total, per class. */
	for (i = 0; i < ib->nr_rows; i++) {
		const struct irq_row *rb = &ib->rows[i];
		unsigned int n = sample_row_deltas(sample_pair_row(ia, rb), rb, col,
						   nr_ids, d);

		for (j = 0; j < n; j++)
			work[d[j].cpu].delta[class[i]] += (double)d[j].delta;
	}

	/* Per CPU: accounted time where the kernel keeps it, and the costs
	 * that explain it best across CPUs. */
	soft_fit.n = SOFTIRQ_NR;
	hard_fit.n = CLASS_NR;
	for (c = 0; c < nr_ids; c++) {
		struct cpu_work *w = &work[c];
		bool have_stat = stat_seen(&a->stats, c, SAMPLE_SEEN_STAT) &&
				 stat_seen(&b->stats, c, SAMPLE_SEEN_STAT);
		double x[FIT_MAX];

		if (have_stat) {
			w->irq_s = ticks_rate(a->stats.cpu[c].irq,
					      b->stats.cpu[c].irq, hz, dt);
			w->soft_s = ticks_rate(a->stats.cpu[c].softirq,
					       b->stats.cpu[c].softirq, hz, dt);
		}
		/* An offline CPU has no softirq counts: no soft part. */
		if (stat_seen(&a->stats, c, SAMPLE_SEEN_SOFTIRQS) &&
		    stat_seen(&b->stats, c, SAMPLE_SEEN_SOFTIRQS))
			cpu_work_events(w, &a->stats.cpu[c], &b->stats.cpu[c]);
		if (w->have_soft && w->soft_s > 0) {
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
	fit_costs(&soft_fit, prior->soft_us, FIT_MAX_SOFT, soft_cost);
	for (unsigned int t = 0; t < SOFTIRQ_NR; t++)
		if (sample_softirq_class[t] < 0)
			soft_cost[t] = prior->soft_us[t];
	fit_costs(&hard_fit, prior->hard_us, FIT_MAX_HARD, hard_cost);
	if (dev && (dev->hard_m || dev->soft_m)) {
		hm = calloc(ib->nr_rows ? ib->nr_rows : 1, sizeof(*hm));
		sm = calloc(ib->nr_rows ? ib->nr_rows : 1, sizeof(*sm));
		if (!hm || !sm) {
			r = -ENOMEM;
			goto fail;
		}
		/* Per row its device's multipliers; the sums they weigh. */
		for (i = 0; i < ib->nr_rows; i++) {
			const struct irq_row *rb = &ib->rows[i];
			int v = dev->row_dev[i];
			unsigned int n = sample_row_deltas(sample_pair_row(ia, rb), rb, col,
							   nr_ids, d);

			hm[i] = v >= 0 && (unsigned int)v < dev->nr && dev->hard_m ? dev->hard_m[v] : 1;
			sm[i] = v >= 0 && (unsigned int)v < dev->nr && dev->soft_m ? dev->soft_m[v] : 1;
			for (j = 0; j < n; j++) {
				work[d[j].cpu].hard_dev += (double)d[j].delta * hard_cost[class[i]] * hm[i];
				work[d[j].cpu].soft_dev[class[i]] += (double)d[j].delta * sm[i];
			}
		}
	}
	for (c = 0; c < nr_ids; c++) {
		struct cpu_work *w = &work[c];

		irq_raw[c] = w->irq_s;
		if (hm)
			w->hard_w = w->hard_dev;
		else
			for (unsigned int k = 0; k < CLASS_NR; k++)
				w->hard_w += w->delta[k] * hard_cost[k];
		/* Timer and IPI time is in irq_s too: devices take only
		 * what their interrupts explain. */
		if (w->irq_s > w->hard_w * 1e-6 / dt)
			w->irq_s = w->hard_w * 1e-6 / dt;
		if (w->have_soft)
			cpu_work_soft(w, soft_cost, dt);
	}

	if (dev && dev->fit)
		add_rows(dev, a, b, class, col, nr_ids, d, work, irq_raw, hard_cost, dt);

	/* Pass 2: each IRQ's share of its CPUs' work. */
	for (i = 0; i < ib->nr_rows; i++) {
		const struct irq_row *rb = &ib->rows[i];
		const struct irq_row *ra = sample_pair_row(ia, rb);
		struct irq_activity *x = &act[i];
		enum irq_class k = class[i];
		unsigned int n = sample_row_deltas(ra, rb, col, nr_ids, d);

		for (j = 0; j < n; j++) {
			const struct cpu_work *w = &work[d[j].cpu];
			double dd = (double)d[j].delta;

			double hc = hard_cost[k] * (hm ? hm[i] : 1);

			if (w->irq_s > 0 && w->hard_w > 0)
				x->hard += w->irq_s * dd * hc / w->hard_w;
			else	/* no irq time accounting (the common case) */
				x->hard += dd * hc * 1e-6 / dt;
			if (sm)
				x->soft += w->soft_dev[k] > 0 ?
					   w->soft[k] * dd * sm[i] / w->soft_dev[k] : 0;
			else
				x->soft += w->soft[k] * dd / w->delta[k];
		}
		x->load = x->hard + x->soft;
	}
	*ret = act;
	act = NULL;
	r = 0;
fail:
	free(act);
	free(d);
	free(work);
	free(col);
	free(irq_raw);
	free(hm);
	free(sm);
	return r;
}
