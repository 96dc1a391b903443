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
#include <sys/time.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <libmnl/libmnl.h>

#include "fileio.h"
#include "irqthread.h"
#include "netpathio.h"
#include "pathnames.h"
#include "procfs.h"
#include "strutil.h"

/* include/linux/sched.h */
#define PF_KTHREAD		0x00200000UL
#define PF_NO_SETAFFINITY	0x04000000UL	/* kthread_bind(): per-CPU threads */

/* include/uapi/linux/netdev.h (Documentation/netlink/specs/netdev.yaml),
 * which Debian 12's headers (6.1) predate: napi-get from 6.8, the
 * per-NAPI settings from 6.13, threaded from 6.17 (busy-poll later). */
#define NETDEV_FAMILY		"netdev"
#define NETDEV_CMD_NAPI_GET_	11
#define NETDEV_A_NAPI_IFINDEX_	1
#define NETDEV_A_NAPI_ID_	2
#define NETDEV_A_NAPI_IRQ_	3
#define NETDEV_A_NAPI_PID_	4
#define NETDEV_A_NAPI_DEFER_HARD_IRQS_		5
#define NETDEV_A_NAPI_GRO_FLUSH_TIMEOUT_	6
#define NETDEV_A_NAPI_IRQ_SUSPEND_TIMEOUT_	7
#define NETDEV_A_NAPI_THREADED_			8
#define NETDEV_A_NAPI_MAX_			8

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

/* netlink through libmnl. A request is built with mnl_nlmsg_put_header();
 * each datagram of its answer goes to netpathio_nl_parse(), which takes
 * the bytes alone, so that the unit tests and the fuzzer hand it what no
 * kernel sends. */

/* What a reply holds that is no NAPI: a failure. */
static int nl_fail(struct netpathio_nl_reply *r, int err)
{
	r->err = err;
	return MNL_CB_ERROR;
}

/* Every attribute from @a over @len bytes, each to @fn; a length that
 * runs past the end or leaves bytes over is a malformed reply. */
static int nl_attrs(const struct nlattr *a, int len, mnl_attr_cb_t fn, void *data)
{
	while (len > 0) {
		int r;

		if (!mnl_attr_ok(a, len))
			return MNL_CB_ERROR;
		r = fn(a, data);
		if (r <= MNL_CB_STOP)
			return r;
		len -= (int)MNL_ALIGN(a->nla_len);
		a = mnl_attr_next(a);
	}
	return MNL_CB_OK;
}

static int family_attr(const struct nlattr *a, void *data)
{
	struct netpathio_nl_reply *r = data;

	if (mnl_attr_get_type(a) != CTRL_ATTR_FAMILY_ID)
		return MNL_CB_OK;
	if (mnl_attr_validate(a, MNL_TYPE_U16) < 0)
		return nl_fail(r, -EBADMSG);
	r->family = mnl_attr_get_u16(a);
	return MNL_CB_OK;
}

struct napi_parse {
	struct netpathio_nl_reply *r;
	struct netpathio_napi_info cur;
	bool has_id;
};

/* An unsigned of 4 or 8 bytes (the spec's "uint", nla_put_uint()). */
static int get_uint(const struct nlattr *a, int64_t *ret)
{
	uint64_t v;

	if (mnl_attr_get_payload_len(a) == 4)
		v = mnl_attr_get_u32(a);
	else if (mnl_attr_get_payload_len(a) == 8)
		v = mnl_attr_get_u64(a);
	else
		return -EBADMSG;
	*ret = v > INT64_MAX ? INT64_MAX : (int64_t)v;
	return 0;
}

static int napi_attr(const struct nlattr *a, void *data)
{
	struct napi_parse *p = data;
	uint16_t type = mnl_attr_get_type(a);
	uint32_t v;

	switch (type) {
	case NETDEV_A_NAPI_GRO_FLUSH_TIMEOUT_:
		return get_uint(a, &p->cur.gro_flush_timeout) < 0 ? nl_fail(p->r, -EBADMSG) : MNL_CB_OK;
	case NETDEV_A_NAPI_IRQ_SUSPEND_TIMEOUT_:
		return get_uint(a, &p->cur.irq_suspend_timeout) < 0 ? nl_fail(p->r, -EBADMSG) :
			MNL_CB_OK;
	case NETDEV_A_NAPI_ID_:
	case NETDEV_A_NAPI_IRQ_:
	case NETDEV_A_NAPI_PID_:
	case NETDEV_A_NAPI_DEFER_HARD_IRQS_:
	case NETDEV_A_NAPI_THREADED_:
		break;
	default:
		return MNL_CB_OK;	/* ifindex, or what a newer kernel adds */
	}
	if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
		return nl_fail(p->r, -EBADMSG);
	v = mnl_attr_get_u32(a);
	if (type == NETDEV_A_NAPI_ID_) {
		p->cur.id = v;
		p->has_id = true;
	} else if (v > INT32_MAX) {
		return nl_fail(p->r, -EBADMSG);
	} else if (type == NETDEV_A_NAPI_IRQ_) {
		p->cur.irq = (int)v;
	} else if (type == NETDEV_A_NAPI_PID_) {
		p->cur.pid = (int)v;
	} else if (type == NETDEV_A_NAPI_DEFER_HARD_IRQS_) {
		p->cur.defer_hard_irqs = (int)v;
	} else {
		p->cur.threaded = (int)v;
	}
	return MNL_CB_OK;
}

static int napi_add(struct netpathio_nl_reply *r, const struct netpathio_napi_info *n)
{
	if (r->nr == NETPATHIO_NAPI_MAX)
		return nl_fail(r, -E2BIG);
	if (r->nr == r->cap) {
		unsigned int cap = r->cap ? r->cap * 2 : 16;
		struct netpathio_napi_info *v = reallocarray(r->napi, cap, sizeof(*v));

		if (!v)
			return nl_fail(r, -ENOMEM);
		r->napi = v;
		r->cap = cap;
	}
	r->napi[r->nr++] = *n;
	return MNL_CB_OK;
}

static int nl_data(const struct nlmsghdr *nlh, void *data)
{
	struct netpathio_nl_reply *r = data;
	const struct nlattr *a;
	int len, res;

	if (!(nlh->nlmsg_flags & NLM_F_MULTI))
		r->single = true;
	if (mnl_nlmsg_get_payload_len(nlh) < GENL_HDRLEN)
		return nl_fail(r, -EBADMSG);
	a = mnl_nlmsg_get_payload_offset(nlh, GENL_HDRLEN);
	len = (int)(mnl_nlmsg_get_payload_len(nlh) - GENL_HDRLEN);
	if (r->what == NETPATHIO_NL_FAMILY) {
		res = nl_attrs(a, len, family_attr, r);
	} else {
		struct napi_parse p = {
			.r = r,
			.cur = { .irq = -1, .pid = -1, .threaded = -1, .defer_hard_irqs = -1,
				 .gro_flush_timeout = -1, .irq_suspend_timeout = -1 },
		};

		res = nl_attrs(a, len, napi_attr, &p);
		/* A NAPI without an id is none the kernel lists. */
		if (res > MNL_CB_STOP && p.has_id)
			res = napi_add(r, &p.cur);
	}
	if (res < MNL_CB_STOP && !r->err)
		r->err = -EBADMSG;
	return res;
}

static int ext_ack_attr(const struct nlattr *a, void *data)
{
	struct netpathio_nl_reply *r = data;

	if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG &&
	    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
		str_copy(r->ext_msg, sizeof(r->ext_msg), mnl_attr_get_str(a));
	return MNL_CB_OK;
}

/* NLMSG_ERROR: an ack (0), or the kernel's errno and, with extended
 * acks (4.12), its message after the request it refuses (or only its
 * header: NETLINK_CAP_ACK). */
static int nl_error(const struct nlmsghdr *nlh, void *data)
{
	struct netpathio_nl_reply *r = data;
	size_t plen = mnl_nlmsg_get_payload_len(nlh), off;
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

	if (plen < sizeof(*e))
		return nl_fail(r, -EBADMSG);
	if (e->error == 0)
		return MNL_CB_STOP;
	if (e->error > 0 || e->error < -4095)
		return nl_fail(r, -EBADMSG);
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS) {
		off = sizeof(*e);
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
			if (e->msg.nlmsg_len < sizeof(struct nlmsghdr) ||
			    e->msg.nlmsg_len - sizeof(struct nlmsghdr) > plen - off)
				return nl_fail(r, -EBADMSG);
			off += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
		}
		off = MNL_ALIGN(off);
		if (off < plen && nl_attrs((const struct nlattr *)((const char *)e + off),
					   (int)(plen - off), ext_ack_attr, r) < MNL_CB_STOP)
			return nl_fail(r, -EBADMSG);
	}
	return nl_fail(r, e->error);
}

/* NLMSG_DONE: the end of a dump, with the dump's own error if it failed
 * part way (netlink_dump_done()). */
static int nl_done(const struct nlmsghdr *nlh, void *data)
{
	struct netpathio_nl_reply *r = data;
	int err;

	if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(err)) {
		memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(err));
		if (err < 0 && err >= -4095)
			return nl_fail(r, err);
	}
	return MNL_CB_STOP;
}

static int nl_overrun(const struct nlmsghdr *nlh, void *data)
{
	(void)nlh;
	return nl_fail(data, -ENOBUFS);
}

int netpathio_nl_parse(const void *buf, size_t len, unsigned int seq, unsigned int portid,
		       struct netpathio_nl_reply *r)
{
	/* libmnl takes the table as writable, and never writes it. */
	static mnl_cb_t ctl[NLMSG_MIN_TYPE] = {
		[NLMSG_ERROR] = nl_error, [NLMSG_DONE] = nl_done, [NLMSG_OVERRUN] = nl_overrun,
	};
	size_t off = 0;
	int res;

	if (r->err)
		return r->err;
	/* Every message whole, and nothing after the last: libmnl stops
	 * quietly at a length that does not fit, and the answer's end
	 * would then be waited for in vain. */
	if (len == 0)
		return r->err = -EBADMSG;
	while (off < len) {
		const struct nlmsghdr *h = (const struct nlmsghdr *)((const char *)buf + off);

		if (len - off < sizeof(*h) || h->nlmsg_len < sizeof(*h) || h->nlmsg_len > len - off)
			return r->err = -EBADMSG;
		off += MNL_ALIGN(h->nlmsg_len);
	}
	errno = 0;
	res = mnl_cb_run2(buf, len, seq, portid, nl_data, r, ctl, NLMSG_MIN_TYPE);
	if (res < MNL_CB_STOP) {
		/* libmnl's own: EINTR for NLM_F_DUMP_INTR (the set changed
		 * while it was dumped), EPROTO a stray sequence number. */
		if (!r->err)
			r->err = errno ? -errno : -EBADMSG;
		return r->err;
	}
	if (res == MNL_CB_STOP)
		return 0;
	return r->single ? 0 : 1;
}

void netpathio_nl_reply_release(struct netpathio_nl_reply *r)
{
	if (!r)
		return;
	free(r->napi);
	r->napi = NULL;
	r->nr = r->cap = 0;
}

/* Send @req on @nl and parse its answer into @r until it ends. A
 * datagram's size is learnt before it is read (MSG_PEEK | MSG_TRUNC):
 * one cut short is lost, and a dump's parts are as large as the kernel
 * makes them. */
static int nl_talk(struct mnl_socket *nl, const struct nlmsghdr *req, struct netpathio_nl_reply *r)
{
	unsigned int portid = mnl_socket_get_portid(nl);
	int fd = mnl_socket_get_fd(nl), res;
	char *buf = NULL;
	size_t cap = 0;

	if (mnl_socket_sendto(nl, req, req->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		ssize_t n = recv(fd, NULL, 0, MSG_PEEK | MSG_TRUNC);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			res = errno == EAGAIN || errno == EWOULDBLOCK ? -ETIMEDOUT : -errno;
			break;
		}
		if ((size_t)n > NETPATHIO_NL_DATAGRAM_MAX) {
			res = -EMSGSIZE;
			break;
		}
		if ((size_t)n > cap || !buf) {
			char *p = realloc(buf, n ? (size_t)n : 1);

			if (!p) {
				res = -ENOMEM;
				break;
			}
			buf = p;
			cap = n ? (size_t)n : 1;
		}
		n = mnl_socket_recvfrom(nl, buf, cap);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			res = -errno;
			break;
		}
		res = netpathio_nl_parse(buf, (size_t)n, req->nlmsg_seq, portid, r);
		if (res <= 0)
			break;
	}
	free(buf);
	return res;
}

/* @buf is MNL_SOCKET_BUFFER_SIZE bytes. It is cleared whole first: libmnl
 * before 1.0.5 leaves an attribute's alignment padding as it found it, and
 * the kernel (and valgrind) would read those bytes. */
static struct nlmsghdr *genl_request(char *buf, uint16_t type, uint16_t flags, uint8_t cmd,
				     unsigned int seq)
{
	struct nlmsghdr *nlh;
	struct genlmsghdr *gh;

	memset(buf, 0, MNL_SOCKET_BUFFER_SIZE);
	nlh = mnl_nlmsg_put_header(buf);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = seq;
	gh = mnl_nlmsg_put_extra_header(nlh, sizeof(*gh));
	gh->cmd = cmd;
	gh->version = 1;
	return nlh;
}

static struct mnl_socket *nl_open(int *ret)
{
	struct timeval tv = { .tv_sec = NETPATHIO_NL_TIMEOUT };
	struct mnl_socket *nl = mnl_socket_open2(NETLINK_GENERIC, SOCK_CLOEXEC);
	int on = 1;

	if (!nl) {
		*ret = errno == EAFNOSUPPORT || errno == EPROTONOSUPPORT ? -EOPNOTSUPP : -errno;
		return NULL;
	}
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		*ret = -errno;
		mnl_socket_close(nl);
		return NULL;
	}
	/* Extended acks (4.12) say why; the refused request need not come
	 * back with them. A kernel without either still answers. */
	mnl_socket_setsockopt(nl, NETLINK_EXT_ACK, &on, sizeof(on));
	mnl_socket_setsockopt(nl, NETLINK_CAP_ACK, &on, sizeof(on));
	/* A kernel that never answers must not hold the run. */
	setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return nl;
}

static void nl_why(char *why, size_t len, const struct netpathio_nl_reply *r, int err)
{
	if (!why || !len)
		return;
	if (r->ext_msg[0])
		snprintf(why, len, "%s (%s)", strerror(-err), r->ext_msg);
	else
		snprintf(why, len, "%s", strerror(-err));
}

/* The netdev family's id: 0, -EOPNOTSUPP when there is none (before
 * 6.3), else -errno. */
static int netdev_family(struct mnl_socket *nl, uint16_t *ret, char *why, size_t len)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct netpathio_nl_reply r = { .what = NETPATHIO_NL_FAMILY };
	struct nlmsghdr *nlh = genl_request(buf, GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY, 1);
	int res;

	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, NETDEV_FAMILY);
	res = nl_talk(nl, nlh, &r);
	if (res == 0 && r.family == 0)
		res = -ENOENT;
	if (res < 0) {
		nl_why(why, len, &r, res);
		return res == -ENOENT ? -EOPNOTSUPP : res;
	}
	*ret = r.family;
	return 0;
}

int netpathio_napi_get(int ifindex, struct netpathio_napi_info **ret, unsigned int *ret_nr,
		       char *why, size_t len)
{
	struct netpathio_nl_reply r = { .what = NETPATHIO_NL_NAPI };
	struct mnl_socket *nl;
	uint16_t family = 0;
	int res;

	if (why && len)
		why[0] = '\0';
	nl = nl_open(&res);
	if (!nl)
		return res;
	res = netdev_family(nl, &family, why, len);
	/* A dump the kernel marks inconsistent (a NAPI came or went while
	 * it was dumped) is asked again, a few times. */
	for (unsigned int try = 0; res == 0 && try < NETPATHIO_NL_TRIES; try++) {
		char buf[MNL_SOCKET_BUFFER_SIZE];
		struct nlmsghdr *nlh = genl_request(buf, family, NLM_F_DUMP, NETDEV_CMD_NAPI_GET_,
						    2 + try);

		/* The dump filters by ifindex (netdev.yaml: napi-get dump
		 * request attributes). */
		mnl_attr_put_u32(nlh, NETDEV_A_NAPI_IFINDEX_, (uint32_t)ifindex);
		netpathio_nl_reply_release(&r);
		r = (struct netpathio_nl_reply){ .what = NETPATHIO_NL_NAPI };
		res = nl_talk(nl, nlh, &r);
		if (res != -EINTR)
			break;
	}
	mnl_socket_close(nl);
	if (res < 0) {
		if (!why || !len || !why[0])
			nl_why(why, len, &r, res);
		netpathio_nl_reply_release(&r);
		/* No napi-get in the family (before 6.8). */
		return res == -EOPNOTSUPP || res == -EINVAL ? -EOPNOTSUPP : res;
	}
	*ret = r.napi;
	*ret_nr = r.nr;
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
