// SPDX-License-Identifier: GPL-2.0-or-later
/* report.c - builds one run's report from what its modules left (the
 * topology, the device map, the policy, the plan and its outcomes), and
 * formats the per-IRQ lines and the summary. Names come from the kernel
 * and from udev, so they are escaped: a device name must never be able to
 * move the terminal's cursor or forge a line of the report. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "appload.h"
#include "compat.h"
#include "cpuset.h"
#include "device.h"
#include "estimate.h"
#include "kubelet.h"
#include "pathnames.h"
#include "plan.h"
#include "policy.h"
#include "report.h"
#include "sample.h"
#include "strutil.h"
#include "topology.h"
#include "vectors.h"

static bool report_app_shown(const struct report_run *rr);
static void report_app_source(FILE *f, const struct report_run *rr);

static const char *const outcome_text[OUT_NR] = {
	[OUT_KEPT] = "kept",
	[OUT_MOVED] = "moved",
	[OUT_WOULD_MOVE] = "would move",
	[OUT_MANAGED] = "kernel-managed",
	[OUT_GONE] = "gone",
	[OUT_FAILED] = "FAILED",
	[OUT_BANNED] = "banned",
	[OUT_UNUSED] = "no handler",
	[OUT_NOCPU] = "no allowed CPU",
};

static const char *const outcome_key[OUT_NR] = {
	[OUT_KEPT] = "kept",
	[OUT_MOVED] = "moved",
	[OUT_WOULD_MOVE] = "would_move",
	[OUT_MANAGED] = "kernel_managed",
	[OUT_GONE] = "gone",
	[OUT_FAILED] = "failed",
	[OUT_BANNED] = "banned",
	[OUT_UNUSED] = "no_handler",
	[OUT_NOCPU] = "no_allowed_cpu",
};

const char *report_outcome_text(enum report_outcome o)
{
	return (unsigned int)o < OUT_NR ? outcome_text[o] : "?";
}

const char *report_outcome_key(enum report_outcome o)
{
	return (unsigned int)o < OUT_NR ? outcome_key[o] : "?";
}

/* "eth0 0000:01:00.0", or whichever of the two there is. */
static void report_device(char *dst, size_t len, const struct report_irq *ri)
{
	const char *id = ri->device ? ri->device : "";
	const char *label = ri->label ? ri->label : "";

	if (*label && strcmp(label, id) != 0 && *id)
		snprintf(dst, len, "%s %s", label, id);
	else
		snprintf(dst, len, "%s", *id ? id : label);
}

/* @both: a measured run's -v, with the /proc estimate's column. */
static void report_header(FILE *f, bool verbose, bool both)
{
	fprintf(f, "%5s  %-20s %-24s %-7s %12s  %8s  %s%s%s\n", "IRQ", "NAME",
		"DEVICE", "CLASS", "CPU", "LOAD", both ? "PROC-EST  " : "",
		"OUTCOME", verbose ? " (REASON)" : "");
}

static void report_line(FILE *f, const struct report_irq *l, bool verbose, bool both)
{
	char name[64], dev[64], raw[2 * 64 + 2], cpus[48];

	report_device(raw, sizeof(raw), l);
	str_escape_text(name, sizeof(name), l->name && *l->name ? l->name : "-");
	str_escape_text(dev, sizeof(dev), *raw ? raw : "-");
	if (l->to < 0)
		snprintf(cpus, sizeof(cpus), "%s", l->from);
	else if (strcmp(l->from, "?") != 0 && l->to >= 0 &&
		 snprintf(cpus, sizeof(cpus), "%d", l->to) > 0 &&
		 strcmp(cpus, l->from) == 0)
		;	/* unchanged: print it once */
	else
		snprintf(cpus, sizeof(cpus), "%s->%d", l->from, l->to);
	fprintf(f, "%5u  %-20s %-24s %-7s %12s  %7.3f%%  ", l->irq, name, dev,
		irq_class_name(l->class), cpus, l->load * 100);
	if (both && isnan(l->load_proc))
		fprintf(f, "%8s  ", "-");
	else if (both)
		fprintf(f, "%7.3f%%  ", l->load_proc * 100);
	fputs(report_outcome_text(l->outcome), f);
	if (verbose && l->reason) {
		char reason[256];

		str_escape_text(reason, sizeof(reason), l->reason);	/* may name a device */
		fprintf(f, " (%s)", reason);
	}
	/* Only where the kernel threads IRQs: other reports read as before. */
	if (l->threaded)
		fprintf(f, " (threaded: %.3f%% in its threads)", l->load_thread * 100);
	fputc('\n', f);
}

/* "irqtune: load source bpf: measured in the kernel (...)" */
static void report_source(FILE *f, const char *source, const char *reason)
{
	char why[512];

	str_escape_text(why, sizeof(why), reason);	/* may quote libbpf */
	fprintf(f, "irqtune: load source %s: %s\n", source, why);
}

static void report_summary(FILE *f, const struct report_totals *t)
{
	fprintf(f, "irqtune: %u seen, %u movable, %u %s, %u kernel-managed, "
		"%u failed; per-CPU IRQ load %.2f%%..%.2f%% before, "
		"%.2f%%..%.2f%% %s", t->seen, t->movable, t->moved,
		t->dry_run ? "to move" : "moved", t->managed, t->failed,
		t->before_min * 100, t->before_max * 100, t->after_min * 100,
		t->after_max * 100, t->dry_run ? "planned" : "after");
	/* Only where application load is known: other reports read as before. */
	if (t->app)
		fprintf(f, "; IRQ work on CPUs running pinned application threads "
			"%.1f%% -> %.1f%%", t->app_share_before * 100,
			t->app_share_after * 100);
	fputc('\n', f);
}

void report_bans(FILE *f, const struct report_ban *bans, unsigned int nr)
{
	for (unsigned int i = 0; i < nr; i++) {
		char src[4 * 256];

		str_escape_text(src, sizeof(src), bans[i].source);	/* may name a file */
		fprintf(f, "irqtune: CPU%s %s banned by %s\n",
			strpbrk(bans[i].cpus, ",-") ? "s" : "", bans[i].cpus, src);
	}
}

void report_irq_tag(char *dst, size_t len, unsigned int irq, const char *name)
{
	char esc[DEVICE_NAME_MAX * 4];

	str_escape_text(esc, sizeof(esc), name);
	snprintf(dst, len, "irq %u (%s)", irq, esc);
}

/* Lowest and highest load of the online CPUs, and busiest over mean of the
 * eligible ones (1 when there is no load at all: nothing is uneven). Where
 * CPUs differ in capacity, "busiest" and "mean" are of load over capacity:
 * a CPU's load in its own time, and the total over what all of them do;
 * where they are alike every factor is exactly 1 and the ratio as ever. */
static void spread(const struct topology *topo, const double *load, double *lo,
		   double *hi, double *ratio)
{
	const struct cpuset *on = topo->online, *el = topo->eligible;
	double sum = 0, max = 0, n = 0;
	int cpu;

	*lo = *hi = 0;
	for (cpu = cpuset_first(on); cpu >= 0; cpu = cpuset_next(on, cpu)) {
		if (cpu == cpuset_first(on) || load[cpu] < *lo)
			*lo = load[cpu];
		if (load[cpu] > *hi)
			*hi = load[cpu];
	}
	for (cpu = cpuset_first(el); cpu >= 0; cpu = cpuset_next(el, cpu)) {
		double share = (double)topology_capacity(topo, (unsigned int)cpu) /
			       CAPACITY_SCALE;

		sum += load[cpu];
		if (load[cpu] / share > max)
			max = load[cpu] / share;
		n += share;
	}
	*ratio = n && sum > 0 ? max / (sum / n) : 1;
}

/* The share of the IRQ work of @load (per CPU id) that online CPUs with
 * at least REPORT_APP_BUSY of application load (@app) carry; 0 where
 * there is no IRQ work at all. */
static double app_share(const struct topology *topo, const double *load, const double *app)
{
	double on_app = 0, sum = 0;

	for (int cpu = cpuset_first(topo->online); cpu >= 0;
	     cpu = cpuset_next(topo->online, cpu)) {
		sum += load[cpu];
		if (app[cpu] >= REPORT_APP_BUSY)
			on_app += load[cpu];
	}
	return sum > 0 ? on_app / sum : 0;
}

/* Text a report line points to beyond what the run holds. */
struct irq_text {
	char allowed[64];
	char reason[192];
};

/* The planner's reason, and where vector space changed its choice, that
 * too: "least loaded eligible CPU; CPU 5 had no free vector". */
static const char *plan_reason(const struct report_input *in, const struct plan_irq *pi,
			       struct irq_text *tx)
{
	/* vec_full is the planner's only where its result counts one */
	if (!in->res || !in->res->nr_vec_limited || pi->vec_full < 0)
		return plan_reason_text(pi->reason);
	snprintf(tx->reason, sizeof(tx->reason), "%s; CPU %d had no free vector",
		 plan_reason_text(pi->reason), pi->vec_full);
	return tx->reason;
}

static const struct device_group *group_of(const struct device_map *map, unsigned int i)
{
	int g = map->irqs[i].group;

	return g >= 0 ? &map->groups[g] : NULL;
}

/* Why a fixed IRQ stays: more than the planner's "fixed". */
static const char *fixed_reason(const struct report_input *in, unsigned int i,
				struct irq_text *tx)
{
	const struct policy_irq *po = &in->pol->irqs[i];
	const struct device_group *g = group_of(in->map, i);

	switch (in->out[i]) {
	case OUT_BANNED:
		if (po->ban == BAN_UDEV && g)
			snprintf(tx->reason, sizeof(tx->reason), "banned by IRQTUNE_BAN on %s",
				 g->ban_from);
		else if (po->ban == BAN_LINK && g)
			snprintf(tx->reason, sizeof(tx->reason),
				 "systemd-udevd sets its affinity: %s", g->link_policy);
		else
			snprintf(tx->reason, sizeof(tx->reason), "banned by banirq");
		return tx->reason;
	case OUT_NOCPU:
		snprintf(tx->reason, sizeof(tx->reason), "no eligible CPU among %s",
			 po->source);
		return tx->reason;
	case OUT_MANAGED:
		return in->map->irqs[i].refused_before ?
		       "it refused a write on an earlier run of this kernel: skipped as remembered" :
		       "the kernel places it";
	default:
		return report_outcome_text(in->out[i]);
	}
}

/* The report's view of IRQ @i; its strings point into @in and @tx. */
static void report_irq_of(const struct report_input *in, unsigned int i,
			  struct report_irq *ri, struct irq_text *tx)
{
	const struct irq_info *ii = &in->map->irqs[i];
	const struct device_group *g = group_of(in->map, i);
	const struct plan_irq *pi = &in->pi[i];
	const struct policy_irq *po = &in->pol->irqs[i];
	enum report_outcome o = in->out[i];

	*ri = (struct report_irq){
		.irq = ii->irq,
		.name = ii->name,
		.device = g ? g->id : "",
		.label = g ? g->label : "",
		.class = ii->class,
		.from = ii->affinity[0] ? ii->affinity : "?",
		.to = o == OUT_MOVED || o == OUT_WOULD_MOVE || o == OUT_KEPT ? pi->target : -1,
		.load = in->act[i].load,
		.load_proc = in->proc_act ? in->proc_act[i].load : NAN,
		.load_window = in->window_load ? in->window_load[i] : NAN,
		.threaded = in->act[i].threaded,
		.load_thread = in->act[i].thread,
		.outcome = o,
		.reason = o == OUT_KEPT || o == OUT_MOVED || o == OUT_WOULD_MOVE ||
			  o == OUT_FAILED ? plan_reason(in, pi, tx) :
			  fixed_reason(in, i, tx),
		.vec_full = (o == OUT_MOVED || o == OUT_WOULD_MOVE || o == OUT_FAILED) &&
			    in->res && in->res->nr_vec_limited ? pi->vec_full : -1,
	};
	if (po->no_cpu) {
		ri->allowed = po->wanted;	/* as asked: none is here */
		ri->policy = po->source;
	} else if (po->allowed) {
		if (cpulist_format(po->allowed, tx->allowed, sizeof(tx->allowed)) < 0)
			snprintf(tx->allowed, sizeof(tx->allowed), "(too long)");
		ri->allowed = tx->allowed;
		ri->policy = po->source;
	}
}

static void count_totals(const struct report_input *in, const struct report_irq *ri,
			 struct report_totals *t)
{
	memset(t, 0, sizeof(*t));
	t->dry_run = in->dry_run;
	for (unsigned int i = 0; i < in->nr; i++) {
		enum report_outcome o = ri[i].outcome;

		if (o == OUT_UNUSED)
			continue;
		t->seen++;
		t->movable += o == OUT_KEPT || o == OUT_MOVED || o == OUT_WOULD_MOVE ||
			      o == OUT_FAILED;
		t->moved += o == OUT_MOVED || o == OUT_WOULD_MOVE;
		t->managed += o == OUT_MANAGED;
		t->failed += o == OUT_FAILED;
		t->banned += o == OUT_BANNED;
	}
	t->unchanged = t->seen - t->moved - t->managed - t->failed;
	spread(in->topo, in->res->before, &t->before_min, &t->before_max, &t->ratio_before);
	spread(in->topo, in->res->after, &t->after_min, &t->after_max, &t->ratio_after);
	if (in->res->app) {
		t->app = true;
		t->app_share_before = app_share(in->topo, in->res->before, in->res->app);
		t->app_share_after = app_share(in->topo, in->res->after, in->res->app);
	}
}

/* What vector space has to say: nothing where it was read and changed
 * nothing, or where the machine has none (not x86); else where it came
 * from and how many choices it changed, or which source was missing. */
static void vector_note(const struct report_input *in, struct report_run *rr,
			struct report_store *st)
{
	const struct vector_info *vi = in->vec;
	char why[96];

	if (!vi || vi->status == VECTORS_NONE)
		return;
	if (vi->status == VECTORS_READ) {
		if (!in->res->nr_vec_limited)
			return;
		snprintf(st->vectors, sizeof(st->vectors),
			 "from %s: %u IRQs kept off CPUs without a free vector",
			 _PATH_DEBUG_VECTOR, in->res->nr_vec_limited);
	} else {
		snprintf(st->vectors, sizeof(st->vectors),
			 "unknown: %s: %s; planned without them", _PATH_DEBUG_VECTOR,
			 vectors_why(vi, why, sizeof(why)));
		rr->vectors_missing = _PATH_DEBUG_VECTOR;
	}
	rr->vectors = st->vectors;
}

/* The plan's part of the report: CPUs, loads, IRQs and totals. */
static int build_plan(const struct report_input *in, struct report_run *rr,
		      struct report_store *st)
{
	const struct topology *topo = in->topo;
	struct irq_text *tx;
	size_t n = in->nr ? in->nr : 1;

	st->cpus = calloc(topo->nr_ids ? topo->nr_ids : 1, sizeof(*st->cpus));
	/* One block: the IRQs, then the text they point to. */
	st->irqs = calloc(n, sizeof(*st->irqs) + sizeof(*tx));
	if (!st->cpus || !st->irqs)
		return -ENOMEM;
	tx = (struct irq_text *)(st->irqs + n);
	for (unsigned int i = 0; i < in->nr; i++)
		report_irq_of(in, i, &st->irqs[i], &tx[i]);
	for (int cpu = cpuset_first(topo->online); cpu >= 0;
	     cpu = cpuset_next(topo->online, cpu))
		st->cpus[rr->nr_cpus++] = cpu;
	rr->cpus = st->cpus;
	rr->before = in->res->before;
	rr->after = in->res->after;
	if (topology_capacity_differs(topo)) {
		st->capacity = calloc(topo->nr_ids, sizeof(*st->capacity));
		if (!st->capacity)
			return -ENOMEM;
		for (unsigned int k = 0; k < topo->nr_ids; k++)
			st->capacity[k] = topology_capacity(topo, k);
		rr->capacity = st->capacity;
		rr->capacity_source = topo->capacity_src == CAPACITY_HYBRID ?
				      "hybrid core lists" : "cpu_capacity";
	}
	vector_note(in, rr, st);
	rr->app = in->res->app;
	rr->irqs = st->irqs;
	rr->nr_irqs = in->nr;
	count_totals(in, st->irqs, &rr->totals);
	return 0;
}

/* What the application load came from, where it says something: the
 * measurement where it counted pinned threads or hit its cap (a machine
 * without pinned threads reports as it always did), the kubelet where
 * it has a state file, avoid-cpus where it is set. */
static void app_inputs(const struct report_input *in, struct report_run *rr,
		       struct report_store *st)
{
	const struct appload *a = in->app;
	const struct kubelet_state *k = in->kubelet;

	rr->app = NULL;
	rr->app_source = NULL;
	rr->kubelet = NULL;
	rr->kubelet_cpus = NULL;
	rr->avoid = NULL;
	if (a && (a->threads_pinned > 0 || a->capped ||
		  (in->planned && in->res && in->res->app)))
		rr->app_source = a;
	if (k && k->status != KUBELET_ABSENT) {
		rr->kubelet = k;
		if (k->status == KUBELET_READ && k->exclusive &&
		    cpulist_format(k->exclusive, st->kubelet_cpus, sizeof(st->kubelet_cpus)) < 0)
			snprintf(st->kubelet_cpus, sizeof(st->kubelet_cpus), "(too long)");
		rr->kubelet_cpus = st->kubelet_cpus;
	}
	if (in->avoid && *in->avoid)
		rr->avoid = in->avoid;
}

int report_build(const struct report_input *in, struct report_run *rr,
		 struct report_store *st)
{
	unsigned int nr = in->bans ? in->bans->nr : 0;

	memset(st, 0, sizeof(*st));
	rr->dry_run = in->dry_run;
	if (in->topo) {
		cpulist_format(in->topo->online, st->online, sizeof(st->online));
		cpulist_format(in->topo->eligible, st->eligible, sizeof(st->eligible));
	}
	rr->online = st->online;
	rr->eligible = st->eligible;
	st->bans = calloc(nr ? nr : 1, sizeof(*st->bans));
	if (!st->bans)
		return -ENOMEM;
	for (unsigned int i = 0; i < nr; i++)
		st->bans[i] = (struct report_ban){
			.cpus = in->bans->bans[i].cpulist,
			.source = in->bans->bans[i].source,
		};
	rr->bans = st->bans;
	rr->nr_bans = nr;
	app_inputs(in, rr, st);
	return in->planned ? build_plan(in, rr, st) : 0;
}

void report_store_release(struct report_store *st)
{
	free(st->bans);
	free(st->cpus);
	free(st->irqs);
	free(st->capacity);
	st->capacity = NULL;
	st->bans = NULL;
	st->cpus = NULL;
	st->irqs = NULL;
}

bool report_listed(const struct report_irq *ri, bool all)
{
	enum report_outcome o = ri->outcome;

	return o != OUT_UNUSED && (all || (o != OUT_KEPT && o != OUT_BANNED && o != OUT_GONE));
}

/* "irqtune: CPU capacity (cpu_capacity): 0-3 1024, 4-7 446": runs of
 * consecutive online CPUs of one capacity. */
static void report_capacity(FILE *f, const struct report_run *rr)
{
	fprintf(f, "irqtune: CPU capacity (%s):", rr->capacity_source);
	for (unsigned int k = 0; k < rr->nr_cpus;) {
		unsigned int j = k, v = rr->capacity[rr->cpus[k]];

		while (j + 1 < rr->nr_cpus && rr->cpus[j + 1] == rr->cpus[j] + 1 &&
		       rr->capacity[rr->cpus[j + 1]] == v)
			j++;
		if (j > k)
			fprintf(f, "%s %d-%d %u", k ? "," : "", rr->cpus[k], rr->cpus[j], v);
		else
			fprintf(f, "%s %d %u", k ? "," : "", rr->cpus[k], v);
		k = j + 1;
	}
	fputc('\n', f);
}

/* The /proc estimate's per-event costs and how each was found. */
static void report_estimate_costs(FILE *f, const struct estimate_found *found)
{
	char buf[ESTIMATE_COST_ITEMS * 64];

	if (estimate_found_format(found, buf, sizeof(buf)) == 0 && buf[0])
		fprintf(f, "irqtune: estimate costs: %s\n", buf);
}

void report_text(FILE *f, const struct report_run *rr, bool verbose, bool both)
{
	bool header = false;

	for (unsigned int i = 0; i < rr->nr_irqs; i++) {
		if (!report_listed(&rr->irqs[i], verbose || rr->dry_run))
			continue;
		if (!header) {
			report_header(f, verbose, both);
			header = true;
		}
		report_line(f, &rr->irqs[i], verbose, both);
	}
	report_summary(f, &rr->totals);
	report_source(f, rr->load_source, rr->load_source_reason);
	if (verbose)
		fprintf(f, "irqtune: counts from %s\n", rr->counts_reason);
	if (verbose && rr->history)
		fprintf(f, "irqtune: load history: %s\n", rr->history);
	if (verbose && rr->estimate_found)
		report_estimate_costs(f, rr->estimate_found);
	if (verbose && rr->capacity)
		report_capacity(f, rr);
	if (verbose && rr->vectors)
		fprintf(f, "irqtune: interrupt vectors: %s\n", rr->vectors);
	if (verbose)
		report_app_source(f, rr);
	/* Only with application load: a machine without reads as before. */
	if (verbose && report_app_shown(rr))
		report_picture(f, rr, isatty(fileno(f)));
}

void report_move_event(char *dst, size_t len, const struct report_irq *ri)
{
	char tag[DEVICE_NAME_MAX * 4 + 32], raw[2 * DEVICE_NAME_MAX + 2];
	char dev[4 * sizeof(raw)];

	report_irq_tag(tag, sizeof(tag), ri->irq, ri->name);
	report_device(raw, sizeof(raw), ri);
	str_escape_text(dev, sizeof(dev), raw);
	snprintf(dst, len, "%s %s %s: moved %s -> %d, load %.3f%% (%s)", tag,
		 *dev ? dev : "-", irq_class_name(ri->class), ri->from, ri->to,
		 ri->load * 100, ri->reason);
}

bool report_summary_event(char *dst, size_t len, const struct report_totals *t)
{
	int n;

	if (!t->moved && !t->failed)
		return false;
	n = snprintf(dst, len, "%u seen, %u movable, %u moved, %u kernel-managed, "
		     "%u failed; busiest CPU at %.2fx the mean IRQ load before, %.2fx after",
		     t->seen, t->movable, t->moved, t->managed, t->failed,
		     t->ratio_before, t->ratio_after);
	if (t->app && n >= 0 && (size_t)n < len)
		snprintf(dst + n, len - (size_t)n, "; IRQ work on CPUs running pinned "
			 "application threads %.1f%% -> %.1f%%",
			 t->app_share_before * 100, t->app_share_after * 100);
	return true;
}

/* Whether the report has application load to show. */
static bool report_app_shown(const struct report_run *rr)
{
	return rr->app && rr->before && rr->after && rr->nr_cpus > 0;
}

static const char *const appload_kind_text[] = {
	[APPLOAD_NONE] = "none",
	[APPLOAD_PROC] = "proc",
	[APPLOAD_BPF] = "bpf",
};

const char *report_app_kind(const struct appload *a)
{
	return (unsigned int)a->kind < sizeof(appload_kind_text) / sizeof(appload_kind_text[0]) ?
	       appload_kind_text[a->kind] : "?";
}

static const char *const kubelet_status_text[] = {
	[KUBELET_ABSENT] = "absent",
	[KUBELET_NOT_STATIC] = "not_static",
	[KUBELET_READ] = "read",
	[KUBELET_BAD] = "bad",
};

const char *report_kubelet_status(const struct kubelet_state *k)
{
	return (unsigned int)k->status < sizeof(kubelet_status_text) / sizeof(kubelet_status_text[0]) ?
	       kubelet_status_text[k->status] : "?";
}

/* The application source, the kubelet and avoid-cpus lines of -v, where
 * there is something to say. */
static void report_app_source(FILE *f, const struct report_run *rr)
{
	char why[4 * KUBELET_WHY_MAX];

	if (rr->app_source) {
		const struct appload *a = rr->app_source;

		str_escape_text(why, sizeof(why), a->reason);	/* may name a file */
		/* The program sums time per CPU: it counts no threads. */
		if (a->kind == APPLOAD_BPF)
			fprintf(f, "irqtune: application load from %s (%s)",
				report_app_kind(a), why);
		else
			fprintf(f, "irqtune: application load from %s: %u pinned threads of %u "
				"counted (%s)", report_app_kind(a), a->threads_pinned,
				a->threads_seen, why);
		if (a->capped)
			fprintf(f, "; capped at %u threads, the rest unread", a->cap);
		fputc('\n', f);
	}
	if (rr->kubelet) {
		const struct kubelet_state *k = rr->kubelet;
		char policy[4 * sizeof(k->policy)];

		str_escape_text(policy, sizeof(policy), k->policy);
		str_escape_text(why, sizeof(why), k->why);
		if (k->status == KUBELET_READ)
			fprintf(f, "irqtune: kubelet CPU manager (%s): %u containers on "
				"exclusive CPUs %s\n", policy, k->nr_containers,
				*rr->kubelet_cpus ? rr->kubelet_cpus : "(none)");
		else if (k->status == KUBELET_NOT_STATIC)
			fprintf(f, "irqtune: kubelet CPU manager (%s): no exclusive CPUs\n",
				*policy ? policy : "no policy");
		else
			fprintf(f, "irqtune: kubelet CPU manager state ignored: %s\n", why);
	}
	if (rr->avoid)
		fprintf(f, "irqtune: CPUs %s avoided (avoid-cpus): IRQs there only "
			"where nothing else fits\n", rr->avoid);
}

#define COLOUR_APP	"\033[32m"	/* green: user work, as top and htop */
#define COLOUR_IRQ	"\033[31m"	/* red: kernel work, as htop */
#define COLOUR_OFF	"\033[0m"
#define BAR_APP		'#'
#define BAR_IRQ		'|'

/* Cells of @width that a share @x of a CPU's time fills. */
static unsigned int cells(double x, unsigned int width)
{
	if (!(x > 0))
		return 0;
	if (x >= 1)
		return width;
	return (unsigned int)(x * width + 0.5);
}

/* @n times @ch at @dst (of @left bytes), in @colour (NULL: none). */
static size_t run(char *dst, size_t left, unsigned int n, char ch, const char *colour)
{
	size_t at = 0;

	if (!n || left < 1)
		return 0;
	if (colour && left > strlen(colour) + strlen(COLOUR_OFF) + n)
		at += (size_t)snprintf(dst, left, "%s", colour);
	for (unsigned int k = 0; k < n && at + 1 < left; k++)
		dst[at++] = ch;
	if (colour && at + strlen(COLOUR_OFF) < left)
		at += (size_t)snprintf(dst + at, left - at, "%s", COLOUR_OFF);
	dst[at < left ? at : left - 1] = '\0';
	return at;
}

void report_bar(char *dst, size_t len, double app, double irq, unsigned int width,
		bool colour)
{
	double a_share = app > 0 ? app : 0, all = a_share + (irq > 0 ? irq : 0);
	unsigned int a = cells(a_share, width), t = cells(all, width), i, blank;
	/* over by what the figures beside it show (100.1%), not by an idle
	 * IRQ's crumbs */
	bool over = all >= 1.0005;
	size_t at = 0;

	if (len < 3) {
		if (len)
			*dst = '\0';
		return;
	}
	if (t < a)
		t = a;
	i = t - a;
	blank = width - t;
	/* Over the CPU's time: the last cell says so, whoever's it was. */
	if (over) {
		if (i)
			i--;
		else if (a)
			a--;
	}
	dst[at++] = '[';
	at += run(dst + at, len - at, a, BAR_APP, colour ? COLOUR_APP : NULL);
	at += run(dst + at, len - at, i, BAR_IRQ, colour ? COLOUR_IRQ : NULL);
	if (over)
		at += run(dst + at, len - at, 1, '+', colour ? COLOUR_IRQ : NULL);
	at += run(dst + at, len - at, blank, ' ', NULL);
	if (at + 1 < len)
		dst[at++] = ']';
	dst[at] = '\0';
}

/* A CPU's or a range's figures, as shares of the CPUs' own time. */
struct picture_row {
	double app, before, after;
};

/* @v in CPUs of the biggest as a share of @cpu's own time. */
static double own_time(const struct report_run *rr, int cpu, double v)
{
	return rr->capacity && rr->capacity[cpu] ? v * CAPACITY_SCALE / rr->capacity[cpu] : v;
}

/* The mean of online CPUs @rr->cpus[@k..@k + @n). */
static struct picture_row picture_row(const struct report_run *rr, unsigned int k,
				      unsigned int n)
{
	struct picture_row r = { 0 };

	for (unsigned int j = k; j < k + n; j++) {
		int cpu = rr->cpus[j];

		r.app += own_time(rr, cpu, rr->app[cpu]);
		r.before += own_time(rr, cpu, rr->before[cpu]);
		r.after += own_time(rr, cpu, rr->after[cpu]);
	}
	r.app /= n;
	r.before /= n;
	r.after /= n;
	return r;
}

void report_picture(FILE *f, const struct report_run *rr, bool colour)
{
	unsigned int n = rr->nr_cpus;
	unsigned int per = (n + REPORT_PICTURE_LINES - 1) / REPORT_PICTURE_LINES;
	/* label, three figures, two bars in brackets: 79 columns at most */
	int lw = per > 1 ? 9 : 5;
	unsigned int width = (unsigned int)(79 - lw - 27) / 2;
	char before[32 * 10 + 64], after[sizeof(before)];

	if (!report_app_shown(rr))
		return;
	fprintf(f, "irqtune: CPU work: %c pinned application, %c IRQ; bar = whole CPU%s\n",
		BAR_APP, BAR_IRQ, per > 1 ? "; ranges: mean" : "");
	fprintf(f, "%*s %6s %6s %-*s %6s %s\n", lw, "CPU", "APP", "IRQ",
		(int)width + 2, "before", "IRQ", "after");
	for (unsigned int k = 0; k < n; k += per) {
		unsigned int m = k + per <= n ? per : n - k;
		struct picture_row r = picture_row(rr, k, m);
		char label[32];

		if (m > 1)
			snprintf(label, sizeof(label), "%d-%d", rr->cpus[k], rr->cpus[k + m - 1]);
		else
			snprintf(label, sizeof(label), "%d", rr->cpus[k]);
		report_bar(before, sizeof(before), r.app, r.before, width, colour);
		report_bar(after, sizeof(after), r.app, r.after, width, colour);
		fprintf(f, "%*s %5.1f%% %5.1f%% %s %5.1f%% %s\n", lw, label, r.app * 100,
			r.before * 100, before, r.after * 100, after);
	}
}
