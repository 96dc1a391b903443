// SPDX-License-Identifier: GPL-2.0-or-later
/* test_report.c - a run's report built from its modules' results held in
 * memory: each outcome's reason, counts and listing, the load spread, the
 * policy columns, the text printed and the log lines of moves. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "appload.h"
#include "compat.h"
#include "cpuset.h"
#include "device.h"
#include "estimate.h"
#include "json.h"
#include "kubelet.h"
#include "metrics.h"
#include "plan.h"
#include "policy.h"
#include "report.h"
#include "sample.h"
#include "topology.h"

#define NR_CPUS	4
#define NR_IRQS	6

/* One run's results, in memory: 4 online CPUs (3 offline from the
 * eligible ones), one NIC with its IRQs, one device-less IRQ. */
struct fixture {
	struct topology *topo;
	struct device_group groups[1];
	struct irq_info irqs[NR_IRQS];
	struct device_map map;
	struct irq_activity act[NR_IRQS];
	struct policy_irq po[NR_IRQS];
	struct policy pol;
	struct plan_irq pi[NR_IRQS];
	enum report_outcome out[NR_IRQS];
	double before[NR_CPUS], after[NR_CPUS];
	struct plan_result res;
	struct compat_bans bans;
	struct report_input in;
};

static void fixture_init(struct fixture *f, bool dry_run)
{
	memset(f, 0, sizeof(*f));
	f->topo = topology_new(NR_CPUS);
	assert_non_null(f->topo);
	for (int id = 0; id < NR_CPUS; id++) {
		f->topo->cpus[id] = (struct cpu_info){ .online = true, .core = id, .llc = 0,
						       .node = 0, .avoid = id == 3 };
	}
	topology_update_sets(f->topo);
	snprintf(f->groups[0].id, sizeof(f->groups[0].id), "0000:01:00.0");
	snprintf(f->groups[0].label, sizeof(f->groups[0].label), "eth0");
	snprintf(f->groups[0].ban_from, sizeof(f->groups[0].ban_from), "eth0");
	for (unsigned int i = 0; i < NR_IRQS; i++) {
		f->irqs[i] = (struct irq_info){ .irq = 40 + i, .group = i < 5 ? 0 : -1,
						.class = i < 5 ? CLASS_NET : CLASS_OTHER };
		snprintf(f->irqs[i].name, sizeof(f->irqs[i].name), "eth0-TxRx-%u", i);
		snprintf(f->irqs[i].affinity, sizeof(f->irqs[i].affinity), "%u", i % 3);
		f->act[i].load = 0.01 * (i + 1);
		f->pi[i] = (struct plan_irq){ .irq = 40 + i, .target = (int)(i % 3),
					      .reason = REASON_KEEP };
		f->out[i] = OUT_KEPT;
	}
	f->map = (struct device_map){ .nr_irqs = NR_IRQS, .irqs = f->irqs,
				      .nr_groups = 1, .groups = f->groups };
	f->pol = (struct policy){ .nr_irqs = NR_IRQS, .irqs = f->po };
	f->before[0] = 0.3;
	f->before[1] = 0.1;
	f->before[2] = 0.2;
	f->before[3] = 0.4;	/* not eligible: in the spread, not the ratio */
	for (int c = 0; c < 3; c++)
		f->after[c] = 0.2;
	f->res = (struct plan_result){ .nr_ids = NR_CPUS, .before = f->before,
				       .after = f->after };
	f->in = (struct report_input){
		.dry_run = dry_run, .topo = f->topo, .bans = &f->bans, .planned = true,
		.nr = NR_IRQS, .map = &f->map, .act = f->act, .pol = &f->pol,
		.pi = f->pi, .out = f->out, .res = &f->res,
	};
}

static void fixture_release(struct fixture *f)
{
	compat_bans_release(&f->bans);
	for (unsigned int i = 0; i < NR_IRQS; i++)
		cpuset_free(f->po[i].allowed);
	topology_free(f->topo);
}

/* Each outcome: the reason the report gives, the CPU it shows, whether
 * the default text report lists it, and how the totals count it. */
static void test_outcomes(void **state)
{
	static const struct {
		enum report_outcome out;
		enum policy_ban ban;
		const char *reason;	/* NULL: the planner's */
		int to;			/* -2: the planned target */
		bool listed;		/* without -v */
		unsigned int movable, moved, managed, failed, banned;
	} cases[] = {
		{ OUT_KEPT, BAN_NONE, NULL, -2, false, 1, 0, 0, 0, 0 },
		{ OUT_MOVED, BAN_NONE, NULL, -2, true, 1, 1, 0, 0, 0 },
		{ OUT_WOULD_MOVE, BAN_NONE, NULL, -2, true, 1, 1, 0, 0, 0 },
		{ OUT_FAILED, BAN_NONE, NULL, -1, true, 1, 0, 0, 1, 0 },
		{ OUT_MANAGED, BAN_NONE, "the kernel places it", -1, true, 0, 0, 1, 0, 0 },
		{ OUT_BANNED, BAN_LIST, "banned by banirq", -1, false, 0, 0, 0, 0, 1 },
		{ OUT_BANNED, BAN_UDEV, "banned by IRQTUNE_BAN on eth0", -1, false, 0, 0, 0, 0, 1 },
		{ OUT_GONE, BAN_NONE, "gone", -1, false, 0, 0, 0, 0, 0 },
	};
	(void)state;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct fixture f;
		struct report_run rr = { 0 };
		struct report_store st;
		const struct report_irq *ri;

		fixture_init(&f, false);
		f.out[0] = cases[c].out;
		f.po[0].ban = cases[c].ban;
		assert_int_equal(report_build(&f.in, &rr, &st), 0);
		ri = &rr.irqs[0];
		assert_int_equal(ri->outcome, cases[c].out);
		assert_string_equal(ri->reason, cases[c].reason ? cases[c].reason :
				    plan_reason_text(REASON_KEEP));
		assert_int_equal(ri->to, cases[c].to == -2 ? f.pi[0].target : cases[c].to);
		assert_int_equal(report_listed(ri, false), cases[c].listed);
		assert_true(report_listed(ri, true));
		/* the other five are kept: movable, unchanged */
		assert_int_equal(rr.totals.seen, NR_IRQS);
		assert_int_equal(rr.totals.movable, 5 + cases[c].movable);
		assert_int_equal(rr.totals.moved, cases[c].moved);
		assert_int_equal(rr.totals.managed, cases[c].managed);
		assert_int_equal(rr.totals.failed, cases[c].failed);
		assert_int_equal(rr.totals.banned, cases[c].banned);
		assert_int_equal(rr.totals.unchanged, NR_IRQS - cases[c].moved -
				 cases[c].managed - cases[c].failed);
		report_store_release(&st);
		fixture_release(&f);
	}
}

/* An IRQ with no handler is in the data, but neither counted nor listed. */
static void test_unused(void **state)
{
	struct fixture f;
	struct report_run rr = { 0 };
	struct report_store st;

	(void)state;
	fixture_init(&f, false);
	f.out[5] = OUT_UNUSED;
	assert_int_equal(report_build(&f.in, &rr, &st), 0);
	assert_int_equal(rr.nr_irqs, NR_IRQS);
	assert_int_equal(rr.totals.seen, NR_IRQS - 1);
	assert_false(report_listed(&rr.irqs[5], true));
	assert_string_equal(rr.irqs[5].device, "");
	assert_string_equal(rr.irqs[0].device, "0000:01:00.0");
	report_store_release(&st);
	fixture_release(&f);
}

/* Lowest and highest over the online CPUs; busiest over the mean of the
 * eligible ones only; no load at all is no imbalance. */
static void test_spread(void **state)
{
	struct fixture f;
	struct report_run rr = { 0 };
	struct report_store st;

	(void)state;
	fixture_init(&f, true);
	f.after[0] = f.after[1] = f.after[2] = 0;
	assert_int_equal(report_build(&f.in, &rr, &st), 0);
	assert_true(rr.totals.dry_run);
	assert_float_equal(rr.totals.before_min, 0.1, 1e-12);
	assert_float_equal(rr.totals.before_max, 0.4, 1e-12);
	assert_float_equal(rr.totals.ratio_before, 0.3 / 0.2, 1e-12);
	assert_float_equal(rr.totals.after_min, 0, 1e-12);
	assert_float_equal(rr.totals.ratio_after, 1, 1e-12);
	assert_int_equal(rr.nr_cpus, NR_CPUS);
	assert_string_equal(rr.online, "0-3");
	assert_string_equal(rr.eligible, "0-2");
	report_store_release(&st);
	fixture_release(&f);
}

/* Where CPUs differ in capacity the busiest is by load over capacity and
 * the mean is the total over the capacities: CPU 1 at half capacity with
 * 0.1 is as busy as a full CPU with 0.2. */
static void test_spread_capacity(void **state)
{
	struct fixture f;
	struct report_run rr = { 0 };
	struct report_store st;

	(void)state;
	fixture_init(&f, true);
	f.topo->cpus[0].capacity = 1024;
	f.topo->cpus[1].capacity = 512;
	f.topo->cpus[2].capacity = 1024;
	f.topo->cpus[3].capacity = 1024;
	f.before[0] = 0.2;
	f.before[1] = 0.15;
	f.before[2] = 0.1;
	f.after[0] = f.after[2] = 0.2;
	f.after[1] = 0.1;
	assert_int_equal(report_build(&f.in, &rr, &st), 0);
	/* before: CPU 1 at 0.15 / 0.5 = 0.3, mean 0.45 / 2.5 = 0.18 */
	assert_float_equal(rr.totals.ratio_before, 0.3 / 0.18, 1e-12);
	/* after: every CPU at 0.2 of its own time: even */
	assert_float_equal(rr.totals.ratio_after, 1, 1e-12);
	/* the spread itself stays in CPUs of the biggest */
	assert_float_equal(rr.totals.before_max, 0.4, 1e-12);
	assert_non_null(rr.capacity);
	assert_int_equal(rr.capacity[1], 512);
	report_store_release(&st);
	fixture_release(&f);
}

/* A policy's CPUs, or what was asked for when none of them is eligible;
 * a run that stopped before planning reports its CPUs and bans only. */
static void test_policy_and_early_stop(void **state)
{
	struct fixture f;
	struct report_run rr = { 0 };
	struct report_store st;

	(void)state;
	fixture_init(&f, false);
	f.po[1].allowed = cpuset_new(NR_CPUS);
	assert_non_null(f.po[1].allowed);
	assert_int_equal(cpulist_parse("1-2", f.po[1].allowed), 0);
	snprintf(f.po[1].source, sizeof(f.po[1].source), "[net] cpus");
	f.out[2] = OUT_NOCPU;
	f.po[2].no_cpu = true;
	snprintf(f.po[2].source, sizeof(f.po[2].source), "IRQTUNE_CPUS on eth0");
	snprintf(f.po[2].wanted, sizeof(f.po[2].wanted), "7");
	assert_int_equal(compat_add_ban(&f.bans, cpuset_new(NR_CPUS), "--bancpus"), 0);
	{
		struct cpuset *b = cpuset_new(NR_CPUS);

		assert_non_null(b);
		cpuset_set(b, 3);
		assert_int_equal(compat_add_ban(&f.bans, b, "--bancpus"), 0);
	}
	assert_int_equal(report_build(&f.in, &rr, &st), 0);
	assert_string_equal(rr.irqs[1].allowed, "1-2");
	assert_string_equal(rr.irqs[1].policy, "[net] cpus");
	assert_string_equal(rr.irqs[2].allowed, "7");
	assert_string_equal(rr.irqs[2].reason, "no eligible CPU among IRQTUNE_CPUS on eth0");
	assert_null(rr.irqs[0].allowed);
	assert_int_equal(rr.nr_bans, 1);	/* the empty set adds none */
	assert_string_equal(rr.bans[0].cpus, "3");
	report_store_release(&st);

	memset(&rr, 0, sizeof(rr));
	f.in.planned = false;
	assert_int_equal(report_build(&f.in, &rr, &st), 0);
	assert_int_equal(rr.nr_irqs, 0);
	assert_null(rr.irqs);
	assert_int_equal(rr.nr_bans, 1);
	report_store_release(&st);
	fixture_release(&f);
}

/* The text: only what changed without -v, the header once, then the
 * summary and the load source; -v adds the counts and the history. */
static void test_text(void **state)
{
	struct fixture f;
	struct report_run rr = { 0 };
	struct report_store st;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	(void)state;
	fixture_init(&f, false);
	f.out[1] = OUT_MOVED;
	f.pi[1].target = 2;
	assert_int_equal(report_build(&f.in, &rr, &st), 0);
	rr.load_source = "proc";
	rr.load_source_reason = "estimated";
	rr.counts_reason = "/proc/interrupts: 4 online CPUs";
	rr.history = "kept";
	out = open_memstream(&text, &len);
	assert_non_null(out);
	report_text(out, &rr, false, false);
	assert_int_equal(fclose(out), 0);
	assert_non_null(strstr(text, "eth0-TxRx-1"));
	assert_non_null(strstr(text, "1->2"));
	assert_null(strstr(text, "eth0-TxRx-0"));
	assert_null(strstr(text, "counts from"));
	assert_non_null(strstr(text, "irqtune: 6 seen, 6 movable, 1 moved,"));
	assert_non_null(strstr(text, "irqtune: load source proc: estimated\n"));
	free(text);

	out = open_memstream(&text, &len);
	assert_non_null(out);
	report_text(out, &rr, true, false);
	assert_int_equal(fclose(out), 0);
	assert_non_null(strstr(text, "eth0-TxRx-0"));
	assert_non_null(strstr(text, "(REASON)"));
	assert_non_null(strstr(text, "irqtune: counts from /proc/interrupts: 4 online CPUs\n"));
	assert_non_null(strstr(text, "irqtune: load history: kept\n"));
	free(text);
	report_store_release(&st);
	fixture_release(&f);
}

/* How the /proc estimate found its costs (issue 34): a -v line and a JSON
 * array, one entry per class seen for its hard cost and its main softirq;
 * null in JSON and no line where no fit ran. */
static void test_estimate_costs(void **state)
{
	struct fixture f;
	struct report_run rr = { 0 };
	struct report_store st;
	struct estimate_found found = { .set = true };
	struct json_object *root, *a, *e, *x;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	(void)state;
	for (unsigned int k = 0; k < CLASS_NR; k++)
		found.hard[k].how = found.soft[k].how = ESTIMATE_NONE;
	found.hard[CLASS_NET] = (struct estimate_class_cost){ .m = 1.0, .how = ESTIMATE_FITTED };
	found.soft[CLASS_NET] = (struct estimate_class_cost){ .m = 1.2, .how = ESTIMATE_CARRIED };
	found.soft[CLASS_STORAGE] = (struct estimate_class_cost){ .m = 1.0, .how = ESTIMATE_PRIOR };
	fixture_init(&f, false);
	assert_int_equal(report_build(&f.in, &rr, &st), 0);
	rr.load_source = "proc";
	rr.load_source_reason = "estimated";
	rr.counts_reason = "/proc/interrupts";
	rr.estimate_found = &found;
	out = open_memstream(&text, &len);
	assert_non_null(out);
	report_text(out, &rr, true, false);
	assert_int_equal(fclose(out), 0);
	assert_non_null(strstr(text, "irqtune: estimate costs: net hard 3.00 us fitted, "
				     "NET_RX 30.00 us carried, BLOCK 5.00 us prior\n"));
	free(text);

	out = open_memstream(&text, &len);
	assert_non_null(out);
	assert_int_equal(json_report(out, &rr), 0);
	assert_int_equal(fclose(out), 0);
	root = json_tokener_parse(text);
	assert_non_null(root);
	assert_true(json_object_object_get_ex(root, "estimate_costs", &a));
	assert_int_equal(json_object_array_length(a), 3);
	e = json_object_array_get_idx(a, 1);
	assert_true(json_object_object_get_ex(e, "class", &x));
	assert_string_equal(json_object_get_string(x), "net");
	assert_true(json_object_object_get_ex(e, "kind", &x));
	assert_string_equal(json_object_get_string(x), "NET_RX");
	assert_true(json_object_object_get_ex(e, "us", &x));
	assert_true(fabs(json_object_get_double(x) - 30.0) < 1e-6);
	assert_true(json_object_object_get_ex(e, "found", &x));
	assert_string_equal(json_object_get_string(x), "carried");
	e = json_object_array_get_idx(a, 2);
	assert_true(json_object_object_get_ex(e, "found", &x));
	assert_string_equal(json_object_get_string(x), "prior");
	json_object_put(root);
	free(text);

	rr.estimate_found = NULL;
	out = open_memstream(&text, &len);
	assert_non_null(out);
	assert_int_equal(json_report(out, &rr), 0);
	report_text(out, &rr, true, false);
	assert_int_equal(fclose(out), 0);
	assert_non_null(strstr(text, "\"estimate_costs\":null"));
	assert_null(strstr(text, "estimate costs:"));
	free(text);
	report_store_release(&st);
	fixture_release(&f);
}

/* The log lines: one per move, names escaped; a summary only when
 * something moved or failed. */
static void test_events(void **state)
{
	struct report_irq ri = {
		.irq = 42, .name = "eth0\x1b[2J", .device = "0000:01:00.0", .label = "eth0",
		.class = CLASS_NET, .from = "0-3", .to = 5, .load = 0.0125,
		.reason = "least loaded",
	};
	struct report_totals t = { .seen = 3, .movable = 2, .ratio_before = 2,
				   .ratio_after = 1 };
	char line[REPORT_EVENT_MAX];

	(void)state;
	report_move_event(line, sizeof(line), &ri);
	assert_string_equal(line, "irq 42 (eth0\\x1b[2J) eth0 0000:01:00.0 net: "
			    "moved 0-3 -> 5, load 1.250% (least loaded)");
	assert_false(report_summary_event(line, sizeof(line), &t));
	t.failed = 1;
	assert_true(report_summary_event(line, sizeof(line), &t));
	assert_string_equal(line, "3 seen, 2 movable, 0 moved, 0 kernel-managed, 1 failed; "
			    "busiest CPU at 2.00x the mean IRQ load before, 1.00x after");
}

/* The fixture with application load on CPUs 1 (50%) and 2 (100%), the
 * measurement, the kubelet's state and avoid-cpus beside it. */
struct app_fixture {
	struct fixture f;
	double app[NR_CPUS];
	struct appload al;
	struct kubelet_state kl;
};

static void app_fixture_init(struct app_fixture *a)
{
	memset(a, 0, sizeof(*a));
	fixture_init(&a->f, false);
	a->app[1] = 0.5;
	a->app[2] = 1.0;
	a->app[0] = 0.01;	/* under REPORT_APP_BUSY: no application CPU */
	a->f.res.app = a->app;
	a->al = (struct appload){ .kind = APPLOAD_PROC, .nr_ids = NR_CPUS, .cpu = a->app,
				  .threads_seen = 900, .threads_pinned = 3, .cap = 500,
				  .capped = true };
	snprintf(a->al.reason, sizeof(a->al.reason), "/proc/PID/task at both ends");
	a->kl = (struct kubelet_state){ .status = KUBELET_READ, .nr_containers = 2,
					.exclusive = cpuset_new(NR_CPUS) };
	assert_non_null(a->kl.exclusive);
	assert_int_equal(cpulist_parse("1-2", a->kl.exclusive), 0);
	snprintf(a->kl.policy, sizeof(a->kl.policy), "static");
	a->f.in.app = &a->al;
	a->f.in.kubelet = &a->kl;
	a->f.in.avoid = "2";
}

static void app_fixture_release(struct app_fixture *a)
{
	cpuset_free(a->kl.exclusive);
	fixture_release(&a->f);
}

static char *text_of(const struct report_run *rr, bool verbose)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	report_text(out, rr, verbose, false);
	assert_int_equal(fclose(out), 0);
	return text;
}

/* The headline: IRQ work on CPUs of 5% application load or more, as a
 * share of all IRQ work on the online CPUs, before and after. */
static void test_app_headline(void **state)
{
	struct app_fixture a;
	struct report_run rr = { 0 };
	struct report_store st;
	char line[REPORT_EVENT_MAX], *text;

	(void)state;
	app_fixture_init(&a);
	a.f.out[1] = OUT_MOVED;
	assert_int_equal(report_build(&a.f.in, &rr, &st), 0);
	assert_true(rr.totals.app);
	/* before 0.3 0.1 0.2 0.4: CPUs 1 and 2 hold 0.3 of 1.0 */
	assert_true(fabs(rr.totals.app_share_before - 0.3) < 1e-12);
	/* after 0.2 0.2 0.2 0: 0.4 of 0.6 */
	assert_true(fabs(rr.totals.app_share_after - 0.4 / 0.6) < 1e-12);
	rr.load_source = "proc";
	rr.load_source_reason = "estimated";
	text = text_of(&rr, false);
	assert_non_null(strstr(text, "IRQ work on CPUs running pinned application "
				     "threads 30.0% -> 66.7%\n"));
	/* the picture and the sources only with -v */
	assert_null(strstr(text, "CPU work:"));
	assert_null(strstr(text, "kubelet"));
	free(text);
	assert_true(report_summary_event(line, sizeof(line), &rr.totals));
	assert_non_null(strstr(line, "; IRQ work on CPUs running pinned application "
				     "threads 30.0% -> 66.7%"));
	report_store_release(&st);

	/* No application load: not a word of it. */
	a.f.res.app = NULL;
	a.f.in.app = NULL;
	a.f.in.kubelet = NULL;
	a.f.in.avoid = NULL;
	rr = (struct report_run){ 0 };
	assert_int_equal(report_build(&a.f.in, &rr, &st), 0);
	assert_false(rr.totals.app);
	text = text_of(&rr, true);
	assert_null(strstr(text, "application"));
	assert_null(strstr(text, "CPU work:"));
	free(text);
	report_store_release(&st);
	app_fixture_release(&a);
}

static void test_app_bars(void **state)
{
	char bar[512];

	(void)state;
	report_bar(bar, sizeof(bar), 0.5, 0.25, 20, false);
	assert_string_equal(bar, "[##########|||||     ]");
	report_bar(bar, sizeof(bar), 0, 0, 10, false);
	assert_string_equal(bar, "[          ]");
	report_bar(bar, sizeof(bar), 0, 0.26, 10, false);
	assert_string_equal(bar, "[|||       ]");
	/* over the CPU's time: the last cell says so */
	report_bar(bar, sizeof(bar), 1.0, 0.05, 10, false);
	assert_string_equal(bar, "[#########+]");
	report_bar(bar, sizeof(bar), 0.7, 0.6, 10, false);
	assert_string_equal(bar, "[#######||+]");
	report_bar(bar, sizeof(bar), 1.0, 0.0001, 10, false);
	assert_string_equal(bar, "[##########]");
	report_bar(bar, sizeof(bar), 1.0, 0, 1, false);
	assert_string_equal(bar, "[#]");
	/* a buffer too short is cut, never overrun */
	report_bar(bar, 6, 0.5, 0.5, 20, false);
	assert_true(strlen(bar) < 6);
	/* colours: green application, red IRQs, and back */
	report_bar(bar, sizeof(bar), 0.5, 0.25, 20, true);
	assert_non_null(strstr(bar, "\033[32m##########\033[0m"));
	assert_non_null(strstr(bar, "\033[31m|||||\033[0m"));
}

/* Lines of @text: how many, and the widest. */
static unsigned int lines_of(const char *text, size_t *widest)
{
	unsigned int n = 0;

	*widest = 0;
	for (const char *p = text; *p;) {
		const char *e = strchr(p, '\n');
		size_t w = e ? (size_t)(e - p) : strlen(p);

		if (w > *widest)
			*widest = w;
		n++;
		p += w + (e ? 1 : 0);
	}
	return n;
}

/* With -v: the sources, and the picture a line per CPU in 80 columns,
 * without colour where the output is no terminal (a memstream). */
static void test_app_picture(void **state)
{
	struct app_fixture a;
	struct report_run rr = { 0 };
	struct report_store st;
	char *text, *pic = NULL;
	size_t len = 0, widest;
	FILE *out;

	(void)state;
	app_fixture_init(&a);
	assert_int_equal(report_build(&a.f.in, &rr, &st), 0);
	rr.load_source = "proc";
	rr.load_source_reason = "estimated";
	rr.counts_reason = "x";
	text = text_of(&rr, true);
	assert_null(strchr(text, '\033'));
	assert_non_null(strstr(text, "irqtune: application load from proc: 3 pinned threads "
				     "of 900 counted (/proc/PID/task at both ends); capped at "
				     "500 threads, the rest unread\n"));
	assert_non_null(strstr(text, "irqtune: kubelet CPU manager (static): 2 containers on "
				     "exclusive CPUs 1-2\n"));
	assert_non_null(strstr(text, "irqtune: CPUs 2 avoided (avoid-cpus)"));
	/* CPU 2: all of its time the application's, 20% IRQs before: over */
	assert_non_null(strstr(text, "    2 100.0%  20.0% [######################+]  20.0% "
				     "[######################+]\n"));
	/* 50% is 11.5 cells of 23, 60% 13.8, 70% 16.1 */
	assert_non_null(strstr(text, "    1  50.0%  10.0% [############||         ]  20.0% "
				     "[############||||       ]\n"));
	free(text);

	out = open_memstream(&pic, &len);
	assert_non_null(out);
	report_picture(out, &rr, false);
	assert_int_equal(fclose(out), 0);
	assert_int_equal(lines_of(pic, &widest), 2 + NR_CPUS);
	assert_true(widest <= 80);
	free(pic);
	report_store_release(&st);
	app_fixture_release(&a);
}

/* Beyond 64 CPUs, ranges: at most 64 lines of the range's means. */
static void test_app_picture_grouped(void **state)
{
	enum { N = 200 };
	static int cpus[N];
	static double app[N], before[N], after[N];
	struct report_run rr = { .nr_cpus = N, .cpus = cpus, .app = app,
				 .before = before, .after = after };
	char *pic = NULL;
	size_t len = 0, widest;
	unsigned int lines;
	FILE *out;

	(void)state;
	for (int k = 0; k < N; k++) {
		cpus[k] = k;
		app[k] = k % 4 < 2 ? 1.0 : 0;
		before[k] = 0.1;
		after[k] = k % 4 < 2 ? 0 : 0.2;
	}
	out = open_memstream(&pic, &len);
	assert_non_null(out);
	report_picture(out, &rr, false);
	assert_int_equal(fclose(out), 0);
	lines = lines_of(pic, &widest);
	assert_true(lines - 2 <= REPORT_PICTURE_LINES);
	assert_int_equal(lines - 2, (N + 3) / 4);
	assert_true(widest <= 80);
	assert_non_null(strstr(pic, "\n      0-3  50.0%  10.0% "));
	assert_non_null(strstr(pic, "\n  196-199  50.0%  10.0% "));
	assert_non_null(strstr(pic, "ranges: mean"));
	free(pic);
}

/* JSON and metrics: per CPU its IRQ, application and whole load and its
 * capacity; the headline; where the application load came from. */
static void test_app_json_metrics(void **state)
{
	struct app_fixture a;
	struct report_run rr = { 0 };
	struct report_store st;
	struct json_object *root, *o, *cpu, *x;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	(void)state;
	app_fixture_init(&a);
	assert_int_equal(report_build(&a.f.in, &rr, &st), 0);
	out = open_memstream(&text, &len);
	assert_non_null(out);
	assert_int_equal(json_report(out, &rr), 0);
	assert_int_equal(fclose(out), 0);
	root = json_tokener_parse(text);
	assert_non_null(root);
	assert_true(json_object_object_get_ex(root, "machine", &o));
	assert_true(json_object_object_get_ex(o, "cpus", &o));
	cpu = json_object_array_get_idx(o, 2);
	assert_true(json_object_object_get_ex(cpu, "app_load", &x));
	assert_true(json_object_get_double(x) == 1.0);
	assert_true(json_object_object_get_ex(cpu, "capacity", &x));
	assert_int_equal(json_object_get_int(x), 1024);
	assert_true(json_object_object_get_ex(cpu, "whole_before", &x));
	assert_true(fabs(json_object_get_double(x) - 1.2) < 1e-6);
	assert_true(json_object_object_get_ex(root, "summary", &o));
	assert_true(json_object_object_get_ex(o, "app_cpu_irq_share_before", &x));
	assert_true(fabs(json_object_get_double(x) - 0.3) < 1e-6);
	assert_true(json_object_object_get_ex(root, "application", &o));
	assert_true(json_object_object_get_ex(o, "source", &x));
	assert_true(json_object_object_get_ex(x, "capped", &x));
	assert_true(json_object_get_boolean(x));
	assert_true(json_object_object_get_ex(o, "kubelet", &x));
	assert_true(json_object_object_get_ex(x, "exclusive_cpus", &x));
	assert_string_equal(json_object_get_string(x), "1-2");
	assert_true(json_object_object_get_ex(o, "avoid_cpus", &x));
	assert_string_equal(json_object_get_string(x), "2");
	json_object_put(root);
	free(text);

	out = open_memstream(&text, &len);
	assert_non_null(out);
	assert_int_equal(metrics_format(out, &rr), 0);
	assert_int_equal(fclose(out), 0);
	assert_non_null(strstr(text, "\nirqtune_cpu_app_load{cpu=\"2\"} 1\n"));
	assert_non_null(strstr(text, "\nirqtune_app_cpu_irq_share{when=\"before\"} 0.3\n"));
	free(text);
	report_store_release(&st);

	/* none: no member, no family */
	a.f.res.app = NULL;
	a.f.in.app = NULL;
	a.f.in.kubelet = NULL;
	a.f.in.avoid = NULL;
	rr = (struct report_run){ 0 };
	assert_int_equal(report_build(&a.f.in, &rr, &st), 0);
	out = open_memstream(&text, &len);
	assert_non_null(out);
	assert_int_equal(json_report(out, &rr), 0);
	assert_int_equal(metrics_format(out, &rr), 0);
	assert_int_equal(fclose(out), 0);
	assert_null(strstr(text, "app"));
	free(text);
	report_store_release(&st);
	app_fixture_release(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_outcomes),
		cmocka_unit_test(test_unused),
		cmocka_unit_test(test_spread),
		cmocka_unit_test(test_spread_capacity),
		cmocka_unit_test(test_policy_and_early_stop),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_estimate_costs),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_app_headline),
		cmocka_unit_test(test_app_bars),
		cmocka_unit_test(test_app_picture),
		cmocka_unit_test(test_app_picture_grouped),
		cmocka_unit_test(test_app_json_metrics),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
