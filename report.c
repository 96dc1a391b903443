// SPDX-License-Identifier: GPL-2.0-or-later
/* report.c - formats the per-IRQ lines and the summary. Names come from the
 * kernel and from udev, so they are escaped: a device name must never be
 * able to move the terminal's cursor or forge a line of the report. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

void report_escape(char *dst, size_t len, const char *src)
{
	size_t o = 0;

	if (len == 0)
		return;
	for (; src && *src; src++) {
		unsigned char ch = (unsigned char)*src;

		if (ch >= 0x20 && ch < 0x7f && ch != '\\') {
			if (o + 1 >= len)
				break;
			dst[o++] = (char)ch;
		} else {
			if (o + 4 >= len)
				break;
			snprintf(dst + o, len - o, "\\x%02x", ch);
			o += 4;
		}
	}
	dst[o] = '\0';
}

static const char *const outcome_text[OUT_NR] = {
	[OUT_KEPT] = "kept",
	[OUT_MOVED] = "moved",
	[OUT_WOULD_MOVE] = "would move",
	[OUT_MANAGED] = "kernel-managed",
	[OUT_GONE] = "gone",
	[OUT_FAILED] = "FAILED",
	[OUT_BANNED] = "banned",
	[OUT_UNUSED] = "no handler",
	[OUT_NOCPU] = "no allowed CPU",
};

static const char *const outcome_key[OUT_NR] = {
	[OUT_KEPT] = "kept",
	[OUT_MOVED] = "moved",
	[OUT_WOULD_MOVE] = "would_move",
	[OUT_MANAGED] = "kernel_managed",
	[OUT_GONE] = "gone",
	[OUT_FAILED] = "failed",
	[OUT_BANNED] = "banned",
	[OUT_UNUSED] = "no_handler",
	[OUT_NOCPU] = "no_allowed_cpu",
};

const char *report_outcome_text(enum report_outcome o)
{
	return (unsigned int)o < OUT_NR ? outcome_text[o] : "?";
}

const char *report_outcome_key(enum report_outcome o)
{
	return (unsigned int)o < OUT_NR ? outcome_key[o] : "?";
}

void report_device(char *dst, size_t len, const struct report_irq *ri)
{
	const char *id = ri->device ? ri->device : "";
	const char *label = ri->label ? ri->label : "";

	if (*label && strcmp(label, id) != 0 && *id)
		snprintf(dst, len, "%s %s", label, id);
	else
		snprintf(dst, len, "%s", *id ? id : label);
}

void report_header(FILE *f, bool verbose, bool both)
{
	fprintf(f, "%5s  %-20s %-24s %-7s %12s  %8s  %s%s%s\n", "IRQ", "NAME",
		"DEVICE", "CLASS", "CPU", "LOAD", both ? "PROC-EST  " : "",
		"OUTCOME", verbose ? " (REASON)" : "");
}

void report_line(FILE *f, const struct report_irq *l, bool verbose, bool both)
{
	char name[64], dev[64], raw[2 * 64 + 2], cpus[48];

	report_device(raw, sizeof(raw), l);
	report_escape(name, sizeof(name), l->name && *l->name ? l->name : "-");
	report_escape(dev, sizeof(dev), *raw ? raw : "-");
	if (l->to < 0)
		snprintf(cpus, sizeof(cpus), "%s", l->from);
	else if (strcmp(l->from, "?") != 0 && l->to >= 0 &&
		 snprintf(cpus, sizeof(cpus), "%d", l->to) > 0 &&
		 strcmp(cpus, l->from) == 0)
		;	/* unchanged: print it once */
	else
		snprintf(cpus, sizeof(cpus), "%s->%d", l->from, l->to);
	fprintf(f, "%5u  %-20s %-24s %-7s %12s  %7.3f%%  ", l->irq, name, dev,
		irq_class_name(l->class), cpus, l->load * 100);
	if (both && isnan(l->load_proc))
		fprintf(f, "%8s  ", "-");
	else if (both)
		fprintf(f, "%7.3f%%  ", l->load_proc * 100);
	fputs(report_outcome_text(l->outcome), f);
	if (verbose && l->reason) {
		char reason[256];

		report_escape(reason, sizeof(reason), l->reason);	/* may name a device */
		fprintf(f, " (%s)", reason);
	}
	/* Only where the kernel threads IRQs: other reports read as before. */
	if (l->threaded)
		fprintf(f, " (threaded: %.3f%% in its threads)", l->load_thread * 100);
	fputc('\n', f);
}

void report_source(FILE *f, const char *source, const char *reason)
{
	char why[512];

	report_escape(why, sizeof(why), reason);	/* may quote libbpf */
	fprintf(f, "irqtune: load source %s: %s\n", source, why);
}

void report_summary(FILE *f, const struct report_totals *t)
{
	fprintf(f, "irqtune: %u seen, %u movable, %u %s, %u kernel-managed, "
		"%u failed; per-CPU IRQ load %.2f%%..%.2f%% before, "
		"%.2f%%..%.2f%% %s\n", t->seen, t->movable, t->moved,
		t->dry_run ? "to move" : "moved", t->managed, t->failed,
		t->before_min * 100, t->before_max * 100, t->after_min * 100,
		t->after_max * 100, t->dry_run ? "planned" : "after");
}

void report_bans(FILE *f, const struct report_ban *bans, unsigned int nr)
{
	for (unsigned int i = 0; i < nr; i++) {
		char src[4 * 256];

		report_escape(src, sizeof(src), bans[i].source);	/* may name a file */
		fprintf(f, "irqtune: CPU%s %s banned by %s\n",
			strpbrk(bans[i].cpus, ",-") ? "s" : "", bans[i].cpus, src);
	}
}
