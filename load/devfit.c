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
		if (!f->n[k] || !f->b[k]) {
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
		for (size_t i = 0; i < m; i++)
			f->b[k][i] *= keep;
	}
}

/* (N + diag(@lam)) m = b + @lam @t over the devices and the base (index
 * nr), by Gaussian elimination with partial pivoting; each device's
 * answer kept within @lo..@hi times its target. m[] keeps the targets
 * where the system is singular or a device has no equation. */
static void solve(const struct devfit *f, enum devfit_kind k, const double *lam,
		  const double *t, double lo, double hi, double *m)
{
	size_t n = (size_t)f->nr + 1;
	double *a = malloc(n * (n + 1) * sizeof(double));

	for (unsigned int i = 0; i < f->nr; i++)
		m[i] = t[i];
	if (!a)
		return;
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < n; j++)
			a[i * (n + 1) + j] = f->n[k][i * n + j] + (i == j ? lam[i] : 0);
		a[i * (n + 1) + n] = f->b[k][i] + lam[i] * t[i];
	}
	for (size_t col = 0; col < n; col++) {
		size_t piv = col;

		for (size_t r = col + 1; r < n; r++)
			if (fabs(a[r * (n + 1) + col]) > fabs(a[piv * (n + 1) + col]))
				piv = r;
		if (fabs(a[piv * (n + 1) + col]) < 1e-300)
			goto out;
		if (piv != col)
			for (size_t c = 0; c <= n; c++) {
				double x = a[col * (n + 1) + c];

				a[col * (n + 1) + c] = a[piv * (n + 1) + c];
				a[piv * (n + 1) + c] = x;
			}
		for (size_t r = 0; r < n; r++) {
			double q;

			if (r == col || a[r * (n + 1) + col] == 0)
				continue;
			q = a[r * (n + 1) + col] / a[col * (n + 1) + col];
			for (size_t c = col; c <= n; c++)
				a[r * (n + 1) + c] -= q * a[col * (n + 1) + c];
		}
	}
	for (unsigned int i = 0; i < f->nr; i++) {
		double v = a[i * (n + 1) + n] / a[i * (n + 1) + i];

		/* A device the equations never named keeps its target. */
		if (f->n[k][i * n + i] > 0 && isfinite(v))
			m[i] = fmin(fmax(v, lo * t[i]), hi * t[i]);
	}
out:
	free(a);
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
