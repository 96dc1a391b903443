// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_netlink.c - netpathio_nl_parse(), the reader of netdev netlink's
 * answers (napi-get dumps, the family lookup), on any bytes. The input's
 * first byte picks the answer read (bit 0: the family's, else a dump's)
 * and whether sequence and port are checked (bit 1); the rest is a run
 * of datagrams, each a 16-bit length (host order) and its bytes. What it
 * accepts holds only NAPIs with sane values; a failure is one of the
 * errors it documents, and sticks. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "netpathio.h"
#include "fuzz.h"

#define SEQ	7
#define PORT	4242

static void check_napi(const struct netpathio_nl_reply *r)
{
	fuzz_assert(r->nr <= r->cap && r->nr <= NETPATHIO_NAPI_MAX);
	for (unsigned int i = 0; i < r->nr; i++) {
		const struct netpathio_napi_info *n = &r->napi[i];

		fuzz_assert(n->irq >= -1 && n->pid >= -1 && n->threaded >= -1 &&
			    n->defer_hard_irqs >= -1 && n->gro_flush_timeout >= -1 &&
			    n->irq_suspend_timeout >= -1);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct netpathio_nl_reply r = { 0 };
	unsigned int seq = 0, port = 0;
	int res = 1;

	if (size < 1)
		return 0;
	r.what = data[0] & 1 ? NETPATHIO_NL_FAMILY : NETPATHIO_NL_NAPI;
	if (data[0] & 2) {
		seq = SEQ;
		port = PORT;
	}
	data++;
	size--;
	while (size >= 2 && res > 0) {
		uint16_t len;
		void *buf;

		memcpy(&len, data, 2);
		data += 2;
		size -= 2;
		if (len > size)
			len = (uint16_t)size;
		/* A datagram lands in a buffer of its own, as recv() leaves it:
		 * aligned, and nothing after it to read by mistake. */
		buf = malloc(len ? len : 1);
		fuzz_assert(buf != NULL);
		memcpy(buf, data, len);
		res = netpathio_nl_parse(buf, len, seq, port, &r);
		free(buf);
		data += len;
		size -= len;
		fuzz_assert(res >= -4095 && res <= 1);
		fuzz_assert(memchr(r.ext_msg, '\0', sizeof(r.ext_msg)) != NULL);
		if (r.what == NETPATHIO_NL_NAPI)
			check_napi(&r);
		else
			fuzz_assert(r.nr == 0 && r.napi == NULL);
	}
	if (res < 0) {
		/* a failure sticks: nothing after it is read */
		fuzz_assert(r.err == res);
		fuzz_assert(netpathio_nl_parse("", 0, seq, port, &r) == res);
	}
	netpathio_nl_reply_release(&r);
	return 0;
}
