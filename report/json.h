/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json.h - the run as JSON (--json), built with json-c: the machine, every
 * IRQ from -> to with its class, device, estimated load, reason and outcome,
 * and the totals. The layout is documented in irqtune(8). */
#ifndef IRQTUNE_JSON_H
#define IRQTUNE_JSON_H

#include <stdio.h>
#include "report.h"

/* Write @run to @f as one JSON object and a newline. Returns 0, -ENOMEM,
 * or -EIO when @f failed. */
int json_report(FILE *f, const struct report_run *run);

#endif
