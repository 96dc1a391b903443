// SPDX-License-Identifier: GPL-2.0-or-later
/* procsrc.c - the "proc" load source: each IRQ's load estimated from the
 * window's two snapshots of /proc (estimate.c), with the run time of
 * threaded IRQs' threads added (irqthread.c). It needs nothing but the
 * snapshots every run takes, so it always opens: the last source of the
 * table, read beside a measurement and in place of one. */
#include "loadsrc.h"

static int proc_open(struct loadsrc *ls, const struct loadsrc_open *o)
{
	(void)ls;
	(void)o;
	return 0;
}

static int proc_read(struct loadsrc *ls, const struct loadsrc_window *w,
		     struct irq_activity **ret, char *why, size_t len)
{
	int r;

	(void)ls;
	(void)why;
	(void)len;
	r = estimate_proc_dev(w->a, w->b, w->class, w->hz, w->prior, w->dev, ret);
	if (r < 0)
		return r;
	if (w->thr)
		irqthread_apply(w->thr, w->b->intr, w->b->when - w->a->when, true, *ret);
	return 0;
}

const struct loadsrc_ops loadsrc_proc = {
	.name = "proc",
	.open = proc_open,
	.read = proc_read,
};
