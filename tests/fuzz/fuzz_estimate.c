// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_estimate.c - estimate_proc() on two snapshots parsed from any
 * bytes: whatever the parsers accept, the estimate must not crash, and
 * every number it hands the planner must be finite and not negative.
 * Input: NUL-separated sections
 *	interrupts A, stat A, softirqs A, interrupts B, stat B, softirqs B,
 *	then a tail whose bytes give the window, USER_HZ and IRQ classes.
 * A missing or unparsable /proc/stat or /proc/softirqs section is left
 * out (the snapshot then has no such data, as on old kernels). */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "estimate.h"
#include "sample.h"
#include "fuzz.h"

#define SECTIONS 7

static int snap(struct snapshot *s, const uint8_t **sec, const size_t *len)
{
	FILE *f;
	int r;

	memset(s, 0, sizeof(*s));
	f = fuzz_file(sec[0], len[0]);
	r = interrupts_parse(f, &s->intr, NULL);
	fclose(f);
	if (r < 0)
		return r;
	f = fuzz_file(sec[1], len[1]);
	if (stat_parse(f, &s->stats, NULL) < 0)
		cpu_stats_release(&s->stats);
	fclose(f);
	f = fuzz_file(sec[2], len[2]);
	softirqs_parse(f, &s->stats, NULL);	/* failure leaves it as is */
	fclose(f);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *sec[SECTIONS];
	size_t len[SECTIONS], k = 0, start = 0;
	struct snapshot a, b;
	struct irq_activity *act = NULL;
	enum irq_class *class;
	const uint8_t *tail;
	size_t tail_len;
	double dt;
	long hz;
	int r;

	for (size_t i = 0; i <= size && k < SECTIONS - 1; i++) {
		if (i == size || data[i] == '\0') {
			sec[k] = data + start;
			len[k++] = i - start;
			start = i + 1;
		}
	}
	while (k < SECTIONS - 1) {
		sec[k] = data;
		len[k++] = 0;
	}
	sec[k] = start < size ? data + start : data;
	len[k] = start < size ? size - start : 0;
	tail = sec[SECTIONS - 1];
	tail_len = len[SECTIONS - 1];

	if (snap(&a, sec, len) < 0)
		return 0;
	if (snap(&b, sec + 3, len + 3) < 0) {
		snapshot_release(&a);
		return 0;
	}
	/* the window: 1 ms .. 65 s, or the extremes a real run can measure:
	 * two reads of /proc microseconds apart, or a clock far away */
	dt = tail_len > 1 ? (double)(tail[0] | tail[1] << 8) / 1000.0 : 1.0;
	if (tail_len > 2 && tail[2] == 0xff)
		dt = 1e-6;
	if (tail_len > 2 && tail[2] == 0xfe)
		dt = 1e300;
	hz = tail_len > 3 ? tail[3] : 100;
	a.when = 1000.0;
	b.when = 1000.0 + dt;
	class = calloc(b.intr->nr_rows ? b.intr->nr_rows : 1, sizeof(*class));
	fuzz_assert(class);
	for (unsigned int i = 0; i < b.intr->nr_rows; i++)
		class[i] = (enum irq_class)(tail_len > 4 + i % 64 ?
					    tail[4 + i % 64] % CLASS_NR : CLASS_OTHER);
	r = estimate_proc(&a, &b, class, hz, NULL, &act);
	if (r < 0) {
		fuzz_assert(r == -EINVAL || r == -ENOMEM);
		fuzz_assert(r != -EINVAL || hz <= 0 || !(b.when - a.when > 0));
	} else {
		for (unsigned int i = 0; i < b.intr->nr_rows; i++) {
			const struct irq_activity *x = &act[i];

			fuzz_assert(x->irq == b.intr->rows[i].irq);
			fuzz_assert(isfinite(x->rate) && x->rate >= 0);
			fuzz_assert(isfinite(x->load) && x->load >= 0);
			fuzz_assert(isfinite(x->hard) && x->hard >= 0);
			fuzz_assert(isfinite(x->soft) && x->soft >= 0);
			fuzz_assert(x->top_cpu >= -1);
			fuzz_assert((x->top_cpu < 0) == (x->delta == 0));
		}
	}
	free(act);
	free(class);
	snapshot_release(&a);
	snapshot_release(&b);
	return 0;
}
