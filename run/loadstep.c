// SPDX-License-Identifier: GPL-2.0-or-later
/* loadstep.c - each IRQ's load for the plan, from the load source, the
 * recorded costs and the load history; see loadstep.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "costs.h"
#include "device.h"
#include "fileio.h"
#include "loadstep.h"
#include "log.h"
#include "pathnames.h"
#include "plan.h"
#include "replay.h"
#include "source.h"
#include "strutil.h"

static double realtime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int loadstep_targets(const struct device_map *map, enum irq_class **ret_class,
		     struct measure_target **ret_target)
{
	size_t n = map->nr_irqs ? map->nr_irqs : 1;
	enum irq_class *class = calloc(n, sizeof(*class));
	struct measure_target *target = calloc(n, sizeof(*target));

	if (!class || !target) {
		free(class);
		free(target);
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < map->nr_irqs; i++) {
		const struct irq_info *ii = &map->irqs[i];

		class[i] = ii->class;
		target[i] = (struct measure_target){
			.irq = ii->irq, .class = ii->class, .group = ii->group,
			.label = ii->group >= 0 ? map->groups[ii->group].label : NULL,
		};
	}
	*ret_class = class;
	*ret_target = target;
	return 0;
}

/* A replay's missing or malformed member, named once with the capture:
 * -EBADMSG. */
static int bad_capture(const struct loadstep_input *in, const char *what, unsigned int line,
		       const char *why)
{
	if (line)
		log_msg(LOG_ERR, "capture %s: %s:%u: %s", in->capture, what, line, why);
	else
		log_msg(LOG_ERR, "capture %s: %s: %s", in->capture, what, why);
	return -EBADMSG;
}

/* A replay's load source: the measurement the capture holds, and what
 * the captured run said on choosing. */
static int choose_replayed(struct loadstep *ls, const struct loadstep_input *in)
{
	const struct capture_member *m = capture_get(in->fs->cap, REPLAY_MEASURE);
	const struct loadsrc_ops *wanted = NULL, *last = loadsrc_last(loadsrc_table);
	struct measure_raw *raw = NULL;
	unsigned int line = 0;
	char want[16];
	int r;

	/* The last source, the estimate, needs no measurement: a capture's
	 * is not even read for it. */
	(void)loadsrc_find(loadsrc_table, in->want, &wanted);
	if (m && m->data && wanted != last) {
		r = replay_parse_measure(m->data, &raw, &line);
		if (r == -ENOMEM)
			log_msg(LOG_ERR, "out of memory");
		if (r < 0)
			return r == -ENOMEM ? r : bad_capture(in, REPLAY_MEASURE, line,
							      "not a measurement line");
	}
	if (!replay_meta_get(in->fs->cap, "load-source-begin", ls->begin_reason,
			     sizeof(ls->begin_reason)))
		str_copy(ls->begin_reason, sizeof(ls->begin_reason), "not recorded");
	if (!raw && replay_meta_get(in->fs->cap, "load-source-wanted", want, sizeof(want)) &&
	    strcmp(want, last->name) == 0)
		snprintf(ls->begin_reason, sizeof(ls->begin_reason),
			 "the capture holds no measurement (taken with --load-source=%s)",
			 last->name);
	r = loadsrc_replay(in->src, loadsrc_table, in->want, raw, ls->begin_reason);
	if (r < 0)
		log_msg(LOG_ERR, "load source %s: %s", loadsrc_wanted(in->src), in->src->reason);
	return r;
}

int loadstep_choose(struct loadstep *ls, const struct loadstep_input *in)
{
	bool replay = in->fs->mode == SOURCE_REPLAY, native = !replay && loadsrc_native();
	struct loadsrc_open o = { .build = in->build };
	int r;

	/* Threaded IRQs' threads, found before the program is loaded: it
	 * times them only where there are some. A test tree's IRQs are not
	 * this kernel's: its processes are not looked at. */
	if ((replay || native) && irqthread_find(in->fs, in->thr) < 0) {
		log_msg(LOG_ERR, "out of memory");
		return -ENOMEM;
	}
	/* Application threads: the same, but for a test tree that renders
	 * its machine's own. */
	if (in->app)
		appload_decide(in->app, native, replay);
	if (in->fs->mode == SOURCE_REPLAY)
		return choose_replayed(ls, in);
	o.threads = in->thr->nr > 0;
	o.app_cpus = in->eligible;
	r = loadsrc_begin(in->src, loadsrc_table, in->want, &o);
	str_copy(ls->begin_reason, sizeof(ls->begin_reason), in->src->reason);
	if (r < 0)
		log_msg(LOG_ERR, "load source %s: %s", loadsrc_wanted(in->src), in->src->reason);
	return r;
}

static void window_begins(void *ctx)
{
	const struct loadstep_input *in = ctx;

	loadsrc_start(in->src);
}

static void window_tick(void *ctx)
{
	const struct loadstep_input *in = ctx;

	loadsrc_tick(in->src);
}

/* The irq threads' and the application threads' run times at the same
 * end of the window. */
static void window_taken(void *ctx, const char *tag, int n)
{
	const struct loadstep_input *in = ctx;

	irqthread_sample(in->fs, tag, in->thr, n % 2 ? 0 : 1);
	/* Out of memory, it measures none and says so in its reason. */
	if (in->app)
		(void)appload_sample(in->fs, tag, in->app, n % 2 ? 0 : 1);
}

/* Why the window's snapshot @w->tag failed, said once. */
static int window_failed(const struct loadstep_input *in, const struct sample_window *w, int r)
{
	char what[64], why[128];

	if (w->no_time)
		return bad_capture(in, CAPTURE_META, 0, "no valid time of a snapshot");
	if (in->fs->mode == SOURCE_REPLAY) {
		snprintf(what, sizeof(what), "%s%s", w->tag, w->path ? w->path : "/proc");
		snprintf(why, sizeof(why), "cannot parse: %s", strerror(-r));
		return bad_capture(in, what, w->line, w->line ? why :
				   r == -ENOENT ? "missing" : strerror(-r));
	}
	if (w->line)
		log_msg(LOG_ERR, "%s:%u: cannot parse: %s", w->path, w->line, strerror(-r));
	else
		log_msg(LOG_ERR, "cannot read %s: %s", w->path ? w->path : "/proc", strerror(-r));
	return r;
}

int loadstep_window(const struct loadstep_input *in)
{
	struct sample_window *w = in->win;
	struct capture *cap = in->fs->mode == SOURCE_REPLAY ? in->fs->cap : NULL;
	char counts[32], reason[SAMPLE_REASON_MAX], tag[24];
	int r;

	w->src = in->fs;
	w->seconds = in->seconds;
	w->begin = window_begins;
	w->taken = window_taken;
	/* A source may take the window in steps (the program's cost per run:
	 * bpfload_tick). */
	w->tick = loadsrc_ticks(in->src) ? window_tick : NULL;
	w->ctx = (void *)in;
	for (int n = 0; n < 4; n++) {
		snprintf(tag, sizeof(tag), "snapshot-%d", n + 1);
		if (!cap || replay_meta_double(cap, tag, &w->replayed[n]) < 0)
			w->replayed[n] = NAN;
	}
	sample_choose_counts(w, in->counts_env, in->online,
			     cap ? replay_meta_get(cap, "counts", counts, sizeof(counts)) : NULL,
			     cap ? replay_meta_get(cap, "counts-reason", reason,
						   sizeof(reason)) : NULL);
	r = sample_window_take(w);
	w->ctx = NULL;
	loadsrc_stop(in->src);
	return r < 0 ? window_failed(in, w, r) : 0;
}

/* USER_HZ of /proc/stat: this kernel's, or the captured one's. */
static int clock_ticks(const struct loadstep_input *in, long *ret)
{
	if (in->fs->mode != SOURCE_REPLAY) {
		*ret = sysconf(_SC_CLK_TCK);
		return 0;
	}
	if (replay_meta_hz(in->fs->cap, ret) < 0)
		return bad_capture(in, CAPTURE_META, 0, "no valid hz");
	return 0;
}

/* The costs a measured run recorded, when they are this boot's and fresh;
 * a file that is there but not to be trusted is named once, and ignored.
 * Through in->fs: a capture keeps the file, the boot id and the time it
 * was judged at (meta "costs-now"), and a replay judges them again.
 * Costs measured on this kernel describe no other machine; a replay's are
 * the captured machine's, if its run read any. */
static void load_costs(struct loadstep *ls, const struct loadstep_input *in)
{
	char why[256];
	int r;

	if (!in->src->native && in->fs->mode != SOURCE_REPLAY)
		return;
	if (in->fs->mode == SOURCE_REPLAY) {
		/* No time: the captured run read no costs. */
		if (replay_meta_double(in->fs->cap, "costs-now", &ls->costs_now) < 0)
			return;
	} else {
		ls->costs_now = realtime();
	}
	r = costs_read(in->fs, _PATH_COSTS, ls->costs_now, ls->boot, sizeof(ls->boot),
		       &ls->costs, &ls->costs_when, why, sizeof(why));
	if (r < 0 && r != -ENOENT && r != -ESTALE)
		log_msg(LOG_WARNING, "%s: %s; estimating with the built-in costs",
			_PATH_COSTS, why);
	ls->have_costs = r == 0;
}

/* A measured run leaves its per-event costs for the runs that can only
 * estimate. Not having done so is no failure of this run: a warning. An
 * estimate says how old the costs it used were, so that a replay says
 * what the captured run said. */
static void costs_after(struct loadstep *ls, const struct loadstep_input *in)
{
	const struct estimate_prior *prev = ls->have_costs ? &ls->costs : NULL;
	struct loadsrc *src = in->src;
	size_t l = strlen(src->reason);
	int r;

	/* A dry run leaves the host as it was, unless a state-dir asks it
	 * to keep its state as a run that writes does (history.c). */
	if (loadsrc_measured(src) && in->fs->mode != SOURCE_REPLAY &&
	    (!in->dry_run || in->state_dir)) {
		r = costs_record(_PATH_COSTS, src->raw, ls->target, in->map->nr_irqs, prev,
				 ls->boot, realtime());
		if (r < 0)
			log_msg(LOG_WARNING, "cannot record the measured costs in %s: %s%s",
				_PATH_COSTS, strerror(-r), r == -ELOOP || r == -EPERM ?
				" (not a file or directory of ours: refusing it)" : "");
	} else if (!loadsrc_measured(src) && ls->have_costs) {
		snprintf(src->reason + l, sizeof(src->reason) - l,
			 "; per-event costs as measured %.0f min ago",
			 fmax(0, ls->costs_now - ls->costs_when) / 60);
	}
}

/* What the load history's last call left to say: its note for the report,
 * and a warning, named once. */
static void history_said(struct loadstep *ls)
{
	str_copy(ls->note, sizeof(ls->note), ls->hist.note);
	if (ls->hist.warn[0])
		log_msg(LOG_WARNING, "%s", ls->hist.warn);
	ls->hist.warn[0] = '\0';
}

/* The load history before the estimate: whether this run keeps one, the
 * per-device fit it lends the estimate, and the interval since the last
 * run's window. -ENOMEM only. */
static int begin_history(struct loadstep *ls, const struct loadstep_input *in)
{
	struct history_opts o = {
		.no_state = in->no_state,
		.live = in->fs->mode == SOURCE_LIVE,
		.native = in->src->native,
		.dry_run = in->dry_run,
		.state_dir = in->state_dir,
		.now = realtime(),
	};
	int r;

	r = history_begin(&ls->hist, &o, in->map, ls->boot, sizeof(ls->boot));
	history_said(ls);
	if (r < 0)
		return r;
	return history_long(&ls->hist, &in->win->a, &in->win->b, ls->class, ls->hz,
			    ls->have_costs ? &ls->costs : NULL, loadsrc_measures(in->src));
}

/* The window's loads weighed with the history, which is kept for the next
 * run: the IRQs', and the pinned application load per CPU (the window's
 * own kept in ls->app.window for the report). -ENOMEM only. */
static int end_history(struct loadstep *ls, const struct loadstep_input *in)
{
	struct appload *a = &ls->app;
	struct history_window w = {
		.map = in->map,
		.act = ls->act,
		.b = &in->win->b,
		.secs = in->win->b.when - in->win->a.when,
		.hz = ls->hz,
		.measured = loadsrc_measured(in->src),
		.now = realtime(),
		.app_online = in->app ? in->app->online : NULL,
		.app_measured = a->kind == APPLOAD_BPF,
	};
	int r;

	if (ls->hist.on && a->kind != APPLOAD_NONE && a->cpu && a->nr_ids) {
		a->window = malloc(a->nr_ids * sizeof(*a->window));
		if (!a->window) {
			log_msg(LOG_ERR, "out of memory");
			return -ENOMEM;
		}
		memcpy(a->window, a->cpu, a->nr_ids * sizeof(*a->window));
		w.app = a->cpu;
		w.nr_app_ids = a->nr_ids;
	}
	r = history_end(&ls->hist, &w, ls->boot);
	/* the report shows each window's own load beside the planned one */
	ls->window_load = ls->hist.window_load;
	ls->hist.window_load = NULL;
	history_said(ls);
	return r;
}

/* The pinned application load over the window: the load source's where
 * it timed some (appload_choose), else /proc's. -ENOMEM only. */
static int app_load(struct loadstep *ls, const struct loadstep_input *in)
{
	struct appload proc, bpf;
	int r;

	if (!in->app || !in->app->active) {
		snprintf(ls->app.reason, sizeof(ls->app.reason), "%s",
			 !in->app ? "not measured: app-weight = 0" : in->app->reason);
		return 0;
	}
	r = appload_compute(in->app, in->win->b.when - in->win->a.when, ls->hz, in->nr_ids,
			    &proc);
	if (r == 0) {
		r = loadsrc_app(in->src, in->nr_ids, &bpf);
		if (r < 0)
			appload_release(&proc);
	}
	if (r < 0) {
		log_msg(LOG_ERR, "out of memory");
		return r;
	}
	appload_choose(&bpf, &proc, &ls->app);
	return 0;
}

/* Each IRQ's load from the load source, into ls->act; what it measured
 * kept in a capture, whether it was used or not. -errno, said. */
static int read_source(struct loadstep *ls, const struct loadstep_input *in)
{
	const struct loadsrc_window w = {
		.a = &in->win->a, .b = &in->win->b, .t = ls->target, .class = ls->class,
		.hz = ls->hz, .prior = ls->have_costs ? &ls->costs : NULL,
		.dev = ls->hist.fit ? &ls->hist.dev : NULL, .thr = in->thr,
	};
	int r = loadsrc_finish(in->src, &w, &ls->act);

	replay_keep_measure(in->fs, in->src->raw);
	if (r == -EPROTO)
		log_msg(LOG_ERR, "load source %s: %s", loadsrc_wanted(in->src), in->src->reason);
	else if (r < 0)
		log_msg(LOG_ERR, "cannot compare the two samples: %s", strerror(-r));
	return r;
}

int loadstep_weigh(struct loadstep *ls, const struct loadstep_input *in)
{
	int r;

	r = loadstep_targets(in->map, &ls->class, &ls->target);
	if (r < 0)
		return r;
	load_costs(ls, in);
	r = clock_ticks(in, &ls->hz);
	if (r == 0)
		r = begin_history(ls, in);
	if (r == 0)
		r = read_source(ls, in);
	if (r < 0)
		return r;
	/* the interval's fit where there was one, else the window's */
	if (!loadsrc_measured(in->src))
		ls->found = ls->hist.found;
	costs_after(ls, in);
	/* the application load first: the history weighs it too */
	r = app_load(ls, in);
	return r < 0 ? r : end_history(ls, in);
}

int loadstep_evidence(struct loadstep *ls, const struct plan_irq *pi, unsigned int nr,
		      unsigned int nr_ids, bool threshold_auto, struct plan_policy *pol)
{
	/* where the site set no threshold, a gain the evidence can tell
	 * is worth a move */
	double stability = threshold_auto ? PLAN_EVIDENCE_THRESHOLD : pol->threshold;
	struct history_placed *ip = NULL;
	double resolution = 0;
	int r = 0;

	if (ls->hist.mean_var) {
		ip = calloc(nr ? nr : 1, sizeof(*ip));
		if (!ip)
			return -ENOMEM;
		for (unsigned int i = 0; i < nr; i++)
			ip[i] = (struct history_placed){ .load = pi[i].load,
				.served = pi[i].served, .fixed = pi[i].fixed };
		r = history_weigh_evidence(&ls->hist, ip, nr, nr_ids, pol->idle_load,
					   stability, &resolution);
		free(ip);
	}
	if (r > 0) {
		pol->resolution = resolution;
		pol->stability = stability;
	}
	history_said(ls);
	return r < 0 ? r : 0;
}

void loadstep_release(struct loadstep *ls)
{
	free(ls->act);
	free(ls->window_load);
	history_release(&ls->hist);
	free(ls->class);
	free(ls->target);
	appload_release(&ls->app);
}

unsigned int loadstep_mark_refused(const struct loadstep *ls, struct device_map *map)
{
	return history_mark_refused(&ls->hist, map);
}

int loadstep_refused(struct loadstep *ls, const struct device_map *map, const bool *refused)
{
	int r = history_refused(&ls->hist, map, refused, ls->boot);

	history_said(ls);
	return r == -ENOMEM ? r : 0;
}
