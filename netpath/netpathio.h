/* SPDX-License-Identifier: GPL-2.0-or-later */
/* netpathio.h - the network path's files and threads: each NIC's transmit
 * queues and their XPS masks, whether its NAPI runs threaded, the napi/X-ID
 * kernel threads and their CPUs, netdev netlink's word on which IRQ
 * schedules which NAPI, its thread and its settings (Linux 6.8 and
 * later, through libmnl); and the writes. Reads go
 * through a source (source.h), so a capture keeps them and a replay serves
 * them; netlink is asked on a live run only. Reports nothing: every
 * outcome is returned. */
#ifndef IRQTUNE_NETPATHIO_H
#define IRQTUNE_NETPATHIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
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

/* netdev netlink napi-get, dumped for @ifindex: each NAPI's id, IRQ,
 * thread and settings. 0 with *@ret_nr entries, -EOPNOTSUPP when the
 * kernel has no netdev family or no such command (before 6.8), else
 * -errno, with what the kernel said (its extended ack) in @why. */
#define NETPATHIO_NAPI_MAX		65536	/* more NAPIs than this: a corrupt reply */
#define NETPATHIO_NL_DATAGRAM_MAX	(16u << 20)
#define NETPATHIO_NL_TIMEOUT		2	/* seconds to wait for the kernel */
#define NETPATHIO_NL_TRIES		3	/* dumps interrupted (NLM_F_DUMP_INTR) */
#define NETPATHIO_EXTACK_MAX		128

/* netdev.yaml's napi-threaded: busy-poll is the newest kernels'. */
enum netpathio_threaded {
	NETPATHIO_THREADED_OFF = 0,
	NETPATHIO_THREADED_ON = 1,
	NETPATHIO_THREADED_BUSY_POLL = 2,
};

struct netpathio_napi_info {
	unsigned int id;
	int irq, pid;			/* -1: not said (pid: no thread) */
	int threaded;			/* enum netpathio_threaded; -1 not said (before 6.17) */
	int defer_hard_irqs;		/* -1 not said (before 6.13) */
	int64_t gro_flush_timeout;	/* ns; -1 not said */
	int64_t irq_suspend_timeout;	/* ns; -1 not said */
};
int netpathio_napi_get(int ifindex, struct netpathio_napi_info **ret, unsigned int *ret_nr,
		       char *why, size_t len);

/* One answer being read: the family's id, or the NAPIs of a dump. */
struct netpathio_nl_reply {
	enum { NETPATHIO_NL_FAMILY, NETPATHIO_NL_NAPI } what;
	uint16_t family;		/* FAMILY: its id; 0 not said */
	struct netpathio_napi_info *napi;	/* NAPI: one per NAPI with an id */
	unsigned int nr, cap;
	bool single;			/* a reply of one message (no NLM_F_MULTI) */
	int err;			/* the first failure; then every call returns it */
	char ext_msg[NETPATHIO_EXTACK_MAX];	/* NLMSGERR_ATTR_MSG; "" none */
};
/* One datagram @buf of @len bytes of the answer to request @seq on port
 * @portid (0: either not checked) into @r: 1 when more is to come, 0 at
 * its end (NLMSG_DONE, an ack, or a reply of one message), else -errno:
 * the kernel's (its message in r->ext_msg), -EINTR for a dump the kernel
 * marks inconsistent, -EBADMSG for a malformed one, -ENOMEM, -E2BIG.
 * Pure. */
int netpathio_nl_parse(const void *buf, size_t len, unsigned int seq, unsigned int portid,
		       struct netpathio_nl_reply *r);
void netpathio_nl_reply_release(struct netpathio_nl_reply *r);

/* Write @mask to @ifname's queues/tx-@queue/xps_cpus. 0 or -errno. */
int netpathio_write_xps(const char *ifname, unsigned int queue, const struct cpuset *mask);
/* Pin thread @pid, still named @comm, to @cpu: -ESRCH when it is gone
 * or another process now has its PID, else sched_setaffinity()'s. */
int netpathio_pin(int pid, const char *comm, int cpu);

#endif
