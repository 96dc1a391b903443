// SPDX-License-Identifier: GPL-2.0-or-later
/* config.c - /etc/irqtune.conf, read with inih. inih splits lines into
 * sections and key = value pairs; everything irqtune-specific (which keys
 * exist, what their values mean, what may repeat) is checked here. inih
 * reports only the line of its own syntax errors, so lines are read through
 * a counting reader that also refuses lines too long for inih's buffer
 * instead of letting it split them silently. */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <ini.h>

#include "config.h"
#include "fileio.h"
#include "procfs.h"	/* IRQ_NUM_LIMIT */
#include "strutil.h"

/* inih's line buffer (INI_MAX_LINE, 200 in Debian's build) holds the text,
 * "\r\n" and the NUL. */
#define INIH_TEXT_MAX	197

struct parse {
	FILE *f;
	struct config *cfg;
	struct config_error *err;
	unsigned int line;		/* of the line inih works on */
	unsigned int err_line;		/* first error we found, 0: none */
	int r;				/* -ENOMEM wins over -EINVAL */
	char *buf;			/* getline's */
	size_t cap;
};

static const char *const class_section[CLASS_NR] = {
	[CLASS_NET] = "net",
	[CLASS_STORAGE] = "storage",
	[CLASS_OTHER] = "other",
};

void config_init(struct config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->threshold = -1;
	cfg->app_weight = -1;
}

void config_take_banirq(struct config *cfg, unsigned int *irqs, unsigned int nr)
{
	free(cfg->banirq);
	for (unsigned int i = 0; i < cfg->nr_banname; i++)
		free(cfg->banname[i]);
	free(cfg->banname);
	cfg->banname = NULL;
	cfg->nr_banname = 0;
	cfg->banirq = irqs;
	cfg->nr_banirq = nr;
}

void config_release(struct config *cfg)
{
	if (!cfg)
		return;
	cpuset_free(cfg->bancpus);
	free(cfg->banirq);
	for (unsigned int i = 0; i < cfg->nr_banname; i++)
		free(cfg->banname[i]);
	free(cfg->banname);
	for (int c = 0; c < CLASS_NR; c++)
		cpuset_free(cfg->class_cpus[c]);
	free(cfg->irqbalance_env);
	free(cfg->metrics_file);
	free(cfg->state_dir);
	cpuset_free(cfg->avoidcpus);
	free(cfg->kubelet_state);
	config_init(cfg);
}

__attribute__((format(printf, 2, 3)))
static int fail(struct parse *p, const char *fmt, ...)
{
	va_list ap;

	if (p->err_line == 0) {
		p->err_line = p->line;
		p->err->line = p->line;
		va_start(ap, fmt);
		vsnprintf(p->err->msg, sizeof(p->err->msg), fmt, ap);
		va_end(ap);
	}
	if (p->r == 0)
		p->r = -EINVAL;
	return 0;	/* inih: the handler failed */
}

static int oom(struct parse *p)
{
	p->r = -ENOMEM;
	return fail(p, "out of memory");
}

/* fgets() for inih that counts lines and refuses what inih would split. */
static char *reader(char *str, int num, void *stream)
{
	struct parse *p = stream;
	ssize_t n = getline(&p->buf, &p->cap, p->f);
	size_t len, start = 0;

	if (n < 0)
		return NULL;
	p->line++;
	len = (size_t)n;
	if (len > 0 && p->buf[len - 1] == '\n')
		len--;
	if (len > 0 && p->buf[len - 1] == '\r')
		len--;
	/* Indentation means nothing here; to inih it would make the line a
	 * continuation of the previous value. */
	while (len > 0 && (p->buf[start] == ' ' || p->buf[start] == '\t')) {
		start++;
		len--;
	}
	if (memchr(p->buf + start, '\0', len)) {
		fail(p, "a NUL byte in the line");
		len = 0;
	} else if (len > INIH_TEXT_MAX || len + 3 > (size_t)num) {
		fail(p, "line too long (at most %d characters)", INIH_TEXT_MAX);
		len = 0;
	}
	/* An error line is handed on empty, so inih goes on quietly. */
	memcpy(str, p->buf + start, len);
	str[len] = '\n';
	str[len + 1] = '\0';
	return str;
}

static int parse_double(const char *s, double *ret)
{
	char *end;
	double d;

	if (!*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	d = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(d))
		return -EINVAL;
	*ret = d;
	return 0;
}

static bool once(struct parse *p, const char *key, unsigned int *line)
{
	if (*line) {
		fail(p, "'%s' given twice (first on line %u)", key, *line);
		return false;
	}
	*line = p->line;
	return true;
}

static int set_window(struct parse *p, const char *v)
{
	double d;

	if (!once(p, "window", &p->cfg->line_window))
		return 0;
	if (parse_double(v, &d) < 0 || d <= 0 || d > CONFIG_WINDOW_MAX)
		return fail(p, "window '%s': not a number of seconds above 0 and at most %g",
			    v, CONFIG_WINDOW_MAX);
	p->cfg->window = d;
	return 1;
}

static int set_threshold(struct parse *p, const char *v)
{
	size_t len = strlen(v);
	char num[32];
	double d;

	if (!once(p, "threshold", &p->cfg->line_threshold))
		return 0;
	if (len < 2 || len >= sizeof(num) || v[len - 1] != '%')
		return fail(p, "threshold '%s': give a percentage, e.g. 10%%", v);
	memcpy(num, v, len - 1);
	num[len - 1] = '\0';
	if (parse_double(num, &d) < 0 || d < 0 || d > 100)
		return fail(p, "threshold '%s': not a percentage from 0%% to 100%%", v);
	p->cfg->threshold = d / 100;
	return 1;
}

static int parse_cpus(struct parse *p, const char *key, const char *v,
		      struct cpuset **ret)
{
	struct cpuset *set = cpuset_new(CPU_ID_LIMIT);
	int r;

	if (!set)
		return oom(p);
	r = cpulist_parse(v, set);
	if (r < 0) {
		cpuset_free(set);
		return fail(p, "%s '%s': %s", key, v, r == -ERANGE ?
			    "CPU id out of range" : "not a cpulist (e.g. 0,4-7)");
	}
	*ret = set;
	return 1;
}

/* bancpus and avoid-cpus may repeat: the sets add up. */
static int add_cpus(struct parse *p, const char *key, const char *v, struct cpuset **to)
{
	struct cpuset *set;

	if (!parse_cpus(p, key, v, &set))
		return 0;
	if (!*to) {
		*to = set;
		return 1;
	}
	cpuset_or(*to, set);
	cpuset_free(set);
	return 1;
}

static int add_banirq(struct parse *p, const char *tok)
{
	struct config *cfg = p->cfg;
	uint64_t irq;

	if (all_digits(tok, strlen(tok))) {
		unsigned int *v;

		if (parse_u64(tok, IRQ_NUM_LIMIT - 1, &irq) < 0)
			return fail(p, "banirq '%s': not an IRQ number", tok);
		if (cfg->nr_banirq >= CONFIG_LIST_MAX)
			return fail(p, "banirq: more than %d IRQ numbers", CONFIG_LIST_MAX);
		v = realloc(cfg->banirq, (cfg->nr_banirq + 1) * sizeof(*v));
		if (!v)
			return oom(p);
		cfg->banirq = v;
		v[cfg->nr_banirq++] = (unsigned int)irq;
		return 1;
	}
	for (const char *c = tok; *c; c++)
		if (!isgraph((unsigned char)*c))
			return fail(p, "banirq '%s': a pattern of printable characters only", tok);
	if (cfg->nr_banname >= CONFIG_LIST_MAX)
		return fail(p, "banirq: more than %d patterns", CONFIG_LIST_MAX);
	{
		char **v = realloc(cfg->banname, (cfg->nr_banname + 1) * sizeof(*v));

		if (!v)
			return oom(p);
		cfg->banname = v;
		v[cfg->nr_banname] = strdup(tok);
		if (!v[cfg->nr_banname])
			return oom(p);
		cfg->nr_banname++;
	}
	return 1;
}

/* "banirq = 42 43, eth9-* nvme*q0": numbers and fnmatch patterns on the
 * action names, separated by blanks or commas; the key may repeat. */
static int set_banirq(struct parse *p, const char *v)
{
	char *copy = strdup(v), *save = NULL, *tok;
	int ok = 1, any = 0;

	if (!copy)
		return oom(p);
	for (tok = strtok_r(copy, ", \t", &save); tok && ok;
	     tok = strtok_r(NULL, ", \t", &save)) {
		ok = add_banirq(p, tok);
		any = 1;
	}
	free(copy);
	if (ok && !any)
		return fail(p, "banirq: no IRQ number or pattern given");
	return ok;
}

static int set_hint(struct parse *p, const char *v)
{
	if (!once(p, "affinity-hint", &p->cfg->line_hint))
		return 0;
	if (strcmp(v, "follow") == 0)
		p->cfg->hint = CONFIG_HINT_FOLLOW;
	else if (strcmp(v, "ignore") == 0)
		p->cfg->hint = CONFIG_HINT_IGNORE;
	else
		return fail(p, "affinity-hint '%s': must be 'follow' or 'ignore'", v);
	return 1;
}

/* An absolute path of printable characters, for @key. */
static int set_path(struct parse *p, const char *key, const char *v, char **ret)
{
	if (v[0] != '/')
		return fail(p, "%s '%s': not an absolute path", key, v);
	for (const char *c = v; *c; c++)
		if (!isprint((unsigned char)*c))
			return fail(p, "%s: a path of printable characters only", key);
	*ret = strdup(v);
	return *ret ? 1 : oom(p);
}

/* "off", or the file to read instead of /etc/default/irqbalance and
 * /etc/sysconfig/irqbalance. */
static int set_irqbalance_env(struct parse *p, const char *v)
{
	if (!once(p, "irqbalance-env", &p->cfg->line_irqbalance_env))
		return 0;
	if (strcmp(v, "off") == 0) {
		p->cfg->irqbalance_off = true;
		return 1;
	}
	if (v[0] != '/')
		return fail(p, "irqbalance-env '%s': give 'off' or an absolute path", v);
	return set_path(p, "irqbalance-env", v, &p->cfg->irqbalance_env);
}

static int set_other_balancer(struct parse *p, const char *v)
{
	if (!once(p, "other-balancer", &p->cfg->line_other_balancer))
		return 0;
	if (strcmp(v, "refuse") == 0)
		p->cfg->other_balancer = CONFIG_BALANCER_REFUSE;
	else if (strcmp(v, "ignore") == 0)
		p->cfg->other_balancer = CONFIG_BALANCER_IGNORE;
	else
		return fail(p, "other-balancer '%s': must be 'refuse' or 'ignore'", v);
	return 1;
}

static int set_metrics_file(struct parse *p, const char *v)
{
	if (!once(p, "metrics-file", &p->cfg->line_metrics_file))
		return 0;
	return set_path(p, "metrics-file", v, &p->cfg->metrics_file);
}

static int set_state_dir(struct parse *p, const char *v)
{
	if (!once(p, "state-dir", &p->cfg->line_state_dir))
		return 0;
	return set_path(p, "state-dir", v, &p->cfg->state_dir);
}

static int set_class_cpus(struct parse *p, int c, const char *v)
{
	struct cpuset *set;

	if (!once(p, "cpus", &p->cfg->line_class[c]))
		return 0;
	if (!parse_cpus(p, "cpus", v, &set))
		return 0;
	if (cpuset_count(set) == 0) {
		cpuset_free(set);
		return fail(p, "cpus '': an empty list would leave %s IRQs nowhere",
			    class_section[c]);
	}
	p->cfg->class_cpus[c] = set;
	return 1;
}

const char *config_load_source_parse(const char *const *names, const char *s)
{
	if (strcmp(s, "auto") == 0)
		return "auto";
	for (; names && *names; names++)
		if (strcmp(s, *names) == 0)
			return *names;
	return NULL;
}

void config_load_source_words(const char *const *names, bool quote, char *buf, size_t len)
{
	const char *q = quote ? "'" : "";
	size_t l;

	snprintf(buf, len, "%sauto%s", q, q);
	for (; names && *names; names++) {
		l = strlen(buf);
		snprintf(buf + l, len - l, "%s%s%s%s", names[1] ? ", " : " or ", q, *names, q);
	}
}

static int set_load_source(struct parse *p, const char *v)
{
	char words[128];

	if (!once(p, "load-source", &p->cfg->line_load_source))
		return 0;
	p->cfg->load_source = config_load_source_parse(p->cfg->load_sources, v);
	if (!p->cfg->load_source) {
		config_load_source_words(p->cfg->load_sources, true, words, sizeof(words));
		return fail(p, "load-source '%s': must be %s", v, words);
	}
	return 1;
}

/* xps and napi-threads: "auto" or "off". */
static int set_follow(struct parse *p, const char *key, const char *v,
		      enum config_follow *ret, unsigned int *line)
{
	if (!once(p, key, line))
		return 0;
	if (strcmp(v, "auto") == 0)
		*ret = CONFIG_FOLLOW_AUTO;
	else if (strcmp(v, "off") == 0)
		*ret = CONFIG_FOLLOW_OFF;
	else
		return fail(p, "%s '%s': must be 'auto' or 'off'", key, v);
	return 1;
}

static int set_placement(struct parse *p, const char *v)
{
	if (!once(p, "placement", &p->cfg->line_placement))
		return 0;
	if (strcmp(v, "spread") == 0)
		p->cfg->placement = CONFIG_PLACEMENT_SPREAD;
	else if (strcmp(v, "pack") == 0)
		p->cfg->placement = CONFIG_PLACEMENT_PACK;
	else
		return fail(p, "placement '%s': must be 'spread' or 'pack'", v);
	return 1;
}

/* "50%" or "0.5": of a CPU, from 5% to 100%. */
static int set_pack_target(struct parse *p, const char *v)
{
	size_t len = strlen(v);
	bool pct = len > 1 && v[len - 1] == '%';
	char num[32];
	double d;

	if (!once(p, "pack-target", &p->cfg->line_pack_target))
		return 0;
	if (len < sizeof(num)) {
		memcpy(num, v, len - pct);
		num[len - pct] = '\0';
	}
	if (len >= sizeof(num) || parse_double(num, &d) < 0)
		return fail(p, "pack-target '%s': give a share of a CPU, e.g. 50%% or 0.5", v);
	if (pct)
		d /= 100;
	if (!(d >= CONFIG_PACK_TARGET_MIN - 1e-9 && d <= CONFIG_PACK_TARGET_MAX + 1e-9))
		return fail(p, "pack-target '%s': not from %g%% to %g%% of a CPU", v,
			    CONFIG_PACK_TARGET_MIN * 100, CONFIG_PACK_TARGET_MAX * 100);
	p->cfg->pack_target = d;
	return 1;
}

static int set_exclusive(struct parse *p, const char *v)
{
	if (!once(p, "exclusive-cpus", &p->cfg->line_exclusive))
		return 0;
	if (strcmp(v, "avoid") == 0)
		p->cfg->exclusive = CONFIG_EXCLUSIVE_AVOID;
	else if (strcmp(v, "ban") == 0)
		p->cfg->exclusive = CONFIG_EXCLUSIVE_BAN;
	else if (strcmp(v, "ignore") == 0)
		p->cfg->exclusive = CONFIG_EXCLUSIVE_IGNORE;
	else
		return fail(p, "exclusive-cpus '%s': must be 'avoid', 'ban' or 'ignore'", v);
	return 1;
}

static int set_kubelet_state(struct parse *p, const char *v)
{
	if (!once(p, "kubelet-state", &p->cfg->line_kubelet_state))
		return 0;
	return set_path(p, "kubelet-state", v, &p->cfg->kubelet_state);
}

/* A multiplier of the pinned threads' load; 0 leaves it out. Bounded: a
 * weight of 100 already makes a 1% thread outweigh a whole CPU of IRQs. */
static int set_app_weight(struct parse *p, const char *v)
{
	double d;

	if (!once(p, "app-weight", &p->cfg->line_app_weight))
		return 0;
	if (parse_double(v, &d) < 0 || d < 0 || d > CONFIG_APP_WEIGHT_MAX)
		return fail(p, "app-weight '%s': not a number from 0 to %g", v,
			    CONFIG_APP_WEIGHT_MAX);
	p->cfg->app_weight = d;
	return 1;
}

static int handler(void *user, const char *section, const char *name,
		   const char *value)
{
	struct parse *p = user;

	if (p->r == -ENOMEM)
		return 0;
	if (!*section) {
		if (strcmp(name, "window") == 0)
			return set_window(p, value);
		if (strcmp(name, "threshold") == 0)
			return set_threshold(p, value);
		if (strcmp(name, "bancpus") == 0)
			return add_cpus(p, "bancpus", value, &p->cfg->bancpus);
		if (strcmp(name, "avoid-cpus") == 0)
			return add_cpus(p, "avoid-cpus", value, &p->cfg->avoidcpus);
		if (strcmp(name, "exclusive-cpus") == 0)
			return set_exclusive(p, value);
		if (strcmp(name, "kubelet-state") == 0)
			return set_kubelet_state(p, value);
		if (strcmp(name, "app-weight") == 0)
			return set_app_weight(p, value);
		if (strcmp(name, "banirq") == 0)
			return set_banirq(p, value);
		if (strcmp(name, "affinity-hint") == 0)
			return set_hint(p, value);
		if (strcmp(name, "load-source") == 0)
			return set_load_source(p, value);
		if (strcmp(name, "irqbalance-env") == 0)
			return set_irqbalance_env(p, value);
		if (strcmp(name, "other-balancer") == 0)
			return set_other_balancer(p, value);
		if (strcmp(name, "metrics-file") == 0)
			return set_metrics_file(p, value);
		if (strcmp(name, "state-dir") == 0)
			return set_state_dir(p, value);
		if (strcmp(name, "xps") == 0)
			return set_follow(p, "xps", value, &p->cfg->xps, &p->cfg->line_xps);
		if (strcmp(name, "napi-threads") == 0)
			return set_follow(p, "napi-threads", value, &p->cfg->napi_threads,
					  &p->cfg->line_napi_threads);
		if (strcmp(name, "placement") == 0)
			return set_placement(p, value);
		if (strcmp(name, "pack-target") == 0)
			return set_pack_target(p, value);
		return fail(p, "unknown key '%s' (expected window, threshold, bancpus, avoid-cpus, banirq, affinity-hint, load-source, irqbalance-env, other-balancer, metrics-file, state-dir, xps, napi-threads, exclusive-cpus, kubelet-state, app-weight, placement or pack-target before any [section])",
			    name);
	}
	for (int c = 0; c < CLASS_NR; c++) {
		if (strcmp(section, class_section[c]) != 0)
			continue;
		if (strcmp(name, "cpus") == 0)
			return set_class_cpus(p, c, value);
		return fail(p, "unknown key '%s' in [%s] (expected cpus)", name, section);
	}
	return fail(p, "unknown section [%s] (expected [net], [storage] or [other])",
		    section);
}

int config_parse(FILE *f, struct config *cfg, struct config_error *err)
{
	struct parse p = { .f = f, .cfg = cfg, .err = err };
	int line;

	err->line = 0;
	err->msg[0] = '\0';
	line = ini_parse_stream(reader, &p, handler, &p);
	free(p.buf);
	if (p.r == -ENOMEM || line == -2)
		return -ENOMEM;
	if (ferror(f)) {
		err->line = 0;
		snprintf(err->msg, sizeof(err->msg), "read error");
		return -EIO;
	}
	/* inih returns the line of the first error, ours or its own. */
	if (line > 0 && (p.err_line == 0 || (unsigned int)line < p.err_line)) {
		err->line = (unsigned int)line;
		snprintf(err->msg, sizeof(err->msg),
			 "expected 'key = value', '[section]' or a # comment");
		return -EINVAL;
	}
	return p.err_line ? -EINVAL : 0;
}

int config_load(const char *path, struct config *cfg, struct config_error *err)
{
	FILE *f;
	int r;

	err->line = 0;
	err->msg[0] = '\0';
	r = fopen_trusted(path, &f, err->msg, sizeof(err->msg));
	if (r < 0)
		return r;
	r = config_parse(f, cfg, err);
	fclose(f);
	return r;
}

bool config_irq_banned(const struct config *cfg, unsigned int irq,
		       const char *names)
{
	for (unsigned int i = 0; i < cfg->nr_banirq; i++)
		if (cfg->banirq[i] == irq)
			return true;
	if (!cfg->nr_banname || !names)
		return false;
	/* A shared line has several actions: banning one bans the line. */
	for (const char *a = names; *a;) {
		const char *end = strchr(a, ',');
		size_t len = end ? (size_t)(end - a) : strlen(a);
		char action[256];

		str_copy(action, len + 1 < sizeof(action) ? len + 1 : sizeof(action), a);
		for (unsigned int k = 0; k < cfg->nr_banname; k++)
			if (fnmatch(cfg->banname[k], action, 0) == 0)
				return true;
		if (!end)
			break;
		a = end + 1;
	}
	return false;
}
