// SPDX-License-Identifier: GPL-2.0-or-later
/* build.c - from a machine description to a model (sim.state) and the
 * /sys and /proc trees a program reads under umockdev. The format is
 * documented in tests/sim/README.md. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build.h"
#include "model.h"

#define MAX_LINES	4096
#define MAX_QUEUES	4096
#define MAX_RATES	256

/* ---- CPUs and nodes -------------------------------------------------- */

/* The tree writers (sim_out_*) and the CPU and node files (sim_render_cpus)
 * live in model.c: the fake kernel renders them too, when a CPU goes offline
 * during a run (an event). */

static int nr_nodes(const struct sim *s)
{
	int n = 0;

	for (unsigned int c = 0; c < s->nr_cpus; c++)
		if (s->cpu[c].node + 1 > n)
			n = s->cpu[c].node + 1;
	return n;
}


/* ---- descriptions ---------------------------------------------------- */

enum start_mode { START_ALL, START_SPREAD, START_NODE, START_CPU, START_HINT };

struct start {
	enum start_mode mode;
	char list[256];
};

struct kind_info {
	const char *kind;
	unsigned long class, vendor, device;
	const char *driver;
	double rate, hard_us, soft_us;
	int sirq;
	unsigned int queues;
	bool managed;
	bool onboard;	/* bus 0 slot when no bdf= is given */
	bool virtio;
	bool msix;
	bool hint;	/* driver sets affinity_hint per queue */
};

static const struct kind_info kinds[] = {
	{ "nic", 0x020000, 0x8086, 0x10fb, "ixgbe", 1000, 2, 30, SIRQ_NET_RX,
	  8, false, false, false, true, true },
	{ "nvme", 0x010802, 0x144d, 0xa808, "nvme", 2000, 3, 0, SIRQ_BLOCK,
	  8, false, false, false, true, false },
	{ "hba", 0x010400, 0x1000, 0x005d, "megaraid_sas", 5000, 2, 1,
	  SIRQ_BLOCK, 8, false, false, false, true, false },
	{ "ahci", 0x010601, 0x8086, 0xa352, "ahci", 100, 3, 2, SIRQ_BLOCK,
	  1, false, true, false, false, false },
	{ "usb", 0x0c0330, 0x8086, 0xa36d, "xhci_hcd", 10, 5, 0, SIRQ_TASKLET,
	  1, false, true, false, false, false },
	{ "virtio-net", 0x020000, 0x1af4, 0x1041, "virtio-pci", 500, 3, 20,
	  SIRQ_NET_RX, 1, false, true, true, true, false },
	{ "virtio-blk", 0x010000, 0x1af4, 0x1042, "virtio-pci", 300, 3, 1,
	  SIRQ_BLOCK, 1, true, true, true, true, false },
	{ "unknown-pci", 0xffff00, 0x1af4, 0x1045, "virtio-pci", 0.1, 2, 0,
	  SIRQ_TASKLET, 0, false, true, true, true, false },
	{ "idle-irqs", 0x020000, 0x8086, 0x10ed, "ixgbevf", 0, 2, 10,
	  SIRQ_NET_RX, 16, false, false, false, true, false },
	{ "pci", 0xff0000, 0x10ee, 0x9038, "generic", 100, 2, 0, SIRQ_TASKLET,
	  1, false, false, false, true, false },
	{ "legacy", 0x0c0320, 0x8086, 0x1e26, "", 1, 2, 0, SIRQ_TASKLET, 1, false,
	  true, false, false, false },
};

struct bdev {
	const struct kind_info *k;
	unsigned int line;
	char name[SIM_NAME_MAX];
	char bdf[16];
	char driver[32];
	char ifname[32];
	char naming[16];
	char irqnames[256];
	struct start start;
	bool start_set;
	int node;
	bool node_set;
	unsigned int queues;
	double rate, hard_us, soft_us, aux_rate;
	double rates[MAX_RATES];
	unsigned int nrates;
	bool managed;
	unsigned long class, vendor, device;
	bool misc;
	bool multipath;
	bool hint;
	unsigned int disks;
	/* legacy */
	unsigned long irq;
	char chip[24];
	char type[12];
	long hwirq;
	/* assigned */
	int devidx;
	unsigned int virtio;
	unsigned int host;
	unsigned int msi_index;
};

struct ctx {
	struct sim *s;
	const char *file;
	FILE *err;
	unsigned int line;
	unsigned long next_irq;
	unsigned int next_bus, next_slot, next_virtio, next_host, next_ifindex;
	unsigned int next_sd, next_vd, next_minor;
	double uptime;
	unsigned long counter_offset;
	struct start start;
	struct bdev *devs;
	unsigned int nr_devs;
	uint64_t *tmp;
	unsigned int next_pid;
	enum sim_kubelet kubelet;
	char kubelet_policy[16];
	long kubelet_truncate;
};

static int fail(struct ctx *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int fail(struct ctx *x, const char *fmt, ...)
{
	va_list ap;

	fprintf(x->err, "%s:%u: ", x->file, x->line);
	va_start(ap, fmt);
	vfprintf(x->err, fmt, ap);
	va_end(ap);
	fputc('\n', x->err);
	return -EINVAL;
}

/* key=value, or a bare flag (value NULL). */
static void kv(char *tok, char **key, char **val)
{
	char *eq = strchr(tok, '=');

	*key = tok;
	*val = NULL;
	if (eq) {
		*eq = '\0';
		*val = eq + 1;
	}
}

static int parse_onoff(struct ctx *x, const char *v, bool *ret)
{
	if (v && (strcmp(v, "on") == 0 || strcmp(v, "yes") == 0 ||
		  strcmp(v, "1") == 0))
		*ret = true;
	else if (v && (strcmp(v, "off") == 0 || strcmp(v, "no") == 0 ||
		       strcmp(v, "0") == 0))
		*ret = false;
	else
		return fail(x, "expected on or off, got \"%s\"", v ? v : "");
	return 0;
}

static int parse_cpus(struct ctx *x, const char *v, uint64_t *set)
{
	int r;

	if (!v)
		return fail(x, "missing CPU list");
	r = sim_parse_list(x->s, v, strlen(v), set);
	if (r < 0)
		return fail(x, "bad CPU list \"%s\" (machine has %u CPUs)", v,
			    x->s->nr_cpus);
	return 0;
}

static int parse_num(struct ctx *x, const char *key, const char *v, double *ret)
{
	if (!v || sim_parse_double(v, ret) < 0 || *ret < 0)
		return fail(x, "%s: expected a non-negative number, got \"%s\"",
			    key, v ? v : "");
	return 0;
}

static int parse_count(struct ctx *x, const char *key, const char *v,
		       unsigned long max, unsigned long *ret)
{
	if (!v || sim_parse_uint(v, max, ret) < 0)
		return fail(x, "%s: expected a number up to %lu, got \"%s\"",
			    key, max, v ? v : "");
	return 0;
}

static int parse_start(struct ctx *x, const char *v, struct start *st)
{
	memset(st, 0, sizeof(*st));
	if (!v)
		return fail(x, "start: missing mode");
	if (strcmp(v, "all") == 0)
		st->mode = START_ALL;
	else if (strcmp(v, "spread") == 0)
		st->mode = START_SPREAD;
	else if (strcmp(v, "node") == 0)
		st->mode = START_NODE;
	else if (strcmp(v, "hint") == 0)
		st->mode = START_HINT;
	else if (strncmp(v, "cpu=", 4) == 0 || strncmp(v, "all-on=", 7) == 0) {
		st->mode = START_CPU;
		snprintf(st->list, sizeof(st->list), "%s", strchr(v, '=') + 1);
		return parse_cpus(x, st->list, x->tmp);
	} else {
		return fail(x, "start: unknown mode \"%s\" (all, spread, node, "
			    "hint, cpu=LIST, all-on=CPU)", v);
	}
	return 0;
}

static const struct kind_info *find_kind(const char *name)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(kinds[i].kind, name) == 0)
			return &kinds[i];
	return NULL;
}

static bool bdf_valid(const char *b)
{
	unsigned int dom, bus, dev, fn;
	char end;

	return strlen(b) == 12 &&
	       sscanf(b, "%4x:%2x:%2x.%1x%c", &dom, &bus, &dev, &fn, &end) == 4 &&
	       dev < 32 && fn < 8;
}

static int parse_device(struct ctx *x, const struct kind_info *k, char **tok,
			int ntok)
{
	struct bdev *d;

	if (x->nr_devs % 64 == 0) {
		d = realloc(x->devs, (x->nr_devs + 64) * sizeof(*d));
		if (!d)
			return -ENOMEM;
		x->devs = d;
	}
	d = &x->devs[x->nr_devs];
	memset(d, 0, sizeof(*d));
	d->k = k;
	d->line = x->line;
	d->rate = k->rate;
	d->hard_us = k->hard_us;
	d->soft_us = k->soft_us;
	d->queues = k->queues;
	d->managed = k->managed;
	d->class = k->class;
	d->vendor = k->vendor;
	d->device = k->device;
	d->misc = true;
	d->multipath = true;
	d->hint = k->hint;
	d->disks = 1;
	d->aux_rate = -1;
	d->hwirq = -1;
	d->devidx = -1;
	snprintf(d->driver, sizeof(d->driver), "%s", k->driver);
	/* arm64 wired IRQs: GICv3 SPIs, "Level" or "Edge" (GENERIC_IRQ_SHOW_LEVEL) */
	snprintf(d->type, sizeof(d->type), "%s", x->s->isa == ISA_ARM64 ? "Level" : "edge");
	snprintf(d->chip, sizeof(d->chip), "%s", x->s->isa == ISA_ARM64 ? "GICv3" : "IO-APIC");
	for (int i = 1; i < ntok; i++) {
		unsigned long u;
		char *key, *v;
		int r = 0;

		kv(tok[i], &key, &v);
		if (strcmp(key, "name") == 0 && v && *v && !strchr(v, ' ')) {
			snprintf(d->name, sizeof(d->name), "%s", v);
			/* an action name may hold any byte: \xNN */
			if (k == find_kind("legacy"))
				sim_unescape(d->name);
		} else if (strcmp(key, "bdf") == 0 && v) {
			if (!bdf_valid(v))
				return fail(x, "bad bdf \"%s\" (want 0000:3b:00.0)", v);
			snprintf(d->bdf, sizeof(d->bdf), "%s", v);
		} else if (strcmp(key, "node") == 0 && v) {
			long n;

			if (sim_parse_int(v, -1, 1023, &n) < 0)
				return fail(x, "bad node \"%s\"", v);
			d->node = (int)n;
			d->node_set = true;
		} else if (strcmp(key, "queues") == 0 || strcmp(key, "count") == 0) {
			r = parse_count(x, key, v, MAX_QUEUES, &u);
			d->queues = (unsigned int)u;
		} else if (strcmp(key, "rate") == 0) {
			r = parse_num(x, key, v, &d->rate);
		} else if (strcmp(key, "rates") == 0 && v) {
			char *save, *t;

			d->nrates = 0;
			for (t = strtok_r(v, ",", &save); t && !r;
			     t = strtok_r(NULL, ",", &save)) {
				if (d->nrates == MAX_RATES)
					return fail(x, "rates: at most %d", MAX_RATES);
				r = parse_num(x, key, t, &d->rates[d->nrates++]);
			}
		} else if (strcmp(key, "hard_us") == 0) {
			r = parse_num(x, key, v, &d->hard_us);
		} else if (strcmp(key, "soft_us") == 0) {
			r = parse_num(x, key, v, &d->soft_us);
		} else if (strcmp(key, "aux_rate") == 0) {
			r = parse_num(x, key, v, &d->aux_rate);
		} else if (strcmp(key, "managed") == 0) {
			d->managed = true;
			if (v)
				r = parse_onoff(x, v, &d->managed);
		} else if (strcmp(key, "misc") == 0) {
			r = parse_onoff(x, v, &d->misc);
		} else if (strcmp(key, "multipath") == 0) {
			r = parse_onoff(x, v, &d->multipath);
		} else if (strcmp(key, "hint") == 0) {
			r = parse_onoff(x, v, &d->hint);
		} else if (strcmp(key, "disks") == 0) {
			r = parse_count(x, key, v, 26, &u);
			d->disks = (unsigned int)u;
		} else if (strcmp(key, "class") == 0) {
			r = parse_count(x, key, v, 0xffffff, &d->class);
		} else if (strcmp(key, "vendor") == 0) {
			r = parse_count(x, key, v, 0xffff, &d->vendor);
		} else if (strcmp(key, "device") == 0) {
			r = parse_count(x, key, v, 0xffff, &d->device);
		} else if (strcmp(key, "driver") == 0 && v) {
			snprintf(d->driver, sizeof(d->driver), "%s", v);
		} else if (strcmp(key, "ifname") == 0 && v) {
			snprintf(d->ifname, sizeof(d->ifname), "%s", v);
		} else if (strcmp(key, "naming") == 0 && v &&
			   (strcmp(v, "ixgbe") == 0 || strcmp(v, "i40e") == 0 ||
			    strcmp(v, "mlx5") == 0)) {
			snprintf(d->naming, sizeof(d->naming), "%s", v);
		} else if (strcmp(key, "irqs") == 0 && v) {
			snprintf(d->irqnames, sizeof(d->irqnames), "%s", v);
		} else if (strcmp(key, "cpu") == 0 || strcmp(key, "all-on") == 0) {
			char spec[300];

			snprintf(spec, sizeof(spec), "cpu=%s", v ? v : "");
			r = parse_start(x, spec, &d->start);
			d->start_set = true;
		} else if (strcmp(key, "start") == 0) {
			r = parse_start(x, v, &d->start);
			d->start_set = true;
		} else if (strcmp(key, "irq") == 0 && k == find_kind("legacy")) {
			r = parse_count(x, key, v, 255, &d->irq);
		} else if (strcmp(key, "chip") == 0 && v) {
			snprintf(d->chip, sizeof(d->chip), "%s", v);
		} else if (strcmp(key, "type") == 0 && v &&
			   (strcmp(v, "edge") == 0 || strcmp(v, "fasteoi") == 0 ||
			    strcmp(v, "level") == 0 || strcmp(v, "Edge") == 0 ||
			    strcmp(v, "Level") == 0)) {
			snprintf(d->type, sizeof(d->type), "%s", v);
		} else if (strcmp(key, "hwirq") == 0) {
			r = parse_count(x, key, v, 1 << 30, &u);
			d->hwirq = (long)u;
		} else {
			return fail(x, "%s: unknown or malformed \"%s%s%s\"",
				    k->kind, key, v ? "=" : "", v ? v : "");
		}
		if (r < 0)
			return r;
	}
	if (!d->name[0])
		return fail(x, "%s: name= is required", k->kind);
	if (k == find_kind("legacy") && !d->irq && strcmp(d->name, "timer") != 0)
		return fail(x, "legacy: irq= is required");
	if (!d->node_set)
		d->node = nr_nodes(x->s) > 0 ? 0 : -1;
	if (d->node >= nr_nodes(x->s) && nr_nodes(x->s) > 0)
		return fail(x, "node %d: the machine has %d", d->node, nr_nodes(x->s));
	if (k->virtio && !d->irqnames[0] && strcmp(k->kind, "unknown-pci") == 0)
		snprintf(d->irqnames, sizeof(d->irqnames), "config,inflate,deflate,stats");
	/* legacy names are action names, which may repeat (i8042 twice) */
	for (unsigned int i = 0; k != find_kind("legacy") && i < x->nr_devs; i++)
		if (strcmp(x->devs[i].name, d->name) == 0)
			return fail(x, "device name \"%s\" used twice", d->name);
	x->nr_devs++;
	return 0;
}

/* How CPU ids run over packages, cores and threads (the cpus directive). */
enum { NUMBER_INTERLEAVED, NUMBER_ADJACENT, NUMBER_ROUNDROBIN };

static int parse_cpus_line(struct ctx *x, char **tok, int ntok,
			   unsigned long *p, unsigned long *c, unsigned long *t,
			   unsigned long *nodes, unsigned long *possible,
			   int *numbering, unsigned long *llc,
			   unsigned long *clusters, unsigned long *ecores)
{
	*p = 1;
	*c = 1;
	*t = 1;
	*nodes = 1;
	*possible = 0;
	*numbering = NUMBER_INTERLEAVED;
	*llc = 0;
	*clusters = 0;
	*ecores = 0;
	for (int i = 1; i < ntok; i++) {
		char *key, *v;
		int r;

		kv(tok[i], &key, &v);
		if (strcmp(key, "packages") == 0)
			r = parse_count(x, key, v, 64, p);
		else if (strcmp(key, "cores") == 0)
			r = parse_count(x, key, v, 1024, c);
		else if (strcmp(key, "threads") == 0)
			r = parse_count(x, key, v, 8, t);
		else if (strcmp(key, "nodes") == 0)
			r = parse_count(x, key, v, 64, nodes);
		else if (strcmp(key, "possible") == 0)
			r = parse_count(x, key, v, SIM_MAX_CPUS, possible);
		else if (strcmp(key, "llc") == 0 && v && strcmp(v, "package") == 0)
			r = 0, *llc = 0;
		else if (strcmp(key, "llc") == 0)
			r = parse_count(x, "llc (cores per LLC, or package)", v, 1024, llc);
		else if (strcmp(key, "clusters") == 0)
			r = parse_count(x, "clusters (cores per cluster)", v, 1024, clusters);
		else if (strcmp(key, "ecores") == 0)
			r = parse_count(x, key, v, 1024, ecores);
		else if (strcmp(key, "numbering") == 0 && v &&
			 strcmp(v, "interleaved") == 0)
			r = 0, *numbering = NUMBER_INTERLEAVED;
		else if (strcmp(key, "numbering") == 0 && v &&
			 strcmp(v, "adjacent") == 0)
			r = 0, *numbering = NUMBER_ADJACENT;
		else if (strcmp(key, "numbering") == 0 && v &&
			 strcmp(v, "roundrobin") == 0)
			r = 0, *numbering = NUMBER_ROUNDROBIN;
		else
			return fail(x, "cpus: unknown or malformed \"%s\"", tok[i]);
		if (r < 0)
			return r;
	}
	if (!*p || !*c || !*t || *p * *c * *t + *ecores > SIM_MAX_CPUS)
		return fail(x, "cpus: bad count");
	if (*ecores && *p != 1)
		return fail(x, "cpus: ecores= on one package only (Intel hybrid)");
	if (*nodes > *p * *c)
		return fail(x, "cpus: more nodes than cores");
	return 0;
}

/* Intel hybrid's E-cores: one thread each, numbered after the P-cores'
 * threads as the kernel enumerates them, on the package's node and L3,
 * slower by the figure irqtune assumes (CAPACITY_HYBRID_ATOM, 640) unless
 * a capacity directive says otherwise. */
#define ECORE_CAPACITY	640

static void make_ecores(struct sim *s, unsigned long first, unsigned long C,
			unsigned long E, unsigned long N)
{
	for (unsigned long e = 0; e < E; e++) {
		struct sim_cpu *cpu = &s->cpu[first + e];

		cpu->present = true;
		cpu->online = true;
		cpu->package = 0;
		cpu->core = (int)(C + e);
		cpu->node = N ? 0 : -1;
		cpu->llc = 0;
		cpu->cluster = -1;
		cpu->capacity = ECORE_CAPACITY;
	}
	s->hybrid = E > 0;
}

static void make_topology(struct sim *s, unsigned long P, unsigned long C,
			  unsigned long T, unsigned long N, int numbering,
			  unsigned long llc, unsigned long clusters)
{
	for (unsigned long p = 0; p < P; p++)
		for (unsigned long c = 0; c < C; c++)
			for (unsigned long t = 0; t < T; t++) {
				unsigned long id, gcore = p * C + c;
				struct sim_cpu *cpu;

				/* Intel numbering puts SMT siblings a package
				 * count apart; some firmware lists them
				 * adjacent; some (Dell's) deals cores to the
				 * packages in turn: even CPUs on package 0. */
				if (numbering == NUMBER_ADJACENT)
					id = gcore * T + t;
				else if (numbering == NUMBER_ROUNDROBIN)
					id = t * P * C + c * P + p;
				else
					id = t * P * C + gcore;
				cpu = &s->cpu[id];
				cpu->present = true;
				cpu->online = true;
				cpu->package = (int)p;
				cpu->core = (int)c;
				cpu->node = N ? (int)(gcore * N / (P * C)) : -1;
				cpu->llc = llc ? (int)(gcore / llc) : (int)p;
				/* clusters do not span packages */
				cpu->cluster = clusters ?
					(int)(p * ((C + clusters - 1) / clusters) + c / clusters) : -1;
			}
}

/* ---- IRQs of a device ------------------------------------------------ */

static void local_spread(const struct sim *s, unsigned int k, int node,
			 uint64_t *set)
{
	unsigned int n = 0, want, total = 0;

	for (unsigned int c = 0; c < s->nr_cpus; c++)
		total += s->cpu[c].online;
	want = total ? k % total : 0;
	sim_set_zero(s, set);
	/* cpumask_local_spread(): the node's CPUs first, then the rest. */
	for (int pass = 0; pass < 2; pass++)
		for (unsigned int c = 0; c < s->nr_cpus; c++) {
			bool local = node < 0 || s->cpu[c].node == node;

			if (!s->cpu[c].online || local != (pass == 0))
				continue;
			if (node < 0 && pass == 1)
				continue;
			if (n++ == want) {
				sim_set_add(set, c);
				return;
			}
		}
}

/* group_cpus_evenly(), simplified: per node in proportion to its CPUs,
 * SMT siblings kept together, present CPUs first. */
static void managed_mask(const struct sim *s, unsigned int k, unsigned int nq,
			 uint64_t *set)
{
	unsigned int *order = calloc(s->nr_cpus, sizeof(*order));
	unsigned int n = 0, nodes = (unsigned int)(nr_nodes(s) ? nr_nodes(s) : 1);
	unsigned int start = 0, nvec = 0, node = 0, node_vecs = 0, node_cpus = 0;

	sim_set_zero(s, set);
	if (!order || !nq)
		goto out_free;
	for (unsigned int nd = 0; nd < nodes; nd++)
		for (unsigned int c = 0; c < s->nr_cpus; c++) {
			const struct sim_cpu *p = &s->cpu[c];
			bool placed = false;

			if (!p->present || (int)nd != (p->node < 0 ? 0 : p->node))
				continue;
			for (unsigned int i = 0; i < n && !placed; i++)
				placed = order[i] == c;
			if (placed)
				continue;
			for (unsigned int c2 = c; c2 < s->nr_cpus; c2++)
				if (s->cpu[c2].present &&
				    p->package == s->cpu[c2].package &&
				    p->core == s->cpu[c2].core)
					order[n++] = c2;
		}
	if (!n)
		goto out_free;
	if (nq < nodes) {
		start = k * n / nq;
		for (unsigned int i = start; i < (k + 1) * n / nq; i++)
			sim_set_add(set, order[i]);
		goto out_free;
	}
	/* vectors per node, proportional, at least one for a node with CPUs */
	for (node = 0, start = 0; node < nodes; node++, start += node_cpus) {
		node_cpus = 0;
		for (unsigned int i = start; i < n; i++) {
			int nd = s->cpu[order[i]].node;

			if ((unsigned int)(nd < 0 ? 0 : nd) != node)
				break;
			node_cpus++;
		}
		node_vecs = node == nodes - 1 ? nq - nvec :
			    (unsigned int)((uint64_t)nq * node_cpus / n);
		if (!node_vecs && node_cpus)
			node_vecs = 1;
		if (k >= nvec && k < nvec + node_vecs) {
			unsigned int j = k - nvec;

			for (unsigned int i = j * node_cpus / node_vecs;
			     i < (j + 1) * node_cpus / node_vecs; i++)
				sim_set_add(set, order[start + i]);
			if (sim_set_empty(s, set))	/* more vectors than CPUs */
				sim_set_add(set, order[start + j % node_cpus]);
			goto out_free;
		}
		nvec += node_vecs;
	}
	sim_set_add(set, order[k % n]);	/* vectors left over: wrap */
out_free:
	/* possible but not present CPUs go round-robin */
	for (unsigned int c = 0, j = 0; order && nq && c < s->nr_cpus; c++)
		if (!s->cpu[c].present && j++ % nq == k)
			sim_set_add(set, c);
	free(order);
}

static int set_start(struct ctx *x, struct sim_irq *q, const struct bdev *d,
		     unsigned int k)
{
	struct sim *s = x->s;
	const struct start *st = d->start_set ? &d->start : &x->start;

	switch (st->mode) {
	case START_ALL:
		sim_set_copy(s, q->aff, s->default_aff);
		break;
	case START_CPU:
		return sim_parse_list(s, st->list, strlen(st->list), q->aff);
	case START_SPREAD:
		local_spread(s, k, -1, q->aff);
		break;
	case START_NODE:
		sim_set_zero(s, q->aff);
		for (unsigned int c = 0; c < s->nr_cpus; c++)
			if (s->cpu[c].online &&
			    (d->node < 0 || s->cpu[c].node == d->node))
				sim_set_add(q->aff, c);
		break;
	case START_HINT:
		if (q->hint)
			sim_set_copy(s, q->aff, q->hint);
		else
			sim_set_copy(s, q->aff, s->default_aff);
		break;
	}
	return 0;
}

static unsigned long take_irq(struct ctx *x)
{
	while (sim_find_irq(x->s, (unsigned int)x->next_irq))
		x->next_irq++;
	return x->next_irq++;
}

/* One IRQ of @d: queue @k (-1 for an auxiliary vector: misc, config,
 * admin), named @name, with the device's rate unless @rate >= 0. */
static int add_irq(struct ctx *x, struct bdev *d, int k, const char *name,
		   double rate, double soft_us, bool managed, unsigned long irqnum)
{
	struct sim *s = x->s;
	bool legacy = d->k == find_kind("legacy");
	struct sim_irq *q;
	int idx, r;

	idx = sim_add_irq(s, (unsigned int)irqnum);
	if (idx == -EEXIST)
		return fail(x, "IRQ %lu used twice", irqnum);
	if (idx < 0)
		return idx;
	q = &s->irqs[idx];
	q->dev = d->devidx;
	q->queue = k;
	q->managed = managed;
	q->hard_us = d->hard_us;
	q->soft_us = soft_us;
	if (rate >= 0)
		q->rate = rate;
	else if (d->nrates)
		q->rate = d->rates[(unsigned int)k % d->nrates];
	else
		q->rate = d->rate;
	q->sirq = q->soft_us > 0 ? d->k->sirq : -1;
	q->node = d->node;
	snprintf(q->name, sizeof(q->name), "%s", name);
	if (legacy) {
		snprintf(q->chip, sizeof(q->chip), "%s", d->chip);
		snprintf(q->type, sizeof(q->type), "%s", d->type);
		q->hwirq = d->hwirq >= 0 ? (unsigned long)d->hwirq :
			   irqnum == 0 ? 2 : irqnum;
	} else {
		unsigned int dom, bus, dev, fn;

		sscanf(d->bdf, "%x:%x:%x.%x", &dom, &bus, &dev, &fn);
		if (s->isa == ISA_ARM64) {
			/* GICv3 ITS: one "ITS-MSI" domain, hwirq as
			 * pci_msi_domain_calc_hwirq() (the Graviton capture
			 * under ../shared/realdata: nvme0 at 00:04.0 is 65536);
			 * the per-device ITS domains of 6.14+ are not modelled */
			snprintf(q->chip, sizeof(q->chip), "ITS-MSI");
			snprintf(q->type, sizeof(q->type), "Edge");
			q->hwirq = ((unsigned long)dom << 27) | (bus << 19) |
				   (dev << 14) | (fn << 11) | d->msi_index;
		} else if (s->kmajor * 100 + s->kminor >= 602) {
			/* per-device MSI domains: the chip names the device */
			snprintf(q->chip, sizeof(q->chip), "%sPCI-%s-%s",
				 s->ir ? "IR-" : "", d->k->msix ? "MSIX" : "MSI",
				 d->bdf);
			q->hwirq = d->msi_index;
		} else {
			snprintf(q->chip, sizeof(q->chip), "%sPCI-MSI",
				 s->ir ? "IR-" : "");
			q->hwirq = ((unsigned long)dom << 27) | (bus << 19) |
				   (dev << 14) | (fn << 11) | d->msi_index;
		}
		d->msi_index++;
	}
	if (d->hint && k >= 0 && !managed) {
		q->hint = sim_set_new(s);
		if (!q->hint)
			return -ENOMEM;
		local_spread(s, (unsigned int)k, d->node, q->hint);
	}
	if (managed) {
		managed_mask(s, (unsigned int)k, d->queues, q->aff);
		return 0;
	}
	r = set_start(x, q, d, k < 0 ? 0 : (unsigned int)k);
	if (r < 0)
		return fail(x, "start CPU list beyond the machine");
	return 0;
}

static int add_irqs(struct ctx *x, struct bdev *d)
{
	const char *kind = d->k->kind;
	double aux = d->aux_rate >= 0 ? d->aux_rate : -1;
	char name[SIM_ACTION_MAX];
	int r = 0;

	if (strcmp(kind, "legacy") == 0)
		return add_irq(x, d, -1, d->name, -1, d->soft_us, false, d->irq);
	if (strcmp(kind, "nic") == 0) {
		const char *ifn = d->ifname[0] ? d->ifname : d->name;

		if (strcmp(d->naming, "i40e") == 0 && d->misc) {
			snprintf(name, sizeof(name), "i40e-%s:misc", d->bdf);
			r = add_irq(x, d, -1, name, aux >= 0 ? aux : 0.5, 0, false,
				    take_irq(x));
		} else if (strcmp(d->naming, "mlx5") == 0 && d->misc) {
			snprintf(name, sizeof(name), "mlx5_async0@pci:%s", d->bdf);
			r = add_irq(x, d, -1, name, aux >= 0 ? aux : 0.5, 0, false,
				    take_irq(x));
		}
		for (unsigned int k = 0; r == 0 && k < d->queues; k++) {
			if (strcmp(d->naming, "i40e") == 0)
				snprintf(name, sizeof(name), "i40e-%s-TxRx-%u", ifn, k);
			else if (strcmp(d->naming, "mlx5") == 0)
				snprintf(name, sizeof(name), "mlx5_comp%u@pci:%s", k,
					 d->bdf);
			else
				snprintf(name, sizeof(name), "%s-TxRx-%u", ifn, k);
			r = add_irq(x, d, (int)k, name, -1, d->soft_us, d->managed,
				    take_irq(x));
		}
		/* ixgbe's "other causes" vector comes after the queues */
		if (r == 0 && d->misc &&
		    (!d->naming[0] || strcmp(d->naming, "ixgbe") == 0))
			r = add_irq(x, d, -1, ifn, aux >= 0 ? aux : 0.5, 0, false,
				    take_irq(x));
		return r;
	}
	if (strcmp(kind, "nvme") == 0) {
		snprintf(name, sizeof(name), "%sq0", d->name);
		r = add_irq(x, d, -1, name, aux >= 0 ? aux : 0.2, 0, false,
			    take_irq(x));
		for (unsigned int k = 0; r == 0 && k < d->queues; k++) {
			snprintf(name, sizeof(name), "%sq%u", d->name, k + 1);
			r = add_irq(x, d, (int)k, name, -1, d->soft_us, d->managed,
				    take_irq(x));
		}
		return r;
	}
	if (strcmp(kind, "hba") == 0 || strcmp(kind, "idle-irqs") == 0 ||
	    strcmp(kind, "pci") == 0) {
		const char *fmt = strcmp(kind, "hba") == 0 ? "msix" :
				  strcmp(kind, "idle-irqs") == 0 ? "TxRx-" : "";

		for (unsigned int k = 0; r == 0 && k < d->queues; k++) {
			snprintf(name, sizeof(name), "%s-%s%u", d->name, fmt, k);
			r = add_irq(x, d, (int)k, name, -1, d->soft_us, d->managed,
				    take_irq(x));
		}
		return r;
	}
	if (strcmp(kind, "ahci") == 0) {
		snprintf(name, sizeof(name), "ahci[%s]", d->bdf);
		return add_irq(x, d, 0, name, -1, d->soft_us, false, take_irq(x));
	}
	if (strcmp(kind, "usb") == 0)
		return add_irq(x, d, 0, "xhci_hcd", -1, d->soft_us, false,
			       take_irq(x));
	/* virtio: a config vector, then the queues; unknown-pci names all
	 * its vectors in irqs= */
	if (strcmp(kind, "unknown-pci") != 0) {
		snprintf(name, sizeof(name), "virtio%u-config", d->virtio);
		r = add_irq(x, d, -1, name, aux >= 0 ? aux : 0, 0, false,
			    take_irq(x));
	}
	if (strcmp(kind, "virtio-net") == 0) {
		for (unsigned int k = 0; r == 0 && k < d->queues; k++) {
			snprintf(name, sizeof(name), "virtio%u-input.%u", d->virtio, k);
			r = add_irq(x, d, (int)k, name, -1, d->soft_us, d->managed,
				    take_irq(x));
			snprintf(name, sizeof(name), "virtio%u-output.%u", d->virtio, k);
			if (r == 0)
				r = add_irq(x, d, (int)k, name,
					    (d->nrates ? d->rates[k % d->nrates] :
					     d->rate) / 2, d->soft_us / 4,
					    d->managed, take_irq(x));
		}
	} else if (strcmp(kind, "virtio-blk") == 0) {
		for (unsigned int k = 0; r == 0 && k < d->queues; k++) {
			snprintf(name, sizeof(name), "virtio%u-req.%u", d->virtio, k);
			r = add_irq(x, d, (int)k, name, -1, d->soft_us, d->managed,
				    take_irq(x));
		}
	} else {
		char names[256], *t, *save;
		int k = 0;

		snprintf(names, sizeof(names), "%s", d->irqnames);
		for (t = strtok_r(names, ",", &save); r == 0 && t;
		     t = strtok_r(NULL, ",", &save), k++) {
			snprintf(name, sizeof(name), "virtio%u-%s", d->virtio, t);
			if (strcmp(t, "config") == 0)
				r = add_irq(x, d, -1, name, aux >= 0 ? aux : 0, 0,
					    false, take_irq(x));
			else
				r = add_irq(x, d, k, name, -1, d->soft_us,
					    d->managed, take_irq(x));
		}
	}
	return r;
}

/* ---- sysfs of a device ----------------------------------------------- */

static void dev_base(const struct bdev *d, char *buf, size_t len)
{
	snprintf(buf, len, "sys/devices/pci%.7s/%s", d->bdf, d->bdf);
}

static void render_block(struct ctx *x, struct sim_out *o, const char *parent,
			 const char *disk, bool partition)
{
	unsigned int minor = x->next_minor;

	x->next_minor += 16;
	sim_out_cd(o, "%s/%s", parent, disk);
	sim_out_put(o, "uevent", "MAJOR=259\nMINOR=%u\nDEVNAME=%s\nDEVTYPE=disk\n"
	      "DISKSEQ=%u\n", minor, disk, minor / 16 + 1);
	sim_out_put(o, "dev", "259:%u\n", minor);
	sim_out_put(o, "size", "1953525168\n");
	sim_out_put(o, "removable", "0\n");
	sim_out_link(o, "subsystem", "sys/class/block");
	if (partition) {
		char part[48];
		bool digit = disk[strlen(disk) - 1] >= '0' &&
			     disk[strlen(disk) - 1] <= '9';

		snprintf(part, sizeof(part), "%s%s1", disk, digit ? "p" : "");
		sim_out_cd(o, "%s/%s/%s", parent, disk, part);
		sim_out_put(o, "uevent", "MAJOR=259\nMINOR=%u\nDEVNAME=%s\n"
		      "DEVTYPE=partition\nPARTN=1\n", minor + 1, part);
		sim_out_put(o, "partition", "1\n");
		sim_out_link(o, "subsystem", "sys/class/block");
		sim_out_cd(o, "sys/class/block");
		sim_out_link(o, part, "%s/%s/%s", parent, disk, part);
	}
	sim_out_cd(o, "sys/class/block");
	sim_out_link(o, disk, "%s/%s", parent, disk);
	sim_out_cd(o, "sys/block");
	sim_out_link(o, disk, "%s/%s", parent, disk);
}

static void render_scsi(struct ctx *x, struct sim_out *o, struct bdev *d,
			const char *parent)
{
	char host[1024], sdev[1280], disk[16];
	unsigned int h = d->host;

	snprintf(host, sizeof(host), "%s/host%u", parent, h);
	sim_out_cd(o, "%s", host);
	sim_out_put(o, "uevent", "DEVTYPE=scsi_host\n");
	sim_out_link(o, "subsystem", "sys/bus/scsi");
	sim_out_cd(o, "sys/bus/scsi/devices");
	sim_out_link(o, host + strlen(parent) + 1, "%s", host);
	sim_out_cd(o, "%s/scsi_host/host%u", host, h);
	sim_out_put(o, "uevent", "%s", "");
	sim_out_put(o, "proc_name", "%s\n", d->driver);
	sim_out_put(o, "unique_id", "%u\n", h + 1);
	sim_out_link(o, "subsystem", "sys/class/scsi_host");
	sim_out_link(o, "device", "%s", host);
	sim_out_cd(o, "sys/class/scsi_host");
	snprintf(disk, sizeof(disk), "host%u", h);
	sim_out_link(o, disk, "%s/scsi_host/host%u", host, h);
	for (unsigned int i = 0; i < d->disks; i++) {
		char name[1400];

		sim_out_cd(o, "%s/target%u:0:%u", host, h, i);
		sim_out_put(o, "uevent", "DEVTYPE=scsi_target\n");
		sim_out_link(o, "subsystem", "sys/bus/scsi");
		snprintf(sdev, sizeof(sdev), "%s/target%u:0:%u/%u:0:%u:0", host,
			 h, i, h, i);
		sim_out_cd(o, "%s", sdev);
		sim_out_put(o, "uevent", "DEVTYPE=scsi_device\nDRIVER=sd\n"
		      "MODALIAS=scsi:t-0x00\n");
		sim_out_put(o, "vendor", "SIM     \n");
		sim_out_link(o, "subsystem", "sys/bus/scsi");
		sim_out_link(o, "driver", "sys/bus/scsi/drivers/sd");
		sim_out_cd(o, "sys/bus/scsi/drivers/sd");
		sim_out_cd(o, "sys/bus/scsi/devices");
		snprintf(name, sizeof(name), "%u:0:%u:0", h, i);
		sim_out_link(o, name, "%s", sdev);
		snprintf(disk, sizeof(disk), "sd%c", 'a' + x->next_sd++ % 26);
		snprintf(name, sizeof(name), "%s/block", sdev);
		render_block(x, o, name, disk, true);
	}
}

static void render_net(struct ctx *x, struct sim_out *o, const char *parent,
		       const char *ifname, unsigned int queues)
{
	unsigned int ifindex = x->next_ifindex++;

	sim_out_cd(o, "%s/net/%s", parent, ifname);
	sim_out_put(o, "uevent", "INTERFACE=%s\nIFINDEX=%u\n", ifname, ifindex);
	sim_out_put(o, "ifindex", "%u\n", ifindex);
	sim_out_put(o, "address", "02:00:00:00:%02x:%02x\n", ifindex >> 8, ifindex & 0xff);
	sim_out_put(o, "mtu", "1500\n");
	sim_out_put(o, "operstate", "up\n");
	sim_out_put(o, "type", "1\n");
	sim_out_link(o, "subsystem", "sys/class/net");
	sim_out_link(o, "device", "%s", parent);
	for (unsigned int q = 0; q < queues; q++) {
		sim_out_cd(o, "%s/net/%s/queues/rx-%u", parent, ifname, q);
		sim_out_put(o, "rps_cpus", "0\n");
	}
	sim_out_cd(o, "sys/class/net");
	sim_out_link(o, ifname, "%s/net/%s", parent, ifname);
}

static void render_device(struct ctx *x, struct sim_out *o, struct bdev *d)
{
	struct sim *s = x->s;
	const char *kind = d->k->kind;
	char base[256], child[1024], list[40000], mask[40000];
	unsigned int dom, bus, dev, fn;

	dev_base(d, base, sizeof(base));
	sscanf(d->bdf, "%x:%x:%x.%x", &dom, &bus, &dev, &fn);
	sim_out_cd(o, "sys/devices/pci%.7s", d->bdf);
	sim_out_put(o, "uevent", "%s", "");
	sim_out_cd(o, "%s", base);
	sim_out_put(o, "uevent", "%s%s%sPCI_CLASS=%lX\nPCI_ID=%04lX:%04lX\n"
	      "PCI_SUBSYS_ID=%04lX:%04lX\nPCI_SLOT_NAME=%s\n"
	      "MODALIAS=pci:v%08lXd%08lXsv%08lXsd%08lXbc%02lXsc%02lXi%02lX\n",
	      d->driver[0] ? "DRIVER=" : "", d->driver, d->driver[0] ? "\n" : "",
	      d->class, d->vendor, d->device, d->vendor, d->device,
	      d->bdf, d->vendor, d->device, d->vendor, d->device, d->class >> 16,
	      (d->class >> 8) & 0xff, d->class & 0xff);
	sim_out_put(o, "class", "0x%06lx\n", d->class);
	sim_out_put(o, "vendor", "0x%04lx\n", d->vendor);
	sim_out_put(o, "device", "0x%04lx\n", d->device);
	sim_out_put(o, "subsystem_vendor", "0x%04lx\n", d->vendor);
	sim_out_put(o, "subsystem_device", "0x%04lx\n", d->device);
	sim_out_put(o, "revision", "0x01\n");
	sim_out_put(o, "enable", "1\n");
	sim_out_put(o, "numa_node", "%d\n", d->node);
	/* cpumask_of_node(): the node's online CPUs; all of them without NUMA */
	sim_set_zero(s, x->tmp);
	for (unsigned int c = 0; c < s->nr_cpus; c++)
		if (s->cpu[c].online && (d->node < 0 || s->cpu[c].node == d->node))
			sim_set_add(x->tmp, c);
	sim_set_list(s, x->tmp, list, sizeof(list));
	sim_set_mask(s, x->tmp, mask, sizeof(mask));
	sim_out_put(o, "local_cpulist", "%s\n", list);
	sim_out_put(o, "local_cpus", "%s\n", mask);
	sim_out_link(o, "subsystem", "sys/bus/pci");
	if (d->driver[0]) {
		sim_out_link(o, "driver", "sys/bus/pci/drivers/%s", d->driver);
		sim_out_cd(o, "sys/bus/pci/drivers/%s", d->driver);
	}
	sim_out_cd(o, "sys/bus/pci/devices");
	sim_out_link(o, d->bdf, "%s", base);
	/* The legacy line when MSI is off, else 0 ("irq" keeps the INTx pin's
	 * number on real machines; 0 is what a VM shows). */
	if (strcmp(kind, "legacy") == 0) {
		sim_out_cd(o, "%s", base);
		sim_out_put(o, "irq", "%lu\n", d->irq);
		return;
	}
	sim_out_cd(o, "%s", base);
	sim_out_put(o, "irq", "0\n");
	sim_out_put(o, "msi_bus", "1\n");
	sim_out_cd(o, "%s/msi_irqs", base);
	for (unsigned int i = 0; i < s->nr_irqs; i++) {
		char n[16];

		if (s->irqs[i].dev != d->devidx)
			continue;
		snprintf(n, sizeof(n), "%u", s->irqs[i].irq);
		sim_out_put(o, n, "%s\n", d->k->msix ? "msix" : "msi");
	}
	if (d->k->virtio) {
		const char *vdrv = strcmp(kind, "virtio-net") == 0 ? "virtio_net" :
				   strcmp(kind, "virtio-blk") == 0 ? "virtio_blk" :
				   "virtio_balloon";
		unsigned int vdev = strcmp(kind, "virtio-net") == 0 ? 1 :
				    strcmp(kind, "virtio-blk") == 0 ? 2 : 5;

		snprintf(child, sizeof(child), "%s/virtio%u", base, d->virtio);
		sim_out_cd(o, "%s", child);
		sim_out_put(o, "uevent", "DRIVER=%s\nMODALIAS=virtio:d%08Xv00001AF4\n",
		      vdrv, vdev);
		sim_out_put(o, "device", "0x%04x\n", vdev);
		sim_out_put(o, "vendor", "0x1af4\n");
		sim_out_link(o, "subsystem", "sys/bus/virtio");
		sim_out_link(o, "driver", "sys/bus/virtio/drivers/%s", vdrv);
		sim_out_cd(o, "sys/bus/virtio/drivers/%s", vdrv);
		sim_out_cd(o, "sys/bus/virtio/devices");
		sim_out_link(o, child + strlen(base) + 1, "%s", child);
		if (strcmp(kind, "virtio-net") == 0) {
			render_net(x, o, child, d->ifname[0] ? d->ifname : d->name,
				   d->queues);
		} else if (strcmp(kind, "virtio-blk") == 0) {
			char blk[1100];

			snprintf(blk, sizeof(blk), "%s/block", child);
			render_block(x, o, blk, d->name, true);
		}
		return;
	}
	if (strcmp(kind, "nic") == 0 ||
	    (strcmp(kind, "idle-irqs") == 0 && d->ifname[0])) {
		render_net(x, o, base, d->ifname[0] ? d->ifname : d->name,
			   d->queues);
	} else if (strcmp(kind, "nvme") == 0) {
		char ctrl[1024], disk[80];
		const char *num = d->name + strcspn(d->name, "0123456789");

		snprintf(ctrl, sizeof(ctrl), "%s/nvme/%s", base, d->name);
		sim_out_cd(o, "%s", ctrl);
		sim_out_put(o, "uevent", "MAJOR=239\nMINOR=%s\nDEVNAME=%s\n"
		      "NVME_TRTYPE=pcie\n", *num ? num : "0", d->name);
		sim_out_put(o, "transport", "pcie\n");
		sim_out_put(o, "address", "%s\n", d->bdf);
		sim_out_put(o, "state", "live\n");
		sim_out_put(o, "model", "SIM NVMe %s\n", d->name);
		sim_out_link(o, "subsystem", "sys/class/nvme");
		sim_out_link(o, "device", "%s", base);
		sim_out_cd(o, "sys/class/nvme");
		sim_out_link(o, d->name, "%s", ctrl);
		snprintf(disk, sizeof(disk), "%sn1", d->name);
		if (d->multipath) {
			/* CONFIG_NVME_MULTIPATH: the disk is a virtual
			 * device; the controller holds a hidden path disk. */
			char subsys[PATH_MAX], path_disk[48];

			snprintf(subsys, sizeof(subsys),
				 "sys/devices/virtual/nvme-subsystem/nvme-subsys%s",
				 *num ? num : "0");
			sim_out_cd(o, "%s", subsys);
			sim_out_put(o, "uevent", "%s", "");
			sim_out_link(o, "subsystem", "sys/class/nvme-subsystem");
			sim_out_cd(o, "sys/class/nvme-subsystem");
			sim_out_link(o, subsys + strlen("sys/devices/virtual/nvme-subsystem/"),
			       "%s", subsys);
			render_block(x, o, subsys, disk, true);
			snprintf(path_disk, sizeof(path_disk), "nvme%sc%sn1",
				 *num ? num : "0", *num ? num : "0");
			render_block(x, o, ctrl, path_disk, false);
		} else {
			render_block(x, o, ctrl, disk, true);
		}
	} else if (strcmp(kind, "hba") == 0) {
		render_scsi(x, o, d, base);
	} else if (strcmp(kind, "ahci") == 0) {
		snprintf(child, sizeof(child), "%s/ata%u", base, d->host + 1);
		sim_out_cd(o, "%s", child);
		sim_out_put(o, "uevent", "%s", "");
		render_scsi(x, o, d, child);
	} else if (strcmp(kind, "usb") == 0) {
		snprintf(child, sizeof(child), "%s/usb%u", base, d->host + 1);
		sim_out_cd(o, "%s", child);
		sim_out_put(o, "uevent", "DEVTYPE=usb_device\nDRIVER=usb\nBUSNUM=%03u\n",
		      d->host + 1);
		sim_out_link(o, "subsystem", "sys/bus/usb");
		sim_out_link(o, "driver", "sys/bus/usb/drivers/usb");
		sim_out_cd(o, "sys/bus/usb/drivers/usb");
		sim_out_cd(o, "sys/bus/usb/devices");
		sim_out_link(o, child + strlen(base) + 1, "%s", child);
	}
}

/* ---- shifts and faults ----------------------------------------------- */

/* IRQ indexes a target names: "DEV" (its queue IRQs, or all with @all),
 * "irq=N" or "action=NAME". Returns the count; @out gets up to @max. */
static int resolve(struct ctx *x, const char *target, bool all,
		   unsigned int *out, unsigned int max)
{
	struct sim *s = x->s;
	unsigned int n = 0;

	if (strncmp(target, "irq=", 4) == 0) {
		unsigned long irq;

		if (sim_parse_uint(target + 4, SIM_MAX_IRQS - 1, &irq) < 0 ||
		    !sim_find_irq(s, (unsigned int)irq))
			return fail(x, "no IRQ \"%s\"", target + 4);
		out[0] = (unsigned int)(sim_find_irq(s, (unsigned int)irq) - s->irqs);
		return 1;
	}
	for (unsigned int i = 0; i < s->nr_irqs && n < max; i++) {
		const struct sim_irq *q = &s->irqs[i];

		if (strncmp(target, "action=", 7) == 0) {
			if (strcmp(q->name, target + 7) == 0)
				out[n++] = i;
		} else if (q->dev >= 0 && strcmp(s->devs[q->dev].name, target) == 0 &&
			   (all || q->queue >= 0)) {
			out[n++] = i;
		}
	}
	if (!n)
		return fail(x, "\"%s\" names no IRQ (a device name, irq=N or "
			    "action=NAME)", target);
	return (int)n;
}

static int add_shift(struct ctx *x, const char *name, unsigned int idx,
		     double rate, double hard, double soft)
{
	struct sim *s = x->s;
	struct sim_shift *sh;

	if (s->nr_shifts % 32 == 0) {
		sh = realloc(s->shifts, (s->nr_shifts + 32) * sizeof(*sh));
		if (!sh)
			return -ENOMEM;
		s->shifts = sh;
	}
	sh = &s->shifts[s->nr_shifts++];
	snprintf(sh->name, sizeof(sh->name), "%s", name);
	sh->irq = s->irqs[idx].irq;
	sh->rate = rate;
	sh->hard_us = hard;
	sh->soft_us = soft;
	return 0;
}

static int parse_shift(struct ctx *x, char **tok, int ntok)
{
	struct sim *s = x->s;
	unsigned int *idx, *other = NULL;
	double rate = -1, hard = -1, soft = -1, scale = 1;
	double rates[MAX_RATES];
	unsigned int nrates = 0;
	const char *swap = NULL;
	int n, no = 0, r = 0;

	if (ntok < 4)
		return fail(x, "shift NAME TARGET key=value...");
	if (strlen(tok[1]) >= sizeof(s->shifts[0].name))
		return fail(x, "shift name too long");
	for (int i = 3; i < ntok; i++) {
		char *key, *v;

		kv(tok[i], &key, &v);
		if (strcmp(key, "rate") == 0)
			r = parse_num(x, key, v, &rate);
		else if (strcmp(key, "hard_us") == 0)
			r = parse_num(x, key, v, &hard);
		else if (strcmp(key, "soft_us") == 0)
			r = parse_num(x, key, v, &soft);
		else if (strcmp(key, "scale") == 0)
			r = parse_num(x, key, v, &scale);
		else if (strcmp(key, "swap") == 0 && v)
			swap = v;
		else if (strcmp(key, "rates") == 0 && v) {
			char *save, *t;

			for (t = strtok_r(v, ",", &save); t && !r && nrates < MAX_RATES;
			     t = strtok_r(NULL, ",", &save))
				r = parse_num(x, key, t, &rates[nrates++]);
		} else
			return fail(x, "shift: unknown \"%s\"", tok[i]);
		if (r < 0)
			return r;
	}
	idx = calloc(s->nr_irqs, sizeof(*idx));
	if (swap)
		other = calloc(s->nr_irqs, sizeof(*other));
	if (!idx || (swap && !other)) {
		r = -ENOMEM;
		goto out_free;
	}
	n = resolve(x, tok[2], false, idx, s->nr_irqs);
	if (n < 0) {
		r = n;
		goto out_free;
	}
	if (swap) {
		no = resolve(x, swap, false, other, s->nr_irqs);
		if (no < 0) {
			r = no;
			goto out_free;
		}
	}
	/* Both sides of a swap take the other's queue parameters, in order. */
	for (int i = 0; r == 0 && i < n; i++) {
		const struct sim_irq *q = &s->irqs[idx[i]];
		const struct sim_irq *src = swap ? &s->irqs[other[i % no]] : q;

		r = add_shift(x, tok[1], idx[i],
			      (nrates ? rates[i % nrates] : rate >= 0 ? rate :
			       src->rate) * scale,
			      hard >= 0 ? hard : src->hard_us,
			      soft >= 0 ? soft : src->soft_us);
	}
	for (int i = 0; swap && r == 0 && i < no; i++) {
		const struct sim_irq *src = &s->irqs[idx[i % n]];

		r = add_shift(x, tok[1], other[i], src->rate * scale,
			      src->hard_us, src->soft_us);
	}
out_free:
	free(idx);
	free(other);
	return r;
}

static int parse_fault(struct ctx *x, char **tok, int ntok)
{
	struct sim *s = x->s;
	unsigned long queue = ULONG_MAX, times = 0;
	const char *cpus = NULL;
	unsigned int *idx;
	bool has_times = false;
	int err = 0, n, r = 0;

	if (ntok < 3)
		return fail(x, "fault TARGET errno=NAME [cpu=LIST] [times=N] "
			    "[queue=K]");
	for (int i = 2; i < ntok; i++) {
		char *key, *v;

		kv(tok[i], &key, &v);
		if (strcmp(key, "errno") == 0 && v) {
			err = sim_errno_parse(v);
			if (!err)
				return fail(x, "fault: unknown errno \"%s\"", v);
		} else if (strcmp(key, "cpu") == 0 && v) {
			cpus = v;
			r = parse_cpus(x, v, x->tmp);
		} else if (strcmp(key, "times") == 0) {
			r = parse_count(x, key, v, INT_MAX, &times);
			has_times = true;
		} else if (strcmp(key, "queue") == 0) {
			r = parse_count(x, key, v, MAX_QUEUES, &queue);
		} else {
			return fail(x, "fault: unknown \"%s\"", tok[i]);
		}
		if (r < 0)
			return r;
	}
	if (!err)
		return fail(x, "fault: errno= is required");
	idx = calloc(s->nr_irqs, sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	n = resolve(x, tok[1], true, idx, s->nr_irqs);
	for (int i = 0; r == 0 && i < n; i++) {
		struct sim_fault *f;

		if (queue != ULONG_MAX && s->irqs[idx[i]].queue != (int)queue)
			continue;
		if (s->nr_faults % 16 == 0) {
			f = realloc(s->faults, (s->nr_faults + 16) * sizeof(*f));
			if (!f) {
				r = -ENOMEM;
				break;
			}
			s->faults = f;
		}
		f = &s->faults[s->nr_faults++];
		memset(f, 0, sizeof(*f));
		f->irq = s->irqs[idx[i]].irq;
		f->err = err;
		f->times = has_times ? (int)times : -1;
		if (cpus) {
			f->cpus = sim_set_new(s);
			if (!f->cpus)
				r = -ENOMEM;
			else
				sim_parse_list(s, cpus, strlen(cpus), f->cpus);
		}
	}
	free(idx);
	return n < 0 ? n : r;
}

/* affinity TARGET cpu=LIST [queues=A[-B]]: where these IRQs start, as an
 * admin's or an older tool's pin left them (mlx5 queues on the wrong node).
 * Managed IRQs keep the kernel's masks: a pin cannot be written to them. */
static int parse_affinity(struct ctx *x, char **tok, int ntok)
{
	struct sim *s = x->s;
	unsigned long lo = 0, hi = ULONG_MAX;
	const char *cpus = NULL;
	unsigned int *idx;
	int n, r = 0;

	if (ntok < 3)
		return fail(x, "affinity TARGET cpu=LIST [queues=A-B]");
	for (int i = 2; i < ntok && r == 0; i++) {
		char *key, *v, *dash;

		kv(tok[i], &key, &v);
		if (strcmp(key, "cpu") == 0 && v) {
			cpus = v;
			r = parse_cpus(x, v, x->tmp);
		} else if (strcmp(key, "queues") == 0 && v) {
			dash = strchr(v, '-');
			if (dash)
				*dash = '\0';
			r = parse_count(x, key, v, MAX_QUEUES, &lo);
			hi = lo;
			if (r == 0 && dash)
				r = parse_count(x, key, dash + 1, MAX_QUEUES, &hi);
		} else {
			return fail(x, "affinity: unknown \"%s\"", tok[i]);
		}
	}
	if (r < 0)
		return r;
	if (!cpus)
		return fail(x, "affinity: cpu= is required");
	idx = calloc(s->nr_irqs, sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	n = resolve(x, tok[1], false, idx, s->nr_irqs);
	for (int i = 0; i < n; i++) {
		struct sim_irq *q = &s->irqs[idx[i]];

		if (q->queue >= 0 && ((unsigned long)q->queue < lo ||
				      (unsigned long)q->queue > hi))
			continue;
		if (q->managed) {
			r = fail(x, "affinity: IRQ %u is managed", q->irq);
			break;
		}
		sim_set_copy(s, q->aff, x->tmp);
	}
	free(idx);
	return n < 0 ? n : r;
}

/* ---- events and denied paths ----------------------------------------- */

/* event WHEN ACTION [ARGS]: WHEN at=T, at=+S (S seconds after the build)
 * or write=N; ACTION offline cpu=N, online cpu=N, remove TARGET,
 * add irq=N name=ACTION [rate= hard_us= soft_us=], signal NAME. */
static int parse_event(struct ctx *x, char **tok, int ntok)
{
	struct sim *s = x->s;
	struct sim_event ev = { 0 }, *e;
	char *key, *v;
	unsigned long u;
	int r = 0;

	if (ntok < 3)
		return fail(x, "event at=T|at=+S|write=N offline|online|remove|"
			    "add|signal|exit|reuse ...");
	kv(tok[1], &key, &v);
	if (strcmp(key, "at") == 0 && v) {
		bool rel = v[0] == '+';

		ev.when = EV_AT;
		if (sim_parse_double(v + rel, &ev.at) < 0 || ev.at < 0)
			return fail(x, "event: bad time \"%s\"", v);
		if (rel)
			ev.at += s->time;
	} else if (strcmp(key, "write") == 0 && v) {
		ev.when = EV_WRITE;
		if (sim_parse_uint(v, ULONG_MAX, &ev.nth) < 0 || ev.nth == 0)
			return fail(x, "event: bad write number \"%s\"", v);
	} else {
		return fail(x, "event: at=T, at=+S or write=N first, not \"%s\"",
			    tok[1]);
	}
	if (strcmp(tok[2], "offline") == 0 || strcmp(tok[2], "online") == 0) {
		ev.what = tok[2][1] == 'f' ? EV_OFFLINE : EV_ONLINE;
		if (ntok != 4)
			return fail(x, "event: %s cpu=N", tok[2]);
		kv(tok[3], &key, &v);
		if (strcmp(key, "cpu") != 0 || !v ||
		    sim_parse_uint(v, s->nr_cpus - 1, &u) < 0 ||
		    !s->cpu[u].present)
			return fail(x, "event: %s: no present CPU \"%s\"", tok[2],
				    v ? v : "");
		ev.cpu = (unsigned int)u;
	} else if (strncmp(tok[2], "signal", 6) == 0 &&
		   (tok[2][6] == '\0' || tok[2][6] == '=')) {
		/* "signal KILL" or "signal=KILL" */
		const char *name = tok[2][6] ? tok[2] + 7 : ntok == 4 ? tok[3] : "";

		ev.what = EV_SIGNAL;
		if (ntok != (tok[2][6] ? 3 : 4) || !(ev.sig = sim_signal_parse(name)))
			return fail(x, "event: signal KILL|TERM|INT|HUP|STOP");
	} else if (strcmp(tok[2], "add") == 0) {
		ev.what = EV_ADD;
		ev.rate = 100;
		ev.hard_us = 2;
		for (int i = 3; i < ntok && r == 0; i++) {
			kv(tok[i], &key, &v);
			if (strcmp(key, "irq") == 0) {
				r = parse_count(x, key, v, SIM_MAX_IRQS - 1, &u);
				ev.irq = (unsigned int)u;
			} else if (strcmp(key, "name") == 0 && v && *v) {
				snprintf(ev.name, sizeof(ev.name), "%s", v);
				sim_unescape(ev.name);
			} else if (strcmp(key, "rate") == 0) {
				r = parse_num(x, key, v, &ev.rate);
			} else if (strcmp(key, "hard_us") == 0) {
				r = parse_num(x, key, v, &ev.hard_us);
			} else if (strcmp(key, "soft_us") == 0) {
				r = parse_num(x, key, v, &ev.soft_us);
			} else {
				return fail(x, "event add: unknown \"%s\"", tok[i]);
			}
		}
		if (r < 0)
			return r;
		if (!ev.irq || !ev.name[0])
			return fail(x, "event add: irq=N and name=ACTION are required");
	} else if (strcmp(tok[2], "exit") == 0 || strcmp(tok[2], "reuse") == 0) {
		ev.what = tok[2][0] == 'e' ? EV_EXIT : EV_REUSE;
		kv(ntok == 4 ? tok[3] : tok[2], &key, &v);
		if (ntok != 4 || strcmp(key, "pid") != 0 ||
		    parse_count(x, key, v, 4194304, &u) < 0)
			return fail(x, "event: %s pid=N", tok[2]);
		ev.irq = (unsigned int)u;
		for (u = 0; u < s->nr_threads && s->threads[u].tid != ev.irq; u++)
			;
		if (u == s->nr_threads)
			return fail(x, "event: %s: no thread %u", tok[2], ev.irq);
	} else if (strcmp(tok[2], "remove") == 0) {
		unsigned int *idx;
		int n;

		if (ntok != 4)
			return fail(x, "event: remove irq=N|DEVICE|action=NAME");
		idx = calloc(s->nr_irqs ? s->nr_irqs : 1, sizeof(*idx));
		if (!idx)
			return -ENOMEM;
		/* a device: all its vectors, as when it is unplugged */
		n = resolve(x, tok[3], true, idx, s->nr_irqs);
		ev.what = EV_REMOVE;
		for (int i = 0; i < n && r == 0; i++) {
			e = sim_add_event(s);
			if (!e) {
				r = -ENOMEM;
				break;
			}
			*e = ev;
			e->irq = s->irqs[idx[i]].irq;
		}
		free(idx);
		return n < 0 ? n : r;
	} else {
		return fail(x, "event: unknown action \"%s\"", tok[2]);
	}
	e = sim_add_event(s);
	if (!e)
		return -ENOMEM;
	*e = ev;
	return 0;
}

/* deny PATH [errno=ENOENT]: opens and stats of PATH and below fail. */
static int parse_deny(struct ctx *x, char **tok, int ntok)
{
	int err = ENOENT;
	char *key, *v;

	if (ntok < 2 || ntok > 3 || tok[1][0] != '/')
		return fail(x, "deny /PATH [errno=ENOENT|EACCES|EPERM|EIO]");
	if (ntok == 3) {
		kv(tok[2], &key, &v);
		if (strcmp(key, "errno") != 0 || !v || (err = sim_errno_parse(v)) <= 0)
			return fail(x, "deny: bad \"%s\"", tok[2]);
	}
	if (sim_add_deny(x->s, tok[1], err) < 0)
		return fail(x, "deny: path too long");
	return 0;
}

/* ---- application threads (app.c) ------------------------------------ */

struct app_args {
	char name[16];
	double load, sys;
	unsigned long threads;	/* 0: one per CPU of the list */
	bool kernel, have_cpus, have_load;
	char pod[48], container[32];
};

static int app_key(struct ctx *x, struct app_args *a, char *tok)
{
	char *key, *v;
	bool on;

	kv(tok, &key, &v);
	if (strcmp(key, "cpus") == 0) {
		a->have_cpus = true;
		if (v && strcmp(v, "all") == 0) {
			for (unsigned int c = 0; c < x->s->nr_cpus; c++)
				sim_set_add(x->tmp, c);
			return 0;
		}
		return parse_cpus(x, v, x->tmp);
	}
	if (strcmp(key, "load") == 0) {
		a->have_load = true;
		return parse_num(x, key, v, &a->load);
	}
	if (strcmp(key, "sys") == 0)
		return parse_num(x, key, v, &a->sys);
	if (strcmp(key, "threads") == 0) {
		if (v && strcmp(v, "per-cpu") == 0) {
			a->threads = 0;
			return 0;
		}
		return parse_count(x, key, v, 4096, &a->threads);
	}
	if (strcmp(key, "kernel") == 0) {
		int r = parse_onoff(x, v, &on);

		a->kernel = on;
		return r;
	}
	if (strcmp(key, "name") == 0 || strcmp(key, "pod") == 0 ||
	    strcmp(key, "container") == 0) {
		char *dst = key[0] == 'n' ? a->name : key[0] == 'p' ? a->pod : a->container;
		size_t len = key[0] == 'n' ? sizeof(a->name) : key[0] == 'p' ?
			     sizeof(a->pod) : sizeof(a->container);

		if (!v || !v[0] || strlen(v) >= len || strpbrk(v, "\"/ ()"))
			return fail(x, "%s: a name of 1 to %zu characters, no "
				    "blanks, quotes, slashes or parentheses", key, len - 1);
		snprintf(dst, len, "%s", v);
		return 0;
	}
	return fail(x, "app: unknown key \"%s\"", key);
}

/* app name=N cpus=LIST|all load=F [threads=K|per-cpu] [sys=F]
 *     [kernel=on] [pod=UID container=NAME]: one process. */
static int parse_app(struct ctx *x, char **tok, int ntok)
{
	struct app_args a = { .threads = 1, .sys = 0.1 };
	unsigned int ncpus, nthr, tgid;
	int r = 0;

	sim_set_zero(x->s, x->tmp);
	for (int i = 1; i < ntok && r == 0; i++)
		r = app_key(x, &a, tok[i]);
	if (r < 0)
		return r;
	if (!a.name[0] || !a.have_cpus || !a.have_load)
		return fail(x, "app name=N cpus=LIST|all load=F [threads=K|per-cpu] "
			    "[sys=F] [kernel=on] [pod=UID container=NAME]");
	if (!a.pod[0] != !a.container[0])
		return fail(x, "app: pod= and container= go together");
	ncpus = sim_set_count(x->s, x->tmp);
	nthr = a.threads ? (unsigned int)a.threads : ncpus;
	if (!ncpus || a.sys > 1 || a.load > 1)
		return fail(x, "app: a CPU, load and sys at most 1");
	/* load is per CPU of the list: K threads share that work */
	if (a.threads && a.load * ncpus / nthr > 1 + 1e-9)
		return fail(x, "app: %u threads cannot keep %u CPUs %.0f%% busy",
			    nthr, ncpus, 100 * a.load);
	tgid = x->next_pid;
	for (unsigned int k = 0, c = 0; k < nthr; k++) {
		struct sim_thread *t = sim_add_thread(x->s);

		if (!t)
			return -ENOMEM;
		t->tgid = tgid;
		t->tid = tgid + k;
		snprintf(t->comm, sizeof(t->comm), "%s", a.name);
		t->kernel = a.kernel;
		t->sys = a.sys;
		/* started a second after boot, the threads a tick apart */
		t->start = x->s->hz + k;
		snprintf(t->pod, sizeof(t->pod), "%s", a.pod);
		snprintf(t->container, sizeof(t->container), "%s", a.container);
		if (a.threads) {
			sim_set_copy(x->s, t->cpus, x->tmp);
			t->load = a.load * ncpus / nthr;
			continue;
		}
		while (!sim_set_test(x->tmp, c))
			c++;
		sim_set_add(t->cpus, c++);
		t->load = a.load;
	}
	/* room between processes, as PIDs are on a live machine */
	x->next_pid = tgid + nthr + 10;
	return 0;
}

/* kubelet [layout=v2|v1] [policy=static|none] [truncate=BYTES] */
static int parse_kubelet(struct ctx *x, char **tok, int ntok)
{
	unsigned long u;
	char *key, *v;
	int r = 0;

	x->kubelet = KUBELET_V2;
	snprintf(x->kubelet_policy, sizeof(x->kubelet_policy), "static");
	for (int i = 1; i < ntok && r == 0; i++) {
		kv(tok[i], &key, &v);
		if (strcmp(key, "layout") == 0 && v &&
		    (strcmp(v, "v1") == 0 || strcmp(v, "v2") == 0))
			x->kubelet = v[1] == '1' ? KUBELET_V1 : KUBELET_V2;
		else if (strcmp(key, "policy") == 0 && v && v[0] &&
			 strlen(v) < sizeof(x->kubelet_policy) && !strpbrk(v, "\"\\"))
			snprintf(x->kubelet_policy, sizeof(x->kubelet_policy), "%s", v);
		else if (strcmp(key, "truncate") == 0) {
			r = parse_count(x, key, v, 1 << 20, &u);
			x->kubelet_truncate = (long)u;
		} else {
			return fail(x, "kubelet [layout=v2|v1] [policy=static|none] "
				    "[truncate=BYTES]");
		}
	}
	return r;
}

/* ---- the description ------------------------------------------------- */

struct line {
	unsigned int no;
	int ntok;
	char *tok[64];
};

static int tokenize(char *text, struct line **ret, unsigned int *ret_n)
{
	struct line *lines = calloc(MAX_LINES, sizeof(*lines));
	unsigned int n = 0, no = 0;
	char *next;

	if (!lines)
		return -ENOMEM;
	for (char *l = text; l && *l; l = next) {
		char *hash, *save, *t;

		next = strchr(l, '\n');
		if (next)
			*next++ = '\0';
		no++;
		hash = strchr(l, '#');
		if (hash)
			*hash = '\0';
		lines[n].no = no;
		lines[n].ntok = 0;
		for (t = strtok_r(l, " \t\r", &save); t && lines[n].ntok < 64;
		     t = strtok_r(NULL, " \t\r", &save))
			lines[n].tok[lines[n].ntok++] = t;
		if (lines[n].ntok && ++n == MAX_LINES) {
			free(lines);
			return -E2BIG;
		}
	}
	*ret = lines;
	*ret_n = n;
	return 0;
}

static int global_directive(struct ctx *x, struct line *l)
{
	struct sim *s = x->s;
	const char *d = l->tok[0];
	const char *v = l->ntok > 1 ? l->tok[1] : NULL;
	unsigned long u;
	int r = 0;

	if (strcmp(d, "machine") == 0 && v) {
		snprintf(s->machine, sizeof(s->machine), "%s", v);
	} else if (strcmp(d, "hz") == 0 || strcmp(d, "timer_hz") == 0) {
		r = parse_count(x, d, v, 10000, &u);
		if (r == 0 && !u)
			return fail(x, "%s must not be 0", d);
		if (d[0] == 'h')
			s->hz = (unsigned int)u;
		else
			s->timer_hz = (unsigned int)u;
	} else if (strcmp(d, "kernel") == 0 && v) {
		long maj, min;
		char buf[16], *dot;

		snprintf(buf, sizeof(buf), "%s", v);
		dot = strchr(buf, '.');
		if (!dot)
			return fail(x, "kernel: want MAJOR.MINOR");
		*dot = '\0';
		if (sim_parse_int(buf, 2, 99, &maj) < 0 ||
		    sim_parse_int(dot + 1, 0, 99, &min) < 0)
			return fail(x, "kernel: want MAJOR.MINOR");
		s->kmajor = (int)maj;
		s->kminor = (int)min;
	} else if (strcmp(d, "arch") == 0 && v &&
		   (strcmp(v, "x86") == 0 || strcmp(v, "arm64") == 0)) {
		s->isa = v[0] == 'a' ? ISA_ARM64 : ISA_X86;
	} else if (strcmp(d, "noise") == 0 && v) {
		char buf[32], *pct;
		double a;

		snprintf(buf, sizeof(buf), "%s", v);
		pct = strchr(buf, '%');
		if (pct && pct[1] == '\0')
			*pct = '\0';
		if (sim_parse_double(buf, &a) < 0 || a < 0 || (pct ? a >= 100 : a >= 1))
			return fail(x, "noise: want a fraction below 1 or a percentage (5%%)");
		s->noise = pct ? a / 100 : a;
		s->noise_seed = 1;
		for (int i = 2; i < l->ntok && r == 0; i++) {
			char *key, *val;

			kv(l->tok[i], &key, &val);
			if (strcmp(key, "seed") == 0)
				r = parse_count(x, key, val, ULONG_MAX, &s->noise_seed);
			else if (strcmp(key, "period") == 0)
				r = parse_num(x, key, val, &s->noise_period);
			else if (strcmp(key, "on") == 0 && val &&
				 (strcmp(val, "rate") == 0 || strcmp(val, "cost") == 0))
				s->noise_cost = val[0] == 'c';
			else
				return fail(x, "noise A [seed=N] [period=S] [on=rate|cost]");
		}
		if (r == 0 && !(s->noise_period > 0))
			return fail(x, "noise: period must be above 0");
		return r;
	} else if (strcmp(d, "irqaccounting") == 0) {
		r = parse_onoff(x, v, &s->irqacct);
	} else if (strcmp(d, "interrupt_remapping") == 0) {
		r = parse_onoff(x, v, &s->ir);
	} else if (strcmp(d, "keep_current") == 0) {
		r = parse_onoff(x, v, &s->keep_current);
	} else if (strcmp(d, "managed_files") == 0 && v &&
		   (strcmp(v, "ro") == 0 || strcmp(v, "rw") == 0)) {
		s->managed_ro = v[1] == 'o';
	} else if (strcmp(d, "offline_write") == 0 && v &&
		   (strcmp(v, "einval") == 0 || strcmp(v, "ignore") == 0)) {
		s->offline_ignore = v[0] == 'i';
	} else if (strcmp(d, "uptime") == 0) {
		r = parse_num(x, d, v, &x->uptime);
	} else if (strcmp(d, "counter_offset") == 0) {
		r = parse_count(x, d, v, UINT32_MAX, &x->counter_offset);
	} else if (strcmp(d, "irq_base") == 0) {
		r = parse_count(x, d, v, SIM_MAX_IRQS - 1, &x->next_irq);
	} else if (strcmp(d, "gsi_top") == 0) {
		r = parse_count(x, d, v, 1000, &u);
		s->gsi_top = (unsigned int)u;
	} else if (strcmp(d, "background") == 0) {
		for (int i = 1; i < l->ntok && r == 0; i++) {
			char *key, *val;

			kv(l->tok[i], &key, &val);
			if (strcmp(key, "user") == 0)
				r = parse_num(x, key, val, &s->bg_user);
			else if (strcmp(key, "system") == 0)
				r = parse_num(x, key, val, &s->bg_system);
			else
				return fail(x, "background user=F system=F");
		}
	} else if (strcmp(d, "offline") == 0 || strcmp(d, "isolated") == 0 ||
		   strcmp(d, "nohz_full") == 0) {
		if (strcmp(d, "nohz_full") == 0 && v &&
		    (strcmp(v, "null") == 0 || strcmp(v, "empty") == 0 ||
		     strcmp(v, "absent") == 0)) {
			s->nohz_mode = v[0] == 'n' ? NOHZ_NULL :
				       v[0] == 'e' ? NOHZ_EMPTY : NOHZ_ABSENT;
			return 0;
		}
		r = parse_cpus(x, v, x->tmp);
		for (unsigned int c = 0; r == 0 && c < s->nr_cpus; c++) {
			if (!sim_set_test(x->tmp, c))
				continue;
			if (!s->cpu[c].present)
				return fail(x, "CPU %u is not present", c);
			if (d[0] == 'o')
				s->cpu[c].online = false;
			else if (d[0] == 'i')
				s->cpu[c].isolated = true;
			else
				s->cpu[c].nohz_full = true;
		}
	} else if (strcmp(d, "capacity") == 0 || strcmp(d, "vectors") == 0) {
		bool cap = d[0] == 'c';

		if (l->ntok != 3)
			return fail(x, "%s LIST %s", d, cap ? "CAPACITY" : "COUNT");
		r = parse_count(x, d, l->tok[2], cap ? 1024 : 256, &u);
		if (r == 0 && !u)
			return fail(x, "%s must not be 0", d);
		if (r == 0)
			r = parse_cpus(x, v, x->tmp);
		for (unsigned int c = 0; r == 0 && c < s->nr_cpus; c++) {
			if (!sim_set_test(x->tmp, c))
				continue;
			if (!s->cpu[c].present)
				return fail(x, "CPU %u is not present", c);
			if (cap)
				s->cpu[c].capacity = (unsigned int)u;
			else
				s->cpu[c].vectors = (unsigned int)u;
		}
		return r;
	} else if (strcmp(d, "default_affinity") == 0) {
		r = parse_cpus(x, v, s->default_aff);
	} else if (strcmp(d, "start") == 0) {
		r = parse_start(x, v, &x->start);
	} else {
		return fail(x, "unknown directive \"%s\"", d);
	}
	if (r == 0 && l->ntok > 2 && strcmp(d, "background") != 0)
		return fail(x, "%s: one value expected", d);
	return r;
}

static void assign_bdf(struct ctx *x, struct bdev *d)
{
	bool onboard = d->k->onboard;

	while (!d->bdf[0]) {
		char b[16];
		bool used = false;

		if (onboard)
			snprintf(b, sizeof(b), "0000:00:%02x.0", x->next_slot++);
		else
			snprintf(b, sizeof(b), "0000:%02x:00.0", x->next_bus++);
		for (unsigned int i = 0; i < x->nr_devs && !used; i++)
			used = strcmp(x->devs[i].bdf, b) == 0;
		if (!used)
			snprintf(d->bdf, sizeof(d->bdf), "%s", b);
	}
}

static int place_all(struct sim *s)
{
	uint64_t *want = sim_set_new(s), *saved;

	if (!want)
		return -ENOMEM;
	sim_recount(s);
	/* x86 activation (assign_irq_vector_any_locked()): the device node's
	 * CPUs of the mask first, then the whole mask. */
	for (unsigned int i = 0; i < s->nr_irqs; i++) {
		struct sim_irq *q = &s->irqs[i];
		int node = q->dev >= 0 ? s->devs[q->dev].node : -1;

		q->eff = -1;
		sim_set_copy(s, want, q->aff);
		if (node >= 0 && !q->managed)
			for (unsigned int c = 0; c < s->nr_cpus; c++)
				if (s->cpu[c].node != node)
					sim_set_del(want, c);
		if (sim_set_online_empty(s, want))
			sim_set_copy(s, want, q->aff);
		saved = q->aff;
		q->aff = want;
		sim_place(s, q, false);
		q->aff = saved;
		/* an empty or all-offline mask: the kernel falls back to
		 * any online CPU */
		if (q->eff < 0 && !q->managed) {
			for (unsigned int c = 0; c < s->nr_cpus; c++)
				if (s->cpu[c].online)
					sim_set_add(want, c);
			q->aff = want;
			sim_place(s, q, false);
			q->aff = saved;
		}
	}
	free(want);
	return 0;
}

static int prepare_dir(const char *dir)
{
	char path[PATH_MAX];
	int r;

	if (!dir[0] || strcmp(dir, "/") == 0 || strlen(dir) >= sizeof(path))
		return -EINVAL;
	snprintf(path, sizeof(path), "%s", dir);
	for (char *p = path + 1; ; p++) {
		if (*p == '/' || !*p) {
			char c = *p;

			*p = '\0';
			if (mkdir(path, 0755) < 0 && errno != EEXIST)
				return -errno;
			*p = c;
			if (!c)
				break;
		}
	}
	/* A rebuild replaces only what a build creates. */
	r = sim_rm_rf(dir, "sys");
	if (r == 0)
		r = sim_rm_rf(dir, "proc");
	if (r == 0)
		r = sim_rm_rf(dir, "var");
	snprintf(path, sizeof(path), "%s/%s", dir, SIM_STATE_FILE);
	if (r == 0 && unlink(path) < 0 && errno != ENOENT)
		r = -errno;
	return r;
}

int sim_build(const char *desc, const char *dir, FILE *err)
{
	struct ctx x = { .file = desc, .err = err, .next_bus = 1,
			 .next_slot = 2, .next_ifindex = 2, .uptime = 60,
			 .next_pid = 1200 };
	struct line *lines = NULL;
	unsigned int nlines = 0;
	unsigned long P = 0, C, T, N, possible, llc, clusters, E;
	int numbering = NUMBER_INTERLEAVED;
	bool have_cpus = false;
	struct sim_out o = { .dir = dir };
	FILE *f;
	char *text = NULL;
	size_t cap = 0;
	ssize_t len;
	int r;

	f = fopen(desc, "re");
	if (!f) {
		fprintf(err, "%s: %s\n", desc, strerror(errno));
		return -errno;
	}
	len = getdelim(&text, &cap, '\0', f);
	fclose(f);
	if (len < 0) {
		free(text);
		return -EIO;
	}
	r = tokenize(text, &lines, &nlines);
	if (r < 0)
		goto out_free;
	for (unsigned int i = 0; i < nlines; i++) {
		if (strcmp(lines[i].tok[0], "cpus") != 0)
			continue;
		x.line = lines[i].no;
		if (have_cpus) {
			r = fail(&x, "cpus given twice");
			goto out_free;
		}
		r = parse_cpus_line(&x, lines[i].tok, lines[i].ntok, &P, &C, &T,
				    &N, &possible, &numbering, &llc,
				    &clusters, &E);
		if (r < 0)
			goto out_free;
		have_cpus = true;
	}
	if (!have_cpus) {
		fprintf(err, "%s: no \"cpus\" line\n", desc);
		r = -EINVAL;
		goto out_free;
	}
	r = sim_alloc(&x.s, dir, (unsigned int)(possible > P * C * T + E ?
						possible : P * C * T + E));
	if (r < 0)
		goto out_free;
	x.tmp = sim_set_new(x.s);
	if (!x.tmp) {
		r = -ENOMEM;
		goto out_free;
	}
	snprintf(x.s->machine, sizeof(x.s->machine), "%.*s",
		 (int)(sizeof(x.s->machine) - 1),
		 strrchr(desc, '/') ? strrchr(desc, '/') + 1 : desc);
	make_topology(x.s, P, C, T, N, numbering, llc, clusters);
	make_ecores(x.s, P * C * T, C, E, N);
	for (unsigned int c = 0; c < x.s->nr_cpus; c++)
		sim_set_add(x.s->default_aff, c);
	x.next_irq = x.s->gsi_top;
	/* globals first: device IRQs depend on CPUs, kernel and start */
	for (unsigned int i = 0; i < nlines && r == 0; i++) {
		const char *d = lines[i].tok[0];

		x.line = lines[i].no;
		if (strcmp(d, "cpus") && strcmp(d, "shift") && strcmp(d, "fault") &&
		    strcmp(d, "event") && strcmp(d, "deny") && strcmp(d, "app") &&
		    strcmp(d, "kubelet") &&
		    strcmp(d, "affinity") && !find_kind(d))
			r = global_directive(&x, &lines[i]);
	}
	for (unsigned int i = 0; i < nlines && r == 0; i++) {
		const struct kind_info *k = find_kind(lines[i].tok[0]);

		x.line = lines[i].no;
		if (k)
			r = parse_device(&x, k, lines[i].tok, lines[i].ntok);
	}
	if (r < 0)
		goto out_free;
	/* legacy IRQs keep their numbers: take them before MSI numbering */
	for (unsigned int i = 0; i < x.nr_devs && r == 0; i++) {
		struct bdev *d = &x.devs[i];

		x.line = d->line;
		if (d->k != find_kind("legacy"))
			continue;
		if (d->bdf[0] || sim_find_irq(x.s, (unsigned int)d->irq)) {
			/* an INTx device: a PCI function with an "irq" */
			if (sim_find_irq(x.s, (unsigned int)d->irq))
				r = fail(&x, "IRQ %lu used twice", d->irq);
		}
		if (r == 0)
			r = add_irqs(&x, d);
	}
	for (unsigned int i = 0; i < x.nr_devs && r == 0; i++) {
		struct bdev *d = &x.devs[i];
		struct sim_dev *sd;

		x.line = d->line;
		if (d->k == find_kind("legacy") && !d->bdf[0])
			continue;
		if (d->k != find_kind("legacy"))
			assign_bdf(&x, d);
		if (x.s->nr_devs % 32 == 0) {
			sd = realloc(x.s->devs, (x.s->nr_devs + 32) * sizeof(*sd));
			if (!sd) {
				r = -ENOMEM;
				break;
			}
			x.s->devs = sd;
		}
		sd = &x.s->devs[x.s->nr_devs];
		memset(sd, 0, sizeof(*sd));
		snprintf(sd->name, sizeof(sd->name), "%s", d->name);
		snprintf(sd->kind, sizeof(sd->kind), "%s", d->k->kind);
		snprintf(sd->bdf, sizeof(sd->bdf), "%s", d->bdf);
		sd->node = d->node;
		d->devidx = (int)x.s->nr_devs++;
		if (d->k->virtio)
			d->virtio = x.next_virtio++;
		if (!strcmp(d->k->kind, "hba") || !strcmp(d->k->kind, "ahci") ||
		    !strcmp(d->k->kind, "usb"))
			d->host = x.next_host++;
		if (d->k == find_kind("legacy")) {
			struct sim_irq *q = sim_find_irq(x.s, (unsigned int)d->irq);

			if (q)
				q->dev = d->devidx;
		} else {
			r = add_irqs(&x, d);
		}
	}
	for (unsigned int i = 0; i < nlines && r == 0; i++) {
		x.line = lines[i].no;
		if (strcmp(lines[i].tok[0], "shift") == 0)
			r = parse_shift(&x, lines[i].tok, lines[i].ntok);
		else if (strcmp(lines[i].tok[0], "fault") == 0)
			r = parse_fault(&x, lines[i].tok, lines[i].ntok);
		else if (strcmp(lines[i].tok[0], "affinity") == 0)
			r = parse_affinity(&x, lines[i].tok, lines[i].ntok);
		else if (strcmp(lines[i].tok[0], "app") == 0)
			r = parse_app(&x, lines[i].tok, lines[i].ntok);
		else if (strcmp(lines[i].tok[0], "kubelet") == 0)
			r = parse_kubelet(&x, lines[i].tok, lines[i].ntok);
	}
	if (r < 0)
		goto out_free;
	r = place_all(x.s);
	for (unsigned int i = 0; r == 0 && i < x.s->nr_irqs; i++) {
		struct sim_irq *q = &x.s->irqs[i];

		if (q->eff >= 0 && q->rate > 0)
			q->count[q->eff] += x.counter_offset;
	}
	if (r == 0)
		sim_step(x.s, x.uptime);
	/* after the uptime: "at=+S" counts from the end of the build */
	for (unsigned int i = 0; i < nlines && r == 0; i++) {
		x.line = lines[i].no;
		if (strcmp(lines[i].tok[0], "event") == 0)
			r = parse_event(&x, lines[i].tok, lines[i].ntok);
		else if (strcmp(lines[i].tok[0], "deny") == 0)
			r = parse_deny(&x, lines[i].tok, lines[i].ntok);
	}
	if (r < 0)
		goto out_free;
	if (r == 0)
		r = prepare_dir(dir);
	if (r < 0) {
		fprintf(err, "%s: cannot prepare: %s\n", dir, strerror(-r));
		goto out_free;
	}
	r = sim_render_cpus(x.s);
	sim_out_cd(&o, "sys/bus/pci/devices");
	sim_out_cd(&o, "sys/class/net");
	sim_out_cd(&o, "sys/class/block");
	for (unsigned int i = 0; r == 0 && i < x.nr_devs; i++)
		if (x.devs[i].devidx >= 0)
			render_device(&x, &o, &x.devs[i]);
	if (r == 0)
		r = o.err;
	if (r == 0)
		r = sim_render_proc(x.s, true);
	if (r == 0 && x.kubelet != KUBELET_NONE)
		r = sim_kubelet_render(x.s, x.kubelet, x.kubelet_policy,
				       x.kubelet_truncate);
	if (r == 0)
		r = sim_save(x.s);
	if (r < 0)
		fprintf(err, "%s: cannot write the tree: %s\n", dir, strerror(-r));
out_free:
	free(lines);
	free(text);
	free(x.devs);
	free(x.tmp);
	sim_free(x.s);
	return r;
}
