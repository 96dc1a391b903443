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

#include "compat.h"
#include "cpuset.h"
#include "device.h"
#include "pathnames.h"
#include "plan.h"
#include "policy.h"
#include "report.h"
#include "sample.h"
#include "strutil.h"
#include "topology.h"
#include "vectors.h"

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

void report_device(char *dst, size_t len, const struct report_irq *ri)
{
	const char *id = ri->device ? ri->device : "";
	const char *label = ri->label ? ri->label : "";

	if (*label && strcmp(label, id) != 0 && *id)
		snprintf(dst, len, "%s %s", label, id);
	else
		snprintf(dst, len, "%s", *id ? id : label);
}

void report_header(FILE *f, bool verbose, bool both)
{
	fprintf(f, "%5s  %-20s %-24s %-7s %12s  %8s  %s%s%s\n", "IRQ", "NAME",
		"DEVICE", "CLASS", "CPU", "LOAD", both ? "PROC-EST  " : "",
		"OUTCOME", verbose ? " (REASON)" : "");
}

void report_line(FILE *f, const struct report_irq *l, bool verbose, bool both)
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

void report_source(FILE *f, const char *source, const char *reason)
{
	char why[512];

	str_escape_text(why, sizeof(why), reason);	/* may quote libbpf */
	fprintf(f, "irqtune: load source %s: %s\n", source, why);
}

void report_summary(FILE *f, const struct report_totals *t)
{
	fprintf(f, "irqtune: %u seen, %u movable, %u %s, %u kernel-managed, "
		"%u failed; per-CPU IRQ load %.2f%%..%.2f%% before, "
		"%.2f%%..%.2f%% %s\n", t->seen, t->movable, t->moved,
		t->dry_run ? "to move" : "moved", t->managed, t->failed,
		t->before_min * 100, t->before_max * 100, t->after_min * 100,
		t->after_max * 100, t->dry_run ? "planned" : "after");
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
		else
			snprintf(tx->reason, sizeof(tx->reason), "banned by banirq");
		return tx->reason;
	case OUT_NOCPU:
		snprintf(tx->reason, sizeof(tx->reason), "no eligible CPU among %s",
			 po->source);
		return tx->reason;
	case OUT_MANAGED:
		return "the kernel places it";
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
	rr->irqs = st->irqs;
	rr->nr_irqs = in->nr;
	count_totals(in, st->irqs, &rr->totals);
	return 0;
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
	if (verbose && rr->capacity)
		report_capacity(f, rr);
	if (verbose && rr->vectors)
		fprintf(f, "irqtune: interrupt vectors: %s\n", rr->vectors);
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
	if (!t->moved && !t->failed)
		return false;
	snprintf(dst, len, "%u seen, %u movable, %u moved, %u kernel-managed, "
		 "%u failed; busiest CPU at %.2fx the mean IRQ load before, %.2fx after",
		 t->seen, t->movable, t->moved, t->managed, t->failed,
		 t->ratio_before, t->ratio_after);
	return true;
}
