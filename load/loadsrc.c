// SPDX-License-Identifier: GPL-2.0-or-later
/* loadsrc.c - the table of load sources, and the choice of one for a run
 * with the reason for it. The measurement is only believed when it
 * describes the machine the run reads: /proc and /sys are the kernel's own
 * (not a test tree, not a container's bound-over files), and the IRQs the
 * program saw are those /proc/interrupts counted (each source's read).
 * Functions return 0 or -errno; the caller reports. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfload.h"
#include "fileio.h"
#include "loadsrc.h"
#include "pathnames.h"
#include "strutil.h"

/* The sources, best first: "auto" opens the first that can run. The last
 * always opens, and is read beside the others. A new source: its file
 * (which defines struct loadsrc_ops loadsrc_<name>) and one X(<name>)
 * here; <name> is also the load-source= word. */
#define LOADSRC_SOURCES(X) \
	X(bpf) \
	X(proc)

#define LOADSRC_DECLARE(n) extern const struct loadsrc_ops loadsrc_##n;
LOADSRC_SOURCES(LOADSRC_DECLARE)
#define LOADSRC_ENTRY(n) &loadsrc_##n,
const struct loadsrc_ops *const loadsrc_table[] = { LOADSRC_SOURCES(LOADSRC_ENTRY) NULL };
#define LOADSRC_NAME(n) #n,
const char *const loadsrc_names[] = { LOADSRC_SOURCES(LOADSRC_NAME) NULL };

const struct loadsrc_ops *loadsrc_last(const struct loadsrc_ops *const *table)
{
	const struct loadsrc_ops *last = NULL;

	for (; *table; table++)
		last = *table;
	return last;
}

static const char *const proc_files[] = {
	_PATH_PROC_INTERRUPTS, _PATH_PROC_STAT, _PATH_PROC_SOFTIRQS, NULL
};
static const char *const sys_files[] = { _PATH_SYS_CPU "/online", NULL };

bool loadsrc_native(void)
{
	char why[64];

	return bpfload_native(proc_files, sys_files, why, sizeof(why)) == 0;
}

int loadsrc_find(const struct loadsrc_ops *const *table, const char *name,
		 const struct loadsrc_ops **ret)
{
	*ret = NULL;
	if (!name || strcmp(name, "auto") == 0)
		return 0;
	for (; *table; table++)
		if (strcmp((*table)->name, name) == 0) {
			*ret = *table;
			return 0;
		}
	return -ENOENT;
}

/* ls->want, or each source of the table in turn: opened with @o until one
 * opens. -errno of the wanted source that does not. */
static int open_first(struct loadsrc *ls, const struct loadsrc_open *o)
{
	const struct loadsrc_ops *const *c = ls->want ? &ls->want : ls->table;
	int r = -ENOENT;

	for (; *c; c++) {
		r = (*c)->open(ls, o);
		if (r == 0) {
			ls->ops = *c;
			return 0;
		}
		if (ls->want)
			break;
	}
	return r;
}

/* The common start of a choice: -ENOENT for a source @table lacks. */
static int prepare(struct loadsrc *ls, const struct loadsrc_ops *const *table,
		   const char *want)
{
	memset(ls, 0, sizeof(*ls));
	ls->table = table;
	ls->used = loadsrc_last(table);
	return loadsrc_find(table, want, &ls->want);
}

int loadsrc_begin(struct loadsrc *ls, const struct loadsrc_ops *const *table,
		  const char *want, struct loadsrc_open *o)
{
	char why[LOADSRC_REASON_MAX - 64];
	int r;

	r = prepare(ls, table, want);
	if (r < 0)
		return r;
	/* Checked before anything is loaded: a measurement of this kernel
	 * says nothing about the machine a test tree shows. */
	ls->native = bpfload_native(proc_files, sys_files, why, sizeof(why)) == 0;
	o->not_native = ls->native ? NULL : why;
	o->replay = false;
	o->raw = NULL;
	if (ls->want)
		snprintf(ls->reason, sizeof(ls->reason), "asked for");
	r = open_first(ls, o);
	o->not_native = NULL;
	if (r < 0)
		return r;
	if (ls->ops->describe)
		ls->ops->describe(ls, ls->reason, sizeof(ls->reason));
	return 0;
}

int loadsrc_replay(struct loadsrc *ls, const struct loadsrc_ops *const *table,
		   const char *want, struct measure_raw *raw, const char *reason)
{
	struct loadsrc_open o = { .replay = true, .raw = raw };
	int r;

	r = prepare(ls, table, want);
	if (r < 0) {
		measure_raw_free(raw);
		return r;
	}
	ls->replayed = true;
	/* The estimate needs nothing of the capture, and says it was asked
	 * for; any other source says what the captured run said. */
	if (ls->want && ls->want == ls->used)
		snprintf(ls->reason, sizeof(ls->reason), "asked for");
	else
		snprintf(ls->reason, sizeof(ls->reason), "%s", reason);
	r = open_first(ls, &o);
	/* Taken over by the source that measures, or by none. */
	if (ls->raw != raw)
		measure_raw_free(raw);
	return r;
}

void loadsrc_start(struct loadsrc *ls)
{
	if (!ls->replayed && ls->ops && ls->ops->window_start)
		ls->ops->window_start(ls);
}

bool loadsrc_ticks(const struct loadsrc *ls)
{
	return !ls->replayed && ls->ops && ls->ops->window_tick;
}

void loadsrc_tick(struct loadsrc *ls)
{
	if (loadsrc_ticks(ls))
		ls->ops->window_tick(ls);
}

void loadsrc_stop(struct loadsrc *ls)
{
	if (!ls->replayed && ls->ops && ls->ops->window_end)
		ls->ops->window_end(ls);
}

bool loadsrc_measures(const struct loadsrc *ls)
{
	return ls->ops && ls->ops != loadsrc_last(ls->table);
}

bool loadsrc_measured(const struct loadsrc *ls)
{
	return ls->used && ls->table && ls->used != loadsrc_last(ls->table);
}

int loadsrc_finish(struct loadsrc *ls, const struct loadsrc_window *w,
		   struct irq_activity **ret)
{
	const struct loadsrc_ops *last = loadsrc_last(ls->table);
	struct irq_activity *est = NULL, *meas = NULL;
	char why[LOADSRC_REASON_MAX - 64];
	int r;

	why[0] = '\0';
	r = last->read(ls, w, &est, why, sizeof(why));
	if (r < 0)
		return r;
	if (!loadsrc_measures(ls)) {
		*ret = est;
		return 0;
	}
	r = ls->ops->read(ls, w, &meas, why, sizeof(why));
	if (r == 0) {
		ls->used = ls->ops;
		ls->proc_act = est;
		*ret = meas;
		return 0;
	}
	if (r != -EPROTO) {
		free(est);
		return r;
	}
	snprintf(ls->reason, sizeof(ls->reason), "the measurement was not used: %s", why);
	if (ls->want) {
		free(est);
		return -EPROTO;
	}
	*ret = est;
	return 0;
}

int loadsrc_app(const struct loadsrc *ls, unsigned int nr_ids, struct appload *ret)
{
	memset(ret, 0, sizeof(*ret));
	if (!ls->ops || !ls->ops->app)
		return 0;
	return ls->ops->app(ls, nr_ids, ret);
}

void loadsrc_release(struct loadsrc *ls)
{
	if (ls->ops && ls->ops->close)
		ls->ops->close(ls);
	ls->ops = NULL;
	ls->priv = NULL;
	measure_raw_free(ls->raw);
	ls->raw = NULL;
	free(ls->proc_act);
	ls->proc_act = NULL;
}

const char *loadsrc_name(const struct loadsrc *ls)
{
	return (ls->used ? ls->used : loadsrc_last(loadsrc_table))->name;
}

const char *loadsrc_wanted(const struct loadsrc *ls)
{
	return ls->want ? ls->want->name : "auto";
}
