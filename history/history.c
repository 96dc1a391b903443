// SPDX-License-Identifier: GPL-2.0-or-later
/* history.c - the load history of earlier runs, and what a run makes of
 * it: kept on the kernel's own /proc in /run/irqtune/state, or wherever
 * state-dir says (a test machine's too). history_begin() reads it and sets
 * up the per-device fit for the estimate; history_long() estimates over
 * the interval since the last run's window; history_end() weighs each
 * IRQ's load with its history (its weighted mean over the windows since it
 * last shifted) and keeps the new history for the next run;
 * history_weigh_evidence() judges the plan on it. A history that cannot be
 * trusted, or kept, is left for the caller to name once, and the run goes
 * on without. The file format is state.c's; the arithmetic is here. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "costs.h"
#include "cpuset.h"
#include "devfit.h"
#include "device.h"
#include "fileio.h"
#include "history.h"
#include "pathnames.h"
#include "sample.h"
#include "source.h"
#include "state.h"
#include "strutil.h"

void history_release(struct history *h)
{
	state_free(h->old);
	state_free(h->saved);
	free(h->refused);
	devfit_free(h->fit);
	free(h->row_dev);
	free(h->dev_class);
	free(h->dev_m);
	free(h->ids);
	free(h->long_act);
	free(h->ev);
	free(h->window_load);
	free(h->mean_var);
	free(h->app_var);
	memset(h, 0, sizeof(*h));
}

static const char *group_key(const struct device_group *g)
{
	return g->id[0] ? g->id : g->label;
}

/* The refusals @h->old remembers, taken from it; an aged state (too old
 * for its loads) is then no history at all. */
static void take_refusals(struct history *h)
{
	h->refused = h->old->refused;
	h->nr_refused = h->old->nr_refused;
	h->old->refused = NULL;
	h->old->nr_refused = 0;
	if (h->old->aged) {
		state_free(h->old);
		h->old = NULL;
	}
}

/* This kernel's release, which refusals are remembered for; "" unknown. */
static void read_release(struct history *h)
{
	char buf[STATE_KEY_MAX];

	if (source_read(NULL, _PATH_OSRELEASE, buf, sizeof(buf)) < 0)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	str_copy(h->release, sizeof(h->release), buf);
}

static bool same_refusal(const struct state_refusal *f, const struct irq_info *ii,
			 const char *device, const char *release)
{
	return f->irq == ii->irq && release[0] && strcmp(f->release, release) == 0 &&
	       strcmp(f->device, device) == 0 && strcmp(f->name, ii->name) == 0;
}

static const char *irq_key(const struct device_map *map, const struct irq_info *ii)
{
	return ii->group >= 0 ? group_key(&map->groups[ii->group]) : "";
}

/* Whether @map's IRQ @ii is among the @nr refusals @v on this kernel. */
static bool refused_in(const struct state_refusal *v, unsigned int nr,
		       const struct device_map *map, const struct irq_info *ii,
		       const char *release)
{
	for (unsigned int k = 0; k < nr; k++)
		if (same_refusal(&v[k], ii, irq_key(map, ii), release))
			return true;
	return false;
}

unsigned int history_mark_refused(const struct history *h, struct device_map *map)
{
	unsigned int n = 0;

	for (unsigned int i = 0; h->on && i < map->nr_irqs; i++) {
		struct irq_info *ii = &map->irqs[i];

		if (ii->gone || !ii->name[0] ||
		    !refused_in(h->refused, h->nr_refused, map, ii, h->release))
			continue;
		ii->managed = true;
		ii->refused_before = true;
		n++;
	}
	return n;
}

/* Into @now, the refusals of @map's IRQs: those remembered that still
 * hold (same kernel, device and name), and those @refused in this run
 * (NULL: none), ascending. false when out of memory. */
static bool keep_refusals(const struct history *h, const struct device_map *map,
			  const bool *refused, struct state *now)
{
	struct state_refusal *v = calloc(map->nr_irqs + 1, sizeof(*v));
	unsigned int nr = 0;

	if (!v)
		return false;
	for (unsigned int i = 0; i < map->nr_irqs && h->release[0]; i++) {
		const struct irq_info *ii = &map->irqs[i];
		struct state_refusal *f = &v[nr];

		if (!(refused && refused[i]) &&
		    !refused_in(h->refused, h->nr_refused, map, ii, h->release))
			continue;
		/* map->irqs follows /proc/interrupts: ascending */
		if (nr && ii->irq <= v[nr - 1].irq)
			continue;
		f->irq = ii->irq;
		str_copy(f->device, sizeof(f->device), irq_key(map, ii));
		str_copy(f->name, sizeof(f->name), ii->name);
		str_copy(f->release, sizeof(f->release), h->release);
		nr++;
	}
	free(now->refused);
	now->refused = v;
	now->nr_refused = nr;
	return true;
}

int history_refused(struct history *h, const struct device_map *map, const bool *refused,
		    const char *boot)
{
	unsigned int before;
	int r;

	if (!h->on || !h->keep || !h->saved)
		return 0;
	before = h->saved->nr_refused;
	if (!keep_refusals(h, map, refused, h->saved))
		return -ENOMEM;
	if (h->saved->nr_refused == before)
		return 0;
	r = state_save(h->path, h->saved, boot);
	if (r < 0)
		snprintf(h->warn, sizeof(h->warn), "cannot remember the refused IRQs in %s: %s",
			 h->path, strerror(-r));
	return r;
}

/* Whether this run keeps a history (@o), and the one it found. -ENOMEM only. */
static int history_open(struct history *h, const struct history_opts *o, char *boot,
			size_t len)
{
	const char *dir = o->state_dir ? o->state_dir : _PATH_RUN_DIR;
	char why[256];
	int r;

	if (o->no_state) {
		snprintf(h->note, sizeof(h->note), "not used (--no-state)");
		return 0;
	}
	/* A capture changes nothing and a replay reads nothing of this
	 * machine: both plan from the window alone. */
	if (!o->live) {
		snprintf(h->note, sizeof(h->note), "not used by a capture or its replay");
		return 0;
	}
	if (!o->state_dir && !o->native) {
		snprintf(h->note, sizeof(h->note),
			 "not used: /proc is not the kernel's own, and no state-dir is set");
		return 0;
	}
	if (!boot[0] && costs_boot_id(boot, len) < 0) {
		snprintf(h->note, sizeof(h->note), "not used: no boot id");
		return 0;
	}
	h->on = true;
	read_release(h);
	/* A dry run changes nothing on the host: it plans with the history
	 * as a run that writes would, and leaves it as it was, unless a
	 * state-dir was set, a history of the caller's own to keep. */
	h->keep = !o->dry_run || o->state_dir;
	snprintf(h->path, sizeof(h->path), "%s/state", dir);
	r = state_load(h->path, boot, o->now, &h->old, why, sizeof(why));
	if (r == -ENOMEM)
		return r;
	if (r < 0 && r != -ENOENT && r != -ESTALE)
		snprintf(h->warn, sizeof(h->warn), "%s: %s; planning from this window alone",
			 h->path, why);
	if (r == 0)
		take_refusals(h);
	return 0;
}

/* The per-device fit runs with or without a history: one window's
 * equations already tell apart devices that hold CPUs in different
 * mixes; a history adds the runs before it. */
int history_begin(struct history *h, const struct history_opts *o,
		  const struct device_map *map, char *boot, size_t len)
{
	unsigned int nd = map->nr_groups, n = map->nr_irqs;
	int r;

	memset(h, 0, sizeof(*h));
	r = history_open(h, o, boot, len);
	if (r < 0)
		return r;
	if (nd == 0 || nd > DEVFIT_MAX)
		return 0;	/* the class costs do */
	h->ids = calloc(nd, sizeof(*h->ids));
	h->dev_class = calloc(nd, sizeof(*h->dev_class));
	h->dev_m = calloc(2 * (size_t)nd, sizeof(*h->dev_m));
	h->row_dev = calloc(n ? n : 1, sizeof(*h->row_dev));
	if (!h->ids || !h->dev_class || !h->dev_m || !h->row_dev)
		return -ENOMEM;
	for (unsigned int g = 0; g < nd; g++) {
		h->ids[g] = group_key(&map->groups[g]);
		h->dev_class[g] = map->groups[g].class;
	}
	for (unsigned int i = 0; i < n; i++)
		h->row_dev[i] = map->irqs[i].group;
	h->fit = state_fit_for(h->old, h->ids, nd);
	if (!h->fit)
		return -ENOMEM;
	/* The runs before this one fade by a run's worth; this run's
	 * equations join them, and the estimate solves the sum. */
	devfit_decay(h->fit, exp2(-1.0 / HISTORY_HALF_LIFE));
	h->dev = (struct estimate_dev){
		.nr = nd, .row_dev = h->row_dev, .dev_class = h->dev_class, .fit = h->fit,
		.found = &h->found,
	};
	return 0;
}

/* From cron the interval is nearly a minute, so a CPU's time is known to a
 * sixtieth of a tick, and the per-device fit takes that interval's
 * equations. history_end() plans with the interval and the window
 * together unless the window says the load changed since. Only for the
 * proc source: a measurement covers its own window only. */
int history_long(struct history *h, const struct snapshot *a, const struct snapshot *b,
		 const enum irq_class *class, long hz, const struct estimate_prior *prior,
		 bool measured)
{
	const struct snapshot *prev = h->old ? h->old->snap : NULL;
	int r;

	if (!h->on || measured)
		return 0;
	if (!prev) {
		snprintf(h->long_why, sizeof(h->long_why), "%s",
			 h->old ? "the last run kept no counters" : "");
		return 0;
	}
	if (!state_snap_usable(prev, a, b, h->long_why, sizeof(h->long_why)))
		return 0;
	if (h->fit) {
		h->ev = calloc((size_t)h->dev.nr * SOFTIRQ_NR, sizeof(*h->ev));
		if (!h->ev)
			return -ENOMEM;
		h->dev.ev_keep = h->ev;
	}
	h->dev.m_keep = h->dev_m;
	r = estimate_proc_dev(prev, a, class, hz, prior, h->fit ? &h->dev : NULL,
			      &h->long_act);
	h->dev.ev_keep = NULL;
	h->dev.m_keep = NULL;
	if (r < 0) {
		snprintf(h->long_why, sizeof(h->long_why), "%s", strerror(-r));
		return r == -ENOMEM ? r : 0;
	}
	h->long_s = a->when - prev->when;
	if (h->fit) {
		/* The run's equations are the interval's; the window's
		 * second would add nothing but its clock ticks' noise. */
		h->dev.hard_m = h->dev_m;
		h->dev.soft_m = h->dev_m + h->dev.nr;
		h->dev.fit = NULL;
		/* which device raises which softirqs: the minute says it
		 * better than the second */
		h->dev.ev_use = h->ev;
	}
	return 0;
}

/* A CPU's time is counted to a clock tick @tick of the window, and the
 * estimate's split of it moves with the mix, a tenth of the load. Beyond
 * that the window is the news: planned as it is, its history restarted. */
bool history_window_shifted(double s, double l, double tick)
{
	return fabs(s - l) > 0.1 * l + tick;
}

/* This window's samples, each IRQ's load first weighed with the longer
 * interval before it unless it shifted since. */
static void window_samples(const struct history *h, const struct history_window *w,
			   double tick, struct state_sample *smp)
{
	const struct device_map *map = w->map;

	for (unsigned int i = 0; i < map->nr_irqs; i++) {
		const struct irq_info *ii = &map->irqs[i];
		struct irq_activity *ac = &w->act[i];
		double secs = w->secs;
		bool shifted = false;

		h->window_load[i] = ac->load;
		if (h->long_act && !w->measured) {
			const struct irq_activity *g = &h->long_act[i];
			double wg = h->long_s / (h->long_s + secs), ws = 1 - wg;

			/* The history has no irq threads' time (it
			 * keeps /proc/stat's): the window's stands for it. */
			double gl = g->load + ac->thread;

			shifted = history_window_shifted(ac->load, gl, tick);
			if (!shifted) {
				ac->load = wg * gl + ws * ac->load;
				ac->hard = wg * g->hard + ws * ac->hard;
				ac->soft = wg * g->soft + ws * ac->soft;
				secs += h->long_s;
			}
		}
		smp[i] = (struct state_sample){
			.irq = ii->irq, .name = ii->name, .load = ac->load, .secs = secs,
			.shifted = shifted,
			.device = ii->group >= 0 ? map->groups[ii->group].id : "",
		};
	}
}

/* What the report says of the history kept. */
static void end_note(struct history *h, const struct history_window *w,
		     const struct state *now)
{
	size_t l;

	snprintf(h->note, sizeof(h->note), "%s %s",
		 h->old ? "loads weighed with the history in" :
		 h->keep ? "history started in" : "no history yet in", h->path);
	l = strlen(h->note);
	if (h->long_act && !w->measured)
		snprintf(h->note + l, sizeof(h->note) - l,
			 "; estimated over the %.0f s since the last run's window",
			 h->long_s + w->secs);
	else if (h->long_why[0] && !w->measured)
		snprintf(h->note + l, sizeof(h->note) - l, "; this window alone: %s",
			 h->long_why);
	l = strlen(h->note);
	if (!h->keep)
		snprintf(h->note + l, sizeof(h->note) - l, "; not kept by a dry run");
	else if (!now->snap)
		snprintf(h->note + l, sizeof(h->note) - l,
			 "; too many counters to keep for the next run");
}

/* The fit's devices and equations go into the state kept. */
static int keep_fit(struct history *h, struct state *now)
{
	now->devs = calloc(h->dev.nr, sizeof(*now->devs));
	if (!now->devs)
		return -ENOMEM;
	for (unsigned int g = 0; g < h->dev.nr; g++) {
		str_copy(now->devs[g].id, sizeof(now->devs[g].id), h->ids[g]);
		now->devs[g].class = h->dev_class[g];
	}
	now->nr_dev = h->dev.nr;
	now->fit = h->fit;
	h->fit = NULL;
	return 0;
}

/* Per CPU id below @nr, the IRQ load it served in the window (each IRQ's
 * weighed load on the CPU that served most of its interrupts). */
static void cpu_irq_load(const struct history_window *w, unsigned int nr, double *ret)
{
	for (unsigned int i = 0; i < w->map->nr_irqs; i++) {
		int c = w->act[i].top_cpu;

		if (c >= 0 && (unsigned int)c < nr && state_sane_load(w->act[i].load))
			ret[c] += w->act[i].load;
	}
}

/* Each online CPU's application load weighed with its history, as an
 * IRQ's is (history_update(), keyed by CPU id), into @w->app, and kept in
 * @now while any CPU has some: in its window, or a mean above @floor. A
 * mean fades and never reaches 0; once every CPU's is below what a window
 * can tell, the application is gone: the window is planned and no
 * history kept, as on a machine without pinned threads. Only the
 * window's: the threads' times of the interval before it are not kept.
 * A CPU whose IRQ load moved by more than HISTORY_APP_IRQ_MOVED since the
 * last run starts from its window. -ENOMEM only. */
static int app_end(struct history *h, const struct history_window *w, double floor,
		   struct state *now)
{
	struct state old = { 0 }, *st = NULL;
	unsigned int nr = w->nr_app_ids, n = 0;
	struct state_sample *smp;
	double *load, *irq;
	bool any = false;
	int r;

	if (!w->app || !nr)
		return 0;
	smp = calloc(nr, sizeof(*smp));
	load = calloc(nr, sizeof(*load));
	irq = calloc(nr, sizeof(*irq));
	old.irqs = calloc(nr, sizeof(*old.irqs));
	if (!smp || !load || !irq || !old.irqs) {
		r = -ENOMEM;
		goto out;
	}
	cpu_irq_load(w, nr, irq);
	/* The histories that go on: not of another count of CPU ids (another
	 * machine's numbering), nor of a CPU whose IRQ load moved since, whose
	 * window is a new measure (not a shift of the old: its variance would
	 * learn irqtune's own move as the application's noise). */
	if (h->old && h->old->nr_app_ids == nr)
		for (unsigned int k = 0; k < h->old->nr_app && old.nr < nr; k++) {
			const struct state_irq *q = &h->old->app[k];

			if (q->irq < nr &&
			    !(fabs(irq[q->irq] - q->cpu_irq) > HISTORY_APP_IRQ_MOVED + floor))
				old.irqs[old.nr++] = *q;
		}
	/* An offline CPU is left out: its history ends, and one that comes
	 * back starts afresh. */
	for (unsigned int c = 0; c < nr; c++)
		if (!w->app_online || cpuset_test(w->app_online, c))
			smp[n++] = (struct state_sample){
				.irq = c, .device = "", .name = "", .load = w->app[c],
				.secs = w->secs,
			};
	r = history_update(&old, smp, n, w->now, floor, load, &st);
	if (r < 0)
		goto out;
	for (unsigned int k = 0; k < n; k++)
		st->irqs[k].cpu_irq = irq[smp[k].irq];
	for (unsigned int k = 0; k < n; k++)
		any |= smp[k].load > 0 || load[k] > floor;
	if (any) {
		h->app_var = calloc(nr, sizeof(*h->app_var));
		if (!h->app_var) {
			r = -ENOMEM;
			goto out;
		}
		h->nr_app_var = nr;
		for (unsigned int k = 0; k < n; k++) {
			w->app[smp[k].irq] = load[k];
			h->app_var[smp[k].irq] = fmax(0, history_mean_var(&st->irqs[k]));
		}
		now->app = st->irqs;
		now->nr_app = st->nr;
		now->nr_app_ids = nr;
		st->irqs = NULL;
	}
out:
	state_free(st);
	free(smp);
	free(load);
	free(irq);
	free(old.irqs);
	return r;
}

int history_end(struct history *h, const struct history_window *w, const char *boot)
{
	struct state *now = NULL;
	struct state_sample *smp;
	double *load;
	unsigned int n = w->map->nr_irqs;
	/* A clock tick of the window with the /proc source. */
	double tick = 1.0 / ((double)w->hz * w->secs);
	int r;

	if (!h->on)
		return 0;
	smp = calloc(n ? n : 1, sizeof(*smp));
	load = calloc(n ? n : 1, sizeof(*load));
	h->window_load = calloc(n ? n : 1, sizeof(*h->window_load));
	h->mean_var = calloc(n ? n : 1, sizeof(*h->mean_var));
	if (!smp || !load || !h->window_load || !h->mean_var) {
		r = -ENOMEM;
		goto out;
	}
	window_samples(h, w, tick, smp);
	/* What a load must move by to be more than rounding: a clock tick of
	 * the window with the /proc source, a thousandth of a CPU measured. */
	r = history_update(h->old, smp, n, w->now, w->measured ? 0.001 : tick, load, &now);
	if (r < 0)
		goto out;
	for (unsigned int i = 0; i < n; i++) {
		w->act[i].load = load[i];
		h->mean_var[i] = history_mean_var(&now->irqs[i]);
	}
	if (h->fit) {
		r = keep_fit(h, now);
		if (r < 0)
			goto out;
	}
	r = app_end(h, w, w->app_measured ? 0.001 : tick, now);
	if (r < 0)
		goto out;
	if (state_snap_keepable(w->b)) {
		now->snap = w->b;
		now->snap_lent = true;
	}
	if (!keep_refusals(h, w->map, NULL, now)) {
		r = -ENOMEM;
		goto out;
	}
	end_note(h, w, now);
	r = h->keep ? state_save(h->path, now, boot) : 0;
	if (r < 0) {
		snprintf(h->warn, sizeof(h->warn), "cannot keep the load history in %s: %s%s",
			 h->path, strerror(-r), r == -ELOOP || r == -EPERM ?
			 " (not a file or directory of ours: refusing it)" : "");
		snprintf(h->note, sizeof(h->note), "not kept: %s: %s", h->path, strerror(-r));
	}
	r = 0;
	/* Kept for history_refused(), after the writes (the window's end it
	 * lends is still the run's then). */
	state_free(h->saved);
	h->saved = h->keep ? now : NULL;
	if (h->saved)
		now = NULL;
out:
	state_free(now);
	free(smp);
	free(load);
	return r == -ENOMEM ? r : 0;
}

/* With a history behind every busy IRQ, a plan is judged on the evidence
 * of several windows, not one: the loads are known to the standard error
 * of their weighted means (the busiest CPU's, as they sit now), not to a
 * clock tick of one window, and the caller may then hold the plan to a
 * smaller threshold (plan.h's PLAN_EVIDENCE_THRESHOLD, where the site set
 * none). A load that shifted in the minute since the last run is known
 * from that minute as well as it was before (history_mean_var); a new
 * IRQ, or one that shifted within a short window, has one window only,
 * and the one-window rules stand. */
int history_weigh_evidence(struct history *h, const struct history_placed *ip,
			   unsigned int nr, unsigned int nr_ids, double idle_load,
			   double stability, double *ret_resolution)
{
	double *var, worst = 0;
	unsigned int busy = 0;
	size_t l;

	if (!h->mean_var)
		return 0;
	var = calloc(nr_ids ? nr_ids : 1, sizeof(*var));
	if (!var)
		return -ENOMEM;
	for (unsigned int i = 0; i < nr; i++) {
		if (ip[i].fixed || !(ip[i].load > idle_load))
			continue;
		if (h->mean_var[i] < 0 || ip[i].served < 0 ||
		    (unsigned int)ip[i].served >= nr_ids) {
			free(var);
			return 0;
		}
		var[ip[i].served] += h->mean_var[i];
		busy++;
	}
	/* A CPU's application load is known to its mean's standard error
	 * too: a noisy application's CPUs, a few per cent apart by chance,
	 * are not a reason to move (none where it has one window). */
	for (unsigned int c = 0; c < nr_ids && c < h->nr_app_var; c++)
		var[c] += h->app_var[c];
	for (unsigned int c = 0; c < nr_ids; c++)
		worst = fmax(worst, var[c]);
	free(var);
	/* An idle machine has nothing to judge: its IRQs spread by count. */
	if (!busy)
		return 0;
	*ret_resolution = sqrt(worst);
	l = strlen(h->note);
	snprintf(h->note + l, sizeof(h->note) - l,
		 "; every busy IRQ has a history: plans judged to %.2f%% of a CPU, threshold %.0f%%",
		 *ret_resolution * 100, stability * 100);
	return 1;
}

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
