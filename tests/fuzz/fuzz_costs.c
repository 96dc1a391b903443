// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_costs.c - costs_parse(), the reader of /run/irqtune/costs, on any
 * text. A file it accepts gives only sane costs and a time in range; one it
 * refuses is -EINVAL or -ESTALE with a reason. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "costs.h"
#include "fuzz.h"

#define BOOT "9a17a830-db8b-47e3-8c6d-cceade8bb582"
#define NOW 1796348475.0

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char text[COSTS_FILE_MAX + 1], why[256];
	struct estimate_prior base, got;
	double when = -1;
	int r;

	if (size > COSTS_FILE_MAX)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';	/* costs_load() refuses NULs before parsing */
	estimate_default_prior(&base);
	why[0] = '\0';
	r = costs_parse(text, BOOT, NOW, &base, &got, &when, why, sizeof(why));
	if (r == 0) {
		for (int k = 0; k < CLASS_NR; k++)
			fuzz_assert(isfinite(got.hard_us[k]) && got.hard_us[k] > 0 &&
				    got.hard_us[k] <= 100000);
		for (int v = 0; v < SOFTIRQ_NR; v++)
			fuzz_assert(isfinite(got.soft_us[v]) && got.soft_us[v] > 0 &&
				    got.soft_us[v] <= 100000);
		fuzz_assert(when >= NOW - COSTS_MAX_AGE && when <= NOW + 60);
	} else {
		fuzz_assert(r == -EINVAL || r == -ESTALE);
		fuzz_assert(why[0] != '\0');
	}
	return 0;
}
