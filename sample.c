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

static inline bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline const char *skip_blanks(const char *p)
{
	while (is_blank(*p))
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
	if (*s && !is_blank(*s))
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

	while (*q && !is_blank(*q) && *q != ':')
		q++;
	if (*q != ':' || q == s)
		return -EINVAL;
	*ret_key = s;
	*ret_len = (size_t)(q - s);
	*p = q + 1;
	return 0;
}

static bool all_digits(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!is_digit(s[i]))
			return false;
	return len > 0;
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
		while (*p && !is_blank(*p))
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

		while (*p && !is_blank(*p))
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
	while (len > 0 && is_blank(s[len - 1]))
		len--;
	return strndup(s, len);
}

struct parsed_row {
	struct irq_row row;
	unsigned int line;	/* for the error of a duplicate found late */
};

static void irq_row_release(struct irq_row *row)
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
		       (p[ZERO_RUN_LEN] == '\0' || is_blank(p[ZERO_RUN_LEN]))) {
			p += ZERO_RUN_LEN;
			col += ZERO_RUN;
		}
		if (col == nr_cols)
			break;
		p = skip_count_blanks(p, end);
		/* The common count, without the general scan. */
		if (p[0] == '0' && (p[1] == '\0' || is_blank(p[1]))) {
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

int interrupts_parse(FILE *f, struct interrupts **ret, unsigned int *ret_line)
{
	struct parsed_row *parsed = NULL;
	struct interrupts *intr = NULL;
	struct cpu_count *scratch = NULL;
	unsigned int *cols = NULL, nr_cols = 0, n = 0, alloc = 0, i;
	struct line_reader lr;
	struct line l;
	bool sorted = true;
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
		const char *p = l.s, *key;
		size_t key_len;
		uint64_t irq;

		if (!line_ok(&l)) {
			r = -EINVAL;
			goto out;
		}
		if (!*skip_blanks(p))
			continue;
		r = scan_key(&p, &key, &key_len);
		if (r < 0)
			goto out;
		/* NMI, LOC, IPIn, ERR, I/O, ...: per-CPU events, not IRQs. */
		if (!all_digits(key, key_len))
			continue;
		/* Keeps the sum below from overflowing; the limit has 8. */
		if (key_len > 10) {
			r = -EINVAL;
			goto out;
		}
		for (irq = 0, p = key; p < key + key_len; p++)
			irq = irq * 10 + (uint64_t)(*p - '0');
		/* More rows than IRQ numbers can be told apart: one is a
		 * duplicate, and the count must not grow without bound. */
		if (irq > IRQ_NUM_LIMIT || n > IRQ_NUM_LIMIT) {
			r = -EINVAL;
			goto out;
		}
		if (n == alloc) {
			unsigned int na = alloc ? alloc * 2 : 256;
			struct parsed_row *np;

			np = reallocarray(parsed, na, sizeof(*parsed));
			if (!np) {
				r = -ENOMEM;
				goto out;
			}
			parsed = np;
			alloc = na;
		}
		r = parse_irq_row(key + key_len + 1, l.s + l.len,
				  (unsigned int)irq, cols, nr_cols, scratch,
				  &parsed[n].row);
		if (r < 0)
			goto out;
		parsed[n].line = lr.lineno;
		if (n > 0 && parsed[n].row.irq < parsed[n - 1].row.irq)
			sorted = false;
		n++;
	}
	if (r < 0)
		goto out;

	if (!sorted)
		qsort(parsed, n, sizeof(*parsed), parsed_row_cmp);
	for (i = 1; i < n; i++) {
		if (parsed[i].row.irq == parsed[i - 1].row.irq) {
			lr.lineno = parsed[i].line;
			r = -EINVAL;
			goto out;
		}
	}

	intr = calloc(1, sizeof(*intr));
	if (!intr) {
		r = -ENOMEM;
		goto out;
	}
	intr->rows = malloc((n ? n : 1) * sizeof(*intr->rows));
	if (!intr->rows) {
		free(intr);
		r = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++)
		intr->rows[i] = parsed[i].row;
	intr->nr_rows = n;
	intr->nr_cols = nr_cols;
	intr->col_cpu = cols;
	cols = NULL;
	n = 0;		/* the rows now belong to intr */
	*ret = intr;
	r = 0;
out:
	if (r == -EINVAL && ret_line)
		*ret_line = lr.lineno;
	for (i = 0; i < n; i++)
		irq_row_release(&parsed[i].row);
	free(parsed);
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

static int found_action(void *ctx, const char *name)
{
	(void)name;
	*(bool *)ctx = true;
	return 1;	/* one is enough */
}

/* The one CPU of /proc/irq/N/effective_affinity_list; -1 when it names
 * several, none, or cannot be read. The first CPU it names in *@ret_first
 * (-1: none, or not a cpulist), as the device scan would take it. */
static int effective_cpu(struct source *src, const char *tag, unsigned int irq,
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

int snapshot_take_stat(struct snapshot *snap, struct source *src, const char *tag,
		       const struct snapshot *prev, const char **ret_path,
		       unsigned int *ret_line)
{
	struct snapshot s = { .input = SNAPSHOT_STAT };
	struct irq_totals t = { 0 };
	struct irq_list dirs = { 0 };
	struct interrupts *intr = NULL;
	struct cpuset *tmp = NULL;
	unsigned int i = 0, k = 0, alloc = 0, line = 0, bad = 0;
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
	r = stat_parse_totals(f, &s.stats, &t, &line);
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
	intr = calloc(1, sizeof(*intr));
	tmp = cpuset_new(CPU_ID_LIMIT);
	if (!intr || !tmp) {
		free(intr);
		intr = NULL;
		goto fail;
	}
	s.intr = intr;
	/* The columns /proc/interrupts would have: the online CPUs, which
	 * are /proc/stat's cpuN lines (both list online CPUs only). */
	intr->col_cpu = malloc((s.stats.nr_ids ? s.stats.nr_ids : 1) * sizeof(*intr->col_cpu));
	if (!intr->col_cpu)
		goto fail;
	for (unsigned int c = 0; c < s.stats.nr_ids; c++)
		if (s.stats.cpu[c].seen & SAMPLE_SEEN_STAT)
			intr->col_cpu[intr->nr_cols++] = c;
	r = source_subdirs_tag(src, tag, _PATH_PROC_IRQ, add_irq_dir, &dirs);
	if (r < 0)
		goto fail;
	if (dirs.n)
		qsort(dirs.v, dirs.n, sizeof(*dirs.v), uint_cmp);

	/* The rows /proc/interrupts would show: an IRQ with a handler, or
	 * with counts (Linux's show_interrupts()). Numbers of the intr line
	 * with counts, merged with those of /proc/irq. */
	for (;;) {
		unsigned int irq;
		uint64_t total;
		bool listed = false;
		int cpu = -1, first = -1;

		while (k < t.nr && t.total[k] == 0)
			k++;
		if (i < dirs.n && (k >= t.nr || dirs.v[i] <= k)) {
			irq = dirs.v[i++];
			listed = true;
			while (i < dirs.n && dirs.v[i] == irq)
				i++;
			if (k == irq)
				k++;
		} else if (k < t.nr) {
			irq = k++;
		} else {
			break;
		}
		total = irq < t.nr ? t.total[irq] : 0;
		if (total == 0) {
			char dir[48];
			bool any = false;

			if (!listed)
				continue;
			snprintf(dir, sizeof(dir), _PATH_PROC_IRQ "/%u", irq);
			r = source_subdirs_tag(src, tag, dir, found_action, &any);
			if (r < 0)
				goto fail;
			if (!any)
				continue;
		}
		cpu = effective_cpu(src, tag, irq, tmp, &first);
		if (prev) {
			const struct irq_row *pr = interrupts_find(prev->intr, irq);

			/* Counts pair with the first snapshot's only when they
			 * were all on one CPU, the same then and now; a count
			 * that did not move stays where it was counted. */
			if (pr && pr->total == total) {
				cpu = pr->nr_counts ? (int)pr->counts[0].cpu : -1;
			} else if (pr) {
				if (total < pr->total || cpu < 0 || !pr->nr_counts ||
				    pr->counts[0].cpu != (unsigned int)cpu) {
					bad = irq + 1;
					break;
				}
			}
		}
		if (intr->nr_rows == alloc) {
			unsigned int na = alloc ? alloc * 2 : 256;
			struct irq_row *nr = reallocarray(intr->rows, na, sizeof(*nr));

			r = -ENOMEM;
			if (!nr)
				goto fail;
			intr->rows = nr;
			alloc = na;
		}
		r = stat_row(&intr->rows[intr->nr_rows], irq, total, cpu, first);
		if (r < 0)
			goto fail;
		intr->nr_rows++;
	}
	if (bad) {
		r = -EDOM;
		line = bad - 1;
		goto fail;
	}
	intr->effective_read = prev != NULL;
	cpuset_free(tmp);
	free(t.total);
	free(dirs.v);
	*snap = s;
	return 0;
fail:
	cpuset_free(tmp);
	free(t.total);
	free(dirs.v);
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
		sample_sleep(w->seconds);
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
