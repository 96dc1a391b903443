/* SPDX-License-Identifier: GPL-2.0-or-later */
/* machine.h - the machine a run plans for, read and, when it cannot be,
 * said why: its CPUs from /sys (a replay's from the capture) and whether
 * /proc/irq is there; at the window's end, the CPUs still online and the
 * device behind each IRQ. An edge module over topology.h and device.h:
 * it logs; the readers it calls do not. */
#ifndef IRQTUNE_MACHINE_H
#define IRQTUNE_MACHINE_H

struct cpuset;
struct device_map;
struct interrupts;
struct source;
struct topology;
struct vector_info;

struct machine_input {
	struct source *fs;		/* live, recording or replaying */
	const char *capture;		/* a replay's file, to name in messages */
	const struct cpuset *banned;	/* every CPU banned, from every source */
};

/* The topology into *@ret_topo (set whenever it was read, even when
 * -ENOSPC follows), and each CPU's free interrupt vectors into *@ret_vec
 * (x86 with debugfs; otherwise why not). A malformed CPU capacity or
 * vector matrix is warned of and planned without. 0; -ENOSPC when no CPU
 * is left for IRQs; -EBADMSG when a replay's capture does not hold it;
 * other -errno from the readers or /proc/irq. Each said first. */
int machine_read(const struct machine_input *in, struct topology **ret_topo,
		 struct vector_info *ret_vec);

/* /proc/interrupts lists online CPUs only: a CPU with no column in @intr,
 * the window's end, went offline in it and leaves @topo. Then each IRQ's
 * device into *@ret_map. 0; -ENOSPC when no CPU is left for IRQs;
 * -EBADMSG for a replay's malformed devices; other -errno. Each said
 * first. */
int machine_devices(const struct machine_input *in, struct topology *topo,
		    const struct interrupts *intr, struct device_map **ret_map);

#endif
