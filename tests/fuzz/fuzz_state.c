// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_state.c - state_parse(), the reader of /run/irqtune/state, on any
 * text. A history it accepts holds only sane loads, IRQs in ascending
 * order, keys that fit; one it refuses is -EINVAL or -ESTALE with a
 * reason. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "state.h"
#include "fuzz.h"

#define BOOT "9a17a830-db8b-47e3-8c6d-cceade8bb582"
#define NOW 1796348475.0

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct state *st = NULL;
	char *text, why[256];
	int r;

	if (size > (1u << 20))
		return 0;
	text = malloc(size + 1);
	fuzz_assert(text != NULL);
	memcpy(text, data, size);
	text[size] = '\0';	/* state_load() refuses NULs before parsing */
	why[0] = '\0';
	r = state_parse(text, BOOT, NOW, &st, why, sizeof(why));
	if (r == 0) {
		fuzz_assert(st->nr <= STATE_MAX_IRQS);
		for (unsigned int i = 0; i < st->nr; i++) {
			const struct state_irq *q = &st->irqs[i];

			fuzz_assert(isfinite(q->mean) && q->mean >= 0 && isfinite(q->var) &&
				    q->var >= 0 && q->runs > 0);
			fuzz_assert(i == 0 || q->irq > st->irqs[i - 1].irq);
			fuzz_assert(strlen(q->device) < STATE_KEY_MAX &&
				    strlen(q->name) < STATE_KEY_MAX);
		}
		/* application lines: CPU ids ascending, below appcpus */
		fuzz_assert(st->nr_app <= st->nr_app_ids);
		for (unsigned int i = 0; i < st->nr_app; i++) {
			const struct state_irq *q = &st->app[i];

			fuzz_assert(q->irq < st->nr_app_ids && isfinite(q->mean) && q->mean >= 0 &&
				    q->runs > 0 && state_sane_load(q->cpu_irq));
			fuzz_assert(i == 0 || q->irq > st->app[i - 1].irq);
		}
		/* refused IRQs: ascending, a release each; an aged state
		 * holds nothing else */
		fuzz_assert(st->nr_refused <= STATE_MAX_REFUSED);
		for (unsigned int i = 0; i < st->nr_refused; i++)
			fuzz_assert(st->refused[i].release[0] &&
				    (i == 0 || st->refused[i].irq > st->refused[i - 1].irq));
		fuzz_assert(!st->aged || (st->nr == 0 && st->nr_app == 0 && st->nr_refused > 0 &&
					  !st->snap && !st->fit));
		state_free(st);
	} else {
		fuzz_assert(r == -EINVAL || r == -ESTALE || r == -ENOMEM);
		fuzz_assert(st == NULL && why[0] != '\0');
	}
	free(text);
	return 0;
}
