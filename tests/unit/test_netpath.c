// SPDX-License-Identifier: GPL-2.0-or-later
/* test_netpath.c - the network path after placement: which queue a
 * driver's IRQ name serves, which NIC a NAPI thread's name belongs to,
 * and the XPS masks and NAPI thread CPUs planned from where the NIC's
 * IRQs are, with the cases that leave them alone. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netpath.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define check(cond, row) do {						\
	if (!(cond))							\
		fail_msg("%s: %s", (row), #cond);			\
} while (0)

/* IRQ names as drivers write them. */
static void test_queue_of(void **state)
{
	static const struct {
		const char *name;
		int r;
		enum netpath_kind kind;
		unsigned int index;
	} t[] = {
		{ "eth0-TxRx-0", 0, NETPATH_Q_TXRX, 0 },		/* ixgbe, igb */
		{ "i40e-enp1s0f0-TxRx-12", 0, NETPATH_Q_TXRX, 12 },	/* i40e, ice */
		{ "eth2-tx-0", 0, NETPATH_Q_TX, 0 },			/* e1000e */
		{ "eth2-rx-0", 0, NETPATH_Q_RX, 0 },
		{ "ens192-rxtx-3", 0, NETPATH_Q_TXRX, 3 },		/* vmxnet3 */
		{ "0000:00:05.0-Tx-Rx-7", 0, NETPATH_Q_TXRX, 7 },	/* ena */
		{ "mlx5_comp5@pci:0000:3b:00.0", 0, NETPATH_Q_TXRX, 5 },
		{ "mlx5_comp11", 0, NETPATH_Q_TXRX, 11 },
		{ "virtio0-input.0", 0, NETPATH_Q_RX, 0 },
		{ "virtio3-output.2", 0, NETPATH_Q_TX, 2 },
		{ "virtio0-config", -ENOENT, 0, 0 },
		{ "virtio1-req.0", -ENOENT, 0, 0 },			/* virtio-blk */
		{ "eth2", -ENOENT, 0, 0 },				/* e1000e link */
		{ "mlx5_async0@pci:0000:3b:00.0", -ENOENT, 0, 0 },
		{ "i40e-0000:01:00.0:misc", -ENOENT, 0, 0 },
		{ "nvme0q3", -ENOENT, 0, 0 },
		{ "eth0-TxRx-", -ENOENT, 0, 0 },
		{ "eth0-TxRx-x1", -ENOENT, 0, 0 },
		{ "-tx-1", -ENOENT, 0, 0 },
		{ "eth0-TxRx-999999", -ENOENT, 0, 0 },
		{ "mlx5_compX", -ENOENT, 0, 0 },
		{ "", -ENOENT, 0, 0 },
	};

	(void)state;
	for (unsigned int i = 0; i < ARRAY_SIZE(t); i++) {
		enum netpath_kind kind = NETPATH_Q_NONE;
		unsigned int index = 99;
		int r = netpath_queue_of(t[i].name, &kind, &index);

		check(r == t[i].r, t[i].name);
		if (r == 0) {
			check(kind == t[i].kind, t[i].name);
			check(index == t[i].index, t[i].name);
		}
	}
}

/* Thread names the kernel gives, 15 characters at most. */
static void test_napi_of(void **state)
{
	static const struct {
		const char *comm, *ifname;
		int r, id;
	} t[] = {
		{ "napi/eth0-8193", "eth0", 0, 8193 },
		{ "napi/eth0-0", "eth0", 0, 0 },		/* no busy polling: id 0 */
		{ "napi/eth0-8193", "eth1", -ENOENT, 0 },
		{ "napi/eth1-8193", "eth", -ENOENT, 0 },
		{ "napi/eth10-8193", "eth1", -ENOENT, 0 },
		{ "napi/ens3-1234", "ens3", 0, 1234 },
		{ "napi/ens3-12345", "ens3", 0, -1 },	/* 15: digits may be cut */
		{ "napi/enp1s0-819", "enp1s0", 0, -1 },
		{ "napi/enp1s0f0np", "enp1s0f0np0", 0, -1 },	/* cut in the name */
		{ "napi/enp1s0f0np", "enp2s0f0np0", -ENOENT, 0 },
		{ "napi/enp1s0f0n-", "enp1s0f0n", 0, -1 },
		{ "napi/eth0-", "eth0", -ENOENT, 0 },
		{ "napi/eth0-8x", "eth0", -ENOENT, 0 },
		{ "napi/eth", "eth0", -ENOENT, 0 },		/* short, not cut */
		{ "irq/42-eth0", "eth0", -ENOENT, 0 },
		{ "napi/eth0-8193", "", -ENOENT, 0 },
	};

	(void)state;
	for (unsigned int i = 0; i < ARRAY_SIZE(t); i++) {
		int id = 42, r = netpath_napi_of(t[i].comm, t[i].ifname, &id);

		check(r == t[i].r, t[i].comm);
		if (r == 0)
			check(id == t[i].id, t[i].comm);
	}
}

/* A machine of 8 CPUs, 0-3 on node 0 and 4-7 on node 1. */
static const int nodes[8] = { 0, 0, 0, 0, 1, 1, 1, 1 };

static struct netpath_input input(const struct netpath_nic *nics, unsigned int n)
{
	return (struct netpath_input){
		.nr_ids = 8, .cpu_node = nodes, .xps = true, .napi = true,
		.nr_nics = n, .nics = nics,
	};
}

static struct cpuset *set_of(const char *list)
{
	struct cpuset *s = cpuset_new(8);

	assert_non_null(s);
	assert_int_equal(cpulist_parse(list, s), 0);
	return s;
}

static const char *list_of(const struct cpuset *s)
{
	static char buf[64];

	if (!s)
		return "(none)";
	assert_int_equal(cpulist_format(s, buf, sizeof(buf)), 0);
	return buf;
}

/* An ixgbe of four paired vectors on CPUs 2-5: each transmit queue's mask
 * is its vector's CPU; one already is, one was unreadable. */
static void test_xps_paired(void **state)
{
	const struct netpath_irq irqs[] = {
		{ 40, "eth0-TxRx-0", 2, true, NULL }, { 41, "eth0-TxRx-1", 3, true, NULL },
		{ 42, "eth0-TxRx-2", 4, true, NULL }, { 43, "eth0-TxRx-3", 5, true, NULL },
		{ 44, "eth0", 0, true, NULL },
	};
	struct cpuset *q0 = set_of("2"), *q2 = set_of("0-7"), *q3 = set_of("");
	const struct cpuset *now[4] = { q0, NULL, q2, q3 };
	const struct netpath_nic nic = {
		.ifname = "eth0", .node = 0, .irqs = irqs, .nr_irqs = ARRAY_SIZE(irqs),
		.nr_tx = 4, .xps_now = now, .threaded = 0,
	};
	struct netpath_input in = input(&nic, 1);
	static const struct { enum netpath_action action; const char *mask; } want[] = {
		{ NETPATH_KEEP, "2" }, { NETPATH_WRITE, "3" },
		{ NETPATH_WRITE, "4" }, { NETPATH_WRITE, "5" },
	};
	struct netpath_plan *p;

	(void)state;
	assert_int_equal(netpath_plan(&in, &p), 0);
	assert_int_equal(p->nr_xps, 4);
	for (unsigned int q = 0; q < 4; q++) {
		char row[16];

		snprintf(row, sizeof(row), "tx-%u", q);
		check(p->xps[q].nic == 0 && p->xps[q].queue == q, row);
		check(p->xps[q].action == want[q].action, row);
		check(strcmp(list_of(p->xps[q].mask), want[q].mask) == 0, row);
	}
	assert_non_null(strstr(p->xps[1].reason, "completion IRQ 41 (eth0-TxRx-1) is on CPU 3"));
	assert_int_equal(p->nr_threads, 0);
	netpath_plan_free(p);
	cpuset_free(q0);
	cpuset_free(q2);
	cpuset_free(q3);
}

/* More transmit queues than vectors: the extra ones take the CPUs of the
 * NIC's node that hold its IRQs; not those of the other node. */
static void test_xps_node_fallback(void **state)
{
	const struct netpath_irq irqs[] = {
		{ 40, "eth0-TxRx-0", 1, true, NULL }, { 41, "eth0-TxRx-1", 3, true, NULL },
		{ 44, "eth0", 6, true, NULL },
	};
	const struct netpath_nic nic = {
		.ifname = "eth0", .node = 0, .irqs = irqs, .nr_irqs = ARRAY_SIZE(irqs),
		.nr_tx = 3, .threaded = -1,
	};
	struct netpath_input in = input(&nic, 1);
	struct netpath_plan *p;

	(void)state;
	assert_int_equal(netpath_plan(&in, &p), 0);
	assert_int_equal(p->nr_xps, 3);
	assert_string_equal(list_of(p->xps[0].mask), "1");
	assert_string_equal(list_of(p->xps[1].mask), "3");
	assert_string_equal(list_of(p->xps[2].mask), "1,3");
	assert_int_equal(p->xps[2].action, NETPATH_WRITE);	/* unread: written */
	assert_non_null(strstr(p->xps[2].reason, "CPUs 1,3 of node 0"));
	netpath_plan_free(p);
}

/* Each way a NIC's XPS is left alone, with the note that says why. */
static void test_xps_left(void **state)
{
	const struct netpath_irq placed[] = {
		{ 40, "eth0-TxRx-0", 1, true, NULL }, { 41, "eth0-TxRx-1", 2, true, NULL },
	};
	const struct netpath_irq managed[] = {
		{ 40, "eth0-TxRx-0", 1, true, NULL }, { 41, "eth0-TxRx-1", -1, false, "kernel-managed" },
	};
	const struct netpath_irq banned_link[] = {	/* a banned link vector does not matter */
		{ 40, "eth0-TxRx-0", 1, true, NULL }, { 41, "eth0-TxRx-1", 2, true, NULL },
		{ 42, "eth0", -1, false, "banned by banirq" },
	};
	const struct {
		const char *row;
		const struct netpath_irq *irqs;
		unsigned int nr_irqs, nr_tx;
		const char *off_from;
		bool xps;
		unsigned int nr_xps;
		const char *note;	/* NULL: none */
	} t[] = {
		{ "placed", placed, 2, 2, NULL, true, 2, NULL },
		{ "config off", placed, 2, 2, NULL, false, 0, NULL },
		{ "IRQTUNE_XPS=0", placed, 2, 2, "eth0", true, 0, "IRQTUNE_XPS=0 on eth0" },
		{ "one queue", placed, 2, 1, NULL, true, 0, "one transmit queue" },
		{ "no queues", placed, 2, 0, NULL, true, 0, NULL },
		{ "managed", managed, 2, 2, NULL, true, 0,
		  "irq 41 (eth0-TxRx-1) is not irqtune's to place (kernel-managed)" },
		{ "banned link", banned_link, 3, 2, NULL, true, 2, NULL },
	};

	(void)state;
	for (unsigned int i = 0; i < ARRAY_SIZE(t); i++) {
		const struct netpath_nic nic = {
			.ifname = "eth0", .node = 0, .irqs = t[i].irqs, .nr_irqs = t[i].nr_irqs,
			.nr_tx = t[i].nr_tx, .xps_off_from = t[i].off_from, .threaded = -1,
		};
		struct netpath_input in = input(&nic, 1);
		struct netpath_plan *p;

		in.xps = t[i].xps;
		assert_int_equal(netpath_plan(&in, &p), 0);
		check(p->nr_xps == t[i].nr_xps, t[i].row);
		if (t[i].note) {
			check(p->nr_notes == 1 && p->notes[0].xps, t[i].row);
			check(strstr(p->notes[0].text, t[i].note) != NULL, t[i].row);
		} else {
			check(p->nr_notes == 0, t[i].row);
		}
		netpath_plan_free(p);
	}
}

/* NAPI threads of an i40e by ascending id follow its receive vectors in
 * queue order, whatever order they were found in; one already runs
 * there, one is bound by the kernel. */
static void test_threads_by_id(void **state)
{
	const struct netpath_irq irqs[] = {
		{ 50, "i40e-eth0-TxRx-0", 2, true, NULL }, { 51, "i40e-eth0-TxRx-1", 5, true, NULL },
		{ 52, "i40e-eth0-TxRx-2", 6, true, NULL }, { 53, "i40e-0000:01:00.0:misc", 0, true, NULL },
	};
	struct cpuset *on5 = set_of("5"), *all = set_of("0-7");
	const struct netpath_napi napi[] = {
		{ 900, "napi/eth0-8195", 8195, -1, false, all, false },
		{ 901, "napi/eth0-8193", 8193, -1, false, all, false },
		{ 902, "napi/eth0-8194", 8194, -1, false, on5, false },
	};
	const struct netpath_nic nic = {
		.ifname = "eth0", .node = -1, .irqs = irqs, .nr_irqs = ARRAY_SIZE(irqs),
		.threaded = 1, .napi = napi, .nr_napi = ARRAY_SIZE(napi),
	};
	struct netpath_input in = input(&nic, 1);
	struct netpath_plan *p;

	(void)state;
	assert_int_equal(netpath_plan(&in, &p), 0);
	assert_int_equal(p->nr_threads, 3);
	assert_int_equal(p->threads[0].napi, 0);
	assert_int_equal(p->threads[0].cpu, 6);
	assert_int_equal(p->threads[0].action, NETPATH_WRITE);
	assert_non_null(strstr(p->threads[0].reason, "IRQ 52 (i40e-eth0-TxRx-2) is on CPU 6"));
	assert_int_equal(p->threads[1].cpu, 2);
	assert_int_equal(p->threads[1].action, NETPATH_WRITE);
	assert_int_equal(p->threads[2].cpu, 5);
	assert_int_equal(p->threads[2].action, NETPATH_KEEP);
	netpath_plan_free(p);
	cpuset_free(on5);
	cpuset_free(all);
}

/* A thread netlink says busy-polls is left where it is, even with its
 * IRQ known; its siblings still follow theirs. */
static void test_threads_busy_poll(void **state)
{
	const struct netpath_irq irqs[] = {
		{ 50, "eth0-TxRx-0", 2, true, NULL }, { 51, "eth0-TxRx-1", 5, true, NULL },
	};
	struct cpuset *all = set_of("0-7");
	const struct netpath_napi napi[] = {
		{ 900, "napi/eth0-8193", 8193, 50, false, all, true },
		{ 901, "napi/eth0-8194", 8194, 51, false, all, false },
	};
	const struct netpath_nic nic = {
		.ifname = "eth0", .node = -1, .irqs = irqs, .nr_irqs = ARRAY_SIZE(irqs),
		.threaded = 1, .napi = napi, .nr_napi = ARRAY_SIZE(napi),
	};
	struct netpath_input in = input(&nic, 1);
	struct netpath_plan *p;

	(void)state;
	assert_int_equal(netpath_plan(&in, &p), 0);
	assert_int_equal(p->nr_threads, 2);
	assert_int_equal(p->threads[0].action, NETPATH_LEAVE);
	assert_int_equal(p->threads[0].cpu, -1);
	assert_non_null(strstr(p->threads[0].reason, "busy-polls"));
	assert_int_equal(p->threads[1].action, NETPATH_WRITE);
	assert_int_equal(p->threads[1].cpu, 5);
	netpath_plan_free(p);
	cpuset_free(all);
}

/* Thread cases, one NIC each: what each thread is given, or why not. */
static void test_threads_table(void **state)
{
	/* virtio-net: a receive NAPI with an id, a transmit one with id 0 */
	const struct netpath_irq virtio[] = {
		{ 24, "virtio0-config", 0, true, NULL }, { 25, "virtio0-input.0", 1, true, NULL },
		{ 26, "virtio0-output.0", 3, true, NULL },
	};
	const struct netpath_napi virtio_napi[] = {
		{ 700, "napi/eth0-0", 0, -1, false, NULL, false }, { 701, "napi/eth0-8193", 8193, -1, false, NULL, false },
	};
	/* two queue pairs: two id-0 threads cannot be told apart */
	const struct netpath_irq virtio2[] = {
		{ 25, "virtio0-input.0", 1, true, NULL }, { 26, "virtio0-output.0", 3, true, NULL },
		{ 27, "virtio0-input.1", 2, true, NULL }, { 28, "virtio0-output.1", 0, true, NULL },
	};
	const struct netpath_napi virtio2_napi[] = {
		{ 700, "napi/eth0-8193", 8193, -1, false, NULL, false }, { 701, "napi/eth0-0", 0, -1, false, NULL, false },
		{ 702, "napi/eth0-8194", 8194, -1, false, NULL, false }, { 703, "napi/eth0-0", 0, -1, false, NULL, false },
	};
	/* e1000e: rx, tx and link vectors, one NAPI */
	const struct netpath_irq e1000e[] = {
		{ 30, "eth2-rx-0", 2, true, NULL }, { 31, "eth2-tx-0", 0, true, NULL },
		{ 32, "eth2", 0, true, NULL },
	};
	const struct netpath_napi e1000e_napi[] = { { 710, "napi/eth2-8195", 8195, -1, false, NULL, false } };
	/* one vector for everything */
	const struct netpath_irq single[] = { { 11, "eth0", 7, true, NULL } };
	const struct netpath_napi two[] = {
		{ 720, "napi/eth0-8193", 8193, -1, false, NULL, false }, { 721, "napi/eth0-8194", 8194, -1, false, NULL, false },
	};
	const struct netpath_napi cut[] = {
		{ 730, "napi/enp1s0-819", -1, -1, false, NULL, false }, { 731, "napi/enp1s0-820", -1, -1, false, NULL, false },
	};
	const struct netpath_irq pair[] = {
		{ 40, "enp1s0-TxRx-0", 4, true, NULL }, { 41, "enp1s0-TxRx-1", 6, true, NULL },
	};
	const struct netpath_napi three[] = {
		{ 740, "napi/eth0-8193", 8193, -1, false, NULL, false }, { 741, "napi/eth0-8194", 8194, -1, false, NULL, false },
		{ 742, "napi/eth0-8195", 8195, -1, false, NULL, false },
	};
	/* netdev netlink said the IRQ: names do not matter */
	const struct netpath_napi netlink[] = {
		{ 750, "napi/enp1s0-819", -1, 41, false, NULL, false }, { 751, "napi/enp1s0-820", -1, 99, false, NULL, false },
	};
	const struct netpath_napi bound[] = {
		{ 760, "napi/eth0-8193", 8193, -1, true, NULL, false }, { 761, "napi/eth0-8194", 8194, -1, false, NULL, false },
	};
	const struct netpath_irq managed[] = {
		{ 40, "eth0-TxRx-0", -1, false, "kernel-managed" }, { 41, "eth0-TxRx-1", 6, true, NULL },
	};
	const struct {
		const char *row;
		const char *ifname;
		const struct netpath_irq *irqs;
		unsigned int nr_irqs;
		const struct netpath_napi *napi;
		unsigned int nr_napi;
		int threaded;
		int cpu[4];		/* per thread, -1: left */
		const char *why;	/* in the reason of the first one left */
	} t[] = {
		{ "virtio", "eth0", virtio, 3, virtio_napi, 2, 1, { 3, 1 }, NULL },
		{ "virtio two pairs", "eth0", virtio2, 4, virtio2_napi, 4, 1, { 1, -1, 2, -1 },
		  "share its name" },
		{ "e1000e", "eth2", e1000e, 3, e1000e_napi, 1, 1, { 2 }, NULL },
		{ "one vector", "eth0", single, 1, two, 2, -1, { 7, 7 }, NULL },
		{ "names cut", "enp1s0", pair, 2, cut, 2, 1, { -1, -1 }, "cut at 15" },
		{ "more threads than vectors", "eth0", pair, 2, three, 3, 1, { -1, -1, -1 },
		  "not one receive vector per NAPI thread" },
		{ "netlink", "enp1s0", pair, 2, netlink, 2, 1, { 6, -1 }, "not this NIC's" },
		{ "bound", "eth0", pair, 2, bound, 2, 1, { -1, 6 }, "binds it" },
		{ "managed vector", "eth0", managed, 2, two, 2, 1, { -1, -1 }, "kernel-managed" },
	};

	(void)state;
	for (unsigned int i = 0; i < ARRAY_SIZE(t); i++) {
		const struct netpath_nic nic = {
			.ifname = t[i].ifname, .node = -1, .irqs = t[i].irqs,
			.nr_irqs = t[i].nr_irqs, .threaded = t[i].threaded,
			.napi = t[i].napi, .nr_napi = t[i].nr_napi,
		};
		struct netpath_input in = input(&nic, 1);
		struct netpath_plan *p;
		bool said = t[i].why == NULL;

		assert_int_equal(netpath_plan(&in, &p), 0);
		check(p->nr_threads == t[i].nr_napi, t[i].row);
		for (unsigned int k = 0; k < p->nr_threads; k++) {
			const struct netpath_thread *th = &p->threads[k];

			check(th->napi == k, t[i].row);
			check(th->cpu == t[i].cpu[k], t[i].row);
			check((th->action == NETPATH_LEAVE) == (t[i].cpu[k] < 0), t[i].row);
			if (th->action == NETPATH_LEAVE && t[i].why && strstr(th->reason, t[i].why))
				said = true;
		}
		check(said, t[i].row);
		netpath_plan_free(p);
	}
}

/* Threaded NAPI off, or napi-threads = off: nothing for the threads. */
static void test_threads_off(void **state)
{
	const struct netpath_irq single[] = { { 11, "eth0", 7, true, NULL } };
	const struct netpath_napi napi[] = { { 720, "napi/eth0-8193", 8193, -1, false, NULL, false } };
	struct netpath_nic nic = {
		.ifname = "eth0", .node = -1, .irqs = single, .nr_irqs = 1,
		.threaded = 0, .napi = napi, .nr_napi = 1,
	};
	struct netpath_input in = input(&nic, 1);
	struct netpath_plan *p;

	(void)state;
	assert_int_equal(netpath_plan(&in, &p), 0);
	assert_int_equal(p->nr_threads, 0);
	assert_int_equal(p->nr_notes, 1);
	assert_false(p->notes[0].xps);
	assert_non_null(strstr(p->notes[0].text, "threaded NAPI is off"));
	netpath_plan_free(p);
	nic.threaded = 1;
	in.napi = false;
	assert_int_equal(netpath_plan(&in, &p), 0);
	assert_int_equal(p->nr_threads, 0);
	assert_int_equal(p->nr_notes, 0);
	netpath_plan_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_queue_of),
		cmocka_unit_test(test_napi_of),
		cmocka_unit_test(test_xps_paired),
		cmocka_unit_test(test_xps_node_fallback),
		cmocka_unit_test(test_xps_left),
		cmocka_unit_test(test_threads_by_id),
		cmocka_unit_test(test_threads_busy_poll),
		cmocka_unit_test(test_threads_table),
		cmocka_unit_test(test_threads_off),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
