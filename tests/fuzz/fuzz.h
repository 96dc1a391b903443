/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz.h - shared by the fuzz targets: the libFuzzer entry point, and a
 * check that aborts (so libFuzzer and the standalone driver both report it
 * as a crash with the input that caused it). */
#ifndef IRQTUNE_FUZZ_H
#define IRQTUNE_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define fuzz_assert(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: invariant failed: %s\n",	\
			__FILE__, __LINE__, #cond);			\
		abort();						\
	}								\
} while (0)

/* A FILE reading @size bytes of @data; never NULL (an empty input reads
 * as /dev/null, since fmemopen() refuses a zero size). */
static inline FILE *fuzz_file(const uint8_t *data, size_t size)
{
	FILE *f = size ? fmemopen((void *)data, size, "r") :
			 fopen("/dev/null", "re");

	fuzz_assert(f);
	return f;
}

#endif
