// SPDX-License-Identifier: GPL-2.0-or-later
/* test_config.c - /etc/irqtune.conf: good files and what they set, bad files
 * and the line and message of their first error, ownership and mode checks,
 * banning by number and by pattern. Table-driven. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "config.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The words load-source takes besides auto: the program's are the load
 * sources' names (loadsrc_names, checked in test_loadsrc); the parser
 * only knows what its caller lists. */
static const char *const sources[] = { "bpf", "proc", NULL };

#define check(cond, row) do {						\
	if (!(cond)) {							\
		print_error("row \"%s\": %s\n", (row), #cond);		\
		fail();							\
	}								\
} while (0)

static int parse_string(const char *text, struct config *cfg,
			struct config_error *err)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int r;

	assert_non_null(f);
	config_init(cfg);
	cfg->load_sources = sources;
	r = config_parse(f, cfg, err);
	fclose(f);
	return r;
}

static const char *list(const struct cpuset *set)
{
	static char buf[256];

	if (!set)
		return "(unset)";
	assert_int_equal(cpulist_format(set, buf, sizeof(buf)), 0);
	return buf;
}

/* ---- good files ---- */

static void test_empty(void **state)
{
	static const char *const empty[] = {
		"", "\n", "# only a comment\n", "; semicolon comment\n\n",
		"   \n\t\n",
	};
	struct config cfg;
	struct config_error err;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(empty); i++) {
		check(parse_string(empty[i], &cfg, &err) == 0, empty[i]);
		check(cfg.window == 0, empty[i]);
		check(cfg.threshold < 0, empty[i]);
		check(!cfg.bancpus, empty[i]);
		check(cfg.nr_banirq == 0 && cfg.nr_banname == 0, empty[i]);
		check(cfg.hint == CONFIG_HINT_UNSET, empty[i]);
		for (int c = 0; c < CLASS_NR; c++)
			check(!cfg.class_cpus[c], empty[i]);
		config_release(&cfg);
	}
}

static void test_full(void **state)
{
	static const char text[] =
		"# irqtune site policy\n"
		"window = 2.5\n"
		"threshold = 15%\n"
		"bancpus = 2-3\n"
		"bancpus = 7\n"
		"banirq = 42 43, eth9-* ; inline comment\n"
		"banirq = nvme*q0\n"
		"affinity-hint = follow\n"
		"load-source = proc\n"
		"state-dir = /var/lib/irqtune\n"
		"xps = off\n"
		"napi-threads = auto\n"
		"\n"
		"[storage]\n"
		"  cpus = 0-7\n"
		"[net]\n"
		"\tcpus = 8-15,32\n";
	struct config cfg;
	struct config_error err;

	(void)state;
	assert_int_equal(parse_string(text, &cfg, &err), 0);
	assert_true(cfg.window == 2.5);
	assert_true(cfg.threshold > 0.1499 && cfg.threshold < 0.1501);
	assert_string_equal(list(cfg.bancpus), "2-3,7");
	assert_int_equal(cfg.nr_banirq, 2);
	assert_int_equal(cfg.banirq[0], 42);
	assert_int_equal(cfg.banirq[1], 43);
	assert_int_equal(cfg.nr_banname, 2);
	assert_string_equal(cfg.banname[0], "eth9-*");
	assert_string_equal(cfg.banname[1], "nvme*q0");
	assert_int_equal(cfg.hint, CONFIG_HINT_FOLLOW);
	assert_string_equal(cfg.load_source, "proc");
	assert_string_equal(cfg.state_dir, "/var/lib/irqtune");
	assert_int_equal(cfg.xps, CONFIG_FOLLOW_OFF);
	assert_int_equal(cfg.napi_threads, CONFIG_FOLLOW_AUTO);
	assert_string_equal(list(cfg.class_cpus[CLASS_STORAGE]), "0-7");
	assert_string_equal(list(cfg.class_cpus[CLASS_NET]), "8-15,32");
	assert_null(cfg.class_cpus[CLASS_OTHER]);
	assert_int_equal(cfg.line_window, 2);
	assert_int_equal(cfg.line_class[CLASS_NET], 17);
	config_release(&cfg);
}

/* --banirq's list replaces the file's numbers and patterns, whichever
 * the file had. */
static void test_take_banirq(void **state)
{
	static const char *const files[] = {
		"banirq = 5 6\n", "banirq = eth0-*\n", "banirq = 7 nvme*\n", "",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct config cfg;
		struct config_error err;
		unsigned int *irqs = malloc(2 * sizeof(*irqs));

		assert_non_null(irqs);
		irqs[0] = 42;
		irqs[1] = 43;
		assert_int_equal(parse_string(files[i], &cfg, &err), 0);
		assert_true(files[i][0] == '\0' || cfg.nr_banirq + cfg.nr_banname > 0);
		config_take_banirq(&cfg, irqs, 2);
		assert_ptr_equal(cfg.banirq, irqs);
		assert_int_equal(cfg.nr_banirq, 2);
		assert_int_equal(cfg.nr_banname, 0);
		assert_null(cfg.banname);
		config_release(&cfg);
	}
}

/* irqbalance's settings, the other balancer, the metrics file */
static void test_compat_keys(void **state)
{
	static const char text[] =
		"irqbalance-env = /srv/conf/irqbalance.env\n"
		"other-balancer = ignore\n"
		"metrics-file = /var/lib/prometheus/node-exporter/irqtune.prom\n";
	struct config cfg;
	struct config_error err;

	(void)state;
	assert_int_equal(parse_string(text, &cfg, &err), 0);
	assert_string_equal(cfg.irqbalance_env, "/srv/conf/irqbalance.env");
	assert_false(cfg.irqbalance_off);
	assert_int_equal(cfg.other_balancer, CONFIG_BALANCER_IGNORE);
	assert_string_equal(cfg.metrics_file, "/var/lib/prometheus/node-exporter/irqtune.prom");
	config_release(&cfg);
	assert_int_equal(parse_string("irqbalance-env = off\nother-balancer = refuse\n",
				      &cfg, &err), 0);
	assert_true(cfg.irqbalance_off);
	assert_null(cfg.irqbalance_env);
	assert_int_equal(cfg.other_balancer, CONFIG_BALANCER_REFUSE);
	config_release(&cfg);
	/* unset: the defaults */
	assert_int_equal(parse_string("window = 1\n", &cfg, &err), 0);
	assert_false(cfg.irqbalance_off);
	assert_null(cfg.irqbalance_env);
	assert_int_equal(cfg.other_balancer, CONFIG_BALANCER_UNSET);
	assert_null(cfg.metrics_file);
	config_release(&cfg);
}

static void test_values(void **state)
{
	static const struct {
		const char *text;
		double window, threshold;
		enum config_hint hint;
	} rows[] = {
		{ "window = 1\n", 1, -1, CONFIG_HINT_UNSET },
		{ "window=0.1\n", 0.1, -1, CONFIG_HINT_UNSET },
		{ "window = 3600\n", 3600, -1, CONFIG_HINT_UNSET },
		{ "threshold = 0%\n", 0, 0, CONFIG_HINT_UNSET },
		{ "threshold = 100%\n", 0, 1, CONFIG_HINT_UNSET },
		{ "threshold = 2.5%\n", 0, 0.025, CONFIG_HINT_UNSET },
		{ "affinity-hint = ignore\n", 0, -1, CONFIG_HINT_IGNORE },
		{ "window : 2\r\n", 2, -1, CONFIG_HINT_UNSET },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct config cfg;
		struct config_error err;

		check(parse_string(rows[i].text, &cfg, &err) == 0, rows[i].text);
		check(cfg.window == rows[i].window, rows[i].text);
		check(cfg.threshold > rows[i].threshold - 1e-9 &&
		      cfg.threshold < rows[i].threshold + 1e-9, rows[i].text);
		check(cfg.hint == rows[i].hint, rows[i].text);
		config_release(&cfg);
	}
}

/* ---- bad files: the line and a word of the message ---- */

static const struct bad {
	const char *text;
	unsigned int line;
	const char *msg;	/* a substring of the message */
} bad[] = {
	{ "window = fast\n", 1, "window 'fast'" },
	{ "window = 0\n", 1, "above 0" },
	{ "window = -1\n", 1, "window '-1'" },
	{ "window = 3601\n", 1, "at most 3600" },
	{ "window = 1e999\n", 1, "window" },
	{ "window = nan\n", 1, "window 'nan'" },
	{ "window = 1 # seconds\n", 1, "window '1 # seconds'" },
	{ "window = 1\nwindow = 2\n", 2, "given twice (first on line 1)" },
	{ "threshold = 10\n", 1, "give a percentage" },
	{ "threshold = 101%\n", 1, "0% to 100%" },
	{ "threshold = -1%\n", 1, "0% to 100%" },
	{ "threshold = %\n", 1, "give a percentage" },
	{ "bancpus = 3-1\n", 1, "not a cpulist" },
	{ "bancpus = 99999\n", 1, "out of range" },
	{ "bancpus = a\n", 1, "bancpus 'a'" },
	{ "banirq = 16777216\n", 1, "not an IRQ number" },
	{ "banirq =\n", 1, "no IRQ number or pattern" },
	{ "affinity-hint = yes\n", 1, "'follow' or 'ignore'" },
	{ "affinity-hint = follow\naffinity-hint = ignore\n", 2, "given twice" },
	{ "state-dir = run/irqtune\n", 1, "state-dir 'run/irqtune': not an absolute path" },
	{ "state-dir = /a\nstate-dir = /b\n", 2, "given twice" },
	{ "xps = on\n", 1, "xps 'on': must be 'auto' or 'off'" },
	{ "xps = auto\nxps = off\n", 2, "'xps' given twice" },
	{ "napi-threads = 1\n", 1, "napi-threads '1': must be 'auto' or 'off'" },
	{ "napi-threads =\n", 1, "napi-threads '': must be" },
	{ "load-source = ebpf\n", 1, "load-source 'ebpf': must be 'auto', 'bpf' or 'proc'" },
	{ "load-source =\n", 1, "load-source '': must be" },
	{ "load-source = bpf\nload-source = auto\n", 2, "given twice" },
	{ "placement = packed\n", 1, "placement 'packed': must be 'spread' or 'pack'" },
	{ "placement =\n", 1, "placement '': must be" },
	{ "placement = pack\nplacement = spread\n", 2, "'placement' given twice" },
	{ "pack-target = 4%\n", 1, "not from 5% to 100% of a CPU" },
	{ "pack-target = 101%\n", 1, "not from 5% to 100%" },
	{ "pack-target = 1.5\n", 1, "not from 5% to 100%" },
	{ "pack-target = 0\n", 1, "not from 5% to 100%" },
	{ "pack-target = half\n", 1, "pack-target 'half': give a share of a CPU" },
	{ "pack-target = %\n", 1, "give a share of a CPU" },
	{ "pack-target = 50 %\n", 1, "give a share of a CPU" },
	{ "pack-target =\n", 1, "give a share of a CPU" },
	{ "pack-target = 50%\npack-target = 0.5\n", 2, "'pack-target' given twice" },
	{ "irqbalance-env = default/irqbalance\n", 1, "'off' or an absolute path" },
	{ "irqbalance-env = off\nirqbalance-env = /x\n", 2, "given twice" },
	{ "other-balancer = fight\n", 1, "'refuse' or 'ignore'" },
	{ "metrics-file = irqtune.prom\n", 1, "not an absolute path" },
	{ "# ok\n\nwindows = 1\n", 3, "unknown key 'windows'" },
	{ "[net]\ncpus = 0\nwindow = 1\n", 3, "unknown key 'window' in [net]" },
	{ "[disk]\ncpus = 0\n", 2, "unknown section [disk]" },
	{ "[storage]\ncpus =\n", 2, "empty list" },
	{ "[storage]\ncpus = 0-3\ncpus = 4\n", 3, "given twice" },
	{ "[other]\ncpus = x\n", 2, "not a cpulist" },
	{ "window 1\n", 1, "expected 'key = value'" },
	{ "[net\ncpus = 1\n", 1, "expected 'key = value'" },
	{ "window = 1\nthis is not ini\nwindow = 2\n", 2, "expected 'key = value'" },
	{ "avoid-cpus = 2-\n", 1, "avoid-cpus '2-': not a cpulist" },
	{ "avoid-cpus = 99999\n", 1, "avoid-cpus '99999': CPU id out of range" },
	{ "exclusive-cpus = yes\n", 1, "exclusive-cpus 'yes': must be 'avoid', 'ban' or 'ignore'" },
	{ "exclusive-cpus = ban\nexclusive-cpus = ban\n", 2, "'exclusive-cpus' given twice" },
	{ "kubelet-state = cpu_manager_state\n", 1, "not an absolute path" },
	{ "app-weight = -0.5\n", 1, "app-weight '-0.5': not a number from 0 to 100" },
	{ "app-weight = 101\n", 1, "from 0 to 100" },
	{ "app-weight = 50%\n", 1, "app-weight '50%'" },
	{ "app-weight = nan\n", 1, "app-weight 'nan'" },
	{ "app-weight = 1\napp-weight = 2\n", 2, "given twice" },
	{ "[net]\navoid-cpus = 1\n", 2, "unknown key 'avoid-cpus' in [net]" },
	/* the first error counts, whichever found it */
	{ "window = x\nnot ini\n", 1, "window 'x'" },
};

/* The keys of issue 31: the application's CPUs. */
static void test_app_keys(void **state)
{
	static const struct {
		const char *text;
		const char *avoid;
		enum config_exclusive exclusive;
		double weight;
		const char *kubelet;
	} rows[] = {
		{ "", "(unset)", CONFIG_EXCLUSIVE_UNSET, -1, NULL },
		{ "avoid-cpus = 4-7\n", "4-7", CONFIG_EXCLUSIVE_UNSET, -1, NULL },
		{ "avoid-cpus = 4-5\navoid-cpus = 9\n", "4-5,9", CONFIG_EXCLUSIVE_UNSET, -1, NULL },
		{ "avoid-cpus =\n", "", CONFIG_EXCLUSIVE_UNSET, -1, NULL },
		{ "exclusive-cpus = avoid\n", "(unset)", CONFIG_EXCLUSIVE_AVOID, -1, NULL },
		{ "exclusive-cpus = ban\n", "(unset)", CONFIG_EXCLUSIVE_BAN, -1, NULL },
		{ "exclusive-cpus = ignore\n", "(unset)", CONFIG_EXCLUSIVE_IGNORE, -1, NULL },
		{ "app-weight = 0\n", "(unset)", CONFIG_EXCLUSIVE_UNSET, 0, NULL },
		{ "app-weight = 2.5\n", "(unset)", CONFIG_EXCLUSIVE_UNSET, 2.5, NULL },
		{ "app-weight = 100\n", "(unset)", CONFIG_EXCLUSIVE_UNSET, 100, NULL },
		{ "kubelet-state = /srv/kubelet/cpu_manager_state\n", "(unset)",
		  CONFIG_EXCLUSIVE_UNSET, -1, "/srv/kubelet/cpu_manager_state" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct config cfg;
		struct config_error err;

		check(parse_string(rows[i].text, &cfg, &err) == 0, rows[i].text);
		check(strcmp(list(cfg.avoidcpus), rows[i].avoid) == 0, rows[i].text);
		check(cfg.exclusive == rows[i].exclusive, rows[i].text);
		check(cfg.app_weight == rows[i].weight, rows[i].text);
		check(rows[i].kubelet ? cfg.kubelet_state &&
		      strcmp(cfg.kubelet_state, rows[i].kubelet) == 0 : !cfg.kubelet_state,
		      rows[i].text);
		config_release(&cfg);
	}
}

static void test_load_source_values(void **state)
{
	static const struct {
		const char *word;
		const char *want;	/* NULL: refused */
	} rows[] = {
		{ "auto", "auto" }, { "bpf", "bpf" }, { "proc", "proc" }, { "BPF", NULL },
		{ "", NULL }, { "bpf ", NULL }, { "perf", NULL },
	};
	static const char *const one[] = { "perf", NULL };
	char words[64];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		const char *got = config_load_source_parse(sources, rows[i].word);

		check(rows[i].want ? got && strcmp(got, rows[i].want) == 0 : !got, rows[i].word);
	}
	/* The words are the caller's list: another list, other words. */
	check(config_load_source_parse(one, "perf") == one[0], "perf in its own list");
	check(!config_load_source_parse(one, "bpf"), "bpf not in that list");
	check(!config_load_source_parse(NULL, "proc"), "no list: proc refused");
	check(config_load_source_parse(NULL, "auto") != NULL, "no list: auto still taken");
	config_load_source_words(sources, false, words, sizeof(words));
	assert_string_equal(words, "auto, bpf or proc");
	config_load_source_words(one, true, words, sizeof(words));
	assert_string_equal(words, "'auto' or 'perf'");
}

/* placement and pack-target, as a percentage or a share of a CPU. */
static void test_placement(void **state)
{
	static const struct {
		const char *text;
		enum config_placement placement;
		double target;
	} rows[] = {
		{ "", CONFIG_PLACEMENT_UNSET, 0 },
		{ "placement = spread\n", CONFIG_PLACEMENT_SPREAD, 0 },
		{ "placement = pack\n", CONFIG_PLACEMENT_PACK, 0 },
		{ "placement = pack\npack-target = 50%\n", CONFIG_PLACEMENT_PACK, 0.5 },
		{ "pack-target = 0.3\n", CONFIG_PLACEMENT_UNSET, 0.3 },
		{ "pack-target = 5%\n", CONFIG_PLACEMENT_UNSET, 0.05 },
		{ "pack-target = 100%\n", CONFIG_PLACEMENT_UNSET, 1 },
		{ "pack-target = 1\n", CONFIG_PLACEMENT_UNSET, 1 },
		{ "pack-target = 12.5%\n", CONFIG_PLACEMENT_UNSET, 0.125 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct config cfg;
		struct config_error err;

		check(parse_string(rows[i].text, &cfg, &err) == 0, rows[i].text);
		check(cfg.placement == rows[i].placement, rows[i].text);
		check(cfg.pack_target > rows[i].target - 1e-9 &&
		      cfg.pack_target < rows[i].target + 1e-9, rows[i].text);
		config_release(&cfg);
	}
}

static void test_bad(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct config cfg;
		struct config_error err;

		check(parse_string(bad[i].text, &cfg, &err) == -EINVAL, bad[i].text);
		if (err.line != bad[i].line || !strstr(err.msg, bad[i].msg))
			print_error("row \"%s\": got line %u \"%s\"\n", bad[i].text,
				    err.line, err.msg);
		check(err.line == bad[i].line, bad[i].text);
		check(strstr(err.msg, bad[i].msg) != NULL, bad[i].text);
		config_release(&cfg);
	}
}

static void test_long_line(void **state)
{
	char text[600];
	struct config cfg;
	struct config_error err;

	(void)state;
	/* inih would split this line in two and parse the tail as a line. */
	snprintf(text, sizeof(text), "window = 1\nbanirq = %0400d\n", 7);
	assert_int_equal(parse_string(text, &cfg, &err), -EINVAL);
	assert_int_equal(err.line, 2);
	assert_non_null(strstr(err.msg, "too long"));
	config_release(&cfg);
	/* a NUL byte is not text */
	{
		static const char nul[] = "window = 1\nwin\0dow = 2\n";
		FILE *f = fmemopen((void *)nul, sizeof(nul) - 1, "r");

		config_init(&cfg);
		assert_int_equal(config_parse(f, &cfg, &err), -EINVAL);
		assert_int_equal(err.line, 2);
		assert_non_null(strstr(err.msg, "NUL"));
		fclose(f);
		config_release(&cfg);
	}
}

/* ---- banning by number and by pattern ---- */

static void test_banned(void **state)
{
	static const struct {
		unsigned int irq;
		const char *names;
		bool banned;
	} rows[] = {
		{ 42, "eth0-TxRx-0", true },		/* by number */
		{ 44, "eth9-TxRx-3", true },		/* eth9-* */
		{ 45, "nvme0q0", true },		/* nvme*q0 */
		{ 46, "nvme0q1", false },
		{ 47, "eth0-TxRx-1", false },
		{ 48, "i8042,eth9-misc", true },	/* one action of a shared line */
		{ 49, "", false },
		{ 50, "ahci[0000:00:1f.2]", true },	/* brackets matched literally */
	};
	static const char text[] =
		"banirq = 42, eth9-* nvme*q0\nbanirq = ahci\\[0000:00:1f.2\\]\n";
	struct config cfg;
	struct config_error err;

	(void)state;
	assert_int_equal(parse_string(text, &cfg, &err), 0);
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++)
		check(config_irq_banned(&cfg, rows[i].irq, rows[i].names) ==
		      rows[i].banned, rows[i].names);
	config_release(&cfg);
}

/* ---- the file itself: missing, foreign-owned, writable by others ---- */

static char dir[] = "/tmp/test_config.XXXXXX";

static const char *write_file(const char *name, const char *text, mode_t mode)
{
	static char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
	return path;
}

static void test_load(void **state)
{
	struct config cfg;
	struct config_error err;
	const char *path;

	(void)state;
	assert_non_null(mkdtemp(dir));
	config_init(&cfg);
	path = write_file("missing", "", 0644);
	unlink(path);
	assert_int_equal(config_load(path, &cfg, &err), -ENOENT);

	path = write_file("good", "window = 2\n", 0644);
	assert_int_equal(config_load(path, &cfg, &err), 0);
	assert_true(cfg.window == 2);
	config_release(&cfg);

	path = write_file("world", "window = 2\n", 0666);
	assert_int_equal(config_load(path, &cfg, &err), -EPERM);
	assert_non_null(strstr(err.msg, "writable by anyone"));
	assert_non_null(strstr(err.msg, "0666"));

	path = write_file("group", "window = 2\n", 0664);
	assert_int_equal(config_load(path, &cfg, &err), -EPERM);
	assert_non_null(strstr(err.msg, "its group"));

	if (geteuid() == 0) {
		path = write_file("foreign", "window = 2\n", 0644);
		assert_int_equal(chown(path, 65534, 65534), 0);
		assert_int_equal(config_load(path, &cfg, &err), -EPERM);
		assert_non_null(strstr(err.msg, "owned by uid 65534"));
		unlink(path);
	}

	path = write_file("bad", "window = 2\nbogus = 1\n", 0600);
	assert_int_equal(config_load(path, &cfg, &err), -EINVAL);
	assert_int_equal(err.line, 2);
	config_release(&cfg);

	assert_int_equal(config_load(dir, &cfg, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "regular file"));

	unlink(write_file("good", "", 0644));
	unlink(write_file("world", "", 0644));
	unlink(write_file("group", "", 0644));
	unlink(write_file("bad", "", 0644));
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_take_banirq),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_load_source_values),
		cmocka_unit_test(test_placement),
		cmocka_unit_test(test_app_keys),
		cmocka_unit_test(test_compat_keys),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_banned),
		cmocka_unit_test(test_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
