/* test_capture.c - the capture file and the run records in it: names a
 * capture refuses, the escaping of text fields both ways, a capture
 * written and read back member for member, the replay source serving what
 * was kept, and the topology, measurement, bans and costs records both
 * ways with their malformed lines refused. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "replay.h"
#include "source.h"
#include "topology.h"

static void test_names(void **state)
{
	static const struct { const char *name; int ok; } cases[] = {
		{ "devices", 1 }, { "root/proc/irq/5/node", 1 }, { "a/.b/c", 1 },
		{ "", 0 }, { "/etc/passwd", 0 }, { "..", 0 }, { "a/../b", 0 },
		{ "a/..", 0 }, { "./a", 0 }, { "a//b", 0 }, { "a/", 0 },
	};
	struct capture *cap = capture_new();

	(void)state;
	assert_non_null(cap);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r = capture_put(cap, cases[i].name, "x", 1, 0);

		if (cases[i].ok)
			assert_int_equal(r, 0);
		else
			assert_int_equal(r, -EINVAL);
	}
	capture_free(cap);
}

static void test_escape(void **state)
{
	static const char *const cases[] = {
		"eth0", "", "-", ".", "a b", "back\\slash", "\x1b[2J\n", "-x", "caf\xc3\xa9",
	};
	char esc[128], back[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		capture_escape(esc, sizeof(esc), cases[i]);
		assert_null(strpbrk(esc, " \t\n"));
		assert_int_equal(capture_unescape(esc, back, sizeof(back)), 0);
		assert_string_equal(back, cases[i]);
	}
	capture_escape(esc, sizeof(esc), NULL);
	assert_string_equal(esc, "-");
	assert_int_equal(capture_unescape(esc, back, sizeof(back)), 1);
	assert_int_equal(capture_unescape("\\x0", back, sizeof(back)), -EINVAL);
	assert_int_equal(capture_unescape("\\x00", back, sizeof(back)), -EINVAL);
	assert_int_equal(capture_unescape("\\q41", back, sizeof(back)), -EINVAL);
}

/* Written to a file, read back: every member, its mode and the order of
 * the directories, with the meta member first whenever it was put. */
static void test_round_trip(void **state)
{
	char path[] = "/tmp/irqtune-test-capture.XXXXXX", why[CAPTURE_WHY_MAX], buf[64];
	struct capture *cap = capture_new(), *back = NULL;
	struct source src = { .mode = SOURCE_REPLAY };
	const struct capture_member **subs;
	unsigned int nr;
	mode_t mode;
	FILE *f;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(capture_put(cap, "snapshot-1/proc/interrupts", "CPU0\n", 5, 0444), 0);
	assert_int_equal(capture_put(cap, "root/proc/irq/9/smp_affinity_list", "0-1\n", 4, 0444), 0);
	assert_int_equal(capture_put_dir(cap, "root/proc/irq/9/zeta"), 0);
	assert_int_equal(capture_put_dir(cap, "root/proc/irq/9/alpha"), 0);
	assert_int_equal(capture_put(cap, "empty", "", 0, 0), 0);
	assert_int_equal(capture_put(cap, CAPTURE_META, "format irqtune-capture\nversion 1\n", 33, 0), 0);
	assert_int_equal(capture_write(cap, path, why, sizeof(why)), 0);
	assert_int_equal(capture_read(path, &back, why, sizeof(why)), 0);
	assert_int_equal(back->nr, cap->nr);
	assert_int_equal(capture_get(back, CAPTURE_META)->order, 0);
	assert_string_equal(capture_get(back, "snapshot-1/proc/interrupts")->data, "CPU0\n");
	assert_int_equal(capture_get(back, "empty")->len, 0);

	src.cap = back;
	assert_int_equal(source_read(&src, "/proc/irq/9/smp_affinity_list", buf, sizeof(buf)), 3);
	assert_string_equal(buf, "0-1");
	assert_int_equal(source_read(&src, "/proc/irq/9/node", buf, sizeof(buf)), -ENOENT);
	assert_int_equal(source_read(&src, "/proc/irq/9/smp_affinity_list", buf, 3), -EFBIG);
	assert_int_equal(source_mode(&src, "/proc/irq/9/smp_affinity_list", &mode), 0);
	assert_int_equal(mode, 0444);
	assert_int_equal(source_fopen(&src, "snapshot-1", "/proc/interrupts", &f), 0);
	assert_non_null(fgets(buf, sizeof(buf), f));
	assert_string_equal(buf, "CPU0\n");
	fclose(f);
	assert_int_equal(source_fopen(&src, "snapshot-2", "/proc/interrupts", &f), -ENOENT);
	/* readdir order, as captured: zeta was read before alpha */
	assert_int_equal(capture_subdirs(back, "root/proc/irq/9", &subs, &nr), 0);
	assert_int_equal(nr, 2);
	assert_string_equal(subs[0]->name, "root/proc/irq/9/zeta");
	assert_string_equal(subs[1]->name, "root/proc/irq/9/alpha");
	free(subs);
	capture_free(back);

	/* Another version, or no meta member first: refused, with a reason. */
	capture_free(cap);
	cap = capture_new();
	assert_int_equal(capture_put(cap, CAPTURE_META, "format irqtune-capture\nversion 7\n", 33, 0), 0);
	assert_int_equal(capture_write(cap, path, why, sizeof(why)), 0);
	assert_int_equal(capture_read(path, &back, why, sizeof(why)), -EPROTONOSUPPORT);
	assert_non_null(strstr(why, "version 7"));
	capture_free(cap);
	cap = capture_new();
	assert_int_equal(capture_put(cap, CAPTURE_META, "format something-else\nversion 1\n", 32, 0), 0);
	assert_int_equal(capture_write(cap, path, why, sizeof(why)), 0);
	assert_int_equal(capture_read(path, &back, why, sizeof(why)), -EINVAL);
	assert_int_equal(capture_read_mem("not an archive", 14, &back, why, sizeof(why)), -EINVAL);
	assert_int_equal(capture_read_mem("", 0, &back, why, sizeof(why)), -EINVAL);
	capture_free(cap);
	unlink(path);
}

static void test_topology_record(void **state)
{
	struct topology *t = topology_new(4), *back = NULL;
	struct cpuset *ban = cpuset_new(4);
	unsigned int line = 0;
	char *text;
	size_t len;

	(void)state;
	for (unsigned int i = 0; i < 4; i++) {
		t->cpus[i].online = i != 2;
		t->cpus[i].core = (int)(i & ~1u);
		t->cpus[i].llc = 0;
		t->cpus[i].package = 0;
		t->cpus[i].node = 0;
	}
	t->nr_nodes = 1;
	t->cpus[3].avoid = AVOID_ISOLATED | AVOID_NOHZ_FULL | AVOID_BANNED;
	topology_update_sets(t);
	assert_int_equal(topology_format(t, &text, &len), 0);
	cpuset_set(ban, 1);
	assert_int_equal(topology_parse(text, ban, &back, &line), 0);
	assert_int_equal(back->nr_ids, 4);
	assert_false(back->cpus[2].online);
	/* the captured run's ban is not the machine's; this run's is */
	assert_int_equal(back->cpus[3].avoid, AVOID_ISOLATED | AVOID_NOHZ_FULL);
	assert_int_equal(back->cpus[1].avoid, AVOID_BANNED);
	assert_int_equal(cpuset_count(back->eligible), 1);
	topology_free(back);
	free(text);
	assert_int_equal(topology_parse("cpus 2\nnodes 1\ncpu 5 1 0 0 0 0 -\n", NULL, &back, &line),
			 -EINVAL);
	assert_int_equal(line, 3);
	assert_int_equal(topology_parse("cpus 2\nnodes 1\ncpu 0 1 0 0 0 3 -\n", NULL, &back, &line),
			 -EINVAL);
	assert_int_equal(topology_parse("cpus 99999999\n", NULL, &back, &line), -EINVAL);
	assert_int_equal(topology_parse("", NULL, &back, &line), -EINVAL);
	cpuset_free(ban);
	topology_free(t);
}

static void test_measure_record(void **state)
{
	struct measure_raw *raw = measure_raw_new(2), *back = NULL;
	unsigned int line = 0;
	char *text, *text2;
	size_t len, len2;

	(void)state;
	raw->window = 1.000000123;
	raw->use_ctx = true;
	raw->soft_ns[1][SOFTIRQ_NET_RX] = 123456789012ull;
	raw->soft_events[1][SOFTIRQ_NET_RX] = 77;
	raw->irqs = calloc(1, sizeof(*raw->irqs));
	raw->nr_irqs = raw->cap_irqs = 1;
	raw->irqs[0] = (struct measure_irq){ .irq = 24, .cpu = 1, .handler_ns = 5000,
					     .count = 3, .name = "eth0 TxRx" };
	raw->napi = calloc(1, sizeof(*raw->napi));
	raw->nr_napi = raw->cap_napi = 1;
	raw->napi[0] = (struct measure_napi){ .cpu = 1, .irq = -1, .ns = 9, .polls = 2, .dev = "" };
	raw->dropped = 4;
	assert_int_equal(replay_format_measure(raw, &text, &len), 0);
	assert_int_equal(replay_parse_measure(text, &back, &line), 0);
	assert_int_equal(replay_format_measure(back, &text2, &len2), 0);
	assert_string_equal(text, text2);
	assert_true(back->window == raw->window);
	assert_string_equal(back->irqs[0].name, "eth0 TxRx");
	assert_int_equal(back->napi[0].irq, -1);
	free(text);
	free(text2);
	measure_raw_free(back);
	measure_raw_free(raw);
	assert_int_equal(replay_parse_measure("window 1\ncpus 2\nsoft 2 0\n", &back, &line), -EINVAL);
	assert_int_equal(line, 3);
	assert_int_equal(replay_parse_measure("window 1\ncpus 99999\n", &back, &line), -EINVAL);
	assert_int_equal(replay_parse_measure("cpus 1\nirq 99999999 0 1 1 1 x\n", &back, &line),
			 -EINVAL);
	assert_int_equal(replay_parse_measure("cpus 1\n", &back, &line), -EINVAL);	/* no window */
}

static void test_bans_costs_records(void **state)
{
	struct compat_bans b = { 0 }, back = { 0 };
	struct estimate_prior p, q;
	unsigned int line = 0;
	char *text;
	size_t len;

	(void)state;
	struct cpuset *set = cpuset_new(CPU_ID_LIMIT);

	cpulist_parse("2-3", set);
	assert_int_equal(compat_add_ban(&b, set, "IRQBALANCE_BANNED_CPULIST in /etc/default/irqbalance:3"), 0);
	assert_int_equal(replay_format_bans(&b, 0, &text, &len), 0);
	assert_int_equal(replay_parse_bans(text, &back, &line), 0);
	assert_int_equal(back.nr, 1);
	assert_string_equal(back.bans[0].cpulist, "2-3");
	assert_string_equal(back.bans[0].source, b.bans[0].source);
	free(text);
	compat_bans_release(&back);
	assert_int_equal(replay_parse_bans("ban 2-x y\n", &back, &line), -EINVAL);
	compat_bans_release(&back);
	compat_bans_release(&b);

	estimate_default_prior(&p);
	p.hard_us[CLASS_NET] = 1.0 / 3;
	assert_int_equal(replay_format_costs(&p, &text, &len), 0);
	assert_int_equal(replay_parse_costs(text, &q, &line), 0);
	assert_memory_equal(&p, &q, sizeof(p));
	free(text);
	assert_int_equal(replay_parse_costs("hard_us 1 2\n", &q, &line), -EINVAL);
	assert_int_equal(replay_parse_costs("hard_us 1 2 nan\nsoft_us 1\n", &q, &line), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_topology_record),
		cmocka_unit_test(test_measure_record),
		cmocka_unit_test(test_bans_costs_records),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
