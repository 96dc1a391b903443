// SPDX-License-Identifier: GPL-2.0-or-later
/* bpfsrc.c - the "bpf" load source: the kernel program (bpfload.c) loaded
 * for the window, what it summed read once at the end and turned into each
 * IRQ's load (measure.c), believed only when it agrees with
 * /proc/interrupts; and the pinned application threads' run time, where
 * its sched_switch probe summed it. In a replay, the measurement the
 * capture kept stands in for the program. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "appload.h"
#include "bpfload.h"
#include "fileio.h"
#include "loadsrc.h"
#include "measure.h"
#include "pathnames.h"
#include "strutil.h"

/* ls->priv, live. */
struct bpfsrc {
	struct bpfload *b;		/* NULL once read */
	enum bpfload_build build;
	char note[128];			/* the probes' cost, or why not measured */
	int threads, app;		/* bpfload_threads(), bpfload_app() */
};

/* Numbered entries of /proc/irq: how many IRQs the maps must hold. */
static unsigned int count_irqs(void)
{
	DIR *d = opendir(_PATH_PROC_IRQ);
	struct dirent *e;
	unsigned int n = 0;

	if (!d)
		return 1024;
	while ((e = readdir(d)))
		if (e->d_name[0] >= '0' && e->d_name[0] <= '9')
			n++;
	closedir(d);
	return n;
}

static int bpf_open(struct loadsrc *ls, const struct loadsrc_open *o)
{
	char why[LOADSRC_REASON_MAX - 64];
	struct bpfsrc *s;
	int r = 0;

	if (o->replay) {
		ls->raw = o->raw;
		return o->raw ? 0 : -ENODATA;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->build = o->build;
	if (o->not_native) {
		str_copy(why, sizeof(why), o->not_native);
		r = -EXDEV;
	} else if (geteuid() != 0) {
		snprintf(why, sizeof(why), "measuring needs root");
		r = -EPERM;
	}
	if (r == 0) {
		r = bpfload_open(count_irqs(), o->build, o->threads, o->app_cpus, &s->b, why,
				 sizeof(why));
		/* A forced build's refusal is not the kernel's last word. */
		if (r < 0 && o->build != BPFLOAD_BUILD_ANY)
			snprintf(why + strlen(why), sizeof(why) - strlen(why),
				 " (the one build IRQTUNE_BPF_BUILD allows)");
	}
	if (r < 0) {
		free(s);
		snprintf(ls->reason, sizeof(ls->reason), "the kernel program cannot run: %s", why);
		return r;
	}
	ls->priv = s;
	return 0;
}

static void bpf_describe(const struct loadsrc *ls, char *buf, size_t len)
{
	const struct bpfsrc *s = ls->priv;

	snprintf(buf, len, "measured in the kernel (%s%s)", bpfload_mode(s->b),
		 s->build == BPFLOAD_BUILD_ANY ? "" :
		 "; the one build IRQTUNE_BPF_BUILD allows");
}

static void bpf_start(struct loadsrc *ls)
{
	struct bpfsrc *s = ls->priv;

	bpfload_start(s->b);
}

static void bpf_tick(struct loadsrc *ls)
{
	struct bpfsrc *s = ls->priv;

	bpfload_tick(s->b);
}

static void bpf_end(struct loadsrc *ls)
{
	struct bpfsrc *s = ls->priv;

	bpfload_stop(s->b);
}

/* The program's maps into ls->raw, and what it said of itself; then it
 * goes: nothing more is wanted of the kernel. -EPROTO with @why when the
 * maps cannot be read. */
static int take_maps(struct loadsrc *ls, char *why, size_t len)
{
	struct bpfsrc *s = ls->priv;
	int r;

	str_copy(s->note, sizeof(s->note), bpfload_probe_note(s->b));
	s->threads = bpfload_threads(s->b);
	s->app = bpfload_app(s->b);
	r = bpfload_read(s->b, &ls->raw);
	bpfload_free(s->b);
	s->b = NULL;
	if (r < 0) {
		snprintf(why, len, "cannot read its maps: %s", strerror(-r));
		return -EPROTO;
	}
	return 0;
}

/* What the reason adds to a measurement that was used: the probes' own
 * cost, and what of the threads the program could not time. */
static void remarks(struct loadsrc *ls)
{
	const struct bpfsrc *s = ls->priv;
	char note[128] = "";
	size_t l;

	if (s)
		str_copy(note, sizeof(note), s->note);
	/* From the measurement, so that a replay says it too; the program's
	 * own words where it could not measure it. */
	if (measure_probe_note(ls->raw, note, sizeof(note)) == 0 || note[0]) {
		l = strlen(ls->reason);
		snprintf(ls->reason + l, sizeof(ls->reason) - l, "; %s", note);
	}
	if (s && s->threads < 0) {
		l = strlen(ls->reason);
		snprintf(ls->reason + l, sizeof(ls->reason) - l,
			 "; irq threads from /proc/PID/schedstat, their program was refused: %s",
			 strerror(-s->threads));
	}
	if (s && s->app < 0) {
		l = strlen(ls->reason);
		snprintf(ls->reason + l, sizeof(ls->reason) - l,
			 "; pinned application threads %s: %s", ls->raw->app_timed ?
			 "counted without the runs open at the window's end" :
			 "not counted, their program was refused", strerror(-s->app));
	}
}

static int bpf_read(struct loadsrc *ls, const struct loadsrc_window *w,
		    struct irq_activity **ret, char *why, size_t len)
{
	struct bpfsrc *s = ls->priv;
	struct irq_activity *meas = NULL;
	int r;

	if (s && s->b) {
		r = take_maps(ls, why, len);
		if (r < 0)
			return r;
	}
	r = sample_counts(w->a, w->b, &meas);
	if (r < 0)
		return r;	/* -EINVAL, -ENOMEM: never -EPROTO */
	r = measure_check(ls->raw, w->b->intr, meas, why, len);
	if (r == 0)
		r = measure_attribute(ls->raw, w->t, w->b->intr->nr_rows, meas);
	if (r < 0) {
		free(meas);
		return r == -ENOMEM ? r : -EPROTO;
	}
	/* Threads the program did not time: their /proc run time. */
	if (w->thr)
		irqthread_apply(w->thr, w->b->intr, w->b->when - w->a->when,
				!ls->raw->threads_timed, meas);
	remarks(ls);
	*ret = meas;
	return 0;
}

/* Where the program summed the pinned threads' run time (a replay:
 * where the capture holds that sum). */
static int bpf_app(const struct loadsrc *ls, unsigned int nr_ids, struct appload *ret)
{
	const struct measure_raw *raw = ls->raw;

	if (!raw || !raw->app_timed)
		return 0;
	ret->cpu = calloc(nr_ids ? nr_ids : 1, sizeof(*ret->cpu));
	if (!ret->cpu)
		return -ENOMEM;
	ret->nr_ids = nr_ids;
	if (measure_app(raw, ret->cpu, nr_ids) < 0) {
		appload_release(ret);
		return 0;
	}
	ret->kind = APPLOAD_BPF;
	snprintf(ret->reason, sizeof(ret->reason),
		 "the kernel program's sched_switch probe timed every pinned thread");
	return 0;
}

static void bpf_close(struct loadsrc *ls)
{
	struct bpfsrc *s = ls->priv;

	if (s)
		bpfload_free(s->b);
	free(s);
	ls->priv = NULL;
}

const struct loadsrc_ops loadsrc_bpf = {
	.name = "bpf",
	.open = bpf_open,
	.describe = bpf_describe,
	.window_start = bpf_start,
	.window_tick = bpf_tick,
	.window_end = bpf_end,
	.read = bpf_read,
	.app = bpf_app,
	.close = bpf_close,
};
