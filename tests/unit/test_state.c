// SPDX-License-Identifier: GPL-2.0-or-later
/* test_state.c - the file of the per-IRQ load history: its text both
 * ways (names of any bytes), every way a file may not be trusted, and
 * writers racing readers. What a run makes of a history is
 * test_history.c's. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "scratch.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "devfit.h"
#include "history.h"
#include "state.h"
#include "snaptest.h"

#define BOOT "9a17a830-db8b-47e3-8c6d-cceade8bb582"
#define NOW 1796348475.0
#define STR_(x) #x
#define STR(x) STR_(x)
#define HEAD "irqtune-state " STR(STATE_VERSION) "\nboot " BOOT "\ntime 1796348475\n"
#define HEAD5 "irqtune-state " STR(STATE_VERSION_APP) "\nboot " BOOT "\ntime 1796348475\n"
#define HEAD4 "irqtune-state " STR(STATE_VERSION_READ) "\nboot " BOOT "\ntime 1796348475\n"

/* One window of @n IRQs through the history @old; the loads planned. */
static struct state *window(const struct state *old, const struct state_sample *s,
			    unsigned int n, double *load)
{
	struct state *st = NULL;

	assert_int_equal(history_update(old, s, n, NOW, 0.001, load, &st), 0);
	assert_non_null(st);
	return st;
}

static void test_round_trip(void **state)
{
	static const struct state_sample s[] = {
		{ 24, "", "ACPI:Ged", 0, 1, false },
		{ 38, "0000:00:03.0", "virtio2-input.0", 0.0123, 1, false },
		{ 40, "0000:18:00.0", "eth0 rx, a\tb%c\x1b", 0.5, 1, false },
		{ 41, "0000:18:00.0", "-", 0.25, 1, false },
	};
	double load[4];
	struct state *a = window(NULL, s, 4, load), *b = NULL;
	char *text = NULL, why[128];

	(void)state;
	assert_int_equal(state_format(a, BOOT, &text), 0);
	assert_null(strchr(strstr(text, "irq 40"), '\t'));	/* escaped */
	assert_int_equal(state_parse(text, BOOT, NOW + 30, &b, why, sizeof(why)), 0);
	assert_int_equal(b->nr, 4);
	for (unsigned int i = 0; i < 4; i++) {
		assert_int_equal(b->irqs[i].irq, s[i].irq);
		assert_string_equal(b->irqs[i].device, s[i].device);
		assert_string_equal(b->irqs[i].name, s[i].name);
		assert_true(fabs(b->irqs[i].mean - s[i].load) < 1e-9);
		assert_int_equal(b->irqs[i].runs, 1);
	}
	free(text);
	state_free(a);
	state_free(b);
}

/* Each CPU's application load history both ways beside the IRQs'; a
 * state without any is written as a version 4 (read by the irqtune of
 * before), and a version 4 file is read. */
static void test_app_round_trip(void **state)
{
	static const struct state_sample irq[] = {
		{ 38, "0000:00:03.0", "virtio2-input.0", 0.0123, 1, false },
	};
	static const struct state_sample app[] = {
		{ 0, "", "", 0.0, 2, false },
		{ 5, "", "", 0.4986, 2, false },
		{ 7, "", "", 1.0, 2, false },
	};
	double load[3];
	struct state *a = window(NULL, irq, 1, load), *ap = window(NULL, app, 3, load), *b = NULL;
	char *text = NULL, why[128];

	(void)state;
	assert_int_equal(state_format(a, BOOT, &text), 0);
	assert_int_equal(strncmp(text, HEAD4, strlen(HEAD4)), 0);
	assert_null(strstr(text, "\napp"));
	assert_int_equal(state_parse(text, BOOT, NOW, &b, why, sizeof(why)), 0);
	assert_int_equal(b->nr, 1);
	assert_int_equal(b->nr_app, 0);
	assert_int_equal(b->nr_app_ids, 0);
	state_free(b);
	free(text);
	ap->irqs[1].cpu_irq = 0.12;
	a->app = ap->irqs;
	a->nr_app = ap->nr;
	a->nr_app_ids = 8;
	ap->irqs = NULL;
	assert_int_equal(state_format(a, BOOT, &text), 0);
	assert_int_equal(strncmp(text, HEAD5, strlen(HEAD5)), 0);
	assert_non_null(strstr(text, "\nappcpus 8\napp 0 0 0 0 1 2000000 4000000\napp 5 120000000 "));
	assert_int_equal(state_parse(text, BOOT, NOW + 30, &b, why, sizeof(why)), 0);
	assert_int_equal(b->nr, 1);
	assert_int_equal(b->nr_app_ids, 8);
	assert_int_equal(b->nr_app, 3);
	for (unsigned int i = 0; i < 3; i++) {
		assert_int_equal(b->app[i].irq, app[i].irq);
		assert_true(fabs(b->app[i].mean - app[i].load) < 1e-9);
		assert_true(fabs(b->app[i].weight - 2) < 1e-9);
		assert_int_equal(b->app[i].runs, 1);
		assert_true(fabs(b->app[i].cpu_irq - (i == 1 ? 0.12 : 0)) < 1e-9);
	}
	free(text);
	state_free(a);
	state_free(ap);
	state_free(b);
}

/* Refused IRQs: a version 6 file only when there are some, read back
 * as written; refused lines in an older version's file, out of order or
 * short are not trusted; a file of this boot too old for its loads still
 * gives its refusals, and nothing else. */
static void test_refused_round_trip(void **state)
{
	struct state_refusal f[2] = {
		{ 38, "0000:02:00.0", "nvme0q1", "6.1.0-28-amd64" },
		{ 40, "", "odd name", "6.1.0-28-amd64" },
	};
	struct state a = { .when = NOW, .nr_refused = 2, .refused = f }, *b = NULL;
	char *text, why[128];
	static const struct {
		const char *text;
		int r;
		const char *why;
	} bad[] = {
		{ HEAD5 "refused 38 0000:02:00.0 nvme0q1 6.1.0\n", -EINVAL, "not understood" },
		{ HEAD "refused 40 - a 6.1.0\nrefused 38 - b 6.1.0\n", -EINVAL, "out of order" },
		{ HEAD "refused 38 - a\n", -EINVAL, "not a refused IRQ" },
		{ HEAD "refused 38 - a -\n", -EINVAL, "not a refused IRQ" },
	};

	(void)state;
	assert_int_equal(state_format(&a, BOOT, &text), 0);
	assert_int_equal(strncmp(text, HEAD, strlen(HEAD)), 0);
	assert_non_null(strstr(text, "\nrefused 38 0000:02:00.0 nvme0q1 6.1.0-28-amd64\n"
				     "refused 40 - odd%20name 6.1.0-28-amd64\n"));
	assert_int_equal(state_parse(text, BOOT, NOW + 30, &b, why, sizeof(why)), 0);
	assert_int_equal(b->nr_refused, 2);
	assert_false(b->aged);
	assert_int_equal(b->refused[1].irq, 40);
	assert_string_equal(b->refused[1].device, "");
	assert_string_equal(b->refused[1].name, "odd name");
	assert_string_equal(b->refused[0].release, "6.1.0-28-amd64");
	state_free(b);
	/* an hour later: the loads are another's, the refusals still hold */
	assert_int_equal(state_parse(text, BOOT, NOW + 3600, &b, why, sizeof(why)), 0);
	assert_true(b->aged);
	assert_int_equal(b->nr, 0);
	assert_int_equal(b->nr_refused, 2);
	state_free(b);
	/* another boot forgets them */
	b = NULL;
	assert_int_equal(state_parse(text, "another", NOW + 30, &b, why, sizeof(why)), -ESTALE);
	assert_null(b);
	free(text);
	/* without refusals: the version before, which older irqtunes read */
	a.nr_refused = 0;
	assert_int_equal(state_format(&a, BOOT, &text), 0);
	assert_int_equal(strncmp(text, HEAD4, strlen(HEAD4)), 0);
	assert_int_equal(state_parse(text, BOOT, NOW + 3600, &b, why, sizeof(why)), -ESTALE);
	free(text);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		b = NULL;
		why[0] = '\0';
		assert_int_equal(state_parse(bad[i].text, BOOT, NOW, &b, why, sizeof(why)), bad[i].r);
		assert_non_null(strstr(why, bad[i].why));
		assert_null(b);
	}
}

static void test_parse_refuses(void **state)
{
	static const struct {
		const char *text;
		int err;
		const char *says;
	} rows[] = {
		{ "", -EINVAL, "empty" },
		{ "irqtune-state 99\nboot " BOOT "\ntime 1796348475\n", -EINVAL, "newer irqtune" },
		{ "irqtune-state 1\nboot " BOOT "\ntime 1796348475\n", -ESTALE, "older irqtune" },
		{ "irqtune-costs 1\n", -EINVAL, "not an irqtune state file" },
		{ "irqtune-state " STR(STATE_VERSION) "\nboot 1-2\ntime 1796348475\n", -ESTALE, "another boot" },
		{ "irqtune-state " STR(STATE_VERSION) "\nboot " BOOT "\ntime 1796340000\n", -ESTALE, "older than ten minutes" },
		{ "irqtune-state " STR(STATE_VERSION) "\nboot " BOOT "\ntime 1796358475\n", -ESTALE, "future" },
		{ HEAD "irq 38 - x 100000000 0 1 1000000 1000000", -EINVAL, "truncated" },
		{ HEAD "irq 38 - x 100000000 0 0 1000000 1000000\n", -EINVAL, "not an IRQ's history" },
		{ HEAD "irq 38 - x -100000000 0 1 1000000 1000000\n", -EINVAL, "not an IRQ's history" },
		{ HEAD "irq 38 - x 0.1 0 1 1000000 1000000\n", -EINVAL, "not an IRQ's history" },
		{ HEAD "irq 38 - x 100000000000000 0 1 1000000 1000000\n", -EINVAL, "not an IRQ's history" },
		{ HEAD "irq 38 - x 99999999999999999999999 0 1 1000000 1000000\n", -EINVAL, "not an IRQ's history" },
		{ HEAD "irq 38 - x 100000000 0 1 0 1000000\n", -EINVAL, "not an IRQ's history" },
		{ HEAD "irq 38 - x 100000000 0 1 1000000 5000000\n", -EINVAL, "not an IRQ's history" },
		{ HEAD "irq 38 - x 100000000 0 1\n", -EINVAL, "not an IRQ's history" },
		{ HEAD "irq 38 - x%ZZ 100000000 0 1 1000000 1000000\n", -EINVAL, "not an IRQ's history" },
		{ HEAD "irq 38 - x%00 100000000 0 1 1000000 1000000\n", -EINVAL, "not an IRQ's history" },
		{ HEAD "irq 38 - x 100000000 0 1 1000000 1000000 extra\n", -EINVAL, "not an IRQ's history" },
		{ HEAD "irq 38 -  x 100000000 0 1 1000000 1000000\n", -EINVAL, "not an IRQ's history" },
		{ HEAD "irq 40 - x 100000000 0 1 1000000 1000000\nirq 38 - y 100000000 0 1 1000000 1000000\n", -EINVAL, "out of order" },
		{ HEAD "irq 40 - x 100000000 0 1 1000000 1000000\nirq 40 - y 100000000 0 1 1000000 1000000\n", -EINVAL, "out of order" },
		{ "irqtune-state " STR(STATE_VERSION) "\nirq 38 - x 100000000 0 1 1000000 1000000\n", -EINVAL, "not understood" },
		{ HEAD "cpu 3 0.1\n", -EINVAL, "not understood" },
		/* application lines: version 5 only, CPU ids below appcpus, ascending */
		{ HEAD4 "appcpus 4\napp 1 0 500000000 0 1 1000000 1000000\n", -EINVAL, "not understood" },
		{ HEAD "app 1 0 500000000 0 1 1000000 1000000\n", -EINVAL, "application load" },
		{ HEAD "appcpus 0\n", -EINVAL, "application load" },
		{ HEAD "appcpus 4\nappcpus 4\n", -EINVAL, "application load" },
		{ HEAD "appcpus 4\napp 4 0 500000000 0 1 1000000 1000000\n", -EINVAL, "application load" },
		{ HEAD "appcpus 4\napp 2 0 500000000 0 1 1000000 1000000\n"
		  "app 1 0 500000000 0 1 1000000 1000000\n", -EINVAL, "application load" },
		{ HEAD "appcpus 4\napp 1 0 500000000 0 0 1000000 1000000\n", -EINVAL, "application load" },
		{ HEAD "appcpus 4\napp 1 0 500000000 0 1 1000000\n", -EINVAL, "application load" },
		{ HEAD "appcpus 4\napp 1 0 - x 500000000 0 1 1000000 1000000\n", -EINVAL, "application load" },
		{ HEAD "appcpus 4\napp 1 9000000000000 500000000 0 1 1000000 1000000\n", -EINVAL, "application load" },
	};
	struct state *st;
	char why[128];

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int r;

		st = NULL;
		why[0] = '\0';
		r = state_parse(rows[i].text, BOOT, NOW, &st, why, sizeof(why));
		if (r != rows[i].err || !strstr(why, rows[i].says))
			fail_msg("row %zu: %d \"%s\", want %d \"%s\"", i, r, why, rows[i].err,
				 rows[i].says);
		assert_null(st);
	}
}

/* More IRQs than any machine has: refused, not allocated without bound. */
static void test_too_many(void **state)
{
	size_t len = strlen(HEAD) + (STATE_MAX_IRQS + 1) * 56;
	char *text = malloc(len + 1), *p, why[128];
	struct state *st = NULL;

	(void)state;
	assert_non_null(text);
	p = text + sprintf(text, "%s", HEAD);
	for (unsigned int i = 0; i <= STATE_MAX_IRQS; i++)
		p += sprintf(p, "irq %u - x 100000000 0 1 1000000 1000000\n", i);
	assert_int_equal(state_parse(text, BOOT, NOW, &st, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "more than"));
	free(text);
}

static void test_load_save(void **state)
{
	struct state_sample s = { 40, "0000:18:00.0", "eth0-rx-0", 0.3, 1, false };
	char path[300], sub[256], why[128];
	struct state *a, *b = NULL;
	double load;
	FILE *f;

	(void)state;
	snprintf(sub, sizeof(sub), "%s/run", scratch_dir);
	snprintf(path, sizeof(path), "%s/state", sub);
	assert_int_equal(state_load(path, BOOT, NOW, &b, why, sizeof(why)), -ENOENT);
	a = window(NULL, &s, 1, &load);
	a->when = NOW;
	assert_int_equal(state_save(path, a, BOOT), 0);
	assert_int_equal(state_load(path, BOOT, NOW, &b, why, sizeof(why)), 0);
	assert_int_equal(b->nr, 1);
	state_free(b);
	b = NULL;
	assert_int_equal(chmod(path, 0646), 0);
	assert_int_equal(state_load(path, BOOT, NOW, &b, why, sizeof(why)), -EPERM);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink("/etc/passwd", path), 0);
	assert_int_equal(state_load(path, BOOT, NOW, &b, why, sizeof(why)), -ELOOP);
	assert_int_equal(state_save(path, a, BOOT), -ELOOP);	/* not written through */
	assert_int_equal(unlink(path), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(HEAD "irq 40 - x 100000000 0 1 1000000 1000000\n", f);
	fputc('\0', f);
	fclose(f);
	assert_int_equal(state_load(path, BOOT, NOW, &b, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "NUL"));
	/* a read-only directory: the save fails, and says so */
	if (geteuid() != 0) {
		assert_int_equal(chmod(sub, 0555), 0);
		assert_true(state_save(path, a, BOOT) < 0);
		assert_int_equal(chmod(sub, 0755), 0);
	}
	state_free(a);
}

/* Concurrent dry runs are not serialised by the lock: their saves race.
 * A reader sees a whole file, never part of one. */
static void test_no_torn_file(void **state)
{
	struct state_sample s[200];
	char path[300], why[128];
	struct state *a, *b;
	double load[200];
	pid_t kid[2];
	int bad = 0;

	(void)state;
	for (unsigned int i = 0; i < 200; i++)
		s[i] = (struct state_sample){ i, "0000:18:00.0", "eth0-rx", 0.001 * i, 1, false };
	snprintf(path, sizeof(path), "%s/race", scratch_dir);
	a = window(NULL, s, 200, load);
	a->when = NOW;
	assert_int_equal(state_save(path, a, BOOT), 0);
	for (int k = 0; k < 2; k++) {
		kid[k] = fork();
		assert_true(kid[k] >= 0);
		if (kid[k] == 0) {
			for (int i = 0; i < 200; i++)
				if (state_save(path, a, BOOT) < 0)
					_exit(1);
			_exit(0);
		}
	}
	for (int i = 0; i < 500; i++) {
		b = NULL;
		bad += state_load(path, BOOT, NOW, &b, why, sizeof(why)) != 0 || b->nr != 200;
		state_free(b);
	}
	for (int k = 0; k < 2; k++) {
		int st;

		assert_int_equal(waitpid(kid[k], &st, 0), kid[k]);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	assert_int_equal(bad, 0);
	state_free(a);
}

/* The counters at the end of a window go into the state and come back as
 * they were: the next run's interval is measured from them. */
static void snap_of(struct snapshot *sn, const char *intr, const char *stat,
		    const char *softirqs, double when)
{
	memset(sn, 0, sizeof(*sn));
	assert_int_equal(parse_intr(intr, &sn->intr, NULL), 0);
	assert_int_equal(parse_stat(stat, &sn->stats, NULL), 0);
	assert_int_equal(parse_softirqs(softirqs, &sn->stats, NULL), 0);
	sn->when = when;
}

static const char snap_intr_a[] =
	"CPU0 CPU2\n 24: 5 0 PCI-MSI 1-edge eth0 rx\n 40: 0 0 PCI-MSI 2-edge nvme0q1\n";
static const char snap_intr_b[] =
	"CPU0 CPU2\n 24: 105 0 PCI-MSI 1-edge eth0 rx\n 40: 0 30 PCI-MSI 2-edge nvme0q1\n";
static const char snap_stat[] = "cpu0 1 2 3 4 5 6 7\ncpu2 1 2 3 4 5 16 17\n";
static const char snap_softirqs[] = "CPU0 CPU1 CPU2\nTIMER: 1 2 3\nNET_RX: 9 0 0\nBLOCK: 0 0 44\n";

static void test_snap_round_trip(void **state)
{
	struct state st = { .when = NOW }, *back = NULL;
	struct snapshot sn, later, prev_a;
	char *text = NULL, why[128] = "";

	(void)state;
	snap_of(&sn, snap_intr_b, snap_stat, snap_softirqs, 123.5);
	assert_true(state_snap_keepable(&sn));
	st.snap = &sn;
	assert_int_equal(state_format(&st, BOOT, &text), 0);
	assert_int_equal(state_parse(text, BOOT, NOW, &back, why, sizeof(why)), 0);
	assert_non_null(back->snap);
	check_near("when", back->snap->when, 123.5);
	assert_int_equal(back->snap->intr->nr_cols, 2);
	assert_int_equal(back->snap->intr->col_cpu[1], 2);
	assert_int_equal(back->snap->intr->nr_rows, 2);
	/* a description is kept as its hash */
	assert_null(back->snap->intr->rows[0].desc);
	check_u64("desc hash", back->snap->intr->rows[0].desc_hash,
		  sample_desc_hash("PCI-MSI 1-edge eth0 rx"));
	check_u64("count", back->snap->intr->rows[1].counts[0].count, 30);
	check_u64("cpu", back->snap->intr->rows[1].counts[0].cpu, 2);
	assert_int_equal(back->snap->stats.nr_ids, 3);
	check_u64("softirq ticks", back->snap->stats.cpu[2].softirq, 17);
	check_u64("BLOCK", back->snap->stats.cpu[2].softirqs[SOFTIRQ_BLOCK], 44);
	assert_int_equal(back->snap->stats.cpu[1].seen, SAMPLE_SEEN_SOFTIRQS);

	/* A later pair of windows of the same machine makes one long one
	 * with it; an earlier one, or other CPUs, or a reused number do not. */
	snap_of(&prev_a, snap_intr_b, snap_stat, snap_softirqs, 183.5);
	snap_of(&later, snap_intr_b, snap_stat, snap_softirqs, 184.5);
	assert_true(state_snap_usable(back->snap, &prev_a, &later, why, sizeof(why)));
	back->snap->when = 200;
	assert_false(state_snap_usable(back->snap, &prev_a, &later, why, sizeof(why)));
	check_str("why", why, "its counters are not from before this window");
	back->snap->when = 123.5;
	snapshot_release(&later);
	snap_of(&later, "CPU0 CPU2\n 24: 205 0 PCI-MSI 1-edge eth1 rx\n"
		" 40: 0 30 PCI-MSI 2-edge nvme0q1\n", snap_stat, snap_softirqs, 184.5);
	snapshot_release(&prev_a);
	snap_of(&prev_a, "CPU0 CPU2\n 24: 105 0 PCI-MSI 1-edge eth1 rx\n"
		" 40: 0 30 PCI-MSI 2-edge nvme0q1\n", snap_stat, snap_softirqs, 183.5);
	assert_false(state_snap_usable(back->snap, &prev_a, &later, why, sizeof(why)));
	check_str("why", why, "IRQ 24 is not the interrupt it was");
	snapshot_release(&later);
	snap_of(&later, "CPU0 CPU1 CPU2\n 24: 105 0 0 PCI-MSI 1-edge eth0 rx\n", snap_stat,
		snap_softirqs, 184.5);
	assert_false(state_snap_usable(back->snap, &prev_a, &later, why, sizeof(why)));
	check_str("why", why, "CPUs went on- or offline since");
	snapshot_release(&later);
	snapshot_release(&prev_a);
	snapshot_release(&sn);
	state_free(back);
	free(text);
	(void)snap_intr_a;
}

/* A zero count (the /proc/stat path places an idle IRQ's total, 0, on its
 * CPU) is not written: the file holds non-zero counts only, and reads
 * back. */
static void test_snap_zero_count(void **state)
{
	struct state st = { .when = NOW }, *back = NULL;
	struct snapshot sn;
	char *text = NULL, why[128] = "";

	(void)state;
	snap_of(&sn, snap_intr_b, snap_stat, snap_softirqs, 123.5);
	sn.intr->rows[1].counts[0].count = 0;
	sn.intr->rows[1].total = 0;
	st.snap = &sn;
	assert_int_equal(state_format(&st, BOOT, &text), 0);
	if (state_parse(text, BOOT, NOW, &back, why, sizeof(why)) != 0)
		fail_msg("refused its own file: %s", why);
	assert_int_equal(back->snap->intr->rows[1].nr_counts, 0);
	check_u64("the other row", back->snap->intr->rows[0].total, 105);
	snapshot_release(&sn);
	state_free(back);
	free(text);
}

/* Counters that are not what this version writes are refused whole. */
#define HASH "0123456789abcdef"
static void test_snap_refused(void **state)
{
	static const char *const bad[] = {
		"snap 1.5\n",					/* no CPU count */
		"snap 1.5 2\nsnap 2.5 2\n",			/* twice */
		"scpu 0 1 0 0 0 0 0 0 0 0 0 0 0 0\n",		/* before snap */
		"snap 1.5 2\nscpu 1 1 0 0 0 0 0 0 0 0 0 0 0 0\nscpu 0 1 0 0 0 0 0 0 0 0 0 0 0 0\n",
		"snap 1.5 2\nscpu 5 1 0 0 0 0 0 0 0 0 0 0 0 0\n",	/* stats beyond its CPUs */
		"snap 1.5 2\nscpu 0 9 0 0 0 0 0 0 0 0 0 0 0 0\n",	/* unknown flags */
		"snap 1.5 2\nscpu 0 1 0 0 0\n",			/* short */
		"snap 1.5 2\nsc 0 5\n",				/* a count of no row */
		"snap 1.5 2\nsrow 24 " HASH "\nsc 1 5\nsc 0 5\n",	/* out of order */
		"snap 1.5 2\nsrow 24 " HASH "\nsc 0 0\n",	/* a zero is never kept */
		"snap 1.5 2\nsrow 24 " HASH "\nsrow 24 " HASH "\n",	/* the same IRQ twice */
		"snap 1.5 2\nsrow 24 0123456789abcde\n",	/* a short hash */
		"snap 1.5 2\nsrow 24 0123456789abcdef0\n",	/* a long one */
		"snap 1.5 2\nsrow 24 0123456789abcdeg\n",	/* not hex */
		"snap 1.5 2\nsrow 24 PCI-MSI%201-edge\n",	/* a description, as version 2 kept */
		"snap 1.5 99999999\n",				/* absurd */
	};
	char text[512], why[128];
	struct state *st = NULL;

	(void)state;
	/* what they break: this one reads */
	snprintf(text, sizeof(text), HEAD "snap 1.5 2\nsrow 24 " HASH "\nsc 0 5\nsc 1 5\n");
	if (state_parse(text, BOOT, NOW, &st, why, sizeof(why)) != 0)
		fail_msg("refused: %s", why);
	check_u64("hash", st->snap->intr->rows[0].desc_hash, 0x0123456789abcdefULL);
	check_u64("total", st->snap->intr->rows[0].total, 10);
	state_free(st);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		st = NULL;
		snprintf(text, sizeof(text), HEAD "%s", bad[i]);
		if (state_parse(text, BOOT, NOW, &st, why, sizeof(why)) != -EINVAL)
			fail_msg("accepted: %s", bad[i]);
		assert_null(st);
	}
}

/* The per-device fit's sums come back bit for bit (a decimal would round
 * them a little every run), and a sum that is not a finite number is
 * refused whole. */
static void test_fit_round_trip(void **state)
{
	static const double vals[] = { 0.1, 1.0 / 3, 1e-300, 12345.678901234567, 2.5e17 };
	static const char *const refused[] = {
		/* infinity's bits, a short number, an index past the base */
		HEAD "dev 0 x 0\nfit 0 0 0 7ff0000000000000\n",
		HEAD "dev 0 x 0\nfitb 0 0 3ff\n",
		/* what version 3 kept and 4 does not */
		HEAD "dev 0 x 0\nfitrows 0 4006ba27e656b4eb\n",
		HEAD "dev 0 x 0\nfitb 0 2 3ff0000000000000\n",
		/* a device line out of order, of no class, badly escaped, long */
		HEAD "dev 1 x 0\n",
		HEAD "dev 0 x 3\n",
		HEAD "dev 0 x%ZZ 0\n",
		HEAD "dev 0 x 0 1\n",
	};
	struct state st = { .when = NOW, .nr_dev = 2 }, *back = NULL;
	struct state_dev devs[2] = { { "0000:01:00.0", 0 }, { "ahci 5", 1 } };
	char *text = NULL, why[128] = "", bad[512];

	(void)state;
	st.devs = devs;
	st.fit = devfit_new(2);
	assert_non_null(st.fit);
	for (int k = 0; k < DEVFIT_KINDS; k++) {
		for (unsigned int i = 0; i < 9; i++)
			st.fit->n[k][i] = i % 2 ? 0 : vals[(i + (unsigned int)k) % 5] * (i + 1);
		st.fit->b[k][1] = -vals[k % 5];
	}
	assert_int_equal(state_format(&st, BOOT, &text), 0);
	if (state_parse(text, BOOT, NOW, &back, why, sizeof(why)) != 0)
		fail_msg("refused its own file: %s", why);
	assert_int_equal(back->nr_dev, 2);
	check_str("id", back->devs[1].id, "ahci 5");
	assert_int_equal(back->devs[1].class, 1);
	assert_non_null(back->fit);
	for (int k = 0; k < DEVFIT_KINDS; k++) {
		for (unsigned int i = 0; i < 9; i++)
			if (memcmp(&back->fit->n[k][i], &st.fit->n[k][i], sizeof(double)) != 0)
				fail_msg("kind %d sum %u: %.17g, was %.17g", k, i,
					 back->fit->n[k][i], st.fit->n[k][i]);
		assert_true(back->fit->b[k][1] == st.fit->b[k][1]);
		assert_true(back->fit->b[k][0] == 0);
	}
	state_free(back);
	back = NULL;
	for (size_t n = 0; n < sizeof(refused) / sizeof(refused[0]); n++) {
		back = NULL;
		if (state_parse(refused[n], BOOT, NOW, &back, why, sizeof(why)) != -EINVAL)
			fail_msg("accepted: %s", refused[n]);
		assert_null(back);
	}
	/* and a good one of those reads */
	snprintf(bad, sizeof(bad), HEAD "dev 0 x 0\nfitb 0 1 3ff0000000000000\n");
	assert_int_equal(state_parse(bad, BOOT, NOW, &back, why, sizeof(why)), 0);
	assert_true(back->fit->b[0][1] == 1.0);
	state_free(back);
	devfit_free(st.fit);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_app_round_trip),
		cmocka_unit_test(test_parse_refuses),
		cmocka_unit_test(test_refused_round_trip),
		cmocka_unit_test(test_too_many),
		cmocka_unit_test(test_snap_round_trip),
		cmocka_unit_test(test_snap_zero_count),
		cmocka_unit_test(test_snap_refused),
		cmocka_unit_test(test_fit_round_trip),
		cmocka_unit_test(test_load_save),
		cmocka_unit_test(test_no_torn_file),
	};

	return cmocka_run_group_tests(tests, scratch_setup, scratch_teardown);
}
