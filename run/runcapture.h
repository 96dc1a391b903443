/* SPDX-License-Identifier: GPL-2.0-or-later */
/* runcapture.h - a run's capture around it: --replay's file read and
 * checked before anything runs; --capture's record begun with the meta
 * member first, and written whatever the run's outcome with the meta
 * member as the run ended. What the meta member says is replay.h's; this
 * is the edge that fills it from a run's parts and says what failed. */
#ifndef IRQTUNE_RUNCAPTURE_H
#define IRQTUNE_RUNCAPTURE_H

#include <stdbool.h>
#include <stddef.h>

struct loadsrc;
struct sample_window;
struct source;

/* What the meta member records of a run. */
struct runcapture_parts {
	double started;			/* CLOCK_REALTIME */
	int argc;
	char **argv;
	double window;			/* seconds; 0: not known yet */
	const struct sample_window *win;	/* the snapshots taken so far */
	double costs_now;		/* when the costs were judged; 0: not read */
	const struct loadsrc *src;	/* NULL: not chosen yet */
	const char *begin_reason;	/* the load source's, on choosing */
};

/* The meta member of @p and exit status @status, kept in @fs (recording
 * only). 0 or -ENOMEM. */
int runcapture_meta(struct source *fs, const struct runcapture_parts *p, int status);

/* @replay's capture read into @fs (a replay from then on) and its host
 * name into @host; else, with @record, @fs a new recording with @p's
 * meta member first. 0; -ENOMEM; capture_read()'s -errno, said. */
int runcapture_open(struct source *fs, const char *replay, bool record,
		    const struct runcapture_parts *p, char *host, size_t host_len);

/* The recording in @fs written to @path with the meta member of @p and
 * @status. 0, or -EIO when it was not (said). */
int runcapture_write(struct source *fs, const char *path, const struct runcapture_parts *p,
		     int status);

#endif
