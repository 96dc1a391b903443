// SPDX-License-Identifier: GPL-2.0-or-later
/* irqtune.c - the command line and one run: configuration + topology + two
 * samples -> policy -> plan -> apply -> report, each step one call into
 * the module that owns it (machine.c, loadstep.c, planrun.c, output.c,
 * runcapture.c, ...), and exit_status(), the one place a run's outcome
 * becomes an exit status. Owns the parsed options and nothing else
 * global. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>
#include <argtable2.h>

#include "appload.h"
#include "capture.h"
#include "compat.h"
#include "config.h"
#include "cpuset.h"
#include "device.h"
#include "fileio.h"
#include "irqthread.h"
#include "json.h"
#include "kubelet.h"
#include "loadsrc.h"
#include "loadstep.h"
#include "lock.h"
#include "log.h"
#include "machine.h"
#include "netfollow.h"
#include "output.h"
#include "pathnames.h"
#include "plan.h"
#include "packrun.h"
#include "planrun.h"
#include "policy.h"
#include "replay.h"
#include "report.h"
#include "runcapture.h"
#include "sample.h"
#include "source.h"
#include "strutil.h"
#include "topology.h"
#include "vectors.h"

/* Exit statuses; documented in irqtune(8). */
enum {
	EXIT_PARTIAL = 1,		/* some IRQs could not be placed */
	EXIT_BALANCER = 2,		/* irqbalance runs: writing would fight it */
	EXIT_USAGE = EX_USAGE,		/* 64: bad command line */
	EXIT_BADCAPTURE = EX_DATAERR,	/* 65: --replay: the capture is not one */
	EXIT_NOINPUT = EX_NOINPUT,	/* 66: a kernel interface unreadable */
	EXIT_NOCPU = EX_UNAVAILABLE,	/* 69: no CPU left to place IRQs on */
	EXIT_SOFTWARE = EX_SOFTWARE,	/* 70: out of memory, internal error */
	EXIT_NOMEASURE = EX_OSERR,	/* 71: --load-source=bpf, and it cannot measure */
	EXIT_NODEVICES = EX_OSFILE,	/* 72: libudev cannot enumerate devices */
	EXIT_CANTCREAT = EX_CANTCREAT,	/* 73: the lock file is not ours, or --capture's cannot be written */
	EXIT_IOERR = EX_IOERR,		/* 74: stdout or the metrics file failed */
	EXIT_TEMPFAIL = EX_TEMPFAIL,	/* 75: another run holds the lock */
	EXIT_NOPERM = EX_NOPERM,	/* 77: writing needs root */
	EXIT_CONFIG = EX_CONFIG,	/* 78: the configuration file is bad */
};

#define WINDOW_DEFAULT	1.0
#define WINDOW_MAX	CONFIG_WINDOW_MAX

/* The command line, parsed: what parse_options() fills and the run reads. */
struct options {
	bool dry_run, verbose, quiet, json, syslog, no_config, no_state;
	bool ignore_balancer;
	bool window_set;
	double window;
	double wait_lock;
	unsigned int *banirq;	/* the configuration takes it over */
	int nr_banirq;		/* -1: not given */
	char *bancpus;
	char *avoidcpus;
	char *config;		/* NULL: _PATH_CONFIG if it exists */
	char *metrics_file;
	const char *load_source;	/* NULL: not given */
	enum bpfload_build bpf_build;	/* IRQTUNE_BPF_BUILD, a test switch */
	char *capture;		/* --capture FILE */
	char *replay;		/* --replay FILE */
	int argc;
	char **argv;		/* for the capture's record of the command */
};

/* The steps of a run, in order: where it stopped says, with the -errno it
 * stopped on, what exit_status() makes of it. */
enum step {
	STEP_OPTIONS,		/* the command line */
	STEP_INPUT,		/* --replay's file read, --capture's begun */
	STEP_CONFIG,		/* the configuration file */
	STEP_OVERRIDES,		/* the command line over it */
	STEP_BANS,
	STEP_ROOT,
	STEP_LOCK,
	STEP_BALANCER,		/* irqbalance, if it runs */
	STEP_MACHINE,		/* the CPUs, /proc/irq */
	STEP_SOURCE,		/* the load source chosen */
	STEP_WINDOW,		/* the snapshots */
	STEP_DEVICES,
	STEP_LOAD,		/* each IRQ's load, weighed with the history */
	STEP_PLAN,
	STEP_APPLY,
	STEP_REPORT,		/* stdout, the metrics file */
	STEP_CAPTURE,		/* --capture's file written */
};

struct run {
	struct options *opt;
	enum step step;			/* the one running, or where it stopped */
	int lock_fd;			/* -1: none taken */
	const char *metrics_file;	/* the option's or the file's; NULL: none */
	struct config cfg;
	struct irqthreads thr;		/* threaded IRQs' threads, if any */
	struct appthreads app;		/* user threads, for the pinned application load */
	struct compat_bans bans;	/* every banned CPU, by source */
	struct kubelet_state kubelet;	/* its exclusive CPUs; ABSENT: not read */
	char avoid[1024];		/* cfg.avoidcpus with the kubelet's, a cpulist */
	struct topology *topo;
	struct sample_window win;	/* the snapshots, and where their counts come from */
	struct loadsrc src;
	bool src_chosen;
	bool threshold_auto;		/* no threshold set: the evidence sets it */
	struct device_map *map;
	struct loadstep load;		/* each IRQ's load, and the history's note */
	struct policy pol;
	struct plan_irq *pi;
	enum report_outcome *out;
	struct plan_result res;
	struct packrun pack;		/* placement = pack's pool */
	struct netfollow_result *net;	/* XPS and NAPI threads; NULL: not reached */
	bool planned;
	unsigned int nr;
	double started, locked;		/* CLOCK_REALTIME */
	struct timespec t0;		/* CLOCK_MONOTONIC, start of the work */
	/* --capture records into fs.cap, --replay serves from it; else live. */
	struct source fs;
	char host[256];			/* a replay's captured hostname */
	/* Handed from one step of balance() to the next: */
	struct plan_policy plan_pol;
	double *app_plan;		/* plan_pol.app's */
	struct vector_info vec;		/* the x86 vector matrix, or why not */
};

static double realtime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void usage_line(FILE *f, void **argtable)
{
	fputs("Usage: irqtune", f);
	arg_print_syntax(f, argtable, "\n");
}

/* Said once, with the usage line: -EINVAL. */
static int usage_error(void **argtable, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int usage_error(void **argtable, const char *fmt, ...)
{
	va_list ap;

	fputs("irqtune: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	usage_line(stderr, argtable);
	return -EINVAL;
}

/* The options, as argtable2 parses them; in the order of the help. */
struct args {
	struct arg_lit *dry;
	struct arg_dbl *win;
	struct arg_lit *verbose, *quiet;
	struct arg_int *banirq;
	struct arg_str *bancpus, *avoidcpus;
	struct arg_dbl *waitlock;
	struct arg_str *config;
	struct arg_lit *noconfig, *nostate, *json;
	struct arg_str *metrics, *source, *capture, *replay;
	struct arg_lit *use_syslog, *ignore_bal, *version, *help;
	struct arg_end *end;
};

static void args_new(struct args *a)
{
	a->dry = arg_lit0("n", "dry-run", "plan and print, write nothing");
	a->win = arg_dbl0("w", "window", "SECONDS",
			  "sampling window, fractions allowed (default 1)");
	a->verbose = arg_lit0("v", "verbose", "print every IRQ with the reason for its CPU");
	a->quiet = arg_lit0("q", "quiet", "print only errors (for cron)");
	a->banirq = arg_intn(NULL, "banirq", "N", 0, 4096,
			     "never move IRQ N (repeatable; replaces the file's banirq)");
	a->bancpus = arg_str0(NULL, "bancpus", "LIST",
			      "keep IRQs off these CPUs too (cpulist, e.g. 0,4-7)");
	a->avoidcpus = arg_str0(NULL, "avoid-cpus", "LIST",
				"use these CPUs only when nothing else is allowed (cpulist)");
	a->waitlock = arg_dbl0(NULL, "wait-lock", "SECONDS",
			       "wait this long for another run to finish (default: exit)");
	a->config = arg_str0("c", "config", "PATH",
			     "read this configuration file (default " _PATH_CONFIG ")");
	a->noconfig = arg_lit0(NULL, "no-config", "read no configuration file");
	a->nostate = arg_lit0(NULL, "no-state",
			      "neither use nor keep the load history of earlier runs");
	a->json = arg_lit0(NULL, "json", "print the plan and outcome as JSON instead of text");
	a->metrics = arg_str0(NULL, "metrics-file", "PATH",
			      "write Prometheus metrics to PATH (replaced atomically)");
	a->source = arg_str0(NULL, "load-source", "auto|bpf|proc",
			     "measure the load in the kernel, or estimate it from /proc");
	a->capture = arg_str0(NULL, "capture", "FILE",
			      "a dry run that also writes everything it read to FILE");
	a->replay = arg_str0(NULL, "replay", "FILE",
			     "plan from a capture instead of this machine (no root)");
	a->use_syslog = arg_lit0(NULL, "syslog", "log to syslog even at a terminal");
	a->ignore_bal = arg_lit0(NULL, "ignore-other-balancer",
				 "write even while irqbalance is running");
	a->version = arg_lit0("V", "version", "print the version and exit");
	a->help = arg_lit0("h", "help", "print this help and exit");
	a->end = arg_end(10);
}

/* The strings and numbers of @a into @opt, each checked. 0, -EINVAL
 * (said) or -ENOMEM. */
static int options_from(const struct args *a, void **argtable, struct options *opt)
{
	opt->dry_run = a->dry->count > 0;
	opt->verbose = a->verbose->count > 0;
	opt->quiet = a->quiet->count > 0;
	opt->json = a->json->count > 0;
	opt->syslog = a->use_syslog->count > 0;
	opt->no_config = a->noconfig->count > 0;
	opt->no_state = a->nostate->count > 0;
	opt->ignore_balancer = a->ignore_bal->count > 0;
	opt->window_set = a->win->count > 0;
	opt->window = a->win->count ? a->win->dval[0] : WINDOW_DEFAULT;
	if (!isfinite(opt->window) || opt->window <= 0 || opt->window > WINDOW_MAX)
		return usage_error(argtable, "--window %g: must be above 0 and at most %g seconds",
				   opt->window, WINDOW_MAX);
	opt->wait_lock = a->waitlock->count ? a->waitlock->dval[0] : 0;
	if (!isfinite(opt->wait_lock) || opt->wait_lock < 0 || opt->wait_lock > WINDOW_MAX)
		return usage_error(argtable, "--wait-lock %g: must be from 0 to %g seconds",
				   opt->wait_lock, WINDOW_MAX);
	if (opt->verbose && opt->quiet)
		return usage_error(argtable, "--verbose and --quiet exclude each other");
	if (a->config->count && opt->no_config)
		return usage_error(argtable, "--config and --no-config exclude each other");
	if (a->banirq->count) {
		opt->banirq = malloc((size_t)a->banirq->count * sizeof(*opt->banirq));
		if (!opt->banirq)
			return -ENOMEM;
		for (int i = 0; i < a->banirq->count; i++) {
			if (a->banirq->ival[i] < 0 ||
			    (unsigned int)a->banirq->ival[i] >= IRQ_NUM_LIMIT)
				return usage_error(argtable, "--banirq %d: not an IRQ number",
						   a->banirq->ival[i]);
			opt->banirq[i] = (unsigned int)a->banirq->ival[i];
		}
		opt->nr_banirq = a->banirq->count;
	}
	if ((a->bancpus->count && !(opt->bancpus = strdup(a->bancpus->sval[0]))) ||
	    (a->avoidcpus->count && !(opt->avoidcpus = strdup(a->avoidcpus->sval[0]))) ||
	    (a->config->count && !(opt->config = strdup(a->config->sval[0]))) ||
	    (a->metrics->count && !(opt->metrics_file = strdup(a->metrics->sval[0]))))
		return -ENOMEM;
	if (a->source->count) {
		char words[128];

		opt->load_source = config_load_source_parse(loadsrc_names, a->source->sval[0]);
		config_load_source_words(loadsrc_names, false, words, sizeof(words));
		if (!opt->load_source)
			return usage_error(argtable, "--load-source '%s': must be %s",
					   a->source->sval[0], words);
	}
	/* Read here, the edge: the modules take it as a parameter. */
	if (bpfload_build_parse(getenv("IRQTUNE_BPF_BUILD"), &opt->bpf_build) < 0) {
		fprintf(stderr, "irqtune: IRQTUNE_BPF_BUILD '%s': must be context, handlers or raw\n",
			getenv("IRQTUNE_BPF_BUILD"));
		return -EINVAL;
	}
	if ((a->capture->count && !(opt->capture = strdup(a->capture->sval[0]))) ||
	    (a->replay->count && !(opt->replay = strdup(a->replay->sval[0]))))
		return -ENOMEM;
	if (opt->capture && opt->replay)
		return usage_error(argtable, "--capture and --replay exclude each other");
	if ((opt->capture && !*opt->capture) || (opt->replay && !*opt->replay))
		return usage_error(argtable, "--%s: empty path",
				   opt->capture ? "capture" : "replay");
	/* A replay writes nothing, and its window is the one captured. */
	if (opt->replay && (opt->metrics_file || opt->window_set || a->waitlock->count))
		return usage_error(argtable, "--replay takes no --%s",
				   opt->metrics_file ? "metrics-file" :
				   opt->window_set ? "window (the captured window is replayed)" :
				   "wait-lock");
	/* Both only ever plan: a capture is a dry run that keeps what it read. */
	if (opt->capture || opt->replay)
		opt->dry_run = true;
	if (opt->metrics_file && !*opt->metrics_file)
		return usage_error(argtable, "--metrics-file: empty path");
	return 0;
}

/* 1: run, 0: done (--help, --version), or -EINVAL (said) or -ENOMEM. */
static int parse_options(int argc, char **argv, struct options *opt)
{
	struct args a;
	int nerr, ret = 1;

	args_new(&a);
	void *argtable[] = { a.dry, a.win, a.verbose, a.quiet, a.banirq, a.bancpus, a.avoidcpus,
			     a.waitlock, a.config, a.noconfig, a.nostate, a.json, a.metrics, a.source,
			     a.capture, a.replay, a.use_syslog, a.ignore_bal, a.version, a.help,
			     a.end };

	if (arg_nullcheck(argtable) != 0) {
		fprintf(stderr, "irqtune: out of memory\n");
		ret = -ENOMEM;
		goto out;
	}
	nerr = arg_parse(argc, argv, argtable);
	if (a.help->count) {
		usage_line(stdout, argtable);
		puts("Balance the work device interrupts cause across CPUs, once.\n");
		arg_print_glossary(stdout, argtable, "  %-25s %s\n");
		puts("\nSee irqtune(8) for the load estimate and exit statuses,\n"
		     "irqtune.conf(5) for the configuration file.");
		ret = 0;
	} else if (a.version->count) {
		puts("irqtune " IRQTUNE_VERSION);
		ret = 0;
	} else if (nerr > 0) {
		arg_print_errors(stderr, a.end, "irqtune");
		usage_line(stderr, argtable);
		ret = -EINVAL;
	} else {
		ret = options_from(&a, argtable, opt);
		if (ret == 0)
			ret = 1;
	}
out:
	arg_freetable(argtable, sizeof(argtable) / sizeof(argtable[0]));
	return ret;
}

/* The configuration file; for a replay the captured one, unless -c or
 * --no-config says otherwise: the site's file of the machine captured,
 * not this one's. */
static int load_config(struct run *run)
{
	const struct options *opt = run->opt;
	const char *path = opt->config ? opt->config : _PATH_CONFIG;
	struct config *cfg = &run->cfg;
	struct config_error err;
	int r;

	config_init(cfg);
	cfg->load_sources = loadsrc_names;
	if (opt->no_config)
		return 0;
	if (run->fs.mode == SOURCE_REPLAY && !opt->config) {
		r = replay_config(run->fs.cap, cfg, &err);
		if (r == -EINVAL) {
			log_msg(LOG_ERR, "capture %s: %s:%u: %s", opt->replay, REPLAY_CONFIG,
				err.line, err.msg);
			return -EBADMSG;
		}
	} else {
		r = config_load(path, cfg, &err);
		if (r == 0)
			replay_keep_config(&run->fs, path);
		if (r == -ENOENT && !opt->config)
			return 0;		/* no file: defaults */
		if (r < 0 && r != -ENOMEM && err.line)
			log_msg(LOG_ERR, "%s:%u: %s", path, err.line, err.msg);
		else if (r < 0 && r != -ENOMEM)
			log_msg(LOG_ERR, "%s: %s", path, err.msg);
	}
	if (r == -ENOMEM)
		log_msg(LOG_ERR, "out of memory");
	return r;
}

/* --@name's cpulist @value (NULL: not given) in place of the file's *@to.
 * 0, -EINVAL (said) or -ENOMEM. */
static int cpus_option(const char *name, const char *value, struct cpuset **to)
{
	struct cpuset *set;
	int r;

	if (!value)
		return 0;
	set = cpuset_new(CPU_ID_LIMIT);
	if (!set)
		return -ENOMEM;
	r = cpulist_parse(value, set);
	if (r < 0) {
		fprintf(stderr, "irqtune: --%s '%s': %s\n", name, value,
			r == -ERANGE ? "CPU id out of range" : "not a cpulist (e.g. 0,4-7)");
		cpuset_free(set);
		return -EINVAL;
	}
	cpuset_free(*to);
	*to = set;
	return 0;
}

/* The command line over the configuration file. */
static int apply_options(struct run *run)
{
	struct options *opt = run->opt;
	struct config *cfg = &run->cfg;
	int r;

	if (opt->window_set || cfg->window <= 0)
		cfg->window = opt->window;
	/* A replay's window is the one captured (--window is refused). */
	if (run->fs.mode == SOURCE_REPLAY &&
	    replay_meta_double(run->fs.cap, "window", &cfg->window) < 0)
		cfg->window = opt->window;
	run->threshold_auto = cfg->threshold < 0;
	if (cfg->threshold < 0)
		cfg->threshold = PLAN_DEFAULT_THRESHOLD;
	if (opt->load_source)
		cfg->load_source = opt->load_source;
	if (opt->nr_banirq >= 0) {
		config_take_banirq(cfg, opt->banirq, (unsigned int)opt->nr_banirq);
		opt->banirq = NULL;
	}
	r = cpus_option("bancpus", opt->bancpus, &cfg->bancpus);
	if (r == 0)
		r = cpus_option("avoid-cpus", opt->avoidcpus, &cfg->avoidcpus);
	if (r < 0)
		return r;
	if (cfg->app_weight < 0)
		cfg->app_weight = 1.0;
	if (cfg->exclusive == CONFIG_EXCLUSIVE_UNSET)
		cfg->exclusive = CONFIG_EXCLUSIVE_AVOID;
	/* A replay writes nothing, the captured machine's metrics file least. */
	run->metrics_file = opt->metrics_file ? opt->metrics_file :
			    opt->replay ? NULL : cfg->metrics_file;
	return 0;
}

/* The kubelet's exclusive CPUs (its static CPU manager's), through
 * run->fs as irqbalance's files are: banned or avoided as exclusive-cpus
 * says. A file that is not the kubelet's whole checkpoint is named and
 * ignored. -ENOMEM only. */
static int kubelet_cpus(struct run *run)
{
	struct config *cfg = &run->cfg;
	const char *path = cfg->kubelet_state ? cfg->kubelet_state : _PATH_KUBELET_CPU_STATE;
	const struct cpuset *ex;
	int r;

	if (cfg->exclusive == CONFIG_EXCLUSIVE_IGNORE)
		return 0;
	r = kubelet_read(&run->fs, path, CPU_ID_LIMIT, &run->kubelet);
	if (r < 0)
		return r;
	if (run->kubelet.status == KUBELET_BAD)
		log_msg(LOG_WARNING, "%s: ignored: %s", path, run->kubelet.why);
	ex = run->kubelet.exclusive;
	if (run->kubelet.status != KUBELET_READ || !cpuset_count(ex))
		return 0;
	if (cfg->exclusive == CONFIG_EXCLUSIVE_BAN)
		return compat_add_ban(&run->bans, cpuset_dup(ex), "kubelet cpu_manager_state");
	if (!cfg->avoidcpus && !(cfg->avoidcpus = cpuset_new(CPU_ID_LIMIT)))
		return -ENOMEM;
	cpuset_or(cfg->avoidcpus, ex);
	return 0;
}

/* The bans of the command line or the file, then irqbalance's and the
 * isolated partitions' added to them, each with its source. Their files
 * and variables are read through run->fs: a capture keeps them as they
 * were, and a replay parses those, never this machine's. */
static int gather_bans(struct run *run)
{
	static const char *const defaults[] = {
		_PATH_IRQBALANCE_DEFAULT, _PATH_IRQBALANCE_SYSCONFIG, NULL,
	};
	const struct options *opt = run->opt;
	struct config *cfg = &run->cfg;
	struct compat_sources src = {
		.fs = &run->fs,
		.off = cfg->irqbalance_off,
		.getenv_fn = getenv,
		.envfile = cfg->irqbalance_env,
		.defaults = defaults,
		.cgroup_isolated = _PATH_CGROUP_ISOLATED,
	};
	char from[PATH_MAX + 16];
	int r = 0;

	snprintf(from, sizeof(from), "bancpus in %s", opt->config ? opt->config : _PATH_CONFIG);
	if (cfg->bancpus)
		r = compat_add_ban(&run->bans, cpuset_dup(cfg->bancpus),
				   opt->bancpus ? "--bancpus" : from);
	if (r == 0)
		r = compat_collect(&src, &run->bans);
	if (r == 0)
		r = kubelet_cpus(run);
	if (r == 0 && !cfg->bancpus && run->bans.nr && !(cfg->bancpus = cpuset_new(CPU_ID_LIMIT)))
		r = -ENOMEM;
	if (r < 0) {
		log_msg(LOG_ERR, "out of memory");
		return r;
	}
	for (unsigned int i = 0; i < run->bans.nr_warnings; i++)
		log_msg(LOG_WARNING, "%s", run->bans.warnings[i]);
	if (run->bans.nr_dropped)
		log_msg(LOG_WARNING, "%u more warnings about irqbalance's settings not shown",
			run->bans.nr_dropped);
	for (unsigned int i = 0; i < run->bans.nr; i++)
		cpuset_or(cfg->bancpus, run->bans.bans[i].cpus);
	if (cfg->avoidcpus && cpulist_format(cfg->avoidcpus, run->avoid, sizeof(run->avoid)) < 0)
		str_copy(run->avoid, sizeof(run->avoid), "(long list)");
	return 0;
}

static int check_root(struct run *run)
{
	if (!run->opt->dry_run && geteuid() != 0) {
		log_msg(LOG_ERR, "writing IRQ affinities needs root; use --dry-run to only plan");
		return -EPERM;
	}
	return 0;
}

/* A run that writes holds the lock; the work starts once it does. */
static int take_lock(struct run *run)
{
	int fd;

	if (!run->opt->dry_run) {
		fd = lock_take(_PATH_RUN_LOCK, run->opt->wait_lock);
		if (fd == -EWOULDBLOCK) {
			if (!run->opt->quiet)
				fprintf(stderr, "irqtune: another run holds %s; not running\n",
					_PATH_RUN_LOCK);
			log_event(LOG_NOTICE, "another run holds %s; not running",
				  _PATH_RUN_LOCK);
			return fd;
		}
		if (fd < 0) {
			log_msg(LOG_ERR, "cannot lock %s: %s%s", _PATH_RUN_LOCK, strerror(-fd),
				fd == -EPERM ? " (not a regular file of ours: a symlink or "
				"someone else's file?)" : "");
			return fd;
		}
		run->lock_fd = fd;
		run->locked = realtime();
	}
	clock_gettime(CLOCK_MONOTONIC, &run->t0);
	return 0;
}

/* Two balancers rewriting the same affinities fight: a run that writes
 * refuses while irqbalance runs, unless told otherwise. */
static int other_balancer(struct run *run)
{
	const struct options *opt = run->opt;
	char name[32];
	pid_t pid;
	int r;

	/* A replay's machine is not this one, and it writes nothing anyway. */
	if (opt->ignore_balancer || run->cfg.other_balancer == CONFIG_BALANCER_IGNORE ||
	    opt->replay)
		return 0;
	r = compat_find_balancer(_PATH_PROC, &pid, name, sizeof(name));
	if (r < 0)
		log_msg(LOG_WARNING, "cannot list %s to look for irqbalance: %s; going on",
			_PATH_PROC, strerror(-r));
	if (r <= 0)
		return 0;
	if (opt->dry_run) {
		log_msg(LOG_NOTICE, "%s (pid %d) is running: a run that writes would refuse "
			"(--ignore-other-balancer overrides); this dry run writes nothing",
			name, (int)pid);
		return 0;
	}
	log_msg(LOG_ERR, "%s (pid %d) is running and balances IRQs itself: writing none, "
		"so as not to fight it (stop and disable it, or --ignore-other-balancer)",
		name, (int)pid);
	return -EBUSY;
}

/* What the machine steps read of the run. */
static struct machine_input machine_input(struct run *run)
{
	return (struct machine_input){
		.fs = &run->fs, .capture = run->opt->replay, .banned = run->cfg.bancpus,
	};
}

/* The machine's CPUs, and its IRQs to balance at all: -ENOSPC when no CPU
 * is left for them. */
static int read_machine(struct run *run)
{
	const struct machine_input in = machine_input(run);

	return machine_read(&in, &run->topo, &run->vec);
}

/* What the load steps read of the run, and the parts they fill. */
static struct loadstep_input load_input(struct run *run)
{
	return (struct loadstep_input){
		.fs = &run->fs, .capture = run->opt->replay,
		.want = run->cfg.load_source, .build = run->opt->bpf_build,
		.seconds = run->cfg.window, .counts_env = getenv("IRQTUNE_COUNTS"),
		.online = run->topo ? cpuset_count(run->topo->online) : 0,
		/* the program counts pinned threads only where they are planned around */
		.eligible = run->topo && run->cfg.app_weight > 0 ? cpuset_count(run->topo->eligible) : 0,
		.no_state = run->opt->no_state, .dry_run = run->opt->dry_run,
		.state_dir = run->cfg.state_dir,
		.map = run->map, .win = &run->win, .src = &run->src, .thr = &run->thr,
		.app = run->cfg.app_weight > 0 ? &run->app : NULL,
		.nr_ids = run->topo ? run->topo->nr_ids : 0,
	};
}

/* The load source: the kernel program, or for a replay the measurement
 * the capture holds. */
static int choose_source(struct run *run)
{
	const struct loadstep_input in = load_input(run);
	int r;

	run->app.limit = APPLOAD_THREADS_MAX;
	run->app.online = run->topo->online;
	run->app.eligible = run->topo->eligible;
	r = loadstep_choose(&run->load, &in);

	run->src_chosen = r == 0;
	return r;
}

/* The two snapshots around the window, the load source running over it. */
static int take_window(struct run *run)
{
	const struct loadstep_input in = load_input(run);

	return loadstep_window(&in);
}

/* The CPUs still online at the window's end (-ENOSPC: none is left for
 * IRQs), and the device behind each IRQ. */
static int map_devices(struct run *run)
{
	const struct machine_input in = machine_input(run);

	return machine_devices(&in, run->topo, run->win.b.intr, &run->map);
}

/* Each IRQ's load: the measurement or the estimate, weighed with the
 * history. -EPROTO: the measurement disagrees with /proc/interrupts. */
static int weigh_load(struct run *run)
{
	const struct loadstep_input in = load_input(run);
	const struct appload *a = &run->load.app;
	int r = loadstep_weigh(&run->load, &in);

	if (r == 0 && run->opt->verbose && (a->threads_pinned || a->capped))
		log_msg(LOG_INFO, "application load: %u pinned threads counted of %u user "
			"threads read%s", a->threads_pinned, a->threads_seen,
			a->capped ? " (capped: the rest not read)" : "");
	return r;
}

/* The site policy, the planner's input, the evidence's threshold, then
 * the plan. -ENOSPC: no CPU to plan on. */
static int plan(struct run *run)
{
	struct plan_policy *pol = &run->plan_pol;
	int r;

	pol->threshold = run->cfg.threshold;
	pol->idle_load = PLAN_DEFAULT_IDLE_LOAD;
	/* One clock tick of the window (the estimate checked it is > 0). */
	pol->resolution = 1.0 / ((double)run->load.hz * (run->win.b.when - run->win.a.when));
	pol->vec_avail = run->vec.status == VECTORS_READ ? run->vec.avail : NULL;
	/* The pinned threads' load, placed around as fixed load; NULL where
	 * there is none, so that such a plan is today's. */
	r = appload_for_plan(&run->load.app, run->cfg.app_weight, run->topo, &run->app_plan);
	if (r < 0)
		return r;
	pol->app = run->app_plan;
	pol->cpu_alone = run->cfg.placement == CONFIG_PLACEMENT_PACK;
	r = policy_build(&run->cfg, run->topo, run->map, &run->pol);
	if (r < 0)
		return r;
	run->nr = run->win.b.intr->nr_rows;
	/* IRQs whose writes the kernel refused on earlier runs of this boot
	 * and kernel (6.1's managed NVMe queues): kernel-managed, unwritten. */
	loadstep_mark_refused(&run->load, run->map);
	r = planrun_build(&(struct planrun_parts){ .map = run->map, .act = run->load.act,
						  .pol = &run->pol, .topo = run->topo,
						  .nr = run->nr },
			  &run->pi, &run->out);
	if (r == 0)
		r = loadstep_evidence(&run->load, run->pi, run->nr, run->topo->nr_ids,
				      run->threshold_auto, pol);
	if (r == 0)
		r = packrun_step(&run->pack, &run->cfg, run->topo, pol, &run->load,
				 run->opt->dry_run, run->pi, run->nr);
	if (r < 0)
		return r;
	r = plan_compute(run->topo, run->pi, run->nr, pol, &run->res);
	if (r < 0)
		log_msg(LOG_ERR, "cannot plan: %s", strerror(-r));
	return r;
}

/* The network path follows the placement: XPS masks, NAPI threads. */
static int follow_network(struct run *run)
{
	struct netfollow_ctx ctx = {
		.map = run->map, .topo = run->topo, .pi = run->pi, .out = run->out,
		.xps = run->cfg.xps != CONFIG_FOLLOW_OFF,
		.napi = run->cfg.napi_threads != CONFIG_FOLLOW_OFF,
		.dry_run = run->opt->dry_run, .src = &run->fs,
		.counts_only = !loadsrc_measured(&run->src),
	};
	int r = netfollow_run(&ctx, &run->net);

	if (r < 0)
		log_msg(LOG_ERR, "cannot follow the network path: %s", strerror(-r));
	return r;
}

/* The IRQs whose writes the kernel refused as kernel-managed in this run
 * though their files are writable, remembered for the next runs. */
static int remember_refused(struct run *run)
{
	bool *refused = calloc(run->nr + 1, sizeof(*refused));
	int r;

	if (!refused)
		return -ENOMEM;
	for (unsigned int i = 0; i < run->nr; i++)
		refused[i] = run->out[i] == OUT_MANAGED && !run->map->irqs[i].managed;
	r = loadstep_refused(&run->load, run->map, refused);
	free(refused);
	return r;
}

/* The plan written, or a dry run's moves marked as such. -EIO: some
 * writes were refused (the run's report says which). */
static int apply(struct run *run)
{
	int r;

	r = planrun_apply(run->topo, &run->plan_pol, run->map, run->pi, run->out, run->nr,
			  &run->res, run->opt->dry_run);
	if (r < 0)
		return r;
	run->planned = true;
	r = remember_refused(run);
	if (r < 0)
		return r;
	/* After the IRQs, whatever became of some of them: the network
	 * path follows those that were placed. */
	r = follow_network(run);
	if (r < 0)
		return r;
	for (unsigned int i = 0; i < run->nr; i++)
		if (run->out[i] == OUT_FAILED)
			return -EIO;
	return run->net && run->net->failed ? -EIO : 0;
}

struct step_fn {
	enum step step;
	int (*fn)(struct run *run);
};

/* Run @steps in order up to the first that fails; run->step says which. */
static int run_steps(struct run *run, const struct step_fn *steps, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		int r;

		run->step = steps[i].step;
		r = steps[i].fn(run);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Sample, plan and apply. */
static int balance(struct run *run)
{
	static const struct step_fn steps[] = {
		{ STEP_BALANCER, other_balancer },
		{ STEP_MACHINE, read_machine },
		{ STEP_SOURCE, choose_source },
		{ STEP_WINDOW, take_window },
		{ STEP_DEVICES, map_devices },
		{ STEP_LOAD, weigh_load },
		{ STEP_PLAN, plan },
		{ STEP_APPLY, apply },
	};

	return run_steps(run, steps, sizeof(steps) / sizeof(steps[0]));
}

/* The one place an outcome becomes an exit status of irqtune(8): the step
 * a run stopped at and the -errno it stopped on. Each step said why
 * first. A run that is out of memory, or whose capture is not one
 * (-EBADMSG), stops so at any step. */
static int exit_status(enum step step, int r)
{
	if (r >= 0)
		return 0;
	if (r == -ENOMEM)
		return EXIT_SOFTWARE;
	if (r == -EBADMSG)
		return EXIT_BADCAPTURE;
	switch (step) {
	case STEP_OPTIONS:
	case STEP_OVERRIDES:
		return EXIT_USAGE;
	case STEP_INPUT:	/* --replay's file, not there or not one */
		return r == -ENOENT || r == -EACCES || r == -EPERM || r == -EISDIR ?
		       EXIT_NOINPUT : EXIT_BADCAPTURE;
	case STEP_CONFIG:
		return EXIT_CONFIG;
	case STEP_ROOT:
		return EXIT_NOPERM;
	case STEP_LOCK:
		return r == -EWOULDBLOCK ? EXIT_TEMPFAIL : EXIT_CANTCREAT;
	case STEP_BALANCER:
		return EXIT_BALANCER;
	case STEP_MACHINE:
		return r == -ENOSPC ? EXIT_NOCPU : EXIT_NOINPUT;
	case STEP_SOURCE:
		return EXIT_NOMEASURE;
	case STEP_WINDOW:
		return EXIT_NOINPUT;
	case STEP_DEVICES:
		return r == -ENOSPC ? EXIT_NOCPU : EXIT_NODEVICES;
	case STEP_LOAD:
		return r == -EPROTO ? EXIT_NOMEASURE : EXIT_SOFTWARE;
	case STEP_PLAN:
		return r == -ENOSPC ? EXIT_NOCPU : EXIT_SOFTWARE;
	case STEP_APPLY:
		return r == -EIO ? EXIT_PARTIAL : EXIT_SOFTWARE;
	case STEP_REPORT:
		return EXIT_IOERR;
	case STEP_CAPTURE:
		return EXIT_CANTCREAT;
	default:
		return EXIT_SOFTWARE;
	}
}

static double elapsed(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) +
	       (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

/* The report's data as the run left it. */
static int build_report(const struct run *run, struct report_run *rr, struct report_store *st)
{
	const struct report_input in = {
		.dry_run = run->opt->dry_run,
		.topo = run->topo,
		.vec = run->topo ? &run->vec : NULL,
		.bans = &run->bans,
		.planned = run->planned,
		.nr = run->nr,
		.map = run->map,
		.act = run->load.act,
		.proc_act = run->src.proc_act,
		.window_load = run->load.window_load,
		.pol = &run->pol,
		.pi = run->pi,
		.out = run->out,
		.res = &run->res,
		.app = run->src_chosen ? &run->load.app : NULL,
		.app_weight = run->cfg.app_weight > 0 ? run->cfg.app_weight : 0,
		.kubelet = run->cfg.exclusive != CONFIG_EXCLUSIVE_IGNORE &&
			   run->step > STEP_BANS ? &run->kubelet : NULL,
		.avoid = run->avoid[0] ? run->avoid : NULL,
	};

	rr->window = run->cfg.window;
	if (run->win.b.intr) {
		rr->window_from = run->win.a.when;
		rr->window_to = run->win.b.when;
		rr->counts = run->win.counts == SNAPSHOT_STAT ? "stat" : "interrupts";
		rr->counts_reason = run->win.reason;
	}
	if (run->src_chosen) {
		rr->load_source = loadsrc_name(&run->src);
		rr->load_source_reason = run->src.reason;
		rr->history = run->load.note[0] ? run->load.note : NULL;
		rr->estimate_found = run->load.found.set ? &run->load.found : NULL;
	}
	rr->started = run->started;
	rr->hostname = run->fs.mode == SOURCE_REPLAY ? run->host : NULL;
	rr->locked = run->locked;
	rr->netpath = run->net;
	return report_build(&in, rr, st);
}

/* Everything a run reports, whether it got to a plan or not: @status so
 * far, or that of the report failing. */
static int finish(struct run *run, int status)
{
	const struct options *opt = run->opt;
	struct report_run rr = { 0 };
	struct report_store st;

	if (build_report(run, &rr, &st) < 0) {
		log_msg(LOG_ERR, "out of memory");
		report_store_release(&st);
		return exit_status(STEP_REPORT, -ENOMEM);
	}
	output_text(stdout, &(struct output_opts){
			    .verbose = opt->verbose, .quiet = opt->quiet, .json = opt->json,
			    .dry_run = opt->dry_run, .planned = run->planned,
			    .both = run->src.proc_act != NULL, .net = run->net }, &rr);
	rr.status = status;
	rr.duration = elapsed(&run->t0);
	rr.finished = realtime();
	if (run->metrics_file && output_metrics(run->metrics_file, &rr) < 0 && status == 0)
		status = rr.status = exit_status(STEP_REPORT, -EIO);
	if (opt->json && json_report(stdout, &rr) < 0 && status == 0)
		status = exit_status(STEP_REPORT, -EIO);
	report_store_release(&st);
	return status;
}

/* What --capture's meta member records of the run so far. */
static struct runcapture_parts capture_parts(const struct run *run)
{
	return (struct runcapture_parts){
		.started = run->started, .argc = run->opt->argc, .argv = run->opt->argv,
		.window = run->cfg.window, .win = &run->win, .costs_now = run->load.costs_now,
		.src = run->src_chosen ? &run->src : NULL, .begin_reason = run->load.begin_reason,
	};
}

/* --capture's file, whatever the run's outcome: a failed run is what a
 * bug report is about. @status, or that of the capture not written. */
static int write_capture(struct run *run, int status)
{
	const struct runcapture_parts p = capture_parts(run);
	int r = runcapture_write(&run->fs, run->opt->capture, &p, status);

	return r < 0 ? exit_status(STEP_CAPTURE, r) : status;
}

/* --replay's file, read whole and checked before anything else runs; or
 * --capture's record begun; then the log, which cron, systemd and udev
 * give no terminal to: their runs go to syslog. Not a replay's: its
 * machine is another, and it writes nothing. */
static int open_input(struct run *run)
{
	const struct options *opt = run->opt;
	const struct runcapture_parts p = capture_parts(run);
	int r;

	r = runcapture_open(&run->fs, opt->replay, opt->capture != NULL, &p, run->host,
			    sizeof(run->host));
	if (r < 0)
		return r;
	if ((opt->syslog || !isatty(STDOUT_FILENO)) && !opt->replay)
		log_open_syslog();
	return 0;
}

static void run_release(struct run *run)
{
	lock_release(run->lock_fd);
	config_release(&run->cfg);
	compat_bans_release(&run->bans);
	topology_free(run->topo);
	vectors_release(&run->vec);
	sample_window_release(&run->win);
	irqthread_release(&run->thr);
	appthreads_release(&run->app);
	kubelet_release(&run->kubelet);
	free(run->app_plan);
	loadsrc_release(&run->src);
	policy_release(&run->pol);
	device_map_free(run->map);
	free(run->pi);
	free(run->out);
	plan_result_release(&run->res);
	packrun_release(&run->pack);
	loadstep_release(&run->load);
	netfollow_result_free(run->net);
	capture_free(run->fs.cap);
}

int main(int argc, char **argv)
{
	static const struct step_fn prepare[] = {
		{ STEP_INPUT, open_input },
		{ STEP_CONFIG, load_config },
		{ STEP_OVERRIDES, apply_options },
		{ STEP_BANS, gather_bans },
		{ STEP_ROOT, check_root },
		{ STEP_LOCK, take_lock },
	};
	struct options opt = { .nr_banirq = -1, .argc = argc, .argv = argv };
	struct run run = { .opt = &opt, .lock_fd = -1, .started = realtime() };
	int r, status;

	r = parse_options(argc, argv, &opt);
	if (r <= 0) {
		status = exit_status(STEP_OPTIONS, r);
		goto out;
	}
	r = run_steps(&run, prepare, sizeof(prepare) / sizeof(prepare[0]));
	if (r < 0) {
		status = exit_status(run.step, r);
		goto out;
	}
	r = balance(&run);
	status = finish(&run, exit_status(run.step, r));
	if (opt.capture)
		status = write_capture(&run, status);
	if (fflush(stdout) != 0 && status == 0)
		status = exit_status(STEP_REPORT, -EIO);
out:
	run_release(&run);
	free(opt.banirq);
	free(opt.bancpus);
	free(opt.avoidcpus);
	free(opt.config);
	free(opt.metrics_file);
	free(opt.capture);
	free(opt.replay);
	if (fflush(stdout) != 0 && status == 0)
		status = exit_status(STEP_REPORT, -EIO);
	log_close();
	return status;
}
