/* SPDX-License-Identifier: GPL-2.0-or-later */
/* log.h - where irqtune's messages go. A run at a terminal prints errors to
 * stderr and its report to stdout; a run from cron, systemd or udev (stdout
 * not a terminal, or --syslog) also sends each move, refusal and error to
 * syslog as one line, tag "irqtune", with its pid. */
#ifndef IRQTUNE_LOG_H
#define IRQTUNE_LOG_H

#include <stdbool.h>
#include <syslog.h>

/* Start logging to syslog too (openlog with LOG_PID, facility daemon). */
void log_open_syslog(void);
bool log_to_syslog(void);

/* An error or warning: "irqtune: MESSAGE" on stderr, and to syslog at
 * @prio when logging there. The stderr copy is left out when stderr is the
 * journal already ($JOURNAL_STREAM names it), so it is not logged twice. */
void log_msg(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* An event for the log only (a move, a summary): syslog at @prio, nothing
 * on the terminal, which has the report. */
void log_event(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void log_close(void);

#endif
