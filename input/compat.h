/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compat.h - living on a machine set up for irqbalance: the CPUs its
 * settings keep free (IRQBALANCE_BANNED_CPULIST and IRQBALANCE_BANNED_CPUS,
 * in the environment or in its environment file), the CPUs of isolated
 * cgroup v2 cpuset partitions, and whether an irqbalance is running.
 * Library-like: problems are returned as messages for the caller to print,
 * never printed here. */
#ifndef IRQTUNE_COMPAT_H
#define IRQTUNE_COMPAT_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include "cpuset.h"

#define COMPAT_SOURCE_MAX	192
#define COMPAT_MSG_MAX		512
#define COMPAT_LINE_MAX		4096	/* longer lines of an environment file are skipped */
#define COMPAT_WARN_MAX		64	/* warnings kept per run; the rest are counted */

/* The two settings of irqbalance 1.9 that name CPUs to keep IRQs off. */
#define COMPAT_KEY_CPULIST	"IRQBALANCE_BANNED_CPULIST"
#define COMPAT_KEY_CPUMASK	"IRQBALANCE_BANNED_CPUS"

/* Some CPUs banned, and who said so. */
struct compat_ban {
	struct cpuset *cpus;
	char *cpulist;			/* cpus, formatted */
	char source[COMPAT_SOURCE_MAX];	/* "IRQBALANCE_BANNED_CPULIST in /etc/default/irqbalance:23" */
};

struct compat_bans {
	struct compat_ban *bans;
	unsigned int nr;
	char (*warnings)[COMPAT_MSG_MAX];	/* "FILE:LINE: KEY 'VALUE': why; ignored" */
	unsigned int nr_warnings;
	unsigned int nr_dropped;	/* warnings past COMPAT_WARN_MAX */
};

void compat_bans_release(struct compat_bans *b);	/* frees the contents */

/* Add @set (taken over, also on failure) as a ban from @source; an empty
 * set adds nothing. 0 or -ENOMEM. */
int compat_add_ban(struct compat_bans *b, struct cpuset *set, const char *source);

/* Interpret @value of @key (one of COMPAT_KEY_*: a cpulist, or a hex
 * cpumask in comma-separated 32-bit groups, as irqbalance takes them) and
 * add it as a ban from "@key in @where" (@line 0: no line). A malformed value
 * becomes a warning and is ignored; an empty one bans nothing. 0 or -ENOMEM. */
int compat_add_value(struct compat_bans *b, const char *key, const char *value,
		     const char *where, unsigned int line);

/* Parse a shell-style environment file (Debian's /etc/default/irqbalance,
 * RHEL's /etc/sysconfig/irqbalance): KEY=value lines, optionally after
 * "export", values bare, 'single-' or "double-quoted", # comments. Only the
 * two keys above are read; the last assignment of each counts, as in the
 * shell. @name names the file in sources and warnings. 0, -ENOMEM or -EIO. */
int compat_envfile_parse(FILE *f, const char *name, struct compat_bans *b);

/* Open and parse @path. -ENOENT when it does not exist; -EPERM (with a
 * warning) when someone but root may write it, since whoever can write it
 * decides where IRQs may go; another -errno when it cannot be read. */
int compat_envfile_load(const char *path, struct compat_bans *b);

/* Both settings from the environment of this process (@getenv_fn is
 * getenv(3) but for tests). 0 or -ENOMEM. */
int compat_env_read(char *(*getenv_fn)(const char *), struct compat_bans *b);

/* The CPUs of isolated cpuset partitions, a cpulist in @path
 * (/sys/fs/cgroup/cpuset.cpus.isolated, Linux 6.7 and later). A missing
 * file bans nothing; a malformed one is a warning. 0 or -ENOMEM. */
int compat_cgroup_isolated(const char *path, struct compat_bans *b);

/* Where compat_collect() looks. */
struct source;
struct compat_sources {
	/* NULL: the live machine; else through source.c, so that a capture
	 * keeps the files and variables read and a replay reads those. */
	struct source *fs;
	bool off;			/* irqbalance's settings not read at all */
	char *(*getenv_fn)(const char *);	/* getenv(3); NULL: no environment */
	const char *envfile;		/* the file to read; NULL: @defaults */
	const char *const *defaults;	/* NULL-terminated; missing ones are skipped */
	const char *cgroup_isolated;	/* NULL: not read */
};

/* Every ban of @src into @b: irqbalance's two settings from the
 * environment and the file(s) (unless @src->off), then the isolated
 * partitions. Unreadable or malformed sources become warnings. 0 or
 * -ENOMEM. */
int compat_collect(const struct compat_sources *src, struct compat_bans *b);

/* A running IRQ balancer other than us: the first process under @proc (a
 * /proc) whose comm is a known balancer's name and that is not a zombie.
 * 1 with *@ret_pid and @ret_name (@name_len bytes) set, 0 when there is none,
 * -errno when @proc cannot be listed. */
int compat_find_balancer(const char *proc, pid_t *ret_pid, char *ret_name,
			 size_t name_len);

#endif
