/* SPDX-License-Identifier: GPL-2.0-or-later */
/* apply.h - writing planned affinities to /proc/irq/N/smp_affinity_list and
 * reporting what the kernel made of each write. Never decides placement.
 * With the outcome of each IRQ's placement, the vocabulary every layer
 * above shares (docs/ARCHITECTURE.md). */
#ifndef IRQTUNE_APPLY_H
#define IRQTUNE_APPLY_H

enum apply_outcome {
	APPLY_MOVED,		/* written and accepted */
	APPLY_MANAGED,		/* the kernel refuses changes (EIO, EPERM) */
	APPLY_GONE,		/* the IRQ vanished (ENOENT) */
	APPLY_FAILED,		/* any other refusal; the IRQ is left as it was */
};

/* What became of one IRQ in a run, whether or not it was written: the
 * outcome the run step produces (planrun.h), the network path reads
 * (netfollow.h) and the report tells (report.h spells it). */
enum report_outcome {
	OUT_KEPT,		/* movable, stays where it is */
	OUT_MOVED,		/* written */
	OUT_WOULD_MOVE,		/* --dry-run: would be written */
	OUT_MANAGED,		/* kernel-managed: the kernel places it */
	OUT_GONE,		/* vanished during the run */
	OUT_FAILED,		/* the write was refused */
	OUT_BANNED,		/* --banirq, the configuration or IRQTUNE_BAN */
	OUT_UNUSED,		/* no handler: not listed */
	OUT_NOCPU,		/* its allowed CPUs are all ineligible: left */
	OUT_NR
};

struct apply_result {
	enum apply_outcome outcome;
	int cpu;		/* CPU written, -1 if none was accepted */
	int tried;		/* CPUs tried */
	int err;		/* errno of the last refusal, 0 if none */
	int effective;		/* first CPU of effective_affinity_list after a
				 * refusal; -1 if unread (also when moved) */
	char now[32];		/* smp_affinity_list after the attempt (when
				 * moved: the CPU written, not read back) */
};

/* Try the CPUs of @cpus in order (plan target first, then its fallbacks; -1
 * entries are skipped): a CPU without a free vector (ENOSPC) or no longer
 * online (EINVAL) makes it try the next one. Fills @res; returns 0 when a
 * write was accepted, else the -errno that ended it. */
int apply_irq(unsigned int irq, const int *cpus, unsigned int nr_cpus,
	      struct apply_result *res);

#endif
