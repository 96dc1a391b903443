// SPDX-License-Identifier: GPL-2.0-or-later
/* json.c - --json output. json-c builds and escapes the document; names from
 * the kernel are \xNN-escaped first (str_escape_text), so the output is valid
 * UTF-8 whatever bytes a driver put in its IRQ name. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>

#include "appload.h"
#include "estimate.h"
#include "json.h"
#include "kubelet.h"
#include "netpath.h"
#include "strutil.h"
#include "topology.h"

static int add(struct json_object *o, const char *key, struct json_object *v)
{
	if (!v)
		return -ENOMEM;
	return json_object_object_add(o, key, v) == 0 ? 0 : -ENOMEM;
}

static struct json_object *text(const char *s)
{
	char buf[256];

	str_escape_text(buf, sizeof(buf), s ? s : "");
	return json_object_new_string(buf);
}

static struct json_object *number(double d)
{
	return json_object_new_double(d);
}

/* Seconds since the epoch need more than 6 digits: microseconds. */
static struct json_object *when(double t)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.6f", t);
	return json_object_new_double_s(t, buf);
}

/* A JSON null is a NULL json_object, which add() would take for ENOMEM. */
static int add_null(struct json_object *o, const char *key)
{
	return json_object_object_add(o, key, NULL) == 0 ? 0 : -ENOMEM;
}

static struct json_object *irq_object(const struct report_irq *ri)
{
	struct json_object *o = json_object_new_object();
	int r = 0;

	if (!o)
		return NULL;
	r |= add(o, "irq", json_object_new_int64(ri->irq));
	r |= add(o, "name", text(ri->name));
	r |= add(o, "device", text(ri->device));
	r |= add(o, "label", text(ri->label));
	r |= add(o, "class", json_object_new_string(irq_class_name(ri->class)));
	r |= add(o, "from", text(ri->from));
	r |= ri->to < 0 ? add_null(o, "to") : add(o, "to", json_object_new_int(ri->to));
	r |= add(o, "load", number(ri->load));
	if (!isnan(ri->load_proc))
		r |= add(o, "load_proc_estimate", number(ri->load_proc));
	if (!isnan(ri->load_window))
		r |= add(o, "load_window", number(ri->load_window));
	/* Only where the kernel threads IRQs: other JSON reads as before. */
	if (ri->threaded) {
		r |= add(o, "threaded", json_object_new_boolean(1));
		r |= add(o, "load_thread", number(ri->load_thread));
	}
	r |= add(o, "outcome", json_object_new_string(report_outcome_key(ri->outcome)));
	r |= add(o, "reason", text(ri->reason));
	/* Only where vector space changed the choice. */
	if (ri->vec_full >= 0)
		r |= add(o, "vector_full_cpu", json_object_new_int(ri->vec_full));
	if (ri->allowed) {
		r |= add(o, "allowed", text(ri->allowed));
		r |= add(o, "policy", text(ri->policy));
	}
	if (r) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* [{"cpus": "2-3", "source": "--bancpus"}, ...]: who banned which CPUs. */
static struct json_object *bans(const struct report_run *run)
{
	struct json_object *a = json_object_new_array();

	for (unsigned int i = 0; a && i < run->nr_bans; i++) {
		struct json_object *b = json_object_new_object();

		if (!b || add(b, "cpus", json_object_new_string(run->bans[i].cpus)) ||
		    add(b, "source", text(run->bans[i].source)) ||
		    json_object_array_add(a, b)) {
			json_object_put(b);
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}

/* @v, or null when the kernel did not say (-1). */
static int add_num(struct json_object *o, const char *key, int64_t v)
{
	return v < 0 ? add_null(o, key) : add(o, key, json_object_new_int64(v));
}

/* "nics": per NIC with NAPI threads or NAPI settings, how its threads
 * were matched (and why not by netlink), the busy-polling ones, the
 * settings that defer its IRQs, and whether the load source saw past
 * them. */
static int netpath_nics(struct json_object *o, const struct netfollow_result *res)
{
	struct json_object *a = json_object_new_array();
	int r = 0;

	if (!a || add(o, "nics", a))
		return -ENOMEM;
	for (unsigned int i = 0; i < res->nr_nics && !r; i++) {
		const struct netfollow_nic *nic = &res->nics[i];
		struct json_object *e = json_object_new_object();

		if (!e || json_object_array_add(a, e)) {
			json_object_put(e);
			return -ENOMEM;
		}
		r |= add(e, "interface", text(nic->ifname));
		r |= nic->matched_by ? add(e, "napi_matched_by", json_object_new_string(nic->matched_by)) :
				       add_null(e, "napi_matched_by");
		r |= nic->netlink[0] ? add(e, "netlink_unmatched", text(nic->netlink)) :
				       add_null(e, "netlink_unmatched");
		r |= add(e, "napi_threads", json_object_new_int((int)nic->nr_threads));
		r |= add(e, "busy_poll_threads", json_object_new_int((int)nic->nr_busy_poll));
		r |= add_num(e, "defer_hard_irqs", nic->defer_hard_irqs);
		r |= add_num(e, "gro_flush_timeout_ns", nic->gro_flush_timeout);
		r |= add_num(e, "irq_suspend_timeout_ns", nic->irq_suspend_timeout);
		r |= add(e, "deferred_napis", json_object_new_int((int)nic->nr_deferred));
		r |= add(e, "poll_work_unseen",
			 json_object_new_boolean(netfollow_poll_unseen(res, nic)));
	}
	return r ? -ENOMEM : 0;
}

/* {"changes": [...], "notes": [...], "napi_matched_by": ...}: the network
 * path's writes and why; NULL (no member) when there is nothing, so the
 * JSON of machines without multi-queue NICs or NAPI threads is as before. */
static int netpath(struct json_object *root, const struct netfollow_result *res)
{
	struct json_object *o, *a, *n;
	int r = 0;

	if (!res || (res->nr == 0 && res->nr_notes == 0 && res->nr_nics == 0))
		return 0;
	o = json_object_new_object();
	a = json_object_new_array();
	n = json_object_new_array();
	if (!o || !a || !n) {
		json_object_put(o);
		json_object_put(a);
		json_object_put(n);
		return -ENOMEM;
	}
	r |= add(o, "changes", a);
	r |= add(o, "notes", n);
	r |= res->napi_source ? add(o, "napi_matched_by", json_object_new_string(res->napi_source)) :
				add_null(o, "napi_matched_by");
	if (res->nr_nics)
		r |= netpath_nics(o, res);
	r |= add(root, "netpath", o);
	if (r)
		return -ENOMEM;
	for (unsigned int i = 0; i < res->nr; i++) {
		const struct netfollow_change *c = &res->changes[i];
		struct json_object *e = json_object_new_object();

		if (!e)
			return -ENOMEM;
		r |= add(e, "kind", json_object_new_string(c->xps ? "xps" : "napi_thread"));
		r |= add(e, "interface", text(c->ifname));
		r |= add(e, "what", text(c->what));
		r |= c->xps ? add_null(e, "pid") : add(e, "pid", json_object_new_int(c->pid));
		r |= add(e, "from", text(c->from));
		r |= c->to[0] ? add(e, "to", text(c->to)) : add_null(e, "to");
		r |= add(e, "outcome", json_object_new_string(netfollow_outcome_key(c->outcome)));
		r |= add(e, "reason", text(c->reason));
		if (c->outcome == NETFOLLOW_FAILED || c->outcome == NETFOLLOW_GONE)
			r |= add(e, "error", json_object_new_string(strerror(c->err)));
		if (r || json_object_array_add(a, e)) {
			json_object_put(e);
			return -ENOMEM;
		}
	}
	for (unsigned int i = 0; i < res->nr_notes; i++) {
		struct json_object *e = json_object_new_object();

		if (!e)
			return -ENOMEM;
		r |= add(e, "kind", json_object_new_string(res->notes[i].xps ? "xps" : "napi_thread"));
		r |= add(e, "interface", text(res->notes[i].ifname));
		r |= add(e, "note", text(res->notes[i].text));
		if (r || json_object_array_add(n, e)) {
			json_object_put(e);
			return -ENOMEM;
		}
	}
	return 0;
}

/* machine.cpus: each online CPU's IRQ load before and after, and where
 * there is something to say its capacity and its pinned application load
 * (with the whole, IRQs' and application's, before and after). */
static int cpu_array(struct json_object *cpus, const struct report_run *run)
{
	for (unsigned int k = 0; k < run->nr_cpus && run->before; k++) {
		struct json_object *c = json_object_new_object();
		int cpu = run->cpus[k], r = 0;
		unsigned int cap = run->capacity ? run->capacity[cpu] : CAPACITY_SCALE;

		if (!c)
			return -ENOMEM;
		r |= add(c, "cpu", json_object_new_int(cpu));
		r |= add(c, "load_before", number(run->before[cpu]));
		r |= add(c, "load_after", number(run->after[cpu]));
		if (run->capacity || run->app)
			r |= add(c, "capacity", json_object_new_int((int)cap));
		if (run->app) {
			r |= add(c, "app_load", number(run->app[cpu]));
			r |= add(c, "whole_before", number(run->before[cpu] + run->app[cpu]));
			r |= add(c, "whole_after", number(run->after[cpu] + run->app[cpu]));
		}
		if (r || json_object_array_add(cpus, c)) {
			json_object_put(c);
			return -ENOMEM;
		}
	}
	return 0;
}

/* {"source": {...}, "kubelet": {...}, "avoid_cpus": ...}: where the
 * application load came from, each member where it says something. */
static struct json_object *application(const struct report_run *run)
{
	struct json_object *o = json_object_new_object(), *x;
	int r = 0;

	if (!o)
		return NULL;
	if (run->app_source) {
		const struct appload *a = run->app_source;

		x = json_object_new_object();
		r |= add(o, "source", x);
		if (x) {
			r |= add(x, "kind", json_object_new_string(report_app_kind(a)));
			r |= add(x, "reason", text(a->reason));
			/* Threads are counted where /proc was read; the
			 * program sums time per CPU and counts none. */
			if (a->kind == APPLOAD_PROC) {
				r |= add(x, "threads_seen", json_object_new_int64(a->threads_seen));
				r |= add(x, "threads_pinned",
					 json_object_new_int64(a->threads_pinned));
				r |= add(x, "cap", json_object_new_int64(a->cap));
				r |= add(x, "capped", json_object_new_boolean(a->capped));
			}
			r |= add(x, "busy_threshold", number(REPORT_APP_BUSY));
		}
	}
	if (run->kubelet) {
		const struct kubelet_state *k = run->kubelet;

		x = json_object_new_object();
		r |= add(o, "kubelet", x);
		if (x) {
			r |= add(x, "status", json_object_new_string(report_kubelet_status(k)));
			r |= add(x, "policy", text(k->policy));
			r |= add(x, "containers", json_object_new_int64(k->nr_containers));
			r |= k->status == KUBELET_READ ?
			     add(x, "exclusive_cpus", text(run->kubelet_cpus)) :
			     add_null(x, "exclusive_cpus");
			r |= k->status == KUBELET_BAD ? add(x, "why", text(k->why)) :
							add_null(x, "why");
		}
	}
	r |= run->avoid ? add(o, "avoid_cpus", text(run->avoid)) : add_null(o, "avoid_cpus");
	if (r) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* [{"class": "net", "kind": "NET_RX", "us": 33.2, "found": "fitted"}, ...]:
 * the /proc estimate's per-event costs, and how each was found. */
static struct json_object *estimate_costs(const struct estimate_found *found)
{
	struct estimate_cost_item it[ESTIMATE_COST_ITEMS];
	unsigned int n = estimate_found_items(found, it);
	struct json_object *a = json_object_new_array();
	int r = a ? 0 : -ENOMEM;

	for (unsigned int i = 0; i < n && r == 0; i++) {
		struct json_object *o = json_object_new_object();

		if (!o || json_object_array_add(a, o)) {
			json_object_put(o);
			r = -ENOMEM;
			break;
		}
		r |= add(o, "class", text(it[i].class_name));
		r |= add(o, "kind", text(it[i].kind));
		r |= add(o, "us", number(it[i].us));
		r |= add(o, "found", text(it[i].how));
	}
	if (r) {
		json_object_put(a);
		return NULL;
	}
	return a;
}

static struct json_object *build(const struct report_run *run)
{
	struct json_object *root = json_object_new_object();
	struct json_object *r_run = json_object_new_object();
	struct json_object *machine = json_object_new_object();
	struct json_object *cpus = json_object_new_array();
	struct json_object *sum = json_object_new_object();
	struct json_object *irqs = json_object_new_array();
	const struct report_totals *t = &run->totals;
	char host[256] = "";
	int r = 0;

	if (!root || !r_run || !machine || !cpus || !sum || !irqs) {
		json_object_put(root);
		json_object_put(r_run);
		json_object_put(machine);
		json_object_put(cpus);
		json_object_put(sum);
		json_object_put(irqs);
		return NULL;
	}
	r |= add(root, "version", json_object_new_string(IRQTUNE_VERSION));
	r |= add(root, "dry_run", json_object_new_boolean(run->dry_run));
	r |= add(root, "status", json_object_new_int(run->status));
	r |= run->counts ? add(root, "counts", text(run->counts)) : add_null(root, "counts");
	r |= run->counts ? add(root, "counts_reason", text(run->counts_reason)) :
			   add_null(root, "counts_reason");
	r |= run->load_source ? add(root, "load_source", text(run->load_source)) :
				add_null(root, "load_source");
	r |= run->load_source ? add(root, "load_source_reason", text(run->load_source_reason)) :
				add_null(root, "load_source_reason");
	r |= run->history ? add(root, "history", text(run->history)) : add_null(root, "history");
	r |= run->estimate_found ? add(root, "estimate_costs", estimate_costs(run->estimate_found)) :
				   add_null(root, "estimate_costs");

	r |= add(root, "run", r_run);
	r |= add(r_run, "started", when(run->started));
	r |= run->locked > 0 ? add(r_run, "locked", when(run->locked)) :
			       add_null(r_run, "locked");
	r |= add(r_run, "finished", when(run->finished));
	r |= add(r_run, "duration_seconds", when(run->duration));
	r |= add(r_run, "window_seconds", number(run->window));
	if (run->window_to > 0) {
		r |= add(r_run, "window_from_monotonic", when(run->window_from));
		r |= add(r_run, "window_to_monotonic", when(run->window_to));
	} else {
		r |= add_null(r_run, "window_from_monotonic");
		r |= add_null(r_run, "window_to_monotonic");
	}

	r |= add(root, "machine", machine);
	if (run->hostname)
		snprintf(host, sizeof(host), "%s", run->hostname);
	else
		gethostname(host, sizeof(host) - 1);
	r |= add(machine, "hostname", text(host));
	r |= add(machine, "online_cpus", text(run->online));
	r |= add(machine, "eligible_cpus", text(run->eligible));
	r |= add(machine, "cpus", cpus);
	r |= add(machine, "banned", bans(run));
	/* Only where there is something to say: other JSON reads as before. */
	if (run->capacity)
		r |= add(machine, "capacity_source", text(run->capacity_source));
	if (run->vectors) {
		r |= add(machine, "vectors", text(run->vectors));
		r |= run->vectors_missing ? add(machine, "vectors_missing", text(run->vectors_missing)) :
					    add_null(machine, "vectors_missing");
	}
	r |= cpu_array(cpus, run);
	if (run->app_source || run->kubelet || run->avoid)
		r |= add(root, "application", application(run));

	r |= add(root, "summary", sum);
	r |= add(sum, "seen", json_object_new_int64(t->seen));
	r |= add(sum, "movable", json_object_new_int64(t->movable));
	r |= add(sum, "moved", json_object_new_int64(t->moved));
	r |= add(sum, "unchanged", json_object_new_int64(t->unchanged));
	r |= add(sum, "kernel_managed", json_object_new_int64(t->managed));
	r |= add(sum, "failed", json_object_new_int64(t->failed));
	r |= add(sum, "banned", json_object_new_int64(t->banned));
	if (run->before) {
		r |= add(sum, "load_ratio_before", number(t->ratio_before));
		r |= add(sum, "load_ratio_after", number(t->ratio_after));
		if (t->app) {
			r |= add(sum, "app_cpu_irq_share_before", number(t->app_share_before));
			r |= add(sum, "app_cpu_irq_share_after", number(t->app_share_after));
		}
	} else {	/* no plan, no loads */
		r |= add_null(sum, "load_ratio_before");
		r |= add_null(sum, "load_ratio_after");
	}

	r |= add(root, "irqs", irqs);
	for (unsigned int i = 0; i < run->nr_irqs && r == 0; i++) {
		struct json_object *o;

		if (run->irqs[i].outcome == OUT_UNUSED)
			continue;
		o = irq_object(&run->irqs[i]);
		if (!o || json_object_array_add(irqs, o)) {
			json_object_put(o);
			r = -ENOMEM;
		}
	}
	if (r == 0)
		r = netpath(root, run->netpath);
	if (r) {
		json_object_put(root);
		return NULL;
	}
	return root;
}

int json_report(FILE *f, const struct report_run *run)
{
	struct json_object *root;
	const char *s;
	int r = 0;

	/* Loads and times to 6 significant digits, not 17. */
	json_c_set_serialization_double_format("%.6g", JSON_C_OPTION_GLOBAL);
	root = build(run);
	if (!root)
		return -ENOMEM;
	s = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
					   JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!s)
		r = -ENOMEM;
	else if (fputs(s, f) == EOF || fputc('\n', f) == EOF)
		r = -EIO;
	json_object_put(root);
	return r;
}
