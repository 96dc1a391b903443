/* SPDX-License-Identifier: GPL-2.0-or-later */
/* procfs.h - the parsers of /proc/interrupts, /proc/stat and
 * /proc/softirqs, and the readers of /proc/irq/N. Parsers take a FILE *
 * so tests can feed them strings; the readers go through a source (a live
 * machine or a capture). What the files say, never what it means: that is
 * sample.c's. */
#ifndef IRQTUNE_PROCFS_H
#define IRQTUNE_PROCFS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct cpuset;
struct source;

/* Numbered IRQs above this are not believed; keeps corrupt input bounded. */
#define IRQ_NUM_LIMIT (1u << 24)

struct cpu_count {
	unsigned int cpu;	/* CPU id, from the header's CPUn label */
	uint64_t count;
};

/* One numbered row of /proc/interrupts. */
struct irq_row {
	unsigned int irq;
	uint64_t total;			/* sum of the counts */
	unsigned int nr_counts;
	struct cpu_count *counts;	/* non-zero counts only, ascending cpu */
	char *desc;	/* text after the counts: chip, hwirq, type, actions;
			 * NULL in a row a load history kept, which has only
			 * @desc_hash */
	uint64_t desc_hash;	/* sample_desc_hash() of it, where @desc is NULL */
	char *name;	/* best-effort action names from @desc, may be "" */
	/* Read without /proc/interrupts (interrupts.effective_read): the
	 * first CPU of its effective_affinity_list, -1 if none. */
	int effective;
};

struct interrupts {
	unsigned int nr_cols;
	unsigned int *col_cpu;		/* CPU id of each count column */
	unsigned int nr_rows;
	struct irq_row *rows;		/* ascending irq, no duplicates */
	bool effective_read;		/* every row's .effective is set */
};

/* Softirq types that belong to device classes; the rest are not device work. */
enum softirq_type {
	SOFTIRQ_HI, SOFTIRQ_TIMER, SOFTIRQ_NET_TX, SOFTIRQ_NET_RX, SOFTIRQ_BLOCK,
	SOFTIRQ_IRQ_POLL, SOFTIRQ_TASKLET, SOFTIRQ_SCHED, SOFTIRQ_HRTIMER,
	SOFTIRQ_RCU, SOFTIRQ_NR
};

struct cpu_stat {
	uint64_t irq;		/* USER_HZ ticks of hard-irq time */
	uint64_t softirq;	/* USER_HZ ticks of softirq time */
	uint64_t softirqs[SOFTIRQ_NR];	/* /proc/softirqs counts */
	unsigned char seen;	/* SAMPLE_SEEN_* */
};

#define SAMPLE_SEEN_STAT	0x1	/* a line of /proc/stat */
#define SAMPLE_SEEN_SOFTIRQS	0x2	/* a column of /proc/softirqs */

struct cpu_stats {
	unsigned int nr_ids;	/* cpu[] size: highest CPU id seen + 1 */
	struct cpu_stat *cpu;
};

/* Parse /proc/interrupts. Architecture rows (LOC, NMI, IPIn, ERR, ...) are
 * skipped; so are blank lines. On a malformed line returns -EINVAL and sets
 * *@ret_line (1-based) when @ret_line is not NULL. */
int interrupts_parse(FILE *f, struct interrupts **ret, unsigned int *ret_line);
void interrupts_free(struct interrupts *intr);
const struct irq_row *interrupts_find(const struct interrupts *intr,
				      unsigned int irq);

/* Fill @stats (allocated or grown as needed) from /proc/stat and
 * /proc/softirqs. Same error convention as interrupts_parse(). */
int stat_parse(FILE *f, struct cpu_stats *stats, unsigned int *ret_line);
/* The count of each IRQ number, summed over CPUs: /proc/stat's intr line. */
struct irq_totals {
	unsigned int nr;	/* IRQs 0 .. nr - 1 */
	uint64_t *total;
};
/* stat_parse(), and the intr line into *@ret_totals (-ENODATA: none). */
int stat_parse_totals(FILE *f, struct cpu_stats *stats, struct irq_totals *ret_totals,
		      unsigned int *ret_line);
int softirqs_parse(FILE *f, struct cpu_stats *stats, unsigned int *ret_line);
void cpu_stats_release(struct cpu_stats *stats);	/* frees the contents */
void irq_row_release(struct irq_row *row);	/* frees the contents */

/* The IRQ numbers /proc/irq has a directory for, ascending, in *@ret_v
 * (free() it) and *@ret_n. */
int procirq_numbers(struct source *src, const char *tag, unsigned int **ret_v,
		    unsigned int *ret_n);
/* Whether /proc/irq/@irq has a handler (a directory per action): 1 or 0,
 * or -errno. */
int procirq_has_action(struct source *src, const char *tag, unsigned int irq);
/* The one CPU of /proc/irq/@irq/effective_affinity_list; -1 when it names
 * several, none, or cannot be read. The first CPU it names in *@ret_first
 * (-1: none, or not a cpulist), as the device scan would take it. @tmp is
 * scratch of CPU_ID_LIMIT bits. */
int procirq_effective_cpu(struct source *src, const char *tag, unsigned int irq,
			  struct cpuset *tmp, int *ret_first);

/* Cpus_allowed_list of a /proc/PID/status (or task/TID/status) file into
 * @set (zeroed first): 0, -EINVAL (missing or malformed) or -ERANGE (a CPU
 * id beyond the set). */
int procfs_parse_cpus_allowed(const char *buf, struct cpuset *set);

#endif
