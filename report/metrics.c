// SPDX-License-Identifier: GPL-2.0-or-later
/* metrics.c - Prometheus textfile-collector output. Names follow the
 * Prometheus conventions: irqtune_ prefix, base units (seconds; loads in
 * CPUs), gauges only, one HELP and TYPE per family, no sample timestamps. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <stdbool.h>

#include "fileio.h"
#include "metrics.h"

static void family(FILE *f, const char *name, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

static void value(FILE *f, double v)
{
	if (isnan(v))
		fputs(" NaN\n", f);
	else
		fprintf(f, " %.9g\n", v);
}

/* The pinned application load per CPU and the headline figure. */
static void app_metrics(FILE *f, const struct report_run *run)
{
	const struct report_totals *t = &run->totals;

	family(f, "irqtune_cpu_app_load",
	       "Pinned application threads' work on each online CPU the last run planned around, in CPUs.");
	for (unsigned int k = 0; k < run->nr_cpus; k++) {
		fprintf(f, "irqtune_cpu_app_load{cpu=\"%d\"}", run->cpus[k]);
		value(f, run->app[run->cpus[k]]);
	}
	family(f, "irqtune_app_cpu_irq_share",
	       "Share of all IRQ work on CPUs running pinned application threads (0..1), before and after the last run.");
	fputs("irqtune_app_cpu_irq_share{when=\"before\"}", f);
	value(f, t->app_share_before);
	fputs("irqtune_app_cpu_irq_share{when=\"after\"}", f);
	value(f, t->app_share_after);
}

int metrics_format(FILE *f, const struct report_run *run)
{
	const struct report_totals *t = &run->totals;

	family(f, "irqtune_last_run_timestamp_seconds",
	       "When the last run of irqtune finished, in seconds since the epoch.");
	fprintf(f, "irqtune_last_run_timestamp_seconds %.3f\n", run->finished);
	family(f, "irqtune_run_duration_seconds",
	       "How long the last run took, sampling window included.");
	fputs("irqtune_run_duration_seconds", f);
	value(f, run->duration);
	family(f, "irqtune_run_success",
	       "1 if the last run ended with exit status 0, else 0.");
	fprintf(f, "irqtune_run_success %d\n", run->status == 0);
	family(f, "irqtune_exit_status", "Exit status of the last run (see irqtune(8)).");
	fprintf(f, "irqtune_exit_status %d\n", run->status);
	family(f, "irqtune_irqs",
	       "IRQs with a handler by what the last run did with them.");
	fprintf(f, "irqtune_irqs{state=\"moved\"} %u\n", t->moved);
	fprintf(f, "irqtune_irqs{state=\"unchanged\"} %u\n", t->unchanged);
	fprintf(f, "irqtune_irqs{state=\"kernel_managed\"} %u\n", t->managed);
	fprintf(f, "irqtune_irqs{state=\"failed\"} %u\n", t->failed);
	if (run->after) {
		family(f, "irqtune_cpu_irq_load",
		       "Estimated IRQ work on each online CPU after the last run, in CPUs (1 = one CPU kept busy).");
		for (unsigned int k = 0; k < run->nr_cpus; k++) {
			fprintf(f, "irqtune_cpu_irq_load{cpu=\"%d\"}", run->cpus[k]);
			value(f, run->after[run->cpus[k]]);
		}
		family(f, "irqtune_load_ratio",
		       "IRQ load of the busiest eligible CPU over the mean of the eligible CPUs (1 = even), before and after the last run.");
		fputs("irqtune_load_ratio{when=\"before\"}", f);
		value(f, t->ratio_before);
		fputs("irqtune_load_ratio{when=\"after\"}", f);
		value(f, t->ratio_after);
	}
	/* Only where application load is known: other files read as before. */
	if (run->after && run->app)
		app_metrics(f, run);
	return ferror(f) ? -EIO : 0;
}

int metrics_write(const char *path, const struct report_run *run)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem;
	int r;

	mem = open_memstream(&text, &len);
	if (!mem)
		return -ENOMEM;
	r = metrics_format(mem, run);
	if (fclose(mem) != 0 && r == 0)
		r = -ENOMEM;
	/* Readable by node_exporter whatever the umask (UMask=0077 in the unit). */
	if (r == 0)
		r = write_file_atomic(path, text, len, 0644);
	free(text);
	return r;
}

