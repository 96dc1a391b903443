// SPDX-License-Identifier: GPL-2.0-or-later
/* test_loadsrc.c - the table of load sources: its names are the words
 * load-source takes, and a source is driven through its operations only.
 * Two fake sources in a test table (a "meter" that measures, and a "base"
 * that always opens, as the estimate does) are opened, run over a window
 * and read (each IRQ's load, and the pinned application load), live and
 * in a replay, with each way a source can fail. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "loadsrc.h"

/* What the fakes were asked to do, and what they did. */
static struct {
	int open_err;		/* the meter's open fails with it */
	int read_err;		/* the meter's read fails with it */
	unsigned int opens, starts, ticks, ends, reads, closes, base_reads;
	bool replay_opened;
} fake;

static int meter_open(struct loadsrc *ls, const struct loadsrc_open *o)
{
	fake.opens++;
	if (o->replay) {
		fake.replay_opened = true;
		ls->raw = o->raw;
		return o->raw ? 0 : -ENODATA;
	}
	if (fake.open_err) {
		snprintf(ls->reason, sizeof(ls->reason), "the meter cannot run: test");
		return fake.open_err;
	}
	ls->priv = &fake;
	return 0;
}

static void meter_describe(const struct loadsrc *ls, char *buf, size_t len)
{
	assert_ptr_equal(ls->priv, &fake);
	snprintf(buf, len, "measured by the meter");
}

static void meter_start(struct loadsrc *ls)
{
	assert_ptr_equal(ls->priv, &fake);
	fake.starts++;
}

static void meter_tick(struct loadsrc *ls)
{
	(void)ls;
	fake.ticks++;
}

static void meter_end(struct loadsrc *ls)
{
	(void)ls;
	fake.ends++;
}

/* One row, its load the steps the window took. */
static int meter_read(struct loadsrc *ls, const struct loadsrc_window *w,
		      struct irq_activity **ret, char *why, size_t len)
{
	(void)w;
	fake.reads++;
	if (fake.read_err) {
		snprintf(why, len, "the meter disagrees");
		return fake.read_err;
	}
	*ret = calloc(1, sizeof(**ret));
	if (!*ret)
		return -ENOMEM;
	(*ret)->irq = 7;
	(*ret)->load = fake.ticks;
	snprintf(ls->reason + strlen(ls->reason), sizeof(ls->reason) - strlen(ls->reason),
		 "; read");
	return 0;
}

/* A pinned thread on CPU 1 of @nr_ids, a quarter of its time. */
static int meter_app(const struct loadsrc *ls, unsigned int nr_ids, struct appload *ret)
{
	(void)ls;
	ret->cpu = calloc(nr_ids, sizeof(*ret->cpu));
	if (!ret->cpu)
		return -ENOMEM;
	ret->nr_ids = nr_ids;
	ret->cpu[1] = 0.25;
	ret->kind = APPLOAD_BPF;
	return 0;
}

static void meter_close(struct loadsrc *ls)
{
	fake.closes++;
	ls->priv = NULL;
}

static int base_open(struct loadsrc *ls, const struct loadsrc_open *o)
{
	(void)ls;
	(void)o;
	return 0;
}

static int base_read(struct loadsrc *ls, const struct loadsrc_window *w,
		     struct irq_activity **ret, char *why, size_t len)
{
	(void)ls;
	(void)w;
	(void)why;
	(void)len;
	fake.base_reads++;
	*ret = calloc(1, sizeof(**ret));
	if (!*ret)
		return -ENOMEM;
	(*ret)->irq = 7;
	(*ret)->load = 0.5;
	return 0;
}

static const struct loadsrc_ops meter = {
	.name = "meter", .open = meter_open, .describe = meter_describe,
	.window_start = meter_start, .window_tick = meter_tick, .window_end = meter_end,
	.read = meter_read, .app = meter_app, .close = meter_close,
};
static const struct loadsrc_ops base = { .name = "base", .open = base_open, .read = base_read };
static const struct loadsrc_ops *const table[] = { &meter, &base, NULL };

static const struct loadsrc_window window;	/* the fakes read nothing of it */

/* The window as loadstep.c runs it: start, @ticks steps where the source
 * takes steps, end; then the read. */
static int run_window(struct loadsrc *ls, unsigned int ticks, struct irq_activity **ret)
{
	loadsrc_start(ls);
	for (unsigned int i = 0; i < ticks && loadsrc_ticks(ls); i++)
		loadsrc_tick(ls);
	loadsrc_stop(ls);
	return loadsrc_finish(ls, &window, ret);
}

static void reset(void)
{
	memset(&fake, 0, sizeof(fake));
}

/* The program's table: one name per source, in its order, the last the
 * /proc estimate; and names found, or not. */
static void test_table(void **state)
{
	const struct loadsrc_ops *ops;
	size_t n = 0;

	(void)state;
	for (; loadsrc_table[n]; n++) {
		assert_non_null(loadsrc_names[n]);
		assert_string_equal(loadsrc_names[n], loadsrc_table[n]->name);
		assert_non_null(loadsrc_table[n]->open);
		assert_non_null(loadsrc_table[n]->read);
		assert_int_equal(loadsrc_find(loadsrc_table, loadsrc_names[n], &ops), 0);
		assert_ptr_equal(ops, loadsrc_table[n]);
	}
	assert_null(loadsrc_names[n]);
	assert_true(n >= 2);
	assert_string_equal(loadsrc_last(loadsrc_table)->name, "proc");
	assert_int_equal(loadsrc_find(loadsrc_table, "auto", &ops), 0);
	assert_null(ops);
	assert_int_equal(loadsrc_find(loadsrc_table, NULL, &ops), 0);
	assert_null(ops);
	assert_int_equal(loadsrc_find(loadsrc_table, "meter", &ops), -ENOENT);
	assert_int_equal(loadsrc_find(table, "meter", &ops), 0);
	assert_ptr_equal(ops, &meter);
}

/* auto: the first source that opens runs the window, and its load is
 * used, the last source's beside it. */
static void test_auto_measures(void **state)
{
	struct loadsrc_open o = { 0 };
	struct appload app;
	struct loadsrc ls;
	struct irq_activity *act = NULL;

	(void)state;
	reset();
	assert_int_equal(loadsrc_begin(&ls, table, "auto", &o), 0);
	assert_ptr_equal(ls.ops, &meter);
	assert_ptr_equal(ls.used, &base);	/* until it is read */
	assert_string_equal(ls.reason, "measured by the meter");
	assert_true(loadsrc_measures(&ls));
	assert_false(loadsrc_measured(&ls));
	assert_int_equal(run_window(&ls, 3, &act), 0);
	assert_int_equal(fake.starts, 1);
	assert_int_equal(fake.ticks, 3);
	assert_int_equal(fake.ends, 1);
	assert_int_equal(fake.reads, 1);
	assert_int_equal(fake.base_reads, 1);
	assert_ptr_equal(ls.used, &meter);
	assert_true(loadsrc_measured(&ls));
	assert_string_equal(loadsrc_name(&ls), "meter");
	assert_string_equal(loadsrc_wanted(&ls), "auto");
	assert_string_equal(ls.reason, "measured by the meter; read");
	assert_true(act->load == 3);
	assert_non_null(ls.proc_act);
	assert_true(ls.proc_act->load == 0.5);
	/* the pinned application load: the open source's */
	assert_int_equal(loadsrc_app(&ls, 2, &app), 0);
	assert_int_equal(app.kind, APPLOAD_BPF);
	assert_int_equal(app.nr_ids, 2);
	assert_true(app.cpu[0] == 0 && app.cpu[1] == 0.25);
	appload_release(&app);
	free(act);
	loadsrc_release(&ls);
	assert_int_equal(fake.closes, 1);
	assert_null(ls.proc_act);
}

/* auto: a source that cannot open is passed over, saying why; the last
 * one runs, and the window never reaches the other. */
static void test_auto_falls_back(void **state)
{
	struct loadsrc_open o = { 0 };
	struct appload app;
	struct loadsrc ls;
	struct irq_activity *act = NULL;

	(void)state;
	reset();
	fake.open_err = -EPERM;
	assert_int_equal(loadsrc_begin(&ls, table, NULL, &o), 0);
	assert_ptr_equal(ls.ops, &base);
	assert_string_equal(ls.reason, "the meter cannot run: test");
	assert_false(loadsrc_measures(&ls));
	assert_false(loadsrc_ticks(&ls));
	assert_int_equal(run_window(&ls, 3, &act), 0);
	assert_int_equal(fake.starts + fake.ticks + fake.ends + fake.reads, 0);
	assert_string_equal(loadsrc_name(&ls), "base");
	assert_true(act->load == 0.5);
	assert_null(ls.proc_act);
	/* the last source times no application thread: /proc's are used */
	assert_int_equal(loadsrc_app(&ls, 2, &app), 0);
	assert_int_equal(app.kind, APPLOAD_NONE);
	assert_null(app.cpu);
	free(act);
	loadsrc_release(&ls);
	assert_int_equal(fake.closes, 0);
}

/* A source asked for by name: its failure to open is the run's; the
 * last one asked for never opens another. */
static void test_asked_for(void **state)
{
	struct loadsrc_open o = { 0 };
	struct loadsrc ls;
	struct irq_activity *act = NULL;

	(void)state;
	reset();
	fake.open_err = -EPERM;
	assert_int_equal(loadsrc_begin(&ls, table, "meter", &o), -EPERM);
	assert_string_equal(ls.reason, "the meter cannot run: test");
	assert_string_equal(loadsrc_wanted(&ls), "meter");
	loadsrc_release(&ls);

	reset();
	assert_int_equal(loadsrc_begin(&ls, table, "base", &o), 0);
	assert_int_equal(fake.opens, 0);
	assert_string_equal(ls.reason, "asked for");
	assert_int_equal(run_window(&ls, 2, &act), 0);
	assert_int_equal(fake.starts + fake.ticks + fake.reads, 0);
	free(act);
	loadsrc_release(&ls);

	assert_int_equal(loadsrc_begin(&ls, table, "nonesuch", &o), -ENOENT);
	loadsrc_release(&ls);
}

/* A read that is not believed: the last source's load, and why, unless
 * the source was asked for; any other failure is the run's. */
static void test_read_refused(void **state)
{
	static const struct {
		const char *want;
		int read_err, want_r;
	} rows[] = {
		{ "auto", -EPROTO, 0 },
		{ "meter", -EPROTO, -EPROTO },
		{ "auto", -ENOMEM, -ENOMEM },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct loadsrc_open o = { 0 };
		struct loadsrc ls;
		struct irq_activity *act = NULL;

		reset();
		fake.read_err = rows[i].read_err;
		assert_int_equal(loadsrc_begin(&ls, table, rows[i].want, &o), 0);
		assert_int_equal(run_window(&ls, 1, &act), rows[i].want_r);
		assert_int_equal(fake.reads, 1);
		assert_ptr_equal(ls.used, &base);
		assert_null(ls.proc_act);
		if (rows[i].want_r == 0) {
			assert_non_null(act);
			assert_true(act->load == 0.5);
		} else {
			assert_null(act);
		}
		if (rows[i].read_err == -EPROTO)
			assert_string_equal(ls.reason,
					    "the measurement was not used: the meter disagrees");
		free(act);
		loadsrc_release(&ls);
		assert_int_equal(fake.closes, 1);
	}
}

/* A replay: the capture's measurement goes to the source that takes one,
 * nothing runs in the window, and the captured run's words are kept. */
static void test_replay(void **state)
{
	struct loadsrc ls;
	struct irq_activity *act = NULL;
	struct measure_raw *raw = measure_raw_new(1);

	(void)state;
	reset();
	assert_non_null(raw);
	assert_int_equal(loadsrc_replay(&ls, table, "auto", raw, "as captured"), 0);
	assert_true(fake.replay_opened);
	assert_ptr_equal(ls.raw, raw);
	assert_string_equal(ls.reason, "as captured");
	assert_false(loadsrc_ticks(&ls));
	assert_int_equal(run_window(&ls, 4, &act), 0);
	assert_int_equal(fake.starts + fake.ticks + fake.ends, 0);
	assert_int_equal(fake.reads, 1);
	assert_string_equal(loadsrc_name(&ls), "meter");
	free(act);
	loadsrc_release(&ls);

	/* None kept: the meter asked for cannot be had; the last one asked
	 * for says so, and the measurement is let go (no leak under ASan). */
	reset();
	assert_int_equal(loadsrc_replay(&ls, table, "meter", NULL, "as captured"), -ENODATA);
	loadsrc_release(&ls);
	assert_int_equal(loadsrc_replay(&ls, table, "base", measure_raw_new(1), "as captured"),
			 0);
	assert_null(ls.raw);
	assert_string_equal(ls.reason, "asked for");
	loadsrc_release(&ls);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_auto_measures),
		cmocka_unit_test(test_auto_falls_back),
		cmocka_unit_test(test_asked_for),
		cmocka_unit_test(test_read_refused),
		cmocka_unit_test(test_replay),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
