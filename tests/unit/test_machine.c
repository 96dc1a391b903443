// SPDX-License-Identifier: GPL-2.0-or-later
/* test_machine.c - the machine steps' refusals: a replay whose capture
 * holds no CPU topology is a broken capture, and a window at whose end no
 * CPU is left for IRQs stops before any device is looked up. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "capture.h"
#include "machine.h"
#include "procfs.h"
#include "source.h"
#include "topology.h"
#include "vectors.h"

static void test_replay_without_topology(void **state)
{
	struct source fs = { .mode = SOURCE_REPLAY, .cap = capture_new() };
	const struct machine_input in = { .fs = &fs, .capture = "x.cap" };
	struct topology *topo = NULL;
	struct vector_info vec = { 0 };

	(void)state;
	assert_non_null(fs.cap);
	assert_int_equal(machine_read(&in, &topo, &vec), -EBADMSG);
	assert_null(topo);
	capture_free(fs.cap);
}

/* Which CPUs have a column at the window's end decides whether any is
 * left; the devices are only looked up when one is. */
static void test_devices_no_cpu_left(void **state)
{
	static const struct {
		unsigned int cols[2], nr;
		const char *online;
	} cases[] = {
		{ { 1 }, 1, "1" },	/* only the banned CPU stayed */
		{ { 0 }, 0, "" },	/* none stayed */
	};
	struct source fs = { .mode = SOURCE_LIVE };
	const struct machine_input in = { .fs = &fs };
	char buf[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct topology *t = topology_new(4);
		unsigned int cols[2] = { cases[i].cols[0], cases[i].cols[1] };
		struct interrupts intr = { .nr_cols = cases[i].nr, .col_cpu = cols };
		struct device_map *map = NULL;

		assert_non_null(t);
		for (unsigned int cpu = 0; cpu < 4; cpu++)
			t->cpus[cpu].online = true;
		t->cpus[1].avoid = AVOID_BANNED;
		topology_update_sets(t);
		assert_int_equal(machine_devices(&in, t, &intr, &map), -ENOSPC);
		assert_null(map);
		assert_int_equal(cpulist_format(t->online, buf, sizeof(buf)), 0);
		assert_string_equal(buf, cases[i].online);
		topology_free(t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replay_without_topology),
		cmocka_unit_test(test_devices_no_cpu_left),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
