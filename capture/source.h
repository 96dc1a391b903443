/* SPDX-License-Identifier: GPL-2.0-or-later */
/* source.h - where the readers of /proc and /sys get their files: the live
 * filesystem, the live filesystem with every file kept for a capture
 * (--capture), or a capture alone (--replay). The readers call these in
 * place of open(2) and friends, so a replay serves them exactly what the
 * run that captured them read, through the same parsers.
 *
 * A NULL source is the live filesystem. Members of a capture are named for
 * the path with its leading '/' replaced by "root/", or, for the files a
 * run reads more than once (the snapshots), by "TAG/"; why a file could
 * not be read by "error/", and an environment variable is "env/NAME". */
#ifndef IRQTUNE_SOURCE_H
#define IRQTUNE_SOURCE_H

#include <stdio.h>
#include <sys/types.h>
#include "capture.h"

enum source_mode { SOURCE_LIVE, SOURCE_RECORD, SOURCE_REPLAY };

struct source {
	enum source_mode mode;
	struct capture *cap;		/* recorded into, or replayed from */
	int err;			/* the first failure to record, -errno */
	/* The mode of the last path stat'ed while recording, kept for the
	 * reading of it that follows (a file's mode is its member's). */
	char mode_path[128];
	mode_t last_mode;
};

/* read_small_file() of @path. */
long source_read(struct source *src, const char *path, char *buf, size_t len);
/* The same as member "@tag/..." (@tag NULL: "root/..."), for a file read
 * at each snapshot. */
long source_read_tag(struct source *src, const char *tag, const char *path,
		     char *buf, size_t len);
/* The permission bits of @path in *@ret; -ENOENT when it is not there. */
int source_mode(struct source *src, const char *path, mode_t *ret);
/* Call @fn with the name of every directory directly under @dir, in the
 * order readdir(3) gave them; a missing @dir has none. 0, -ENOMEM, or what
 * @fn returned when it was not 0 (that stops the walk). */
int source_subdirs(struct source *src, const char *dir,
		   int (*fn)(void *ctx, const char *name), void *ctx);
int source_subdirs_tag(struct source *src, const char *tag, const char *dir,
		       int (*fn)(void *ctx, const char *name), void *ctx);
/* Call @fn with the PID of every process that may be a kernel thread:
 * kthreadd's children where the kernel lists them (a hundred files to
 * read, not one per process), else every process. Returns as
 * source_subdirs(). */
int source_kthreads(struct source *src, int (*fn)(void *ctx, const char *name), void *ctx);
/* A stream of the whole of @path (member "@tag/..." when @tag is not
 * NULL). 0 with *@ret set, or -errno (-ENOENT: not there). */
int source_fopen(struct source *src, const char *tag, const char *path, FILE **ret);
/* A directory whose files are read one after the other: live, they are
 * read relative to it (one name for the kernel to resolve, not the whole
 * path); recorded or replayed, by their paths as the calls above. @dir
 * must outlive the handle. A directory that cannot be opened is read by
 * paths too, so every call answers as its path-based one would. */
struct source_dir {
	struct source *src;
	const char *path;
	int fd;			/* -1: by paths */
};

void source_dir_open(struct source *src, const char *dir, struct source_dir *ret);
void source_dir_close(struct source_dir *d);
/* source_read() of @dir/@name. */
long source_dir_read(struct source_dir *d, const char *name, char *buf, size_t len);
/* source_mode() of @dir/@name into *@ret_mode, then its source_read() into
 * *@ret_read (the length or -errno): 0, or the -errno of the mode
 * (-ENOENT: not there), with neither set. */
int source_dir_read_mode(struct source_dir *d, const char *name, char *buf, size_t len,
			 mode_t *ret_mode, long *ret_read);
/* source_subdirs() of @dir. */
int source_dir_subdirs(struct source_dir *d, int (*fn)(void *ctx, const char *name),
		       void *ctx);

/* Keep @len bytes of @data as member @name (recording only; else a no-op). */
void source_keep(struct source *src, const char *name, const char *data, size_t len);

/* The member that holds @path (with @tag as source_fopen()), into @buf:
 * what a replay's messages name. 0 or -ENAMETOOLONG. */
int source_member(char *buf, size_t len, const char *tag, const char *path);

/* 0 when @path is a directory (following links), -ENOTDIR when it is
 * something else, else -errno (-ENOENT: not there). Recording keeps the
 * directory as a member, so that a replay finds it there too. */
int source_isdir(struct source *src, const char *path);
/* Call @fn with the name of every directory or symbolic link directly
 * under @dir (sysfs links cpuN/nodeM), in the order readdir(3) gave them;
 * recording keeps @dir and each of them as directory members. -ENOENT
 * when @dir is not there (-ENOTDIR: not a directory), -ENOMEM, or what
 * @fn returned when it was not 0 (that stops the walk). */
int source_list(struct source *src, const char *dir,
		int (*fn)(void *ctx, const char *name), void *ctx);

/* fopen_trusted() of @path (fileio.h): recording keeps the file, or why
 * it was refused or unreadable as the member "error/PATH" ("ERRNO WHY"),
 * and a replay gives back the one or the other. */
int source_fopen_trusted(struct source *src, const char *path, FILE **ret,
			 char *why, size_t why_len);
/* read_own_file() of @path (fileio.h), kept and replayed the same way. */
long source_read_own(struct source *src, const char *path, char *buf, size_t len,
		     char *why, size_t why_len);
/* getenv(3) of @name through @getenv_fn (NULL: no environment); recording
 * keeps a variable that is set as the member "env/NAME", and a replay
 * reads that instead of this process's environment. */
const char *source_getenv(struct source *src, const char *name,
			  char *(*getenv_fn)(const char *));

#endif
