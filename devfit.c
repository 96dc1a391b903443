/* devfit.c - per-device multipliers of the class costs, by ridge least
 * squares over normal equations kept across runs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "devfit.h"

/* How strongly the multipliers are pulled to 1, against an average
 * unknown's data: as estimate.c's priors are. */
#define DEVFIT_PRIOR	0.1

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
		const double *x, unsigned int nx, double y)
{
	size_t m = (size_t)f->nr + 1;
	double val[DEVFIT_MAX + 1];
	unsigned int idx[DEVFIT_MAX + 1], ni = 0;

	if (!isfinite(y))
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
			f->n[k][idx[a] * m + idx[c]] += val[a] * val[c];
		f->b[k][idx[a]] += val[a] * y;
	}
	f->rows[k] += 1;
}

void devfit_decay(struct devfit *f, double keep)
{
	size_t m = (size_t)f->nr + 1;

	for (int k = 0; k < DEVFIT_KINDS; k++) {
		for (size_t i = 0; i < m * m; i++)
			f->n[k][i] *= keep;
		for (size_t i = 0; i < m; i++)
			f->b[k][i] *= keep;
		f->rows[k] *= keep;
	}
}

void devfit_solve(const struct devfit *f, enum devfit_kind k, double *m)
{
	devfit_solve_in(f, k, DEVFIT_PRIOR, DEVFIT_MIN_M, DEVFIT_MAX_M, m);
}

void devfit_solve_in(const struct devfit *f, enum devfit_kind k, double prior,
		     double lo, double hi, double *m)
{
	size_t n = (size_t)f->nr + 1;
	double *a = malloc(n * (n + 1) * sizeof(double)), tr = 0;
	unsigned int used = 0;

	for (unsigned int i = 0; i < f->nr; i++)
		m[i] = 1;
	if (!a)
		return;
	for (size_t i = 0; i < f->nr; i++)
		if (f->n[k][i * n + i] > 0) {
			tr += f->n[k][i * n + i];
			used++;
		}
	if (!used || f->rows[k] <= 0) {
		free(a);
		return;
	}
	tr = prior * tr / used;
	/* (N + tr I) m = b + tr * prior: prior 1 for devices, 0 for the base. */
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < n; j++)
			a[i * (n + 1) + j] = f->n[k][i * n + j] + (i == j ? tr : 0);
		a[i * (n + 1) + n] = f->b[k][i] + (i < f->nr ? tr : 0);
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
				double t = a[col * (n + 1) + c];

				a[col * (n + 1) + c] = a[piv * (n + 1) + c];
				a[piv * (n + 1) + c] = t;
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

		/* A device the equations never named keeps the class cost. */
		m[i] = f->n[k][i * n + i] > 0 && isfinite(v) ?
		       fmin(fmax(v, lo), hi) : 1;
	}
out:
	free(a);
}
