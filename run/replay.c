// SPDX-License-Identifier: GPL-2.0-or-later
/* replay.c - the run record of a capture (its meta member, the
 * configuration file read, the kernel program's measurement), to text and
 * back. Written by open_memstream(3), read a line at a time with strict
 * number parsing. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "config.h"
#include "cpuset.h"
#include "fileio.h"
#include "replay.h"
#include "source.h"
#include "strutil.h"

/* No machine has more IRQ-and-CPU pairs than this; corrupt input might. */
#define MEASURE_ROWS_MAX	(1u << 22)

static int parse_double(const char *s, double *ret)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < 0)
		return -EINVAL;
	*ret = v;
	return 0;
}

static int parse_u64_field(const char *s, uint64_t *ret)
{
	return parse_u64(s, UINT64_MAX, ret);
}

int replay_format_measure(const struct measure_raw *raw, char **ret, size_t *ret_len)
{
	char *text = NULL, name[4 * MEASURE_NAME_LEN + 1];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return -ENOMEM;
	fputs("# irqtune measure: what the kernel program summed\n", f);
	fprintf(f, "window %.9f\nuse_ctx %d\ncpus %u\ndropped %llu\nmissed %llu\n",
		raw->window, raw->use_ctx ? 1 : 0, raw->nr_cpus,
		(unsigned long long)raw->dropped, (unsigned long long)raw->missed);
	fputs("# soft CPU NS[HI..RCU] EVENTS[HI..RCU]\n", f);
	for (unsigned int c = 0; c < raw->nr_cpus; c++) {
		fprintf(f, "soft %u", c);
		for (int v = 0; v < MEASURE_NR_SOFTIRQS; v++)
			fprintf(f, " %llu", (unsigned long long)raw->soft_ns[c][v]);
		for (int v = 0; v < MEASURE_NR_SOFTIRQS; v++)
			fprintf(f, " %llu", (unsigned long long)raw->soft_events[c][v]);
		fputc('\n', f);
	}
	fputs("# irq IRQ CPU HANDLER_NS CTX_NS COUNT NAME\n", f);
	for (unsigned int i = 0; i < raw->nr_irqs; i++) {
		const struct measure_irq *m = &raw->irqs[i];

		str_escape_field(name, sizeof(name), m->name);
		fprintf(f, "irq %u %u %llu %llu %llu %s\n", m->irq, m->cpu,
			(unsigned long long)m->handler_ns, (unsigned long long)m->ctx_ns,
			(unsigned long long)m->count, name);
	}
	fputs("# napi CPU IRQ NS POLLS DEV\n", f);
	for (unsigned int i = 0; i < raw->nr_napi; i++) {
		const struct measure_napi *n = &raw->napi[i];

		str_escape_field(name, sizeof(name), n->dev);
		fprintf(f, "napi %u %d %llu %llu %s\n", n->cpu, n->irq,
			(unsigned long long)n->ns, (unsigned long long)n->polls, name);
	}
	/* Only where there is something: older captures read the same. */
	if (raw->threads_timed)
		fputs("threads_timed 1\n", f);
	if (raw->nr_threads)
		fputs("# thread IRQ CPU NS RUNS\n", f);
	for (unsigned int i = 0; i < raw->nr_threads; i++) {
		const struct measure_thread *t = &raw->threads[i];

		fprintf(f, "thread %u %u %llu %llu\n", t->irq, t->cpu,
			(unsigned long long)t->ns, (unsigned long long)t->runs);
	}
	/* Only where counted: a capture without them replays as before. */
	if (raw->app_timed) {
		fprintf(f, "# app CPU NS RUNS: pinned application threads, app_cpus: "
			"allowed on fewer CPUs than this\napp_cpus %u\n", raw->app_cpus);
		for (unsigned int c = 0; c < raw->nr_cpus; c++)
			if (raw->app_ns[c] || raw->app_runs[c])
				fprintf(f, "app %u %llu %llu\n", c,
					(unsigned long long)raw->app_ns[c],
					(unsigned long long)raw->app_runs[c]);
	}
	if (raw->probe.hard > 0 || raw->probe.ctx > 0 || raw->probe.soft > 0 ||
	    raw->probe.napi > 0 || raw->probe.thread > 0)
		fprintf(f, "# probe HARD CTX SOFT NAPI THREAD: ns per event\n"
			"probe %.17g %.17g %.17g %.17g %.17g\n", raw->probe.hard, raw->probe.ctx,
			raw->probe.soft, raw->probe.napi, raw->probe.thread);
	if (fclose(f) != 0) {
		free(text);
		return -ENOMEM;
	}
	*ret = text;
	*ret_len = len;
	return 0;
}

/* Room for one more of @n elements of @size in *@p (capacity *@cap). */
static int grow(void **p, unsigned int n, unsigned int *cap, size_t size)
{
	void *q;
	unsigned int c;

	if (n < *cap)
		return 0;
	if (n >= MEASURE_ROWS_MAX)
		return -EINVAL;
	c = *cap ? *cap * 2 : 64;
	q = realloc(*p, c * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

/* A line before "cpus": the header of the measurement. */
static int measure_head(struct measure_raw **rawp, char **fv, unsigned int n, double *window,
			int *use_ctx, uint64_t *dropped, uint64_t *missed)
{
	int cpus;

	if (n != 2)
		return -EINVAL;
	if (strcmp(fv[0], "window") == 0)
		return parse_double(fv[1], window);
	if (strcmp(fv[0], "use_ctx") == 0)
		return parse_int(fv[1], 0, 1, use_ctx);
	if (strcmp(fv[0], "dropped") == 0)
		return parse_u64_field(fv[1], dropped);
	if (strcmp(fv[0], "missed") == 0)
		return parse_u64_field(fv[1], missed);
	if (strcmp(fv[0], "cpus") != 0 || parse_int(fv[1], 0, CPU_ID_LIMIT, &cpus) < 0)
		return -EINVAL;
	*rawp = measure_raw_new((unsigned int)cpus);
	return *rawp ? 0 : -ENOMEM;
}

/* "irq IRQ CPU HANDLER_NS CTX_NS COUNT NAME" */
static int measure_irq_line(struct measure_raw *raw, char **fv)
{
	struct measure_irq *m;
	uint64_t v[5];
	int r;

	for (int k = 0; k < 5; k++)
		if (parse_u64_field(fv[1 + k], &v[k]) < 0)
			return -EINVAL;
	if (v[0] >= IRQ_NUM_LIMIT || v[1] >= CPU_ID_LIMIT)
		return -EINVAL;
	r = grow((void **)&raw->irqs, raw->nr_irqs, &raw->cap_irqs, sizeof(*raw->irqs));
	if (r < 0)
		return r;
	m = &raw->irqs[raw->nr_irqs];
	memset(m, 0, sizeof(*m));
	m->irq = (unsigned int)v[0];
	m->cpu = (unsigned int)v[1];
	m->handler_ns = v[2];
	m->ctx_ns = v[3];
	m->count = v[4];
	if (capture_unescape(fv[6], m->name, sizeof(m->name)) < 0)
		return -EINVAL;
	raw->nr_irqs++;
	return 0;
}

/* "thread IRQ CPU NS RUNS" */
static int measure_thread_line(struct measure_raw *raw, char **fv)
{
	struct measure_thread *q;
	uint64_t v[4];
	int r;

	for (int k = 0; k < 4; k++)
		if (parse_u64_field(fv[1 + k], &v[k]) < 0)
			return -EINVAL;
	if (v[0] >= IRQ_NUM_LIMIT || v[1] >= CPU_ID_LIMIT)
		return -EINVAL;
	r = grow((void **)&raw->threads, raw->nr_threads, &raw->cap_threads,
		 sizeof(*raw->threads));
	if (r < 0)
		return r;
	q = &raw->threads[raw->nr_threads++];
	*q = (struct measure_thread){ .irq = (unsigned int)v[0], .cpu = (unsigned int)v[1],
				      .ns = v[2], .runs = v[3] };
	return 0;
}

/* "napi CPU IRQ NS POLLS DEV" */
static int measure_napi_line(struct measure_raw *raw, char **fv)
{
	struct measure_napi *q;
	uint64_t v[3];
	int irq, r;

	if (parse_u64_field(fv[1], &v[0]) < 0 || v[0] >= CPU_ID_LIMIT ||
	    parse_int(fv[2], -1, (int)IRQ_NUM_LIMIT - 1, &irq) < 0 ||
	    parse_u64_field(fv[3], &v[1]) < 0 || parse_u64_field(fv[4], &v[2]) < 0)
		return -EINVAL;
	r = grow((void **)&raw->napi, raw->nr_napi, &raw->cap_napi, sizeof(*raw->napi));
	if (r < 0)
		return r;
	q = &raw->napi[raw->nr_napi];
	memset(q, 0, sizeof(*q));
	q->cpu = (unsigned int)v[0];
	q->irq = irq;
	q->ns = v[1];
	q->polls = v[2];
	if (capture_unescape(fv[5], q->dev, sizeof(q->dev)) < 0)
		return -EINVAL;
	raw->nr_napi++;
	return 0;
}

static int measure_line(struct measure_raw **rawp, char *line, double *window,
			int *use_ctx, uint64_t *dropped, uint64_t *missed)
{
	char *fv[2 * MEASURE_NR_SOFTIRQS + 3];
	unsigned int n = capture_split(line, fv, sizeof(fv) / sizeof(fv[0]));
	struct measure_raw *raw = *rawp;

	if (n == 0)
		return -EINVAL;
	if (!raw)
		return measure_head(rawp, fv, n, window, use_ctx, dropped, missed);
	if (strcmp(fv[0], "dropped") == 0 && n == 2)
		return parse_u64_field(fv[1], &raw->dropped);
	if (strcmp(fv[0], "missed") == 0 && n == 2)
		return parse_u64_field(fv[1], &raw->missed);
	if (strcmp(fv[0], "soft") == 0 && n == 2 * MEASURE_NR_SOFTIRQS + 2) {
		int c;

		if (parse_int(fv[1], 0, (int)raw->nr_cpus - 1, &c) < 0)
			return -EINVAL;
		for (int k = 0; k < MEASURE_NR_SOFTIRQS; k++)
			if (parse_u64_field(fv[2 + k], &raw->soft_ns[c][k]) < 0 ||
			    parse_u64_field(fv[2 + MEASURE_NR_SOFTIRQS + k],
					    &raw->soft_events[c][k]) < 0)
				return -EINVAL;
		return 0;
	}
	if (strcmp(fv[0], "irq") == 0 && n == 7)
		return measure_irq_line(raw, fv);
	if (strcmp(fv[0], "threads_timed") == 0 && n == 2) {
		int t;

		if (parse_int(fv[1], 0, 1, &t) < 0)
			return -EINVAL;
		raw->threads_timed = t;
		return 0;
	}
	if (strcmp(fv[0], "thread") == 0 && n == 5)
		return measure_thread_line(raw, fv);
	if (strcmp(fv[0], "app_cpus") == 0 && n == 2) {
		int c;

		/* parse_int() holds only negative numbers to @min */
		if (parse_int(fv[1], 1, CPU_ID_LIMIT, &c) < 0 || c < 1)
			return -EINVAL;
		raw->app_timed = true;
		raw->app_cpus = (unsigned int)c;
		return 0;
	}
	if (strcmp(fv[0], "app") == 0 && n == 4) {
		int c;

		if (!raw->app_timed || parse_int(fv[1], 0, (int)raw->nr_cpus - 1, &c) < 0 ||
		    parse_u64_field(fv[2], &raw->app_ns[c]) < 0 ||
		    parse_u64_field(fv[3], &raw->app_runs[c]) < 0)
			return -EINVAL;
		return 0;
	}
	if (strcmp(fv[0], "probe") == 0 && n == 6) {
		double *p[] = { &raw->probe.hard, &raw->probe.ctx, &raw->probe.soft,
				&raw->probe.napi, &raw->probe.thread };

		for (int k = 0; k < 5; k++)
			if (parse_double(fv[1 + k], p[k]) < 0 || !(*p[k] >= 0) || *p[k] > 1e6)
				return -EINVAL;
		return 0;
	}
	if (strcmp(fv[0], "napi") == 0 && n == 6)
		return measure_napi_line(raw, fv);
	return -EINVAL;
}

int replay_parse_measure(const char *text, struct measure_raw **ret,
			 unsigned int *ret_line)
{
	char *copy = strdup(text), *line, *save = NULL;
	struct measure_raw *raw = NULL;
	unsigned int nr = 0;
	double window = 0;
	int use_ctx = 0, r = 0;
	uint64_t dropped = 0, missed = 0;

	if (!copy)
		return -ENOMEM;
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		nr++;
		if (line[0] == '#')
			continue;
		r = measure_line(&raw, line, &window, &use_ctx, &dropped, &missed);
		if (r < 0)
			break;
	}
	free(copy);
	if (r == 0 && (!raw || window <= 0))
		r = -EINVAL;
	if (r < 0) {
		if (ret_line)
			*ret_line = r == -EINVAL ? nr : 0;
		measure_raw_free(raw);
		return r;
	}
	raw->window = window;
	raw->use_ctx = use_ctx;
	if (dropped)
		raw->dropped = dropped;
	if (missed)
		raw->missed = missed;
	*ret = raw;
	return 0;
}

void replay_keep_measure(struct source *fs, const struct measure_raw *raw)
{
	char *text;
	size_t len;

	if (!fs || fs->mode != SOURCE_RECORD || !raw)
		return;
	if (replay_format_measure(raw, &text, &len) < 0) {
		fs->err = fs->err ? fs->err : -ENOMEM;
		return;
	}
	source_keep(fs, REPLAY_MEASURE, text, len);
	free(text);
}

void replay_meta_host(struct replay_meta *m)
{
	if (uname(&m->uts) < 0)
		memset(&m->uts, 0, sizeof(m->uts));
	memset(m->hostname, 0, sizeof(m->hostname));
	gethostname(m->hostname, sizeof(m->hostname) - 1);
	m->hz = sysconf(_SC_CLK_TCK);
}

/* The meta member's text. 0 or -ENOMEM. */
static int replay_format_meta(const struct replay_meta *m, char **ret, size_t *ret_len)
{
	char *text = NULL, esc[4 * 1024];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return -ENOMEM;
	fprintf(f, "format %s\nversion %d\nirqtune %s\n", CAPTURE_FORMAT, CAPTURE_VERSION,
		IRQTUNE_VERSION);
	fprintf(f, "kernel %s %s %s\nhostname %s\ntime %.0f\n", m->uts.sysname,
		m->uts.release, m->uts.machine, m->hostname, m->started);
	fputs("command", f);
	for (int i = 0; i < m->argc; i++) {
		str_escape_field(esc, sizeof(esc), m->argv[i]);
		fprintf(f, " %s", esc);
	}
	fprintf(f, "\nstatus %d\nhz %ld\nwindow %.17g\n", m->status, m->hz, m->window);
	for (int n = 0; n < 4; n++)
		if (m->when[n] > 0)
			fprintf(f, "snapshot-%d %.17g\n", n + 1, m->when[n]);
	if (m->when[0] > 0)
		fprintf(f, "counts %s\ncounts-reason %s\n", m->counts, m->counts_reason);
	if (m->load_wanted) {
		fprintf(f, "load-source-wanted %s\n", m->load_wanted);
		fprintf(f, "load-source-begin %s\n", m->load_begin);
		fprintf(f, "load-source %s\n", m->load_used);
		fprintf(f, "load-source-reason %s\n", m->load_reason);
	}
	if (m->costs_now > 0)
		fprintf(f, "costs-now %.17g\n", m->costs_now);
	if (fclose(f) != 0) {
		free(text);
		return -ENOMEM;
	}
	*ret = text;
	*ret_len = len;
	return 0;
}

int replay_keep_meta(struct source *fs, const struct replay_meta *m)
{
	char *text;
	size_t len;
	int r = replay_format_meta(m, &text, &len);

	if (r < 0)
		return r;
	source_keep(fs, CAPTURE_META, text, len);
	free(text);
	return 0;
}

const char *replay_meta_get(struct capture *cap, const char *key, char *buf, size_t len)
{
	return capture_field(cap ? capture_get(cap, CAPTURE_META) : NULL, key, buf, len);
}

int replay_meta_double(struct capture *cap, const char *key, double *ret)
{
	char buf[64], *end;
	double v;

	if (!replay_meta_get(cap, key, buf, sizeof(buf)))
		return -ENOENT;
	errno = 0;
	v = strtod(buf, &end);
	if (errno || end == buf || *end || !isfinite(v))
		return -EINVAL;
	*ret = v;
	return 0;
}

int replay_meta_hz(struct capture *cap, long *ret)
{
	double hz;

	if (replay_meta_double(cap, "hz", &hz) < 0 || hz < 1 || hz > 100000 || hz != floor(hz))
		return -EINVAL;
	*ret = (long)hz;
	return 0;
}

void replay_keep_config(struct source *fs, const char *path)
{
	char *text = NULL;
	size_t len = 0;
	FILE *in, *out;
	char buf[4096];
	size_t n;

	if (!fs || fs->mode != SOURCE_RECORD || !(in = fopen(path, "re")))
		return;
	out = open_memstream(&text, &len);
	if (out) {
		while ((n = fread(buf, 1, sizeof(buf), in)) > 0 && len < CAPTURE_MEMBER_MAX)
			fwrite(buf, 1, n, out);
		if (fclose(out) == 0)
			source_keep(fs, REPLAY_CONFIG, text, len);
	}
	free(text);
	fclose(in);
}

int replay_config(struct capture *cap, struct config *cfg, struct config_error *err)
{
	const struct capture_member *m = capture_get(cap, REPLAY_CONFIG);
	FILE *f;
	int r;

	if (!m || !m->data)
		return 0;
	f = fmemopen(m->data, m->len, "r");
	if (!f)
		return -ENOMEM;
	r = config_parse(f, cfg, err);
	fclose(f);
	return r;
}
