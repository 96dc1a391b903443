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
#include <sys/utsname.h>
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
#include "json.h"
#include "loadsrc.h"
#include "irqthread.h"
#include "lock.h"
#include "log.h"
#include "metrics.h"
#include "pathnames.h"
#include "plan.h"
#include "policy.h"
#include "replay.h"
#include "report.h"
#include "netfollow.h"
#include "sample.h"
#include "source.h"
#include "fileio.h"
#include "topology.h"

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

static struct {
	bool dry_run, verbose, quiet, json, syslog, no_config, no_state;
	bool ignore_balancer;
	bool window_set;
	double window;
	double wait_lock;
	unsigned int *banirq;
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
} opt = { .nr_banirq = -1 };

struct run {
	struct config cfg;
	struct irqthreads thr;		/* threaded IRQs' threads, if any */
	struct compat_bans bans;	/* every banned CPU, by source */
	struct topology *topo;
	struct snapshot a, b;
	/* Where the snapshots' counts come from, and why (-v, the JSON). */
	enum snapshot_input counts;
	char counts_reason[160];
	char counts_first[160];		/* the first snapshots' reason, for a capture */
	double when[4];			/* snapshot-N's time, 0: not taken */
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
	return EXIT_USAGE;
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
			"never move IRQ N (repeatable; replaces the file's banirq)");
	struct arg_str *bancpus = arg_str0(NULL, "bancpus", "LIST",
			"keep IRQs off these CPUs too (cpulist, e.g. 0,4-7)");
	struct arg_dbl *waitlock = arg_dbl0(NULL, "wait-lock", "SECONDS",
			"wait this long for another run to finish (default: exit)");
	struct arg_str *config = arg_str0("c", "config", "PATH",
			"read this configuration file (default " _PATH_CONFIG ")");
	struct arg_lit *noconfig = arg_lit0(NULL, "no-config",
			"read no configuration file");
	struct arg_lit *nostate = arg_lit0(NULL, "no-state",
			"neither use nor keep the load history of earlier runs");
	struct arg_lit *json = arg_lit0(NULL, "json",
			"print the plan and outcome as JSON instead of text");
	struct arg_str *metrics = arg_str0(NULL, "metrics-file", "PATH",
			"write Prometheus metrics to PATH (replaced atomically)");
	struct arg_str *source = arg_str0(NULL, "load-source", "auto|bpf|proc",
			"measure the load in the kernel, or estimate it from /proc");
	struct arg_str *capture = arg_str0(NULL, "capture", "FILE",
			"a dry run that also writes everything it read to FILE");
	struct arg_str *replay = arg_str0(NULL, "replay", "FILE",
			"plan from a capture instead of this machine (no root)");
	struct arg_lit *use_syslog = arg_lit0(NULL, "syslog",
			"log to syslog even at a terminal");
	struct arg_lit *ignore_bal = arg_lit0(NULL, "ignore-other-balancer",
			"write even while irqbalance is running");
	struct arg_lit *version = arg_lit0("V", "version", "print the version and exit");
	struct arg_lit *help = arg_lit0("h", "help", "print this help and exit");
	struct arg_end *end = arg_end(10);
	void *argtable[] = { dry, win, verbose, quiet, banirq, bancpus, waitlock,
			     config, noconfig, nostate, json, metrics, source, capture, replay, use_syslog,
			     ignore_bal, version, help, end };
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
		puts("\nSee irqtune(8) for the load estimate and exit statuses,\n"
		     "irqtune.conf(5) for the configuration file.");
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
	opt.json = json->count > 0;
	opt.syslog = use_syslog->count > 0;
	opt.no_config = noconfig->count > 0;
	opt.no_state = nostate->count > 0;
	opt.ignore_balancer = ignore_bal->count > 0;
	opt.window_set = win->count > 0;
	opt.window = win->count ? win->dval[0] : WINDOW_DEFAULT;
	if (!isfinite(opt.window) || opt.window <= 0 || opt.window > WINDOW_MAX) {
		ret = usage_error(argtable, "--window %g: must be above 0 and at most %g seconds",
				  opt.window, WINDOW_MAX);
		goto out;
	}
	opt.wait_lock = waitlock->count ? waitlock->dval[0] : 0;
	if (!isfinite(opt.wait_lock) || opt.wait_lock < 0 || opt.wait_lock > WINDOW_MAX) {
		ret = usage_error(argtable, "--wait-lock %g: must be from 0 to %g seconds",
				  opt.wait_lock, WINDOW_MAX);
		goto out;
	}
	if (opt.verbose && opt.quiet) {
		ret = usage_error(argtable, "--verbose and --quiet exclude each other");
		goto out;
	}
	if (config->count && opt.no_config) {
		ret = usage_error(argtable, "--config and --no-config exclude each other");
		goto out;
	}
	if (banirq->count) {
		opt.banirq = malloc((size_t)banirq->count * sizeof(*opt.banirq));
		if (!opt.banirq) {
			ret = EXIT_SOFTWARE;
			goto out;
		}
		for (int i = 0; i < banirq->count; i++) {
			if (banirq->ival[i] < 0 || (unsigned int)banirq->ival[i] >= IRQ_NUM_LIMIT) {
				ret = usage_error(argtable, "--banirq %d: not an IRQ number",
						  banirq->ival[i]);
				goto out;
			}
			opt.banirq[i] = (unsigned int)banirq->ival[i];
		}
		opt.nr_banirq = banirq->count;
	}
	if ((bancpus->count && !(opt.bancpus = strdup(bancpus->sval[0]))) ||
	    (config->count && !(opt.config = strdup(config->sval[0]))) ||
	    (metrics->count && !(opt.metrics_file = strdup(metrics->sval[0])))) {
		ret = EXIT_SOFTWARE;
		goto out;
	}
	if (source->count) {
		opt.load_source = config_load_source_parse(source->sval[0]);
		if (opt.load_source == CONFIG_LOAD_UNSET) {
			ret = usage_error(argtable, "--load-source '%s': must be auto, bpf or proc",
					  source->sval[0]);
			goto out;
		}
	}
	/* Read here, the edge: the modules take it as a parameter. */
	if (bpfload_build_parse(getenv("IRQTUNE_BPF_BUILD"), &opt.bpf_build) < 0) {
		fprintf(stderr, "irqtune: IRQTUNE_BPF_BUILD '%s': must be context, handlers or raw\n",
			getenv("IRQTUNE_BPF_BUILD"));
		ret = EXIT_USAGE;
		goto out;
	}
	if ((capture->count && !(opt.capture = strdup(capture->sval[0]))) ||
	    (replay->count && !(opt.replay = strdup(replay->sval[0])))) {
		ret = EXIT_SOFTWARE;
		goto out;
	}
	if (opt.capture && opt.replay) {
		ret = usage_error(argtable, "--capture and --replay exclude each other");
		goto out;
	}
	if ((opt.capture && !*opt.capture) || (opt.replay && !*opt.replay)) {
		ret = usage_error(argtable, "--%s: empty path", opt.capture ? "capture" : "replay");
		goto out;
	}
	/* A replay writes nothing, and its window is the one captured. */
	if (opt.replay && (opt.metrics_file || opt.window_set || waitlock->count)) {
		ret = usage_error(argtable, "--replay takes no --%s",
				  opt.metrics_file ? "metrics-file" :
				  opt.window_set ? "window (the captured window is replayed)" :
				  "wait-lock");
		goto out;
	}
	/* Both only ever plan: a capture is a dry run that keeps what it read. */
	if (opt.capture || opt.replay)
		opt.dry_run = true;
	if (opt.metrics_file && !*opt.metrics_file) {
		ret = usage_error(argtable, "--metrics-file: empty path");
		goto out;
	}
out:
	arg_freetable(argtable, sizeof(argtable) / sizeof(argtable[0]));
	return ret;
}

/* The captured "KEY VALUE" of the meta member, NULL when absent. */
static const char *meta(struct run *run, const char *key, char *buf, size_t len)
{
	return capture_field(capture_get(run->fs.cap, CAPTURE_META), key, buf, len);
}

static int meta_double(struct run *run, const char *key, double *ret)
{
	char buf[64], *end;
	double v;

	if (!meta(run, key, buf, sizeof(buf)))
		return -ENOENT;
	errno = 0;
	v = strtod(buf, &end);
	if (errno || end == buf || *end || !isfinite(v))
		return -EINVAL;
	*ret = v;
	return 0;
}

#define CONFIG_MEMBER	"config/irqtune.conf"

/* A replay's configuration is the captured one, unless -c or --no-config
 * says otherwise: the site's file of the machine captured, not this one's. */
static int load_captured_config(struct source *fs, struct config *cfg)
{
	const struct capture_member *m = capture_get(fs->cap, CONFIG_MEMBER);
	struct config_error err;
	FILE *f;
	int r;

	if (!m || !m->data)
		return 0;
	f = fmemopen(m->data, m->len, "r");
	if (!f) {
		log_msg(LOG_ERR, "out of memory");
		return EXIT_SOFTWARE;
	}
	r = config_parse(f, cfg, &err);
	fclose(f);
	if (r == -ENOMEM) {
		log_msg(LOG_ERR, "out of memory");
		return EXIT_SOFTWARE;
	}
	if (r < 0) {
		log_msg(LOG_ERR, "capture %s: %s:%u: %s", opt.replay, CONFIG_MEMBER,
			err.line, err.msg);
		return EXIT_BADCAPTURE;
	}
	return 0;
}

/* A capture keeps the configuration file it ran with, as it was read. */
static void keep_config(struct source *fs, const char *path)
{
	char *text = NULL;
	size_t len = 0;
	FILE *in, *out;
	char buf[4096];
	size_t n;

	if (fs->mode != SOURCE_RECORD || !(in = fopen(path, "re")))
		return;
	out = open_memstream(&text, &len);
	if (out) {
		while ((n = fread(buf, 1, sizeof(buf), in)) > 0 && len < CAPTURE_MEMBER_MAX)
			fwrite(buf, 1, n, out);
		if (fclose(out) == 0)
			source_keep(fs, CONFIG_MEMBER, text, len);
	}
	free(text);
	fclose(in);
}

/* The configuration file, then the command line over it. */
static int load_config(struct run *run)
{
	struct config *cfg = &run->cfg;
	const char *path = opt.config ? opt.config : _PATH_CONFIG;
	struct config_error err;
	int r;

	config_init(cfg);
	if (opt.no_config)
		goto overrides;
	if (run->fs.mode == SOURCE_REPLAY && !opt.config) {
		r = load_captured_config(&run->fs, cfg);
		if (r)
			return r;
		goto overrides;
	}
	r = config_load(path, cfg, &err);
	if (r == 0)
		keep_config(&run->fs, path);
	if (r == -ENOENT && !opt.config)
		goto overrides;		/* no file: defaults */
	if (r == -ENOMEM) {
		log_msg(LOG_ERR, "out of memory");
		return EXIT_SOFTWARE;
	}
	if (r < 0) {
		if (err.line)
			log_msg(LOG_ERR, "%s:%u: %s", path, err.line, err.msg);
		else
			log_msg(LOG_ERR, "%s: %s", path, err.msg);
		return EXIT_CONFIG;
	}
overrides:
	if (opt.window_set || cfg->window <= 0)
		cfg->window = opt.window;
	/* A replay's window is the one captured (--window is refused). */
	if (run->fs.mode == SOURCE_REPLAY && meta_double(run, "window", &cfg->window) < 0)
		cfg->window = opt.window;
	run->threshold_auto = cfg->threshold < 0;
	if (cfg->threshold < 0)
		cfg->threshold = PLAN_DEFAULT_THRESHOLD;
	if (opt.load_source != CONFIG_LOAD_UNSET)
		cfg->load_source = opt.load_source;
	if (opt.nr_banirq >= 0) {
		/* --banirq replaces the file's banirq, numbers and patterns. */
		free(cfg->banirq);
		for (unsigned int i = 0; i < cfg->nr_banname; i++)
			free(cfg->banname[i]);
		free(cfg->banname);
		cfg->banname = NULL;
		cfg->nr_banname = 0;
		cfg->banirq = opt.banirq;
		cfg->nr_banirq = (unsigned int)opt.nr_banirq;
		opt.banirq = NULL;
	}
	if (opt.bancpus) {
		struct cpuset *set = cpuset_new(CPU_ID_LIMIT);

		if (!set)
			return EXIT_SOFTWARE;
		r = cpulist_parse(opt.bancpus, set);
		if (r < 0) {
			fprintf(stderr, "irqtune: --bancpus '%s': %s\n", opt.bancpus,
				r == -ERANGE ? "CPU id out of range" : "not a cpulist (e.g. 0,4-7)");
			cpuset_free(set);
			return EXIT_USAGE;
		}
		cpuset_free(cfg->bancpus);
		cfg->bancpus = set;
	}
	/* A replay writes nothing, the captured machine's metrics file least. */
	if (!opt.metrics_file && cfg->metrics_file && !opt.replay &&
	    !(opt.metrics_file = strdup(cfg->metrics_file)))
		return EXIT_SOFTWARE;
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

	snprintf(from, sizeof(from), "bancpus in %s", opt.config ? opt.config : _PATH_CONFIG);
	if (cfg->bancpus)
		r = compat_add_ban(&run->bans, cpuset_dup(cfg->bancpus),
				   opt.bancpus ? "--bancpus" : from);
	if (r == 0)
		r = compat_collect(&src, &run->bans);
	if (r == 0 && !cfg->bancpus && run->bans.nr && !(cfg->bancpus = cpuset_new(CPU_ID_LIMIT)))
		r = -ENOMEM;
	if (r < 0) {
		log_msg(LOG_ERR, "out of memory");
		return EXIT_SOFTWARE;
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

/* Two balancers rewriting the same affinities fight: a run that writes
 * refuses while irqbalance runs, unless told otherwise. */
static int other_balancer(const struct run *run)
{
	char name[32];
	pid_t pid;
	int r;

	/* A replay's machine is not this one, and it writes nothing anyway. */
	if (opt.ignore_balancer || run->cfg.other_balancer == CONFIG_BALANCER_IGNORE ||
	    opt.replay)
		return 0;
	r = compat_find_balancer(_PATH_PROC, &pid, name, sizeof(name));
	if (r < 0)
		log_msg(LOG_WARNING, "cannot list %s to look for irqbalance: %s; going on",
			_PATH_PROC, strerror(-r));
	if (r <= 0)
		return 0;
	if (opt.dry_run) {
		log_msg(LOG_NOTICE, "%s (pid %d) is running: a run that writes would refuse "
			"(--ignore-other-balancer overrides); this dry run writes nothing",
			name, (int)pid);
		return 0;
	}
	log_msg(LOG_ERR, "%s (pid %d) is running and balances IRQs itself: writing none, "
		"so as not to fight it (stop and disable it, or --ignore-other-balancer)",
		name, (int)pid);
	return EXIT_BALANCER;
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

/* A replay's missing or malformed member: named once, with the capture. */
static int bad_capture(const char *what, unsigned int line, const char *why)
{
	if (line)
		log_msg(LOG_ERR, "capture %s: %s:%u: %s", opt.replay, what, line, why);
	else
		log_msg(LOG_ERR, "capture %s: %s: %s", opt.replay, what, why);
	return EXIT_BADCAPTURE;
}

/* Snapshot @n (1 or 2): the live files, kept for a capture as members
 * "snapshot-N/proc/...", or those members replayed with the time the run
 * that captured them stamped them with. */
static int take(struct run *run, struct snapshot *s, int n)
{
	const char *path = NULL;
	char tag[16];
	unsigned int line = 0;
	int r;

	snprintf(tag, sizeof(tag), "snapshot-%d", n);
	if (run->counts == SNAPSHOT_STAT) {
		r = snapshot_take_stat(s, &run->fs, tag, n == 2 ? &run->a : NULL, &path, &line);
		if (r == -EDOM) {
			if (n == 2 && line)
				snprintf(run->counts_reason, sizeof(run->counts_reason),
					 "/proc/interrupts, a window later: irq %u did not stay "
					 "on one CPU, or its total fell", line);
			else
				str_copy(run->counts_reason, sizeof(run->counts_reason),
					 "/proc/interrupts: /proc/stat has no intr line");
			return -EDOM;
		}
	} else {
		r = snapshot_take_from(s, &run->fs, tag, &path, &line);
	}
	/* The irq threads' run times at the same end of the window. */
	if (r == 0)
		irqthread_sample(&run->fs, tag, &run->thr, n % 2 ? 0 : 1);
	if (r < 0 && run->fs.mode == SOURCE_REPLAY) {
		char what[64];

		snprintf(what, sizeof(what), "%s%s", tag, path ? path : "/proc");
		if (line) {
			char why[128];

			snprintf(why, sizeof(why), "cannot parse: %s", strerror(-r));
			bad_capture(what, line, why);
		} else {
			bad_capture(what, 0, r == -ENOENT ? "missing" : strerror(-r));
		}
		return -EXIT_BADCAPTURE;
	}
	if (r < 0) {
		if (line)
			log_msg(LOG_ERR, "%s:%u: cannot parse: %s", path, line, strerror(-r));
		else
			log_msg(LOG_ERR, "cannot read %s: %s", path ? path : "/proc",
				strerror(-r));
		return -EXIT_NOINPUT;
	}
	if (run->fs.mode == SOURCE_REPLAY) {
		double when;

		if (meta_double(run, tag, &when) < 0 || when < 0) {
			snapshot_release(s);
			return -bad_capture(CAPTURE_META, 0, "no valid time of a snapshot");
		}
		s->when = when;
	}
	run->when[n - 1] = s->when;
	return 0;
}

/* At this many online CPUs and more, /proc/interrupts is not read: it holds
 * a count per CPU and IRQ (1.4 GB at 8192 CPUs and 16000 IRQs, each time),
 * where /proc/stat and one small file per IRQ say the same. */
#define COUNTS_STAT_CPUS 2048

static void choose_counts(struct run *run)
{
	const char *e = getenv("IRQTUNE_COUNTS");
	unsigned int online = cpuset_count(run->topo->online);
	char buf[32];

	run->counts = SNAPSHOT_INTERRUPTS;
	if (run->fs.mode == SOURCE_REPLAY) {
		/* The way and the words of the run that captured it. */
		if (meta(run, "counts", buf, sizeof(buf)) && strcmp(buf, "stat") == 0)
			run->counts = SNAPSHOT_STAT;
		if (!meta(run, "counts-reason", run->counts_reason, sizeof(run->counts_reason)))
			str_copy(run->counts_reason, sizeof(run->counts_reason),
				 "/proc/interrupts, as captured");
		return;
	}
	if (e && (strcmp(e, "stat") == 0 || strcmp(e, "interrupts") == 0)) {
		run->counts = strcmp(e, "stat") == 0 ? SNAPSHOT_STAT : SNAPSHOT_INTERRUPTS;
		snprintf(run->counts_reason, sizeof(run->counts_reason), "%s: IRQTUNE_COUNTS=%s",
			 run->counts == SNAPSHOT_STAT ? "/proc/stat and effective affinities" :
			 "/proc/interrupts", e);
		return;
	}
	if (online >= COUNTS_STAT_CPUS) {
		run->counts = SNAPSHOT_STAT;
		snprintf(run->counts_reason, sizeof(run->counts_reason),
			 "/proc/stat and effective affinities: %u online CPUs", online);
	} else {
		snprintf(run->counts_reason, sizeof(run->counts_reason),
			 "/proc/interrupts: %u online CPUs", online);
	}
}

/* The two snapshots around the window. Counts read without
 * /proc/interrupts that it alone could tell (an IRQ moved or spread over
 * CPUs in the window) are taken again from it, a window later, as
 * snapshots 3 and 4. */
static int take_window(struct run *run)
{
	int r;

	choose_counts(run);
	str_copy(run->counts_first, sizeof(run->counts_first), run->counts_reason);
	loadsrc_start(&run->src);
	r = take(run, &run->a, 1);
	if (r == 0) {
		if (run->fs.mode != SOURCE_REPLAY)
			sleep_window(run->cfg.window);
		r = take(run, &run->b, 2);
	}
	if (r == -EDOM) {
		snapshot_release(&run->a);
		run->counts = SNAPSHOT_INTERRUPTS;
		loadsrc_start(&run->src);
		r = take(run, &run->a, 3);
		if (r == 0) {
			if (run->fs.mode != SOURCE_REPLAY)
				sleep_window(run->cfg.window);
			r = take(run, &run->b, 4);
		}
	}
	loadsrc_stop(&run->src);
	return r;
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

static const struct device_group *group_of(const struct run *run, unsigned int i)
{
	int g = run->map->irqs[i].group;

	return g >= 0 ? &run->map->groups[g] : NULL;
}

/* "irq 42 (eth0-TxRx-0)", names escaped. */
static const char *irq_tag(const struct run *run, unsigned int i, char *buf,
			   size_t len)
{
	char name[DEVICE_NAME_MAX * 4];

	report_escape(name, sizeof(name), run->map->irqs[i].name);
	snprintf(buf, len, "irq %u (%s)", run->map->irqs[i].irq, name);
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
			report_escape(from, sizeof(from), dg->cpus_from);
			report_escape(val, sizeof(val), dg->policy_cpus);
			log_msg(LOG_WARNING, "device %s: IRQTUNE_CPUS '%s' on %s: %s; ignored",
				dg->id, val, from, pg->cpus_err == -ERANGE ?
				"CPU id out of range" : "not a non-empty cpulist");
		}
		if (pg->ban_err) {
			report_escape(from, sizeof(from), dg->ban_from);
			report_escape(val, sizeof(val), dg->policy_ban);
			log_msg(LOG_WARNING, "device %s: IRQTUNE_BAN '%s' on %s: not 1 or 0; ignored",
				dg->id, val, from);
		}
	}
}

/* Fill the planner's view of every IRQ from the samples, /proc/irq and the
 * site policy. */
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
		const struct policy_irq *po = &run->pol.irqs[i];
		struct plan_irq *pi = &run->pi[i];

		pi->irq = ii->irq;
		pi->class = ii->class;
		pi->group = ii->group;
		pi->node = ii->node;
		pi->pinned = ii->pinned;
		pi->served = ac->top_cpu >= 0 ? ac->top_cpu :
			     ii->effective >= 0 ? ii->effective : ii->pinned;
		pi->load = ac->load;
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

			report_escape(src, sizeof(src), po->source);	/* names a device */
			log_msg(LOG_WARNING, "%s: no eligible CPU among %s '%s'; left where it is",
				irq_tag(run, i, tag, sizeof(tag)), src, po->wanted);
		}
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

/* Lowest and highest load of the online CPUs, and busiest over mean of the
 * eligible ones (1 when there is no load at all: nothing is uneven). */
static void spread(const struct run *run, const double *load, double *lo,
		   double *hi, double *ratio)
{
	const struct cpuset *on = run->topo->online, *el = run->topo->eligible;
	double sum = 0, max = 0;
	unsigned int n = 0;
	int cpu;

	*lo = *hi = 0;
	for (cpu = cpuset_first(on); cpu >= 0; cpu = cpuset_next(on, cpu)) {
		if (cpu == cpuset_first(on) || load[cpu] < *lo)
			*lo = load[cpu];
		if (load[cpu] > *hi)
			*hi = load[cpu];
	}
	for (cpu = cpuset_first(el); cpu >= 0; cpu = cpuset_next(el, cpu)) {
		sum += load[cpu];
		if (load[cpu] > max)
			max = load[cpu];
		n++;
	}
	*ratio = n && sum > 0 ? max / (sum / n) : 1;
}

/* Text a report line points to beyond what @run holds. */
struct irq_text {
	char allowed[64];
	char reason[192];
};

/* Why a fixed IRQ stays: more than the planner's "fixed". */
static const char *fixed_reason(const struct run *run, unsigned int i,
				struct irq_text *tx)
{
	const struct policy_irq *po = &run->pol.irqs[i];
	const struct device_group *g = group_of(run, i);

	switch (run->out[i]) {
	case OUT_BANNED:
		if (po->ban == BAN_UDEV && g)
			snprintf(tx->reason, sizeof(tx->reason), "banned by IRQTUNE_BAN on %s",
				 g->ban_from);
		else
			snprintf(tx->reason, sizeof(tx->reason), "banned by banirq");
		return tx->reason;
	case OUT_NOCPU:
		snprintf(tx->reason, sizeof(tx->reason), "no eligible CPU among %s",
			 po->source);
		return tx->reason;
	case OUT_MANAGED:
		return "the kernel places it";
	default:
		return report_outcome_text(run->out[i]);
	}
}

/* The report's view of each IRQ; strings point into @run and @tx. */
static struct report_irq *report_irqs(const struct run *run, struct irq_text *tx)
{
	struct report_irq *ri = calloc(run->nr ? run->nr : 1, sizeof(*ri));

	if (!ri)
		return NULL;
	for (unsigned int i = 0; i < run->nr; i++) {
		const struct irq_info *ii = &run->map->irqs[i];
		const struct device_group *g = group_of(run, i);
		const struct plan_irq *pi = &run->pi[i];
		const struct policy_irq *po = &run->pol.irqs[i];
		enum report_outcome o = run->out[i];

		ri[i] = (struct report_irq){
			.irq = ii->irq,
			.name = ii->name,
			.device = g ? g->id : "",
			.label = g ? g->label : "",
			.class = ii->class,
			.from = ii->affinity[0] ? ii->affinity : "?",
			.to = o == OUT_MOVED || o == OUT_WOULD_MOVE || o == OUT_KEPT ?
			      pi->target : -1,
			.load = run->act[i].load,
			.load_proc = run->src.proc_act ? run->src.proc_act[i].load : NAN,
			.load_window = run->window_load ? run->window_load[i] : NAN,
			.threaded = run->act[i].threaded,
			.load_thread = run->act[i].thread,
			.outcome = o,
			.reason = o == OUT_KEPT || o == OUT_MOVED || o == OUT_WOULD_MOVE ||
				  o == OUT_FAILED ? plan_reason_text(pi->reason) :
				  fixed_reason(run, i, &tx[i]),
		};
		if (po->no_cpu) {
			ri[i].allowed = po->wanted;	/* as asked: none is here */
			ri[i].policy = po->source;
		} else if (po->allowed) {
			if (cpulist_format(po->allowed, tx[i].allowed, sizeof(tx[i].allowed)) < 0)
				snprintf(tx[i].allowed, sizeof(tx[i].allowed), "(too long)");
			ri[i].allowed = tx[i].allowed;
			ri[i].policy = po->source;
		}
	}
	return ri;
}

static void totals(const struct run *run, const struct report_irq *ri,
		   struct report_totals *t)
{
	memset(t, 0, sizeof(*t));
	t->dry_run = opt.dry_run;
	for (unsigned int i = 0; i < run->nr; i++) {
		enum report_outcome o = ri[i].outcome;

		if (o == OUT_UNUSED)
			continue;
		t->seen++;
		t->movable += o == OUT_KEPT || o == OUT_MOVED || o == OUT_WOULD_MOVE ||
			      o == OUT_FAILED;
		t->moved += o == OUT_MOVED || o == OUT_WOULD_MOVE;
		t->managed += o == OUT_MANAGED;
		t->failed += o == OUT_FAILED;
		t->banned += o == OUT_BANNED;
	}
	t->unchanged = t->seen - t->moved - t->managed - t->failed;
	spread(run, run->res.before, &t->before_min, &t->before_max, &t->ratio_before);
	spread(run, run->res.after, &t->after_min, &t->after_max, &t->ratio_after);
}

static void print_text(const struct run *run, const struct report_irq *ri,
		       const struct report_totals *t)
{
	bool all = opt.verbose || opt.dry_run;
	bool both = opt.verbose && run->src.proc_act;
	bool header = false;

	if (opt.quiet || opt.json)
		return;
	for (unsigned int i = 0; i < run->nr; i++) {
		enum report_outcome o = ri[i].outcome;

		if (o == OUT_UNUSED || (!all && (o == OUT_KEPT || o == OUT_BANNED ||
						 o == OUT_GONE)))
			continue;
		if (!header) {
			report_header(stdout, opt.verbose, both);
			header = true;
		}
		report_line(stdout, &ri[i], opt.verbose, both);
	}
	report_summary(stdout, t);
	report_source(stdout, loadsrc_name(run->src.used), run->src.reason);
	if (opt.verbose)
		printf("irqtune: counts from %s\n", run->counts_reason);
	if (opt.verbose && run->state_note[0])
		printf("irqtune: load history: %s\n", run->state_note);
}

/* One syslog line per move, and a summary when anything changed. */
static void log_moves(const struct run *run, const struct report_irq *ri,
		      const struct report_totals *t)
{
	if (!log_to_syslog() || opt.dry_run)
		return;
	for (unsigned int i = 0; i < run->nr; i++) {
		char tag[DEVICE_NAME_MAX * 4 + 32], raw[2 * DEVICE_NAME_MAX + 2];
		char dev[4 * sizeof(raw)];

		if (ri[i].outcome != OUT_MOVED)
			continue;
		report_device(raw, sizeof(raw), &ri[i]);
		report_escape(dev, sizeof(dev), raw);
		log_event(LOG_INFO, "%s %s %s: moved %s -> %d, load %.3f%% (%s)",
			  irq_tag(run, i, tag, sizeof(tag)), *dev ? dev : "-",
			  irq_class_name(ri[i].class), ri[i].from, ri[i].to,
			  ri[i].load * 100, ri[i].reason);
	}
	if (t->moved || t->failed)
		log_event(LOG_INFO, "%u seen, %u movable, %u moved, %u kernel-managed, "
			  "%u failed; busiest CPU at %.2fx the mean IRQ load before, %.2fx after",
			  t->seen, t->movable, t->moved, t->managed, t->failed,
			  t->ratio_before, t->ratio_after);
}

static double elapsed(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) +
	       (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Everything a run reports, whether it got to a plan or not. */
static int finish(struct run *run, int status)
{
	char online[512] = "", eligible[512] = "";
	struct irq_text *tx = NULL;
	struct report_irq *ri = NULL;
	struct report_run rr = { 0 };
	struct report_ban *bans;
	int *cpus = NULL;
	int r;

	rr.dry_run = opt.dry_run;
	rr.window = run->cfg.window;
	if (run->b.intr) {
		rr.window_from = run->a.when;
		rr.window_to = run->b.when;
	}
	if (run->b.intr) {
		rr.counts = run->counts == SNAPSHOT_STAT ? "stat" : "interrupts";
		rr.counts_reason = run->counts_reason;
	}
	if (run->src_chosen) {
		rr.load_source = loadsrc_name(run->src.used);
		rr.load_source_reason = run->src.reason;
		rr.history = run->state_note[0] ? run->state_note : NULL;
	}
	rr.started = run->started;
	rr.hostname = run->fs.mode == SOURCE_REPLAY ? run->host : NULL;
	rr.locked = run->locked;
	if (run->topo) {
		cpulist_format(run->topo->online, online, sizeof(online));
		cpulist_format(run->topo->eligible, eligible, sizeof(eligible));
	}
	rr.online = online;
	rr.eligible = eligible;
	bans = calloc(run->bans.nr ? run->bans.nr : 1, sizeof(*bans));
	if (!bans) {
		log_msg(LOG_ERR, "out of memory");
		return EXIT_SOFTWARE;
	}
	for (unsigned int i = 0; i < run->bans.nr; i++)
		bans[rr.nr_bans++] = (struct report_ban){
			.cpus = run->bans.bans[i].cpulist,
			.source = run->bans.bans[i].source,
		};
	rr.bans = bans;
	if (opt.verbose && !opt.json)
		report_bans(stdout, bans, rr.nr_bans);
	if (run->planned) {
		tx = calloc(run->nr ? run->nr : 1, sizeof(*tx));
		cpus = calloc(run->topo->nr_ids ? run->topo->nr_ids : 1, sizeof(*cpus));
		ri = tx && cpus ? report_irqs(run, tx) : NULL;
		if (!ri) {
			log_msg(LOG_ERR, "out of memory");
			status = EXIT_SOFTWARE;
			goto out;
		}
		for (int cpu = cpuset_first(run->topo->online); cpu >= 0;
		     cpu = cpuset_next(run->topo->online, cpu))
			cpus[rr.nr_cpus++] = cpu;
		rr.cpus = cpus;
		rr.before = run->res.before;
		rr.after = run->res.after;
		rr.irqs = ri;
		rr.nr_irqs = run->nr;
		totals(run, ri, &rr.totals);
		if ((rr.totals.failed || (run->net && run->net->failed)) && status == 0)
			status = EXIT_PARTIAL;
		print_text(run, ri, &rr.totals);
		if (!opt.quiet && !opt.json)
			netfollow_print(stdout, run->net, opt.verbose || opt.dry_run);
		log_moves(run, ri, &rr.totals);
		netfollow_log(run->net, opt.dry_run);
		rr.netpath = run->net;
	}
	rr.status = status;
	rr.duration = elapsed(&run->t0);
	rr.finished = realtime();
	if (opt.metrics_file) {
		r = metrics_write(opt.metrics_file, &rr);
		if (r < 0) {
			log_msg(LOG_ERR, "cannot write metrics to %s: %s%s", opt.metrics_file,
				strerror(-r), r == -ELOOP ? " (a symlink: refusing it)" :
				r == -EPERM ? " (not a regular file of ours: refusing it)" : "");
			if (status == 0)
				status = rr.status = EXIT_IOERR;
		}
	}
	if (opt.json && json_report(stdout, &rr) < 0 && status == 0)
		status = EXIT_IOERR;
out:
	free(ri);
	free(tx);
	free(cpus);
	free(bans);
	return status;
}

static void run_release(struct run *run)
{
	config_release(&run->cfg);
	compat_bans_release(&run->bans);
	topology_free(run->topo);
	snapshot_release(&run->a);
	snapshot_release(&run->b);
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
}

/* The costs a measured run recorded, when they are this boot's and fresh;
 * a file that is there but not to be trusted is named once, and ignored.
 * Through run->fs: a capture keeps the file, the boot id and the time it
 * was judged at (meta "costs-now"), and a replay judges them again. */
static bool load_costs(struct run *run, char *boot, size_t len, struct estimate_prior *ret,
		       double *ret_when)
{
	struct estimate_prior base;
	char why[256];
	int r;

	if (run->fs.mode == SOURCE_REPLAY) {
		/* No time: the captured run read no costs. */
		if (meta_double(run, "costs-now", &run->costs_now) < 0)
			return false;
	} else {
		run->costs_now = realtime();
	}
	if (costs_boot_id_from(&run->fs, boot, len) < 0) {
		boot[0] = '\0';
		return false;
	}
	estimate_default_prior(&base);
	r = costs_load_from(&run->fs, _PATH_COSTS, boot, run->costs_now, &base, ret, ret_when,
			    why, sizeof(why));
	if (r < 0 && r != -ENOENT && r != -ESTALE)
		log_msg(LOG_WARNING, "%s: %s; estimating with the built-in costs",
			_PATH_COSTS, why);
	return r == 0;
}

/* A measured run leaves its per-event costs for the runs that can only
 * estimate. Not having done so is no failure of this run: a warning. */
static void save_costs(const struct run *run, const struct measure_target *t,
		       const char *boot, const struct estimate_prior *prev)
{
	struct estimate_prior base, got;
	int r;

	if (!boot[0] || !run->src.raw)
		return;
	estimate_default_prior(&base);
	costs_from_measure(run->src.raw, t, run->map->nr_irqs, prev ? prev : &base, &got);
	r = costs_save(_PATH_COSTS, &got, boot, realtime());
	if (r < 0)
		log_msg(LOG_WARNING, "cannot record the measured costs in %s: %s%s", _PATH_COSTS,
			strerror(-r), r == -ELOOP || r == -EPERM ?
			" (not a file or directory of ours: refusing it)" : "");
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
 * directory listings read, a replay parses those. An exit status, 0 when
 * read. */
static int read_topology(struct run *run, char *where, size_t where_len)
{
	char member[CAPTURE_NAME_MAX];
	int r;

	r = topology_read_from(&run->fs, "", run->cfg.bancpus, &run->topo, where, where_len);
	if (r == -ENOMEM) {
		log_msg(LOG_ERR, "out of memory");
		return EXIT_SOFTWARE;
	}
	if (r < 0 && run->fs.mode == SOURCE_REPLAY) {
		if (source_member(member, sizeof(member), NULL, where[0] ? where : _PATH_SYS_CPU) < 0)
			str_copy(member, sizeof(member), "root" _PATH_SYS_CPU);
		log_msg(LOG_ERR, "capture %s: member %s: %s", opt.replay, member, topology_why(r));
		return EXIT_BADCAPTURE;
	}
	if (r < 0) {
		log_msg(LOG_ERR, "cannot read the CPU topology: %s: %s",
			where[0] ? where : _PATH_SYS_CPU, strerror(-r));
		return EXIT_NOINPUT;
	}
	return 0;
}

/* The load source: the kernel program, or for a replay the measurement
 * the capture holds. An exit status, 0 when chosen. */
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
		return EXIT_SOFTWARE;
	}
	if (run->fs.mode != SOURCE_REPLAY) {
		r = loadsrc_begin(&run->src, run->cfg.load_source, opt.bpf_build,
				  run->thr.nr > 0);
		str_copy(run->begin_reason, sizeof(run->begin_reason), run->src.reason);
		if (r < 0) {
			log_msg(LOG_ERR, "load source bpf: %s", run->src.reason);
			return EXIT_NOMEASURE;
		}
		return 0;
	}
	m = capture_get(run->fs.cap, REPLAY_MEASURE);
	if (m && m->data && run->cfg.load_source != CONFIG_LOAD_PROC) {
		r = replay_parse_measure(m->data, &raw, &line);
		if (r == -ENOMEM) {
			log_msg(LOG_ERR, "out of memory");
			return EXIT_SOFTWARE;
		}
		if (r < 0)
			return bad_capture(REPLAY_MEASURE, line, "not a measurement line");
	}
	if (!meta(run, "load-source-begin", run->begin_reason, sizeof(run->begin_reason)))
		str_copy(run->begin_reason, sizeof(run->begin_reason), "not recorded");
	if (!raw && meta(run, "load-source-wanted", want, sizeof(want)) &&
	    strcmp(want, "proc") == 0)
		snprintf(run->begin_reason, sizeof(run->begin_reason),
			 "the capture holds no measurement (taken with --load-source=proc)");
	r = loadsrc_replay(&run->src, run->cfg.load_source, raw, run->begin_reason);
	if (r < 0) {
		log_msg(LOG_ERR, "load source bpf: %s", run->src.reason);
		return EXIT_NOMEASURE;
	}
	return 0;
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

/* USER_HZ of /proc/stat: this kernel's, or the captured one's. */
static int clock_ticks(struct run *run, long *ret)
{
	double hz;

	if (run->fs.mode != SOURCE_REPLAY) {
		*ret = sysconf(_SC_CLK_TCK);
		return 0;
	}
	if (meta_double(run, "hz", &hz) < 0 || hz < 1 || hz > 100000 || hz != floor(hz))
		return bad_capture(CAPTURE_META, 0, "no valid hz");
	*ret = (long)hz;
	return 0;
}

/* The machine's CPUs, and its IRQs to balance at all. An exit status, 0
 * when there is something to balance. */
static int read_machine(struct run *run)
{
	char where[PATH_MAX];
	struct stat st;
	int r;

	r = read_topology(run, where, sizeof(where));
	if (r)
		return r;
	if (cpuset_count(run->topo->eligible) == 0) {
		log_msg(LOG_ERR, "no CPU left for IRQs: every online CPU is isolated, nohz_full or banned");
		return EXIT_NOCPU;
	}
	if (run->fs.mode != SOURCE_REPLAY && stat(_PATH_PROC_IRQ, &st) < 0) {
		log_msg(LOG_ERR, "cannot read %s: %s (in a container?); nothing to balance",
			_PATH_PROC_IRQ, strerror(errno));
		return EXIT_NOINPUT;
	}
	return 0;
}

/* The CPUs still online at the window's end, and the device behind each
 * IRQ. An exit status, 0 when mapped. */
static int map_devices(struct run *run)
{
	unsigned int line = 0;
	int r;

	forget_offline(run->topo, run->b.intr);
	if (cpuset_count(run->topo->eligible) == 0) {
		log_msg(LOG_ERR, "no CPU left for IRQs: every online CPU is isolated, nohz_full or banned");
		return EXIT_NOCPU;
	}
	r = device_scan_from(run->b.intr, run->topo->nr_ids, &run->fs, &run->map, &line);
	if (r < 0 && run->fs.mode == SOURCE_REPLAY)
		return r == -ENOMEM ? EXIT_SOFTWARE : bad_capture("devices", line,
			r == -ENOENT ? "missing" : "not a device line");
	if (r < 0) {
		log_msg(LOG_ERR, "cannot map IRQs to devices with libudev: %s", strerror(-r));
		return r == -ENOMEM ? EXIT_SOFTWARE : EXIT_NODEVICES;
	}
	return 0;
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
static int begin_history(struct run *run, struct history *h, const enum irq_class *class,
			 long hz, const struct estimate_prior *prior, char *boot, size_t len)
{
	struct history_opts o = {
		.no_state = opt.no_state,
		.live = run->fs.mode == SOURCE_LIVE,
		.native = run->src.native,
		.state_dir = run->cfg.state_dir,
		.now = realtime(),
	};
	int r;

	r = history_begin(h, &o, run->map, boot, len);
	history_said(run, h);
	if (r < 0)
		return r;
	return history_long(h, &run->a, &run->b, class, hz, prior, run->src.bpf || run->src.raw);
}

/* The window's loads weighed with the history, which is kept for the next
 * run. -ENOMEM only. */
static int end_history(struct run *run, struct history *h, long hz, const char *boot)
{
	struct history_window w = {
		.map = run->map,
		.act = run->act,
		.b = &run->b,
		.secs = run->b.when - run->a.when,
		.hz = hz,
		.measured = run->src.used == LOADSRC_BPF,
		.now = realtime(),
	};
	int r;

	r = history_end(h, &w, boot);
	/* the report shows each window's own load beside the planned one */
	run->window_load = h->window_load;
	h->window_load = NULL;
	history_said(run, h);
	return r;
}

/* Sample, plan and apply; the status so far, for finish(). */
/* The network path follows the placement: XPS masks, NAPI threads. */
static int follow_network(struct run *run)
{
	struct netfollow_ctx ctx = {
		.map = run->map, .topo = run->topo, .pi = run->pi, .out = run->out,
		.xps = run->cfg.xps != CONFIG_FOLLOW_OFF,
		.napi = run->cfg.napi_threads != CONFIG_FOLLOW_OFF,
		.dry_run = opt.dry_run, .src = &run->fs,
	};

	return netfollow_run(&ctx, &run->net);
}

static int balance(struct run *run)
{
	struct plan_policy pol = {
		.threshold = run->cfg.threshold,
		.idle_load = PLAN_DEFAULT_IDLE_LOAD,
	};
	enum irq_class *class = NULL;
	struct measure_target *target = NULL;
	struct estimate_prior costs;
	struct history hist = { 0 };
	double costs_when = 0;
	bool have_costs;
	char boot[64] = "";
	long hz;
	int r, ret;

	r = read_machine(run);
	if (r)
		return r;
	r = choose_source(run);
	if (r)
		return r;
	run->src_chosen = true;
	r = take_window(run);
	if (r < 0)
		return -r;
	r = map_devices(run);
	if (r)
		return r;
	ret = EXIT_SOFTWARE;
	class = calloc(run->map->nr_irqs ? run->map->nr_irqs : 1, sizeof(*class));
	target = calloc(run->map->nr_irqs ? run->map->nr_irqs : 1, sizeof(*target));
	if (!class || !target)
		goto out;
	for (unsigned int i = 0; i < run->map->nr_irqs; i++) {
		const struct irq_info *ii = &run->map->irqs[i];

		class[i] = ii->class;
		target[i] = (struct measure_target){
			.irq = ii->irq, .class = ii->class, .group = ii->group,
			.label = ii->group >= 0 ? run->map->groups[ii->group].label : NULL,
		};
	}
	/* Costs measured on this kernel describe no other machine; a
	 * replay's are the captured machine's, if its run read any. */
	have_costs = (run->src.native || run->fs.mode == SOURCE_REPLAY) &&
		     load_costs(run, boot, sizeof(boot), &costs, &costs_when);
	r = clock_ticks(run, &hz);
	if (r)
		goto out_status;
	if (begin_history(run, &hist, class, hz, have_costs ? &costs : NULL, boot,
			  sizeof(boot)) < 0)
		goto out;
	r = loadsrc_finish(&run->src, &run->a, &run->b, target, class,
			   hz, have_costs ? &costs : NULL, hist.fit ? &hist.dev : NULL, &run->thr,
			   &run->act);
	keep_measure(run);
	if (r == -EPROTO) {
		log_msg(LOG_ERR, "load source bpf: %s", run->src.reason);
		ret = EXIT_NOMEASURE;
		goto out;
	}
	if (r < 0) {
		log_msg(LOG_ERR, "cannot compare the two samples: %s", strerror(-r));
		goto out;
	}
	if (run->src.used == LOADSRC_BPF) {
		if (run->fs.mode != SOURCE_REPLAY)
			save_costs(run, target, boot, have_costs ? &costs : NULL);
	} else if (have_costs) {
		size_t l = strlen(run->src.reason);

		/* Their age when they were read, so that a replay says
		 * what the captured run said. */
		snprintf(run->src.reason + l, sizeof(run->src.reason) - l,
			 "; per-event costs as measured %.0f min ago",
			 fmax(0, run->costs_now - costs_when) / 60);
	}
	if (end_history(run, &hist, hz, boot) < 0)
		goto out;
	/* One clock tick of the window (the estimate checked it is > 0). */
	pol.resolution = 1.0 / ((double)hz * (run->b.when - run->a.when));
	if (policy_build(&run->cfg, run->topo, run->map, &run->pol) < 0)
		goto out;
	report_policy_errors(run);
	if (build_plan_input(run) < 0)
		goto out;
	r = history_weigh_evidence(&hist, run->pi, run->nr, run->topo->nr_ids,
				   run->threshold_auto, &pol);
	history_said(run, &hist);
	if (r < 0)
		goto out;
	r = plan_compute(run->topo, run->pi, run->nr, &pol, &run->res);
	if (r < 0) {
		log_msg(LOG_ERR, "cannot plan: %s", strerror(-r));
		ret = r == -ENOSPC ? EXIT_NOCPU : EXIT_SOFTWARE;
		goto out;
	}
	if (!opt.dry_run) {
		r = apply_plan(run, &pol);
		if (r < 0) {
			log_msg(LOG_ERR, "cannot re-plan: %s", strerror(-r));
			goto out;
		}
	}
	/* A dry run's planned moves are reported as such. */
	for (unsigned int i = 0; opt.dry_run && i < run->nr; i++)
		if (run->out[i] == OUT_KEPT && plan_moves(&run->pi[i]))
			run->out[i] = OUT_WOULD_MOVE;
	run->planned = true;
	if (follow_network(run) < 0)
		goto out;
	ret = 0;
out:
	history_release(&hist);
	free(class);
	free(target);
	return ret;
out_status:
	ret = r;
	goto out;
}

static int take_lock(struct run *run)
{
	int fd = lock_take(_PATH_RUN_LOCK, opt.wait_lock);

	if (fd == -EWOULDBLOCK) {
		if (!opt.quiet)
			fprintf(stderr, "irqtune: another run holds %s; not running\n",
				_PATH_RUN_LOCK);
		log_event(LOG_NOTICE, "another run holds %s; not running", _PATH_RUN_LOCK);
		return -EXIT_TEMPFAIL;
	}
	if (fd < 0) {
		log_msg(LOG_ERR, "cannot lock %s: %s%s", _PATH_RUN_LOCK, strerror(-fd),
			fd == -EPERM ?
			" (not a regular file of ours: a symlink or someone else's file?)" : "");
		return -EXIT_CANTCREAT;
	}
	run->locked = realtime();
	return fd;
}

/* The meta member: what the capture is, and of what run. */
static int keep_meta(struct run *run, int status)
{
	static const char *const wants[] = { "auto", "auto", "bpf", "proc" };
	char *text = NULL, host[256] = "", esc[4 * 1024];
	struct utsname u;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return -ENOMEM;
	if (uname(&u) < 0)
		memset(&u, 0, sizeof(u));
	gethostname(host, sizeof(host) - 1);
	fprintf(f, "format %s\nversion %d\nirqtune %s\n", CAPTURE_FORMAT, CAPTURE_VERSION,
		IRQTUNE_VERSION);
	fprintf(f, "kernel %s %s %s\nhostname %s\ntime %.0f\n", u.sysname, u.release,
		u.machine, host, run->started);
	fputs("command", f);
	for (int i = 0; i < opt.argc; i++) {
		capture_escape(esc, sizeof(esc), opt.argv[i]);
		fprintf(f, " %s", esc);
	}
	fprintf(f, "\nstatus %d\nhz %ld\nwindow %.17g\n", status, sysconf(_SC_CLK_TCK),
		run->cfg.window);
	for (int n = 0; n < 4; n++)
		if (run->when[n] > 0)
			fprintf(f, "snapshot-%d %.17g\n", n + 1, run->when[n]);
	if (run->when[0] > 0)
		/* The input the first snapshots used, as a replay must. */
		fprintf(f, "counts %s\ncounts-reason %s\n", run->when[2] > 0 ||
			run->counts == SNAPSHOT_STAT ? "stat" : "interrupts", run->counts_first);
	if (run->src_chosen) {
		fprintf(f, "load-source-wanted %s\n", wants[run->src.want]);
		fprintf(f, "load-source-begin %s\n", run->begin_reason);
		fprintf(f, "load-source %s\n", loadsrc_name(run->src.used));
		fprintf(f, "load-source-reason %s\n", run->src.reason);
	}
	if (run->costs_now > 0)
		fprintf(f, "costs-now %.17g\n", run->costs_now);
	if (fclose(f) != 0) {
		free(text);
		return -ENOMEM;
	}
	source_keep(&run->fs, CAPTURE_META, text, len);
	free(text);
	return 0;
}

/* --capture's file, whatever the run's outcome: a failed run is what a
 * bug report is about. The status, or EXIT_CANTCREAT when not written. */
static int write_capture(struct run *run, int status)
{
	char why[CAPTURE_WHY_MAX];
	int r = keep_meta(run, status);

	if (r == 0 && run->fs.err)
		r = run->fs.err;
	if (r < 0) {
		log_msg(LOG_ERR, "capture %s: not written: %s%s", opt.capture, strerror(-r),
			r == -EFBIG ? " (beyond what a capture may hold)" : "");
		return EXIT_CANTCREAT;
	}
	r = capture_write(run->fs.cap, opt.capture, why, sizeof(why));
	if (r < 0) {
		log_msg(LOG_ERR, "capture %s: not written: %s", opt.capture, why);
		return EXIT_CANTCREAT;
	}
	return status;
}

/* --replay's file, read whole and checked before anything else runs. */
static int open_replay(struct run *run)
{
	char why[CAPTURE_WHY_MAX] = "";
	int r = capture_read(opt.replay, &run->fs.cap, why, sizeof(why));

	if (r < 0) {
		log_msg(LOG_ERR, "capture %s: %s", opt.replay, why);
		return r == -ENOENT || r == -EACCES || r == -EPERM || r == -EISDIR ?
		       EXIT_NOINPUT : r == -ENOMEM ? EXIT_SOFTWARE : EXIT_BADCAPTURE;
	}
	run->fs.mode = SOURCE_REPLAY;
	meta(run, "hostname", run->host, sizeof(run->host));
	return 0;
}

int main(int argc, char **argv)
{
	struct run run = { .started = realtime() };
	int ret = parse_options(argc, argv), lock_fd = -1;

	if (ret >= 0)
		goto out;
	opt.argc = argc;
	opt.argv = argv;
	if (opt.replay) {
		ret = open_replay(&run);
		if (ret)
			goto out;
	} else if (opt.capture) {
		run.fs.cap = capture_new();
		if (!run.fs.cap) {
			ret = EXIT_SOFTWARE;
			goto out;
		}
		run.fs.mode = SOURCE_RECORD;
		/* First in the archive, so that what it is is read first. */
		if (keep_meta(&run, 0) < 0) {
			ret = EXIT_SOFTWARE;
			goto out;
		}
	}
	/* cron, systemd and udev give no terminal: their runs go to syslog.
	 * Not a replay's: its machine is another, and it writes nothing. */
	if ((opt.syslog || !isatty(STDOUT_FILENO)) && !opt.replay)
		log_open_syslog();
	ret = load_config(&run);
	if (!ret)
		ret = gather_bans(&run);
	if (ret)
		goto out;
	if (!opt.dry_run && geteuid() != 0) {
		log_msg(LOG_ERR, "writing IRQ affinities needs root; use --dry-run to only plan");
		ret = EXIT_NOPERM;
		goto out;
	}
	if (!opt.dry_run) {
		lock_fd = take_lock(&run);
		if (lock_fd < 0) {
			ret = -lock_fd;
			goto out;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &run.t0);
	ret = other_balancer(&run);
	ret = finish(&run, ret ? ret : balance(&run));
	if (opt.capture)
		ret = write_capture(&run, ret);
	if (fflush(stdout) != 0 && ret == 0)
		ret = EXIT_IOERR;
	lock_release(lock_fd);
out:
	run_release(&run);
	free(opt.banirq);
	free(opt.bancpus);
	free(opt.config);
	free(opt.metrics_file);
	free(opt.capture);
	free(opt.replay);
	capture_free(run.fs.cap);
	if (fflush(stdout) != 0 && ret == 0)
		ret = EXIT_IOERR;
	log_close();
	return ret;
}
