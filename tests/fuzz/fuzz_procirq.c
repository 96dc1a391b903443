// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_procirq.c - the values of /proc/irq/N and sysfs attributes as
 * device.c reads them: read_small_file() into a small buffer, then
 * parse_int() (node), parse_u64() (msi_irqs entries, irq) and
 * cpulist_parse() (smp_affinity_list, effective_affinity_list).
 * Input: byte 0 picks the buffer size, the rest is the file. */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cpuset.h"
#include "fileio.h"
#include "sample.h"
#include "fuzz.h"
#include "strutil.h"

static int memfd = -1;
static char path[64];

static void put(const uint8_t *data, size_t size)
{
	if (memfd < 0) {
		memfd = memfd_create("procirq", MFD_CLOEXEC);
		fuzz_assert(memfd >= 0);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	}
	fuzz_assert(ftruncate(memfd, 0) == 0);
	fuzz_assert(pwrite(memfd, data, size, 0) == (ssize_t)size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* device.c reads node into 32 bytes, lists into 4096 */
	static const size_t sizes[] = { 1, 2, 8, 32, 64, 4096 };
	char buf[4096 + 1], guard[sizeof(buf)];
	size_t len;
	long n;
	uint64_t u;
	int v, r;
	struct cpuset *set;

	if (size < 1)
		return 0;
	len = sizes[data[0] % (sizeof(sizes) / sizeof(sizes[0]))];
	put(data + 1, size - 1);
	memset(buf, 0x5a, sizeof(buf));
	memset(guard, 0x5a, sizeof(guard));
	n = read_small_file(path, buf, len);
	/* nothing is written past @len */
	fuzz_assert(memcmp(buf + len, guard + len, sizeof(buf) - len) == 0);
	if (n < 0) {
		fuzz_assert(n == -EFBIG);
		fuzz_assert(size - 1 >= len);
		return 0;
	}
	fuzz_assert((size_t)n < len && strlen(buf) <= (size_t)n);

	r = parse_int(buf, -1, 65535, &v);
	fuzz_assert(r == 0 || r == -EINVAL || r == -ERANGE);
	if (r == 0)
		fuzz_assert(v >= -1 && v <= 65535);
	r = parse_int(buf, INT_MIN, INT_MAX, &v);
	fuzz_assert(r == 0 || r == -EINVAL || r == -ERANGE);
	r = parse_u64(buf, IRQ_NUM_LIMIT, &u);
	fuzz_assert(r == 0 || r == -EINVAL || r == -ERANGE);
	if (r == 0)
		fuzz_assert(u <= IRQ_NUM_LIMIT);
	r = parse_u64(buf, UINT64_MAX, &u);
	fuzz_assert(r == 0 || r == -EINVAL || r == -ERANGE);

	set = cpuset_new(CPU_ID_LIMIT);
	fuzz_assert(set);
	r = cpulist_parse(buf, set);
	fuzz_assert(r == 0 || r == -EINVAL || r == -ERANGE);
	cpuset_free(set);
	return 0;
}
