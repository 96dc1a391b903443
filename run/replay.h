/* SPDX-License-Identifier: GPL-2.0-or-later */
/* replay.h - what a capture keeps of a run beyond the files it read: the
 * meta member (what the capture is, of what run, and the times and
 * choices a replay must repeat), the configuration file the run read, and
 * the kernel program's measurement, which no file holds. Text members
 * (format in irqtune(8)); the parsers take the text and bound every
 * count, so a hostile capture is an error, never a crash. Functions
 * return 0 or -errno; -EINVAL with the line in *@ret_line. */
#ifndef IRQTUNE_REPLAY_H
#define IRQTUNE_REPLAY_H

#include <stddef.h>
#include <sys/utsname.h>
#include "measure.h"

#define REPLAY_MEASURE	"measure"
#define REPLAY_CONFIG	"config/irqtune.conf"

struct capture;
struct config;
struct config_error;
struct source;

/* What the meta member (CAPTURE_META) says of a run. */
struct replay_meta {
	struct utsname uts;		/* this host's: replay_meta_host() */
	char hostname[256];
	long hz;			/* USER_HZ */
	double started;			/* CLOCK_REALTIME */
	int argc;			/* the command line, for the record */
	char *const *argv;
	int status;			/* exit status, 0 until the run ends */
	double window;
	double when[4];			/* snapshot-N's time, 0: not taken */
	/* With when[0]: the first snapshots' input ("stat" or "interrupts")
	 * and why, as a replay must take them. */
	const char *counts, *counts_reason;
	/* NULL until a load source was chosen: */
	const char *load_wanted, *load_begin, *load_used, *load_reason;
	double costs_now;		/* when the costs file was judged; 0: not read */
};

/* This host's name, kernel and USER_HZ into @m. */
void replay_meta_host(struct replay_meta *m);
/* Keep it in @fs (recording only, like source_keep()). 0 or -ENOMEM. */
int replay_keep_meta(struct source *fs, const struct replay_meta *m);
/* The value of the meta member's "@key VALUE" line into @buf; NULL when
 * the capture or the line is not there. */
const char *replay_meta_get(struct capture *cap, const char *key, char *buf, size_t len);
/* The same as a finite number: 0, -ENOENT (no such line) or -EINVAL. */
int replay_meta_double(struct capture *cap, const char *key, double *ret);

/* Keep the configuration file @path as it was read (recording only). */
void replay_keep_config(struct source *fs, const char *path);
/* Parse the configuration file a capture kept into @cfg (config_init()
 * prepared it): 0 also when it kept none (the defaults), -ENOMEM, or
 * -EINVAL with @err filled (config_parse()). */
int replay_config(struct capture *cap, struct config *cfg, struct config_error *err);

/* USER_HZ of the machine captured, a whole number of ticks a second:
 * 0, or -EINVAL when the meta member holds none that is one. */
int replay_meta_hz(struct capture *cap, long *ret);

int replay_format_measure(const struct measure_raw *raw, char **ret, size_t *ret_len);
/* What the measurement summed, kept after the run read it (recording
 * only; no memory for it is @fs->err). */
void replay_keep_measure(struct source *fs, const struct measure_raw *raw);
int replay_parse_measure(const char *text, struct measure_raw **ret,
			 unsigned int *ret_line);

#endif
