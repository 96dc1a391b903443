// SPDX-License-Identifier: GPL-2.0-or-later
/* test_netpathio.c - the reader of netdev netlink's answers
 * (netpathio_nl_parse()) on replies crafted byte by byte: a dump in
 * several parts, the per-NAPI settings and threaded modes, the family's
 * id, the kernel's errors with and without an extended ack, an
 * inconsistent dump, and replies that are cut short or whose lengths lie. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <libmnl/libmnl.h>

#include "netpathio.h"

#define SEQ	7
#define PORT	4242

/* A datagram being built: messages one after another. */
struct dgram {
	union {
		char buf[8192];
		struct nlmsghdr align;
	};
	size_t len;
};

static struct nlmsghdr *msg(struct dgram *d, uint16_t type, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(d->buf + d->len);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = SEQ;
	nlh->nlmsg_pid = PORT;
	return nlh;
}

static void done(struct dgram *d, struct nlmsghdr *nlh)
{
	d->len += MNL_ALIGN(nlh->nlmsg_len);
}

struct napi_attrs {
	int id, irq, pid, threaded, defer;
	int64_t gro, suspend;	/* -1: none; > UINT32_MAX: put as 8 bytes */
};

/* One napi-get answer: a message of the dump. */
static void napi(struct dgram *d, const struct napi_attrs *a, uint16_t flags)
{
	struct nlmsghdr *nlh = msg(d, 0x20, NLM_F_MULTI | flags);
	struct genlmsghdr *gh = mnl_nlmsg_put_extra_header(nlh, sizeof(*gh));

	gh->cmd = 11;
	gh->version = 1;
	mnl_attr_put_u32(nlh, 1, 2);	/* ifindex */
	if (a->id >= 0)
		mnl_attr_put_u32(nlh, 2, (uint32_t)a->id);
	if (a->irq >= 0)
		mnl_attr_put_u32(nlh, 3, (uint32_t)a->irq);
	if (a->pid >= 0)
		mnl_attr_put_u32(nlh, 4, (uint32_t)a->pid);
	if (a->defer >= 0)
		mnl_attr_put_u32(nlh, 5, (uint32_t)a->defer);
	if (a->gro > (int64_t)UINT32_MAX)
		mnl_attr_put_u64(nlh, 6, (uint64_t)a->gro);
	else if (a->gro >= 0)
		mnl_attr_put_u32(nlh, 6, (uint32_t)a->gro);
	if (a->suspend >= 0)
		mnl_attr_put_u32(nlh, 7, (uint32_t)a->suspend);
	if (a->threaded >= 0)
		mnl_attr_put_u32(nlh, 8, (uint32_t)a->threaded);
	mnl_attr_put_u32(nlh, 99, 1);	/* what a newer kernel adds: skipped */
	done(d, nlh);
}

static void dump_done(struct dgram *d, int err)
{
	struct nlmsghdr *nlh = msg(d, NLMSG_DONE, NLM_F_MULTI);
	int *e = mnl_nlmsg_put_extra_header(nlh, sizeof(int));

	*e = err;
	done(d, nlh);
}

/* NLMSG_ERROR @err for a request; @text as its extended ack, the request
 * echoed unless @capped. */
static void error(struct dgram *d, int err, const char *text, bool capped)
{
	uint16_t flags = (text ? NLM_F_ACK_TLVS : 0) | (capped ? NLM_F_CAPPED : 0);
	struct nlmsghdr *nlh = msg(d, NLMSG_ERROR, flags);
	struct nlmsgerr *e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));

	e->error = err;
	e->msg = (struct nlmsghdr){ .nlmsg_len = sizeof(struct nlmsghdr), .nlmsg_seq = SEQ };
	if (!capped) {
		/* the request's payload: a genl header and one attribute */
		struct genlmsghdr *gh = mnl_nlmsg_put_extra_header(nlh, sizeof(*gh) + 8);

		gh->cmd = 11;
		e = mnl_nlmsg_get_payload(nlh);
		e->msg.nlmsg_len = sizeof(struct nlmsghdr) + sizeof(*gh) + 8;
	}
	if (text)
		mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, text);
	done(d, nlh);
}

static struct netpathio_nl_reply napi_reply(void)
{
	return (struct netpathio_nl_reply){ .what = NETPATHIO_NL_NAPI };
}

static int parse(const struct dgram *d, struct netpathio_nl_reply *r)
{
	return netpathio_nl_parse(d->buf, d->len, SEQ, PORT, r);
}

/* A dump in two datagrams, the second ending it: every NAPI with an id,
 * and what each says; one without an id is none. */
static void test_dump_multipart(void **state)
{
	struct netpathio_nl_reply r = napi_reply();
	struct dgram a = { 0 }, b = { 0 };

	(void)state;
	napi(&a, &(struct napi_attrs){ 8193, 40, 900, 1, -1, -1, -1 }, 0);
	napi(&a, &(struct napi_attrs){ 8194, 41, -1, -1, 2, 20000, 5000000 }, 0);
	napi(&b, &(struct napi_attrs){ -1, 42, 901, 1, -1, -1, -1 }, 0);
	napi(&b, &(struct napi_attrs){ 8195, -1, 902, 2, 0, 6000000000LL, -1 }, 0);
	dump_done(&b, 0);
	assert_int_equal(parse(&a, &r), 1);	/* more to come */
	assert_int_equal(parse(&b, &r), 0);
	assert_int_equal(r.nr, 3);
	assert_int_equal(r.napi[0].id, 8193);
	assert_int_equal(r.napi[0].irq, 40);
	assert_int_equal(r.napi[0].pid, 900);
	assert_int_equal(r.napi[0].threaded, NETPATHIO_THREADED_ON);
	assert_int_equal(r.napi[0].defer_hard_irqs, -1);
	assert_int_equal(r.napi[0].gro_flush_timeout, -1);
	assert_int_equal(r.napi[1].pid, -1);
	assert_int_equal(r.napi[1].threaded, -1);
	assert_int_equal(r.napi[1].defer_hard_irqs, 2);
	assert_int_equal(r.napi[1].gro_flush_timeout, 20000);
	assert_int_equal(r.napi[1].irq_suspend_timeout, 5000000);
	assert_int_equal(r.napi[2].id, 8195);
	assert_int_equal(r.napi[2].irq, -1);
	assert_int_equal(r.napi[2].threaded, NETPATHIO_THREADED_BUSY_POLL);
	assert_true(r.napi[2].gro_flush_timeout == 6000000000LL);	/* as 8 bytes */
	assert_int_equal(r.err, 0);
	netpathio_nl_reply_release(&r);
	assert_null(r.napi);
}

/* The family lookup: one message, no NLM_F_MULTI, is the whole answer. */
static void test_family(void **state)
{
	struct netpathio_nl_reply r = { .what = NETPATHIO_NL_FAMILY };
	struct dgram d = { 0 };
	struct nlmsghdr *nlh = msg(&d, GENL_ID_CTRL, 0);
	struct genlmsghdr *gh = mnl_nlmsg_put_extra_header(nlh, sizeof(*gh));

	(void)state;
	gh->cmd = CTRL_CMD_NEWFAMILY;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, "netdev");
	mnl_attr_put_u16(nlh, CTRL_ATTR_FAMILY_ID, 0x1b);
	done(&d, nlh);
	assert_int_equal(parse(&d, &r), 0);
	assert_int_equal(r.family, 0x1b);
}

/* The kernel's refusal: its errno, and its extended ack's message
 * whether or not the request is echoed before it. */
static void test_error_ext_ack(void **state)
{
	static const bool capped[] = { true, false };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		struct netpathio_nl_reply r = napi_reply();
		struct dgram d = { 0 };

		error(&d, -EOPNOTSUPP, "Unknown command", capped[i]);
		assert_int_equal(parse(&d, &r), -EOPNOTSUPP);
		assert_string_equal(r.ext_msg, "Unknown command");
		/* the failure stays: later datagrams cannot undo it */
		assert_int_equal(parse(&d, &r), -EOPNOTSUPP);
	}
	{
		struct netpathio_nl_reply r = napi_reply();
		struct dgram d = { 0 };

		error(&d, -ENOENT, NULL, true);
		assert_int_equal(parse(&d, &r), -ENOENT);
		assert_string_equal(r.ext_msg, "");
	}
	{
		/* an ack ends an answer */
		struct netpathio_nl_reply r = napi_reply();
		struct dgram d = { 0 };

		error(&d, 0, NULL, true);
		assert_int_equal(parse(&d, &r), 0);
	}
	{
		/* a dump that failed part way says so in its NLMSG_DONE */
		struct netpathio_nl_reply r = napi_reply();
		struct dgram d = { 0 };

		napi(&d, &(struct napi_attrs){ 8193, 40, 900, 1, -1, -1, -1 }, 0);
		dump_done(&d, -EMSGSIZE);
		assert_int_equal(parse(&d, &r), -EMSGSIZE);
		netpathio_nl_reply_release(&r);
	}
}

/* NLM_F_DUMP_INTR: the NAPIs changed while dumped; the caller asks again. */
static void test_dump_intr(void **state)
{
	struct netpathio_nl_reply r = napi_reply();
	struct dgram d = { 0 };

	(void)state;
	napi(&d, &(struct napi_attrs){ 8193, 40, 900, 1, -1, -1, -1 }, NLM_F_DUMP_INTR);
	assert_int_equal(parse(&d, &r), -EINTR);
	netpathio_nl_reply_release(&r);
}

/* Replies no kernel sends: each refused as malformed, never read past. */
static void test_malformed(void **state)
{
	struct dgram good = { 0 };
	size_t first;

	(void)state;
	napi(&good, &(struct napi_attrs){ 8193, 40, 900, 1, 2, 20000, -1 }, 0);
	first = good.len;
	napi(&good, &(struct napi_attrs){ 8194, 41, 901, 1, -1, -1, -1 }, 0);
	/* cut anywhere inside a message */
	for (size_t cut = 1; cut < good.len; cut++) {
		struct netpathio_nl_reply r = napi_reply();

		if (cut == first)
			continue;	/* a whole message: a shorter, good reply */
		assert_int_equal(netpathio_nl_parse(good.buf, cut, SEQ, PORT, &r), -EBADMSG);
		netpathio_nl_reply_release(&r);
	}
	{
		/* an empty datagram */
		struct netpathio_nl_reply r = napi_reply();

		assert_int_equal(netpathio_nl_parse(good.buf, 0, SEQ, PORT, &r), -EBADMSG);
	}
	{
		/* a message length below a header's, and one past the end */
		struct dgram d = good;
		struct netpathio_nl_reply r = napi_reply();

		((struct nlmsghdr *)d.buf)->nlmsg_len = 8;
		assert_int_equal(parse(&d, &r), -EBADMSG);
		d = good;
		r = napi_reply();
		((struct nlmsghdr *)d.buf)->nlmsg_len = (uint32_t)d.len + 4;
		assert_int_equal(parse(&d, &r), -EBADMSG);
	}
	{
		/* an attribute whose length runs past its message */
		struct dgram d = good;
		struct netpathio_nl_reply r = napi_reply();
		struct nlattr *a = (struct nlattr *)(d.buf + sizeof(struct nlmsghdr) + GENL_HDRLEN);

		a->nla_len = 200;
		assert_int_equal(parse(&d, &r), -EBADMSG);
		netpathio_nl_reply_release(&r);
	}
	{
		/* a u32 attribute of two bytes */
		struct dgram d = { 0 };
		struct netpathio_nl_reply r = napi_reply();
		struct nlmsghdr *nlh = msg(&d, 0x20, NLM_F_MULTI);
		uint16_t v = 3;

		mnl_nlmsg_put_extra_header(nlh, GENL_HDRLEN);
		mnl_attr_put(nlh, 2, sizeof(v), &v);
		done(&d, nlh);
		assert_int_equal(parse(&d, &r), -EBADMSG);
	}
	{
		/* a message too short for its genl header */
		struct dgram d = { 0 };
		struct netpathio_nl_reply r = napi_reply();

		done(&d, msg(&d, 0x20, NLM_F_MULTI));
		assert_int_equal(parse(&d, &r), -EBADMSG);
	}
	{
		/* an error message cut before its errno, and a positive errno */
		struct dgram d = { 0 };
		struct netpathio_nl_reply r = napi_reply();

		done(&d, msg(&d, NLMSG_ERROR, 0));
		assert_int_equal(parse(&d, &r), -EBADMSG);
		d = (struct dgram){ 0 };
		r = napi_reply();
		error(&d, 5, NULL, true);
		assert_int_equal(parse(&d, &r), -EBADMSG);
	}
	{
		/* an echoed request longer than the error message holding it */
		struct dgram d = { 0 };
		struct netpathio_nl_reply r = napi_reply();
		struct nlmsgerr *e;

		error(&d, -EINVAL, "bad", false);
		e = mnl_nlmsg_get_payload((struct nlmsghdr *)d.buf);
		e->msg.nlmsg_len = 4000;
		assert_int_equal(parse(&d, &r), -EBADMSG);
	}
	{
		/* another request's answer (a stray sequence number) */
		struct netpathio_nl_reply r = napi_reply();

		assert_int_equal(netpathio_nl_parse(good.buf, good.len, SEQ + 1, PORT, &r), -EPROTO);
		netpathio_nl_reply_release(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dump_multipart),
		cmocka_unit_test(test_family),
		cmocka_unit_test(test_error_ext_ack),
		cmocka_unit_test(test_dump_intr),
		cmocka_unit_test(test_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
