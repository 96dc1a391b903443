/* irqtune.c - the command line and one run: topology + two samples -> plan
 * -> apply -> report. Owns the parsed options and nothing else global. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <argtable2.h>

#include "apply.h"
#include "cpuset.h"
#include "device.h"
#include "lock.h"
#include "pathnames.h"
#include "plan.h"
#include "report.h"
#include "sample.h"
#include "topology.h"

/* Exit statuses; documented in irqtune(8). */
enum {
	EXIT_PARTIAL = 1,		/* some IRQs could not be placed */
	EXIT_USAGE = EX_USAGE,		/* 64: bad command line */
	EXIT_NOINPUT = EX_NOINPUT,	/* 66: a kernel interface unreadable */
	EXIT_UNAVAILABLE = EX_UNAVAILABLE, /* 69: libudev unusable */
	EXIT_SOFTWARE = EX_SOFTWARE,	/* 70: out of memory, internal error */
	EXIT_TEMPFAIL = EX_TEMPFAIL,	/* 75: another run holds the lock */
	EXIT_NOPERM = EX_NOPERM,	/* 77: writing needs root */
	EXIT_CONFIG = EX_CONFIG,	/* 78: no CPU left to place IRQs on */
};

#define WINDOW_DEFAULT	1.0
#define WINDOW_MAX	3600.0
#define APPLY_ROUNDS	3	/* re-plans after refusals, bounded */

static struct {
	bool dry_run, verbose, quiet;
	double window;
	double wait_lock;
	int *banirq;
	int nr_banirq;
	const char *bancpus;
} opt;

/* Everything one run knows about one IRQ beyond the plan. */
enum outcome { OUT_KEPT, OUT_MOVED, OUT_WOULD_MOVE, OUT_MANAGED, OUT_GONE,
	       OUT_FAILED, OUT_BANNED, OUT_UNUSED };

static const char *const outcome_text[] = {
	[OUT_KEPT] = "kept",
	[OUT_MOVED] = "moved",
	[OUT_WOULD_MOVE] = "would move",
	[OUT_MANAGED] = "kernel-managed",
	[OUT_GONE] = "gone",
	[OUT_FAILED] = "FAILED",
	[OUT_BANNED] = "banned",
	[OUT_UNUSED] = "no handler",
};

struct run {
	struct topology *topo;
	struct snapshot a, b;
	struct device_map *map;
	struct irq_activity *act;
	struct plan_irq *pi;
	enum outcome *out;
	struct plan_result res;
	unsigned int nr;
};

static void usage_line(FILE *f, void **argtable)
{
	fputs("Usage: irqtune", f);
	arg_print_syntax(f, argtable, "\n");
}

static int parse_options(int argc, char **argv)
{
	struct arg_lit *dry = arg_lit0("n", "dry-run", "plan and print, write nothing");
	struct arg_dbl *win = arg_dbl0("w", "window", "SECONDS",
			"sampling window, fractions allowed (default 1)");
	struct arg_lit *verbose = arg_lit0("v", "verbose",
			"print every IRQ with the reason for its CPU");
	struct arg_lit *quiet = arg_lit0("q", "quiet", "print only errors (for cron)");
	struct arg_int *banirq = arg_intn(NULL, "banirq", "N", 0, 4096,
			"never move IRQ N (repeatable)");
	struct arg_str *bancpus = arg_str0(NULL, "bancpus", "LIST",
			"keep IRQs off these CPUs too (cpulist, e.g. 0,4-7)");
	struct arg_dbl *waitlock = arg_dbl0(NULL, "wait-lock", "SECONDS",
			"wait this long for another run to finish (default: exit)");
	struct arg_lit *version = arg_lit0("V", "version", "print the version and exit");
	struct arg_lit *help = arg_lit0("h", "help", "print this help and exit");
	struct arg_end *end = arg_end(10);
	void *argtable[] = { dry, win, verbose, quiet, banirq, bancpus, waitlock,
			     version, help, end };
	int nerr, ret = -1;

	if (arg_nullcheck(argtable) != 0) {
		fprintf(stderr, "irqtune: out of memory\n");
		ret = EXIT_SOFTWARE;
		goto out;
	}
	nerr = arg_parse(argc, argv, argtable);
	if (help->count) {
		usage_line(stdout, argtable);
		puts("Balance the work device interrupts cause across CPUs, once.\n");
		arg_print_glossary(stdout, argtable, "  %-25s %s\n");
		puts("\nSee irqtune(8) for the load estimate and exit statuses.");
		ret = 0;
		goto out;
	}
	if (version->count) {
		puts("irqtune " IRQTUNE_VERSION);
		ret = 0;
		goto out;
	}
	if (nerr > 0) {
		arg_print_errors(stderr, end, "irqtune");
		usage_line(stderr, argtable);
		ret = EXIT_USAGE;
		goto out;
	}
	opt.dry_run = dry->count > 0;
	opt.verbose = verbose->count > 0;
	opt.quiet = quiet->count > 0;
	opt.window = win->count ? win->dval[0] : WINDOW_DEFAULT;
	if (!isfinite(opt.window) || opt.window <= 0 || opt.window > WINDOW_MAX) {
		fprintf(stderr, "irqtune: --window %g: must be above 0 and at most %g seconds\n",
			opt.window, WINDOW_MAX);
		usage_line(stderr, argtable);
		ret = EXIT_USAGE;
		goto out;
	}
	opt.wait_lock = waitlock->count ? waitlock->dval[0] : 0;
	if (!isfinite(opt.wait_lock) || opt.wait_lock < 0 || opt.wait_lock > WINDOW_MAX) {
		fprintf(stderr, "irqtune: --wait-lock %g: must be from 0 to %g seconds\n",
			opt.wait_lock, WINDOW_MAX);
		usage_line(stderr, argtable);
		ret = EXIT_USAGE;
		goto out;
	}
	if (opt.verbose && opt.quiet) {
		fprintf(stderr, "irqtune: --verbose and --quiet exclude each other\n");
		usage_line(stderr, argtable);
		ret = EXIT_USAGE;
		goto out;
	}
	opt.nr_banirq = banirq->count;
	if (opt.nr_banirq) {
		opt.banirq = malloc((size_t)opt.nr_banirq * sizeof(int));
		if (!opt.banirq) {
			ret = EXIT_SOFTWARE;
			goto out;
		}
		for (int i = 0; i < opt.nr_banirq; i++) {
			if (banirq->ival[i] < 0 || (unsigned int)banirq->ival[i] >= IRQ_NUM_LIMIT) {
				fprintf(stderr, "irqtune: --banirq %d: not an IRQ number\n",
					banirq->ival[i]);
				usage_line(stderr, argtable);
				ret = EXIT_USAGE;
				goto out;
			}
			opt.banirq[i] = banirq->ival[i];
		}
	}
	if (bancpus->count)
		opt.bancpus = strdup(bancpus->sval[0]);
out:
	arg_freetable(argtable, sizeof(argtable) / sizeof(argtable[0]));
	return ret;
}

static bool irq_banned(unsigned int irq)
{
	for (int i = 0; i < opt.nr_banirq; i++)
		if ((unsigned int)opt.banirq[i] == irq)
			return true;
	return false;
}

static void sleep_window(double seconds)
{
	struct timespec ts = {
		.tv_sec = (time_t)seconds,
		.tv_nsec = (long)((seconds - floor(seconds)) * 1e9),
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

static int take(struct snapshot *s)
{
	const char *path = NULL;
	unsigned int line = 0;
	int r = snapshot_take(s, &path, &line);

	if (r < 0) {
		if (line)
			fprintf(stderr, "irqtune: %s:%u: cannot parse: %s\n",
				path, line, strerror(-r));
		else
			fprintf(stderr, "irqtune: cannot read %s: %s\n",
				path ? path : "/proc", strerror(-r));
	}
	return r;
}

static const char *device_label(const struct run *run, unsigned int i,
				char *buf, size_t len)
{
	const struct irq_info *ii = &run->map->irqs[i];
	const struct device_group *g;

	if (ii->group < 0)
		return "";
	g = &run->map->groups[ii->group];
	if (g->label[0] && strcmp(g->label, g->id) != 0)
		snprintf(buf, len, "%s %s", g->label, g->id);
	else
		snprintf(buf, len, "%s", g->id);
	return buf;
}

/* Fill the planner's view of every IRQ from the samples and /proc/irq. */
static int build_plan_input(struct run *run)
{
	run->nr = run->b.intr->nr_rows;
	run->pi = calloc(run->nr ? run->nr : 1, sizeof(*run->pi));
	run->out = calloc(run->nr ? run->nr : 1, sizeof(*run->out));
	if (!run->pi || !run->out)
		return -ENOMEM;
	for (unsigned int i = 0; i < run->nr; i++) {
		const struct irq_info *ii = &run->map->irqs[i];
		const struct irq_activity *ac = &run->act[i];
		struct plan_irq *pi = &run->pi[i];

		pi->irq = ii->irq;
		pi->class = ii->class;
		pi->group = ii->group;
		pi->node = ii->node;
		pi->pinned = ii->pinned;
		pi->served = ac->top_cpu >= 0 ? ac->top_cpu :
			     ii->effective >= 0 ? ii->effective : ii->pinned;
		pi->load = ac->load;
		run->out[i] = OUT_KEPT;
		if (ii->gone)
			run->out[i] = OUT_GONE;
		else if (!ii->name[0])
			run->out[i] = OUT_UNUSED;
		else if (irq_banned(ii->irq))
			run->out[i] = OUT_BANNED;
		else if (ii->managed)
			run->out[i] = OUT_MANAGED;
		pi->fixed = run->out[i] != OUT_KEPT;
	}
	return 0;
}

static const char *errno_name_note(int err)
{
	switch (err) {
	case EIO:
	case EPERM:
		return " (kernel-managed)";
	case ENOSPC:
		return " (no free interrupt vector)";
	case EINVAL:
		return " (CPU offline?)";
	default:
		return "";
	}
}

/* Write the plan; a refusal fixes that IRQ where it is and re-plans the rest,
 * so its load is counted where it really stays. */
static int apply_plan(struct run *run, const struct plan_policy *pol)
{
	for (int round = 0; round < APPLY_ROUNDS; round++) {
		bool replan = false;
		int r;

		if (round > 0) {
			plan_result_release(&run->res);
			r = plan_compute(run->topo, run->pi, run->nr, pol, &run->res);
			if (r < 0)
				return r;
		}
		for (unsigned int i = 0; i < run->nr; i++) {
			struct plan_irq *pi = &run->pi[i];
			const struct irq_info *ii = &run->map->irqs[i];
			struct apply_result ar;
			int cpus[1 + PLAN_ALTS];
			char name[DEVICE_NAME_MAX * 4];

			if (!plan_moves(pi))
				continue;
			cpus[0] = pi->target;
			memcpy(cpus + 1, pi->alt, sizeof(pi->alt));
			apply_irq(pi->irq, cpus, 1 + PLAN_ALTS, &ar);
			report_escape(name, sizeof(name), ii->name);
			switch (ar.outcome) {
			case APPLY_MOVED:
				run->out[i] = OUT_MOVED;
				pi->target = ar.cpu;
				pi->pinned = ar.cpu;
				pi->served = ar.cpu;
				continue;
			case APPLY_MANAGED:
				run->out[i] = OUT_MANAGED;
				break;
			case APPLY_GONE:
				run->out[i] = OUT_GONE;
				break;
			case APPLY_FAILED:
				run->out[i] = OUT_FAILED;
				fprintf(stderr, "irqtune: irq %u (%s): cannot set affinity to %d: %s%s, left at %s\n",
					pi->irq, name, pi->target, strerror(ar.err),
					errno_name_note(ar.err), ar.now);
				break;
			}
			pi->fixed = true;
			replan = true;
		}
		if (!replan)
			return 0;
	}
	return 0;
}

static void minmax(const struct run *run, const double *load, double *lo, double *hi)
{
	int cpu;

	*lo = *hi = 0;
	for (cpu = cpuset_first(run->topo->online); cpu >= 0;
	     cpu = cpuset_next(run->topo->online, cpu)) {
		if (cpu == cpuset_first(run->topo->online) || load[cpu] < *lo)
			*lo = load[cpu];
		if (load[cpu] > *hi)
			*hi = load[cpu];
	}
}

static int report(struct run *run, int was_moved_before)
{
	struct report_totals t = { .dry_run = opt.dry_run };
	bool all = opt.verbose || opt.dry_run;
	bool header = false;

	(void)was_moved_before;
	for (unsigned int i = 0; i < run->nr; i++) {
		const struct irq_info *ii = &run->map->irqs[i];
		const struct plan_irq *pi = &run->pi[i];
		enum outcome o = run->out[i];
		char dev[2 * DEVICE_NAME_MAX + 2];
		struct report_line l;

		if (o == OUT_UNUSED)
			continue;
		t.seen++;
		if (o == OUT_KEPT && plan_moves(pi) && opt.dry_run)
			o = run->out[i] = OUT_WOULD_MOVE;
		t.movable += o == OUT_KEPT || o == OUT_MOVED || o == OUT_WOULD_MOVE ||
			     o == OUT_FAILED;
		t.moved += o == OUT_MOVED || o == OUT_WOULD_MOVE;
		t.managed += o == OUT_MANAGED;
		t.failed += o == OUT_FAILED;
		if (opt.quiet || (!all && (o == OUT_KEPT || o == OUT_BANNED ||
					   o == OUT_GONE)))
			continue;
		if (!header) {
			report_header(stdout, opt.verbose);
			header = true;
		}
		l = (struct report_line){
			.irq = ii->irq,
			.name = ii->name,
			.device = device_label(run, i, dev, sizeof(dev)),
			.class = ii->class,
			.from = ii->affinity[0] ? ii->affinity : "?",
			.to = o == OUT_MOVED || o == OUT_WOULD_MOVE || o == OUT_KEPT ?
			      pi->target : -1,
			.load = run->act[i].load,
			.outcome = outcome_text[o],
			.reason = opt.verbose ? plan_reason_text(pi->reason) : NULL,
		};
		report_line(stdout, &l);
	}
	minmax(run, run->res.before, &t.before_min, &t.before_max);
	minmax(run, run->res.after, &t.after_min, &t.after_max);
	if (!opt.quiet)
		report_summary(stdout, &t);
	return t.failed ? EXIT_PARTIAL : 0;
}

static void run_release(struct run *run)
{
	topology_free(run->topo);
	snapshot_release(&run->a);
	snapshot_release(&run->b);
	device_map_free(run->map);
	free(run->act);
	free(run->pi);
	free(run->out);
	plan_result_release(&run->res);
}

static int do_run(void)
{
	struct plan_policy pol = {
		.threshold = PLAN_DEFAULT_THRESHOLD,
		.idle_load = PLAN_DEFAULT_IDLE_LOAD,
	};
	struct cpuset *banned = NULL;
	struct run run = { 0 };
	enum irq_class *class = NULL;
	struct stat st;
	int r, ret;

	if (opt.bancpus) {
		banned = cpuset_new(CPU_ID_LIMIT);
		if (!banned)
			return EXIT_SOFTWARE;
		r = cpulist_parse(opt.bancpus, banned);
		if (r < 0) {
			fprintf(stderr, "irqtune: --bancpus '%s': %s\n", opt.bancpus,
				r == -ERANGE ? "CPU id out of range" : "not a cpulist (e.g. 0,4-7)");
			cpuset_free(banned);
			return EXIT_USAGE;
		}
	}
	r = topology_read("", banned, &run.topo);
	cpuset_free(banned);
	if (r < 0) {
		fprintf(stderr, "irqtune: cannot read the CPU topology under %s: %s\n",
			_PATH_SYS_CPU, strerror(-r));
		return EXIT_NOINPUT;
	}
	if (cpuset_count(run.topo->eligible) == 0) {
		fprintf(stderr, "irqtune: no CPU left for IRQs: every online CPU is isolated, nohz_full or banned\n");
		ret = EXIT_CONFIG;
		goto out;
	}
	if (stat(_PATH_PROC_IRQ, &st) < 0) {
		fprintf(stderr, "irqtune: cannot read %s: %s (in a container?); nothing to balance\n",
			_PATH_PROC_IRQ, strerror(errno));
		ret = EXIT_NOINPUT;
		goto out;
	}
	ret = EXIT_NOINPUT;
	if (take(&run.a) < 0)
		goto out;
	sleep_window(opt.window);
	if (take(&run.b) < 0)
		goto out;
	r = device_scan(run.b.intr, run.topo->nr_ids, &run.map);
	if (r < 0) {
		fprintf(stderr, "irqtune: cannot map IRQs to devices with libudev: %s\n",
			strerror(-r));
		ret = r == -ENOMEM ? EXIT_SOFTWARE : EXIT_UNAVAILABLE;
		goto out;
	}
	class = calloc(run.map->nr_irqs ? run.map->nr_irqs : 1, sizeof(*class));
	ret = EXIT_SOFTWARE;
	if (!class)
		goto out;
	for (unsigned int i = 0; i < run.map->nr_irqs; i++)
		class[i] = run.map->irqs[i].class;
	r = sample_estimate(&run.a, &run.b, class, sysconf(_SC_CLK_TCK), &run.act);
	if (r < 0) {
		fprintf(stderr, "irqtune: cannot compare the two samples: %s\n", strerror(-r));
		goto out;
	}
	if (build_plan_input(&run) < 0)
		goto out;
	r = plan_compute(run.topo, run.pi, run.nr, &pol, &run.res);
	if (r < 0) {
		fprintf(stderr, "irqtune: cannot plan: %s\n", strerror(-r));
		ret = r == -ENOSPC ? EXIT_CONFIG : EXIT_SOFTWARE;
		goto out;
	}
	if (!opt.dry_run) {
		r = apply_plan(&run, &pol);
		if (r < 0) {
			fprintf(stderr, "irqtune: cannot re-plan: %s\n", strerror(-r));
			goto out;
		}
	}
	ret = report(&run, 0);
out:
	free(class);
	run_release(&run);
	return ret;
}

int main(int argc, char **argv)
{
	int ret = parse_options(argc, argv), lock_fd = -1;

	if (ret >= 0)
		goto out;
	if (!opt.dry_run && geteuid() != 0) {
		fprintf(stderr, "irqtune: writing IRQ affinities needs root; use --dry-run to only plan\n");
		ret = EXIT_NOPERM;
		goto out;
	}
	if (!opt.dry_run) {
		lock_fd = lock_take(_PATH_RUN_LOCK, opt.wait_lock);
		if (lock_fd == -EWOULDBLOCK) {
			if (!opt.quiet)
				fprintf(stderr, "irqtune: another run holds %s; not running\n",
					_PATH_RUN_LOCK);
			ret = EXIT_TEMPFAIL;
			goto out;
		}
		if (lock_fd < 0) {
			fprintf(stderr, "irqtune: cannot lock %s: %s%s\n", _PATH_RUN_LOCK,
				strerror(-lock_fd), lock_fd == -EPERM ?
				" (not a regular file of ours: a symlink or someone else's file?)" : "");
			ret = EX_CANTCREAT;
			goto out;
		}
	}
	ret = do_run();
	lock_release(lock_fd);
out:
	free(opt.banirq);
	free((char *)opt.bancpus);
	if (fflush(stdout) != 0 && ret == 0)
		ret = EX_IOERR;
	return ret;
}
