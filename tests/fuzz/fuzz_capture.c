// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_capture.c - the reader of --replay's capture, on any bytes:
 * capture_read_mem(), then every parser a replay runs on its members (the
 * snapshots, the /sys topology files and listings, irqbalance's files and
 * variables and the cpuset partitions, the costs file, all through the
 * replay source; the devices and /proc/irq files; the measurement). A
 * capture it
 * accepts holds only safe names within the bounds; one it refuses is an
 * error with a reason. Nothing may crash, leak or grow past the bounds. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "compat.h"
#include "costs.h"
#include "device.h"
#include "fuzz.h"
#include "replay.h"
#include "sample.h"
#include "source.h"
#include "topology.h"

static void members_ok(const struct capture *cap)
{
	size_t total = 0;

	fuzz_assert(cap->nr > 0 && cap->nr <= CAPTURE_MEMBERS_MAX);
	for (unsigned int i = 0; i < cap->nr; i++) {
		const char *n = cap->m[i].name;

		fuzz_assert(n[0] && n[0] != '/' && strlen(n) < CAPTURE_NAME_MAX);
		fuzz_assert(!strstr(n, "//") && strcmp(n, "..") != 0 &&
			    strncmp(n, "../", 3) != 0 && !strstr(n, "/../"));
		fuzz_assert(cap->m[i].len <= CAPTURE_MEMBER_MAX);
		total += cap->m[i].len;
	}
	fuzz_assert(total <= CAPTURE_TOTAL_MAX);
}

static void replay_members(struct capture *cap)
{
	struct source src = { .mode = SOURCE_REPLAY, .cap = cap };
	const struct capture_member *m;
	struct snapshot a = { 0 }, b = { 0 };
	struct topology *topo = NULL;
	struct device_map *map = NULL;
	struct measure_raw *raw = NULL;
	struct compat_bans bans = { 0 };
	static const char *const defaults[] = {
		"/etc/default/irqbalance", "/etc/sysconfig/irqbalance", NULL,
	};
	struct compat_sources cs = {
		.fs = &src, .getenv_fn = getenv, .defaults = defaults,
		.cgroup_isolated = "/sys/fs/cgroup/cpuset.cpus.isolated",
	};
	struct estimate_prior base, prior;
	char where[256], why[256], boot[64];
	unsigned int line = 0;
	double when;
	int r;

	r = topology_read_from(&src, "", NULL, &topo, where, sizeof(where));
	if (r == 0)
		fuzz_assert(topo->nr_ids > 0 && topo->nr_ids <= CPU_ID_LIMIT &&
			    cpuset_count(topo->online) > 0);
	m = capture_get(cap, REPLAY_MEASURE);
	if (m && m->data && replay_parse_measure(m->data, &raw, &line) == 0)
		fuzz_assert(raw->window > 0 && raw->nr_cpus <= CPU_ID_LIMIT);
	/* Through the replay source: the captured variables, never these. */
	fuzz_assert(compat_collect(&cs, &bans) == 0);
	for (unsigned int i = 0; i < bans.nr; i++)
		fuzz_assert(cpuset_count(bans.bans[i].cpus) > 0);
	fuzz_assert(bans.nr_warnings <= COMPAT_WARN_MAX);
	estimate_default_prior(&base);
	if (costs_boot_id_from(&src, boot, sizeof(boot)) == 0)
		(void)costs_load_from(&src, "/run/irqtune/costs", boot, 1e9, &base, &prior,
				      &when, why, sizeof(why));
	if (snapshot_take_from(&a, &src, "snapshot-1", NULL, NULL) == 0 &&
	    snapshot_take_from(&b, &src, "snapshot-2", NULL, NULL) == 0) {
		r = device_scan_from(b.intr, topo ? topo->nr_ids : 1, &src, &map, &line);
		if (r == 0) {
			fuzz_assert(map->nr_irqs == b.intr->nr_rows);
			for (unsigned int i = 0; i < map->nr_irqs; i++)
				fuzz_assert(map->irqs[i].group < (int)map->nr_groups);
		} else {
			fuzz_assert(r == -EINVAL || r == -ENOENT || r == -ENOMEM);
		}
	}
	device_map_free(map);
	snapshot_release(&a);
	snapshot_release(&b);
	compat_bans_release(&bans);
	measure_raw_free(raw);
	topology_free(topo);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[CAPTURE_WHY_MAX];
	struct capture *cap = NULL;
	int r;

	why[0] = '\0';
	r = capture_read_mem(data, size, &cap, why, sizeof(why));
	if (r < 0) {
		fuzz_assert(r == -EINVAL || r == -EFBIG || r == -EPROTONOSUPPORT ||
			    r == -ENOMEM);
		fuzz_assert(why[0] != '\0');
		fuzz_assert(!cap);
		return 0;
	}
	members_ok(cap);
	replay_members(cap);
	capture_free(cap);
	return 0;
}
