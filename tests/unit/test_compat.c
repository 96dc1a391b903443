// SPDX-License-Identifier: GPL-2.0-or-later
/* test_compat.c - irqbalance's settings: environment files shaped like
 * Debian's /etc/default/irqbalance and RHEL's /etc/sysconfig/irqbalance as
 * their packages and tuned or CRI-O leave them, each value syntax of the
 * shell that both init systems read alike, malformed values (a warning with
 * file, line and value; the value ignored), the environment, the isolated
 * cpuset partitions, and finding a running irqbalance in a /proc tree.
 * Table-driven where the inputs form a table. */
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

#include "compat.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define check(cond, row) do {						\
	if (!(cond)) {							\
		print_error("row \"%s\": %s\n", (row), #cond);		\
		fail();							\
	}								\
} while (0)

static int parse_string(const char *text, const char *name, struct compat_bans *b)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int r;

	assert_non_null(f);
	memset(b, 0, sizeof(*b));
	r = compat_envfile_parse(f, name, b);
	fclose(f);
	return r;
}

/* All bans as "cpus<source>|...", for one comparison per case. */
static const char *all_bans(const struct compat_bans *b)
{
	static char buf[2048];
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < b->nr; i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s<%s>",
					i ? "|" : "", b->bans[i].cpulist, b->bans[i].source);
	return buf;
}

/* ---- files as the distributions ship them, and as tools edit them ---- */

/* Debian 12's package: every setting commented out, the way it ships. */
static const char debian_shipped[] =
	"# Settings for the irqbalance daemon, read by its unit through\n"
	"# EnvironmentFile= and sourced by the sysvinit script.\n"
	"\n"
	"#\n"
	"# IRQBALANCE_ONESHOT\n"
	"#    balance once after a short wait, then exit\n"
	"#\n"
	"#IRQBALANCE_ONESHOT=\n"
	"\n"
	"#\n"
	"# IRQBALANCE_BANNED_CPUS\n"
	"#    hex mask of CPUs that get no IRQs\n"
	"#\n"
	"#IRQBALANCE_BANNED_CPUS=\n"
	"\n"
	"#\n"
	"# IRQBALANCE_BANNED_CPULIST\n"
	"#    the same as a list: 0,3 or 4-7 or 0,4-7\n"
	"#\n"
	"#IRQBALANCE_BANNED_CPULIST=\n"
	"\n"
	"#\n"
	"# IRQBALANCE_ARGS\n"
	"#    more options for the daemon, see irqbalance(1)\n"
	"#\n"
	"#IRQBALANCE_ARGS=\n";

/* The same file after an admin kept CPUs 2-3 and 12 free for a
 * latency-critical task. */
static const char debian_edited[] =
	"# Settings for the irqbalance daemon.\n"
	"#IRQBALANCE_ONESHOT=\n"
	"#IRQBALANCE_BANNED_CPUS=\n"
	"\n"
	"# keep the packet-capture cores quiet (ticket 4711)\n"
	"IRQBALANCE_BANNED_CPULIST=2-3,12\n"
	"IRQBALANCE_ARGS=\"--banirq=42 --banirq=43\"\n";

/* RHEL 9's /etc/sysconfig/irqbalance after tuned's cpu-partitioning
 * profile isolated CPUs 8-15: the mask in two 32-bit groups, quoted. */
static const char rhel_tuned[] =
	"# irqbalance is a daemon process that distributes interrupts across\n"
	"# CPUs; this file is its EnvironmentFile.\n"
	"#\n"
	"# IRQBALANCE_BANNED_CPUS\n"
	"#    mask of CPUs irqbalance must not assign IRQs to\n"
	"#\n"
	"IRQBALANCE_BANNED_CPUS=\"00000000,0000ff00\"\n"
	"\n"
	"#\n"
	"# IRQBALANCE_ARGS\n"
	"#    options appended to the daemon's command line\n"
	"#\n"
	"IRQBALANCE_ARGS=\n";

/* CRI-O rewrites the mask for pods that ask for no IRQ load balancing,
 * with export and single quotes, CRLF line ends from a Windows editor
 * left in the file, and a CPU list beside it. */
static const char rhel_crio[] =
	"# generated: do not edit\r\n"
	"export IRQBALANCE_BANNED_CPUS='0000000f'\r\n"
	"IRQBALANCE_BANNED_CPULIST=\"20-23\"   # pod latency-sensitive-1\r\n";

static void test_distribution_files(void **state)
{
	static const struct {
		const char *what, *text, *bans;
	} rows[] = {
		{ "Debian as shipped", debian_shipped, "" },
		{ "Debian edited", debian_edited,
		  "2-3,12<IRQBALANCE_BANNED_CPULIST in /etc/default/irqbalance:6>" },
		{ "RHEL with tuned", rhel_tuned,
		  "8-15<IRQBALANCE_BANNED_CPUS in /etc/sysconfig/irqbalance:7>" },
		{ "RHEL with CRI-O", rhel_crio,
		  "20-23<IRQBALANCE_BANNED_CPULIST in /etc/sysconfig/irqbalance:3>|"
		  "0-3<IRQBALANCE_BANNED_CPUS in /etc/sysconfig/irqbalance:2>" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		const char *name = strstr(rows[i].what, "Debian") ?
				   "/etc/default/irqbalance" : "/etc/sysconfig/irqbalance";
		struct compat_bans b;

		check(parse_string(rows[i].text, name, &b) == 0, rows[i].what);
		if (strcmp(all_bans(&b), rows[i].bans) != 0)
			print_error("%s: got \"%s\"\n", rows[i].what, all_bans(&b));
		check(strcmp(all_bans(&b), rows[i].bans) == 0, rows[i].what);
		check(b.nr_warnings == 0, rows[i].what);
		compat_bans_release(&b);
	}
}

/* ---- one line each: what the shell would assign, or why not ---- */

static const struct value_row {
	const char *line;
	const char *cpus;	/* banned, as a cpulist; "" none */
	const char *warning;	/* a substring of the one warning, NULL for none */
} value_rows[] = {
	/* good */
	{ "IRQBALANCE_BANNED_CPULIST=1", "1", NULL },
	{ "IRQBALANCE_BANNED_CPULIST='1,3'", "1,3", NULL },
	{ "IRQBALANCE_BANNED_CPULIST=\"0-1\"", "0-1", NULL },
	{ "  export   IRQBALANCE_BANNED_CPULIST=4", "4", NULL },
	{ "IRQBALANCE_BANNED_CPULIST=5 # a comment", "5", NULL },
	{ "IRQBALANCE_BANNED_CPULIST=5\t", "5", NULL },
	{ "IRQBALANCE_BANNED_CPULIST=\"6\"'-'7", "6-7", NULL },
	{ "IRQBALANCE_BANNED_CPULIST=8\\,9", "8-9", NULL },
	{ "IRQBALANCE_BANNED_CPULIST=", "", NULL },
	{ "IRQBALANCE_BANNED_CPULIST=''", "", NULL },
	{ "IRQBALANCE_BANNED_CPUS=fc0", "6-11", NULL },
	{ "IRQBALANCE_BANNED_CPUS=ff000000,00000001", "0,56-63", NULL },
	{ "IRQBALANCE_BANNED_CPUS=00000000", "", NULL },
	{ "IRQBALANCE_BANNED_CPUS=\"1\"", "0", NULL },
	{ "# IRQBALANCE_BANNED_CPUS=ff", "", NULL },
	{ "; IRQBALANCE_BANNED_CPUS=ff", "", NULL },
	{ "IRQBALANCE_BANNED_CPUSX=ff", "", NULL },
	{ "MY_IRQBALANCE_BANNED_CPUS=ff", "", NULL },
	{ "export IRQBALANCE_BANNED_CPUS", "", NULL },
	{ "if [ -x /usr/sbin/irqbalance ]; then :; fi", "", NULL },
	/* malformed: warned, ignored */
	{ "IRQBALANCE_BANNED_CPULIST=3-1", "", "IRQBALANCE_BANNED_CPULIST '3-1': not a cpulist" },
	{ "IRQBALANCE_BANNED_CPULIST=all", "", "'all': not a cpulist" },
	{ "IRQBALANCE_BANNED_CPULIST=99999", "", "'99999': a CPU id out of range" },
	{ "IRQBALANCE_BANNED_CPUS=0xff", "", "IRQBALANCE_BANNED_CPUS '0xff': not a hex cpumask" },
	{ "IRQBALANCE_BANNED_CPUS=ff,", "", "'ff,': not a hex cpumask" },
	{ "IRQBALANCE_BANNED_CPUS=123456789", "", "not a hex cpumask" },
	{ "IRQBALANCE_BANNED_CPUS=fg", "", "'fg': not a hex cpumask" },
	{ "IRQBALANCE_BANNED_CPULIST=\"1", "", "unterminated \" quote" },
	{ "IRQBALANCE_BANNED_CPULIST='1", "", "unterminated ' quote" },
	{ "IRQBALANCE_BANNED_CPULIST=$ISOLATED", "", "expansion" },
	{ "IRQBALANCE_BANNED_CPULIST=\"${ISOLATED}\"", "", "expansion" },
	{ "IRQBALANCE_BANNED_CPULIST=`cat /x`", "", "expansion" },
	{ "IRQBALANCE_BANNED_CPULIST=1 2", "", "more than one word" },
	{ "IRQBALANCE_BANNED_CPULIST=1;reboot", "", "shell syntax" },
	{ "IRQBALANCE_BANNED_CPULIST=1\\", "", "backslash at the end" },
	{ "IRQBALANCE_BANNED_CPULIST = 1", "", "no blanks around '='" },
	{ "IRQBALANCE_BANNED_CPULIST=\"\x1b[2J\"", "", "'\\x1b[2J'" },
};

static void test_values(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(value_rows); i++) {
		const struct value_row *row = &value_rows[i];
		char text[256];
		struct compat_bans b;

		snprintf(text, sizeof(text), "# line 1\n%s\n", row->line);
		check(parse_string(text, "/etc/default/irqbalance", &b) == 0, row->line);
		check(b.nr == (row->cpus[0] ? 1u : 0u), row->line);
		if (b.nr == 1 && row->cpus[0]) {
			if (strcmp(b.bans[0].cpulist, row->cpus) != 0)
				print_error("row \"%s\": got %s\n", row->line, b.bans[0].cpulist);
			check(strcmp(b.bans[0].cpulist, row->cpus) == 0, row->line);
			check(strstr(b.bans[0].source, "in /etc/default/irqbalance:2") != NULL,
			      row->line);
		}
		check(b.nr_warnings == (row->warning ? 1u : 0u), row->line);
		if (row->warning && b.nr_warnings == 1) {
			if (!strstr(b.warnings[0], row->warning))
				print_error("row \"%s\": warning \"%s\"\n", row->line, b.warnings[0]);
			/* the file and line, what is wrong, and what happens */
			check(strncmp(b.warnings[0], "/etc/default/irqbalance:2: ", 27) == 0,
			      row->line);
			check(strstr(b.warnings[0], row->warning) != NULL, row->line);
			check(strstr(b.warnings[0], "; ignored") != NULL, row->line);
		}
		compat_bans_release(&b);
	}
}

/* ---- several lines: the last good assignment counts ---- */

static void test_reassignment(void **state)
{
	struct compat_bans b;

	(void)state;
	/* as in the shell, the later one replaces the earlier */
	assert_int_equal(parse_string("IRQBALANCE_BANNED_CPULIST=1\n"
				      "IRQBALANCE_BANNED_CPULIST=2\n", "f", &b), 0);
	assert_string_equal(all_bans(&b), "2<IRQBALANCE_BANNED_CPULIST in f:2>");
	compat_bans_release(&b);
	/* emptied later: nothing banned */
	assert_int_equal(parse_string("IRQBALANCE_BANNED_CPULIST=1\n"
				      "IRQBALANCE_BANNED_CPULIST=\n", "f", &b), 0);
	assert_int_equal(b.nr, 0);
	compat_bans_release(&b);
	/* a malformed one is ignored: the one before stays */
	assert_int_equal(parse_string("IRQBALANCE_BANNED_CPUS=3\n"
				      "IRQBALANCE_BANNED_CPUS=zz\n", "f", &b), 0);
	assert_string_equal(all_bans(&b), "0-1<IRQBALANCE_BANNED_CPUS in f:1>");
	assert_int_equal(b.nr_warnings, 1);
	assert_string_equal(b.warnings[0], "f:2: IRQBALANCE_BANNED_CPUS 'zz': not a hex cpumask "
			    "(e.g. fc0, or ff000000,00000001 for CPUs 0 and 56-63); ignored");
	compat_bans_release(&b);
}

static void test_long_and_binary(void **state)
{
	size_t len = COMPAT_LINE_MAX + 100;
	char *text = malloc(len + 64);
	struct compat_bans b;

	(void)state;
	assert_non_null(text);
	/* a line too long to be ours is skipped; the next is read */
	memcpy(text, "IRQBALANCE_BANNED_CPULIST=", 26);
	memset(text + 26, '1', len - 26);
	strcpy(text + len, "\nIRQBALANCE_BANNED_CPUS=4\n");
	assert_int_equal(parse_string(text, "f", &b), 0);
	assert_string_equal(all_bans(&b), "2<IRQBALANCE_BANNED_CPUS in f:2>");
	assert_int_equal(b.nr_warnings, 1);
	assert_non_null(strstr(b.warnings[0], "f:1: line longer than"));
	compat_bans_release(&b);
	free(text);
	/* a NUL byte: that line is not read, the next one is */
	{
		static const char nul[] = "IRQBALANCE_BANNED_CPULIST=1\0 2\n"
					  "IRQBALANCE_BANNED_CPUS=8\n";
		FILE *f = fmemopen((void *)nul, sizeof(nul) - 1, "r");

		memset(&b, 0, sizeof(b));
		assert_int_equal(compat_envfile_parse(f, "f", &b), 0);
		assert_string_equal(all_bans(&b), "3<IRQBALANCE_BANNED_CPUS in f:2>");
		assert_int_equal(b.nr_warnings, 1);
		assert_string_equal(b.warnings[0], "f:1: a NUL byte in the line; ignored");
		fclose(f);
		compat_bans_release(&b);
	}
	/* no newline at the end of the file */
	assert_int_equal(parse_string("# x\nIRQBALANCE_BANNED_CPULIST=5", "f", &b), 0);
	assert_string_equal(all_bans(&b), "5<IRQBALANCE_BANNED_CPULIST in f:2>");
	compat_bans_release(&b);
	/* a file of garbage bytes bans nothing and says nothing */
	{
		static const char junk[] = "\x7f" "ELF\x02\x01\x01\0\0\0\n\xff\xfe=\n";
		FILE *f = fmemopen((void *)junk, sizeof(junk) - 1, "r");

		memset(&b, 0, sizeof(b));
		assert_int_equal(compat_envfile_parse(f, "f", &b), 0);
		assert_int_equal(b.nr, 0);
		assert_int_equal(b.nr_warnings, 0);
		fclose(f);
	}
}

static void test_many_warnings(void **state)
{
	char *text = malloc(200 * 40);
	size_t off = 0;
	struct compat_bans b;

	(void)state;
	assert_non_null(text);
	for (int i = 0; i < 200; i++)
		off += (size_t)sprintf(text + off, "IRQBALANCE_BANNED_CPUS=x%d\n", i);
	assert_int_equal(parse_string(text, "f", &b), 0);
	assert_int_equal(b.nr_warnings, COMPAT_WARN_MAX);
	assert_int_equal(b.nr_dropped, 200 - COMPAT_WARN_MAX);
	compat_bans_release(&b);
	free(text);
}

/* ---- the environment ---- */

static const char *const *fake_env;

static char *fake_getenv(const char *key)
{
	size_t len = strlen(key);

	for (const char *const *e = fake_env; *e; e++)
		if (strncmp(*e, key, len) == 0 && (*e)[len] == '=')
			return (char *)*e + len + 1;
	return NULL;
}

static void test_environment(void **state)
{
	static const char *const both[] = {
		"IRQBALANCE_BANNED_CPULIST=1-2", "IRQBALANCE_BANNED_CPUS=10", NULL,
	};
	static const char *const bad[] = { "IRQBALANCE_BANNED_CPUS=0x10", NULL };
	static const char *const none[] = { "PATH=/bin", NULL };
	struct compat_bans b = { 0 };

	(void)state;
	fake_env = both;
	assert_int_equal(compat_env_read(fake_getenv, &b), 0);
	assert_string_equal(all_bans(&b), "1-2<IRQBALANCE_BANNED_CPULIST in the environment>|"
			    "4<IRQBALANCE_BANNED_CPUS in the environment>");
	compat_bans_release(&b);
	fake_env = bad;
	assert_int_equal(compat_env_read(fake_getenv, &b), 0);
	assert_int_equal(b.nr, 0);
	assert_int_equal(b.nr_warnings, 1);
	assert_string_equal(b.warnings[0], "IRQBALANCE_BANNED_CPUS '0x10' in the environment: "
			    "not a hex cpumask (e.g. fc0, or ff000000,00000001 for CPUs 0 and 56-63); ignored");
	compat_bans_release(&b);
	fake_env = none;
	assert_int_equal(compat_env_read(fake_getenv, &b), 0);
	assert_int_equal(b.nr + b.nr_warnings, 0);
	compat_bans_release(&b);
}

/* ---- files on disk: load, collect, cgroup, /proc ---- */

static char tmpdir[64];

static void put(const char *rel, const char *text, mode_t mode)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

static const char *at(const char *rel)
{
	static char path[4][256];
	static int k;

	k = (k + 1) % 4;
	snprintf(path[k], sizeof(path[k]), "%s/%s", tmpdir, rel);
	return path[k];
}

static int setup_tmp(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_compat.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown_tmp(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_load(void **state)
{
	struct compat_bans b = { 0 };

	(void)state;
	put("default", debian_edited, 0644);
	assert_int_equal(compat_envfile_load(at("default"), &b), 0);
	assert_int_equal(b.nr, 1);
	assert_string_equal(b.bans[0].cpulist, "2-3,12");
	compat_bans_release(&b);
	assert_int_equal(compat_envfile_load(at("missing"), &b), -ENOENT);
	assert_int_equal(b.nr + b.nr_warnings, 0);
	/* writable by others: its bans would be anyone's */
	put("open", debian_edited, 0666);
	assert_int_equal(compat_envfile_load(at("open"), &b), -EPERM);
	assert_int_equal(b.nr, 0);
	assert_int_equal(b.nr_warnings, 1);
	assert_string_equal(b.warnings[0] + strlen(at("open")), ": writable by anyone (mode 0666): "
			    "refusing it (chmod go-w): its irqbalance settings are not applied");
	compat_bans_release(&b);
}

static void test_collect(void **state)
{
	static const char *const env[] = { "IRQBALANCE_BANNED_CPULIST=30", NULL };
	const char *defaults[3];
	struct compat_sources src = { .getenv_fn = fake_getenv };
	struct compat_bans b = { 0 };

	(void)state;
	fake_env = env;
	put("deb", debian_edited, 0644);
	put("rhel", rhel_tuned, 0644);
	put("isolated", "40-41\n", 0644);
	defaults[0] = at("deb");
	defaults[1] = at("rhel");
	defaults[2] = NULL;
	src.defaults = defaults;
	src.cgroup_isolated = at("isolated");
	/* everything adds up */
	assert_int_equal(compat_collect(&src, &b), 0);
	assert_int_equal(b.nr, 4);
	assert_string_equal(b.bans[0].cpulist, "30");
	assert_string_equal(b.bans[1].cpulist, "2-3,12");
	assert_string_equal(b.bans[2].cpulist, "8-15");
	assert_string_equal(b.bans[3].cpulist, "40-41");
	assert_non_null(strstr(b.bans[3].source, "isolated cpuset partition"));
	assert_int_equal(b.nr_warnings, 0);
	compat_bans_release(&b);
	/* a file of one's own instead of the defaults; it must exist */
	src.envfile = at("rhel");
	assert_int_equal(compat_collect(&src, &b), 0);
	assert_int_equal(b.nr, 3);
	assert_string_equal(b.bans[1].cpulist, "8-15");
	compat_bans_release(&b);
	src.envfile = at("nowhere");
	assert_int_equal(compat_collect(&src, &b), 0);
	assert_int_equal(b.nr, 2);
	assert_int_equal(b.nr_warnings, 1);
	assert_non_null(strstr(b.warnings[0], "nowhere: cannot read it: No such file"));
	compat_bans_release(&b);
	/* off: neither file nor environment; the partitions still count */
	src.off = true;
	assert_int_equal(compat_collect(&src, &b), 0);
	assert_int_equal(b.nr, 1);
	assert_string_equal(b.bans[0].cpulist, "40-41");
	compat_bans_release(&b);
}

static void test_cgroup(void **state)
{
	static const struct {
		const char *text, *cpus, *warning;
	} rows[] = {
		{ "", "", NULL },		/* no isolated partition */
		{ "\n", "", NULL },
		{ "4-7\n", "4-7", NULL },
		{ "2,9-10\n", "2,9-10", NULL },
		{ "4-\n", "", "'4-': not a cpulist; ignored" },
		{ "123456\n", "", "out of range" },
	};
	struct compat_bans b = { 0 };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		put("cpuset.cpus.isolated", rows[i].text, 0444);
		check(compat_cgroup_isolated(at("cpuset.cpus.isolated"), &b) == 0, rows[i].text);
		check(b.nr == (rows[i].cpus[0] ? 1u : 0u), rows[i].text);
		if (b.nr)
			check(strcmp(b.bans[0].cpulist, rows[i].cpus) == 0, rows[i].text);
		check(b.nr_warnings == (rows[i].warning ? 1u : 0u), rows[i].text);
		if (b.nr_warnings)
			check(strstr(b.warnings[0], rows[i].warning) != NULL, rows[i].text);
		compat_bans_release(&b);
		unlink(at("cpuset.cpus.isolated"));
	}
	/* kernels before 6.7 have no such file */
	assert_int_equal(compat_cgroup_isolated(at("cpuset.cpus.isolated"), &b), 0);
	assert_int_equal(b.nr + b.nr_warnings, 0);
}

static void proc_entry(const char *pid, const char *comm, char state)
{
	char rel[64], stat[128];

	snprintf(rel, sizeof(rel), "proc/%s", pid);
	assert_int_equal(mkdir(at(rel), 0755), 0);
	snprintf(rel, sizeof(rel), "proc/%s/comm", pid);
	snprintf(stat, sizeof(stat), "%s\n", comm);
	put(rel, stat, 0444);
	snprintf(rel, sizeof(rel), "proc/%s/stat", pid);
	/* a comm with ") " in it must not fool the state's lookup */
	snprintf(stat, sizeof(stat), "%s (%s) %c 1 %s 0 0 -1 4194560 88 0\n", pid, comm,
		 state, pid);
	put(rel, stat, 0444);
}

static void test_find_balancer(void **state)
{
	char self[32], name[32];
	pid_t pid = 0;

	(void)state;
	assert_int_equal(mkdir(at("proc"), 0755), 0);
	assert_int_equal(compat_find_balancer(at("proc"), &pid, name, sizeof(name)), 0);
	proc_entry("1", "systemd", 'S');
	proc_entry("17", "irqbalance-ui", 'S');
	proc_entry("23", "irqbalance", 'Z');	/* exited, not reaped */
	snprintf(self, sizeof(self), "%d", (int)getpid());
	proc_entry(self, "irqbalance", 'R');	/* ourselves, renamed */
	assert_int_equal(mkdir(at("proc/irq"), 0755), 0);
	put("proc/interrupts", "", 0444);
	assert_int_equal(compat_find_balancer(at("proc"), &pid, name, sizeof(name)), 0);
	proc_entry("4242", "irqbalance", 'S');
	assert_int_equal(compat_find_balancer(at("proc"), &pid, name, sizeof(name)), 1);
	assert_int_equal(pid, 4242);
	assert_string_equal(name, "irqbalance");
	assert_int_equal(compat_find_balancer(at("noproc"), &pid, name, sizeof(name)), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_distribution_files),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_reassignment),
		cmocka_unit_test(test_long_and_binary),
		cmocka_unit_test(test_many_warnings),
		cmocka_unit_test(test_environment),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_collect),
		cmocka_unit_test(test_cgroup),
		cmocka_unit_test(test_find_balancer),
	};

	return cmocka_run_group_tests(tests, setup_tmp, teardown_tmp);
}
