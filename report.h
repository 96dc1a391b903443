/* report.h - what irqtune prints: one line per IRQ and a summary. Formatting
 * only; the caller decides what to print and where. */
#ifndef IRQTUNE_REPORT_H
#define IRQTUNE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "irqclass.h"

struct report_line {
	unsigned int irq;
	const char *name;	/* from the kernel: escaped when printed */
	const char *device;
	enum irq_class class;
	const char *from;	/* affinity before, as the kernel spelled it */
	int to;			/* CPU now or planned, -1 for none */
	double load;		/* in CPUs */
	const char *outcome;
	const char *reason;	/* NULL unless verbose */
};

struct report_totals {
	unsigned int seen, movable, moved, managed, failed;
	double before_min, before_max, after_min, after_max;
	bool dry_run;
};

/* Copy @src to @dst with control and non-ASCII bytes as \xNN, truncating. */
void report_escape(char *dst, size_t len, const char *src);
void report_header(FILE *f, bool verbose);
void report_line(FILE *f, const struct report_line *l);
void report_summary(FILE *f, const struct report_totals *t);

#endif
