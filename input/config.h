/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config.h - /etc/irqtune.conf: site policy that the command line can
 * override. Parsed with inih (Debian's libinih), strictly: an unknown
 * section or key, a malformed value or a repeated setting is an error with
 * its line. Library-like: returns errors, never prints them. */
#ifndef IRQTUNE_CONFIG_H
#define IRQTUNE_CONFIG_H

#include <stdbool.h>
#include <stdio.h>
#include "cpuset.h"
#include "irqclass.h"

#define CONFIG_MSG_MAX		256
#define CONFIG_LINE_MAX		1024	/* longer lines are an error */
#define CONFIG_LIST_MAX		4096	/* banned IRQs or patterns, each */
#define CONFIG_WINDOW_MAX	3600.0
#define CONFIG_PACK_TARGET_MIN	0.05	/* pack-target, of a CPU */
#define CONFIG_PACK_TARGET_MAX	1.0

enum config_hint {
	CONFIG_HINT_UNSET,
	CONFIG_HINT_IGNORE,	/* the default */
	CONFIG_HINT_FOLLOW,
};

enum config_balancer {
	CONFIG_BALANCER_UNSET,
	CONFIG_BALANCER_REFUSE,	/* the default: no writes while irqbalance runs */
	CONFIG_BALANCER_IGNORE,
};

/* xps and napi-threads: follow placement (the default) or leave alone. */
enum config_follow {
	CONFIG_FOLLOW_UNSET,
	CONFIG_FOLLOW_AUTO,
	CONFIG_FOLLOW_OFF,
};

/* placement: spread IRQs over every eligible CPU, or pack them (pack.h). */
enum config_placement {
	CONFIG_PLACEMENT_UNSET,
	CONFIG_PLACEMENT_SPREAD,	/* the default */
	CONFIG_PLACEMENT_PACK,
};

/* What the kubelet's exclusive CPUs (its static CPU manager's) get. */
enum config_exclusive {
	CONFIG_EXCLUSIVE_UNSET,
	CONFIG_EXCLUSIVE_AVOID,		/* the default: as avoid-cpus */
	CONFIG_EXCLUSIVE_BAN,		/* as bancpus */
	CONFIG_EXCLUSIVE_IGNORE,	/* the file is not read */
};

#define CONFIG_APP_WEIGHT_MAX	100.0

struct config {
	double window;			/* seconds; 0: not set */
	double threshold;		/* fraction; < 0: not set */
	struct cpuset *bancpus;		/* NULL: not set */
	unsigned int *banirq;		/* IRQ numbers */
	unsigned int nr_banirq;
	char **banname;			/* fnmatch(3) patterns on action names */
	unsigned int nr_banname;
	enum config_hint hint;
	/* load-source: "auto" (the default: measure where possible) or a
	 * word of @load_sources, as spelt there; NULL: not set. */
	const char *load_source;
	/* The load sources' names (loadsrc_names), NULL-terminated: the
	 * words load-source takes besides "auto". The caller's, set after
	 * config_init(); NULL: none. */
	const char *const *load_sources;
	struct cpuset *class_cpus[CLASS_NR];	/* NULL: any CPU */
	char *irqbalance_env;		/* irqbalance's settings; NULL: the default files */
	bool irqbalance_off;		/* irqbalance-env = off: neither file nor environment */
	enum config_balancer other_balancer;
	char *metrics_file;		/* NULL: none */
	char *state_dir;		/* NULL: /run/irqtune, on the kernel's own /proc only */
	enum config_follow xps;		/* transmit queues' XPS masks */
	enum config_follow napi_threads;	/* threaded NAPI's kernel threads */
	enum config_placement placement;
	double pack_target;		/* a pack CPU's IRQ load, in CPUs; 0: not set */
	/* A soft ban: IRQs go there only when nothing else is allowed. */
	struct cpuset *avoidcpus;	/* NULL: not set */
	enum config_exclusive exclusive;
	char *kubelet_state;		/* NULL: _PATH_KUBELET_CPU_STATE */
	double app_weight;		/* pinned threads' load x this; < 0: not set */
	/* Where each scalar was set (0: not set), for "given twice". */
	unsigned int line_window, line_threshold, line_bancpus, line_hint;
	unsigned int line_load_source;
	unsigned int line_irqbalance_env, line_other_balancer, line_metrics_file;
	unsigned int line_state_dir, line_xps, line_napi_threads;
	unsigned int line_placement, line_pack_target;
	unsigned int line_exclusive, line_kubelet_state, line_app_weight;
	unsigned int line_class[CLASS_NR];
};

struct config_error {
	unsigned int line;		/* 1-based; 0: about the file as a whole */
	char msg[CONFIG_MSG_MAX];
};

void config_init(struct config *cfg);
void config_release(struct config *cfg);	/* frees the contents */
/* --banirq: @nr IRQs of @irqs (taken over) replace the file's banirq,
 * numbers and patterns alike. */
void config_take_banirq(struct config *cfg, unsigned int *irqs, unsigned int nr);

/* Parse @f into @cfg (which config_init() prepared). Returns 0, -EINVAL with
 * @err filled on the first error, or -ENOMEM. */
int config_parse(FILE *f, struct config *cfg, struct config_error *err);

/* Open and parse @path. The file must be a regular file owned by root (or
 * by the effective user) and writable by nobody else: -EPERM otherwise,
 * with @err saying why. -ENOENT when it does not exist (the caller decides
 * whether that matters); another -errno when it cannot be read. */
int config_load(const char *path, struct config *cfg, struct config_error *err);

/* Whether IRQ @irq with action names @names (comma-separated, as in
 * struct irq_info) is banned by number or by a pattern of @cfg. */
/* "auto" or the word of @names (NULL-terminated; NULL: none) that @s is,
 * as spelt there; NULL for anything else. */
const char *config_load_source_parse(const char *const *names, const char *s);
/* The words config_load_source_parse() takes, for a message: "auto, bpf
 * or proc", each in single quotes with @quote. */
void config_load_source_words(const char *const *names, bool quote, char *buf, size_t len);

bool config_irq_banned(const struct config *cfg, unsigned int irq,
		       const char *names);

#endif
