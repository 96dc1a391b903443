/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pathnames.h - every kernel path irqtune reads or writes, in one place. */
#ifndef IRQTUNE_PATHNAMES_H
#define IRQTUNE_PATHNAMES_H

#define _PATH_PROC_INTERRUPTS	"/proc/interrupts"
#define _PATH_PROC_STAT		"/proc/stat"
#define _PATH_PROC_SOFTIRQS	"/proc/softirqs"
#define _PATH_PROC_IRQ		"/proc/irq"	/* + "/N/<file>" */

/* Site policy; the Makefile passes SYSCONFDIR's. */
#ifndef _PATH_CONFIG
#define _PATH_CONFIG		"/etc/irqtune.conf"
#endif

/* Which boot this is: state of another boot is not this machine's now. */
#define _PATH_BOOT_ID		"/proc/sys/kernel/random/boot_id"
#define _PATH_OSRELEASE		"/proc/sys/kernel/osrelease"
/* What runs leave for later runs (costs.c). */
#define _PATH_RUN_DIR		"/run/irqtune"
#define _PATH_COSTS		_PATH_RUN_DIR "/costs"

/* Serialises runs from cron, timer, udev and by hand. */
#define _PATH_RUN_LOCK		"/run/irqtune.lock"

/* irqbalance's environment files, Debian's and RHEL's: the CPUs they ban
 * are banned here too (irqtune.conf's irqbalance-env points elsewhere). */
#define _PATH_IRQBALANCE_DEFAULT	"/etc/default/irqbalance"
#define _PATH_IRQBALANCE_SYSCONFIG	"/etc/sysconfig/irqbalance"

/* CPUs of isolated cgroup v2 cpuset partitions (Linux 6.7 and later). */
#define _PATH_CGROUP_ISOLATED	"/sys/fs/cgroup/cpuset.cpus.isolated"

/* Processes, to find a running irqbalance: /proc/PID/comm and stat. */
#define _PATH_PROC		"/proc"
/* Threaded IRQs' kernel threads: the children of kthreadd (PID 2), where
 * the kernel lists them (CONFIG_PROC_CHILDREN), else every process; then
 * /proc/PID/stat (name, flags) and schedstat (run time). */
#define _PATH_PROC_KTHREADS	"/proc/2/task/2/children"

/* The kubelet's CPU manager checkpoint: the CPUs its static policy gave
 * guaranteed pods' containers (irqtune.conf's kubelet-state points
 * elsewhere, for a kubelet --root-dir). */
#define _PATH_KUBELET_CPU_STATE	"/var/lib/kubelet/cpu_manager_state"

/* Network interfaces: queues/tx-N/xps_cpus, threaded, ifindex. */
#define _PATH_SYS_CLASS_NET	"/sys/class/net"

/* Relative to a root prefix ("" on a live machine) so tests can point
 * topology_read() at a captured tree. */
#define _PATH_SYS_CPU		"/sys/devices/system/cpu"
#define _PATH_SYS_NODE		"/sys/devices/system/node"
/* Intel hybrid parts: the CPUs of each core type, as their PMUs list them
 * in "cpus" (a cpulist; Alder Lake and later, Linux 5.13 and later). */
#define _PATH_SYS_HYBRID_CORE	"/sys/devices/cpu_core"
#define _PATH_SYS_HYBRID_ATOM	"/sys/devices/cpu_atom"

/* The x86 vector matrix: per-CPU free interrupt vectors (debugfs,
 * CONFIG_GENERIC_IRQ_DEBUGFS). Other architectures' domains sit beside
 * where it would be. */
#define _PATH_DEBUG_IRQ_DOMAINS	"/sys/kernel/debug/irq/domains"
#define _PATH_DEBUG_VECTOR	_PATH_DEBUG_IRQ_DOMAINS "/VECTOR"

#endif
