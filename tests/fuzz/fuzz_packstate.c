// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_packstate.c - packstate_parse(), the reader of /run/irqtune/pack,
 * on any text. A pool it accepts has every node it names, counters within
 * bounds, and formats back to text that parses the same; one it refuses
 * is -EINVAL or -ESTALE with a reason, and nothing half-made. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "packstate.h"
#include "fuzz.h"

#define BOOT "9a17a830-db8b-47e3-8c6d-cceade8bb582"
#define NOW 1796348475.0

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pack_state st = { 0 }, again = { 0 };
	char *text, *out, why[256];
	int r;

	if (size > (1u << 20))
		return 0;
	text = malloc(size + 1);
	fuzz_assert(text != NULL);
	memcpy(text, data, size);
	text[size] = '\0';	/* read_own_file() refuses NULs before parsing */
	why[0] = '\0';
	r = packstate_parse(text, BOOT, NOW, &st, why, sizeof(why));
	if (r == 0) {
		fuzz_assert(st.nr_nodes > 0 && st.nr_nodes <= PACK_MAX_NODES);
		for (unsigned int d = 0; d < st.nr_nodes; d++)
			fuzz_assert(st.nodes[d].under <= PACK_SHRINK_RUNS);
		fuzz_assert(packstate_format(&st, BOOT, NOW, &out) == 0);
		fuzz_assert(packstate_parse(out, BOOT, NOW, &again, why, sizeof(why)) == 0);
		fuzz_assert(again.nr_nodes == st.nr_nodes);
		for (unsigned int d = 0; d < st.nr_nodes; d++) {
			const struct pack_node *a = &st.nodes[d], *b = &again.nodes[d];

			fuzz_assert(a->cores == b->cores && a->under == b->under);
			fuzz_assert((a->cpus && cpuset_count(a->cpus)) == (b->cpus != NULL));
		}
		free(out);
		pack_state_release(&again);
		pack_state_release(&st);
	} else {
		fuzz_assert(r == -EINVAL || r == -ESTALE || r == -ENOMEM);
		fuzz_assert(st.nr_nodes == 0 && st.nodes == NULL && why[0] != '\0');
	}
	free(text);
	return 0;
}
