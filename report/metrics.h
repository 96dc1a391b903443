/* SPDX-License-Identifier: GPL-2.0-or-later */
/* metrics.h - the run as a Prometheus textfile-collector file
 * (--metrics-file): node_exporter reads *.prom files from a directory, so
 * the file is replaced atomically and never seen half-written. */
#ifndef IRQTUNE_METRICS_H
#define IRQTUNE_METRICS_H

#include <stdio.h>
#include "report.h"

/* Format @run as Prometheus text exposition (no timestamps on samples). */
int metrics_format(FILE *f, const struct report_run *run);

/* Replace @path with the metrics of @run: a temporary file in the same
 * directory (O_EXCL|O_NOFOLLOW, mode 0644), fsync, rename, fsync of the
 * directory. Returns 0; -ELOOP when @path is a symlink, -EPERM when it is
 * not a regular file or belongs to another user (both refused, never
 * followed or replaced); another -errno on failure. */
int metrics_write(const char *path, const struct report_run *run);

#endif
