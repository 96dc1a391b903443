// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_interrupts.c - /proc/interrupts: interrupts_parse() on any bytes.
 * It must return 0 with a result that keeps every invariant the rest of
 * irqtune relies on, or an error (-EINVAL with a line inside the file). */
#include <errno.h>
#include <string.h>

#include "cpuset.h"
#include "sample.h"
#include "fuzz.h"

static unsigned int count_lines(const uint8_t *data, size_t size)
{
	unsigned int n = 1;

	for (size_t i = 0; i < size; i++)
		n += data[i] == '\n';
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct interrupts *intr = NULL;
	unsigned int line = 0, i, j;
	FILE *f = fuzz_file(data, size);
	int r = interrupts_parse(f, &intr, &line);

	fclose(f);
	if (r < 0) {
		fuzz_assert(r == -EINVAL || r == -ENOMEM);
		fuzz_assert(!intr);
		/* the line named is one of the file's, or the missing
		 * header after its end */
		if (r == -EINVAL)
			fuzz_assert(line >= 1 && line <= count_lines(data, size) + 1);
		return 0;
	}
	fuzz_assert(r == 0 && intr);
	fuzz_assert(intr->nr_cols >= 1 && intr->nr_cols <= CPU_ID_LIMIT);
	for (j = 0; j < intr->nr_cols; j++) {
		fuzz_assert(intr->col_cpu[j] < CPU_ID_LIMIT);
		fuzz_assert(j == 0 || intr->col_cpu[j] > intr->col_cpu[j - 1]);
	}
	for (i = 0; i < intr->nr_rows; i++) {
		const struct irq_row *row = &intr->rows[i];
		uint64_t sum = 0;
		size_t dl, nl;

		fuzz_assert(row->irq <= IRQ_NUM_LIMIT);
		fuzz_assert(i == 0 || row->irq > intr->rows[i - 1].irq);
		fuzz_assert(row->nr_counts <= intr->nr_cols);
		for (j = 0; j < row->nr_counts; j++) {
			unsigned int k;

			fuzz_assert(row->counts[j].count != 0);
			fuzz_assert(j == 0 ||
				    row->counts[j].cpu > row->counts[j - 1].cpu);
			for (k = 0; k < intr->nr_cols; k++)
				if (intr->col_cpu[k] == row->counts[j].cpu)
					break;
			fuzz_assert(k < intr->nr_cols);
			fuzz_assert(!__builtin_add_overflow(sum,
					row->counts[j].count, &sum));
		}
		fuzz_assert(row->total == sum);
		fuzz_assert(row->desc && row->name);
		dl = strlen(row->desc);
		nl = strlen(row->name);
		fuzz_assert(nl <= dl);
		fuzz_assert(strcmp(row->desc + dl - nl, row->name) == 0);
		fuzz_assert(!strchr(row->desc, '\n'));
		fuzz_assert(interrupts_find(intr, row->irq) == row);
	}
	interrupts_free(intr);
	return 0;
}
