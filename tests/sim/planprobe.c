// SPDX-License-Identifier: GPL-2.0-or-later
/* planprobe.c - irqtune's planner (plan.c) fed the model's TRUE per-IRQ
 * loads instead of irqtune's estimate, to tell planner error from estimate
 * error in the quality benchmark (tests/bench/quality.sh):
 *
 *	planprobe [-v] DIR
 *
 * prints "key value" lines: probe_max_load (busiest online CPU under the
 * plan, managed load included), probe_ratio (over the score's lower_bound,
 * like load_ratio), probe_moves, and probe_moves_second (what a second run
 * under the same load would move: 0 for a stable planner), and
 * probe_smt_max_load (the busiest CPU counting half its SMT siblings'
 * load, irqtune's objective on SMT machines: issue 34). It writes
 * nothing. The planner sees what irqtune would: CPUs and their cores and
 * nodes, each IRQ's class from its device kind, its device as the group, the
 * device's node (else the IRQ's /proc/irq/N/node, as device.c reads it), its
 * single-CPU affinity as pinned, managed IRQs fixed where they run.
 * On a machine with application threads it also gets their true pinned
 * load per CPU (plan_policy.app, in CPUs of the biggest: a thread's share
 * of a smaller CPU is that much less work) and prints probe_whole_max_load
 * and probe_irq_on_app_pct, the figures of irqsim score and oracle. With
 * -v, first "probe.irq.N CPU" for every IRQ: where the plan puts it, to set
 * beside irqsim oracle -v's placements. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "plan.h"
#include "topology.h"

static enum irq_class class_of(const struct sim *s, const struct sim_irq *q)
{
	static const char *const net[] = { "nic", "virtio-net", "idle-irqs" };
	static const char *const storage[] = { "nvme", "hba", "ahci", "virtio-blk" };
	const char *kind;

	if (q->dev < 0)
		return CLASS_OTHER;
	kind = s->devs[q->dev].kind;
	for (unsigned int k = 0; k < sizeof(net) / sizeof(net[0]); k++)
		if (!strcmp(kind, net[k]))
			return CLASS_NET;
	for (unsigned int k = 0; k < sizeof(storage) / sizeof(storage[0]); k++)
		if (!strcmp(kind, storage[k]))
			return CLASS_STORAGE;
	return CLASS_OTHER;
}

static struct topology *topology_of(const struct sim *s)
{
	struct topology *t = topology_new(s->nr_cpus);
	int nodes = 0;

	if (!t)
		return NULL;
	for (unsigned int c = 0; c < s->nr_cpus; c++) {
		const struct sim_cpu *sc = &s->cpu[c];
		struct cpu_info *ci = &t->cpus[c];

		ci->online = sc->online;
		ci->capacity = sc->capacity;	/* 0: full, as topology.c */
		ci->package = sc->package;
		ci->node = sc->node;
		ci->avoid = (sc->isolated ? AVOID_ISOLATED : 0) |
			    (sc->nohz_full ? AVOID_NOHZ_FULL : 0);
		if (sc->node + 1 > nodes)
			nodes = sc->node + 1;
		if (!sc->online)
			continue;
		/* core and LLC leaders: the lowest online CPU sharing them */
		for (unsigned int o = 0; o <= c; o++) {
			const struct sim_cpu *so = &s->cpu[o];

			if (!so->online || so->package != sc->package)
				continue;
			if (ci->core < 0 && so->core == sc->core)
				ci->core = (int)o;
			if (ci->llc < 0 && so->llc == sc->llc)
				ci->llc = (int)o;
		}
	}
	t->nr_nodes = nodes;
	topology_update_sets(t);
	return t;
}

static int single_cpu(const struct sim *s, const uint64_t *set)
{
	int cpu = -1;

	for (unsigned int c = 0; c < s->nr_cpus; c++) {
		if (!sim_set_test(set, c))
			continue;
		if (cpu >= 0)
			return -1;
		cpu = (int)c;
	}
	return cpu;
}

static double plan_peak(const struct sim *s, const struct plan_irq *v,
			double *load)
{
	double peak = 0;

	memset(load, 0, s->nr_cpus * sizeof(*load));
	for (unsigned int i = 0; i < s->nr_irqs; i++) {
		const struct sim_irq *q = &s->irqs[i];
		int cpu = v[i].fixed ? q->eff : v[i].target;

		/* busy time: longer on a smaller CPU, as the score counts */
		if (cpu >= 0 && s->cpu[cpu].online)
			load[cpu] += sim_irq_load(q) * sim_slowdown(s, (unsigned int)cpu);
	}
	for (unsigned int c = 0; c < s->nr_cpus; c++)
		if (s->cpu[c].online && load[c] > peak)
			peak = load[c];
	return peak;
}

/* -v: where the plan puts each IRQ (a fixed one: where it is) */
static void print_plan(const struct sim *s, const struct plan_irq *v)
{
	for (unsigned int i = 0; i < s->nr_irqs; i++)
		printf("probe.irq.%u %d\n", s->irqs[i].irq,
		       v[i].fixed ? s->irqs[i].eff : v[i].target);
}

int main(int argc, char **argv)
{
	struct plan_policy pol = {
		.threshold = PLAN_DEFAULT_THRESHOLD,
		.idle_load = PLAN_DEFAULT_IDLE_LOAD,
	};
	unsigned int *vec = NULL;
	struct plan_result res;
	struct topology *t = NULL;
	struct plan_irq *v = NULL;
	struct sim *s = NULL;
	double *load = NULL, *app = NULL, *app_w = NULL, peak, smt, lb;
	double pct = 0, on_app = 0, whole = 0;
	int whole_cpu = -1;
	unsigned int moves, moves2;
	bool verbose = false;
	int r;

	verbose = argc == 3 && !strcmp(argv[1], "-v");
	argv += verbose;
	if (argc != 2 + verbose) {
		fputs("usage: planprobe [-v] DIR\n", stderr);
		return 2;
	}
	r = sim_load(argv[1], &s);
	if (r < 0) {
		fprintf(stderr, "planprobe: %s: %s\n", argv[1], strerror(-r));
		return 1;
	}
	t = topology_of(s);
	v = calloc(s->nr_irqs + 1, sizeof(*v));
	load = calloc(s->nr_cpus, sizeof(*load));
	vec = calloc(s->nr_cpus, sizeof(*vec));
	if (!t || !v || !load || !vec) {
		r = -ENOMEM;
		goto out;
	}
	/* the free vectors the VECTOR file shows irqtune (x86) */
	for (unsigned int c = 0; c < s->nr_cpus; c++)
		vec[c] = s->cpu[c].online ? sim_vectors_free(s, c) : 0;
	if (s->isa == ISA_X86)
		pol.vec_avail = vec;
	if (s->nr_threads) {
		app = calloc(s->nr_cpus, sizeof(*app));
		app_w = calloc(s->nr_cpus, sizeof(*app_w));
		if (!app || !app_w) {
			r = -ENOMEM;
			goto out;
		}
		sim_app_load(s, app);
		for (unsigned int c = 0; c < s->nr_cpus; c++)
			app_w[c] = app[c] / sim_slowdown(s, c);
		pol.app = app_w;
	}
	for (unsigned int i = 0; i < s->nr_irqs; i++) {
		const struct sim_irq *q = &s->irqs[i];
		int node = q->dev >= 0 ? s->devs[q->dev].node : -1;

		v[i].irq = q->irq;
		v[i].class = class_of(s, q);
		v[i].group = q->dev;
		v[i].node = node >= 0 ? node : q->node < 0 ? 0 : q->node;
		v[i].pinned = single_cpu(s, q->aff);
		v[i].served = q->eff;
		v[i].fixed = q->managed;
		v[i].load = sim_irq_load(q);
	}
	r = plan_compute(t, v, s->nr_irqs, &pol, &res);
	if (r < 0)
		goto out;
	moves = res.nr_moves;
	plan_result_release(&res);
	peak = plan_peak(s, v, load);
	smt = sim_smt_peak(s, load);
	if (verbose)
		print_plan(s, v);
	if (app)
		sim_app_figures(s, load, app, &pct, &on_app, &whole, &whole_cpu);
	/* the plan applied: what would the next run do? It sees the
	 * vectors the plan left free */
	for (unsigned int c = 0; c < s->nr_cpus; c++)
		vec[c] = s->cpu[c].online ? sim_vectors(s, c) : 0;
	for (unsigned int i = 0; i < s->nr_irqs; i++) {
		int cpu = v[i].fixed ? s->irqs[i].eff : v[i].target;

		if (!v[i].fixed)
			v[i].pinned = v[i].served = v[i].target;
		if (cpu >= 0 && vec[cpu])
			vec[cpu]--;
	}
	r = plan_compute(t, v, s->nr_irqs, &pol, &res);
	if (r < 0)
		goto out;
	moves2 = res.nr_moves;
	plan_result_release(&res);
	lb = sim_lower_bound(s);
	printf("probe_max_load %.6f\n", peak);
	printf("probe_ratio %.6f\n", lb > 0 ? peak / lb : 1.0);
	printf("probe_smt_max_load %.6f\n", smt);
	printf("probe_moves %u\n", moves);
	printf("probe_moves_second %u\n", moves2);
	if (app) {
		printf("probe_whole_max_load %.6f\n", whole);
		printf("probe_irq_on_app_pct %.2f\n", pct);
	}
out:
	if (r < 0)
		fprintf(stderr, "planprobe: %s: cannot plan: %s\n", argv[1],
			strerror(-r));
	free(load);
	free(app);
	free(app_w);
	free(vec);
	free(v);
	topology_free(t);
	sim_free(s);
	return r < 0 ? 1 : 0;
}
