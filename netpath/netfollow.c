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

/* netdev netlink's IRQ for each of @d's threads, where the kernel says. */
static bool ask_netlink(struct nic_data *d)
{
	struct netpathio_napi_info *info = NULL;
	unsigned int nr = 0;
	bool any = false;

	if (d->io.ifindex < 0 || d->nr_napi == 0 ||
	    netpathio_napi_get(d->io.ifindex, &info, &nr, NULL, 0) < 0)
		return false;
	for (unsigned int k = 0; k < nr; k++)
		for (unsigned int t = 0; t < d->nr_napi; t++)
			if (info[k].pid > 0 && info[k].pid == d->napi[t].pid && info[k].irq >= 0) {
				d->napi[t].irq = info[k].irq;
				any = true;
			}
	free(info);
	return any;
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
	if (g->policy_xps && strcmp(g->policy_xps, "0") != 0 && strcmp(g->policy_xps, "1") != 0) {
		char text[NETPATH_REASON_MAX];

		snprintf(text, sizeof(text), "IRQTUNE_XPS '%s' on %s: not 1 or 0; ignored",
			 g->policy_xps, g->xps_from);
		if (add_note(res, true, g->label, text) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* @d's NAPI threads among @thr, and netlink's word on their IRQs. */
static int attach_threads(const struct netfollow_ctx *ctx, const struct netpathio_threads *thr,
			  struct nic_data *d, bool *netlink)
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
	/* The kernel's own word where it has it (6.8); a replay has only
	 * what the capture kept, so names decide there. */
	if ((!ctx->src || ctx->src->mode != SOURCE_REPLAY) && ask_netlink(d))
		*netlink = true;
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
			r = attach_threads(ctx, &thr, &data[i], &netlink);
			if (r < 0)
				goto out;
		}
	}
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

void netfollow_result_free(struct netfollow_result *res)
{
	if (!res)
		return;
	free(res->changes);
	free(res->notes);
	free(res);
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
