// SPDX-License-Identifier: GPL-2.0-or-later
/* planrun.c - the planner's input from a run's parts, and the loop that
 * writes the plan and re-plans around what the kernel refused. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "log.h"
#include "planrun.h"
#include "policy.h"
#include "report.h"
#include "sample.h"
#include "strutil.h"

/* Why an IRQ that can be moved is not, or OUT_KEPT. */
static enum report_outcome fixed_why(const struct irq_info *ii, const struct policy_irq *po)
{
	if (ii->gone)
		return OUT_GONE;
	if (!ii->name[0])
		return OUT_UNUSED;
	if (po->ban != BAN_NONE)
		return OUT_BANNED;
	if (ii->managed)
		return OUT_MANAGED;
	if (po->no_cpu)
		return OUT_NOCPU;
	return OUT_KEPT;
}

int planrun_input(const struct planrun_parts *p, struct plan_irq **ret_pi,
		  enum report_outcome **ret_out)
{
	struct plan_irq *pis = calloc(p->nr ? p->nr : 1, sizeof(*pis));
	enum report_outcome *out = calloc(p->nr ? p->nr : 1, sizeof(*out));

	if (!pis || !out) {
		free(pis);
		free(out);
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < p->nr; i++) {
		const struct irq_info *ii = &p->map->irqs[i];
		const struct irq_activity *ac = &p->act[i];
		const struct policy_irq *po = &p->pol->irqs[i];
		struct plan_irq *pi = &pis[i];

		pi->irq = ii->irq;
		pi->class = ii->class;
		pi->group = ii->group;
		pi->node = ii->node;
		pi->pinned = ii->pinned;
		pi->served = ac->top_cpu >= 0 ? ac->top_cpu :
			     ii->effective >= 0 ? ii->effective : ii->pinned;
		/* Time measured on a smaller CPU is less work: in CPUs of
		 * the biggest (a factor of exactly 1 where CPUs are alike). */
		pi->load = pi->served >= 0 && p->topo ?
			   ac->load * topology_capacity(p->topo, (unsigned int)pi->served) /
			   CAPACITY_SCALE : ac->load;
		pi->allowed = po->allowed;
		out[i] = fixed_why(ii, po);
		pi->fixed = out[i] != OUT_KEPT;
	}
	*ret_pi = pis;
	*ret_out = out;
	return 0;
}

/* "irq 42 (eth0-TxRx-0)", names escaped. */
static const char *irq_tag(const struct device_map *map, unsigned int i, char *buf,
			   size_t len)
{
	report_irq_tag(buf, len, map->irqs[i].irq, map->irqs[i].name);
	return buf;
}

/* Malformed udev properties are reported once per device and ignored. */
static void report_policy_errors(const struct device_map *map, const struct policy *pol)
{
	for (unsigned int g = 0; g < pol->nr_groups; g++) {
		const struct device_group *dg = &map->groups[g];
		const struct policy_group *pg = &pol->groups[g];
		char from[DEVICE_NAME_MAX * 4], val[256];

		if (pg->cpus_err) {
			str_escape_text(from, sizeof(from), dg->cpus_from);
			str_escape_text(val, sizeof(val), dg->policy_cpus);
			log_msg(LOG_WARNING, "device %s: IRQTUNE_CPUS '%s' on %s: %s; ignored",
				dg->id, val, from, pg->cpus_err == -ERANGE ?
				"CPU id out of range" : "not a non-empty cpulist");
		}
		if (pg->ban_err) {
			str_escape_text(from, sizeof(from), dg->ban_from);
			str_escape_text(val, sizeof(val), dg->policy_ban);
			log_msg(LOG_WARNING, "device %s: IRQTUNE_BAN '%s' on %s: not 1 or 0; ignored",
				dg->id, val, from);
		}
	}
}

int planrun_build(const struct planrun_parts *p, struct plan_irq **ret_pi,
		  enum report_outcome **ret_out)
{
	int r;

	report_policy_errors(p->map, p->pol);
	r = planrun_input(p, ret_pi, ret_out);
	if (r < 0)
		return r;
	for (unsigned int i = 0; i < p->nr; i++) {
		const struct policy_irq *po = &p->pol->irqs[i];
		char tag[DEVICE_NAME_MAX * 4 + 32], src[4 * sizeof(po->source)];

		if ((*ret_out)[i] != OUT_NOCPU)
			continue;
		str_escape_text(src, sizeof(src), po->source);	/* names a device */
		log_msg(LOG_WARNING, "%s: no eligible CPU among %s '%s'; left where it is",
			irq_tag(p->map, i, tag, sizeof(tag)), src, po->wanted);
	}
	return 0;
}

int planrun_apply_loop(const struct planrun_apply *a)
{
	for (int round = 0; round < PLANRUN_ROUNDS; round++) {
		bool replan = false;
		int r;

		if (round > 0) {
			/* "Before" is the placement the run found, not the
			 * one this round starts from: the IRQs written in the
			 * rounds before stand where they went by now, and a
			 * re-plan from there said before = after. */
			double *found = a->res->before;

			a->res->before = NULL;
			plan_result_release(a->res);
			r = plan_compute(a->topo, a->pi, a->nr, a->pol, a->res);
			if (r < 0) {
				free(found);
				return r;
			}
			free(a->res->before);
			a->res->before = found;
		}
		for (unsigned int i = 0; i < a->nr; i++) {
			struct plan_irq *pi = &a->pi[i];
			struct apply_result ar;
			int cpus[1 + PLAN_ALTS];

			if (!plan_moves(pi))
				continue;
			cpus[0] = pi->target;
			memcpy(cpus + 1, pi->alt, sizeof(pi->alt));
			a->write(a->ctx, pi->irq, cpus, 1 + PLAN_ALTS, &ar);
			switch (ar.outcome) {
			case APPLY_MOVED:
				a->out[i] = OUT_MOVED;
				pi->target = ar.cpu;
				pi->pinned = ar.cpu;
				pi->served = ar.cpu;
				continue;
			case APPLY_MANAGED:
				a->out[i] = OUT_MANAGED;
				break;
			case APPLY_GONE:
				a->out[i] = OUT_GONE;
				break;
			case APPLY_FAILED:
				a->out[i] = OUT_FAILED;
				if (a->refused)
					a->refused(a->ctx, i, pi, &ar);
				break;
			}
			pi->fixed = true;
			replan = true;
		}
		if (!replan)
			return 0;
	}
	return 0;
}

static const char *errno_name_note(int err)
{
	switch (err) {
	case EIO:
	case EPERM:
		return " (kernel-managed)";
	case ENOSPC:
		return " (no free interrupt vector)";
	case EINVAL:
		return " (CPU offline?)";
	case EMSGSIZE:
		return " (short write: the kernel took part of the cpulist)";
	default:
		return "";
	}
}

static void warn_refused(void *ctx, unsigned int i, const struct plan_irq *pi,
			 const struct apply_result *ar)
{
	char tag[DEVICE_NAME_MAX * 4 + 32];

	log_msg(LOG_WARNING, "%s: cannot set affinity to %d: %s%s, left at %s",
		irq_tag(ctx, i, tag, sizeof(tag)), pi->target, strerror(ar->err),
		errno_name_note(ar->err), ar->now);
}

/* apply_irq() but for its return, which the outcome says again. */
static void write_irq(void *ctx, unsigned int irq, const int *cpus,
		      unsigned int nr_cpus, struct apply_result *res)
{
	(void)ctx;
	apply_irq(irq, cpus, nr_cpus, res);
}

int planrun_apply(const struct topology *topo, const struct plan_policy *pol,
		  const struct device_map *map, struct plan_irq *pi,
		  enum report_outcome *out, unsigned int nr, struct plan_result *res,
		  bool dry_run)
{
	const struct planrun_apply a = {
		.topo = topo, .pol = pol, .pi = pi, .out = out, .nr = nr, .res = res,
		.write = write_irq, .refused = warn_refused, .ctx = (void *)map,
	};
	int r;

	if (dry_run) {
		for (unsigned int i = 0; i < nr; i++)
			if (out[i] == OUT_KEPT && plan_moves(&pi[i]))
				out[i] = OUT_WOULD_MOVE;
		return 0;
	}
	r = planrun_apply_loop(&a);
	if (r < 0)
		log_msg(LOG_ERR, "cannot re-plan: %s", strerror(-r));
	return r;
}
