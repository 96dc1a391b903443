// SPDX-License-Identifier: GPL-2.0-or-later
/* irqtune.c - the command line and one run: configuration + topology + two
 * samples -> policy -> plan -> apply -> report. Owns the parsed options and
 * nothing else global. */
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
#include <sys/stat.h>
#include <argtable2.h>

#include "apply.h"
#include "capture.h"
#include "compat.h"
#include "config.h"
#include "costs.h"
#include "cpuset.h"
#include "device.h"
#include "fileio.h"
#include "history.h"
#include "irqthread.h"
#include "json.h"
#include "loadsrc.h"
#include "lock.h"
#include "log.h"
#include "metrics.h"
#include "netfollow.h"
#include "pathnames.h"
#include "plan.h"
#include "policy.h"
#include "replay.h"
#include "report.h"
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
#define APPLY_ROUNDS	3	/* re-plans after refusals, bounded */

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
	char *config;		/* NULL: _PATH_CONFIG if it exists */
	char *metrics_file;
	enum config_load_source load_source;	/* UNSET: not given */
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
	struct compat_bans bans;	/* every banned CPU, by source */
	struct topology *topo;
	struct sample_window win;	/* the snapshots, and where their counts come from */
	struct loadsrc src;
	bool src_chosen;
	double *window_load;		/* this window's loads, when history smoothed them */
	bool threshold_auto;		/* no threshold set: the evidence sets it */
	char state_note[HISTORY_NOTE_MAX];	/* what became of the history, for the report */
	struct device_map *map;
	struct irq_activity *act;
	struct policy pol;
	struct plan_irq *pi;
	enum report_outcome *out;
	struct plan_result res;
	struct netfollow_result *net;	/* XPS and NAPI threads; NULL: not reached */
	bool planned;
	unsigned int nr;
	double started, locked;		/* CLOCK_REALTIME */
	struct timespec t0;		/* CLOCK_MONOTONIC, start of the work */
	/* --capture records into fs.cap, --replay serves from it; else live. */
	struct source fs;
	char host[256];			/* a replay's captured hostname */
	char begin_reason[LOADSRC_REASON_MAX];	/* the load source's, on choosing */
	double costs_now;		/* when the costs file was judged; 0: not read */
	/* Handed from one step of balance() to the next: */
	struct plan_policy plan_pol;
	enum irq_class *class;		/* per IRQ of map */
	struct measure_target *target;
	struct estimate_prior costs;
	bool have_costs;
	double costs_when;
	char boot[64];			/* this boot's id, "" unknown */
	long hz;
	struct history hist;
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
	struct arg_str *bancpus;
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
	    (a->config->count && !(opt->config = strdup(a->config->sval[0]))) ||
	    (a->metrics->count && !(opt->metrics_file = strdup(a->metrics->sval[0]))))
		return -ENOMEM;
	if (a->source->count) {
		opt->load_source = config_load_source_parse(a->source->sval[0]);
		if (opt->load_source == CONFIG_LOAD_UNSET)
			return usage_error(argtable, "--load-source '%s': must be auto, bpf or proc",
					   a->source->sval[0]);
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
	void *argtable[] = { a.dry, a.win, a.verbose, a.quiet, a.banirq, a.bancpus, a.waitlock,
			     a.config, a.noconfig, a.nostate, a.json, a.metrics, a.source,
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
	if (opt->load_source != CONFIG_LOAD_UNSET)
		cfg->load_source = opt->load_source;
	if (opt->nr_banirq >= 0) {
		/* --banirq replaces the file's banirq, numbers and patterns. */
		free(cfg->banirq);
		for (unsigned int i = 0; i < cfg->nr_banname; i++)
			free(cfg->banname[i]);
		free(cfg->banname);
		cfg->banname = NULL;
		cfg->nr_banname = 0;
		cfg->banirq = opt->banirq;
		cfg->nr_banirq = (unsigned int)opt->nr_banirq;
		opt->banirq = NULL;
	}
	if (opt->bancpus) {
		struct cpuset *set = cpuset_new(CPU_ID_LIMIT);

		if (!set)
			return -ENOMEM;
		r = cpulist_parse(opt->bancpus, set);
		if (r < 0) {
			fprintf(stderr, "irqtune: --bancpus '%s': %s\n", opt->bancpus,
				r == -ERANGE ? "CPU id out of range" : "not a cpulist (e.g. 0,4-7)");
			cpuset_free(set);
			return -EINVAL;
		}
		cpuset_free(cfg->bancpus);
		cfg->bancpus = set;
	}
	/* A replay writes nothing, the captured machine's metrics file least. */
	run->metrics_file = opt->metrics_file ? opt->metrics_file :
			    opt->replay ? NULL : cfg->metrics_file;
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

/* A replay's missing or malformed member: named once, with the capture.
 * -EBADMSG. */
static int bad_capture(const struct run *run, const char *what, unsigned int line,
		       const char *why)
{
	if (line)
		log_msg(LOG_ERR, "capture %s: %s:%u: %s", run->opt->replay, what, line, why);
	else
		log_msg(LOG_ERR, "capture %s: %s: %s", run->opt->replay, what, why);
	return -EBADMSG;
}

/* Why a topology parser refused a file, for a replay's message. */
static const char *topology_why(int r)
{
	switch (r) {
	case -ENOENT:	return "missing";
	case -ENOTDIR:	return "not a directory";
	case -EFBIG:	return "larger than any such sysfs file";
	case -ERANGE:	return "an id out of range";
	case -ENODEV:	return "no online CPU";
	case -EINVAL:	return "not what the kernel writes there";
	default:	return strerror(-r);
	}
}

/* The topology from /sys, through run->fs: a capture keeps the files and
 * directory listings read, a replay parses those. */
static int read_topology(struct run *run, char *where, size_t where_len)
{
	char member[CAPTURE_NAME_MAX];
	int r;

	r = topology_read_from(&run->fs, "", run->cfg.bancpus, &run->topo, where, where_len);
	if (r == -ENOMEM) {
		log_msg(LOG_ERR, "out of memory");
		return r;
	}
	if (r < 0 && run->fs.mode == SOURCE_REPLAY) {
		if (source_member(member, sizeof(member), NULL, where[0] ? where : _PATH_SYS_CPU) < 0)
			str_copy(member, sizeof(member), "root" _PATH_SYS_CPU);
		log_msg(LOG_ERR, "capture %s: member %s: %s", run->opt->replay, member,
			topology_why(r));
		return -EBADMSG;
	}
	if (r < 0)
		log_msg(LOG_ERR, "cannot read the CPU topology: %s: %s",
			where[0] ? where : _PATH_SYS_CPU, strerror(-r));
	return r;
}

/* The free vectors of each CPU (x86, debugfs), through run->fs. Only a
 * malformed file is said at once; a missing one is the report's. */
static int read_vectors(struct run *run)
{
	char why[96];
	int r = vectors_read(&run->fs, run->topo->nr_ids, &run->vec);

	if (r < 0) {
		log_msg(LOG_ERR, "out of memory");
		return r;
	}
	if (run->vec.status == VECTORS_BAD)
		log_msg(LOG_WARNING, "%s: %s; planning without vector space",
			_PATH_DEBUG_VECTOR, vectors_why(&run->vec, why, sizeof(why)));
	return 0;
}

/* The machine's CPUs, and its IRQs to balance at all: -ENOSPC when no CPU
 * is left for them. */
static int read_machine(struct run *run)
{
	char where[PATH_MAX];
	struct stat st;
	int r;

	r = read_topology(run, where, sizeof(where));
	if (r < 0)
		return r;
	if (run->topo->capacity_err < 0)
		log_msg(LOG_WARNING, "%s: %s; planning as if every CPU were alike",
			run->topo->capacity_file, run->topo->capacity_err == -ERANGE ?
			"not a capacity in 1..1024" : run->topo->capacity_err == -EINVAL ?
			"not what the kernel writes there" : strerror(-run->topo->capacity_err));
	r = read_vectors(run);
	if (r < 0)
		return r;
	if (cpuset_count(run->topo->eligible) == 0) {
		log_msg(LOG_ERR, "no CPU left for IRQs: every online CPU is isolated, nohz_full or banned");
		return -ENOSPC;
	}
	if (run->fs.mode != SOURCE_REPLAY && stat(_PATH_PROC_IRQ, &st) < 0) {
		r = -errno;
		log_msg(LOG_ERR, "cannot read %s: %s (in a container?); nothing to balance",
			_PATH_PROC_IRQ, strerror(-r));
		return r;
	}
	return 0;
}

/* The load source: the kernel program, or for a replay the measurement
 * the capture holds. */
static int choose_source(struct run *run)
{
	const struct capture_member *m;
	struct measure_raw *raw = NULL;
	unsigned int line = 0;
	char want[16];
	int r;

	/* Threaded IRQs' threads, found before the program is loaded: it
	 * times them only where there are some. A test tree's IRQs are not
	 * this kernel's: its processes are not looked at. */
	if ((run->fs.mode == SOURCE_REPLAY || loadsrc_native()) &&
	    irqthread_find(&run->fs, &run->thr) < 0) {
		log_msg(LOG_ERR, "out of memory");
		return -ENOMEM;
	}
	if (run->fs.mode != SOURCE_REPLAY) {
		r = loadsrc_begin(&run->src, run->cfg.load_source, run->opt->bpf_build,
				  run->thr.nr > 0);
		str_copy(run->begin_reason, sizeof(run->begin_reason), run->src.reason);
		goto out;
	}
	m = capture_get(run->fs.cap, REPLAY_MEASURE);
	if (m && m->data && run->cfg.load_source != CONFIG_LOAD_PROC) {
		r = replay_parse_measure(m->data, &raw, &line);
		if (r == -ENOMEM)
			log_msg(LOG_ERR, "out of memory");
		if (r < 0)
			return r == -ENOMEM ? r : bad_capture(run, REPLAY_MEASURE, line,
							      "not a measurement line");
	}
	if (!replay_meta_get(run->fs.cap, "load-source-begin", run->begin_reason,
			     sizeof(run->begin_reason)))
		str_copy(run->begin_reason, sizeof(run->begin_reason), "not recorded");
	if (!raw && replay_meta_get(run->fs.cap, "load-source-wanted", want, sizeof(want)) &&
	    strcmp(want, "proc") == 0)
		snprintf(run->begin_reason, sizeof(run->begin_reason),
			 "the capture holds no measurement (taken with --load-source=proc)");
	r = loadsrc_replay(&run->src, run->cfg.load_source, raw, run->begin_reason);
out:
	if (r < 0) {
		log_msg(LOG_ERR, "load source bpf: %s", run->src.reason);
		return r;
	}
	run->src_chosen = true;
	return 0;
}

static void window_begins(void *ctx)
{
	struct run *run = ctx;

	loadsrc_start(&run->src);
}

/* The irq threads' run times at the same end of the window. */
static void window_taken(void *ctx, const char *tag, int n)
{
	struct run *run = ctx;

	irqthread_sample(&run->fs, tag, &run->thr, n % 2 ? 0 : 1);
}

/* Why the window's snapshot @w->tag failed, said once. */
static int window_failed(const struct run *run, const struct sample_window *w, int r)
{
	char what[64], why[128];

	if (w->no_time)
		return bad_capture(run, CAPTURE_META, 0, "no valid time of a snapshot");
	if (run->fs.mode == SOURCE_REPLAY) {
		snprintf(what, sizeof(what), "%s%s", w->tag, w->path ? w->path : "/proc");
		snprintf(why, sizeof(why), "cannot parse: %s", strerror(-r));
		return bad_capture(run, what, w->line, w->line ? why :
				   r == -ENOENT ? "missing" : strerror(-r));
	}
	if (w->line)
		log_msg(LOG_ERR, "%s:%u: cannot parse: %s", w->path, w->line, strerror(-r));
	else
		log_msg(LOG_ERR, "cannot read %s: %s", w->path ? w->path : "/proc", strerror(-r));
	return r;
}

/* The two snapshots around the window, the load source running over it. */
static int take_window(struct run *run)
{
	struct sample_window *w = &run->win;
	char counts[32], reason[SAMPLE_REASON_MAX], tag[16];
	bool replay = run->fs.mode == SOURCE_REPLAY;
	int r;

	w->src = &run->fs;
	w->seconds = run->cfg.window;
	w->begin = window_begins;
	w->taken = window_taken;
	w->ctx = run;
	for (int n = 0; n < 4; n++) {
		snprintf(tag, sizeof(tag), "snapshot-%d", n + 1);
		if (!replay || replay_meta_double(run->fs.cap, tag, &w->replayed[n]) < 0)
			w->replayed[n] = NAN;
	}
	sample_choose_counts(w, getenv("IRQTUNE_COUNTS"), cpuset_count(run->topo->online),
			     replay ? replay_meta_get(run->fs.cap, "counts", counts,
						      sizeof(counts)) : NULL,
			     replay ? replay_meta_get(run->fs.cap, "counts-reason", reason,
						      sizeof(reason)) : NULL);
	r = sample_window_take(w);
	loadsrc_stop(&run->src);
	return r < 0 ? window_failed(run, w, r) : 0;
}

/* /proc/interrupts lists online CPUs only: a CPU with no column in the
 * second sample went offline after the topology was read (in the window),
 * and nothing may be planned on it. */
static void forget_offline(struct topology *topo, const struct interrupts *intr)
{
	bool changed = false;
	unsigned int j;
	int cpu;

	for (cpu = cpuset_first(topo->online); cpu >= 0;
	     cpu = cpuset_next(topo->online, cpu)) {
		for (j = 0; j < intr->nr_cols; j++)
			if (intr->col_cpu[j] == (unsigned int)cpu)
				break;
		if (j == intr->nr_cols) {
			topo->cpus[cpu].online = false;
			changed = true;
		}
	}
	if (changed)
		topology_update_sets(topo);
}

/* The CPUs still online at the window's end (-ENOSPC: none is left for
 * IRQs), and the device behind each IRQ. */
static int map_devices(struct run *run)
{
	unsigned int line = 0;
	int r;

	forget_offline(run->topo, run->win.b.intr);
	if (cpuset_count(run->topo->eligible) == 0) {
		log_msg(LOG_ERR, "no CPU left for IRQs: every online CPU is isolated, nohz_full or banned");
		return -ENOSPC;
	}
	r = device_scan_from(run->win.b.intr, run->topo->nr_ids, &run->fs, &run->map, &line);
	if (r == -ENOMEM || r >= 0)
		return r;
	if (run->fs.mode == SOURCE_REPLAY)
		return bad_capture(run, "devices", line, r == -ENOENT ? "missing" :
				   "not a device line");
	log_msg(LOG_ERR, "cannot map IRQs to devices with libudev: %s", strerror(-r));
	return r;
}

/* USER_HZ of /proc/stat: this kernel's, or the captured one's. */
static int clock_ticks(struct run *run, long *ret)
{
	double hz;

	if (run->fs.mode != SOURCE_REPLAY) {
		*ret = sysconf(_SC_CLK_TCK);
		return 0;
	}
	if (replay_meta_double(run->fs.cap, "hz", &hz) < 0 || hz < 1 || hz > 100000 ||
	    hz != floor(hz))
		return bad_capture(run, CAPTURE_META, 0, "no valid hz");
	*ret = (long)hz;
	return 0;
}

/* The costs a measured run recorded, when they are this boot's and fresh;
 * a file that is there but not to be trusted is named once, and ignored.
 * Through run->fs: a capture keeps the file, the boot id and the time it
 * was judged at (meta "costs-now"), and a replay judges them again.
 * Costs measured on this kernel describe no other machine; a replay's are
 * the captured machine's, if its run read any. */
static void load_costs(struct run *run)
{
	char why[256];
	int r;

	if (!run->src.native && run->fs.mode != SOURCE_REPLAY)
		return;
	if (run->fs.mode == SOURCE_REPLAY) {
		/* No time: the captured run read no costs. */
		if (replay_meta_double(run->fs.cap, "costs-now", &run->costs_now) < 0)
			return;
	} else {
		run->costs_now = realtime();
	}
	r = costs_read(&run->fs, _PATH_COSTS, run->costs_now, run->boot, sizeof(run->boot),
		       &run->costs, &run->costs_when, why, sizeof(why));
	if (r < 0 && r != -ENOENT && r != -ESTALE)
		log_msg(LOG_WARNING, "%s: %s; estimating with the built-in costs",
			_PATH_COSTS, why);
	run->have_costs = r == 0;
}

/* A measured run leaves its per-event costs for the runs that can only
 * estimate. Not having done so is no failure of this run: a warning. An
 * estimate says how old the costs it used were, so that a replay says
 * what the captured run said. */
static void costs_after(struct run *run)
{
	const struct estimate_prior *prev = run->have_costs ? &run->costs : NULL;
	size_t l = strlen(run->src.reason);
	int r;

	if (run->src.used == LOADSRC_BPF && run->fs.mode != SOURCE_REPLAY) {
		r = costs_record(_PATH_COSTS, run->src.raw, run->target, run->map->nr_irqs, prev,
				 run->boot, realtime());
		if (r < 0)
			log_msg(LOG_WARNING, "cannot record the measured costs in %s: %s%s",
				_PATH_COSTS, strerror(-r), r == -ELOOP || r == -EPERM ?
				" (not a file or directory of ours: refusing it)" : "");
	} else if (run->src.used != LOADSRC_BPF && run->have_costs) {
		snprintf(run->src.reason + l, sizeof(run->src.reason) - l,
			 "; per-event costs as measured %.0f min ago",
			 fmax(0, run->costs_now - run->costs_when) / 60);
	}
}

/* What the load history's last call left to say: its note for the report,
 * and a warning, named once. */
static void history_said(struct run *run, struct history *h)
{
	str_copy(run->state_note, sizeof(run->state_note), h->note);
	if (h->warn[0])
		log_msg(LOG_WARNING, "%s", h->warn);
	h->warn[0] = '\0';
}

/* The load history before the estimate: whether this run keeps one, the
 * per-device fit it lends the estimate, and the interval since the last
 * run's window. -ENOMEM only. */
static int begin_history(struct run *run)
{
	struct history_opts o = {
		.no_state = run->opt->no_state,
		.live = run->fs.mode == SOURCE_LIVE,
		.native = run->src.native,
		.state_dir = run->cfg.state_dir,
		.now = realtime(),
	};
	int r;

	r = history_begin(&run->hist, &o, run->map, run->boot, sizeof(run->boot));
	history_said(run, &run->hist);
	if (r < 0)
		return r;
	return history_long(&run->hist, &run->win.a, &run->win.b, run->class, run->hz,
			    run->have_costs ? &run->costs : NULL, run->src.bpf || run->src.raw);
}

/* The window's loads weighed with the history, which is kept for the next
 * run. -ENOMEM only. */
static int end_history(struct run *run)
{
	struct history *h = &run->hist;
	struct history_window w = {
		.map = run->map,
		.act = run->act,
		.b = &run->win.b,
		.secs = run->win.b.when - run->win.a.when,
		.hz = run->hz,
		.measured = run->src.used == LOADSRC_BPF,
		.now = realtime(),
	};
	int r;

	r = history_end(h, &w, run->boot);
	/* the report shows each window's own load beside the planned one */
	run->window_load = h->window_load;
	h->window_load = NULL;
	history_said(run, h);
	return r;
}

/* What the measurement summed, kept by a capture after the run read it. */
static void keep_measure(struct run *run)
{
	char *text;
	size_t len;

	if (run->fs.mode != SOURCE_RECORD || !run->src.raw)
		return;
	if (replay_format_measure(run->src.raw, &text, &len) < 0) {
		run->fs.err = run->fs.err ? run->fs.err : -ENOMEM;
		return;
	}
	source_keep(&run->fs, REPLAY_MEASURE, text, len);
	free(text);
}

/* Each IRQ's load: the measurement or the estimate, from the costs and
 * the history, then weighed with the history. -EPROTO: the measurement
 * disagrees with /proc/interrupts. */
static int weigh_load(struct run *run)
{
	const struct device_map *map = run->map;
	size_t n = map->nr_irqs ? map->nr_irqs : 1;
	int r;

	run->class = calloc(n, sizeof(*run->class));
	run->target = calloc(n, sizeof(*run->target));
	if (!run->class || !run->target)
		return -ENOMEM;
	for (unsigned int i = 0; i < map->nr_irqs; i++) {
		const struct irq_info *ii = &map->irqs[i];

		run->class[i] = ii->class;
		run->target[i] = (struct measure_target){
			.irq = ii->irq, .class = ii->class, .group = ii->group,
			.label = ii->group >= 0 ? map->groups[ii->group].label : NULL,
		};
	}
	load_costs(run);
	r = clock_ticks(run, &run->hz);
	if (r == 0)
		r = begin_history(run);
	if (r < 0)
		return r;
	r = loadsrc_finish(&run->src, &run->win.a, &run->win.b, run->target, run->class,
			   run->hz, run->have_costs ? &run->costs : NULL,
			   run->hist.fit ? &run->hist.dev : NULL, &run->thr, &run->act);
	keep_measure(run);
	if (r == -EPROTO)
		log_msg(LOG_ERR, "load source bpf: %s", run->src.reason);
	else if (r < 0)
		log_msg(LOG_ERR, "cannot compare the two samples: %s", strerror(-r));
	if (r < 0)
		return r;
	costs_after(run);
	return end_history(run);
}

/* "irq 42 (eth0-TxRx-0)", names escaped. */
static const char *irq_tag(const struct run *run, unsigned int i, char *buf,
			   size_t len)
{
	report_irq_tag(buf, len, run->map->irqs[i].irq, run->map->irqs[i].name);
	return buf;
}

/* Malformed udev properties are reported once per device and ignored. */
static void report_policy_errors(const struct run *run)
{
	for (unsigned int g = 0; g < run->pol.nr_groups; g++) {
		const struct device_group *dg = &run->map->groups[g];
		const struct policy_group *pg = &run->pol.groups[g];
		char from[DEVICE_NAME_MAX * 4], val[256];

		if (pg->cpus_err) {
			str_escape_text(from, sizeof(from), dg->cpus_from);
			str_escape_text(val, sizeof(val), dg->policy_cpus);
			log_msg(LOG_WARNING, "device %s: IRQTUNE_CPUS '%s' on %s: %s; ignored",
				dg->id, val, from, pg->cpus_err == -ERANGE ?
				"CPU id out of range" : "not a non-empty cpulist");
		}
		if (pg->ban_err) {
			str_escape_text(from, sizeof(from), dg->ban_from);
			str_escape_text(val, sizeof(val), dg->policy_ban);
			log_msg(LOG_WARNING, "device %s: IRQTUNE_BAN '%s' on %s: not 1 or 0; ignored",
				dg->id, val, from);
		}
	}
}

/* Fill the planner's view of every IRQ from the samples, /proc/irq and the
 * site policy. */
static int build_plan_input(struct run *run)
{
	run->nr = run->win.b.intr->nr_rows;
	run->pi = calloc(run->nr ? run->nr : 1, sizeof(*run->pi));
	run->out = calloc(run->nr ? run->nr : 1, sizeof(*run->out));
	if (!run->pi || !run->out)
		return -ENOMEM;
	for (unsigned int i = 0; i < run->nr; i++) {
		const struct irq_info *ii = &run->map->irqs[i];
		const struct irq_activity *ac = &run->act[i];
		const struct policy_irq *po = &run->pol.irqs[i];
		struct plan_irq *pi = &run->pi[i];

		pi->irq = ii->irq;
		pi->class = ii->class;
		pi->group = ii->group;
		pi->node = ii->node;
		pi->pinned = ii->pinned;
		pi->served = ac->top_cpu >= 0 ? ac->top_cpu :
			     ii->effective >= 0 ? ii->effective : ii->pinned;
		/* Time measured on a smaller CPU is less work: in CPUs of
		 * the biggest (a factor of exactly 1 where CPUs are alike). */
		pi->load = pi->served >= 0 ?
			   ac->load * topology_capacity(run->topo, (unsigned int)pi->served) /
			   CAPACITY_SCALE : ac->load;
		pi->allowed = po->allowed;
		run->out[i] = OUT_KEPT;
		if (ii->gone)
			run->out[i] = OUT_GONE;
		else if (!ii->name[0])
			run->out[i] = OUT_UNUSED;
		else if (po->ban != BAN_NONE)
			run->out[i] = OUT_BANNED;
		else if (ii->managed)
			run->out[i] = OUT_MANAGED;
		else if (po->no_cpu)
			run->out[i] = OUT_NOCPU;
		pi->fixed = run->out[i] != OUT_KEPT;
		if (run->out[i] == OUT_NOCPU) {
			char tag[DEVICE_NAME_MAX * 4 + 32], src[4 * sizeof(po->source)];

			str_escape_text(src, sizeof(src), po->source);	/* names a device */
			log_msg(LOG_WARNING, "%s: no eligible CPU among %s '%s'; left where it is",
				irq_tag(run, i, tag, sizeof(tag)), src, po->wanted);
		}
	}
	return 0;
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
	pol->resolution = 1.0 / ((double)run->hz * (run->win.b.when - run->win.a.when));
	pol->vec_avail = run->vec.status == VECTORS_READ ? run->vec.avail : NULL;
	r = policy_build(&run->cfg, run->topo, run->map, &run->pol);
	if (r < 0)
		return r;
	report_policy_errors(run);
	r = build_plan_input(run);
	if (r == 0) {
		r = history_weigh_evidence(&run->hist, run->pi, run->nr, run->topo->nr_ids,
					   run->threshold_auto, pol);
		history_said(run, &run->hist);
	}
	if (r < 0)
		return r;
	r = plan_compute(run->topo, run->pi, run->nr, pol, &run->res);
	if (r < 0)
		log_msg(LOG_ERR, "cannot plan: %s", strerror(-r));
	return r;
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
	case EMSGSIZE:
		return " (short write: the kernel took part of the cpulist)";
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
			struct apply_result ar;
			int cpus[1 + PLAN_ALTS];
			char tag[DEVICE_NAME_MAX * 4 + 32];

			if (!plan_moves(pi))
				continue;
			cpus[0] = pi->target;
			memcpy(cpus + 1, pi->alt, sizeof(pi->alt));
			apply_irq(pi->irq, cpus, 1 + PLAN_ALTS, &ar);
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
				log_msg(LOG_WARNING, "%s: cannot set affinity to %d: %s%s, left at %s",
					irq_tag(run, i, tag, sizeof(tag)), pi->target,
					strerror(ar.err), errno_name_note(ar.err), ar.now);
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

/* The plan written, or a dry run's moves marked as such. -EIO: some
 * writes were refused (the run's report says which). */
/* The network path follows the placement: XPS masks, NAPI threads. */
static int follow_network(struct run *run)
{
	struct netfollow_ctx ctx = {
		.map = run->map, .topo = run->topo, .pi = run->pi, .out = run->out,
		.xps = run->cfg.xps != CONFIG_FOLLOW_OFF,
		.napi = run->cfg.napi_threads != CONFIG_FOLLOW_OFF,
		.dry_run = run->opt->dry_run, .src = &run->fs,
	};
	int r = netfollow_run(&ctx, &run->net);

	if (r < 0)
		log_msg(LOG_ERR, "cannot follow the network path: %s", strerror(-r));
	return r;
}

static int apply(struct run *run)
{
	int r;

	if (!run->opt->dry_run) {
		r = apply_plan(run, &run->plan_pol);
		if (r < 0) {
			log_msg(LOG_ERR, "cannot re-plan: %s", strerror(-r));
			return r;
		}
	}
	for (unsigned int i = 0; run->opt->dry_run && i < run->nr; i++)
		if (run->out[i] == OUT_KEPT && plan_moves(&run->pi[i]))
			run->out[i] = OUT_WOULD_MOVE;
	run->planned = true;
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

/* One syslog line per move, and a summary when anything changed. */
static void log_moves(const struct report_run *rr)
{
	char line[REPORT_EVENT_MAX];

	if (!log_to_syslog() || rr->dry_run)
		return;
	for (unsigned int i = 0; i < rr->nr_irqs; i++) {
		if (rr->irqs[i].outcome != OUT_MOVED)
			continue;
		report_move_event(line, sizeof(line), &rr->irqs[i]);
		log_event(LOG_INFO, "%s", line);
	}
	if (report_summary_event(line, sizeof(line), &rr->totals))
		log_event(LOG_INFO, "%s", line);
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
		.act = run->act,
		.proc_act = run->src.proc_act,
		.window_load = run->window_load,
		.pol = &run->pol,
		.pi = run->pi,
		.out = run->out,
		.res = &run->res,
	};

	rr->window = run->cfg.window;
	if (run->win.b.intr) {
		rr->window_from = run->win.a.when;
		rr->window_to = run->win.b.when;
		rr->counts = run->win.counts == SNAPSHOT_STAT ? "stat" : "interrupts";
		rr->counts_reason = run->win.reason;
	}
	if (run->src_chosen) {
		rr->load_source = loadsrc_name(run->src.used);
		rr->load_source_reason = run->src.reason;
		rr->history = run->state_note[0] ? run->state_note : NULL;
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
	int r;

	if (build_report(run, &rr, &st) < 0) {
		log_msg(LOG_ERR, "out of memory");
		report_store_release(&st);
		return exit_status(STEP_REPORT, -ENOMEM);
	}
	if (opt->verbose && !opt->json)
		report_bans(stdout, rr.bans, rr.nr_bans);
	if (run->planned && !opt->quiet && !opt->json) {
		report_text(stdout, &rr, opt->verbose, opt->verbose && run->src.proc_act);
		netfollow_print(stdout, run->net, opt->verbose || opt->dry_run);
	}
	if (run->planned) {
		log_moves(&rr);
		netfollow_log(run->net, opt->dry_run);
	}
	rr.status = status;
	rr.duration = elapsed(&run->t0);
	rr.finished = realtime();
	r = run->metrics_file ? metrics_write(run->metrics_file, &rr) : 0;
	if (r < 0) {
		log_msg(LOG_ERR, "cannot write metrics to %s: %s%s", run->metrics_file,
			strerror(-r), r == -ELOOP ? " (a symlink: refusing it)" :
			r == -EPERM ? " (not a regular file of ours: refusing it)" : "");
		if (status == 0)
			status = rr.status = exit_status(STEP_REPORT, -EIO);
	}
	if (opt->json && json_report(stdout, &rr) < 0 && status == 0)
		status = exit_status(STEP_REPORT, -EIO);
	report_store_release(&st);
	return status;
}

/* The meta member: what the capture is, and of what run. */
static int keep_meta(struct run *run, int status)
{
	static const char *const wants[] = { "auto", "auto", "bpf", "proc" };
	struct replay_meta m = {
		.started = run->started,
		.argc = run->opt->argc,
		.argv = run->opt->argv,
		.status = status,
		.window = run->cfg.window,
		/* The input the first snapshots used, as a replay must. */
		.counts = run->win.when[2] > 0 || run->win.counts == SNAPSHOT_STAT ?
			  "stat" : "interrupts",
		.counts_reason = run->win.first,
		.costs_now = run->costs_now,
	};

	replay_meta_host(&m);
	memcpy(m.when, run->win.when, sizeof(m.when));
	if (run->src_chosen) {
		m.load_wanted = wants[run->src.want];
		m.load_begin = run->begin_reason;
		m.load_used = loadsrc_name(run->src.used);
		m.load_reason = run->src.reason;
	}
	return replay_keep_meta(&run->fs, &m);
}

/* --capture's file, whatever the run's outcome: a failed run is what a
 * bug report is about. @status, or that of the capture not written. */
static int write_capture(struct run *run, int status)
{
	char why[CAPTURE_WHY_MAX];
	int r = keep_meta(run, status);

	if (r == 0 && run->fs.err)
		r = run->fs.err;
	if (r < 0) {
		log_msg(LOG_ERR, "capture %s: not written: %s%s", run->opt->capture, strerror(-r),
			r == -EFBIG ? " (beyond what a capture may hold)" : "");
		return exit_status(STEP_CAPTURE, -EIO);
	}
	r = capture_write(run->fs.cap, run->opt->capture, why, sizeof(why));
	if (r < 0) {
		log_msg(LOG_ERR, "capture %s: not written: %s", run->opt->capture, why);
		return exit_status(STEP_CAPTURE, -EIO);
	}
	return status;
}

/* --replay's file, read whole and checked before anything else runs; or
 * --capture's record begun; then the log, which cron, systemd and udev
 * give no terminal to: their runs go to syslog. Not a replay's: its
 * machine is another, and it writes nothing. */
static int open_input(struct run *run)
{
	const struct options *opt = run->opt;
	char why[CAPTURE_WHY_MAX] = "";
	int r;

	if (opt->replay) {
		r = capture_read(opt->replay, &run->fs.cap, why, sizeof(why));
		if (r < 0) {
			log_msg(LOG_ERR, "capture %s: %s", opt->replay, why);
			return r;
		}
		run->fs.mode = SOURCE_REPLAY;
		replay_meta_get(run->fs.cap, "hostname", run->host, sizeof(run->host));
	} else if (opt->capture) {
		run->fs.cap = capture_new();
		if (!run->fs.cap)
			return -ENOMEM;
		run->fs.mode = SOURCE_RECORD;
		/* First in the archive, so that what it is is read first. */
		r = keep_meta(run, 0);
		if (r < 0)
			return r;
	}
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
	loadsrc_release(&run->src);
	free(run->window_load);
	policy_release(&run->pol);
	device_map_free(run->map);
	free(run->act);
	free(run->pi);
	free(run->out);
	plan_result_release(&run->res);
	netfollow_result_free(run->net);
	history_release(&run->hist);
	free(run->class);
	free(run->target);
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
	free(opt.config);
	free(opt.metrics_file);
	free(opt.capture);
	free(opt.replay);
	if (fflush(stdout) != 0 && status == 0)
		status = exit_status(STEP_REPORT, -EIO);
	log_close();
	return status;
}
