// SPDX-License-Identifier: GPL-2.0-or-later
/* runcapture.c - --replay's file read, --capture's begun and written; see
 * runcapture.h. */
#include <errno.h>
#include <string.h>

#include "capture.h"
#include "loadsrc.h"
#include "log.h"
#include "replay.h"
#include "runcapture.h"
#include "sample.h"
#include "source.h"

int runcapture_meta(struct source *fs, const struct runcapture_parts *p, int status)
{
	const struct sample_window *w = p->win;
	struct replay_meta m = {
		.started = p->started,
		.argc = p->argc,
		.argv = p->argv,
		.status = status,
		.window = p->window,
		/* The input the first snapshots used, as a replay must. */
		.counts = w->when[2] > 0 || w->counts == SNAPSHOT_STAT ? "stat" : "interrupts",
		.counts_reason = w->first,
		.costs_now = p->costs_now,
	};

	replay_meta_host(&m);
	memcpy(m.when, w->when, sizeof(m.when));
	if (p->src) {
		m.load_wanted = loadsrc_wanted(p->src);
		m.load_begin = p->begin_reason;
		m.load_used = loadsrc_name(p->src);
		m.load_reason = p->src->reason;
	}
	return replay_keep_meta(fs, &m);
}

int runcapture_open(struct source *fs, const char *replay, bool record,
		    const struct runcapture_parts *p, char *host, size_t host_len)
{
	char why[CAPTURE_WHY_MAX] = "";
	int r;

	if (replay) {
		r = capture_read(replay, &fs->cap, why, sizeof(why));
		if (r < 0) {
			log_msg(LOG_ERR, "capture %s: %s", replay, why);
			return r;
		}
		fs->mode = SOURCE_REPLAY;
		replay_meta_get(fs->cap, "hostname", host, host_len);
	} else if (record) {
		fs->cap = capture_new();
		if (!fs->cap)
			return -ENOMEM;
		fs->mode = SOURCE_RECORD;
		/* First in the archive, so that what it is is read first. */
		return runcapture_meta(fs, p, 0);
	}
	return 0;
}

int runcapture_write(struct source *fs, const char *path, const struct runcapture_parts *p,
		     int status)
{
	char why[CAPTURE_WHY_MAX];
	int r = runcapture_meta(fs, p, status);

	if (r == 0 && fs->err)
		r = fs->err;
	if (r < 0) {
		log_msg(LOG_ERR, "capture %s: not written: %s%s", path, strerror(-r),
			r == -EFBIG ? " (beyond what a capture may hold)" : "");
		return -EIO;
	}
	r = capture_write(fs->cap, path, why, sizeof(why));
	if (r < 0) {
		log_msg(LOG_ERR, "capture %s: not written: %s", path, why);
		return -EIO;
	}
	return 0;
}
