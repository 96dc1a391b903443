/* SPDX-License-Identifier: GPL-2.0-or-later */
/* replay.h - what a capture keeps of a run beyond the files it read: the
 * kernel program's measurement, which no file holds. A text member (format
 * in irqtune(8)); the parser takes the text and bounds every count, so a
 * hostile capture is an error, never a crash. Functions return 0 or
 * -errno; -EINVAL with the line in *@ret_line. */
#ifndef IRQTUNE_REPLAY_H
#define IRQTUNE_REPLAY_H

#include <stddef.h>
#include "measure.h"

#define REPLAY_MEASURE	"measure"

int replay_format_measure(const struct measure_raw *raw, char **ret, size_t *ret_len);
int replay_parse_measure(const char *text, struct measure_raw **ret,
			 unsigned int *ret_line);

#endif
