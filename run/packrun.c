// SPDX-License-Identifier: GPL-2.0-or-later
/* packrun.c - placement = pack between the history and the planner: the
 * last pool read, this run's made and narrowed to, and kept. A pack file
 * that cannot be read or kept is named once, and the run goes on sizing
 * its pool from its own load. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "loadstep.h"
#include "log.h"
#include "packrun.h"
#include "packstate.h"
#include "pathnames.h"

void packrun_release(struct packrun *pr)
{
	pack_result_release(&pr->res);
	memset(pr, 0, sizeof(*pr));
}

static double realtime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The last run's pool, if it left one this run may trust. */
static void read_prev(struct packrun *pr, const char *boot, double now, struct pack_state *prev)
{
	char why[256];
	int r;

	r = packstate_load(pr->path, boot, now, prev, why, sizeof(why));
	if (r < 0 && r != -ENOENT && r != -ESTALE)
		log_msg(LOG_WARNING, "%s: %s; sizing the IRQ pool from this run alone",
			pr->path, why);
}

/* What the pool is, for the log: "0-1,32-33 (node 0: 2 cores, 0.81 CPUs
 * of IRQ load, 2 needed)". */
static void say_pool(const struct packrun *pr, double target)
{
	const struct pack_result *res = &pr->res;
	char pool[256], line[1024];
	size_t l;

	if (cpulist_format(res->pool, pool, sizeof(pool)) < 0)
		snprintf(pool, sizeof(pool), "(%u CPUs)", cpuset_count(res->pool));
	l = (size_t)snprintf(line, sizeof(line), "pack: IRQ pool %s, each CPU under %.0f%%:",
			     pool, target * 100);
	for (unsigned int d = 0; d < res->state.nr_nodes && l < sizeof(line); d++)
		if (res->state.nodes[d].cores)
			l += (size_t)snprintf(line + l, sizeof(line) - l,
					      " node %u %u cores (%u needed for %.2f CPUs)", d,
					      res->state.nodes[d].cores, res->need[d], res->busy[d]);
	log_event(LOG_INFO, "%s; %u IRQs narrowed to it, %u kept to their own CPUs", line,
		  res->nr_narrowed, res->nr_kept);
}

int packrun_step(struct packrun *pr, const struct config *cfg, const struct topology *topo,
		 const struct plan_policy *pol, const struct loadstep *ls, bool dry_run,
		 struct plan_irq *pi, unsigned int nr)
{
	struct pack_state prev = { 0 };
	struct pack_input in = {
		.topo = topo, .app = pol->app, .irqs = pi, .nr = nr, .idle_load = pol->idle_load,
		.target = cfg->pack_target > 0 ? cfg->pack_target : PACK_DEFAULT_TARGET,
	};
	double now = realtime();
	int r;

	if (cfg->placement != CONFIG_PLACEMENT_PACK)
		return 0;
	/* Kept with the load history, under the same rules: a capture, a
	 * replay, --no-state or a /proc not the kernel's keep none. */
	if (ls->hist.on)
		snprintf(pr->path, sizeof(pr->path), "%s/pack",
			 cfg->state_dir ? cfg->state_dir : _PATH_RUN_DIR);
	if (pr->path[0]) {
		read_prev(pr, ls->boot, now, &prev);
		in.prev = prev.nr_nodes ? &prev : NULL;
	}
	r = pack_compute(&in, &pr->res);
	pack_state_release(&prev);
	if (r == -ENOSPC)
		return 0;	/* no CPU for IRQs: the planner says so */
	if (r == 0)
		r = pack_narrow(&pr->res, pi, nr);
	if (r < 0) {
		log_msg(LOG_ERR, "cannot make the IRQ pool: %s", strerror(-r));
		return r;
	}
	pr->on = true;
	say_pool(pr, in.target);
	if (!pr->path[0] || dry_run)
		return 0;
	r = packstate_save(pr->path, &pr->res.state, ls->boot, now);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		log_msg(LOG_WARNING, "cannot keep the IRQ pool in %s: %s%s", pr->path,
			strerror(-r), r == -ELOOP || r == -EPERM ?
			" (not a file or directory of ours: refusing it)" : "");
	return 0;
}
