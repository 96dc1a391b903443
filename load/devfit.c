// SPDX-License-Identifier: GPL-2.0-or-later
/* devfit.c - per-device multipliers of fixed reference costs, by
 * regularised least squares over weighted normal equations kept across
 * runs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "devfit.h"

struct devfit *devfit_new(unsigned int nr)
{
	struct devfit *f;
	size_t m = (size_t)nr + 1;

	if (nr > DEVFIT_MAX)
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->nr = nr;
	for (int k = 0; k < DEVFIT_KINDS; k++) {
		f->n[k] = calloc(m * m, sizeof(double));
		f->b[k] = calloc(m, sizeof(double));
		f->old[k] = calloc(m, sizeof(double));
		if (!f->n[k] || !f->b[k] || !f->old[k]) {
			devfit_free(f);
			return NULL;
		}
	}
	return f;
}

void devfit_free(struct devfit *f)
{
	if (!f)
		return;
	for (int k = 0; k < DEVFIT_KINDS; k++) {
		free(f->n[k]);
		free(f->b[k]);
		free(f->old[k]);
	}
	free(f);
}

void devfit_add(struct devfit *f, enum devfit_kind k, const unsigned int *dev,
		const double *x, unsigned int nx, double y, double w)
{
	size_t m = (size_t)f->nr + 1;
	double val[DEVFIT_MAX + 1];
	unsigned int idx[DEVFIT_MAX + 1], ni = 0;

	if (!isfinite(y) || !isfinite(w) || !(w > 0))
		return;
	/* The devices this equation names, in one pass: a CPU's row holds
	 * a few devices among many, and is called for every CPU. */
	for (unsigned int i = 0; i < nx; i++) {
		unsigned int j;

		if (x[i] == 0 || dev[i] >= f->nr || !isfinite(x[i]))
			continue;
		for (j = 0; j < ni && idx[j] != dev[i]; j++)
			;
		if (j == ni) {
			if (ni == DEVFIT_MAX)
				continue;
			idx[ni] = dev[i];
			val[ni++] = 0;
		}
		val[j] += x[i];
	}
	if (k == DEVFIT_HARD) {
		idx[ni] = f->nr;
		val[ni++] = 1;
	}
	for (unsigned int a = 0; a < ni; a++) {
		if (val[a] == 0)
			continue;
		for (unsigned int c = 0; c < ni; c++)
			f->n[k][idx[a] * m + idx[c]] += w * val[a] * val[c];
		f->b[k][idx[a]] += w * val[a] * y;
	}
}

void devfit_decay(struct devfit *f, double keep)
{
	size_t m = (size_t)f->nr + 1;

	for (int k = 0; k < DEVFIT_KINDS; k++) {
		for (size_t i = 0; i < m * m; i++)
			f->n[k][i] *= keep;
		for (size_t i = 0; i < m; i++) {
			f->b[k][i] *= keep;
			f->old[k][i] = f->n[k][i * m + i];
		}
	}
}

/* (N + diag(@lam)) m = b + @lam @t over the devices and the base (index
 * nr), by Gauss-Jordan elimination with partial pivoting; each device's
 * answer kept within @lo..@hi times its target. m[] keeps the targets
 * where the system is singular or a device has no equation. With @var,
 * each device's posterior variance, the diagonal of the inverse (the
 * prior's, 1/lam, where singular). */
static void solve_var(const struct devfit *f, enum devfit_kind k, const double *lam,
		      const double *t, double lo, double hi, double *m, double *var)
{
	size_t n = (size_t)f->nr + 1, w = var ? 2 * n + 1 : n + 1;
	double *a = malloc(n * w * sizeof(double));

	for (unsigned int i = 0; i < f->nr; i++) {
		m[i] = t[i];
		if (var)
			var[i] = lam[i] > 0 ? 1 / lam[i] : INFINITY;
	}
	if (!a)
		return;
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < n; j++)
			a[i * w + j] = f->n[k][i * n + j] + (i == j ? lam[i] : 0);
		a[i * w + n] = f->b[k][i] + lam[i] * t[i];
		for (size_t j = n + 1; j < w; j++)
			a[i * w + j] = j - n - 1 == i;
	}
	for (size_t col = 0; col < n; col++) {
		size_t piv = col;

		for (size_t r = col + 1; r < n; r++)
			if (fabs(a[r * w + col]) > fabs(a[piv * w + col]))
				piv = r;
		if (fabs(a[piv * w + col]) < 1e-300)
			goto out;
		if (piv != col)
			for (size_t c = 0; c < w; c++) {
				double x = a[col * w + c];

				a[col * w + c] = a[piv * w + c];
				a[piv * w + c] = x;
			}
		for (size_t r = 0; r < n; r++) {
			double q;

			if (r == col || a[r * w + col] == 0)
				continue;
			q = a[r * w + col] / a[col * w + col];
			for (size_t c = col; c < w; c++)
				a[r * w + c] -= q * a[col * w + c];
		}
	}
	for (unsigned int i = 0; i < f->nr; i++) {
		double v = a[i * w + n] / a[i * w + i];

		/* A device the equations never named keeps its target. */
		if (f->n[k][i * n + i] > 0 && isfinite(v))
			m[i] = fmin(fmax(v, lo * t[i]), hi * t[i]);
		if (var && isfinite(a[i * w + n + 1 + i] / a[i * w + i]))
			var[i] = a[i * w + n + 1 + i] / a[i * w + i];
	}
out:
	free(a);
}

static void solve(const struct devfit *f, enum devfit_kind k, const double *lam,
		  const double *t, double lo, double hi, double *m)
{
	solve_var(f, k, lam, t, lo, hi, m, NULL);
}

/* The equations' weights are inverse variances, so the prior is one too:
 * device i's multiplier is t_i within DEVFIT_SPREAD t_i, the base 0
 * within DEVFIT_BASE_US. The data decides wherever it is more precise
 * than that, however many windows it took to be; with none, the targets
 * are the answer. */
void devfit_solve(const struct devfit *f, enum devfit_kind k, const double *target,
		  double *m)
{
	size_t n = (size_t)f->nr + 1;
	double *lam = malloc(2 * n * sizeof(double)), *t;

	for (unsigned int i = 0; i < f->nr; i++)
		m[i] = target && target[i] > 0 && isfinite(target[i]) ? target[i] : 1;
	if (!lam)
		return;
	t = lam + n;
	for (size_t i = 0; i < f->nr; i++) {
		double s = DEVFIT_SPREAD * m[i];

		t[i] = m[i];
		lam[i] = 1 / (s * s);
	}
	t[f->nr] = 0;
	lam[f->nr] = 1 / (DEVFIT_BASE_US * DEVFIT_BASE_US);
	solve(f, k, lam, t, DEVFIT_MIN_M, DEVFIT_MAX_M, m);
	free(lam);
}

void devfit_solve_in(const struct devfit *f, enum devfit_kind k, double prior,
		     double lo, double hi, double *m)
{
	size_t n = (size_t)f->nr + 1;
	double *lam = malloc(2 * n * sizeof(double)), *t, tr = 0;
	unsigned int used = 0;

	for (unsigned int i = 0; i < f->nr; i++)
		m[i] = 1;
	if (!lam)
		return;
	t = lam + n;
	for (size_t i = 0; i < f->nr; i++)
		if (f->n[k][i * n + i] > 0) {
			tr += f->n[k][i * n + i];
			used++;
		}
	/* Each device's pull is @prior of the geometric mean of its own data
	 * and an average device's. Of the average's alone, a light device
	 * beside a busy one is held at 1 by a pull as strong as all its data
	 * (storage: nvme2's queues 50% high after the HBA's rebuild); of its
	 * own alone, devices nearly collinear in one window swing apart. */
	if (used) {
		tr /= used;
		for (size_t i = 0; i < n; i++) {
			lam[i] = prior * (i < f->nr ? sqrt(f->n[k][i * n + i] * tr) : tr);
			if (!(lam[i] > 0))
				lam[i] = prior * tr;
			t[i] = i < f->nr ? 1 : 0;
		}
		solve(f, k, lam, t, lo, hi, m);
	}
	free(lam);
}

/* How far the devices of group @g differ beyond their standard errors
 * (@var, the posterior's of @m): the chi-square of their costs about
 * their precision-weighted mean, and its degrees of freedom. */
static void spread_of(const struct devfit *f, enum devfit_kind k, const int *group,
		      unsigned int g, const double *m, const double *var,
		      struct devfit_group *ret)
{
	size_t n = (size_t)f->nr + 1;
	double sw = 0, swm = 0, c = 0;
	unsigned int used = 0;

	for (unsigned int i = 0; i < f->nr; i++)
		if (group[i] == (int)g && f->n[k][i * n + i] > 0 && var[i] > 0 &&
		    isfinite(var[i])) {
			sw += 1 / var[i];
			swm += m[i] / var[i];
			used++;
		}
	ret->chi2 = 0;
	ret->dof = used ? used - 1 : 0;
	if (used < 2)
		return;
	for (unsigned int i = 0; i < f->nr; i++)
		if (group[i] == (int)g && f->n[k][i * n + i] > 0 && var[i] > 0 &&
		    isfinite(var[i]))
			c += (m[i] - swm / sw) * (m[i] - swm / sw) / var[i];
	ret->chi2 = c;
}

/*
 * Two devices whose queues share every CPU one to one (a NIC queue and an
 * NVMe queue on each CPU of a node) cannot be told apart by any window's
 * equations: only their sum is known. devfit_solve() then splits that sum
 * as the class targets say, and a target that was itself fitted on
 * another device of the class (the other NIC, whose packets cost more)
 * can leave the storage device nothing. Here the class's cost is found
 * from the devices the equations do single out, and each device is held
 * to it only as far as that is known:
 *
 *  1. every device against its prior @prior (multipliers of the built-in
 *     costs: the built-in model or the measured costs), one standard
 *     deviation DEVFIT_WIDE of it: the data decides wherever it can;
 *  2. each group's (class's) cost: the mean of its devices' multipliers,
 *     each weighed by the precision its own data gave it (the posterior's
 *     less the prior's), with the prior's precision beside them; its
 *     relative standard error is how well the class is known;
 *  3. every device again, now against its class's cost, within
 *     DEVFIT_SPREAD of it beside that standard error: a device the data
 *     cannot single out costs what its class does where the class is
 *     known, and what the prior says where it is not.
 *
 * The equations' weights are inverse variances (a clock tick of the
 * window, the model's error), so "the data decides" means it is more
 * precise than the prior, over one window or the faded sum of many.
 */
void devfit_solve_pooled(const struct devfit *f, enum devfit_kind k, const int *group,
			 unsigned int nr_groups, const double *prior, double *m,
			 struct devfit_group *ret)
{
	size_t n = (size_t)f->nr + 1;
	double *lam = malloc(3 * n * sizeof(double)), *t, *var;

	for (unsigned int i = 0; i < f->nr; i++)
		m[i] = prior && prior[i] > 0 && isfinite(prior[i]) ? prior[i] : 1;
	for (unsigned int g = 0; g < nr_groups; g++)
		ret[g] = (struct devfit_group){ .m = 0, .rel_sd = DEVFIT_WIDE };
	if (!lam)
		return;
	t = lam + n;
	var = t + n;
	for (size_t i = 0; i < f->nr; i++) {
		t[i] = m[i];
		lam[i] = 1 / (DEVFIT_WIDE * t[i] * DEVFIT_WIDE * t[i]);
	}
	t[f->nr] = 0;
	lam[f->nr] = 1 / (DEVFIT_BASE_US * DEVFIT_BASE_US);
	solve_var(f, k, lam, t, DEVFIT_WIDE_MIN, DEVFIT_WIDE_MAX, m, var);
	for (unsigned int g = 0; g < nr_groups; g++)
		spread_of(f, k, group, g, m, var, &ret[g]);
	for (unsigned int g = 0; g < nr_groups; g++) {
		double sp = 0, sm = 0, st = 0, l0, nt = 0, old = 0, all = 0;

		for (unsigned int i = 0; i < f->nr; i++) {
			double pi;

			if (group[i] != (int)g)
				continue;
			pi = var[i] > 0 && isfinite(var[i]) ? fmax(0, 1 / var[i] - lam[i]) : 0;
			/* devices differ by DEVFIT_SPREAD beside their data's
			 * error: one precise device does not set the class
			 * alone (big's HBA for its eight NVMe drives) */
			if (pi > 0)
				pi = 1 / (1 / pi + DEVFIT_SPREAD * DEVFIT_SPREAD * t[i] * t[i]);
			sp += pi;
			sm += pi * m[i];
			st += t[i];
			nt++;
			old += f->old[k][i];
			all += f->n[k][i * n + i];
		}
		if (!nt)
			continue;
		st /= nt;	/* the group's prior: its devices' (alike) */
		l0 = 1 / (DEVFIT_WIDE * st * DEVFIT_WIDE * st);
		ret[g].m = (sm + l0 * st) / (sp + l0);
		ret[g].rel_sd = sqrt(1 / (sp + l0)) / ret[g].m;
		ret[g].prior = st;
		/* the data decides where it is more precise than the prior */
		ret[g].how = sp <= l0 ? DEVFIT_PRIOR :
			     all > 0 && old > all / 2 ? DEVFIT_CARRIED : DEVFIT_FITTED;
	}
	for (size_t i = 0; i < f->nr; i++) {
		int g = group[i];
		double s;

		if (g >= 0 && (unsigned int)g < nr_groups && ret[g].m > 0) {
			t[i] = ret[g].m;
			s = sqrt(DEVFIT_SPREAD * DEVFIT_SPREAD + ret[g].rel_sd * ret[g].rel_sd);
		} else {
			s = DEVFIT_SPREAD;
		}
		lam[i] = 1 / (s * t[i] * s * t[i]);
	}
	solve(f, k, lam, t, DEVFIT_MIN_M, DEVFIT_MAX_M, m);
	free(lam);
}
