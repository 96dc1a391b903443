/* SPDX-License-Identifier: GPL-2.0-or-later */
/* netpathio.h - the network path's files and threads: each NIC's transmit
 * queues and their XPS masks, whether its NAPI runs threaded, the napi/X-ID
 * kernel threads and their CPUs, netdev netlink's word on which IRQ
 * schedules which NAPI (Linux 6.8 and later); and the writes. Reads go
 * through a source (source.h), so a capture keeps them and a replay serves
 * them; netlink is asked on a live run only. Reports nothing: every
 * outcome is returned. */
#ifndef IRQTUNE_NETPATHIO_H
#define IRQTUNE_NETPATHIO_H

#include <stdbool.h>
#include "cpuset.h"
#include "netpath.h"
#include "source.h"

#define NETPATHIO_TX_MAX	4096	/* more tx-N than this: a corrupt sysfs */

/* What sysfs says of one interface. */
struct netpathio_nic {
	unsigned int nr_tx;
	struct cpuset **xps_now;	/* per queue; NULL entry: unreadable */
	int threaded;			/* 0, 1, -1 unread */
	int ifindex;			/* -1 unread */
};

/* Read @ifname's queues/tx-N/xps_cpus (cpumasks of @nr_ids bits),
 * threaded and ifindex. 0 (what cannot be read is marked so), -ENOENT
 * when the interface is not there, -ENOMEM. */
int netpathio_read_nic(struct source *src, const char *ifname, unsigned int nr_ids,
		       struct netpathio_nic *ret);
void netpathio_nic_release(struct netpathio_nic *nic);

/* Every kernel thread named napi/..., with its flags and CPUs. */
struct netpathio_threads {
	unsigned int nr, cap;
	struct netpath_napi *t;		/* irq -1, id -1: the caller's to fill */
	struct cpuset **now;		/* parallel; what t[i].now points to */
};

/* /proc/PID/status's Cpus_allowed_list line into @set. 0 or -EINVAL. */
int netpathio_parse_status(const char *buf, struct cpuset *set);
int netpathio_find_threads(struct source *src, unsigned int nr_ids,
			   struct netpathio_threads *ret);
void netpathio_threads_release(struct netpathio_threads *t);

/* netdev netlink napi-get, dumped for @ifindex: each NAPI's id, IRQ and
 * thread. 0 with *@ret_nr entries, -EOPNOTSUPP when the kernel has no
 * netdev family or no such command (before 6.8), else -errno. */
struct netpathio_napi_info {
	unsigned int id;
	int irq, pid;			/* -1: not said */
};
int netpathio_napi_get(int ifindex, struct netpathio_napi_info **ret, unsigned int *ret_nr);

/* Write @mask to @ifname's queues/tx-@queue/xps_cpus. 0 or -errno. */
int netpathio_write_xps(const char *ifname, unsigned int queue, const struct cpuset *mask);
/* Pin thread @pid, still named @comm, to @cpu: -ESRCH when it is gone
 * or another process now has its PID, else sched_setaffinity()'s. */
int netpathio_pin(int pid, const char *comm, int cpu);

#endif
