// SPDX-License-Identifier: GPL-2.0-or-later
/* netpath.c - XPS masks and NAPI thread CPUs from the placement of a NIC's
 * IRQs. A NIC gets nothing unless irqtune placed every one of its queue
 * IRQs: a banned or kernel-managed vector means someone else owns where
 * the queue runs, and its transmit side is theirs too. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netpath.h"

/* Suffixes "-TOKEN-K" that name a queue vector, and what they serve.
 * Drivers put their prefix before it: the interface (ixgbe, igb, e1000e,
 * bnxt: "eth0-TxRx-3"), the driver and interface (i40e, ice:
 * "ice-eth0-TxRx-3"), or the PCI name (ena: "0000:00:05.0-Tx-Rx-3"). */
static const struct {
	const char *token;
	enum netpath_kind kind;
} suffixes[] = {
	{ "TxRx", NETPATH_Q_TXRX },
	{ "txrx", NETPATH_Q_TXRX },
	{ "rxtx", NETPATH_Q_TXRX },	/* vmxnet3 */
	{ "Tx-Rx", NETPATH_Q_TXRX },	/* ena */
	{ "tx", NETPATH_Q_TX },
	{ "Tx", NETPATH_Q_TX },
	{ "rx", NETPATH_Q_RX },
	{ "Rx", NETPATH_Q_RX },
};

/* The decimal number that @s is, whole, into *@ret (at most 65535). */
static int small_number(const char *s, size_t len, unsigned int *ret)
{
	unsigned int v = 0;

	if (len == 0 || len > 5)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (unsigned int)(s[i] - '0');
	}
	if (v > 65535)
		return -EINVAL;
	*ret = v;
	return 0;
}

int netpath_queue_of(const char *name, enum netpath_kind *ret_kind,
		     unsigned int *ret_index)
{
	size_t len = strlen(name), n;
	const char *p, *dash;
	unsigned int k;

	/* mlx5: one completion vector per channel, "mlx5_comp3@pci:0000:..." */
	if (strncmp(name, "mlx5_comp", 9) == 0) {
		n = strcspn(name + 9, "@");
		if (small_number(name + 9, n, &k) < 0)
			return -ENOENT;
		*ret_kind = NETPATH_Q_TXRX;
		*ret_index = k;
		return 0;
	}
	/* virtio-net: "virtio0-input.3", "virtio0-output.3" */
	if (strncmp(name, "virtio", 6) == 0 && (p = strchr(name, '-'))) {
		static const struct { const char *what; enum netpath_kind kind; } v[] = {
			{ "-input.", NETPATH_Q_RX }, { "-output.", NETPATH_Q_TX },
		};

		for (size_t i = 0; i < 2; i++) {
			n = strlen(v[i].what);
			if (strncmp(p, v[i].what, n) == 0 &&
			    small_number(p + n, strlen(p + n), &k) == 0) {
				*ret_kind = v[i].kind;
				*ret_index = k;
				return 0;
			}
		}
		return -ENOENT;
	}
	dash = strrchr(name, '-');
	if (!dash || dash == name || small_number(dash + 1, len - (size_t)(dash + 1 - name), &k) < 0)
		return -ENOENT;
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		n = strlen(suffixes[i].token);
		/* "...-TOKEN-K": the token ends at the last dash and has a
		 * dash (and a prefix) before it. */
		if ((size_t)(dash - name) < n + 2)
			continue;
		p = dash - n;
		if (p[-1] == '-' && strncmp(p, suffixes[i].token, n) == 0) {
			*ret_kind = suffixes[i].kind;
			*ret_index = k;
			return 0;
		}
	}
	return -ENOENT;
}

int netpath_napi_of(const char *comm, const char *ifname, int *ret_id)
{
	/* net/core/dev.c: "napi/%s-%d", dev->name and napi_id, of which
	 * the kernel keeps 15 characters (TASK_COMM_LEN). */
	size_t il = strlen(ifname), cl = strlen(comm), n;
	bool full = cl < 15;
	unsigned long id = 0;
	const char *p;

	if (strncmp(comm, "napi/", 5) != 0 || il == 0)
		return -ENOENT;
	p = comm + 5;
	n = cl - 5;
	if (n <= il) {
		/* Cut inside the interface name: this NIC's if what is
		 * left is its beginning; the id is lost. */
		if (full || strncmp(p, ifname, n) != 0)
			return -ENOENT;
		*ret_id = -1;
		return 0;
	}
	if (strncmp(p, ifname, il) != 0 || p[il] != '-')
		return -ENOENT;
	p += il + 1;
	n = strlen(p);
	if (n == 0) {
		if (full)
			return -ENOENT;
		*ret_id = -1;
		return 0;
	}
	if (strspn(p, "0123456789") != n)
		return -ENOENT;
	for (size_t i = 0; i < n && id <= 0x7fffffff; i++)
		id = id * 10 + (unsigned long)(p[i] - '0');
	/* At the 15-character limit digits may be missing. */
	*ret_id = full && id <= 0x7fffffff ? (int)id : -1;
	return 0;
}

struct builder {
	struct netpath_plan *p;
	unsigned int cap_xps, cap_threads, cap_notes;
	int err;
};

static void *grow(void *arr, unsigned int *cap, unsigned int nr, size_t size, int *err)
{
	void *n;

	if (nr < *cap)
		return arr;
	n = reallocarray(arr, *cap ? *cap * 2 : 8, size);
	if (!n) {
		*err = -ENOMEM;
		return NULL;
	}
	*cap = *cap ? *cap * 2 : 8;
	return n;
}

__attribute__((format(printf, 4, 5)))
static void note(struct builder *b, unsigned int nic, bool xps, const char *fmt, ...)
{
	struct netpath_note *n;
	va_list ap;

	n = grow(b->p->notes, &b->cap_notes, b->p->nr_notes, sizeof(*n), &b->err);
	if (!n)
		return;
	b->p->notes = n;
	n = &n[b->p->nr_notes++];
	n->nic = nic;
	n->xps = xps;
	va_start(ap, fmt);
	vsnprintf(n->text, sizeof(n->text), fmt, ap);
	va_end(ap);
}

/* The first IRQ of @nic that irqtune did not place among those that serve
 * a queue (all of them when none says it does); -1 when it placed all. */
static int unplaced(const struct netpath_nic *nic)
{
	bool any_queue = false;
	enum netpath_kind kind;
	unsigned int k;

	for (unsigned int i = 0; i < nic->nr_irqs; i++)
		if (netpath_queue_of(nic->irqs[i].name, &kind, &k) == 0)
			any_queue = true;
	for (unsigned int i = 0; i < nic->nr_irqs; i++) {
		if (any_queue && netpath_queue_of(nic->irqs[i].name, &kind, &k) < 0)
			continue;
		if (!nic->irqs[i].placed || nic->irqs[i].cpu < 0)
			return (int)i;
	}
	return -1;
}

/* The IRQ of @nic that serves queue @q in a direction (@tx: completes
 * transmit queue q, else receives on it); -1 when none does. */
static int queue_irq(const struct netpath_nic *nic, unsigned int q, bool tx)
{
	for (unsigned int i = 0; i < nic->nr_irqs; i++) {
		enum netpath_kind kind;
		unsigned int k;

		if (netpath_queue_of(nic->irqs[i].name, &kind, &k) < 0 || k != q)
			continue;
		if (kind == NETPATH_Q_TXRX || kind == (tx ? NETPATH_Q_TX : NETPATH_Q_RX))
			return (int)i;
	}
	return -1;
}

static void xps_of_nic(struct builder *b, const struct netpath_input *in, unsigned int n)
{
	const struct netpath_nic *nic = &in->nics[n];
	struct cpuset *local = NULL;
	char list[64];
	int bad;

	if (nic->nr_tx == 0)
		return;
	if (nic->xps_off_from) {
		note(b, n, true, "XPS left: IRQTUNE_XPS=0 on %s", nic->xps_off_from);
		return;
	}
	/* The kernel keeps no XPS map of a single-queue device (its
	 * xps_cpus answers ENOENT): every packet takes that queue. */
	if (nic->nr_tx == 1) {
		note(b, n, true, "XPS left: one transmit queue, nothing to steer");
		return;
	}
	bad = unplaced(nic);
	if (bad >= 0) {
		note(b, n, true, "XPS left: irq %u (%s) is not irqtune's to place (%s)",
		     nic->irqs[bad].irq, nic->irqs[bad].name,
		     nic->irqs[bad].why_not ? nic->irqs[bad].why_not : "no CPU planned");
		return;
	}
	for (unsigned int q = 0; q < nic->nr_tx && !b->err; q++) {
		struct netpath_xps *x = grow(b->p->xps, &b->cap_xps, b->p->nr_xps,
					     sizeof(*x), &b->err);
		const struct cpuset *now = nic->xps_now ? nic->xps_now[q] : NULL;
		int i = queue_irq(nic, q, true);

		if (!x)
			break;
		b->p->xps = x;
		x = &x[b->p->nr_xps];
		memset(x, 0, sizeof(*x));
		x->nic = n;
		x->queue = q;
		x->mask = cpuset_new(in->nr_ids);
		if (!x->mask) {
			b->err = -ENOMEM;
			break;
		}
		b->p->nr_xps++;
		if (i >= 0) {
			cpuset_set(x->mask, (unsigned int)nic->irqs[i].cpu);
			snprintf(x->reason, sizeof(x->reason), "its completion IRQ %u (%s) is on CPU %d",
				 nic->irqs[i].irq, nic->irqs[i].name, nic->irqs[i].cpu);
		} else {
			/* No vector of its own (more queues than vectors, or
			 * a driver whose names say nothing): the NIC's CPUs
			 * near the device. */
			if (!local) {
				local = cpuset_new(in->nr_ids);
				if (!local) {
					b->err = -ENOMEM;
					break;
				}
				for (unsigned int k = 0; k < nic->nr_irqs; k++) {
					int cpu = nic->irqs[k].cpu;

					if (cpu >= 0 && (unsigned int)cpu < in->nr_ids &&
					    (nic->node < 0 || in->cpu_node[cpu] == nic->node))
						cpuset_set(local, (unsigned int)cpu);
				}
			}
			if (cpuset_first(local) < 0) {
				cpuset_free(x->mask);
				x->mask = NULL;
				x->action = NETPATH_LEAVE;
				snprintf(x->reason, sizeof(x->reason),
					 "no completion IRQ of its own, and none of %s's IRQs is on node %d",
					 nic->ifname, nic->node);
				continue;
			}
			cpuset_or(x->mask, local);
			if (cpulist_format(local, list, sizeof(list)) < 0)
				snprintf(list, sizeof(list), "(many)");
			if (nic->node >= 0)
				snprintf(x->reason, sizeof(x->reason),
					 "no completion IRQ of its own: CPUs %s of node %d hold %s's IRQs",
					 list, nic->node, nic->ifname);
			else
				snprintf(x->reason, sizeof(x->reason),
					 "no completion IRQ of its own: CPUs %s hold %s's IRQs",
					 list, nic->ifname);
		}
		x->action = now && cpuset_equal(now, x->mask) ? NETPATH_KEEP : NETPATH_WRITE;
	}
	cpuset_free(local);
}

static struct netpath_thread *add_thread(struct builder *b, unsigned int n, unsigned int t)
{
	struct netpath_thread *th = grow(b->p->threads, &b->cap_threads, b->p->nr_threads,
					 sizeof(*th), &b->err);

	if (!th)
		return NULL;
	b->p->threads = th;
	th = &th[b->p->nr_threads++];
	memset(th, 0, sizeof(*th));
	th->nic = n;
	th->napi = t;
	th->cpu = -1;
	th->action = NETPATH_LEAVE;
	return th;
}

static const struct netpath_napi *napi_ctx;

static int by_id(const void *a, const void *b)
{
	int x = napi_ctx[*(const unsigned int *)a].id, y = napi_ctx[*(const unsigned int *)b].id;

	return x < y ? -1 : x > y;
}

/* Receive vectors in queue order; returns how many there are, and -1
 * when two claim the same queue. */
static int rx_vectors(const struct netpath_nic *nic, bool tx_only, int *ret)
{
	int nr = 0;

	for (unsigned int q = 0; q < 65536; q++) {
		bool any = false;

		for (unsigned int i = 0; i < nic->nr_irqs; i++) {
			enum netpath_kind kind;
			unsigned int k;

			if (netpath_queue_of(nic->irqs[i].name, &kind, &k) < 0 || k != q)
				continue;
			if (tx_only ? kind != NETPATH_Q_TX : kind == NETPATH_Q_TX)
				continue;
			if (any)
				return -1;
			ret[nr++] = (int)i;
			any = true;
		}
		if (!any)
			break;
	}
	return nr;
}

/* Which IRQ (index into nic->irqs) each thread's NAPI is scheduled from,
 * into @irq_of (-1: not known), with what is not known said in @why. */
static void match_threads(const struct netpath_nic *nic, int *irq_of, const char **why,
			  unsigned int *order, int *vec)
{
	unsigned int nr_named = 0, nr_zero = 0;
	bool cut = false;
	int nr_rx, nr_tx;

	for (unsigned int t = 0; t < nic->nr_napi; t++) {
		irq_of[t] = -1;
		why[t] = NULL;
		if (nic->napi[t].irq >= 0) {
			/* netdev netlink said which IRQ: no guessing. */
			for (unsigned int i = 0; i < nic->nr_irqs; i++)
				if (nic->irqs[i].irq == (unsigned int)nic->napi[t].irq)
					irq_of[t] = (int)i;
			if (irq_of[t] < 0)
				why[t] = "netlink names an IRQ that is not this NIC's";
			continue;
		}
		if (nic->napi[t].id < 0)
			cut = true;
		else if (nic->napi[t].id == 0)
			nr_zero++;
		else
			order[nr_named++] = t;
	}
	/* A NIC of one vector schedules every NAPI from it. */
	if (nic->nr_irqs == 1) {
		for (unsigned int t = 0; t < nic->nr_napi; t++)
			if (nic->napi[t].irq < 0)
				irq_of[t] = 0;
		return;
	}
	for (unsigned int t = 0; t < nic->nr_napi; t++)
		if (nic->napi[t].irq < 0)
			why[t] = "which queue it serves is unknown";
	if (cut) {
		/* Without every id the order means nothing. */
		for (unsigned int t = 0; t < nic->nr_napi; t++)
			if (nic->napi[t].irq < 0)
				why[t] = "its name is cut at 15 characters, so its NAPI id is unknown";
		return;
	}
	/* Drivers add a NAPI per receive queue in queue order and the
	 * kernel numbers them as they come (napi_hash_add), so ascending
	 * ids follow the receive vectors. */
	napi_ctx = nic->napi;
	qsort(order, nr_named, sizeof(*order), by_id);
	napi_ctx = NULL;
	nr_rx = rx_vectors(nic, false, vec);
	if (nr_named) {
		if (nr_rx == (int)nr_named) {
			for (unsigned int k = 0; k < nr_named; k++)
				irq_of[order[k]] = vec[k];
		} else {
			for (unsigned int k = 0; k < nr_named; k++)
				why[order[k]] = "its NIC has not one receive vector per NAPI thread";
		}
	}
	/* NAPIs without busy polling (virtio-net's transmit ones) all get
	 * id 0 and the same name: one of them can still be told. */
	nr_tx = rx_vectors(nic, true, vec);
	for (unsigned int t = 0; t < nic->nr_napi && nr_zero; t++) {
		if (nic->napi[t].irq >= 0 || nic->napi[t].id != 0)
			continue;
		if (nr_zero == 1 && nr_tx == 1)
			irq_of[t] = vec[0];
		else
			why[t] = "several NAPI threads share its name; which queue each serves "
				 "takes netdev netlink (Linux 6.8)";
	}
}

static void threads_of_nic(struct builder *b, const struct netpath_input *in, unsigned int n)
{
	const struct netpath_nic *nic = &in->nics[n];
	unsigned int *order = NULL;
	const char **why = NULL;
	int *irq_of = NULL, *vec = NULL, bad;

	if (nic->nr_napi == 0)
		return;
	if (nic->threaded == 0) {
		note(b, n, false, "NAPI threads left: threaded NAPI is off");
		return;
	}
	bad = unplaced(nic);
	irq_of = calloc(nic->nr_napi, sizeof(*irq_of));
	why = calloc(nic->nr_napi, sizeof(*why));
	order = calloc(nic->nr_napi, sizeof(*order));
	vec = calloc(nic->nr_irqs + 1, sizeof(*vec));
	if (!irq_of || !why || !order || !vec) {
		b->err = -ENOMEM;
		goto out;
	}
	match_threads(nic, irq_of, why, order, vec);
	for (unsigned int t = 0; t < nic->nr_napi && !b->err; t++) {
		const struct netpath_napi *np = &nic->napi[t];
		struct netpath_thread *th = add_thread(b, n, t);
		const struct netpath_irq *iq;
		struct cpuset *one;

		if (!th)
			break;
		/* It spins at 100%: on its IRQ's CPU it would starve that
		 * CPU's interrupts. napi.rst ("Threaded NAPI busy polling")
		 * leaves its affinity to the admin, so irqtune does too. */
		if (np->busy_poll) {
			snprintf(th->reason, sizeof(th->reason),
				 "it busy-polls (threaded busy polling): on its IRQ's CPU it would "
				 "starve it; its CPU is the admin's (napi.rst)");
			continue;
		}
		if (bad >= 0) {
			snprintf(th->reason, sizeof(th->reason),
				 "irq %u (%s) is not irqtune's to place (%s)", nic->irqs[bad].irq,
				 nic->irqs[bad].name,
				 nic->irqs[bad].why_not ? nic->irqs[bad].why_not : "no CPU planned");
			continue;
		}
		if (np->bound) {
			snprintf(th->reason, sizeof(th->reason), "the kernel binds it to its CPUs");
			continue;
		}
		if (irq_of[t] < 0) {
			snprintf(th->reason, sizeof(th->reason), "%s", why[t] ? why[t] :
				 "which queue it serves is unknown");
			continue;
		}
		iq = &nic->irqs[irq_of[t]];
		th->cpu = iq->cpu;
		one = cpuset_new(in->nr_ids);
		if (!one) {
			b->err = -ENOMEM;
			break;
		}
		cpuset_set(one, (unsigned int)iq->cpu);
		th->action = np->now && cpuset_equal(np->now, one) ? NETPATH_KEEP : NETPATH_WRITE;
		cpuset_free(one);
		snprintf(th->reason, sizeof(th->reason), "its IRQ %u (%s) is on CPU %d%s",
			 iq->irq, iq->name, iq->cpu, np->irq >= 0 ? " (netlink)" : "");
	}
out:
	free(irq_of);
	free(why);
	free(order);
	free(vec);
}

int netpath_plan(const struct netpath_input *in, struct netpath_plan **ret_plan)
{
	struct builder b = { 0 };

	b.p = calloc(1, sizeof(*b.p));
	if (!b.p)
		return -ENOMEM;
	for (unsigned int n = 0; n < in->nr_nics && !b.err; n++) {
		if (in->xps)
			xps_of_nic(&b, in, n);
		if (in->napi && !b.err)
			threads_of_nic(&b, in, n);
	}
	if (b.err) {
		netpath_plan_free(b.p);
		return b.err;
	}
	*ret_plan = b.p;
	return 0;
}

void netpath_plan_free(struct netpath_plan *plan)
{
	if (!plan)
		return;
	for (unsigned int i = 0; i < plan->nr_xps; i++)
		cpuset_free(plan->xps[i].mask);
	free(plan->xps);
	free(plan->threads);
	free(plan->notes);
	free(plan);
}

void netfollow_result_free(struct netfollow_result *res)
{
	if (!res)
		return;
	free(res->changes);
	free(res->notes);
	free(res->nics);
	free(res);
}

bool netfollow_poll_unseen(const struct netfollow_result *res, const struct netfollow_nic *nic)
{
	return res->counts_only && nic->nr_deferred > 0;
}

static const char *const texts[] = {
	[NETFOLLOW_WRITTEN] = "set", [NETFOLLOW_WOULD] = "would set",
	[NETFOLLOW_KEPT] = "kept", [NETFOLLOW_LEFT] = "left",
	[NETFOLLOW_FAILED] = "failed", [NETFOLLOW_GONE] = "gone",
};
static const char *const keys[] = {
	[NETFOLLOW_WRITTEN] = "written", [NETFOLLOW_WOULD] = "would_write",
	[NETFOLLOW_KEPT] = "kept", [NETFOLLOW_LEFT] = "left",
	[NETFOLLOW_FAILED] = "failed", [NETFOLLOW_GONE] = "gone",
};

const char *netfollow_outcome_text(enum netfollow_outcome o)
{
	return texts[o];
}

const char *netfollow_outcome_key(enum netfollow_outcome o)
{
	return keys[o];
}
