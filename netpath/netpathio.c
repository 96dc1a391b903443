// SPDX-License-Identifier: GPL-2.0-or-later
/* netpathio.c - reads a NIC's transmit queues, XPS masks and threaded-NAPI
 * setting from sysfs, its napi/X-ID threads from /proc, and netdev
 * netlink's napi-get; writes xps_cpus and pins threads. Decides nothing
 * (netpath.c does) and logs nothing (the caller reports each outcome). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "fileio.h"
#include "irqthread.h"
#include "netpathio.h"
#include "pathnames.h"
#include "procfs.h"
#include "strutil.h"

/* include/linux/sched.h */
#define PF_KTHREAD		0x00200000UL
#define PF_NO_SETAFFINITY	0x04000000UL	/* kthread_bind(): per-CPU threads */

/* include/uapi/linux/netdev.h of Linux 6.8, which Debian 12's headers
 * (6.1) predate. */
#define NETDEV_FAMILY		"netdev"
#define NETDEV_CMD_NAPI_GET_	11
#define NETDEV_A_NAPI_IFINDEX_	1
#define NETDEV_A_NAPI_ID_	2
#define NETDEV_A_NAPI_IRQ_	3
#define NETDEV_A_NAPI_PID_	4

struct queues_ctx {
	unsigned int max;	/* highest tx-N + 1 */
	unsigned int count;
};

static int count_tx(void *ctx, const char *name)
{
	struct queues_ctx *c = ctx;
	uint64_t n;

	if (strncmp(name, "tx-", 3) != 0 || parse_u64(name + 3, NETPATHIO_TX_MAX - 1, &n) < 0)
		return 0;
	c->count++;
	if (n + 1 > c->max)
		c->max = (unsigned int)n + 1;
	return 0;
}

int netpathio_read_nic(struct source *src, const char *ifname, unsigned int nr_ids,
		       struct netpathio_nic *ret)
{
	struct queues_ctx qc = { 0 };
	char path[256], buf[4096];
	int v, r;

	memset(ret, 0, sizeof(*ret));
	ret->threaded = ret->ifindex = -1;
	if (!*ifname || strchr(ifname, '/') || strlen(ifname) > 64)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/%s", _PATH_SYS_CLASS_NET, ifname);
	r = source_isdir(src, path);
	if (r < 0)
		return r == -ENOMEM ? r : -ENOENT;
	snprintf(path, sizeof(path), "%s/%s/threaded", _PATH_SYS_CLASS_NET, ifname);
	if (source_read(src, path, buf, sizeof(buf)) >= 0 && parse_int(buf, 0, 1, &v) == 0)
		ret->threaded = v;
	snprintf(path, sizeof(path), "%s/%s/ifindex", _PATH_SYS_CLASS_NET, ifname);
	if (source_read(src, path, buf, sizeof(buf)) >= 0 && parse_int(buf, 1, INT32_MAX, &v) == 0)
		ret->ifindex = v;
	snprintf(path, sizeof(path), "%s/%s/queues", _PATH_SYS_CLASS_NET, ifname);
	r = source_subdirs(src, path, count_tx, &qc);
	if (r < 0)
		return r;
	/* tx-0 .. tx-(N-1), none missing: anything else is no queue set
	 * the kernel makes, and is not written to. */
	if (qc.count != qc.max)
		return 0;
	ret->xps_now = calloc(qc.max ? qc.max : 1, sizeof(*ret->xps_now));
	if (!ret->xps_now)
		return -ENOMEM;
	ret->nr_tx = qc.max;
	for (unsigned int q = 0; q < qc.max; q++) {
		struct cpuset *set;

		snprintf(path, sizeof(path), "%s/%s/queues/tx-%u/xps_cpus", _PATH_SYS_CLASS_NET,
			 ifname, q);
		/* A single-queue device answers ENOENT: it has no map. */
		if (source_read(src, path, buf, sizeof(buf)) < 0)
			continue;
		set = cpuset_new(nr_ids);
		if (!set)
			return -ENOMEM;
		if (cpumask_parse(buf, set) < 0) {
			cpuset_free(set);	/* malformed: as if unread */
			continue;
		}
		ret->xps_now[q] = set;
	}
	return 0;
}

void netpathio_nic_release(struct netpathio_nic *nic)
{
	if (!nic)
		return;
	for (unsigned int q = 0; nic->xps_now && q < nic->nr_tx; q++)
		cpuset_free(nic->xps_now[q]);
	free(nic->xps_now);
	memset(nic, 0, sizeof(*nic));
}

int netpathio_parse_status(const char *buf, struct cpuset *set)
{
	return procfs_parse_cpus_allowed(buf, set) < 0 ? -EINVAL : 0;
}

static int add_thread(struct netpathio_threads *t, int pid, const char *comm,
		      unsigned long flags, struct cpuset *now)
{
	struct netpath_napi *n;

	if (t->nr == t->cap) {
		unsigned int cap = t->cap ? t->cap * 2 : 16;
		struct cpuset **c;

		n = reallocarray(t->t, cap, sizeof(*n));
		if (!n)
			return -ENOMEM;
		t->t = n;
		c = reallocarray(t->now, cap, sizeof(*c));
		if (!c)
			return -ENOMEM;
		t->now = c;
		t->cap = cap;
	}
	n = &t->t[t->nr];
	memset(n, 0, sizeof(*n));
	n->pid = pid;
	str_copy(n->comm, sizeof(n->comm), comm);
	n->id = n->irq = -1;
	n->bound = flags & PF_NO_SETAFFINITY;
	n->now = now;
	t->now[t->nr++] = now;
	return 0;
}

struct find_ctx {
	struct source *src;
	struct netpathio_threads *t;
	unsigned int nr_ids;
};

static int consider(void *ctx, const char *name)
{
	struct find_ctx *c = ctx;
	char path[64], buf[4096], comm[32];
	struct cpuset *now = NULL;
	unsigned long flags;
	uint64_t pid;
	int r;

	if (parse_u64(name, INT32_MAX, &pid) < 0 || pid == 0)
		return 0;
	snprintf(path, sizeof(path), "%s/%llu/stat", _PATH_PROC, (unsigned long long)pid);
	/* Gone meanwhile, or no NAPI thread: not ours. */
	if (source_read(c->src, path, buf, sizeof(buf)) < 0 ||
	    irqthread_parse_stat(buf, comm, sizeof(comm), &flags) < 0 ||
	    !(flags & PF_KTHREAD) || strncmp(comm, "napi/", 5) != 0)
		return 0;
	snprintf(path, sizeof(path), "%s/%llu/status", _PATH_PROC, (unsigned long long)pid);
	if (source_read(c->src, path, buf, sizeof(buf)) >= 0) {
		now = cpuset_new(c->nr_ids);
		if (!now)
			return -ENOMEM;
		if (netpathio_parse_status(buf, now) < 0) {
			cpuset_free(now);
			now = NULL;
		}
	}
	r = add_thread(c->t, (int)pid, comm, flags, now);
	if (r < 0)
		cpuset_free(now);
	return r;
}

int netpathio_find_threads(struct source *src, unsigned int nr_ids,
			   struct netpathio_threads *ret)
{
	struct find_ctx c = { src, ret, nr_ids };

	memset(ret, 0, sizeof(*ret));
	return source_kthreads(src, consider, &c);
}

void netpathio_threads_release(struct netpathio_threads *t)
{
	if (!t)
		return;
	for (unsigned int i = 0; i < t->nr; i++)
		cpuset_free(t->now[i]);
	free(t->t);
	free(t->now);
	memset(t, 0, sizeof(*t));
}

/* netlink: one request, then its answers until NLMSG_DONE or the reply. */
struct nl {
	int fd;
	unsigned int seq;
};

static int nl_send(struct nl *nl, unsigned short type, unsigned short flags, unsigned char cmd,
		   unsigned short attr, const void *val, unsigned short len)
{
	struct {
		struct nlmsghdr nh;
		struct genlmsghdr gh;
		char attrs[64];
	} req;
	struct nlattr *na = (struct nlattr *)req.attrs;
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };

	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_type = type;
	req.nh.nlmsg_flags = NLM_F_REQUEST | flags;
	req.nh.nlmsg_seq = ++nl->seq;
	req.gh.cmd = cmd;
	req.gh.version = 1;
	na->nla_type = attr;
	na->nla_len = (unsigned short)(NLA_HDRLEN + len);
	memcpy(req.attrs + NLA_HDRLEN, val, len);
	req.nh.nlmsg_len = (unsigned int)(NLMSG_LENGTH(GENL_HDRLEN) + NLA_ALIGN(na->nla_len));
	if (sendto(nl->fd, &req, req.nh.nlmsg_len, 0, (struct sockaddr *)&to, sizeof(to)) < 0)
		return -errno;
	return 0;
}

typedef int (*nl_attr_fn)(void *ctx, const struct nlattr *a, bool last);

/* Call @fn on every attribute of every answer; 0 at NLMSG_DONE or after
 * a plain reply, else the kernel's -errno. */
static int nl_recv(struct nl *nl, nl_attr_fn fn, void *ctx)
{
	static char buf[32768];

	for (;;) {
		ssize_t n = recv(nl->fd, buf, sizeof(buf), 0);
		bool multi = false;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (unsigned int)n);
		     h = NLMSG_NEXT(h, n)) {
			const struct nlattr *a;
			int len, r;

			if (h->nlmsg_seq != nl->seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				return e->error;
			}
			multi = h->nlmsg_flags & NLM_F_MULTI;
			len = (int)h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
			a = (const struct nlattr *)((const char *)NLMSG_DATA(h) + GENL_HDRLEN);
			while (len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len) {
				int step = NLA_ALIGN(a->nla_len);

				r = fn(ctx, a, step >= len);
				if (r < 0)
					return r;
				len -= step;
				a = (const struct nlattr *)((const char *)a + step);
			}
		}
		if (!multi)
			return 0;
	}
}

static int family_attr(void *ctx, const struct nlattr *a, bool last)
{
	(void)last;
	if (a->nla_type == CTRL_ATTR_FAMILY_ID && a->nla_len >= NLA_HDRLEN + 2)
		memcpy(ctx, (const char *)a + NLA_HDRLEN, 2);
	return 0;
}

struct napi_ctx {
	struct netpathio_napi_info *v;
	unsigned int nr, cap;
	struct netpathio_napi_info cur;
	bool any;
};

static int napi_attr(void *ctx, const struct nlattr *a, bool last)
{
	struct napi_ctx *c = ctx;
	uint32_t v = 0;

	if (a->nla_len >= NLA_HDRLEN + 4)
		memcpy(&v, (const char *)a + NLA_HDRLEN, 4);
	if (!c->any)
		c->cur = (struct netpathio_napi_info){ .irq = -1, .pid = -1 };
	c->any = true;
	if (a->nla_type == NETDEV_A_NAPI_ID_)
		c->cur.id = v;
	else if (a->nla_type == NETDEV_A_NAPI_IRQ_ && v <= INT32_MAX)
		c->cur.irq = (int)v;
	else if (a->nla_type == NETDEV_A_NAPI_PID_ && v <= INT32_MAX)
		c->cur.pid = (int)v;
	if (!last)
		return 0;
	/* The message's last attribute: one NAPI done. */
	if (c->nr == c->cap) {
		unsigned int cap = c->cap ? c->cap * 2 : 16;
		struct netpathio_napi_info *p = reallocarray(c->v, cap, sizeof(*p));

		if (!p)
			return -ENOMEM;
		c->v = p;
		c->cap = cap;
	}
	c->v[c->nr++] = c->cur;
	c->any = false;
	return 0;
}

int netpathio_napi_get(int ifindex, struct netpathio_napi_info **ret, unsigned int *ret_nr)
{
	struct sockaddr_nl me = { .nl_family = AF_NETLINK };
	struct napi_ctx c = { 0 };
	struct nl nl = { -1, 0 };
	uint16_t family = 0;
	uint32_t idx = (uint32_t)ifindex;
	int r;

	nl.fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (nl.fd < 0)
		return errno == EAFNOSUPPORT || errno == EPROTONOSUPPORT ? -EOPNOTSUPP : -errno;
	if (bind(nl.fd, (struct sockaddr *)&me, sizeof(me)) < 0) {
		r = -errno;
		goto out;
	}
	r = nl_send(&nl, GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_NAME,
		    NETDEV_FAMILY, sizeof(NETDEV_FAMILY));
	if (r == 0)
		r = nl_recv(&nl, family_attr, &family);
	/* No netdev family (before 6.3), or no napi-get in it (before 6.8). */
	if (r == -ENOENT || (r == 0 && family == 0)) {
		r = -EOPNOTSUPP;
		goto out;
	}
	if (r < 0)
		goto out;
	r = nl_send(&nl, family, NLM_F_DUMP, NETDEV_CMD_NAPI_GET_, NETDEV_A_NAPI_IFINDEX_,
		    &idx, sizeof(idx));
	if (r == 0)
		r = nl_recv(&nl, napi_attr, &c);
	if (r == -EOPNOTSUPP || r == -EINVAL)
		r = -EOPNOTSUPP;
out:
	close(nl.fd);
	if (r < 0) {
		free(c.v);
		return r;
	}
	*ret = c.v;
	*ret_nr = c.nr;
	return 0;
}

int netpathio_write_xps(const char *ifname, unsigned int queue, const struct cpuset *mask)
{
	char path[256], buf[4096];
	size_t len;
	ssize_t n;
	int fd, r = 0;

	if (cpumask_format(mask, buf, sizeof(buf) - 1) < 0)
		return -ENOSPC;
	len = strlen(buf);
	buf[len++] = '\n';
	snprintf(path, sizeof(path), "%s/%s/queues/tx-%u/xps_cpus", _PATH_SYS_CLASS_NET,
		 ifname, queue);
	/* O_TRUNC as a shell's "echo 3 > xps_cpus": sysfs ignores it. */
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	do
		n = write(fd, buf, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		r = -errno;
	else if ((size_t)n != len)
		r = -EMSGSIZE;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}

int netpathio_pin(int pid, const char *comm, int cpu)
{
	char path[64], now[32];
	cpu_set_t *set;
	size_t size;
	int r = 0;

	if (cpu < 0 || pid <= 0)
		return -EINVAL;
	/* The thread may have exited since it was read, and its PID gone
	 * to another process: pin only the thread so named. */
	snprintf(path, sizeof(path), "%s/%d/comm", _PATH_PROC, pid);
	if (read_small_file(path, now, sizeof(now)) < 0 || strcmp(now, comm) != 0)
		return -ESRCH;
	set = CPU_ALLOC((unsigned int)cpu + 1);
	if (!set)
		return -ENOMEM;
	size = CPU_ALLOC_SIZE((unsigned int)cpu + 1);
	CPU_ZERO_S(size, set);
	CPU_SET_S((unsigned int)cpu, size, set);
	if (sched_setaffinity(pid, size, set) < 0)
		r = -errno;
	CPU_FREE(set);
	return r;
}
