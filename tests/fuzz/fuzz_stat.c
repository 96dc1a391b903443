// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_stat.c - /proc/stat: stat_parse() on any bytes, into fresh stats
 * and into stats that already hold a parse (irqtune reuses them). A
 * failure must leave the stats as they were. */
#include <errno.h>
#include <string.h>

#include "cpuset.h"
#include "sample.h"
#include "fuzz.h"

static const char prior[] = "cpu0 1 2 3 4 5 6 7\ncpu3 1 2 3 4 5 6 7\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cpu_stats fresh = { 0 }, used = { 0 };
	unsigned int line = 0;
	struct cpu_stat *copy;
	unsigned int old_ids;
	FILE *f;
	int r;

	f = fuzz_file(data, size);
	r = stat_parse(f, &fresh, &line);
	fclose(f);
	fuzz_assert(r == 0 || r == -EINVAL || r == -ENOMEM);
	if (r == 0) {
		fuzz_assert(fresh.nr_ids <= CPU_ID_LIMIT);
		for (unsigned int i = 0; i < fresh.nr_ids; i++)
			fuzz_assert((fresh.cpu[i].seen & ~1u) == 0);
	} else {
		fuzz_assert(fresh.nr_ids == 0 && !fresh.cpu);
		fuzz_assert(r != -EINVAL || line >= 1);
	}
	cpu_stats_release(&fresh);

	f = fuzz_file((const uint8_t *)prior, sizeof(prior) - 1);
	fuzz_assert(stat_parse(f, &used, NULL) == 0);
	fclose(f);
	old_ids = used.nr_ids;
	copy = malloc(old_ids * sizeof(*copy));
	fuzz_assert(copy);
	memcpy(copy, used.cpu, old_ids * sizeof(*copy));
	f = fuzz_file(data, size);
	r = stat_parse(f, &used, NULL);
	fclose(f);
	if (r < 0) {
		fuzz_assert(used.nr_ids == old_ids);
		fuzz_assert(memcmp(copy, used.cpu, old_ids * sizeof(*copy)) == 0);
	} else {
		fuzz_assert(used.nr_ids >= old_ids && used.nr_ids <= CPU_ID_LIMIT);
	}
	free(copy);
	cpu_stats_release(&used);
	return 0;
}
