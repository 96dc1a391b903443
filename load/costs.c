// SPDX-License-Identifier: GPL-2.0-or-later
/* costs.c - per-event costs measured on this machine, carried from a run
 * that measured to later ones that estimate. The file is small text:
 *
 *	irqtune-costs 1
 *	boot 8e1f...	(/proc/sys/kernel/random/boot_id of the run that wrote it)
 *	time 1796347892	(seconds since the epoch)
 *	hard net 0.61	(microseconds per hard interrupt of that class)
 *	soft NET_RX 14.2	(microseconds per softirq run of that vector)
 *
 * A file that is not exactly that is never trusted. No logging: functions
 * return 0 or -errno, with the reason in the caller's buffer. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "costs.h"
#include "fileio.h"
#include "pathnames.h"
#include "source.h"
#include "strutil.h"

static const char *const class_key[CLASS_NR] = {
	[CLASS_NET] = "net", [CLASS_STORAGE] = "storage", [CLASS_OTHER] = "other",
};

static const char *const vec_key[SOFTIRQ_NR] = {
	[SOFTIRQ_HI] = "HI", [SOFTIRQ_TIMER] = "TIMER", [SOFTIRQ_NET_TX] = "NET_TX",
	[SOFTIRQ_NET_RX] = "NET_RX", [SOFTIRQ_BLOCK] = "BLOCK",
	[SOFTIRQ_IRQ_POLL] = "IRQ_POLL", [SOFTIRQ_TASKLET] = "TASKLET",
	[SOFTIRQ_SCHED] = "SCHED", [SOFTIRQ_HRTIMER] = "HRTIMER", [SOFTIRQ_RCU] = "RCU",
};

/* A cost believed: a nanosecond to a tenth of a second per event. */
static bool sane(double us)
{
	return isfinite(us) && us >= 0.001 && us <= 100000;
}

void costs_from_measure(const struct measure_raw *raw, const struct measure_target *t,
			unsigned int n, const struct estimate_prior *base,
			struct estimate_prior *ret)
{
	double ns[CLASS_NR] = { 0 }, cnt[CLASS_NR] = { 0 };

	*ret = *base;
	for (unsigned int i = 0; i < raw->nr_irqs; i++) {
		int row = measure_find_target(t, n, raw->irqs[i].irq);

		if (row < 0)
			continue;
		ns[t[row].class] += (double)raw->irqs[i].handler_ns;
		cnt[t[row].class] += (double)raw->irqs[i].count;
	}
	for (int k = 0; k < CLASS_NR; k++)
		if (cnt[k] >= COSTS_MIN_EVENTS && sane(ns[k] / cnt[k] / 1000))
			ret->hard_us[k] = ns[k] / cnt[k] / 1000;
	for (int v = 0; v < SOFTIRQ_NR; v++) {
		double sns = 0, sc = 0;

		for (unsigned int c = 0; c < raw->nr_cpus; c++) {
			sns += (double)raw->soft_ns[c][v];
			sc += (double)raw->soft_events[c][v];
		}
		if (sc >= COSTS_MIN_EVENTS && sane(sns / sc / 1000))
			ret->soft_us[v] = sns / sc / 1000;
	}
}

int costs_format(const struct estimate_prior *p, const char *boot_id, double when,
		 char *buf, size_t len)
{
	size_t o;
	int w;

	w = snprintf(buf, len, "irqtune-costs %d\nboot %s\ntime %.0f\n", COSTS_VERSION,
		     boot_id, when);
	if (w < 0 || (size_t)w >= len)
		return -ENOSPC;
	o = (size_t)w;
	for (int k = 0; k < CLASS_NR; k++) {
		w = snprintf(buf + o, len - o, "hard %s %.4f\n", class_key[k], p->hard_us[k]);
		if (w < 0 || (size_t)w >= len - o)
			return -ENOSPC;
		o += (size_t)w;
	}
	for (int v = 0; v < SOFTIRQ_NR; v++) {
		w = snprintf(buf + o, len - o, "soft %s %.4f\n", vec_key[v], p->soft_us[v]);
		if (w < 0 || (size_t)w >= len - o)
			return -ENOSPC;
		o += (size_t)w;
	}
	return 0;
}

static int lookup(const char *const *keys, int nr, const char *word)
{
	for (int i = 0; i < nr; i++)
		if (strcmp(keys[i], word) == 0)
			return i;
	return -1;
}

int costs_parse(const char *text, const char *boot_id, double now,
		const struct estimate_prior *base, struct estimate_prior *ret,
		double *ret_when, char *why, size_t len)
{
	struct estimate_prior p = *base;
	bool have_boot = false, have_time = false;
	double when = 0;
	unsigned int lineno = 0;
	const char *s = text;

	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t l = nl ? (size_t)(nl - s) : strlen(s);
		char line[128], a[32], b[64], c[32], extra[2];
		int k, idx;
		double v;

		lineno++;
		if (!nl || l >= sizeof(line)) {
			snprintf(why, len, "line %u: %s", lineno,
				 nl ? "too long" : "not ended (a truncated file?)");
			return -EINVAL;
		}
		memcpy(line, s, l);
		line[l] = '\0';
		s = nl + 1;
		k = sscanf(line, "%31s %63s %31s %1s", a, b, c, extra);
		if (lineno == 1) {
			int ver;

			if (k != 2 || strcmp(a, "irqtune-costs") != 0 ||
			    parse_int(b, 1, 1000000, &ver) < 0) {
				snprintf(why, len, "not an irqtune costs file");
				return -EINVAL;
			}
			if (ver != COSTS_VERSION) {
				snprintf(why, len, "version %d, %s", ver, ver > COSTS_VERSION ?
					 "written by a newer irqtune" : "not this irqtune's");
				return -EINVAL;
			}
			continue;
		}
		if (k == 2 && strcmp(a, "boot") == 0 && !have_boot) {
			if (strcmp(b, boot_id) != 0) {
				snprintf(why, len, "written on another boot");
				return -ESTALE;
			}
			have_boot = true;
			continue;
		}
		if (k == 2 && strcmp(a, "time") == 0 && !have_time) {
			char *end;

			when = strtod(b, &end);
			if (*end || !isfinite(when)) {
				snprintf(why, len, "line %u: time '%s' is not a number", lineno, b);
				return -EINVAL;
			}
			have_time = true;
			continue;
		}
		if (k == 3 && (strcmp(a, "hard") == 0 || strcmp(a, "soft") == 0)) {
			bool hard = a[0] == 'h';
			char *end;

			idx = hard ? lookup(class_key, CLASS_NR, b) : lookup(vec_key, SOFTIRQ_NR, b);
			v = strtod(c, &end);
			if (idx < 0 || *end || !sane(v)) {
				snprintf(why, len, "line %u: '%s' is not a cost", lineno, line);
				return -EINVAL;
			}
			if (hard)
				p.hard_us[idx] = v;
			else
				p.soft_us[idx] = v;
			continue;
		}
		snprintf(why, len, "line %u: '%s' is not understood", lineno, line);
		return -EINVAL;
	}
	if (lineno == 0 || !have_boot || !have_time) {
		snprintf(why, len, "%s", lineno == 0 ? "empty" : "no boot id or time in it");
		return -EINVAL;
	}
	if (when > now + 60 || when < now - COSTS_MAX_AGE) {
		snprintf(why, len, "%s", when > now ? "written in the future" : "older than a day");
		return -ESTALE;
	}
	*ret = p;
	if (ret_when)
		*ret_when = when;
	return 0;
}

int costs_load(const char *path, const char *boot_id, double now,
	       const struct estimate_prior *base, struct estimate_prior *ret,
	       double *ret_when, char *why, size_t len)
{
	return costs_load_from(NULL, path, boot_id, now, base, ret, ret_when, why, len);
}

int costs_load_from(struct source *src, const char *path, const char *boot_id, double now,
		    const struct estimate_prior *base, struct estimate_prior *ret,
		    double *ret_when, char *why, size_t len)
{
	char text[COSTS_FILE_MAX + 1];
	long r = source_read_own(src, path, text, sizeof(text), why, len);

	if (r < 0)
		return (int)r;
	return costs_parse(text, boot_id, now, base, ret, ret_when, why, len);
}

int costs_save(const char *path, const struct estimate_prior *p,
	       const char *boot_id, double when)
{
	char text[COSTS_FILE_MAX];
	int r;

	r = costs_format(p, boot_id, when, text, sizeof(text));
	if (r < 0)
		return r;
	return write_own_file(path, text, strlen(text));
}

int costs_boot_id(char *buf, size_t len)
{
	return costs_boot_id_from(NULL, buf, len);
}

int costs_boot_id_from(struct source *src, char *buf, size_t len)
{
	long r = source_read(src, _PATH_BOOT_ID, buf, len);

	return r < 0 ? (int)r : 0;
}

int costs_read(struct source *src, const char *path, double now, char *boot, size_t boot_len,
	       struct estimate_prior *ret, double *ret_when, char *why, size_t why_len)
{
	struct estimate_prior base;

	if (costs_boot_id_from(src, boot, boot_len) < 0) {
		boot[0] = '\0';
		return -ENOENT;
	}
	estimate_default_prior(&base);
	return costs_load_from(src, path, boot, now, &base, ret, ret_when, why, why_len);
}

int costs_record(const char *path, const struct measure_raw *raw,
		 const struct measure_target *t, unsigned int n,
		 const struct estimate_prior *prev, const char *boot, double now)
{
	struct estimate_prior base, got;

	if (!boot[0] || !raw)
		return 0;
	estimate_default_prior(&base);
	costs_from_measure(raw, t, n, prev ? prev : &base, &got);
	return costs_save(path, &got, boot, now);
}
