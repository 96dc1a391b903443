// SPDX-License-Identifier: GPL-2.0-or-later
/* test_packstate.c - the pool placement = pack keeps from run to run:
 * written and read back the same, and a file that is foreign, stale or
 * malformed refused with its reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <errno.h>

#include "cpuset.h"
#include "packstate.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define BOOT	"8e1f0c6a-1111-4222-8333-944445555666"
#define NOW	1796347892.0

static void test_round_trip(void **state)
{
	struct pack_node nodes[3] = {
		{ .cores = 1, .under = 0, .cpus = cpuset_new(64) },
		{ .cores = 3, .under = 2, .cpus = cpuset_new(64) },
		{ .cores = 0, .under = 0, .cpus = NULL },
	};
	const struct pack_state st = { .nr_nodes = 3, .nodes = nodes };
	struct pack_state back;
	char *text, *again, why[128];

	(void)state;
	assert_int_equal(cpulist_parse("0,32", nodes[0].cpus), 0);
	assert_int_equal(cpulist_parse("16-18,48-50", nodes[1].cpus), 0);
	assert_int_equal(packstate_format(&st, BOOT, NOW, &text), 0);
	assert_non_null(strstr(text, "node 1 3 2 16-18,48-50\n"));
	assert_non_null(strstr(text, "node 2 0 0 -\n"));
	assert_int_equal(packstate_parse(text, BOOT, NOW + 60, &back, why, sizeof(why)), 0);
	assert_int_equal(back.nr_nodes, 3);
	for (unsigned int d = 0; d < 3; d++) {
		assert_int_equal(back.nodes[d].cores, nodes[d].cores);
		assert_int_equal(back.nodes[d].under, nodes[d].under);
		assert_int_equal(!back.nodes[d].cpus, !nodes[d].cpus);
	}
	assert_int_equal(packstate_format(&back, BOOT, NOW, &again), 0);
	assert_string_equal(again, text);
	free(again);
	free(text);
	pack_state_release(&back);
	cpuset_free(nodes[0].cpus);
	cpuset_free(nodes[1].cpus);
}

static void test_refused(void **state)
{
	static const struct {
		const char *text;
		int r;
		const char *why;	/* a substring */
	} rows[] = {
		{ "", -EINVAL, "empty" },
		{ "irqtune-state 4\n", -EINVAL, "not irqtune's pack file" },
		{ "irqtune-pack 2\n", -EINVAL, "version 2" },
		{ "irqtune-pack 1\nboot other\ntime 1796347892\nnodes 1\nnode 0 1 0 0\n",
		  -ESTALE, "another boot" },
		{ "irqtune-pack 1\nboot " BOOT "\ntime 1700000000\nnodes 1\nnode 0 1 0 0\n",
		  -ESTALE, "too old" },
		{ "irqtune-pack 1\nboot " BOOT "\ntime 1896347892\nnodes 1\nnode 0 1 0 0\n",
		  -ESTALE, "from the future" },
		{ "irqtune-pack 1\nboot " BOOT "\ntime soon\n", -EINVAL, "time 'soon'" },
		{ "irqtune-pack 1\nboot " BOOT "\ntime 1796347892\n", -EINVAL, "no nodes" },
		{ "irqtune-pack 1\nboot " BOOT "\ntime 1796347892\nnodes 0\n", -EINVAL, "nodes '0'" },
		{ "irqtune-pack 1\nboot " BOOT "\ntime 1796347892\nnodes 99999\n", -EINVAL,
		  "nodes '99999'" },
		{ "irqtune-pack 1\nboot " BOOT "\ntime 1796347892\nnodes 2\nnode 0 1 0 0\n",
		  -EINVAL, "node 1 missing" },
		{ "irqtune-pack 1\nboot " BOOT "\ntime 1796347892\nnodes 1\nnode 1 1 0 0\n",
		  -EINVAL, "line 5: not a node" },
		{ "irqtune-pack 1\nboot " BOOT "\ntime 1796347892\nnodes 1\nnode 0 1 0 0\nnode 0 1 0 0\n",
		  -EINVAL, "line 6: not a node" },
		{ "irqtune-pack 1\nboot " BOOT "\ntime 1796347892\nnodes 1\nnode 0 1 9 0\n",
		  -EINVAL, "not a node" },
		{ "irqtune-pack 1\nboot " BOOT "\ntime 1796347892\nnodes 1\nnode 0 1 0\n",
		  -EINVAL, "not a node" },
		{ "irqtune-pack 1\nboot " BOOT "\ntime 1796347892\nnodes 1\nnode 0 1 0 3-1\n",
		  -EINVAL, "not a cpulist" },
		{ "irqtune-pack 1\nboot " BOOT "\ntime 1796347892\nnodes 1\nnode 0 1 0 0 x\n",
		  -EINVAL, "not a node" },
		{ "irqtune-pack 1\nnodes 1\n", -EINVAL, "unexpected 'nodes'" },
		{ "irqtune-pack 1\nboot " BOOT "\ntime 1796347892\nnodes 1\nnode 0 1 0 0\npool 0\n",
		  -EINVAL, "unexpected 'pool'" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct pack_state st = { 0 };
		char why[128] = "";
		int r = packstate_parse(rows[i].text, BOOT, NOW, &st, why, sizeof(why));

		if (r != rows[i].r || !strstr(why, rows[i].why))
			print_error("row %zu: %d '%s'\n", i, r, why);
		assert_int_equal(r, rows[i].r);
		assert_non_null(strstr(why, rows[i].why));
		assert_int_equal(st.nr_nodes, 0);
	}
}

/* Saved and loaded through a file of ours; a file others may write is
 * refused. */
static void test_file(void **state)
{
	struct pack_node node = { .cores = 2, .cpus = cpuset_new(8) };
	const struct pack_state st = { .nr_nodes = 1, .nodes = &node };
	char dir[] = "/dev/shm/irqtune-packstate.XXXXXX", path[64], why[128];
	struct pack_state back;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/sub/pack", dir);
	assert_int_equal(cpulist_parse("2,6", node.cpus), 0);
	assert_int_equal(packstate_save(path, &st, BOOT, NOW), 0);
	assert_int_equal(packstate_load(path, BOOT, NOW, &back, why, sizeof(why)), 0);
	assert_int_equal(back.nodes[0].cores, 2);
	assert_true(cpuset_test(back.nodes[0].cpus, 6));
	pack_state_release(&back);
	assert_int_equal(chmod(path, 0666), 0);
	assert_int_equal(packstate_load(path, BOOT, NOW, &back, why, sizeof(why)), -EPERM);
	unlink(path);
	assert_int_equal(packstate_load(path, BOOT, NOW, &back, why, sizeof(why)), -ENOENT);
	snprintf(path, sizeof(path), "%s/sub", dir);
	rmdir(path);
	rmdir(dir);
	cpuset_free(node.cpus);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
