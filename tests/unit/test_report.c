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

#include "compat.h"
#include "cpuset.h"
#include "device.h"
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_outcomes),
		cmocka_unit_test(test_unused),
		cmocka_unit_test(test_spread),
		cmocka_unit_test(test_spread_capacity),
		cmocka_unit_test(test_policy_and_early_stop),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_events),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
