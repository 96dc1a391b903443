// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_softirqs.c - /proc/softirqs: softirqs_parse() on any bytes, alone
 * and after a /proc/stat parse into the same stats (how a snapshot is
 * taken). A failure leaves the stats as they were. */
#include <errno.h>
#include <string.h>

#include "cpuset.h"
#include "sample.h"
#include "fuzz.h"

static const char stat_text[] = "cpu0 1 2 3 4 5 6 7\ncpu2 1 2 3 4 5 6 7\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cpu_stats st = { 0 };
	unsigned int line = 0, old_ids;
	struct cpu_stat *copy;
	FILE *f;
	int r;

	f = fuzz_file(data, size);
	r = softirqs_parse(f, &st, &line);
	fclose(f);
	fuzz_assert(r == 0 || r == -EINVAL || r == -ENOMEM);
	if (r == 0) {
		fuzz_assert(st.nr_ids >= 1 && st.nr_ids <= CPU_ID_LIMIT);
		for (unsigned int i = 0; i < st.nr_ids; i++)
			fuzz_assert((st.cpu[i].seen & ~2u) == 0);
	} else {
		fuzz_assert(st.nr_ids == 0 && !st.cpu);
		fuzz_assert(r != -EINVAL || line >= 1);
	}
	cpu_stats_release(&st);

	f = fuzz_file((const uint8_t *)stat_text, sizeof(stat_text) - 1);
	fuzz_assert(stat_parse(f, &st, NULL) == 0);
	fclose(f);
	old_ids = st.nr_ids;
	copy = malloc(old_ids * sizeof(*copy));
	fuzz_assert(copy);
	memcpy(copy, st.cpu, old_ids * sizeof(*copy));
	f = fuzz_file(data, size);
	r = softirqs_parse(f, &st, NULL);
	fclose(f);
	if (r < 0) {
		fuzz_assert(st.nr_ids == old_ids);
		fuzz_assert(memcmp(copy, st.cpu, old_ids * sizeof(*copy)) == 0);
	} else {
		/* the /proc/stat half is kept */
		for (unsigned int i = 0; i < old_ids; i++)
			fuzz_assert((st.cpu[i].seen & 1) == (copy[i].seen & 1));
	}
	free(copy);
	cpu_stats_release(&st);
	return 0;
}
