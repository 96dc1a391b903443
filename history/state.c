// SPDX-License-Identifier: GPL-2.0-or-later
/* state.c - the file of the per-IRQ (and per-CPU application) load
 * history carried from run to run (history.c weighs it). Text, one IRQ a line, names escaped (%XX for
 * bytes that are not plain printable ASCII, and for '%' and the blank):
 *
 *	irqtune-state 1
 *	boot 8e1f...		(the run's /proc/sys/kernel/random/boot_id)
 *	time 1796347892		(seconds since the epoch)
 *	irq 38 0000:00:03.0 virtio2-input.0 0.0123 0.0000031 7
 *		(number, device or "-", name or "-", mean, variance, runs)
 *	appcpus 8		(CPU ids of the machine, before any "app" line)
 *	app 5 0.1612 0.4986 0.0213 6	(CPU, the IRQ load it served, then as an
 *				 irq line from its mean: the pinned application
 *				 load's history; version 5)
 *	refused 38 0000:02:00.0 nvme0q1 6.1.0-28-amd64	(an IRQ whose write the
 *				 kernel refused as kernel-managed: number,
 *				 device, name, kernel release; version 6)
 *	dev 0 0000:18:00.0 0	(index, id, class: the per-device fit's unknowns)
 *	fit 0 0 1 3.2e7		(kind 0 hard / 1 soft, row, column, value: the
 *	fitb 0 0 4.1e5		 weighted normal equations and their right
 *				 side; the base is index nr)
 *
 * A file that is not exactly that is never trusted. No logging: functions
 * return 0 or -errno with the reason in the caller's buffer. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devfit.h"
#include "fileio.h"
#include "sample.h"
#include "state.h"
#include "strutil.h"

void state_free(struct state *st)
{
	if (!st)
		return;
	free(st->irqs);
	free(st->app);
	free(st->refused);
	free(st->devs);
	devfit_free(st->fit);
	if (!st->snap_lent) {
		snapshot_release(st->snap);
		free(st->snap);
	}
	free(st);
}

bool state_snap_keepable(const struct snapshot *snap)
{
	const struct interrupts *in = snap->intr;
	size_t counts = 0;

	if (!in || snap->stats.nr_ids > STATE_SNAP_MAX_CPUS || in->nr_rows > STATE_MAX_IRQS)
		return false;
	for (unsigned int i = 0; i < in->nr_rows; i++)
		counts += in->rows[i].nr_counts;
	for (unsigned int j = 0; j < in->nr_cols; j++)
		if (in->col_cpu[j] >= STATE_SNAP_MAX_CPUS)
			return false;
	return counts <= STATE_SNAP_MAX_COUNTS;
}

bool state_snap_usable(const struct snapshot *prev, const struct snapshot *a,
		       const struct snapshot *b, char *why, size_t len)
{
	const struct interrupts *p = prev->intr, *ib = b->intr;

	if (!(prev->when < a->when) || b->when - prev->when > STATE_MAX_AGE) {
		snprintf(why, len, "its counters are not from before this window");
		return false;
	}
	if (p->nr_cols != ib->nr_cols ||
	    (p->nr_cols && memcmp(p->col_cpu, ib->col_cpu, p->nr_cols * sizeof(*p->col_cpu)) != 0) ||
	    prev->stats.nr_ids != b->stats.nr_ids) {
		snprintf(why, len, "CPUs went on- or offline since");
		return false;
	}
	for (unsigned int c = 0; c < b->stats.nr_ids; c++)
		if (prev->stats.cpu[c].seen != b->stats.cpu[c].seen) {
			snprintf(why, len, "CPU %u went on- or offline since", c);
			return false;
		}
	for (unsigned int i = 0; i < ib->nr_rows; i++) {
		const struct irq_row *rb = &ib->rows[i];
		const struct irq_row *ra = sample_pair_row(a->intr, rb);
		const struct irq_row *rp;

		if (!ra || ra->total == rb->total)
			continue;
		rp = sample_pair_row(p, rb);
		if (!rp || rp->total > ra->total) {
			snprintf(why, len, "IRQ %u is not the interrupt it was", rb->irq);
			return false;
		}
	}
	return true;
}

/* The lines a run writes by the thousand (irq, scpu, srow, sc) hold
 * integers only, written and read here without stdio's formatting: on a
 * machine of 4,096 IRQs fprintf's and sscanf's share of the state came to
 * a tenth of the whole run. Loads are in billionths of a CPU, window
 * weights in microseconds. */
#define NANO	1e9
#define MICRO	1e6

static char *put_u64(char *p, uint64_t v)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	char tmp[24], *t = tmp + sizeof(tmp);
	size_t n;

	/* two digits a division: the counters run to ten or more */
	while (v >= 100) {
		t -= 2;
		memcpy(t, pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		t -= 2;
		memcpy(t, pairs + 2 * v, 2);
	} else {
		*--t = (char)('0' + v);
	}
	*p++ = ' ';
	n = (size_t)(tmp + sizeof(tmp) - t);
	memcpy(p, t, n);
	return p + n;
}

static uint64_t to_fixed(double v, double scale)
{
	return v > 0 && isfinite(v) ? (uint64_t)llround(fmin(v * scale, 1e18)) : 0;
}

/* One " N" of a line at *@p: digits only, no sign, no overflow. */
static bool get_u64(const char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	if (*s++ != ' ' || *s < '0' || *s > '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (x > (UINT64_MAX - 9) / 10)
			return false;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*p = s;
	*v = x;
	return true;
}

static bool get_uint(const char **p, unsigned int *v, unsigned int max)
{
	uint64_t x;

	if (!get_u64(p, &x) || x > max)
		return false;
	*v = (unsigned int)x;
	return true;
}

/* One " HEX" of 16 digits at *@p: a hash, or a double's bits. */
static bool get_hex64(const char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	if (*s++ != ' ')
		return false;
	for (int n = 0; n < 16; n++, s++) {
		int h = hex_digit(*s);

		if (h < 0)
			return false;
		x = x << 4 | (uint64_t)h;
	}
	if (hex_digit(*s) >= 0)
		return false;
	*p = s;
	*v = x;
	return true;
}

/* A finite double from its bits (put_f64()). */
static bool get_f64(const char **p, double *v)
{
	uint64_t bits;

	if (!get_hex64(p, &bits))
		return false;
	memcpy(v, &bits, sizeof(*v));
	return isfinite(*v);
}

/* One " KEY" escaped as str_escape_pct() writes it, unescaped into @dst
 * (room for @len bytes) as it is read: false for a malformed escape, an
 * empty word or a result too long. */
static bool get_key(const char **p, char *dst, size_t len)
{
	const char *s = *p;
	size_t o = 0;

	if (*s++ != ' ' || !*s || *s == ' ')
		return false;
	if (s[0] == '-' && (!s[1] || s[1] == ' ')) {
		dst[0] = '\0';
		*p = s + 1;
		return true;
	}
	for (; *s && *s != ' '; s++) {
		int c = (unsigned char)*s;

		if (c == '%') {
			int h = hex_digit(s[1]), l = h < 0 ? -1 : hex_digit(s[2]);

			if (h < 0 || l < 0 || (h == 0 && l == 0))
				return false;
			c = h * 16 + l;
			s += 2;
		}
		if (o + 1 >= len)
			return false;
		dst[o++] = (char)c;
	}
	dst[o] = '\0';
	*p = s;
	return true;
}

/* The text is built in one growing buffer, a line at a time: @room bytes
 * are made free before a line is written at @p (the longest line is an
 * "irq" line, two escaped keys and five numbers). fwrite to a memstream
 * cost a fifth of writing the state. */
struct text {
	char *buf;
	size_t len, cap;
	bool oom;
};

#define LINE_MAX_BYTES	(2 * 200 + 24 * (4 + SOFTIRQ_NR))

static char *text_room(struct text *t)
{
	if (t->oom)
		return NULL;
	if (t->cap - t->len < LINE_MAX_BYTES) {
		size_t cap = t->cap ? t->cap * 2 : 65536;
		char *q = realloc(t->buf, cap);

		if (!q) {
			t->oom = true;
			return NULL;
		}
		t->buf = q;
		t->cap = cap;
	}
	return t->buf + t->len;
}

static void text_done(struct text *t, const char *end)
{
	t->len = (size_t)(end - t->buf);
}

static char *put_hex64(char *p, uint64_t v)
{
	*p++ = ' ';
	for (int sh = 60; sh >= 0; sh -= 4)
		*p++ = "0123456789abcdef"[(v >> sh) & 15];
	return p;
}

/* A fit's sums are kept exactly, as the bits of the double. */
static char *put_f64(char *p, double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	return put_hex64(p, bits);
}

static char *put_word(char *p, const char *s)
{
	*p++ = ' ';
	return str_escape_pct(p, 200, s);
}

/* "snap WHEN", then per CPU "scpu CPU FLAGS IRQ SOFTIRQ COUNTS..." (FLAGS:
 * its SAMPLE_SEEN_* bits, and 4 for a column of /proc/interrupts), then
 * per IRQ "srow IRQ HASH" (sample_desc_hash() of its description, 16 hex
 * digits: the description itself was two fifths of the file, and pairing
 * rows needs no more) and its non-zero counts "sc CPU COUNT". */
#define SNAP_COL	0x4
static void format_snap(struct text *t, const struct snapshot *s)
{
	const struct interrupts *in = s->intr;
	unsigned int nr = s->stats.nr_ids, j = 0;
	char *p;

	for (unsigned int k = 0; k < in->nr_cols; k++)
		if (in->col_cpu[k] + 1 > nr)
			nr = in->col_cpu[k] + 1;
	if (!(p = text_room(t)))
		return;
	text_done(t, p + sprintf(p, "snap %.9f %u\n", s->when, s->stats.nr_ids));
	for (unsigned int c = 0; c < nr; c++) {
		const struct cpu_stat *cs = c < s->stats.nr_ids ? &s->stats.cpu[c] : NULL;
		unsigned int flags = cs ? cs->seen : 0;

		while (j < in->nr_cols && in->col_cpu[j] < c)
			j++;
		if (j < in->nr_cols && in->col_cpu[j] == c)
			flags |= SNAP_COL;
		if (!flags)
			continue;
		if (!(p = text_room(t)))
			return;
		p = (char *)memcpy(p, "scpu", 4) + 4;
		p = put_u64(p, c);
		p = put_u64(p, flags);
		p = put_u64(p, cs ? cs->irq : 0);
		p = put_u64(p, cs ? cs->softirq : 0);
		for (unsigned int k = 0; k < SOFTIRQ_NR; k++)
			p = put_u64(p, cs ? cs->softirqs[k] : 0);
		*p++ = '\n';
		text_done(t, p);
	}
	for (unsigned int i = 0; i < in->nr_rows; i++) {
		const struct irq_row *r = &in->rows[i];

		if (!(p = text_room(t)))
			return;
		p = put_u64((char *)memcpy(p, "srow", 4) + 4, r->irq);
		p = put_hex64(p, r->desc ? sample_desc_hash(r->desc) : r->desc_hash);
		*p++ = '\n';
		text_done(t, p);
		for (unsigned int k = 0; k < r->nr_counts; k++) {
			/* the /proc/stat path puts a 0 on an idle IRQ's CPU */
			if (!r->counts[k].count)
				continue;
			if (!(p = text_room(t)))
				return;
			p = (char *)memcpy(p, "sc", 2) + 2;
			p = put_u64(p, r->counts[k].cpu);
			p = put_u64(p, r->counts[k].count);
			*p++ = '\n';
			text_done(t, p);
		}
	}
}

/* "TAG K [I [J]] V": one sum of the fit, indices below 0 left out. */
static void put_sum(struct text *t, const char *tag, int k, long i, long j, double v)
{
	size_t n = strlen(tag);
	char *p = text_room(t);

	if (!p)
		return;
	p = put_u64((char *)memcpy(p, tag, n) + n, (uint64_t)k);
	if (i >= 0)
		p = put_u64(p, (uint64_t)i);
	if (j >= 0)
		p = put_u64(p, (uint64_t)j);
	p = put_f64(p, v);
	*p++ = '\n';
	text_done(t, p);
}

/* "dev N ID CLASS" per device of the fit, then its non-zero sums, each
 * kind K: "fit K I J N[I][J]", "fitb K I B[I]". */
static void format_fit(struct text *t, const struct state *st)
{
	size_t m = (size_t)st->fit->nr + 1;
	char *p;

	for (unsigned int i = 0; i < st->nr_dev; i++) {
		if (!(p = text_room(t)))
			return;
		p = put_u64((char *)memcpy(p, "dev", 3) + 3, i);
		p = put_word(p, st->devs[i].id);
		p = put_u64(p, (uint64_t)st->devs[i].class);
		*p++ = '\n';
		text_done(t, p);
	}
	for (int k = 0; k < DEVFIT_KINDS; k++) {
		for (size_t i = 0; i < m; i++) {
			for (size_t j = 0; j < m; j++)
				if (st->fit->n[k][i * m + j] != 0)
					put_sum(t, "fit", k, (long)i, (long)j, st->fit->n[k][i * m + j]);
			if (st->fit->b[k][i] != 0)
				put_sum(t, "fitb", k, (long)i, -1, st->fit->b[k][i]);
		}
	}
}

/* " MEAN SIGMA RUNS WEIGHT WEIGHT2" of a history, an IRQ's or a CPU's. */
static char *put_history(char *p, const struct state_irq *q)
{
	p = put_u64(p, to_fixed(q->mean, NANO));
	p = put_u64(p, to_fixed(sqrt(q->var), NANO));
	p = put_u64(p, q->runs);
	p = put_u64(p, to_fixed(q->weight, MICRO));
	p = put_u64(p, to_fixed(q->weight2, MICRO));
	*p++ = '\n';
	return p;
}

/* "appcpus N", then "app CPU IRQ MEAN SIGMA RUNS WEIGHT WEIGHT2" per CPU
 * (IRQ: the IRQ load it served, in billionths of a CPU). */
static void format_app(struct text *t, const struct state *st)
{
	char *p;

	if (!(p = text_room(t)))
		return;
	p = put_u64((char *)memcpy(p, "appcpus", 7) + 7, st->nr_app_ids);
	*p++ = '\n';
	text_done(t, p);
	for (unsigned int i = 0; i < st->nr_app; i++) {
		if (!(p = text_room(t)))
			return;
		p = put_u64((char *)memcpy(p, "app", 3) + 3, st->app[i].irq);
		p = put_u64(p, to_fixed(st->app[i].cpu_irq, NANO));
		text_done(t, put_history(p, &st->app[i]));
	}
}

/* "refused IRQ DEVICE NAME RELEASE" per remembered refusal. */
static void format_refused(struct text *t, const struct state *st)
{
	for (unsigned int i = 0; i < st->nr_refused; i++) {
		const struct state_refusal *f = &st->refused[i];
		char *p = text_room(t);

		if (!p)
			return;
		p = put_u64((char *)memcpy(p, "refused", 7) + 7, f->irq);
		p = put_word(p, f->device);
		p = put_word(p, f->name);
		p = put_word(p, f->release);
		*p++ = '\n';
		text_done(t, p);
	}
}

int state_format(const struct state *st, const char *boot_id, char **ret)
{
	struct text t = { 0 };
	char *p = text_room(&t);
	int n;

	if (!p)
		return -ENOMEM;
	/* The oldest version that holds what the file has: without refusals
	 * a 5's, without application lines too a 4's, which the irqtunes
	 * before this one read. */
	n = snprintf(p, LINE_MAX_BYTES, "irqtune-state %d\nboot %s\ntime %.0f\n",
		     st->nr_refused ? STATE_VERSION : st->nr_app ? STATE_VERSION_APP : STATE_VERSION_READ,
		     boot_id, st->when);
	if (n < 0 || n >= LINE_MAX_BYTES) {
		free(t.buf);
		return -EINVAL;
	}
	text_done(&t, p + n);
	for (unsigned int i = 0; i < st->nr; i++) {
		const struct state_irq *q = &st->irqs[i];

		if (!(p = text_room(&t)))
			break;
		p = put_u64((char *)memcpy(p, "irq", 3) + 3, q->irq);
		p = put_word(p, q->device);
		p = put_word(p, q->name);
		text_done(&t, put_history(p, q));
	}
	if (st->nr_app)
		format_app(&t, st);
	if (st->nr_refused)
		format_refused(&t, st);
	if (st->fit)
		format_fit(&t, st);
	if (st->snap)
		format_snap(&t, st->snap);
	if (!(p = text_room(&t))) {
		free(t.buf);
		return -ENOMEM;
	}
	*p = '\0';
	*ret = t.buf;
	return 0;
}

bool state_sane_load(double v)
{
	return isfinite(v) && v >= 0 && v <= 4096;
}

/* " MEAN SIGMA RUNS WEIGHT WEIGHT2" ending the line at @p, into @q: the
 * mean load and its windows' deviation in billionths of a CPU, the
 * weights' sum and sum of squares in microseconds. */
static bool get_history(const char *p, struct state_irq *q)
{
	uint64_t mean, sigma, w, w2;
	unsigned int runs;
	double sd;

	if (!get_u64(&p, &mean) || !get_u64(&p, &sigma) ||
	    !get_uint(&p, &runs, 1000000000) || !get_u64(&p, &w) || !get_u64(&p, &w2) || *p ||
	    runs == 0 || w == 0 || w2 == 0 || (double)w2 > (double)w * (double)w / MICRO * (1 + 1e-6) + 1 ||
	    !state_sane_load((double)mean / NANO) || !state_sane_load((double)sigma / NANO))
		return false;
	sd = (double)sigma / NANO;
	q->mean = (double)mean / NANO;
	q->var = sd * sd;
	q->runs = runs;
	q->shift_var = -1;
	q->weight = (double)w / MICRO;
	q->weight2 = (double)w2 / MICRO;
	return true;
}

/* "irq N DEVICE NAME MEAN SIGMA RUNS WEIGHT WEIGHT2" (get_history()). */
static int parse_irq_line(const char *line, struct state_irq *q, char *why, size_t len,
			  unsigned int lineno)
{
	const char *p = line + 3;
	unsigned int irq;

	if (!get_uint(&p, &irq, UINT_MAX) || !get_key(&p, q->device, sizeof(q->device)) ||
	    !get_key(&p, q->name, sizeof(q->name)) || !get_history(p, q)) {
		snprintf(why, len, "line %u: not an IRQ's history", lineno);
		return -EINVAL;
	}
	q->irq = irq;
	return 0;
}



/* "refused IRQ DEVICE NAME RELEASE", IRQs ascending. */
static int parse_refused_line(struct state *st, const char *line, unsigned int *cap,
			      char *why, size_t len, unsigned int lineno)
{
	struct state_refusal f;
	const char *p = line + 7;

	if (!get_uint(&p, &f.irq, UINT_MAX) || !get_key(&p, f.device, sizeof(f.device)) ||
	    !get_key(&p, f.name, sizeof(f.name)) || !get_key(&p, f.release, sizeof(f.release)) ||
	    *p || !f.release[0]) {
		snprintf(why, len, "line %u: not a refused IRQ", lineno);
		return -EINVAL;
	}
	if (st->nr_refused && f.irq <= st->refused[st->nr_refused - 1].irq) {
		snprintf(why, len, "line %u: refused IRQs out of order", lineno);
		return -EINVAL;
	}
	if (st->nr_refused == STATE_MAX_REFUSED) {
		snprintf(why, len, "more than %d refused IRQs", STATE_MAX_REFUSED);
		return -EINVAL;
	}
	if (st->nr_refused == *cap) {
		unsigned int c = *cap ? *cap * 2 : 16;
		struct state_refusal *n = reallocarray(st->refused, c, sizeof(*n));

		if (!n)
			return -ENOMEM;
		st->refused = n;
		*cap = c;
	}
	st->refused[st->nr_refused++] = f;
	return 0;
}

/* "dev I ID CLASS" lines, in order, before any "fit" or "fitb" line,
 * whose indices must name them (or the base, I = nr). */
static int parse_fit_line(struct state *st, const char *line, const char *what,
			  char *why, size_t len, unsigned int lineno)
{
	unsigned int i, j, k, cls;
	const char *at;
	double v;

	if (strcmp(what, "dev") == 0) {
		struct state_dev *p;

		at = line + 3;
		if (st->fit || !get_uint(&at, &i, DEVFIT_MAX - 1) || i != st->nr_dev)
			goto bad;
		p = realloc(st->devs, (st->nr_dev + 1) * sizeof(*p));
		if (!p)
			return -ENOMEM;
		st->devs = p;
		if (!get_key(&at, p[i].id, sizeof(p[i].id)) || !get_uint(&at, &cls, 2) || *at)
			goto bad;
		p[i].class = (int)cls;
		st->nr_dev++;
		return 0;
	}
	if (!st->fit) {
		if (!st->nr_dev)
			goto bad;
		st->fit = devfit_new(st->nr_dev);
		if (!st->fit)
			return -ENOMEM;
	}
	at = line + strlen(what);
	if (!get_uint(&at, &k, DEVFIT_KINDS - 1))
		goto bad;
	if (strcmp(what, "fit") == 0 && get_uint(&at, &i, st->nr_dev) &&
	    get_uint(&at, &j, st->nr_dev) && get_f64(&at, &v) && !*at) {
		st->fit->n[k][(size_t)i * (st->nr_dev + 1) + j] = v;
		return 0;
	}
	if (strcmp(what, "fitb") == 0 && get_uint(&at, &i, st->nr_dev) && get_f64(&at, &v) &&
	    !*at) {
		st->fit->b[k][i] = v;
		return 0;
	}
bad:
	snprintf(why, len, "line %u: not a device fit's", lineno);
	return -EINVAL;
}

struct devfit *state_fit_for(const struct state *old, const char *const *ids,
			     unsigned int nr)
{
	struct devfit *f = devfit_new(nr);
	unsigned int map[DEVFIT_MAX + 1];
	size_t om, nm = (size_t)nr + 1;

	if (!f || !old || !old->fit)
		return f;
	om = (size_t)old->fit->nr + 1;
	for (unsigned int i = 0; i < old->fit->nr; i++) {
		map[i] = UINT_MAX;
		for (unsigned int j = 0; j < nr; j++)
			if (strcmp(old->devs[i].id, ids[j]) == 0)
				map[i] = j;
	}
	map[old->fit->nr] = nr;		/* the base */
	for (int k = 0; k < DEVFIT_KINDS; k++) {
		for (size_t i = 0; i < om; i++) {
			if (map[i] == UINT_MAX)
				continue;
			for (size_t j = 0; j < om; j++)
				if (map[j] != UINT_MAX)
					f->n[k][map[i] * nm + map[j]] = old->fit->n[k][i * om + j];
			f->b[k][map[i]] = old->fit->b[k][i];
		}
	}
	return f;
}

/* Room for one more of *@arr's @nr elements of @size, doubling *@cap
 * from @first; false: no memory. */
static bool grow(void *arr, unsigned int nr, unsigned int *cap, size_t size, unsigned int first)
{
	void **a = arr, *q;

	if (nr < *cap)
		return true;
	q = reallocarray(*a, *cap ? *cap * 2 : first, size);
	if (!q)
		return false;
	*a = q;
	*cap = *cap ? *cap * 2 : first;
	return true;
}

/* "appcpus N" once, then "app CPU IRQ MEAN SIGMA RUNS WEIGHT WEIGHT2" per
 * CPU below N, ascending: a history keyed by CPU id. */
static int parse_app_line(struct state *st, const char *line, unsigned int *cap, char *why,
			  size_t len, unsigned int lineno)
{
	const char *p = line + 3;
	unsigned int cpu;
	struct state_irq *q;
	uint64_t irq;

	if (strncmp(line, "appcpus", 7) == 0) {
		p = line + 7;
		if (st->nr_app_ids || !get_uint(&p, &st->nr_app_ids, STATE_SNAP_MAX_CPUS) || *p ||
		    !st->nr_app_ids)
			goto bad;
		return 0;
	}
	if (!st->nr_app_ids || !get_uint(&p, &cpu, st->nr_app_ids - 1) ||
	    (st->nr_app && cpu <= st->app[st->nr_app - 1].irq))
		goto bad;
	if (!grow(&st->app, st->nr_app, cap, sizeof(*st->app), 16))
		return -ENOMEM;
	q = &st->app[st->nr_app];
	*q = (struct state_irq){ .irq = cpu };
	if (!get_u64(&p, &irq) || !state_sane_load((double)irq / NANO) || !get_history(p, q))
		goto bad;
	q->cpu_irq = (double)irq / NANO;
	st->nr_app++;
	return 0;
bad:
	snprintf(why, len, "line %u: not a CPU's application load history", lineno);
	return -EINVAL;
}

/* Reading the "snap", "scpu", "srow" and "sc" lines, in that order. */
struct snap_parse {
	unsigned int cols_cap, rows_cap, counts_cap;
	int last_cpu, last_count_cpu;
	size_t counts;
};

static int parse_snap_line(struct state *st, struct snap_parse *sp, const char *line,
			   const char *what, char *why, size_t len, unsigned int lineno)
{
	struct snapshot *sn = st->snap;
	char extra[2];
	unsigned int c, flags, irq, nr_ids;
	uint64_t v[2 + SOFTIRQ_NR];
	double when;

	if (strcmp(what, "snap") == 0) {
		if (sn || sscanf(line, "snap %lf %u %1s", &when, &nr_ids, extra) != 2 ||
		    !isfinite(when) || nr_ids > STATE_SNAP_MAX_CPUS)
			goto bad;
		sn = st->snap = calloc(1, sizeof(*sn));
		if (!sn || !(sn->intr = calloc(1, sizeof(*sn->intr))) ||
		    !(sn->stats.cpu = calloc(nr_ids ? nr_ids : 1, sizeof(*sn->stats.cpu))))
			return -ENOMEM;
		sn->when = when;
		sn->stats.nr_ids = nr_ids;
		sp->last_cpu = -1;
		return 0;
	}
	if (!sn)
		goto bad;
	if (strcmp(what, "scpu") == 0) {
		const char *at = line + 4;
		bool ok = get_uint(&at, &c, STATE_SNAP_MAX_CPUS - 1) && get_uint(&at, &flags, 255);

		for (unsigned int t = 0; ok && t < 2 + SOFTIRQ_NR; t++)
			ok = get_u64(&at, &v[t]);
		if (!ok || *at || sn->intr->nr_rows || (int)c <= sp->last_cpu ||
		    flags == 0 || flags > (SNAP_COL | 3) ||
		    ((flags & 3) && c >= sn->stats.nr_ids))
			goto bad;
		sp->last_cpu = (int)c;
		if (flags & 3) {
			struct cpu_stat *cs = &sn->stats.cpu[c];

			cs->seen = (unsigned char)(flags & 3);
			cs->irq = v[0];
			cs->softirq = v[1];
			for (unsigned int t = 0; t < SOFTIRQ_NR; t++)
				cs->softirqs[t] = v[2 + t];
		}
		if (flags & SNAP_COL) {
			struct interrupts *in = sn->intr;

			if (!grow(&in->col_cpu, in->nr_cols, &sp->cols_cap, sizeof(*in->col_cpu), 64))
				return -ENOMEM;
			in->col_cpu[in->nr_cols++] = c;
		}
		return 0;
	}
	if (strcmp(what, "srow") == 0) {
		struct interrupts *in = sn->intr;
		struct irq_row *r;
		const char *at = line + 4;

		uint64_t h;

		if (!get_uint(&at, &irq, IRQ_NUM_LIMIT - 1) || !get_hex64(&at, &h) || *at ||
		    in->nr_rows >= STATE_MAX_IRQS ||
		    (in->nr_rows && irq <= in->rows[in->nr_rows - 1].irq))
			goto bad;
		if (!grow(&in->rows, in->nr_rows, &sp->rows_cap, sizeof(*in->rows), 64))
			return -ENOMEM;
		r = &in->rows[in->nr_rows++];
		*r = (struct irq_row){ .irq = irq, .desc_hash = h };
		sp->counts_cap = 0;
		sp->last_count_cpu = -1;
		return 0;
	}
	if (strcmp(what, "sc") == 0) {
		struct interrupts *in = sn->intr;
		struct irq_row *r = in->nr_rows ? &in->rows[in->nr_rows - 1] : NULL;
		const char *at = line + 2;

		if (!r || !get_uint(&at, &c, STATE_SNAP_MAX_CPUS - 1) || !get_u64(&at, &v[0]) || *at ||
		    (int)c <= sp->last_count_cpu || v[0] == 0 ||
		    ++sp->counts > STATE_SNAP_MAX_COUNTS)
			goto bad;
		if (!grow(&r->counts, r->nr_counts, &sp->counts_cap, sizeof(*r->counts), 4))
			return -ENOMEM;
		r->counts[r->nr_counts++] = (struct cpu_count){ .cpu = c, .count = v[0] };
		r->total += v[0];
		sp->last_count_cpu = (int)c;
		return 0;
	}
bad:
	snprintf(why, len, "line %u: not a counter snapshot's", lineno);
	return -EINVAL;
}

/* What state_parse() knows between lines. */
struct state_parser {
	struct state *st;
	const char *boot_id;
	bool have_boot, have_time;
	unsigned int lineno, cap;	/* cap: room in st->irqs */
	unsigned int app_cap;		/* room in st->app */
	unsigned int refused_cap;	/* room in st->refused */
	int version;
	struct snap_parse sp;
	char *why;
	size_t len;
};

/* Line p->lineno, @line: 0, or -errno with p->why filled in. */
static int parse_line(struct state_parser *p, const char *line)
{
	struct state *st = p->st;
	unsigned int lineno = p->lineno;
	char a[32], b[128], extra[2], *why = p->why;
	size_t len = p->len;
	int k, r = -EINVAL;

	/* The first word says what a line is; only the first three
	 * lines need stdio to read the rest. */
	{
		size_t w = strcspn(line, " ");

		if (w >= sizeof(a))
			w = sizeof(a) - 1;
		memcpy(a, line, w);
		a[w] = '\0';
	}
	k = lineno <= 3 ? sscanf(line, "%31s %127s %1s", a, b, extra) : 0;
	if (lineno == 1) {
		int ver;

		if (k != 2 || strcmp(a, "irqtune-state") != 0 ||
		    parse_int(b, 0, 1000000, &ver) < 0) {
			snprintf(why, len, "not an irqtune state file");
			return r;
		}
		if (ver < STATE_VERSION_READ || ver > STATE_VERSION) {
			snprintf(why, len, "version %d, %s", ver, ver > STATE_VERSION ?
				 "written by a newer irqtune" : "written by an older irqtune");
			/* An upgrade starts afresh without a word. */
			if (ver < STATE_VERSION)
				r = -ESTALE;
			return r;
		}
		p->version = ver;
	} else if (k == 2 && strcmp(a, "boot") == 0 && !p->have_boot) {
		if (strcmp(b, p->boot_id) != 0) {
			snprintf(why, len, "written on another boot (or host)");
			return -ESTALE;
		}
		p->have_boot = true;
	} else if (k == 2 && strcmp(a, "time") == 0 && !p->have_time) {
		char *end;

		st->when = strtod(b, &end);
		if (*end || !isfinite(st->when)) {
			snprintf(why, len, "line %u: time '%s' is not a number", lineno, b);
			return r;
		}
		p->have_time = true;
	} else if (strcmp(a, "irq") == 0 && p->have_boot && p->have_time) {
		struct state_irq *q;

		if (st->nr == STATE_MAX_IRQS) {
			snprintf(why, len, "more than %d IRQs", STATE_MAX_IRQS);
			return r;
		}
		if (!grow(&st->irqs, st->nr, &p->cap, sizeof(*st->irqs), 64))
			return -ENOMEM;
		q = &st->irqs[st->nr];
		if ((r = parse_irq_line(line, q, why, len, lineno)) < 0)
			return r;
		if (st->nr && q->irq <= st->irqs[st->nr - 1].irq) {
			snprintf(why, len, "line %u: IRQs out of order", lineno);
			return -EINVAL;
		}
		st->nr++;
	} else if ((strcmp(a, "app") == 0 || strcmp(a, "appcpus") == 0) && p->version >= 5 &&
		   p->have_boot && p->have_time) {
		if ((r = parse_app_line(st, line, &p->app_cap, why, len, lineno)) < 0)
			return r;
	} else if (strcmp(a, "refused") == 0 && p->version >= 6 && p->have_boot && p->have_time) {
		if ((r = parse_refused_line(st, line, &p->refused_cap, why, len, lineno)) < 0)
			return r;
	} else if (strcmp(a, "dev") == 0 || strncmp(a, "fit", 3) == 0) {
		if ((r = parse_fit_line(st, line, a, why, len, lineno)) < 0)
			return r;
	} else if ((strcmp(a, "snap") == 0 || strcmp(a, "scpu") == 0 ||
		    strcmp(a, "srow") == 0 || strcmp(a, "sc") == 0) &&
		   p->have_boot && p->have_time) {
		if ((r = parse_snap_line(st, &p->sp, line, a, why, len, lineno)) < 0)
			return r;
	} else {
		snprintf(why, len, "line %u: '%.40s' is not understood", lineno, line);
		return r;
	}
	return 0;
}

/* Everything of @st but its refusals dropped: an aged state. */
static void state_keep_refusals(struct state *st)
{
	struct state_refusal *f = st->refused;
	unsigned int nr = st->nr_refused;
	double when = st->when;

	st->refused = NULL;
	st->nr_refused = 0;
	st->snap_lent = false;
	free(st->irqs);
	free(st->app);
	free(st->devs);
	devfit_free(st->fit);
	snapshot_release(st->snap);
	free(st->snap);
	memset(st, 0, sizeof(*st));
	st->when = when;
	st->refused = f;
	st->nr_refused = nr;
	st->aged = true;
}

int state_parse(const char *text, const char *boot_id, double now,
		struct state **ret, char *why, size_t len)
{
	struct state_parser p = { .boot_id = boot_id, .why = why, .len = len };
	const char *s = text;
	int r = -EINVAL;

	p.st = calloc(1, sizeof(*p.st));
	if (!p.st)
		return -ENOMEM;
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t l = nl ? (size_t)(nl - s) : strlen(s);
		char line[1024];

		p.lineno++;
		if (!nl || l >= sizeof(line)) {
			snprintf(why, len, "line %u: %s", p.lineno,
				 nl ? "too long" : "not ended (a truncated file?)");
			goto fail;
		}
		memcpy(line, s, l);
		line[l] = '\0';
		s = nl + 1;
		r = parse_line(&p, line);
		if (r < 0)
			goto fail;
		r = -EINVAL;
	}
	if (!p.have_boot || !p.have_time) {
		snprintf(why, len, "%s", p.lineno == 0 ? "empty" : "no boot id or time in it");
		goto fail;
	}
	if (p.st->when > now + 60 || p.st->when < now - STATE_MAX_AGE) {
		snprintf(why, len, "%s", p.st->when > now ? "written in the future" :
			 "older than ten minutes: another load");
		r = -ESTALE;
		/* What the kernel refused stays refused on this boot: an
		 * old file of it still says which IRQs not to write. */
		if (p.st->when > now + 60 || !p.st->nr_refused)
			goto fail;
		state_keep_refusals(p.st);
	}
	*ret = p.st;
	return 0;
fail:
	state_free(p.st);
	return r;
}

int state_load(const char *path, const char *boot_id, double now,
	       struct state **ret, char *why, size_t len)
{
	char *text = malloc(STATE_FILE_MAX + 1);
	long n;
	int r;

	if (!text)
		return -ENOMEM;
	n = read_own_file(path, text, STATE_FILE_MAX + 1, why, len);
	r = n < 0 ? (int)n : state_parse(text, boot_id, now, ret, why, len);
	free(text);
	return r;
}

int state_save(const char *path, const struct state *st, const char *boot_id)
{
	char *text;
	int r;

	r = state_format(st, boot_id, &text);
	if (r < 0)
		return r;
	r = write_own_file(path, text, strlen(text));
	free(text);
	return r;
}
