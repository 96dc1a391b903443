// SPDX-License-Identifier: GPL-2.0-or-later
/* packstate.c - the pool placement = pack keeps from run to run. Text:
 *
 *	irqtune-pack 1
 *	boot 8e1f...		(the run's /proc/sys/kernel/random/boot_id)
 *	time 1796347892		(seconds since the epoch)
 *	nodes 2			(pool parts: the topology's nodes, 1 without)
 *	node 1 3 0 16-17,48-49	(node, cores, runs that needed fewer, CPUs or "-")
 *
 * A file that is not exactly that is never trusted: the run sizes its
 * pool from its own load alone. No logging: functions return 0 or -errno
 * with the reason in the caller's buffer. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpuset.h"
#include "fileio.h"
#include "packstate.h"
#include "strutil.h"

void pack_state_release(struct pack_state *st)
{
	for (unsigned int d = 0; st->nodes && d < st->nr_nodes; d++)
		cpuset_free(st->nodes[d].cpus);
	free(st->nodes);
	memset(st, 0, sizeof(*st));
}

int packstate_format(const struct pack_state *st, const char *boot, double when, char **ret)
{
	char *text = NULL, *list = NULL;
	size_t size = 0, cap = 0;
	FILE *f = open_memstream(&text, &size);
	int r = -ENOMEM;

	if (!f)
		return -ENOMEM;
	fprintf(f, "irqtune-pack %d\nboot %s\ntime %.0f\nnodes %u\n", PACKSTATE_VERSION, boot,
		when, st->nr_nodes);
	for (unsigned int d = 0; d < st->nr_nodes; d++) {
		const struct pack_node *pn = &st->nodes[d];

		if (pn->cpus && cpuset_count(pn->cpus)) {
			/* a cpulist takes at most 7 bytes a CPU ("16383,") */
			size_t need = 8 * (size_t)cpuset_count(pn->cpus) + 1;

			if (need > cap) {
				char *l = realloc(list, need);

				if (!l)
					goto out;
				list = l;
				cap = need;
			}
			if (cpulist_format(pn->cpus, list, cap) < 0)
				goto out;
		}
		fprintf(f, "node %u %u %u %s\n", d, pn->cores, pn->under,
			pn->cpus && cpuset_count(pn->cpus) ? list : "-");
	}
	r = 0;
out:
	if (fclose(f) != 0 && r == 0)
		r = -ENOMEM;
	free(list);
	if (r < 0) {
		free(text);
		return r;
	}
	*ret = text;
	return 0;
}

struct pparse {
	const char *boot;
	double now;
	struct pack_state *st;
	bool *seen;		/* per node */
	unsigned int lineno;
	bool have_boot, have_time;
	char *why;
	size_t len;
};

__attribute__((format(printf, 3, 4)))
static int bad(struct pparse *p, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->why, p->len, fmt, ap);
	va_end(ap);
	return r;
}

static int parse_node(struct pparse *p, char *rest)
{
	char *save = NULL, *f[4];
	uint64_t d, cores, under;
	struct pack_node *pn;
	int r;

	for (int i = 0; i < 4; i++)
		f[i] = strtok_r(i ? NULL : rest, " ", &save);
	if (!f[3] || strtok_r(NULL, " ", &save) ||
	    parse_u64(f[0], p->st->nr_nodes ? p->st->nr_nodes - 1 : 0, &d) < 0 ||
	    !p->st->nr_nodes || p->seen[d] ||
	    parse_u64(f[1], CPU_ID_LIMIT, &cores) < 0 ||
	    parse_u64(f[2], PACK_SHRINK_RUNS, &under) < 0)
		return bad(p, -EINVAL, "line %u: not a node of the pool", p->lineno);
	p->seen[d] = true;
	pn = &p->st->nodes[d];
	pn->cores = (unsigned int)cores;
	pn->under = (unsigned int)under;
	if (strcmp(f[3], "-") == 0)
		return 0;
	pn->cpus = cpuset_new(CPU_ID_LIMIT);
	if (!pn->cpus)
		return -ENOMEM;
	r = cpulist_parse(f[3], pn->cpus);
	if (r < 0)
		return bad(p, -EINVAL, "line %u: CPUs '%s' are not a cpulist", p->lineno, f[3]);
	return 0;
}

static int parse_nodes(struct pparse *p, const char *v)
{
	uint64_t n;

	if (p->st->nr_nodes || parse_u64(v, PACK_MAX_NODES, &n) < 0 || n == 0)
		return bad(p, -EINVAL, "line %u: nodes '%s' is not a count of nodes",
			   p->lineno, v);
	p->st->nodes = calloc(n, sizeof(*p->st->nodes));
	p->seen = calloc(n, sizeof(*p->seen));
	if (!p->st->nodes || !p->seen)
		return -ENOMEM;
	p->st->nr_nodes = (unsigned int)n;
	return 0;
}

static int parse_line(struct pparse *p, char *line)
{
	char *sp = strchr(line, ' ');
	const char *v;
	char *end;
	double t;

	if (!sp)
		return bad(p, -EINVAL, "line %u: not 'key value'", p->lineno);
	*sp = '\0';
	v = sp + 1;
	if (p->lineno == 1) {
		uint64_t ver;

		if (strcmp(line, "irqtune-pack") != 0 || parse_u64(v, 1000, &ver) < 0)
			return bad(p, -EINVAL, "not irqtune's pack file");
		if (ver != PACKSTATE_VERSION)
			return bad(p, -EINVAL, "version %s, not %d", v, PACKSTATE_VERSION);
		return 0;
	}
	if (strcmp(line, "boot") == 0 && !p->have_boot) {
		p->have_boot = true;
		return strcmp(v, p->boot) == 0 ? 0 :
		       bad(p, -ESTALE, "written on another boot (or host)");
	}
	if (strcmp(line, "time") == 0 && !p->have_time) {
		p->have_time = true;
		t = strtod(v, &end);
		if (end == v || *end || !isfinite(t))
			return bad(p, -EINVAL, "line %u: time '%s' is not a number", p->lineno, v);
		if (t > p->now + 60 || p->now - t > PACKSTATE_MAX_AGE)
			return bad(p, -ESTALE, "too old, or from the future");
		return 0;
	}
	if (strcmp(line, "nodes") == 0 && p->have_boot && p->have_time)
		return parse_nodes(p, v);
	if (strcmp(line, "node") == 0 && p->st->nr_nodes)
		return parse_node(p, (char *)v);
	return bad(p, -EINVAL, "line %u: unexpected '%s'", p->lineno, line);
}

int packstate_parse(const char *text, const char *boot, double now, struct pack_state *ret,
		    char *why, size_t len)
{
	struct pack_state st = { 0 };
	struct pparse p = { .boot = boot, .now = now, .st = &st, .why = why, .len = len };
	char *copy = strdup(text), *save = NULL, *line;
	int r = 0;

	if (!copy)
		return -ENOMEM;
	for (line = strtok_r(copy, "\n", &save); line && r == 0;
	     line = strtok_r(NULL, "\n", &save)) {
		p.lineno++;
		r = parse_line(&p, line);
	}
	for (unsigned int d = 0; r == 0 && d < st.nr_nodes; d++)
		if (!p.seen[d])
			r = bad(&p, -EINVAL, "node %u missing", d);
	if (r == 0 && !st.nr_nodes)
		r = bad(&p, -EINVAL, "%s", p.lineno ? "no nodes in it" : "empty");
	free(copy);
	free(p.seen);
	if (r < 0) {
		pack_state_release(&st);
		return r;
	}
	*ret = st;
	return 0;
}

int packstate_load(const char *path, const char *boot, double now, struct pack_state *ret,
		   char *why, size_t len)
{
	char *buf = malloc(PACKSTATE_FILE_MAX);
	long n;
	int r;

	if (!buf)
		return -ENOMEM;
	n = read_own_file(path, buf, PACKSTATE_FILE_MAX, why, len);
	r = n < 0 ? (int)n : packstate_parse(buf, boot, now, ret, why, len);
	free(buf);
	return r;
}

int packstate_save(const char *path, const struct pack_state *st, const char *boot,
		   double when)
{
	char *text;
	int r;

	r = packstate_format(st, boot, when, &text);
	if (r < 0)
		return r;
	r = write_own_file(path, text, strlen(text));
	free(text);
	return r;
}
