// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_kubelet.c - the kubelet's CPU manager checkpoint through
 * kubelet_parse(), on machines of 1, 64 and CPU_ID_LIMIT CPU ids.
 * Whatever the input, a parse ends in 0 (or -ENOMEM); a file that is
 * read holds only CPUs of the machine and counts a container per entry
 * with CPUs at most; one that is not names why; only the static policy
 * gives CPUs away. */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "kubelet.h"

static void check(const uint8_t *data, size_t size, unsigned int nr_ids)
{
	struct kubelet_state k;
	int r = kubelet_parse((const char *)data, size, nr_ids, &k);

	fuzz_assert(r == 0 || r == -ENOMEM);
	if (r < 0)
		return;
	fuzz_assert(memchr(k.why, '\0', sizeof(k.why)));
	fuzz_assert(memchr(k.policy, '\0', sizeof(k.policy)));
	switch (k.status) {
	case KUBELET_READ:
		fuzz_assert(strcmp(k.policy, "static") == 0);
		fuzz_assert(k.exclusive);
		fuzz_assert(cpuset_last(k.exclusive) < (int)nr_ids);
		fuzz_assert((k.nr_containers == 0) == (cpuset_count(k.exclusive) == 0));
		/* every entry is at least its key's quote marks and a colon */
		fuzz_assert(k.nr_containers <= size / 4);
		break;
	case KUBELET_NOT_STATIC:
		fuzz_assert(strcmp(k.policy, "static") != 0);
		fuzz_assert(k.nr_containers == 0);
		break;
	case KUBELET_BAD:
		fuzz_assert(k.why[0]);
		fuzz_assert(!k.exclusive);
		break;
	default:
		fuzz_assert(!"a parse is never absent");
	}
	kubelet_release(&k);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check(data, size, 1);
	check(data, size, 64);
	check(data, size, CPU_ID_LIMIT);
	return 0;
}
