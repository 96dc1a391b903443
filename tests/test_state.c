/* test_state.c - the per-IRQ load history carried from run to run: its
 * text both ways (names of any bytes), every way a file may not be
 * trusted, the weighing of a window with the history (noise smoothed, a
 * shift followed at once, a changed IRQ started afresh), and writers
 * racing readers. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "state.h"

#define BOOT "9a17a830-db8b-47e3-8c6d-cceade8bb582"
#define NOW 1796348475.0
#define HEAD "irqtune-state 2\nboot " BOOT "\ntime 1796348475\n"

static char dir[] = "/tmp/irqtune-test-state.XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* One window of @n IRQs through the history @old; the loads planned. */
static struct state *window(const struct state *old, const struct state_sample *s,
			    unsigned int n, double *load)
{
	struct state *st = NULL;

	assert_int_equal(state_update(old, s, n, NOW, 0.001, load, &st), 0);
	assert_non_null(st);
	return st;
}

static void test_round_trip(void **state)
{
	static const struct state_sample s[] = {
		{ 24, "", "ACPI:Ged", 0 },
		{ 38, "0000:00:03.0", "virtio2-input.0", 0.0123 },
		{ 40, "0000:18:00.0", "eth0 rx, a\tb%c\x1b", 0.5 },
		{ 41, "0000:18:00.0", "-", 0.25 },
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

static void test_parse_refuses(void **state)
{
	static const struct {
		const char *text;
		int err;
		const char *says;
	} rows[] = {
		{ "", -EINVAL, "empty" },
		{ "irqtune-state 3\nboot " BOOT "\ntime 1796348475\n", -EINVAL, "newer irqtune" },
		{ "irqtune-state 1\nboot " BOOT "\ntime 1796348475\n", -ESTALE, "older irqtune" },
		{ "irqtune-costs 1\n", -EINVAL, "not an irqtune state file" },
		{ "irqtune-state 2\nboot 1-2\ntime 1796348475\n", -ESTALE, "another boot" },
		{ "irqtune-state 2\nboot " BOOT "\ntime 1796340000\n", -ESTALE, "older than ten minutes" },
		{ "irqtune-state 2\nboot " BOOT "\ntime 1796358475\n", -ESTALE, "future" },
		{ HEAD "irq 38 - x 0.1 0 1", -EINVAL, "truncated" },
		{ HEAD "irq 38 - x 0.1 0 0\n", -EINVAL, "not an IRQ's history" },
		{ HEAD "irq 38 - x -0.1 0 1\n", -EINVAL, "not an IRQ's history" },
		{ HEAD "irq 38 - x nan 0 1\n", -EINVAL, "not an IRQ's history" },
		{ HEAD "irq 38 - x 1e300 0 1\n", -EINVAL, "not an IRQ's history" },
		{ HEAD "irq 38 - x%ZZ 0.1 0 1\n", -EINVAL, "not an IRQ's history" },
		{ HEAD "irq 38 - x%00 0.1 0 1\n", -EINVAL, "not an IRQ's history" },
		{ HEAD "irq 38 - x 0.1 0 1 extra\n", -EINVAL, "not an IRQ's history" },
		{ HEAD "irq 40 - x 0.1 0 1\nirq 38 - y 0.1 0 1\n", -EINVAL, "out of order" },
		{ HEAD "irq 40 - x 0.1 0 1\nirq 40 - y 0.1 0 1\n", -EINVAL, "out of order" },
		{ "irqtune-state 2\nirq 38 - x 0.1 0 1\n", -EINVAL, "not understood" },
		{ HEAD "cpu 3 0.1\n", -EINVAL, "not understood" },
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
	size_t len = strlen(HEAD) + (STATE_MAX_IRQS + 1) * 24;
	char *text = malloc(len + 1), *p, why[128];
	struct state *st = NULL;

	(void)state;
	assert_non_null(text);
	p = text + sprintf(text, "%s", HEAD);
	for (unsigned int i = 0; i <= STATE_MAX_IRQS; i++)
		p += sprintf(p, "irq %u - x 0.1 0 1\n", i);
	assert_int_equal(state_parse(text, BOOT, NOW, &st, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "more than"));
	free(text);
}

/* A steady load with noise: the plan sees the mean, not the window. A
 * doubling: followed in the same run. */
static void test_smooth_and_shift(void **state)
{
	static const double noisy[] = { 0.100, 0.108, 0.093, 0.104, 0.097, 0.102, 0.095 };
	struct state_sample s = { 40, "0000:18:00.0", "eth0-rx-0", 0 };
	struct state *h = NULL, *n;
	double load, worst = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(noisy) / sizeof(noisy[0]); i++) {
		s.load = noisy[i];
		n = window(h, &s, 1, &load);
		state_free(h);
		h = n;
		if (i > 0)
			worst = fmax(worst, fabs(load - 0.1));
	}
	/* windows are off by up to 8%, the planned load by less than 3% */
	assert_true(worst < 0.003);
	assert_int_equal(h->irqs[0].runs, 7);
	s.load = 0.2;
	n = window(h, &s, 1, &load);
	assert_true(fabs(load - 0.2) < 1e-12);
	assert_int_equal(n->irqs[0].runs, 1);
	state_free(h);
	h = n;
	/* The shift itself taught the variance something: a second one just
	 * after it needs a few steady windows to be told from noise. */
	for (int i = 0; i < 4; i++) {
		s.load = 0.2;
		n = window(h, &s, 1, &load);
		state_free(h);
		h = n;
	}
	s.load = 0.0;
	n = window(h, &s, 1, &load);
	assert_true(load == 0);
	state_free(h);
	state_free(n);
}

/* An estimate that swings by half its value from window to window (the
 * tick-sampled /proc source on an idle VM): after a few windows its
 * history knows the noise and smooths it instead of restarting. */
static void test_noisy_load_learned(void **state)
{
	static const double swing[] = { 0.05, 0.12, 0.03, 0.10, 0.04, 0.11, 0.05, 0.09 };
	struct state_sample s = { 36, "0000:00:02.0", "virtio1-req.0", 0 };
	struct state *h = NULL, *n;
	double load;
	unsigned int restarts = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(swing) / sizeof(swing[0]); i++) {
		s.load = swing[i];
		n = window(h, &s, 1, &load);
		restarts += i > 0 && n->irqs[0].runs == 1;
		state_free(h);
		h = n;
	}
	assert_true(restarts <= 2);
	assert_true(h->irqs[0].runs >= 5);
	assert_true(load > 0.05 && load < 0.10);
	state_free(h);
}

/* Another device on a reused number, or a renamed handler: a new IRQ. */
static void test_key_changes(void **state)
{
	struct state_sample s = { 40, "0000:18:00.0", "eth0-rx-0", 0.3 };
	struct state *h, *n;
	double load;

	(void)state;
	h = window(NULL, &s, 1, &load);
	s.load = 0.31;
	n = window(h, &s, 1, &load);
	assert_int_equal(n->irqs[0].runs, 2);
	state_free(n);
	s.device = "0000:19:00.0";
	n = window(h, &s, 1, &load);
	assert_int_equal(n->irqs[0].runs, 1);
	assert_true(n->irqs[0].var == 0);
	state_free(n);
	s.device = "0000:18:00.0";
	s.name = "nvme0q1";
	n = window(h, &s, 1, &load);
	assert_int_equal(n->irqs[0].runs, 1);
	state_free(n);
	s.name = "eth0-rx-0";
	s.load = NAN;	/* a load not believed counts as none */
	n = window(h, &s, 1, &load);
	assert_true(load == 0);
	state_free(n);
	state_free(h);
}

static void test_load_save(void **state)
{
	struct state_sample s = { 40, "0000:18:00.0", "eth0-rx-0", 0.3 };
	char path[300], sub[256], why[128];
	struct state *a, *b = NULL;
	double load;
	FILE *f;

	(void)state;
	snprintf(sub, sizeof(sub), "%s/run", dir);
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
	fputs(HEAD "irq 40 - x 0.1 0 1\n", f);
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
		s[i] = (struct state_sample){ i, "0000:18:00.0", "eth0-rx", 0.001 * i };
	snprintf(path, sizeof(path), "%s/race", dir);
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

/* The evidence behind a planned mean: none in its first window, then the
 * variance of the windows times the squared weights the mean gave them,
 * falling towards alpha / (2 - alpha) of it as windows pile up. */
static void test_mean_var(void **state)
{
	const double alpha = 1 - exp2(-1.0 / STATE_HALF_LIFE);
	struct state_irq q = { .irq = 40, .mean = 0.1, .var = 4e-6, .runs = 1 };
	double prev;

	(void)state;
	assert_true(state_mean_var(&q) < 0);
	q.runs = 2;
	assert_true(fabs(state_mean_var(&q) - 4e-6 * (alpha * alpha + (1 - alpha) * (1 - alpha))) < 1e-15);
	prev = state_mean_var(&q);
	for (q.runs = 3; q.runs < 200; q.runs++) {
		assert_true(q.runs < 20 ? state_mean_var(&q) < prev : state_mean_var(&q) <= prev);
		prev = state_mean_var(&q);
	}
	assert_true(fabs(prev - 4e-6 * alpha / (2 - alpha)) < 1e-12);
	q.var = 0;
	assert_true(state_mean_var(&q) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_parse_refuses),
		cmocka_unit_test(test_too_many),
		cmocka_unit_test(test_smooth_and_shift),
		cmocka_unit_test(test_mean_var),
		cmocka_unit_test(test_noisy_load_learned),
		cmocka_unit_test(test_key_changes),
		cmocka_unit_test(test_load_save),
		cmocka_unit_test(test_no_torn_file),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
