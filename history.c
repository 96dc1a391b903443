// SPDX-License-Identifier: GPL-2.0-or-later
/* history.c - the arithmetic of the load history: each IRQ's window
 * weighed with its history into the mean a run plans with, the rule that
 * tells a shift from noise, and the evidence behind a mean. The file
 * format is state.c's. Pure: no I/O, no logging. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "history.h"
#include "state.h"

/* The history's record of @x: the same number, device and name. */
static const struct state_irq *find(const struct state *st, const struct state_sample *x)
{
	unsigned int lo = 0, hi = st ? st->nr : 0;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;
		const struct state_irq *q = &st->irqs[mid];

		if (q->irq == x->irq)
			return strcmp(q->device, x->device) == 0 &&
			       strcmp(q->name, x->name) == 0 ? q : NULL;
		if (q->irq < x->irq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

double history_mean_var(const struct state_irq *q)
{
	if (q->runs == 1 && q->shift_var >= 0 && q->weight >= HISTORY_EVIDENCE_SECS)
		return q->shift_var;
	if (q->runs < 2 || !(q->weight > 0))
		return -1;
	/* Var(sum w_j x_j / W) = var * sum w_j^2 / W^2, windows alike. */
	return q->var * q->weight2 / (q->weight * q->weight);
}

int history_update(const struct state *old, const struct state_sample *s, unsigned int n,
		   double when, double floor, double *ret_load, struct state **ret)
{
	/* A window's weight halves in HISTORY_HALF_LIFE runs; alpha is what
	 * the newest of windows alike weighs. */
	const double keep = exp2(-1.0 / HISTORY_HALF_LIFE), alpha = 1 - keep;
	struct state *st = calloc(1, sizeof(*st));

	if (!st)
		return -ENOMEM;
	st->irqs = calloc(n ? n : 1, sizeof(*st->irqs));
	if (!st->irqs) {
		free(st);
		return -ENOMEM;
	}
	st->when = when;
	for (unsigned int i = 0; i < n; i++) {
		const struct state_irq *h = find(old, &s[i]);
		struct state_irq *q = &st->irqs[st->nr++];
		double x = state_sane_load(s[i].load) ? s[i].load : 0;
		double secs = s[i].secs > 0 && isfinite(s[i].secs) ? s[i].secs : 1;

		q->irq = s[i].irq;
		str_copy(q->device, sizeof(q->device), s[i].device);
		str_copy(q->name, sizeof(q->name), s[i].name);
		q->weight = secs;
		q->weight2 = secs * secs;
		q->shift_var = -1;
		if (!h) {
			q->mean = x;
			q->runs = 1;
		} else {
			double d = x - h->mean;

			if (s[i].shifted ||
			    fabs(d) > 3 * sqrt(h->var) + HISTORY_SHIFT * h->mean + floor) {
				/* The variance learns every window, a shift's
				 * too, so a load that is noisy by nature is soon
				 * known as such. */
				q->shift_var = h->var;
				q->var = (1 - alpha) * (h->var + alpha * d * d);
				q->mean = x;
				q->runs = 1;
			} else {
				double g;

				q->weight = keep * h->weight + secs;
				q->weight2 = keep * keep * h->weight2 + secs * secs;
				g = secs / q->weight;
				q->var = (1 - g) * (h->var + g * d * d);
				q->mean = h->mean + g * d;
				q->runs = h->runs + 1;
			}
		}
		ret_load[i] = q->mean;
	}
	*ret = st;
	return 0;
}
