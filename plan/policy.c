// SPDX-License-Identifier: GPL-2.0-or-later
/* policy.c - bans and allowed CPU sets per IRQ. An allowed set that leaves
 * no eligible CPU is flagged rather than widened: the site said "only
 * these", so the IRQ is left where it is and the caller says why. The
 * avoided CPUs (avoid-cpus, the kubelet's exclusive ones) are the
 * opposite: taken out only where something else is left. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "policy.h"

int policy_parse_bool(const char *s)
{
	static const char *const yes[] = { "1", "yes", "true", "on" };
	static const char *const no[] = { "0", "no", "false", "off", "" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		if (strcasecmp(s, yes[i]) == 0)
			return 1;
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (strcasecmp(s, no[i]) == 0)
			return 0;
	return -EINVAL;
}

/* @dst &= @src, up to dst->nbits. */
static void and_set(struct cpuset *dst, const struct cpuset *src)
{
	for (int cpu = cpuset_first(dst); cpu >= 0; cpu = cpuset_next(dst, cpu))
		if (!cpuset_test(src, (unsigned int)cpu))
			cpuset_clear(dst, (unsigned int)cpu);
}

static bool meets(const struct cpuset *a, const struct cpuset *b)
{
	for (int cpu = cpuset_first(a); cpu >= 0; cpu = cpuset_next(a, cpu))
		if (cpuset_test(b, (unsigned int)cpu))
			return true;
	return false;
}

static int build_groups(const struct device_map *map, struct policy *pol,
			unsigned int nr_ids)
{
	pol->groups = calloc(map->nr_groups ? map->nr_groups : 1, sizeof(*pol->groups));
	if (!pol->groups)
		return -ENOMEM;
	pol->nr_groups = map->nr_groups;
	for (unsigned int g = 0; g < map->nr_groups; g++) {
		const struct device_group *dg = &map->groups[g];
		struct policy_group *pg = &pol->groups[g];

		if (dg->policy_ban) {
			int b = policy_parse_bool(dg->policy_ban);

			pg->ban = b == 1;
			pg->ban_err = b < 0 ? b : 0;
		}
		if (dg->policy_cpus) {
			struct cpuset *set = cpuset_new(nr_ids);
			int r;

			if (!set)
				return -ENOMEM;
			r = cpulist_parse(dg->policy_cpus, set);
			if (r == 0 && cpuset_count(set) == 0)
				r = -EINVAL;	/* "nowhere" is no policy */
			if (r < 0) {
				pg->cpus_err = r;
				cpuset_free(set);
			} else {
				pg->cpus = set;
			}
		}
	}
	return 0;
}

/* The CPUs IRQ @i may use by its class's cpus, its device's IRQTUNE_CPUS
 * and its affinity hint: pi->allowed (NULL: any) and its source. 0 or
 * -ENOMEM. */
static int irq_allowed(const struct config *cfg, const struct topology *topo,
		       const struct device_map *map, struct policy *pol, unsigned int i)
{
	const struct irq_info *ii = &map->irqs[i];
	const struct policy_group *pg = ii->group >= 0 ? &pol->groups[ii->group] : NULL;
	struct policy_irq *pi = &pol->irqs[i];
	const struct cpuset *base = NULL;

	if (config_irq_banned(cfg, ii->irq, ii->name))
		pi->ban = BAN_LIST;
	else if (pg && pg->ban)
		pi->ban = BAN_UDEV;
	/* systemd-udevd sets these IRQs' affinity at link-up, when irqtune's
	 * own rule runs too: two owners would fight, the admin's wins. */
	else if (ii->group >= 0 && map->groups[ii->group].link_policy)
		pi->ban = BAN_LINK;
	if (pg && pg->cpus) {
		base = pg->cpus;
		snprintf(pi->source, sizeof(pi->source), "IRQTUNE_CPUS on %s",
			 map->groups[ii->group].cpus_from);
	} else if (cfg->class_cpus[ii->class]) {
		base = cfg->class_cpus[ii->class];
		snprintf(pi->source, sizeof(pi->source), "[%s] cpus",
			 irq_class_name(ii->class));
	}
	if (cfg->hint == CONFIG_HINT_FOLLOW && ii->hint) {
		struct cpuset *h = cpuset_dup(ii->hint);

		if (!h)
			return -ENOMEM;
		if (base)
			and_set(h, base);
		/* Followed only where it leaves somewhere to go. */
		if (meets(h, topo->eligible)) {
			pi->allowed = h;
			if (base)
				strncat(pi->source, " and affinity_hint",
					sizeof(pi->source) - strlen(pi->source) - 1);
			else
				snprintf(pi->source, sizeof(pi->source), "affinity_hint");
			return 0;
		}
		cpuset_free(h);
	}
	if (!base)
		return 0;
	pi->allowed = cpuset_new(topo->nr_ids);
	if (!pi->allowed)
		return -ENOMEM;
	cpuset_or(pi->allowed, base);
	pi->no_cpu = !meets(pi->allowed, topo->eligible);
	if (pi->no_cpu && cpulist_format(base, pi->wanted, sizeof(pi->wanted)) < 0)
		snprintf(pi->wanted, sizeof(pi->wanted), "(long list)");
	return 0;
}

/* avoid-cpus, a soft ban: @pi's CPUs without @avoid, where that leaves
 * an eligible CPU; else the avoided CPUs stay, as nothing else fits. A
 * node all of whose CPUs are avoided is left out as a banned one would
 * be: the planner spills an IRQ whose node has none of its allowed CPUs
 * over to the other nodes. 0 or -ENOMEM. */
static int avoid_cpus(struct policy_irq *pi, const struct cpuset *avoid,
		      const struct topology *topo)
{
	struct cpuset *set;

	if (pi->no_cpu || !meets(pi->allowed ? pi->allowed : topo->eligible, avoid))
		return 0;
	set = cpuset_new(topo->nr_ids);
	if (!set)
		return -ENOMEM;
	cpuset_or(set, pi->allowed ? pi->allowed : topo->eligible);
	cpuset_andnot(set, avoid);
	if (!meets(set, topo->eligible)) {
		cpuset_free(set);
		return 0;
	}
	cpuset_free(pi->allowed);
	pi->allowed = set;
	if (pi->source[0])
		strncat(pi->source, ", less avoid-cpus",
			sizeof(pi->source) - strlen(pi->source) - 1);
	else
		snprintf(pi->source, sizeof(pi->source), "avoid-cpus");
	return 0;
}

int policy_build(const struct config *cfg, const struct topology *topo,
		 const struct device_map *map, struct policy *ret)
{
	struct policy pol = { 0 };
	int r;

	r = build_groups(map, &pol, topo->nr_ids);
	if (r < 0)
		goto fail;
	pol.irqs = calloc(map->nr_irqs ? map->nr_irqs : 1, sizeof(*pol.irqs));
	if (!pol.irqs) {
		r = -ENOMEM;
		goto fail;
	}
	pol.nr_irqs = map->nr_irqs;
	for (unsigned int i = 0; i < map->nr_irqs; i++) {
		r = irq_allowed(cfg, topo, map, &pol, i);
		if (r == 0 && cfg->avoidcpus)
			r = avoid_cpus(&pol.irqs[i], cfg->avoidcpus, topo);
		if (r < 0)
			goto fail;
	}
	*ret = pol;
	return 0;
fail:
	policy_release(&pol);
	return r;
}

void policy_release(struct policy *pol)
{
	for (unsigned int i = 0; pol->irqs && i < pol->nr_irqs; i++)
		cpuset_free(pol->irqs[i].allowed);
	for (unsigned int g = 0; pol->groups && g < pol->nr_groups; g++)
		cpuset_free(pol->groups[g].cpus);
	free(pol->irqs);
	free(pol->groups);
	memset(pol, 0, sizeof(*pol));
}
