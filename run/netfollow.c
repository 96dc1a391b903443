// SPDX-License-Identifier: GPL-2.0-or-later
/* netfollow.c - the network path step of a run: from the device map and
 * the applied (or, in a dry run, planned) placement to netpath's input,
 * then the writes, each outcome kept for the report. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "log.h"
#include "netfollow.h"
#include "netpathio.h"
#include "report.h"
#include "strutil.h"

/* Where an IRQ ended up and whether irqtune chose it. */
static void irq_state(const struct netfollow_ctx *ctx, unsigned int i, struct netpath_irq *ret)
{
	enum report_outcome o = ctx->out[i];

	ret->irq = ctx->map->irqs[i].irq;
	ret->name = ctx->map->irqs[i].name;
	ret->placed = o == OUT_KEPT || o == OUT_MOVED || o == OUT_WOULD_MOVE;
	ret->cpu = ret->placed ? ctx->pi[i].target : -1;
	ret->why_not = ret->placed ? NULL : report_outcome_text(o);
}

static int add_change(struct netfollow_result *res, unsigned int *cap,
		      struct netfollow_change **ret)
{
	if (res->nr == *cap) {
		unsigned int c = *cap ? *cap * 2 : 16;
		struct netfollow_change *p = reallocarray(res->changes, c, sizeof(*p));

		if (!p)
			return -ENOMEM;
		res->changes = p;
		*cap = c;
	}
	*ret = &res->changes[res->nr++];
	memset(*ret, 0, sizeof(**ret));
	return 0;
}

static int add_note(struct netfollow_result *res, bool xps, const char *ifname,
		    const char *text)
{
	struct netfollow_note *p = reallocarray(res->notes, res->nr_notes + 1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	res->notes = p;
	p = &p[res->nr_notes++];
	p->xps = xps;
	str_copy(p->ifname, sizeof(p->ifname), ifname);
	str_copy(p->text, sizeof(p->text), text);
	return 0;
}

static void list_or(char *buf, size_t len, const struct cpuset *set)
{
	if (!set)
		str_copy(buf, len, "?");
	else if (cpulist_format(set, buf, len) < 0)
		str_copy(buf, len, "(long)");
}

static enum netfollow_outcome written(int r)
{
	if (r == 0)
		return NETFOLLOW_WRITTEN;
	return r == -ESRCH || r == -ENOENT ? NETFOLLOW_GONE : NETFOLLOW_FAILED;
}

/* Everything of one NIC that netpath needs, owned here. */
struct nic_data {
	struct netpathio_nic io;
	struct netpath_irq *irqs;
	unsigned int nr_irqs;
	struct netpath_napi *napi;
	unsigned int nr_napi;
	int group;
};

static void nic_data_release(struct nic_data *d)
{
	netpathio_nic_release(&d->io);
	free(d->irqs);
	free(d->napi);
}

/* A NAPI whose interrupts are deferred (defer-hard-irqs with a
 * gro-flush-timeout to re-arm them) or suspended (irq-suspend-timeout):
 * its IRQ fires less than its queue is polled (napi.rst). */
static bool deferred(const struct netpathio_napi_info *n)
{
	return (n->defer_hard_irqs > 0 && n->gro_flush_timeout > 0) || n->irq_suspend_timeout > 0;
}

static void settings_of(struct netfollow_nic *nic, const struct netpathio_napi_info *info,
			unsigned int nr)
{
	for (unsigned int k = 0; k < nr; k++) {
		if (info[k].defer_hard_irqs > nic->defer_hard_irqs)
			nic->defer_hard_irqs = info[k].defer_hard_irqs;
		if (info[k].gro_flush_timeout > nic->gro_flush_timeout)
			nic->gro_flush_timeout = info[k].gro_flush_timeout;
		if (info[k].irq_suspend_timeout > nic->irq_suspend_timeout)
			nic->irq_suspend_timeout = info[k].irq_suspend_timeout;
		nic->nr_deferred += deferred(&info[k]);
	}
}

/* netdev netlink's word on @d's NAPIs (6.8): each thread's IRQ, its NAPI
 * id where its name was cut, whether it busy-polls, and the settings;
 * into @nic, with why netlink matched no thread. The kernel says a
 * NAPI's IRQ only where its driver tells it (netif_napi_set_irq(), 6.8;
 * virtio-net never does), and its thread only in threaded mode. */
static void ask_netlink(const struct netfollow_ctx *ctx, struct nic_data *d,
			struct netfollow_nic *nic)
{
	struct netpathio_napi_info *info = NULL;
	unsigned int nr = 0, by_pid = 0, by_irq = 0;
	char why[NETPATH_REASON_MAX];
	int r;

	if (ctx->src && ctx->src->mode == SOURCE_REPLAY) {
		snprintf(nic->netlink, sizeof(nic->netlink), "a replay: a capture keeps no netlink");
		return;
	}
	if (d->io.ifindex < 0) {
		snprintf(nic->netlink, sizeof(nic->netlink), "its ifindex is unknown");
		return;
	}
	r = netpathio_napi_get(d->io.ifindex, &info, &nr, why, sizeof(why));
	if (r < 0) {
		snprintf(nic->netlink, sizeof(nic->netlink), "%s", r == -EOPNOTSUPP ?
			 "the kernel has no napi-get (before 6.8)" : why);
		return;
	}
	settings_of(nic, info, nr);
	for (unsigned int k = 0; k < nr; k++)
		for (unsigned int t = 0; t < d->nr_napi; t++) {
			struct netpath_napi *np = &d->napi[t];

			if (info[k].pid <= 0 || info[k].pid != np->pid)
				continue;
			by_pid++;
			if (np->id < 0 && info[k].id <= INT32_MAX)
				np->id = (int)info[k].id;	/* its name was cut */
			np->busy_poll = info[k].threaded == NETPATHIO_THREADED_BUSY_POLL;
			nic->nr_busy_poll += np->busy_poll;
			if (info[k].irq >= 0) {
				np->irq = info[k].irq;
				by_irq++;
			}
		}
	if (by_irq)
		nic->netlink[0] = '\0';
	else if (nr == 0)
		snprintf(nic->netlink, sizeof(nic->netlink), "netlink lists no NAPI of it");
	else if (by_pid == 0)
		snprintf(nic->netlink, sizeof(nic->netlink),
			 "netlink names none of its threads (pid: threaded NAPI only)");
	else
		snprintf(nic->netlink, sizeof(nic->netlink),
			 "netlink names no IRQ of its NAPIs (its driver does not say which)");
	free(info);
}

/* @d's interface from sysfs and its IRQs from the map: 0, 1 when the
 * group has no such interface here, or -ENOMEM. */
static int gather(const struct netfollow_ctx *ctx, struct nic_data *d,
		  struct netfollow_result *res)
{
	const struct device_group *g = &ctx->map->groups[d->group];
	unsigned int n = 0;
	int r;

	r = netpathio_read_nic(ctx->src, g->label, ctx->topo->nr_ids, &d->io);
	if (r < 0)
		return r == -ENOMEM ? r : 1;
	d->irqs = calloc(g->nr_irqs + 1, sizeof(*d->irqs));
	if (!d->irqs)
		return -ENOMEM;
	for (unsigned int i = 0; i < ctx->map->nr_irqs; i++)
		if (ctx->map->irqs[i].group == d->group && ctx->out[i] != OUT_UNUSED && n < g->nr_irqs)
			irq_state(ctx, i, &d->irqs[n++]);
	d->nr_irqs = n;
	if (g->link_policy) {
		char text[NETPATH_REASON_MAX];

		snprintf(text, sizeof(text), "XPS and NAPI threads left: systemd-udevd sets "
			 "its IRQ affinity (%s)", g->link_policy);
		if (add_note(res, true, g->label, text) < 0)
			return -ENOMEM;
	}
	if (g->policy_xps && strcmp(g->policy_xps, "0") != 0 && strcmp(g->policy_xps, "1") != 0) {
		char text[NETPATH_REASON_MAX];

		snprintf(text, sizeof(text), "IRQTUNE_XPS '%s' on %s: not 1 or 0; ignored",
			 g->policy_xps, g->xps_from);
		if (add_note(res, true, g->label, text) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* @d's NAPI threads among @thr. */
static int attach_threads(const struct netfollow_ctx *ctx, const struct netpathio_threads *thr,
			  struct nic_data *d)
{
	const char *ifname = ctx->map->groups[d->group].label;

	d->napi = calloc(thr->nr + 1, sizeof(*d->napi));
	if (!d->napi)
		return -ENOMEM;
	for (unsigned int t = 0; t < thr->nr; t++) {
		int id;

		if (netpath_napi_of(thr->t[t].comm, ifname, &id) < 0)
			continue;
		d->napi[d->nr_napi] = thr->t[t];
		d->napi[d->nr_napi++].id = id;
	}
	return 0;
}

/* netlink's word on each NIC (where the kernel has it: 6.8; a replay
 * has only what the capture kept, so names decide there), kept in
 * @res for the NICs it says something of. */
static int ask_nics(const struct netfollow_ctx *ctx, struct nic_data *data, unsigned int nr,
		    struct netfollow_result *res, bool *netlink)
{
	res->nics = calloc(nr + 1, sizeof(*res->nics));
	if (!res->nics)
		return -ENOMEM;
	for (unsigned int i = 0; i < nr; i++) {
		struct netfollow_nic *nic = &res->nics[res->nr_nics];

		*nic = (struct netfollow_nic){
			.defer_hard_irqs = -1, .gro_flush_timeout = -1, .irq_suspend_timeout = -1,
		};
		str_copy(nic->ifname, sizeof(nic->ifname), ctx->map->groups[data[i].group].label);
		ask_netlink(ctx, &data[i], nic);
		nic->nr_threads = data[i].nr_napi;
		if (nic->nr_threads) {
			nic->matched_by = nic->netlink[0] ? "names" : "netlink";
			*netlink |= !nic->netlink[0];
		}
		if (nic->nr_threads || nic->nr_deferred)
			res->nr_nics++;
	}
	return 0;
}

static void describe(const struct netfollow_ctx *ctx, const struct nic_data *d,
		     struct netpath_nic *nic)
{
	const struct device_group *g = &ctx->map->groups[d->group];

	*nic = (struct netpath_nic){
		.ifname = g->label, .node = g->node,
		.nr_irqs = d->nr_irqs, .irqs = d->irqs,
		.nr_tx = d->io.nr_tx, .xps_now = (const struct cpuset *const *)d->io.xps_now,
		.threaded = d->io.threaded, .nr_napi = d->nr_napi, .napi = d->napi,
		.xps_off_from = g->policy_xps && strcmp(g->policy_xps, "0") == 0 ?
				g->xps_from : NULL,
	};
}

static int carry_out(const struct netfollow_ctx *ctx, const struct netpath_input *in,
		     const struct netpath_plan *p, struct netfollow_result *res)
{
	unsigned int cap = 0;
	int r;

	for (unsigned int i = 0; i < p->nr_notes; i++)
		if (add_note(res, p->notes[i].xps, in->nics[p->notes[i].nic].ifname,
			     p->notes[i].text) < 0)
			return -ENOMEM;
	for (unsigned int i = 0; i < p->nr_xps; i++) {
		const struct netpath_xps *x = &p->xps[i];
		const struct netpath_nic *nic = &in->nics[x->nic];
		struct netfollow_change *c;

		r = add_change(res, &cap, &c);
		if (r < 0)
			return r;
		c->xps = true;
		str_copy(c->ifname, sizeof(c->ifname), nic->ifname);
		snprintf(c->what, sizeof(c->what), "tx-%u", x->queue);
		list_or(c->from, sizeof(c->from), nic->xps_now ? nic->xps_now[x->queue] : NULL);
		if (x->mask)
			list_or(c->to, sizeof(c->to), x->mask);
		str_copy(c->reason, sizeof(c->reason), x->reason);
		if (x->action == NETPATH_LEAVE) {
			c->outcome = NETFOLLOW_LEFT;
		} else if (x->action == NETPATH_KEEP) {
			c->outcome = NETFOLLOW_KEPT;
		} else if (ctx->dry_run) {
			c->outcome = NETFOLLOW_WOULD;
		} else {
			r = netpathio_write_xps(nic->ifname, x->queue, x->mask);
			c->outcome = written(r);
			c->err = -r;
			res->failed += c->outcome == NETFOLLOW_FAILED;
		}
	}
	for (unsigned int i = 0; i < p->nr_threads; i++) {
		const struct netpath_thread *t = &p->threads[i];
		const struct netpath_nic *nic = &in->nics[t->nic];
		const struct netpath_napi *np = &nic->napi[t->napi];
		struct netfollow_change *c;

		r = add_change(res, &cap, &c);
		if (r < 0)
			return r;
		str_copy(c->ifname, sizeof(c->ifname), nic->ifname);
		str_copy(c->what, sizeof(c->what), np->comm);
		c->pid = np->pid;
		list_or(c->from, sizeof(c->from), np->now);
		if (t->cpu >= 0)
			snprintf(c->to, sizeof(c->to), "%d", t->cpu);
		str_copy(c->reason, sizeof(c->reason), t->reason);
		if (t->action == NETPATH_LEAVE) {
			c->outcome = NETFOLLOW_LEFT;
		} else if (t->action == NETPATH_KEEP) {
			c->outcome = NETFOLLOW_KEPT;
		} else if (ctx->dry_run) {
			c->outcome = NETFOLLOW_WOULD;
		} else {
			r = netpathio_pin(np->pid, np->comm, t->cpu);
			c->outcome = written(r);
			c->err = -r;
			res->failed += c->outcome == NETFOLLOW_FAILED;
		}
	}
	return 0;
}

int netfollow_run(const struct netfollow_ctx *ctx, struct netfollow_result **ret)
{
	struct netfollow_result *res = calloc(1, sizeof(*res));
	struct netpathio_threads thr = { 0 };
	struct netpath_input in = { 0 };
	struct netpath_plan *p = NULL;
	struct netpath_nic *nics = NULL;
	struct nic_data *data = NULL;
	int *cpu_node = NULL;
	bool netlink = false, threaded = false;
	unsigned int nr = 0;
	int r = -ENOMEM;

	if (!res)
		return -ENOMEM;
	if (!ctx->xps && !ctx->napi)
		goto done;
	nics = calloc(ctx->map->nr_groups + 1, sizeof(*nics));
	data = calloc(ctx->map->nr_groups + 1, sizeof(*data));
	cpu_node = calloc(ctx->topo->nr_ids + 1, sizeof(*cpu_node));
	if (!nics || !data || !cpu_node)
		goto out;
	for (unsigned int c = 0; c < ctx->topo->nr_ids; c++)
		cpu_node[c] = ctx->topo->cpus[c].node;
	for (unsigned int g = 0; g < ctx->map->nr_groups; g++) {
		if (ctx->map->groups[g].class != CLASS_NET || !ctx->map->groups[g].label[0])
			continue;
		data[nr].group = (int)g;
		r = gather(ctx, &data[nr], res);
		if (r > 0) {
			nic_data_release(&data[nr]);
			memset(&data[nr], 0, sizeof(data[nr]));
			continue;
		}
		nr++;
		if (r < 0)
			goto out;
		threaded |= data[nr - 1].io.threaded == 1;
	}
	/* Threads are looked for only where a NIC runs threaded NAPI (its
	 * sysfs switch, Linux 5.12): there are none elsewhere, and a
	 * capture keeps no process list it has no use for. */
	if (ctx->napi && threaded) {
		r = netpathio_find_threads(ctx->src, ctx->topo->nr_ids, &thr);
		if (r < 0)
			goto out;
		for (unsigned int i = 0; i < nr; i++) {
			r = attach_threads(ctx, &thr, &data[i]);
			if (r < 0)
				goto out;
		}
	}
	res->counts_only = ctx->counts_only;
	r = ask_nics(ctx, data, nr, res, &netlink);
	if (r < 0)
		goto out;
	for (unsigned int i = 0; i < nr; i++)
		describe(ctx, &data[i], &nics[i]);
	in = (struct netpath_input){
		.nr_ids = ctx->topo->nr_ids, .cpu_node = cpu_node,
		.xps = ctx->xps, .napi = ctx->napi, .nr_nics = nr, .nics = nics,
	};
	r = netpath_plan(&in, &p);
	if (r < 0)
		goto out;
	r = carry_out(ctx, &in, p, res);
	if (r < 0)
		goto out;
	for (unsigned int i = 0; i < res->nr; i++)
		if (!res->changes[i].xps)
			res->napi_source = netlink ? "netlink" : "names";
done:
	r = 0;
out:
	netpath_plan_free(p);
	for (unsigned int i = 0; i < nr; i++)
		nic_data_release(&data[i]);
	free(data);
	free(nics);
	free(cpu_node);
	netpathio_threads_release(&thr);
	if (r < 0) {
		netfollow_result_free(res);
		return r;
	}
	*ret = res;
	return 0;
}

/* "eth0 tx-3 xps" or "eth0 napi/eth0-8193 (pid 900)", escaped. */
static void subject(char *buf, size_t len, const struct netfollow_change *c)
{
	char ifn[4 * DEVICE_NAME_MAX], what[4 * sizeof(c->what)];

	str_escape_text(ifn, sizeof(ifn), c->ifname);
	str_escape_text(what, sizeof(what), c->what);
	if (c->xps)
		snprintf(buf, len, "%s %s xps_cpus", ifn, what);
	else
		snprintf(buf, len, "%s %s (pid %d)", ifn, what, c->pid);
}

/* How @nic's threads were matched, with -v; and, always, that the proc
 * source cannot see the poll work of NAPIs whose IRQs are deferred. */
static void print_nic(FILE *f, const struct netfollow_nic *nic, bool counts_only, bool verbose)
{
	char ifn[4 * DEVICE_NAME_MAX], why[4 * NETPATH_REASON_MAX];

	str_escape_text(ifn, sizeof(ifn), nic->ifname);
	str_escape_text(why, sizeof(why), nic->netlink);
	if (verbose && nic->matched_by && strcmp(nic->matched_by, "netlink") == 0)
		fprintf(f, "irqtune: network path: %s: NAPI threads matched by netdev netlink "
			"(napi-get)\n", ifn);
	else if (verbose && nic->matched_by)
		fprintf(f, "irqtune: network path: %s: NAPI threads matched by their names: %s\n",
			ifn, why);
	if (verbose && nic->nr_deferred)
		fprintf(f, "irqtune: network path: %s: %u NAPIs defer or suspend their IRQ "
			"(defer-hard-irqs %d, gro-flush-timeout %lld ns, irq-suspend-timeout %lld ns)\n",
			ifn, nic->nr_deferred, nic->defer_hard_irqs,
			(long long)nic->gro_flush_timeout, (long long)nic->irq_suspend_timeout);
	if (counts_only && nic->nr_deferred)
		fprintf(f, "irqtune: network path: %s: its IRQs are deferred or suspended while its "
			"queues are polled: the proc load source counts interrupts and cannot see "
			"that poll work, so its load is understated\n", ifn);
}

void netfollow_print(FILE *f, const struct netfollow_result *res, bool verbose)
{
	char subj[512], reason[4 * NETPATH_REASON_MAX];

	if (!res)
		return;
	for (unsigned int i = 0; i < res->nr; i++) {
		const struct netfollow_change *c = &res->changes[i];

		if (!verbose && (c->outcome == NETFOLLOW_KEPT || c->outcome == NETFOLLOW_LEFT))
			continue;
		subject(subj, sizeof(subj), c);
		str_escape_text(reason, sizeof(reason), c->reason);
		if (c->outcome == NETFOLLOW_WRITTEN || c->outcome == NETFOLLOW_WOULD)
			fprintf(f, "irqtune: network path: %s %s -> %s, %s (%s)\n", subj, c->from,
				c->to, netfollow_outcome_text(c->outcome), reason);
		else if (c->outcome == NETFOLLOW_FAILED || c->outcome == NETFOLLOW_GONE)
			fprintf(f, "irqtune: network path: %s %s, %s: %s\n", subj, c->from,
				netfollow_outcome_text(c->outcome), strerror(c->err));
		else
			fprintf(f, "irqtune: network path: %s %s, %s (%s)\n", subj, c->from,
				netfollow_outcome_text(c->outcome), reason);
	}
	for (unsigned int i = 0; verbose && i < res->nr_notes; i++) {
		char ifn[4 * DEVICE_NAME_MAX];

		str_escape_text(ifn, sizeof(ifn), res->notes[i].ifname);
		str_escape_text(reason, sizeof(reason), res->notes[i].text);
		fprintf(f, "irqtune: network path: %s: %s\n", ifn, reason);
	}
	for (unsigned int i = 0; i < res->nr_nics; i++)
		print_nic(f, &res->nics[i], res->counts_only, verbose);
	if (verbose && res->napi_source)
		fprintf(f, "irqtune: network path: NAPI threads matched to IRQs by %s\n",
			strcmp(res->napi_source, "netlink") == 0 ?
			"netdev netlink (napi-get)" : "their names and NAPI ids");
}

void netfollow_log(const struct netfollow_result *res, bool dry_run)
{
	char subj[512], reason[4 * NETPATH_REASON_MAX];

	if (!res || dry_run)
		return;
	for (unsigned int i = 0; i < res->nr; i++) {
		const struct netfollow_change *c = &res->changes[i];

		subject(subj, sizeof(subj), c);
		if (c->outcome == NETFOLLOW_FAILED)
			log_msg(LOG_WARNING, "%s: cannot set to %s: %s, left at %s", subj, c->to,
				strerror(c->err), c->from);
		else if (c->outcome == NETFOLLOW_GONE && !c->xps)
			log_msg(LOG_NOTICE, "%s: exited before it could be pinned to %s", subj,
				c->to);
		else if (c->outcome == NETFOLLOW_WRITTEN && log_to_syslog()) {
			str_escape_text(reason, sizeof(reason), c->reason);
			log_event(LOG_INFO, "%s: %s -> %s (%s)", subj, c->from, c->to, reason);
		}
	}
}
