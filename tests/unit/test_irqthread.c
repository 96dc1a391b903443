/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_irqthread.c - the /proc reading of threaded IRQs' threads: the
 * stat and schedstat parsers on real lines, and the run time over a
 * window added to each IRQ's load. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "irqthread.h"

/* Lines as a Debian 6.1 PREEMPT_RT kernel writes them. */
static void test_parse_stat(void **state)
{
	char comm[32];
	unsigned long flags;

	(void)state;
	assert_int_equal(irqthread_parse_stat("312 (irq/42-nvme0q1) S 2 0 0 0 -1 2129984 0 0 0 0 "
					      "0 1234 0 0 -51 0 1 0 380 0 0 18446744073709551615",
					      comm, sizeof(comm), &flags), 0);
	assert_string_equal(comm, "irq/42-nvme0q1");
	assert_int_equal(flags, 2129984);	/* PF_KTHREAD | PF_NOFREEZE | ... */
	assert_true(flags & 0x00200000);
	/* A name with blanks and parentheses ends at the last ')'. */
	assert_int_equal(irqthread_parse_stat("77 (a) b (c)) R 1 77 77 34816 77 4194560 9",
					      comm, sizeof(comm), &flags), 0);
	assert_string_equal(comm, "a) b (c)");
	assert_int_equal(flags, 4194560);
	/* Cut to the room given. */
	assert_int_equal(irqthread_parse_stat("5 (irq/5-abcdefgh) S 2 0 0 0 -1 2129984",
					      comm, 8, &flags), 0);
	assert_string_equal(comm, "irq/5-a");
	assert_int_equal(irqthread_parse_stat("5 (x) S 2 0 0 0", comm, sizeof(comm), &flags),
			 -EINVAL);
	assert_int_equal(irqthread_parse_stat("5 x S 2 0 0 0 -1 1", comm, sizeof(comm), &flags),
			 -EINVAL);
	assert_int_equal(irqthread_parse_stat("5 (x) S 2 0 0 0 -1 12a", comm, sizeof(comm),
					      &flags), -EINVAL);
}

static void test_parse_schedstat(void **state)
{
	uint64_t ns;

	(void)state;
	assert_int_equal(irqthread_parse_schedstat("1523427843 30981 2891\n", &ns), 0);
	assert_int_equal(ns, 1523427843ull);
	assert_int_equal(irqthread_parse_schedstat("0 0 0", &ns), 0);
	assert_int_equal(ns, 0);
	assert_int_equal(irqthread_parse_schedstat("", &ns), -EINVAL);
	assert_int_equal(irqthread_parse_schedstat("-5 0 0", &ns), -EINVAL);
	assert_int_equal(irqthread_parse_schedstat("12x 0 0", &ns), -EINVAL);
}

static void test_parse_name(void **state)
{
	unsigned int irq = 0;

	(void)state;
	assert_int_equal(irqthread_parse_name("irq/42-nvme0q1", &irq), 0);
	assert_int_equal(irq, 42);
	assert_int_equal(irqthread_parse_name("irq/120-s-enp1s0-", &irq), 0);
	assert_int_equal(irq, 120);
	assert_int_equal(irqthread_parse_name("kworker/0:1", &irq), -EINVAL);
	assert_int_equal(irqthread_parse_name("irq/x-1", &irq), -EINVAL);
}

/* Two threads of IRQ 42 (primary, secondary), one of 43; one of 44, which
 * is not in /proc/interrupts; one of 45 seen only at the start; one whose
 * PID was reused by a younger thread (less run time at the end). */
static void test_apply(void **state)
{
	struct irqthread t[] = {
		{ 10, 42, { 1000000000, 1100000000 }, { true, true } },
		{ 11, 42, { 0, 50000000 }, { true, true } },
		{ 12, 43, { 5, 5 }, { true, true } },
		{ 13, 44, { 0, 900000000 }, { true, true } },
		{ 14, 45, { 0, 0 }, { true, false } },
		{ 15, 46, { 500, 100 }, { true, true } },
	};
	struct irqthreads th = { .nr = 6, .cap = 6, .t = t };
	struct irq_row rows[] = { { .irq = 41 }, { .irq = 42 }, { .irq = 43 },
				  { .irq = 45 }, { .irq = 46 } };
	struct interrupts intr = { .nr_rows = 5, .rows = rows };
	struct irq_activity act[5] = { { .irq = 41, .load = 0.01 }, { .irq = 42, .load = 0.02 },
				       { .irq = 43 }, { .irq = 45 }, { .irq = 46 } };

	(void)state;
	irqthread_apply(&th, &intr, 2.0, true, act);
	assert_false(act[0].threaded);
	assert_float_equal(act[0].load, 0.01, 1e-12);
	assert_true(act[1].threaded);
	assert_float_equal(act[1].thread, 0.075, 1e-12);	/* 150 ms over 2 s */
	assert_float_equal(act[1].load, 0.095, 1e-12);
	assert_true(act[2].threaded);
	assert_float_equal(act[2].thread, 0, 1e-12);
	assert_true(act[3].threaded);
	assert_float_equal(act[3].thread, 0, 1e-12);
	assert_true(act[4].threaded);
	assert_float_equal(act[4].thread, 0, 1e-12);

	/* Marking only: the measured source times the threads itself. */
	memset(act, 0, sizeof(act));
	irqthread_apply(&th, &intr, 2.0, false, act);
	assert_true(act[1].threaded);
	assert_float_equal(act[1].thread, 0, 1e-12);
	assert_float_equal(act[1].load, 0, 1e-12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_stat),
		cmocka_unit_test(test_parse_schedstat),
		cmocka_unit_test(test_parse_name),
		cmocka_unit_test(test_apply),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
