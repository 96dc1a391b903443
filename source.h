/* source.h - where the readers of /proc and /sys get their files: the live
 * filesystem, the live filesystem with every file kept for a capture
 * (--capture), or a capture alone (--replay). The readers call these in
 * place of open(2) and friends, so a replay serves them exactly what the
 * run that captured them read, through the same parsers.
 *
 * A NULL source is the live filesystem. Members of a capture are named for
 * the path with its leading '/' replaced by "root/", or, for the files a
 * run reads more than once (the snapshots), by "TAG/". */
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
/* A stream of the whole of @path (member "@tag/..." when @tag is not
 * NULL). 0 with *@ret set, or -errno (-ENOENT: not there). */
int source_fopen(struct source *src, const char *tag, const char *path, FILE **ret);
/* Keep @len bytes of @data as member @name (recording only; else a no-op). */
void source_keep(struct source *src, const char *name, const char *data, size_t len);

#endif
