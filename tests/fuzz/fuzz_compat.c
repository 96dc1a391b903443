// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_compat.c - irqbalance's environment files through
 * compat_envfile_parse(), and the same bytes as the value of each of its
 * two settings (compat_add_value()). Whatever the input, a parse ends in 0
 * (or -ENOMEM), every ban is a non-empty set within CPU_ID_LIMIT with a
 * source naming a line of the file, every warning names the file, and no
 * more warnings are kept than COMPAT_WARN_MAX. */
#include <errno.h>
#include <string.h>

#include "compat.h"
#include "fuzz.h"

static unsigned int count_lines(const uint8_t *data, size_t size)
{
	unsigned int n = 1;

	for (size_t i = 0; i < size; i++)
		n += data[i] == '\n';
	return n;
}

static void check_bans(const struct compat_bans *b)
{
	fuzz_assert(b->nr_warnings <= COMPAT_WARN_MAX);
	for (unsigned int i = 0; i < b->nr; i++) {
		fuzz_assert(cpuset_count(b->bans[i].cpus) > 0);
		fuzz_assert(cpuset_last(b->bans[i].cpus) < CPU_ID_LIMIT);
		fuzz_assert(b->bans[i].cpulist[0]);
		fuzz_assert(memchr(b->bans[i].source, '\0', sizeof(b->bans[i].source)));
	}
	for (unsigned int i = 0; i < b->nr_warnings; i++)
		fuzz_assert(memchr(b->warnings[i], '\0', COMPAT_MSG_MAX));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct compat_bans b = { 0 };
	FILE *f = fuzz_file(data, size);
	unsigned int lines = count_lines(data, size);
	char *value;
	int r;

	r = compat_envfile_parse(f, "fuzz", &b);
	fclose(f);
	fuzz_assert(r == 0 || r == -ENOMEM);
	check_bans(&b);
	fuzz_assert(b.nr <= 2);
	for (unsigned int i = 0; i < b.nr; i++) {
		const char *colon = strrchr(b.bans[i].source, ':');
		unsigned long line = colon ? strtoul(colon + 1, NULL, 10) : 0;

		fuzz_assert(line >= 1 && line <= lines);
	}
	for (unsigned int i = 0; i < b.nr_warnings; i++)
		fuzz_assert(strncmp(b.warnings[i], "fuzz:", 5) == 0);
	compat_bans_release(&b);

	/* the same bytes as the value of each setting (NUL-terminated) */
	value = malloc(size + 1);
	fuzz_assert(value);
	memcpy(value, data, size);
	value[size] = '\0';
	r = compat_add_value(&b, COMPAT_KEY_CPULIST, value, "the environment", 0);
	fuzz_assert(r == 0 || r == -ENOMEM);
	r = compat_add_value(&b, COMPAT_KEY_CPUMASK, value, "the environment", 0);
	fuzz_assert(r == 0 || r == -ENOMEM);
	check_bans(&b);
	fuzz_assert(b.nr + b.nr_warnings <= 2);
	compat_bans_release(&b);
	free(value);
	return 0;
}
