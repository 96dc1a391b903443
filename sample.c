// SPDX-License-Identifier: GPL-2.0-or-later
/* sample.c - snapshots of /proc/interrupts, /proc/stat and /proc/softirqs,
 * and the counts between two of them: which IRQ fired how often, where.
 * What that work cost is the load sources' business (estimate.c from
 * /proc, measure.c from the kernel program). No logging: functions return
 * 0 or -errno, the caller reports. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cpuset.h"
#include "pathnames.h"
#include "sample.h"
#include "source.h"

const int sample_softirq_class[SOFTIRQ_NR] = {
	[SOFTIRQ_HI] = CLASS_OTHER,
	[SOFTIRQ_TIMER] = -1,
	[SOFTIRQ_NET_TX] = CLASS_NET,
	[SOFTIRQ_NET_RX] = CLASS_NET,
	[SOFTIRQ_BLOCK] = CLASS_STORAGE,
	[SOFTIRQ_IRQ_POLL] = CLASS_STORAGE,
	[SOFTIRQ_TASKLET] = CLASS_OTHER,
	[SOFTIRQ_SCHED] = -1,
	[SOFTIRQ_HRTIMER] = -1,
	[SOFTIRQ_RCU] = -1,
};

/* ---- snapshots ---- */

int snapshot_take(struct snapshot *snap, const char **ret_path,
		  unsigned int *ret_line)
{
	return snapshot_take_from(snap, NULL, NULL, ret_path, ret_line);
}

/* /proc/softirqs came with 2.6.31; without it softirq work stays 0. */
static int read_softirqs(struct source *src, const char *tag, struct cpu_stats *st,
			 unsigned int *line)
{
	FILE *f;
	int r = source_fopen(src, tag, _PATH_PROC_SOFTIRQS, &f);

	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	r = softirqs_parse(f, st, line);
	fclose(f);
	return r;
}

int snapshot_take_from(struct snapshot *snap, struct source *src, const char *tag,
		       const char **ret_path, unsigned int *ret_line)
{
	struct snapshot s = { 0 };
	struct timespec ts;
	const char *path = NULL;
	unsigned int line = 0;
	FILE *f;
	int r;

	if (!snap)
		return -EINVAL;
	/* Stamped before reading: what matters is that two snapshots are
	 * stamped at the same point of their reads. */
	if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0) {
		r = -errno;
		goto fail;
	}
	s.when = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;

	path = _PATH_PROC_INTERRUPTS;
	r = source_fopen(src, tag, path, &f);
	if (r < 0)
		goto fail;
	r = interrupts_parse(f, &s.intr, &line);
	fclose(f);
	if (r < 0)
		goto fail;

	path = _PATH_PROC_STAT;
	r = source_fopen(src, tag, path, &f);
	if (r < 0)
		goto fail;
	r = stat_parse(f, &s.stats, &line);
	fclose(f);
	if (r < 0)
		goto fail;

	path = _PATH_PROC_SOFTIRQS;
	r = read_softirqs(src, tag, &s.stats, &line);
	if (r < 0)
		goto fail;
	*snap = s;
	return 0;
fail:
	snapshot_release(&s);
	if (ret_path)
		*ret_path = path;	/* NULL if the clock failed */
	if (ret_line)
		*ret_line = line;
	return r;
}

/* ---- counts without /proc/interrupts ---- */

static int stat_row(struct irq_row *row, unsigned int irq, uint64_t total, int cpu,
		    int first)
{
	*row = (struct irq_row){ .irq = irq, .total = total, .effective = first };
	row->desc = strdup("");
	row->name = strdup("");
	if (cpu >= 0) {
		row->counts = malloc(sizeof(*row->counts));
		if (row->counts) {
			row->counts[0] = (struct cpu_count){ (unsigned int)cpu, total };
			row->nr_counts = 1;
		}
	}
	if (!row->desc || !row->name || (cpu >= 0 && !row->counts)) {
		irq_row_release(row);
		return -ENOMEM;
	}
	return 0;
}

/* What the rows of a snapshot without /proc/interrupts are made of. */
struct stat_input {
	struct source *src;
	const char *tag;
	const struct snapshot *prev;	/* the first snapshot, or NULL */
	struct irq_totals t;		/* /proc/stat's intr line */
	unsigned int *dirs, nr_dirs;	/* numbers of /proc/irq, ascending */
	struct cpuset *tmp;		/* CPU_ID_LIMIT bits of scratch */
};

/* The columns /proc/interrupts would have: the online CPUs, which are
 * /proc/stat's cpuN lines (both list online CPUs only). */
static int stat_columns(struct snapshot *s)
{
	struct interrupts *intr = calloc(1, sizeof(*intr));

	if (!intr)
		return -ENOMEM;
	s->intr = intr;
	intr->col_cpu = malloc((s->stats.nr_ids ? s->stats.nr_ids : 1) * sizeof(*intr->col_cpu));
	if (!intr->col_cpu)
		return -ENOMEM;
	for (unsigned int c = 0; c < s->stats.nr_ids; c++)
		if (s->stats.cpu[c].seen & SAMPLE_SEEN_STAT)
			intr->col_cpu[intr->nr_cols++] = c;
	return 0;
}

/* The rows /proc/interrupts would show: an IRQ with a handler, or with
 * counts (Linux's show_interrupts()). Numbers of the intr line with
 * counts, merged with those of /proc/irq. When a count cannot pair with
 * the first snapshot's, *@ret_bad is its IRQ + 1 and the rows stop. */
static int stat_rows(struct interrupts *intr, const struct stat_input *in,
		     unsigned int *ret_bad)
{
	const struct irq_totals *t = &in->t;
	unsigned int i = 0, k = 0, alloc = 0;
	int r;

	for (;;) {
		unsigned int irq;
		uint64_t total;
		bool listed = false;
		int cpu = -1, first = -1;

		while (k < t->nr && t->total[k] == 0)
			k++;
		if (i < in->nr_dirs && (k >= t->nr || in->dirs[i] <= k)) {
			irq = in->dirs[i++];
			listed = true;
			while (i < in->nr_dirs && in->dirs[i] == irq)
				i++;
			if (k == irq)
				k++;
		} else if (k < t->nr) {
			irq = k++;
		} else {
			break;
		}
		total = irq < t->nr ? t->total[irq] : 0;
		if (total == 0) {
			if (!listed)
				continue;
			r = procirq_has_action(in->src, in->tag, irq);
			if (r < 0)
				return r;
			if (!r)
				continue;
		}
		cpu = procirq_effective_cpu(in->src, in->tag, irq, in->tmp, &first);
		if (in->prev) {
			const struct irq_row *pr = interrupts_find(in->prev->intr, irq);

			/* Counts pair with the first snapshot's only when they
			 * were all on one CPU, the same then and now; a count
			 * that did not move stays where it was counted. */
			if (pr && pr->total == total) {
				cpu = pr->nr_counts ? (int)pr->counts[0].cpu : -1;
			} else if (pr) {
				if (total < pr->total || cpu < 0 || !pr->nr_counts ||
				    pr->counts[0].cpu != (unsigned int)cpu) {
					*ret_bad = irq + 1;
					return 0;
				}
			}
		}
		if (intr->nr_rows == alloc) {
			unsigned int na = alloc ? alloc * 2 : 256;
			struct irq_row *nr = reallocarray(intr->rows, na, sizeof(*nr));

			if (!nr)
				return -ENOMEM;
			intr->rows = nr;
			alloc = na;
		}
		r = stat_row(&intr->rows[intr->nr_rows], irq, total, cpu, first);
		if (r < 0)
			return r;
		intr->nr_rows++;
	}
	return 0;
}

int snapshot_take_stat(struct snapshot *snap, struct source *src, const char *tag,
		       const struct snapshot *prev, const char **ret_path,
		       unsigned int *ret_line)
{
	struct snapshot s = { .input = SNAPSHOT_STAT };
	struct stat_input in = { .src = src, .tag = tag, .prev = prev };
	unsigned int line = 0, bad = 0;
	const char *path = NULL;
	struct timespec ts;
	FILE *f;
	int r;

	if (!snap || (prev && (!prev->intr || prev->input != SNAPSHOT_STAT)))
		return -EINVAL;
	if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0) {
		r = -errno;
		goto fail;
	}
	s.when = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;

	path = _PATH_PROC_STAT;
	r = source_fopen(src, tag, path, &f);
	if (r < 0)
		goto fail;
	r = stat_parse_totals(f, &s.stats, &in.t, &line);
	fclose(f);
	if (r == -ENODATA)
		r = -EDOM;	/* no intr line: only /proc/interrupts can tell */
	if (r < 0)
		goto fail;

	path = _PATH_PROC_SOFTIRQS;
	r = read_softirqs(src, tag, &s.stats, &line);
	if (r < 0)
		goto fail;

	path = _PATH_PROC_IRQ;
	line = 0;
	r = -ENOMEM;
	in.tmp = cpuset_new(CPU_ID_LIMIT);
	if (!in.tmp)
		goto fail;
	r = stat_columns(&s);
	if (r < 0)
		goto fail;
	r = procirq_numbers(src, tag, &in.dirs, &in.nr_dirs);
	if (r < 0)
		goto fail;
	r = stat_rows(s.intr, &in, &bad);
	if (r < 0)
		goto fail;
	if (bad) {
		r = -EDOM;
		line = bad - 1;
		goto fail;
	}
	s.intr->effective_read = prev != NULL;
	cpuset_free(in.tmp);
	free(in.t.total);
	free(in.dirs);
	*snap = s;
	return 0;
fail:
	cpuset_free(in.tmp);
	free(in.t.total);
	free(in.dirs);
	snapshot_release(&s);
	if (ret_path)
		*ret_path = path;
	if (ret_line)
		*ret_line = line;
	return r;
}

void snapshot_release(struct snapshot *snap)
{
	if (!snap)
		return;
	interrupts_free(snap->intr);
	snap->intr = NULL;
	cpu_stats_release(&snap->stats);
}

/* ---- counts between two snapshots ---- */

/* Events between two readings of one kernel counter. Per-CPU IRQ and
 * softirq counts are unsigned int in the kernel (kstat) and wrap at 2^32.
 * A count that never fit in 32 bits cannot have wrapped, and a "wrap" of
 * more than 2^31 events in one window is a count that restarted (the IRQ
 * was freed and re-created, a driver reloaded): its history is unknown. */
uint64_t sample_counter_delta(uint64_t a, uint64_t b)
{
	uint32_t wrapped;

	if (b >= a)
		return b - a;
	if (a > UINT32_MAX)
		return 0;
	wrapped = (uint32_t)(b - a);
	return wrapped < (1u << 31) ? wrapped : 0;
}

/* The row of @a that is the same interrupt as @rb: same number and same
 * description. A number whose chip, hwirq or handlers changed between the
 * samples was freed and given to another device in the window (MSI
 * vectors are reused at once): its counts restarted from zero, and pairing
 * them with the old ones could read as a huge 32-bit wrap. Its history is
 * unknown, as for an IRQ that is new. */
/* Eight bytes a step (a row's description is some fifty), each mixed in
 * by a multiply and a shift: not cryptographic, only a number that two
 * different descriptions of one IRQ number share by accident one time in
 * 2^64. */
uint64_t sample_desc_hash(const char *desc)
{
	const uint64_t k = 0x9e3779b97f4a7c15ULL;
	size_t n = strlen(desc);
	uint64_t h = n * k, w;

	for (; n >= 8; n -= 8, desc += 8) {
		memcpy(&w, desc, 8);
		h = (h ^ w) * k;
		h ^= h >> 29;
	}
	w = 0;
	memcpy(&w, desc, n);
	h = (h ^ w) * k;
	h ^= h >> 32;
	return h;
}

const struct irq_row *sample_pair_row(const struct interrupts *a,
				     const struct irq_row *rb)
{
	const struct irq_row *ra = interrupts_find(a, rb->irq);

	if (!ra)
		return NULL;
	if (ra->desc && rb->desc)
		return strcmp(ra->desc, rb->desc) == 0 ? ra : NULL;
	return (ra->desc ? sample_desc_hash(ra->desc) : ra->desc_hash) ==
	       (rb->desc ? sample_desc_hash(rb->desc) : rb->desc_hash) ? ra : NULL;
}

/* Non-zero per-CPU deltas of one IRQ, ascending CPU. Counts pair by CPU id,
 * never by column; a CPU that is not a column of both snapshots (offline in
 * one of them) has no known count there and contributes nothing. */
unsigned int sample_row_deltas(const struct irq_row *ra,
			       const struct irq_row *rb,
			       const unsigned char *col, unsigned int nr_ids,
			       struct cpu_delta *out)
{
	unsigned int i = 0, j = 0, n = 0;

	if (!ra)
		return 0;
	while (i < ra->nr_counts || j < rb->nr_counts) {
		uint64_t ca = 0, cb = 0, d;
		unsigned int cpu;

		if (j == rb->nr_counts ||
		    (i < ra->nr_counts &&
		     ra->counts[i].cpu < rb->counts[j].cpu)) {
			cpu = ra->counts[i].cpu;
			ca = ra->counts[i++].count;
		} else if (i == ra->nr_counts ||
			   rb->counts[j].cpu < ra->counts[i].cpu) {
			cpu = rb->counts[j].cpu;
			cb = rb->counts[j++].count;
		} else {
			cpu = rb->counts[j].cpu;
			ca = ra->counts[i++].count;
			cb = rb->counts[j++].count;
		}
		if (cpu >= nr_ids || (col[cpu] & (SAMPLE_COL_A | SAMPLE_COL_B)) !=
				     (SAMPLE_COL_A | SAMPLE_COL_B))
			continue;
		d = sample_counter_delta(ca, cb);
		if (d > 0)
			out[n++] = (struct cpu_delta){ cpu, d };
	}
	return n;
}

/* Not just the last column: callers may build snapshots by hand. */
static unsigned int max_col(const struct interrupts *intr)
{
	unsigned int i, m = 0;

	for (i = 0; i < intr->nr_cols; i++)
		if (intr->col_cpu[i] > m)
			m = intr->col_cpu[i];
	return m;
}

unsigned char *sample_columns(const struct snapshot *a, const struct snapshot *b,
			      unsigned int *ret_nr_ids)
{
	const struct interrupts *ia = a->intr, *ib = b->intr;
	unsigned int nr_ids = max_col(ia) + 1, j;
	unsigned char *col;

	if (max_col(ib) + 1 > nr_ids)
		nr_ids = max_col(ib) + 1;
	if (a->stats.nr_ids > nr_ids)
		nr_ids = a->stats.nr_ids;
	if (b->stats.nr_ids > nr_ids)
		nr_ids = b->stats.nr_ids;
	col = calloc(nr_ids, 1);
	if (!col)
		return NULL;
	for (j = 0; j < ia->nr_cols; j++)
		col[ia->col_cpu[j]] |= SAMPLE_COL_A;
	for (j = 0; j < ib->nr_cols; j++)
		col[ib->col_cpu[j]] |= SAMPLE_COL_B;
	*ret_nr_ids = nr_ids;
	return col;
}

unsigned int sample_max_deltas(const struct snapshot *a, const struct snapshot *b)
{
	unsigned int i, max_d = 1;

	for (i = 0; i < b->intr->nr_rows; i++) {
		const struct irq_row *ra = sample_pair_row(a->intr, &b->intr->rows[i]);
		unsigned int m = b->intr->rows[i].nr_counts + (ra ? ra->nr_counts : 0);

		if (m > max_d)
			max_d = m;
	}
	return max_d;
}

int sample_counts(const struct snapshot *a, const struct snapshot *b,
		  struct irq_activity **ret)
{
	struct irq_activity *act = NULL;
	struct cpu_delta *d = NULL;
	unsigned char *col = NULL;
	unsigned int nr_ids = 0, i, j;
	double dt;
	int r = -ENOMEM;

	if (!a || !b || !a->intr || !b->intr || !ret)
		return -EINVAL;
	dt = b->when - a->when;
	if (!(dt > 0))
		return -EINVAL;
	col = sample_columns(a, b, &nr_ids);
	d = malloc(sample_max_deltas(a, b) * sizeof(*d));
	act = calloc(b->intr->nr_rows ? b->intr->nr_rows : 1, sizeof(*act));
	if (!col || !d || !act)
		goto out;
	for (i = 0; i < b->intr->nr_rows; i++) {
		const struct irq_row *rb = &b->intr->rows[i];
		const struct irq_row *ra = sample_pair_row(a->intr, rb);
		struct irq_activity *x = &act[i];
		uint64_t best = 0;
		unsigned int n = sample_row_deltas(ra, rb, col, nr_ids, d);

		x->irq = rb->irq;
		x->top_cpu = -1;
		for (j = 0; j < n; j++) {
			if (__builtin_add_overflow(x->delta, d[j].delta, &x->delta))
				x->delta = UINT64_MAX;
			/* Ascending CPUs: ties stay with the lowest id. */
			if (d[j].delta > best) {
				best = d[j].delta;
				x->top_cpu = (int)d[j].cpu;
			}
		}
		x->rate = (double)x->delta / dt;
	}
	*ret = act;
	act = NULL;
	r = 0;
out:
	free(act);
	free(d);
	free(col);
	return r;
}

void sample_sleep(double seconds)
{
	struct timespec ts = {
		.tv_sec = (time_t)seconds,
		.tv_nsec = (long)((seconds - floor(seconds)) * 1e9),
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

void sample_choose_counts(struct sample_window *w, const char *env, unsigned int online,
			  const char *captured, const char *captured_reason)
{
	w->counts = SNAPSHOT_INTERRUPTS;
	if (w->src && w->src->mode == SOURCE_REPLAY) {
		/* The way and the words of the run that captured it. */
		if (captured && strcmp(captured, "stat") == 0)
			w->counts = SNAPSHOT_STAT;
		snprintf(w->reason, sizeof(w->reason), "%s",
			 captured_reason ? captured_reason : "/proc/interrupts, as captured");
		return;
	}
	if (env && (strcmp(env, "stat") == 0 || strcmp(env, "interrupts") == 0)) {
		w->counts = strcmp(env, "stat") == 0 ? SNAPSHOT_STAT : SNAPSHOT_INTERRUPTS;
		snprintf(w->reason, sizeof(w->reason), "%s: IRQTUNE_COUNTS=%s",
			 w->counts == SNAPSHOT_STAT ? "/proc/stat and effective affinities" :
			 "/proc/interrupts", env);
		return;
	}
	if (online >= SAMPLE_STAT_CPUS) {
		w->counts = SNAPSHOT_STAT;
		snprintf(w->reason, sizeof(w->reason),
			 "/proc/stat and effective affinities: %u online CPUs", online);
	} else {
		snprintf(w->reason, sizeof(w->reason), "/proc/interrupts: %u online CPUs", online);
	}
}

/* Snapshot @n (1 to 4) into @s: the live files, kept for a capture as
 * members "snapshot-N/proc/...", or those members replayed with the time
 * the run that captured them stamped them with. -EDOM: counts of
 * /proc/stat that only /proc/interrupts can tell, with the reason. */
static int window_snapshot(struct sample_window *w, struct snapshot *s, int n)
{
	int r;

	snprintf(w->tag, sizeof(w->tag), "snapshot-%d", n);
	w->path = NULL;
	w->line = 0;
	if (w->counts == SNAPSHOT_STAT) {
		r = snapshot_take_stat(s, w->src, w->tag, n == 2 ? &w->a : NULL, &w->path,
				       &w->line);
		if (r == -EDOM) {
			if (n == 2 && w->line)
				snprintf(w->reason, sizeof(w->reason),
					 "/proc/interrupts, a window later: irq %u did not stay "
					 "on one CPU, or its total fell", w->line);
			else
				snprintf(w->reason, sizeof(w->reason),
					 "/proc/interrupts: /proc/stat has no intr line");
			return -EDOM;
		}
	} else {
		r = snapshot_take_from(s, w->src, w->tag, &w->path, &w->line);
	}
	if (r < 0)
		return r;
	if (w->taken)
		w->taken(w->ctx, w->tag, n);
	if (w->src && w->src->mode == SOURCE_REPLAY) {
		if (!(w->replayed[n - 1] >= 0)) {
			snapshot_release(s);
			w->no_time = true;
			return -EINVAL;
		}
		s->when = w->replayed[n - 1];
	}
	w->when[n - 1] = s->when;
	return 0;
}

/* The window's sleep, in SAMPLE_TICKS steps to absolute times when the
 * caller wants ticks, so that the steps add up to the window and no
 * more. */
static void window_sleep(struct sample_window *w)
{
	struct timespec t0, at;

	if (!w->tick) {
		sample_sleep(w->seconds);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int k = 1; k <= SAMPLE_TICKS; k++) {
		double s = w->seconds * k / SAMPLE_TICKS;
		long ns = t0.tv_nsec + (long)((s - floor(s)) * 1e9);

		at.tv_sec = t0.tv_sec + (time_t)s + ns / 1000000000L;
		at.tv_nsec = ns % 1000000000L;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR)
			;
		w->tick(w->ctx);
	}
}

/* Snapshots @n and @n + 1, a window apart. */
static int window_pair(struct sample_window *w, int n)
{
	int r;

	if (w->begin)
		w->begin(w->ctx);
	r = window_snapshot(w, &w->a, n);
	if (r < 0)
		return r;
	if (!w->src || w->src->mode != SOURCE_REPLAY)
		window_sleep(w);
	return window_snapshot(w, &w->b, n + 1);
}

int sample_window_take(struct sample_window *w)
{
	int r;

	snprintf(w->first, sizeof(w->first), "%s", w->reason);
	r = window_pair(w, 1);
	if (r == -EDOM) {
		snapshot_release(&w->a);
		w->counts = SNAPSHOT_INTERRUPTS;
		r = window_pair(w, 3);
	}
	return r;
}

void sample_window_release(struct sample_window *w)
{
	snapshot_release(&w->a);
	snapshot_release(&w->b);
}
