// SPDX-License-Identifier: GPL-2.0-or-later
/* procfs.c - the parsers of /proc/interrupts, /proc/stat and
 * /proc/softirqs, strict and bounded (a corrupt file is -EINVAL with its
 * line, never a huge allocation), the readers of /proc/irq/N, and the one
 * parser of a task's Cpus_allowed_list (/proc/PID/status). What
 * the counts mean is sample.c's. No logging: functions return 0 or
 * -errno, the caller reports. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cpuset.h"
#include "pathnames.h"
#include "procfs.h"
#include "source.h"
#include "strutil.h"

/* The longest line believed. A 1152-CPU /proc/interrupts row is ~13 KB and
 * 8192 CPUs make ~100 KB; the cap keeps a corrupt file from growing the
 * buffer without bound. /proc/stat's intr line may exceed it: it is skipped. */
#define LINE_LIMIT	(4u << 20)
#define LINE_CHUNK	(64u << 10)

/* Values of a /proc/stat "cpuN" line, 0-based after the label (proc(5)). */
#define STAT_FIELDS	7	/* user nice system idle iowait irq softirq */
#define STAT_FIELD_IRQ	5
#define STAT_FIELD_SOFTIRQ 6
#define STAT_FIELDS_MIN	4	/* 2.4 kernels: user nice system idle */


static const struct {
	const char *name;
	enum softirq_type type;
} softirq_names[] = {
	{ "HI", SOFTIRQ_HI },
	{ "TIMER", SOFTIRQ_TIMER },
	{ "NET_TX", SOFTIRQ_NET_TX },
	{ "NET_RX", SOFTIRQ_NET_RX },
	{ "BLOCK", SOFTIRQ_BLOCK },
	{ "IRQ_POLL", SOFTIRQ_IRQ_POLL },
	{ "BLOCK_IOPOLL", SOFTIRQ_IRQ_POLL },	/* its name before 4.5 */
	{ "TASKLET", SOFTIRQ_TASKLET },
	{ "SCHED", SOFTIRQ_SCHED },
	{ "HRTIMER", SOFTIRQ_HRTIMER },
	{ "RCU", SOFTIRQ_RCU },
};

/* ---- reading lines ---- */

struct line_reader {
	FILE *f;
	char *buf;
	size_t size;
	size_t start;		/* first byte not yet returned */
	size_t end;		/* one past the last byte read */
	unsigned int lineno;	/* of the line last returned, 1-based */
	bool eof;
	bool skip;		/* discarding the rest of an overlong line */
};

struct line {
	char *s;		/* NUL-terminated, newline removed */
	size_t len;
	bool truncated;		/* longer than LINE_LIMIT: s holds the start */
};

static int reader_init(struct line_reader *lr, FILE *f)
{
	*lr = (struct line_reader){ .f = f };
	lr->buf = malloc(LINE_CHUNK);
	if (!lr->buf)
		return -ENOMEM;
	lr->size = LINE_CHUNK;
	return 0;
}

static void reader_done(struct line_reader *lr)
{
	free(lr->buf);
	lr->buf = NULL;
}

/* Move the unread bytes to the front, grow if full, read more. */
static int reader_fill(struct line_reader *lr)
{
	size_t n;

	if (lr->start > 0) {
		memmove(lr->buf, lr->buf + lr->start, lr->end - lr->start);
		lr->end -= lr->start;
		lr->start = 0;
	}
	/* One byte stays free for the NUL ending a last line without '\n'. */
	if (lr->end + 1 >= lr->size) {
		size_t size = lr->size * 2;
		char *buf;

		if (size > LINE_LIMIT + 2)
			size = LINE_LIMIT + 2;
		if (size <= lr->size)
			return -EINVAL;		/* cannot happen: reader_next cuts first */
		buf = realloc(lr->buf, size);
		if (!buf)
			return -ENOMEM;
		lr->buf = buf;
		lr->size = size;
	}
	n = fread(lr->buf + lr->end, 1, lr->size - lr->end - 1, lr->f);
	if (n == 0) {
		if (ferror(lr->f))
			return errno > 0 ? -errno : -EIO;
		lr->eof = true;
	}
	lr->end += n;
	return 0;
}

/* Returns 1 with the next line in *@ret (valid until the next call), 0 at the
 * end of the file, or -errno. */
static int reader_next(struct line_reader *lr, struct line *ret)
{
	int r;

	while (lr->skip) {
		char *nl = memchr(lr->buf + lr->start, '\n', lr->end - lr->start);

		if (nl) {
			lr->start = (size_t)(nl - lr->buf) + 1;
			lr->skip = false;
			break;
		}
		lr->start = lr->end;
		if (lr->eof)
			return 0;
		r = reader_fill(lr);
		if (r < 0)
			return r;
	}
	for (;;) {
		char *s = lr->buf + lr->start;
		size_t avail = lr->end - lr->start;
		char *nl = memchr(s, '\n', avail);

		if (nl) {
			*nl = '\0';
			*ret = (struct line){ .s = s, .len = (size_t)(nl - s) };
			lr->start += ret->len + 1;
			lr->lineno++;
			return 1;
		}
		if (avail > LINE_LIMIT) {
			s[LINE_LIMIT] = '\0';
			*ret = (struct line){ .s = s, .len = LINE_LIMIT,
					      .truncated = true };
			lr->start += LINE_LIMIT + 1;
			lr->skip = true;
			lr->lineno++;
			return 1;
		}
		if (lr->eof) {
			if (avail == 0)
				return 0;
			s[avail] = '\0';
			*ret = (struct line){ .s = s, .len = avail };
			lr->start = lr->end;
			lr->lineno++;
			return 1;
		}
		r = reader_fill(lr);
		if (r < 0)
			return r;
	}
}

/* A line we can scan as a C string: whole, and no NUL inside. */
static bool line_ok(const struct line *l)
{
	return !l->truncated && strlen(l->s) == l->len;
}

/* ---- scanning ---- */

/* Blanks here are is_space(): a line holds no '\n' (the reader cut it
 * there), so a '\r' of a CRLF file and the rest are what can be met. */
static inline const char *skip_blanks(const char *p)
{
	while (is_space(*p))
		p++;
	return p;
}

/* Strict decimal at *@p: digits, then a blank or the end of the line; at
 * most @max. Advances *@p past the digits. The hot loop of a 13 MB
 * /proc/interrupts, hence no strtoull (locale, signs, no end check). */
static inline int scan_u64(const char **p, uint64_t max, uint64_t *ret)
{
	const char *s = *p;
	uint64_t v = 0;

	if (!is_digit(*s))
		return -EINVAL;
	do {
		unsigned int d = (unsigned int)(*s - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
		s++;
	} while (is_digit(*s));
	if (*s && !is_space(*s))
		return -EINVAL;
	if (v > max)
		return -EINVAL;
	*p = s;
	*ret = v;
	return 0;
}

/* The row key: the first token, up to its ':'. "IPI0:2768808080" has no
 * blank after the colon once counts reach 10 digits (arm64). */
static int scan_key(const char **p, const char **ret_key, size_t *ret_len)
{
	const char *s = skip_blanks(*p), *q = s;

	while (*q && !is_space(*q) && *q != ':')
		q++;
	if (*q != ':' || q == s)
		return -EINVAL;
	*ret_key = s;
	*ret_len = (size_t)(q - s);
	*p = q + 1;
	return 0;
}

/* "CPU0 CPU1 CPU3": ids from the labels, never from the position, since
 * /proc/interrupts lists online CPUs only and ids may have holes. */
static int parse_cpu_header(const char *s, unsigned int **ret_cpus,
			    unsigned int *ret_n)
{
	unsigned int *cpus, n = 0, i;
	const char *p;

	for (p = skip_blanks(s); *p; p = skip_blanks(p)) {
		n++;
		while (*p && !is_space(*p))
			p++;
	}
	if (n == 0)
		return -EINVAL;
	cpus = malloc(n * sizeof(*cpus));
	if (!cpus)
		return -ENOMEM;
	for (p = skip_blanks(s), i = 0; i < n; i++, p = skip_blanks(p)) {
		uint64_t id;

		if (strncmp(p, "CPU", 3) != 0)
			goto fail;
		p += 3;
		if (scan_u64(&p, CPU_ID_LIMIT - 1, &id) < 0)
			goto fail;
		/* The kernel prints them ascending; this also rejects twins. */
		if (i > 0 && id <= cpus[i - 1])
			goto fail;
		cpus[i] = (unsigned int)id;
	}
	*ret_cpus = cpus;
	*ret_n = n;
	return 0;
fail:
	free(cpus);
	return -EINVAL;
}

/* Skip blank lines, then parse the CPUn header. */
static int read_cpu_header(struct line_reader *lr, unsigned int **ret_cpus,
			   unsigned int *ret_n)
{
	struct line l;
	int r;

	while ((r = reader_next(lr, &l)) > 0) {
		if (!line_ok(&l))
			return -EINVAL;
		if (*skip_blanks(l.s))
			return parse_cpu_header(l.s, ret_cpus, ret_n);
	}
	if (r == 0) {
		lr->lineno++;	/* the header we did not find */
		return -EINVAL;
	}
	return r;
}

/* ---- /proc/interrupts ---- */

static const char *const flow_names[] = {
	"edge", "level", "fasteoi", "simple", "percpu", "percpu_devid",
};

/* Is token @idx of a description the flow type that ends the chip part?
 * kernel/irq/proc.c prints chip, hwirq, "Edge"/"Level" (with
 * GENERIC_IRQ_SHOW_LEVEL), then "-<handler>", which glues to the hwirq
 * ("2-edge"), to the chip on kernels that print no hwirq
 * ("IR-IO-APIC-edge"), or stands alone after padding ("-virq", Xen). */
static bool is_flow_token(const char *t, size_t len, unsigned int idx)
{
	size_t i, k;

	if (idx == 0) {
		for (k = 0; k < sizeof(flow_names) / sizeof(flow_names[0]); k++) {
			size_t n = strlen(flow_names[k]);

			if (len > n + 1 && t[len - n - 1] == '-' &&
			    strncasecmp(t + len - n, flow_names[k], n) == 0)
				return true;
		}
		return false;
	}
	if ((len == 4 && strncasecmp(t, "Edge", 4) == 0) ||
	    (len == 5 && strncasecmp(t, "Level", 5) == 0))
		return true;
	if (t[0] == '-')
		return len > 1;
	for (i = 0; i < len && is_digit(t[i]); i++)
		;
	return i > 0 && i + 1 < len && t[i] == '-';
}

/* Where the action names start in a trimmed description: after the flow
 * token among the first four, else nowhere (returns strlen(desc)). Names may
 * hold blanks and commas ("PCIe PME, pciehp"), so they are the whole rest. */
static size_t name_offset(const char *desc)
{
	const char *p = desc, *after = NULL;
	unsigned int idx;

	for (idx = 0; idx < 4 && *p; idx++) {
		const char *t = p;

		while (*p && !is_space(*p))
			p++;
		if (is_flow_token(t, (size_t)(p - t), idx))
			after = p;
		p = skip_blanks(p);
	}
	if (!after)
		return strlen(desc);
	return (size_t)(skip_blanks(after) - desc);
}

static char *strndup_trimmed(const char *s)
{
	size_t len;

	s = skip_blanks(s);
	len = strlen(s);
	while (len > 0 && is_space(s[len - 1]))
		len--;
	return strndup(s, len);
}

struct parsed_row {
	struct irq_row row;
	unsigned int line;	/* for the error of a duplicate found late */
};

void irq_row_release(struct irq_row *row)
{
	free(row->counts);
	free(row->desc);
	free(row->name);
}

/* Blanks before the next count, eight at a time while they last: counts
 * are printed " %10u" and most are 0, so a row of a big machine is nine
 * tenths spaces (1152 CPUs: 13 MB a file, 11 bytes a count). */
static inline const char *skip_count_blanks(const char *p, const char *end)
{
	uint64_t w;

	while (end - p >= 8) {
		memcpy(&w, p, sizeof(w));
		if (w != 0x2020202020202020ull)
			break;
		p += 8;
	}
	return skip_blanks(p);
}

/* A count of 0 as the kernel prints it (" %10u"), sixteen times over. Most
 * of a big machine's rows is this: an IRQ is served by one CPU or a few,
 * and memcmp() against it skips 176 bytes in a few vector compares. */
#define ZERO_FIELD "          0"
#define ZERO_RUN 16
#define ZERO_RUN_LEN (ZERO_RUN * (sizeof(ZERO_FIELD) - 1))
static const char zero_run[] = ZERO_FIELD ZERO_FIELD ZERO_FIELD ZERO_FIELD
			       ZERO_FIELD ZERO_FIELD ZERO_FIELD ZERO_FIELD
			       ZERO_FIELD ZERO_FIELD ZERO_FIELD ZERO_FIELD
			       ZERO_FIELD ZERO_FIELD ZERO_FIELD ZERO_FIELD;
_Static_assert(sizeof(zero_run) == ZERO_RUN_LEN + 1, "zero_run is sixteen fields");

/* One numbered row, after its "N:", up to @end (its NUL). @scratch has room
 * for @nr_cols. */
static int parse_irq_row(const char *p, const char *end, unsigned int irq,
			 const unsigned int *cols, unsigned int nr_cols,
			 struct cpu_count *scratch, struct irq_row *ret)
{
	struct irq_row row = { .irq = irq };
	unsigned int col, n = 0;
	uint64_t total = 0;

	for (col = 0; col < nr_cols; col++) {
		uint64_t v;

		/* Sixteen idle CPUs at a time, as the kernel prints them. */
		while (nr_cols - col >= ZERO_RUN && (size_t)(end - p) >= ZERO_RUN_LEN &&
		       memcmp(p, zero_run, ZERO_RUN_LEN) == 0 &&
		       (p[ZERO_RUN_LEN] == '\0' || is_space(p[ZERO_RUN_LEN]))) {
			p += ZERO_RUN_LEN;
			col += ZERO_RUN;
		}
		if (col == nr_cols)
			break;
		p = skip_count_blanks(p, end);
		/* The common count, without the general scan. */
		if (p[0] == '0' && (p[1] == '\0' || is_space(p[1]))) {
			p++;
			continue;
		}
		if (!is_digit(*p)) {
			if ((*p == '-' || *p == '+') && is_digit(p[1]))
				return -EINVAL;
			/* Fewer counts than CPUs: tolerated, the rest are 0. */
			break;
		}
		if (scan_u64(&p, UINT64_MAX, &v) < 0)
			return -EINVAL;
		if (v == 0)
			continue;
		if (__builtin_add_overflow(total, v, &total))
			return -EINVAL;
		scratch[n].cpu = cols[col];
		scratch[n].count = v;
		n++;
	}
	/* Anything after nr_cols counts, numbers included, is description. */
	row.total = total;
	row.nr_counts = n;
	if (n > 0) {
		row.counts = malloc(n * sizeof(*row.counts));
		if (!row.counts)
			return -ENOMEM;
		memcpy(row.counts, scratch, n * sizeof(*row.counts));
	}
	row.desc = strndup_trimmed(p);
	if (row.desc)
		row.name = strdup(row.desc + name_offset(row.desc));
	if (!row.desc || !row.name) {
		irq_row_release(&row);
		return -ENOMEM;
	}
	*ret = row;
	return 0;
}

static int parsed_row_cmp(const void *x, const void *y)
{
	const struct parsed_row *a = x, *b = y;

	if (a->row.irq != b->row.irq)
		return a->row.irq < b->row.irq ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

/* The numbered rows read so far. */
struct parsed_rows {
	struct parsed_row *v;
	unsigned int n, alloc;
	bool sorted;		/* ascending so far */
};

/* One line of /proc/interrupts after the header: a numbered row joins
 * @rows; blank lines and per-CPU event rows (NMI, LOC, ...) are skipped. */
static int parse_line(const struct line *l, unsigned int lineno,
		      const unsigned int *cols, unsigned int nr_cols,
		      struct cpu_count *scratch, struct parsed_rows *rows)
{
	const char *p = l->s, *key;
	size_t key_len;
	uint64_t irq;
	int r;

	if (!line_ok(l))
		return -EINVAL;
	if (!*skip_blanks(p))
		return 0;
	r = scan_key(&p, &key, &key_len);
	if (r < 0)
		return r;
	/* NMI, LOC, IPIn, ERR, I/O, ...: per-CPU events, not IRQs. */
	if (!all_digits(key, key_len))
		return 0;
	/* Keeps the sum below from overflowing; the limit has 8. */
	if (key_len > 10)
		return -EINVAL;
	for (irq = 0, p = key; p < key + key_len; p++)
		irq = irq * 10 + (uint64_t)(*p - '0');
	/* More rows than IRQ numbers can be told apart: one is a
	 * duplicate, and the count must not grow without bound. */
	if (irq > IRQ_NUM_LIMIT || rows->n > IRQ_NUM_LIMIT)
		return -EINVAL;
	if (rows->n == rows->alloc) {
		unsigned int na = rows->alloc ? rows->alloc * 2 : 256;
		struct parsed_row *np;

		np = reallocarray(rows->v, na, sizeof(*rows->v));
		if (!np)
			return -ENOMEM;
		rows->v = np;
		rows->alloc = na;
	}
	r = parse_irq_row(key + key_len + 1, l->s + l->len,
			  (unsigned int)irq, cols, nr_cols, scratch,
			  &rows->v[rows->n].row);
	if (r < 0)
		return r;
	rows->v[rows->n].line = lineno;
	if (rows->n > 0 && rows->v[rows->n].row.irq < rows->v[rows->n - 1].row.irq)
		rows->sorted = false;
	rows->n++;
	return 0;
}

int interrupts_parse(FILE *f, struct interrupts **ret, unsigned int *ret_line)
{
	struct parsed_rows rows = { .sorted = true };
	struct interrupts *intr = NULL;
	struct cpu_count *scratch = NULL;
	unsigned int *cols = NULL, nr_cols = 0, i;
	struct line_reader lr;
	struct line l;
	int r;

	if (!f || !ret)
		return -EINVAL;
	r = reader_init(&lr, f);
	if (r < 0)
		return r;
	r = read_cpu_header(&lr, &cols, &nr_cols);
	if (r < 0)
		goto out;
	scratch = malloc(nr_cols * sizeof(*scratch));
	if (!scratch) {
		r = -ENOMEM;
		goto out;
	}

	while ((r = reader_next(&lr, &l)) > 0) {
		r = parse_line(&l, lr.lineno, cols, nr_cols, scratch, &rows);
		if (r < 0)
			goto out;
	}
	if (r < 0)
		goto out;

	if (!rows.sorted)
		qsort(rows.v, rows.n, sizeof(*rows.v), parsed_row_cmp);
	for (i = 1; i < rows.n; i++) {
		if (rows.v[i].row.irq == rows.v[i - 1].row.irq) {
			lr.lineno = rows.v[i].line;
			r = -EINVAL;
			goto out;
		}
	}

	intr = calloc(1, sizeof(*intr));
	if (!intr) {
		r = -ENOMEM;
		goto out;
	}
	intr->rows = malloc((rows.n ? rows.n : 1) * sizeof(*intr->rows));
	if (!intr->rows) {
		free(intr);
		r = -ENOMEM;
		goto out;
	}
	for (i = 0; i < rows.n; i++)
		intr->rows[i] = rows.v[i].row;
	intr->nr_rows = rows.n;
	intr->nr_cols = nr_cols;
	intr->col_cpu = cols;
	cols = NULL;
	rows.n = 0;		/* the rows now belong to intr */
	*ret = intr;
	r = 0;
out:
	if (r == -EINVAL && ret_line)
		*ret_line = lr.lineno;
	for (i = 0; i < rows.n; i++)
		irq_row_release(&rows.v[i].row);
	free(rows.v);
	free(scratch);
	free(cols);
	reader_done(&lr);
	return r;
}

void interrupts_free(struct interrupts *intr)
{
	unsigned int i;

	if (!intr)
		return;
	for (i = 0; i < intr->nr_rows; i++)
		irq_row_release(&intr->rows[i]);
	free(intr->rows);
	free(intr->col_cpu);
	free(intr);
}

const struct irq_row *interrupts_find(const struct interrupts *intr,
				      unsigned int irq)
{
	unsigned int lo = 0, hi;

	if (!intr)
		return NULL;
	hi = intr->nr_rows;
	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (intr->rows[mid].irq == irq)
			return &intr->rows[mid];
		if (intr->rows[mid].irq < irq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* ---- /proc/stat and /proc/softirqs ---- */

static int cpu_stats_grow(struct cpu_stats *stats, unsigned int nr_ids)
{
	struct cpu_stat *cpu;

	if (nr_ids <= stats->nr_ids)
		return 0;
	cpu = reallocarray(stats->cpu, nr_ids, sizeof(*cpu));
	if (!cpu)
		return -ENOMEM;
	memset(cpu + stats->nr_ids, 0,
	       (nr_ids - stats->nr_ids) * sizeof(*cpu));
	stats->cpu = cpu;
	stats->nr_ids = nr_ids;
	return 0;
}

struct stat_entry {
	unsigned int cpu;
	uint64_t irq;
	uint64_t softirq;
};

/* "cpuN user nice system idle [iowait irq softirq [steal [guest
 * [guest_nice]]]]": iowait, irq and softirq came with 2.6, steal with
 * 2.6.11, so a 2.4 line has 4 values and some have 7. */
static int parse_stat_cpu(const char *p, struct stat_entry *ret)
{
	uint64_t v[STAT_FIELDS] = { 0 }, id, x;
	unsigned int n = 0;

	p += 3;		/* "cpu" */
	if (scan_u64(&p, CPU_ID_LIMIT - 1, &id) < 0)
		return -EINVAL;
	for (p = skip_blanks(p); *p; p = skip_blanks(p)) {
		if (scan_u64(&p, UINT64_MAX, &x) < 0)
			return -EINVAL;
		if (n < STAT_FIELDS)
			v[n] = x;
		n++;
	}
	if (n < STAT_FIELDS_MIN)
		return -EINVAL;
	ret->cpu = (unsigned int)id;
	ret->irq = v[STAT_FIELD_IRQ];
	ret->softirq = v[STAT_FIELD_SOFTIRQ];
	return 0;
}

/* "intr SUM N0 N1 ...": the count of IRQ k is the (k + 2)th number. */
static int parse_intr_line(const char *p, struct irq_totals *ret)
{
	struct irq_totals t = { 0 };
	unsigned int alloc = 0;
	uint64_t x;

	p = skip_blanks(p + 4);
	if (scan_u64(&p, UINT64_MAX, &x) < 0)
		return -EINVAL;
	for (;;) {
		p = skip_blanks(p);
		if (!*p)
			break;
		if (t.nr == IRQ_NUM_LIMIT || scan_u64(&p, UINT64_MAX, &x) < 0) {
			free(t.total);
			return -EINVAL;
		}
		if (t.nr == alloc) {
			unsigned int na = alloc ? alloc * 2 : 1024;
			uint64_t *nt = reallocarray(t.total, na, sizeof(*nt));

			if (!nt) {
				free(t.total);
				return -ENOMEM;
			}
			t.total = nt;
			alloc = na;
		}
		t.total[t.nr++] = x;
	}
	*ret = t;
	return 0;
}

int stat_parse(FILE *f, struct cpu_stats *stats, unsigned int *ret_line)
{
	return stat_parse_totals(f, stats, NULL, ret_line);
}

int stat_parse_totals(FILE *f, struct cpu_stats *stats, struct irq_totals *ret_totals,
		      unsigned int *ret_line)
{
	struct stat_entry *ents = NULL;
	unsigned char *dup = NULL;
	unsigned int n = 0, alloc = 0, nr_ids = 0, i;
	struct irq_totals totals = { 0 };
	bool have_totals = false;
	struct line_reader lr;
	struct line l;
	int r;

	if (!f || !stats)
		return -EINVAL;
	r = reader_init(&lr, f);
	if (r < 0)
		return r;
	dup = calloc(CPU_ID_LIMIT, 1);
	if (!dup) {
		r = -ENOMEM;
		goto out;
	}
	while ((r = reader_next(&lr, &l)) > 0) {
		struct stat_entry e;

		/* intr can be 130 KB or, past LINE_LIMIT, truncated: looked
		 * at only when asked for, and then it must be whole. */
		if (ret_totals && strncmp(l.s, "intr ", 5) == 0) {
			if (have_totals || !line_ok(&l)) {
				r = -EINVAL;
				goto out;
			}
			r = parse_intr_line(l.s, &totals);
			if (r < 0)
				goto out;
			have_totals = true;
			continue;
		}
		/* Not "cpu " (the sum). */
		if (strncmp(l.s, "cpu", 3) != 0 || !is_digit(l.s[3]))
			continue;
		if (!line_ok(&l) || parse_stat_cpu(l.s, &e) < 0 || dup[e.cpu]) {
			r = -EINVAL;
			goto out;
		}
		dup[e.cpu] = 1;
		if (n == alloc) {
			unsigned int na = alloc ? alloc * 2 : 64;
			struct stat_entry *ne;

			ne = reallocarray(ents, na, sizeof(*ents));
			if (!ne) {
				r = -ENOMEM;
				goto out;
			}
			ents = ne;
			alloc = na;
		}
		ents[n++] = e;
		if (e.cpu + 1 > nr_ids)
			nr_ids = e.cpu + 1;
	}
	if (r < 0)
		goto out;

	/* Only now touch @stats, so that a failure leaves it as it was. */
	r = cpu_stats_grow(stats, nr_ids);
	if (r < 0)
		goto out;
	for (i = 0; i < stats->nr_ids; i++) {
		stats->cpu[i].seen &= (unsigned char)~SAMPLE_SEEN_STAT;
		stats->cpu[i].irq = 0;
		stats->cpu[i].softirq = 0;
	}
	for (i = 0; i < n; i++) {
		struct cpu_stat *c = &stats->cpu[ents[i].cpu];

		c->irq = ents[i].irq;
		c->softirq = ents[i].softirq;
		c->seen |= SAMPLE_SEEN_STAT;
	}
	if (ret_totals) {
		if (!have_totals) {
			r = -ENODATA;
			goto out;
		}
		*ret_totals = totals;
		totals.total = NULL;
	}
out:
	if (r == -EINVAL && ret_line)
		*ret_line = lr.lineno;
	free(totals.total);
	free(ents);
	free(dup);
	reader_done(&lr);
	return r;
}

static int softirq_lookup(const char *key, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(softirq_names) / sizeof(softirq_names[0]); i++)
		if (strlen(softirq_names[i].name) == len &&
		    memcmp(softirq_names[i].name, key, len) == 0)
			return (int)softirq_names[i].type;
	return -1;
}

int softirqs_parse(FILE *f, struct cpu_stats *stats, unsigned int *ret_line)
{
	unsigned int *cols = NULL, nr_cols = 0, col, i;
	bool have[SOFTIRQ_NR] = { false };
	uint64_t *vals = NULL;
	struct line_reader lr;
	struct line l;
	int r;

	if (!f || !stats)
		return -EINVAL;
	r = reader_init(&lr, f);
	if (r < 0)
		return r;
	/* Columns are possible CPUs here, online ones in /proc/interrupts. */
	r = read_cpu_header(&lr, &cols, &nr_cols);
	if (r < 0)
		goto out;
	vals = calloc((size_t)nr_cols * SOFTIRQ_NR, sizeof(*vals));
	if (!vals) {
		r = -ENOMEM;
		goto out;
	}
	while ((r = reader_next(&lr, &l)) > 0) {
		const char *p = l.s, *key;
		size_t key_len;
		int t;

		if (!line_ok(&l)) {
			r = -EINVAL;
			goto out;
		}
		if (!*skip_blanks(p))
			continue;
		r = scan_key(&p, &key, &key_len);
		if (r < 0)
			goto out;
		t = softirq_lookup(key, key_len);
		if (t < 0)
			continue;	/* a softirq newer than us */
		if (have[t]) {
			r = -EINVAL;
			goto out;
		}
		have[t] = true;
		for (col = 0; col < nr_cols; col++) {
			p = skip_blanks(p);
			if (!*p)
				break;	/* short row: the rest stay 0 */
			r = scan_u64(&p, UINT64_MAX,
				     &vals[(size_t)col * SOFTIRQ_NR + t]);
			if (r < 0)
				goto out;
		}
		if (*skip_blanks(p)) {
			r = -EINVAL;
			goto out;
		}
	}
	if (r < 0)
		goto out;

	r = cpu_stats_grow(stats, cols[nr_cols - 1] + 1);
	if (r < 0)
		goto out;
	for (i = 0; i < stats->nr_ids; i++) {
		stats->cpu[i].seen &= (unsigned char)~SAMPLE_SEEN_SOFTIRQS;
		memset(stats->cpu[i].softirqs, 0,
		       sizeof(stats->cpu[i].softirqs));
	}
	for (col = 0; col < nr_cols; col++) {
		struct cpu_stat *c = &stats->cpu[cols[col]];

		memcpy(c->softirqs, &vals[(size_t)col * SOFTIRQ_NR],
		       sizeof(c->softirqs));
		c->seen |= SAMPLE_SEEN_SOFTIRQS;
	}
out:
	if (r == -EINVAL && ret_line)
		*ret_line = lr.lineno;
	free(vals);
	free(cols);
	reader_done(&lr);
	return r;
}

void cpu_stats_release(struct cpu_stats *stats)
{
	if (!stats)
		return;
	free(stats->cpu);
	stats->cpu = NULL;
	stats->nr_ids = 0;
}

/* ---- /proc/irq ---- */

/* The IRQ numbers of /proc/irq, ascending. */
struct irq_list {
	unsigned int *v;
	unsigned int n, alloc;
};

static int add_irq_dir(void *ctx, const char *name)
{
	struct irq_list *l = ctx;
	unsigned long long x = 0;
	size_t len = strlen(name);

	if (!all_digits(name, len) || len > 8)
		return 0;
	for (const char *p = name; *p; p++)
		x = x * 10 + (unsigned long long)(*p - '0');
	if (x >= IRQ_NUM_LIMIT)
		return 0;
	if (l->n == l->alloc) {
		unsigned int na = l->alloc ? l->alloc * 2 : 256;
		unsigned int *nv = reallocarray(l->v, na, sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		l->v = nv;
		l->alloc = na;
	}
	l->v[l->n++] = (unsigned int)x;
	return 0;
}

static int uint_cmp(const void *pa, const void *pb)
{
	unsigned int a = *(const unsigned int *)pa, b = *(const unsigned int *)pb;

	return (a > b) - (a < b);
}

int procirq_numbers(struct source *src, const char *tag, unsigned int **ret_v,
		    unsigned int *ret_n)
{
	struct irq_list dirs = { 0 };
	int r = source_subdirs_tag(src, tag, _PATH_PROC_IRQ, add_irq_dir, &dirs);

	if (r < 0) {
		free(dirs.v);
		return r;
	}
	if (dirs.n)
		qsort(dirs.v, dirs.n, sizeof(*dirs.v), uint_cmp);
	*ret_v = dirs.v;
	*ret_n = dirs.n;
	return 0;
}

static int found_action(void *ctx, const char *name)
{
	(void)name;
	*(bool *)ctx = true;
	return 1;	/* one is enough */
}

int procirq_has_action(struct source *src, const char *tag, unsigned int irq)
{
	char dir[48];
	bool any = false;
	int r;

	snprintf(dir, sizeof(dir), _PATH_PROC_IRQ "/%u", irq);
	r = source_subdirs_tag(src, tag, dir, found_action, &any);
	if (r < 0)
		return r;
	return any;
}

int procirq_effective_cpu(struct source *src, const char *tag, unsigned int irq,
			  struct cpuset *tmp, int *ret_first)
{
	char path[64], buf[4096];
	long n;
	int cpu = 0;

	*ret_first = -1;
	snprintf(path, sizeof(path), _PATH_PROC_IRQ "/%u/effective_affinity_list", irq);
	n = source_read_tag(src, tag, path, buf, sizeof(buf));
	if (n <= 0)
		return -1;
	if (n > 5 || !all_digits(buf, (size_t)n)) {
		cpuset_zero(tmp);
		if (cpulist_parse(buf, tmp) == 0)
			*ret_first = cpuset_first(tmp);
		return -1;
	}
	for (long j = 0; j < n; j++)
		cpu = cpu * 10 + (buf[j] - '0');
	if (cpu >= CPU_ID_LIMIT)
		return -1;
	*ret_first = cpu;
	return cpu;
}


int procfs_parse_cpus_allowed(const char *buf, struct cpuset *set)
{
	static const char key[] = "Cpus_allowed_list:";
	char list[4096];

	for (const char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		size_t n;

		if (strncmp(p, key, sizeof(key) - 1) != 0)
			continue;
		p += sizeof(key) - 1;
		p += strspn(p, " \t");
		n = strcspn(p, "\n");
		if (n == 0 || n >= sizeof(list))
			return -EINVAL;
		memcpy(list, p, n);
		list[n] = '\0';
		cpuset_zero(set);
		return cpulist_parse(list, set);
	}
	return -EINVAL;
}
