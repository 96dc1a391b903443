/* SPDX-License-Identifier: GPL-2.0-or-later */
/* output.h - where a finished run's report goes: the bans and the text
 * report on stdout (as the options ask), one syslog line per move, and
 * the metrics file. The report itself is report.h's; the JSON, printed
 * last with the exit status, json.h's. */
#ifndef IRQTUNE_OUTPUT_H
#define IRQTUNE_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

struct netfollow_result;
struct report_run;

struct output_opts {
	bool verbose, quiet, json, dry_run;
	bool planned;		/* the run got to a plan: there is a report */
	bool both;		/* the estimate beside a measurement */
	const struct netfollow_result *net;	/* NULL: not reached */
};

/* The bans with --verbose, the report and the network path unless quiet
 * or JSON, on @f; and, when planned, the moves' log lines. */
void output_text(FILE *f, const struct output_opts *o, const struct report_run *rr);

/* The metrics file @path, replaced. 0 or -errno, said. */
int output_metrics(const char *path, const struct report_run *rr);

#endif
