// SPDX-License-Identifier: GPL-2.0-or-later
/* test_capture.c - the capture file and what is in it: names a capture
 * refuses, the escaping of text fields both ways, a capture written and
 * read back member for member, the replay source serving what was kept
 * (files, errors, directory listings, trusted and own files, environment
 * variables, the costs file), version 1 refused, and the measurement
 * record both ways with its malformed lines refused. */
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
#include <sys/stat.h>

#include "capture.h"
#include "costs.h"
#include "device.h"
#include "replay.h"
#include "source.h"
#include "strutil.h"
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
		str_escape_field(esc, sizeof(esc), cases[i]);
		assert_null(strpbrk(esc, " \t\n"));
		assert_int_equal(capture_unescape(esc, back, sizeof(back)), 0);
		assert_string_equal(back, cases[i]);
	}
	str_escape_field(esc, sizeof(esc), NULL);
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
	assert_int_equal(capture_put(cap, CAPTURE_META, "format irqtune-capture\nversion 2\n", 33, 0), 0);
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
	/* Version 1 kept parsed views, not files: refused, saying what to do. */
	capture_free(cap);
	cap = capture_new();
	assert_int_equal(capture_put(cap, CAPTURE_META, "format irqtune-capture\nversion 1\n", 33, 0), 0);
	assert_int_equal(capture_write(cap, path, why, sizeof(why)), 0);
	assert_int_equal(capture_read(path, &back, why, sizeof(why)), -EPROTONOSUPPORT);
	assert_non_null(strstr(why, "take the capture again"));
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
	/* An irq thread's time and the probes' cost, exactly as measured. */
	raw->threads = calloc(1, sizeof(*raw->threads));
	raw->nr_threads = raw->cap_threads = 1;
	raw->threads[0] = (struct measure_thread){ .irq = 24, .cpu = 0, .ns = 123456, .runs = 7 };
	raw->probe = (struct measure_probe){ .hard = 241.37209302325581, .ctx = 0, .soft = 1e-3,
					     .napi = 0, .thread = 290.5 };
	raw->threads_timed = true;
	assert_int_equal(replay_format_measure(raw, &text, &len), 0);
	assert_int_equal(replay_parse_measure(text, &back, &line), 0);
	assert_int_equal(replay_format_measure(back, &text2, &len2), 0);
	assert_string_equal(text, text2);
	assert_true(back->window == raw->window);
	assert_int_equal(back->nr_threads, 1);
	assert_true(back->threads_timed);
	assert_int_equal(back->threads[0].irq, 24);
	assert_int_equal(back->threads[0].ns, 123456);
	assert_int_equal(back->threads[0].runs, 7);
	assert_true(back->probe.hard == raw->probe.hard);	/* bit for bit: a replay's loads */
	assert_true(back->probe.soft == raw->probe.soft);
	assert_true(back->probe.thread == raw->probe.thread);
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
	assert_int_equal(replay_parse_measure("window 1\ncpus 1\nthread 1 0 5\n", &back, &line),
			 -EINVAL);
	assert_int_equal(replay_parse_measure("window 1\ncpus 1\nprobe 1 2 -3 4 5\n", &back, &line),
			 -EINVAL);
	assert_int_equal(replay_parse_measure("window 1\ncpus 1\nprobe 1 2 3 4 1e9\n", &back, &line),
			 -EINVAL);
}

static void put_file(const char *dir, const char *name, const char *text, mode_t mode)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "we");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

/* @cap written and read back, as a replay gets it. */
static struct capture *reread(struct capture *cap)
{
	char path[] = "/tmp/irqtune-test-capture.XXXXXX", why[CAPTURE_WHY_MAX], meta[64];
	struct capture *back = NULL;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	snprintf(meta, sizeof(meta), "format %s\nversion %d\n", CAPTURE_FORMAT, CAPTURE_VERSION);
	assert_int_equal(capture_put(cap, CAPTURE_META, meta, strlen(meta), 0), 0);
	assert_int_equal(capture_write(cap, path, why, sizeof(why)), 0);
	capture_free(cap);
	assert_int_equal(capture_read(path, &back, why, sizeof(why)), 0);
	unlink(path);
	return back;
}

static int collect(void *ctx, const char *name)
{
	char *out = ctx;

	strcat(out, name);
	strcat(out, " ");
	return 0;
}

/* What the raw readers keep, and a replay gives back the same: a file, a
 * file's error, a directory listing in readdir order (links included, a
 * plain file not), a trusted file and a refused one, an own file and one
 * too large, a variable set and one not, the costs file judged again. */
static void test_raw_inputs(void **state)
{
	char dir[] = "/tmp/irqtune-test-raw.XXXXXX", path[512], buf[256], why[256];
	char live[256] = "", replayed[256] = "", text[COSTS_FILE_MAX];
	struct source rec = { .mode = SOURCE_RECORD }, rep = { .mode = SOURCE_REPLAY };
	struct estimate_prior base, got, p;
	double when = 0;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/sub", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/link", dir);
	assert_int_equal(symlink("sub", path), 0);
	snprintf(path, sizeof(path), "%s/dangling", dir);
	assert_int_equal(symlink("nowhere", path), 0);
	put_file(dir, "online", "0-3\n", 0444);
	put_file(dir, "irqbalance", "IRQBALANCE_BANNED_CPULIST=2\n", 0644);
	put_file(dir, "writable", "IRQBALANCE_BANNED_CPULIST=3\n", 0666);
	estimate_default_prior(&base);
	p = base;
	p.hard_us[CLASS_NET] = 7.25;
	assert_int_equal(costs_format(&p, "boot-1", 1000, text, sizeof(text)), 0);
	put_file(dir, "costs", text, 0600);
	setenv("IRQTUNE_TEST_VAR", "a b", 1);
	unsetenv("IRQTUNE_TEST_UNSET");

	rec.cap = capture_new();
	assert_non_null(rec.cap);
	snprintf(path, sizeof(path), "%s/online", dir);
	assert_int_equal(source_read(&rec, path, buf, sizeof(buf)), 3);
	assert_int_equal(source_read(&rec, dir, buf, sizeof(buf)), -EISDIR);
	assert_int_equal(source_list(&rec, dir, collect, live), 0);
	snprintf(path, sizeof(path), "%s/online", dir);
	assert_int_equal(source_list(&rec, path, collect, buf), -ENOTDIR);
	snprintf(path, sizeof(path), "%s/sub", dir);
	assert_int_equal(source_isdir(&rec, path), 0);
	snprintf(path, sizeof(path), "%s/irqbalance", dir);
	assert_int_equal(source_fopen_trusted(&rec, path, &f, why, sizeof(why)), 0);
	assert_non_null(fgets(buf, sizeof(buf), f));
	assert_string_equal(buf, "IRQBALANCE_BANNED_CPULIST=2\n");
	fclose(f);
	snprintf(path, sizeof(path), "%s/writable", dir);
	assert_int_equal(source_fopen_trusted(&rec, path, &f, why, sizeof(why)), -EPERM);
	snprintf(path, sizeof(path), "%s/absent", dir);
	assert_int_equal(source_fopen_trusted(&rec, path, &f, why, sizeof(why)), -ENOENT);
	snprintf(path, sizeof(path), "%s/costs", dir);
	assert_int_equal(costs_load_from(&rec, path, "boot-1", 1060, &base, &got, &when,
					 why, sizeof(why)), 0);
	assert_true(got.hard_us[CLASS_NET] == 7.25);
	assert_int_equal(source_read_own(&rec, path, buf, 8, why, sizeof(why)), -EFBIG);
	assert_string_equal(source_getenv(&rec, "IRQTUNE_TEST_VAR", getenv), "a b");
	assert_null(source_getenv(&rec, "IRQTUNE_TEST_UNSET", getenv));
	assert_int_equal(rec.err, 0);
	/* Only what was there is kept: nothing for the absent file. */
	snprintf(path, sizeof(path), "root%s/absent", dir);
	assert_null(capture_get(rec.cap, path));
	snprintf(path, sizeof(path), "error%s/absent", dir);
	assert_null(capture_get(rec.cap, path));

	rep.cap = reread(rec.cap);
	/* Nothing of this machine: the files go, the variable changes. */
	setenv("IRQTUNE_TEST_VAR", "changed", 1);
	setenv("IRQTUNE_TEST_UNSET", "set now", 1);
	snprintf(path, sizeof(path), "%s/online", dir);
	unlink(path);
	assert_int_equal(source_read(&rep, path, buf, sizeof(buf)), 3);
	assert_string_equal(buf, "0-3");
	assert_int_equal(source_read(&rep, dir, buf, sizeof(buf)), -EISDIR);
	assert_int_equal(source_list(&rep, dir, collect, replayed), 0);
	assert_string_equal(replayed, live);	/* the same names, readdir's order */
	assert_non_null(strstr(live, "sub "));
	assert_non_null(strstr(live, "link "));
	assert_non_null(strstr(live, "dangling "));
	assert_null(strstr(live, "online"));
	snprintf(path, sizeof(path), "%s/online", dir);
	assert_int_equal(source_list(&rep, path, collect, buf), -ENOTDIR);
	snprintf(path, sizeof(path), "%s/sub", dir);
	assert_int_equal(source_isdir(&rep, path), 0);
	snprintf(path, sizeof(path), "%s/nowhere", dir);
	assert_int_equal(source_isdir(&rep, path), -ENOENT);
	assert_int_equal(source_list(&rep, path, collect, buf), -ENOENT);
	snprintf(path, sizeof(path), "%s/irqbalance", dir);
	assert_int_equal(source_fopen_trusted(&rep, path, &f, why, sizeof(why)), 0);
	assert_non_null(fgets(buf, sizeof(buf), f));
	assert_string_equal(buf, "IRQBALANCE_BANNED_CPULIST=2\n");
	fclose(f);
	snprintf(path, sizeof(path), "%s/writable", dir);
	assert_int_equal(source_fopen_trusted(&rep, path, &f, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "writable by anyone"));
	snprintf(path, sizeof(path), "%s/absent", dir);
	assert_int_equal(source_fopen_trusted(&rep, path, &f, why, sizeof(why)), -ENOENT);
	snprintf(path, sizeof(path), "%s/costs", dir);
	when = 0;
	assert_int_equal(costs_load_from(&rep, path, "boot-1", 1060, &base, &got, &when,
					 why, sizeof(why)), 0);
	assert_true(got.hard_us[CLASS_NET] == 7.25);
	assert_true(when == 1000);
	/* Judged again: another boot's, or too old at the time given. */
	assert_int_equal(costs_load_from(&rep, path, "boot-2", 1060, &base, &got, &when,
					 why, sizeof(why)), -ESTALE);
	assert_int_equal(source_read_own(&rep, path, buf, 8, why, sizeof(why)), -EFBIG);
	assert_string_equal(source_getenv(&rep, "IRQTUNE_TEST_VAR", getenv), "a b");
	assert_null(source_getenv(&rep, "IRQTUNE_TEST_UNSET", getenv));
	assert_null(source_getenv(&rep, "IRQTUNE_TEST_VAR", NULL));
	capture_free(rep.cap);
	unsetenv("IRQTUNE_TEST_VAR");
	unsetenv("IRQTUNE_TEST_UNSET");

	/* A hostile error member: refused as unreadable, never believed. */
	rep.cap = capture_new();
	snprintf(path, sizeof(path), "error%s/online", dir);
	assert_int_equal(capture_put(rep.cap, path, "0 fine\n", 7, 0), 0);
	snprintf(path, sizeof(path), "%s/online", dir);
	assert_int_equal(source_read(&rep, path, buf, sizeof(buf)), -EIO);
	capture_free(rep.cap);

	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	assert_int_equal(system(path), 0);
}

/* What libudev said of each device, replayed: class, label and node are
 * derived from the raw driver, PCI class, numa_node and the child that
 * named it, as the live scan derives them; malformed lines are refused. */
static void test_devices_replayed(void **state)
{
	static const char intr_text[] =
		"           CPU0       CPU1\n"
		"  24:          1          0  PCI-MSI 1-edge      eth0-TxRx-0\n"
		"  25:          1          0  PCI-MSI 2-edge      nvme0q1\n"
		"  26:          1          0  PCI-MSI 3-edge      virtio0\n";
	static const char devices[] =
		"# irqtune devices\n"
		"device /sys/devices/pci0000:00/0000:00:01.0 pci 0000:00:01.0 ixgbe 0x020000 1 "
		"net eth0 - . - . 24\n"
		/* an odd class code, but an nvme child: storage, named for it */
		"device /sys/devices/pci0000:00/0000:00:02.0 pci 0000:00:02.0 nvme 0xff0000 - "
		"nvme nvme0 2-3 nvme0 - . 25\n"
		/* no child: the class code and the driver; a bad numa_node is none */
		"device /sys/devices/pci0000:00/0000:00:03.0 pci 0000:00:03.0 virtio-pci 0x010000 x "
		"- - - . 1 0000:00:03.0 26\n";
	struct source src = { .mode = SOURCE_REPLAY };
	struct interrupts *intr = NULL;
	struct device_map *map = NULL;
	unsigned int line = 0;
	FILE *f;

	(void)state;
	f = fmemopen((void *)intr_text, sizeof(intr_text) - 1, "r");
	assert_non_null(f);
	assert_int_equal(interrupts_parse(f, &intr, &line), 0);
	fclose(f);
	src.cap = capture_new();
	assert_int_equal(capture_put(src.cap, "devices", devices, sizeof(devices) - 1, 0), 0);
	assert_int_equal(device_scan_from(intr, 2, &src, &map, &line), 0);
	assert_int_equal(map->nr_groups, 3);
	assert_int_equal(map->groups[0].class, CLASS_NET);
	assert_string_equal(map->groups[0].label, "eth0");
	assert_int_equal(map->groups[0].node, 1);
	assert_int_equal(map->groups[1].class, CLASS_STORAGE);
	assert_string_equal(map->groups[1].label, "nvme0");
	assert_int_equal(map->groups[1].node, -1);
	assert_string_equal(map->groups[1].policy_cpus, "2-3");
	assert_int_equal(map->groups[2].class, CLASS_STORAGE);
	assert_string_equal(map->groups[2].label, "virtio-pci");
	assert_int_equal(map->groups[2].node, -1);
	assert_string_equal(map->groups[2].policy_ban, "1");
	assert_int_equal(map->irqs[1].group, 1);
	device_map_free(map);
	capture_free(src.cap);

	/* A child subsystem irqtune does not know, or a line cut short. */
	src.cap = capture_new();
	assert_int_equal(capture_put(src.cap, "devices",
		"device /sys/x pci 0000:00:01.0 drv 0x020000 0 usb x - . - . 24\n", 63, 0), 0);
	assert_int_equal(device_scan_from(intr, 2, &src, &map, &line), -EINVAL);
	assert_int_equal(line, 1);
	capture_free(src.cap);
	src.cap = capture_new();
	assert_int_equal(capture_put(src.cap, "devices",
		"# x\ndevice /sys/x id label net 0 - . - . 24\n", 44, 0), 0);
	assert_int_equal(device_scan_from(intr, 2, &src, &map, &line), -EINVAL);
	assert_int_equal(line, 2);
	capture_free(src.cap);
	interrupts_free(intr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_raw_inputs),
		cmocka_unit_test(test_devices_replayed),
		cmocka_unit_test(test_measure_record),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
