// SPDX-License-Identifier: GPL-2.0-or-later
/* test_policy.c - site policy per IRQ: avoid-cpus, the soft ban. Its CPUs
 * are taken out of an IRQ's choice where another eligible CPU is left,
 * and stay where nothing else fits; a node all avoided sends its IRQs to
 * the other node, as the planner places them; and a NIC whose .link file
 * sets its IRQ affinity is systemd-udevd's. Table-driven. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "config.h"
#include "device.h"
#include "plan.h"
#include "policy.h"
#include "topology.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Two nodes of four CPUs: 0-3 and 4-7; CPU 7 banned (not eligible). */
static struct topology *two_nodes(void)
{
	struct topology *t = topology_new(8);

	assert_non_null(t);
	for (int id = 0; id < 8; id++)
		t->cpus[id] = (struct cpu_info){ .online = true, .core = id, .llc = id / 4 * 4,
						 .package = id / 4, .node = id / 4,
						 .avoid = id == 7 ? AVOID_BANNED : 0 };
	t->nr_nodes = 2;
	topology_update_sets(t);
	return t;
}

static struct cpuset *set_of(const char *list)
{
	struct cpuset *s;

	if (!list)
		return NULL;
	s = cpuset_new(CPU_ID_LIMIT);
	assert_non_null(s);
	assert_int_equal(cpulist_parse(list, s), 0);
	return s;
}

static void test_avoid(void **state)
{
	static const struct {
		const char *avoid;	/* avoid-cpus; NULL unset */
		const char *net;	/* [net] cpus; NULL unset */
		const char *allowed;	/* the IRQ's allowed set; NULL any */
		const char *source;
	} rows[] = {
		/* unset or empty: nothing changes (no pinned application) */
		{ NULL, NULL, NULL, "" },
		{ "", NULL, NULL, "" },
		{ "4-5", NULL, "0-3,6", "avoid-cpus" },
		/* avoided CPUs that are banned anyway: nothing to take out */
		{ "7", NULL, NULL, "" },
		/* narrowed where something is left */
		{ "4-5", "3-5", "3", "[net] cpus, less avoid-cpus" },
		/* nothing else fits: the avoided CPUs stay allowed */
		{ "4-5", "4-5", "4-5", "[net] cpus" },
		/* what is left is banned: the same */
		{ "6", "6-7", "6-7", "[net] cpus" },
		/* every CPU avoided: spread as today */
		{ "0-7", NULL, NULL, "" },
		/* a whole node avoided: the other one */
		{ "4-7", NULL, "0-3", "avoid-cpus" },
	};
	struct topology *t = two_nodes();
	struct irq_info ii = { .irq = 42, .group = -1, .class = CLASS_NET, .node = 1,
			       .pinned = -1, .effective = 4 };
	struct device_map map = { .nr_irqs = 1, .irqs = &ii };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct config cfg;
		struct policy pol;
		char got[64] = "(any)";

		config_init(&cfg);
		cfg.avoidcpus = set_of(rows[i].avoid);
		cfg.class_cpus[CLASS_NET] = set_of(rows[i].net);
		assert_int_equal(policy_build(&cfg, t, &map, &pol), 0);
		if (pol.irqs[0].allowed)
			assert_int_equal(cpulist_format(pol.irqs[0].allowed, got, sizeof(got)), 0);
		if (strcmp(got, rows[i].allowed ? rows[i].allowed : "(any)") != 0 ||
		    strcmp(pol.irqs[0].source, rows[i].source) != 0)
			fail_msg("avoid %s, [net] cpus %s: allowed %s from '%s'",
				 rows[i].avoid, rows[i].net, got, pol.irqs[0].source);
		assert_false(pol.irqs[0].no_cpu);
		policy_release(&pol);
		config_release(&cfg);
	}
	topology_free(t);
}

/* A node's CPUs all avoided: its device's IRQs go to the other node, as
 * the planner spills them where the policy rules their node out. */
static void test_avoid_node_plan(void **state)
{
	struct topology *t = two_nodes();
	struct irq_info ii[4];
	struct device_map map = { .nr_irqs = 4, .irqs = ii };
	struct plan_irq pi[4];
	struct plan_policy pp = { .threshold = 0.1, .idle_load = 0.001 };
	struct plan_result res;
	struct config cfg;
	struct policy pol;

	(void)state;
	for (unsigned int i = 0; i < 4; i++)
		ii[i] = (struct irq_info){ .irq = 60 + i, .group = -1, .class = CLASS_NET,
					   .node = 1, .pinned = 4, .effective = 4 };
	config_init(&cfg);
	cfg.avoidcpus = set_of("4-6");
	assert_int_equal(policy_build(&cfg, t, &map, &pol), 0);
	for (unsigned int i = 0; i < 4; i++)
		pi[i] = (struct plan_irq){ .irq = 60 + i, .class = CLASS_NET, .group = -1,
					   .node = 1, .pinned = 4, .served = 4, .load = 0.2,
					   .allowed = pol.irqs[i].allowed };
	assert_int_equal(plan_compute(t, pi, 4, &pp, &res), 0);
	for (unsigned int i = 0; i < 4; i++)
		if (pi[i].target < 0 || pi[i].target > 3)
			fail_msg("irq %u planned on CPU %d, not node 0", pi[i].irq, pi[i].target);
	plan_result_release(&res);
	policy_release(&pol);
	config_release(&cfg);
	topology_free(t);
}

/* A .link file's [Link] IRQ affinity setting: the last assignment, an
 * empty one resetting it, other sections ignored; a NIC with one is
 * banned as systemd-udevd's, its IRQs only. */
static void test_link_policy(void **state)
{
	static const struct {
		const char *text;
		int r;
		const char *kv;
	} rows[] = {
		{ "[Link]\nIRQAffinityPolicy=spread\n", 1, "IRQAffinityPolicy=spread" },
		{ "# a comment\n[Match]\nIRQAffinity=3\n[Link]\nMTUBytes=9000\n", 0, "" },
		{ "[Link]\nIRQAffinity=1-3\nIRQAffinityNUMA=yes\n", 1, "IRQAffinityNUMA=yes" },
		{ "[Link]\nIRQAffinity=1-3\nIRQAffinity=\n", 0, "" },
		{ "", 0, "" },
		{ "[Link\nIRQAffinity=1\n", -EINVAL, "" },
	};
	char dir[] = "/tmp/irqtune-link.XXXXXX", path[64], kv[64];
	struct topology *t = two_nodes();
	struct device_group groups[2] = {
		{ .id = "0000:01:00.0", .label = "eth0", .class = CLASS_NET, .node = -1,
		  .link_policy = (char *)"IRQAffinityPolicy=spread in /etc/systemd/network/eth0.link" },
		{ .id = "0000:02:00.0", .label = "eth1", .class = CLASS_NET, .node = -1 },
	};
	struct irq_info ii[2] = {
		{ .irq = 40, .group = 0, .class = CLASS_NET, .node = -1, .pinned = -1, .effective = 0 },
		{ .irq = 41, .group = 1, .class = CLASS_NET, .node = -1, .pinned = -1, .effective = 0 },
	};
	struct device_map map = { .nr_irqs = 2, .irqs = ii, .nr_groups = 2, .groups = groups };
	struct config cfg;
	struct policy pol;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/10-eth0.link", dir);
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		fputs(rows[i].text, f);
		fclose(f);
		kv[0] = '\0';
		if (device_link_policy(path, kv, sizeof(kv)) != rows[i].r ||
		    strcmp(kv, rows[i].r == 1 ? rows[i].kv : "") != 0)
			fail_msg("row %zu: %d '%s'", i, device_link_policy(path, kv, sizeof(kv)), kv);
	}
	unlink(path);
	assert_int_equal(device_link_policy(path, kv, sizeof(kv)), -ENOENT);
	rmdir(dir);
	config_init(&cfg);
	assert_int_equal(policy_build(&cfg, t, &map, &pol), 0);
	assert_int_equal(pol.irqs[0].ban, BAN_LINK);
	assert_int_equal(pol.irqs[1].ban, BAN_NONE);
	policy_release(&pol);
	config_release(&cfg);
	topology_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_avoid),
		cmocka_unit_test(test_avoid_node_plan),
		cmocka_unit_test(test_link_policy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
