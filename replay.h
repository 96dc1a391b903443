/* replay.h - what a capture keeps of a run beyond the files it read: the
 * kernel program's measurement, the CPUs irqbalance's settings and the
 * cpuset partitions banned, and the per-event costs the estimate used.
 * Each is a text member (format in irqtune(8)); parsers take the text and
 * bound every count, so a hostile capture is an error, never a crash.
 * Functions return 0 or -errno; -EINVAL with the line in *@ret_line. */
#ifndef IRQTUNE_REPLAY_H
#define IRQTUNE_REPLAY_H

#include <stddef.h>
#include "compat.h"
#include "estimate.h"
#include "measure.h"

#define REPLAY_MEASURE	"measure"
#define REPLAY_BANS	"bans"
#define REPLAY_COSTS	"costs"

int replay_format_measure(const struct measure_raw *raw, char **ret, size_t *ret_len);
int replay_parse_measure(const char *text, struct measure_raw **ret,
			 unsigned int *ret_line);

/* Bans @from on (those not of irqtune's own settings). */
int replay_format_bans(const struct compat_bans *b, unsigned int from,
		       char **ret, size_t *ret_len);
int replay_parse_bans(const char *text, struct compat_bans *b, unsigned int *ret_line);

int replay_format_costs(const struct estimate_prior *p, char **ret, size_t *ret_len);
int replay_parse_costs(const char *text, struct estimate_prior *p, unsigned int *ret_line);

#endif
