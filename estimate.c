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

int estimate_proc(const struct snapshot *a, const struct snapshot *b,
		  const enum irq_class *class, long hz,
		  const struct estimate_prior *prior, struct irq_activity **ret)
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
	col = sample_columns(a, b, &nr_ids);
	work = calloc(nr_ids, sizeof(*work));
	d = malloc(sample_max_deltas(a, b) * sizeof(*d));
	if (!col || !work || !d) {
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
	for (c = 0; c < nr_ids; c++) {
		struct cpu_work *w = &work[c];

		for (unsigned int k = 0; k < CLASS_NR; k++)
			w->hard_w += w->delta[k] * hard_cost[k];
		/* Timer and IPI time is in irq_s too: devices take only
		 * what their interrupts explain. */
		if (w->irq_s > w->hard_w * 1e-6 / dt)
			w->irq_s = w->hard_w * 1e-6 / dt;
		if (w->have_soft)
			cpu_work_soft(w, soft_cost, dt);
	}

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

			if (w->irq_s > 0 && w->hard_w > 0)
				x->hard += w->irq_s * dd * hard_cost[k] /
					   w->hard_w;
			else	/* no irq time accounting (the common case) */
				x->hard += dd * hard_cost[k] * 1e-6 / dt;
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
	return r;
}
