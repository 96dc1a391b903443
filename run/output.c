// SPDX-License-Identifier: GPL-2.0-or-later
/* output.c - a finished run's report to stdout, syslog and the metrics
 * file; see output.h. */
#include <errno.h>
#include <string.h>

#include "log.h"
#include "metrics.h"
#include "netfollow.h"
#include "output.h"
#include "report.h"

/* One syslog line per move, and a summary when anything changed. */
static void log_moves(const struct report_run *rr)
{
	char line[REPORT_EVENT_MAX];

	if (!log_to_syslog() || rr->dry_run)
		return;
	for (unsigned int i = 0; i < rr->nr_irqs; i++) {
		if (rr->irqs[i].outcome != OUT_MOVED)
			continue;
		report_move_event(line, sizeof(line), &rr->irqs[i]);
		log_event(LOG_INFO, "%s", line);
	}
	if (report_summary_event(line, sizeof(line), &rr->totals))
		log_event(LOG_INFO, "%s", line);
}

void output_text(FILE *f, const struct output_opts *o, const struct report_run *rr)
{
	if (o->verbose && !o->json)
		report_bans(f, rr->bans, rr->nr_bans);
	if (o->planned && !o->quiet && !o->json) {
		report_text(f, rr, o->verbose, o->verbose && o->both);
		netfollow_print(f, o->net, o->verbose || o->dry_run);
	}
	if (o->planned) {
		log_moves(rr);
		netfollow_log(o->net, o->dry_run);
	}
}

int output_metrics(const char *path, const struct report_run *rr)
{
	int r = metrics_write(path, rr);

	if (r < 0)
		log_msg(LOG_ERR, "cannot write metrics to %s: %s%s", path,
			strerror(-r), r == -ELOOP ? " (a symlink: refusing it)" :
			r == -EPERM ? " (not a regular file of ours: refusing it)" : "");
	return r;
}
