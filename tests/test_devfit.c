/* test_devfit.c - per-device multipliers fitted across windows: one window
 * in which two devices share every CPU in the same proportions tells
 * nothing (both stay at 1); a second, after a placement moved them, tells
 * them apart; timer time on every CPU goes to the base, not the devices. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "devfit.h"

static const unsigned int both[2] = { 0, 1 };

/* A CPU serving @ra interrupts/s of device 0 and @rb of device 1 whose
 * true costs are 1.3 and 0.7 of the class's (cost 10 us): its time. */
static void cpu(struct devfit *f, enum devfit_kind k, double ra, double rb, double base)
{
	double x[2] = { ra * 10, rb * 10 };

	devfit_add(f, k, both, x, 2, ra * 10 * 1.3 + rb * 10 * 0.7 + base);
}

static void test_one_window_tells_nothing(void **state)
{
	struct devfit *f = devfit_new(2);
	double m[2];

	(void)state;
	assert_non_null(f);
	/* every CPU has them 2:1 */
	cpu(f, DEVFIT_SOFT, 2000, 1000, 0);
	cpu(f, DEVFIT_SOFT, 4000, 2000, 0);
	devfit_solve(f, DEVFIT_SOFT, m);
	/* the data says only that the weighted mean is right: 2*1.3+0.7 = 3.3 */
	assert_true(fabs((2 * m[0] + m[1]) / 3 - 1.1) < 0.02);
	assert_true(fabs(m[0] - m[1]) < 0.2);
	devfit_free(f);
}

static void test_two_placements_tell(void **state)
{
	struct devfit *f = devfit_new(2);
	double m[2];

	(void)state;
	cpu(f, DEVFIT_SOFT, 2000, 1000, 0);
	cpu(f, DEVFIT_SOFT, 4000, 2000, 0);
	devfit_decay(f, 0.84);
	/* after a placement: each device on a CPU of its own */
	cpu(f, DEVFIT_SOFT, 3000, 0, 0);
	cpu(f, DEVFIT_SOFT, 0, 3000, 0);
	devfit_solve(f, DEVFIT_SOFT, m);
	/* near the truth; the pull towards 1 keeps them a little short */
	if (!(fabs(m[0] - 1.3) < 0.1 && fabs(m[1] - 0.7) < 0.1))
		fail_msg("m = %g %g, want 1.3 0.7", m[0], m[1]);
	devfit_free(f);
}

static void test_base_takes_timer_time(void **state)
{
	struct devfit *f = devfit_new(2);
	double m[2];

	(void)state;
	/* 500 us/s of timer and IPI time on every CPU */
	cpu(f, DEVFIT_HARD, 3000, 0, 500);
	cpu(f, DEVFIT_HARD, 0, 3000, 500);
	cpu(f, DEVFIT_HARD, 1500, 1500, 500);
	cpu(f, DEVFIT_HARD, 100, 200, 500);
	devfit_solve(f, DEVFIT_HARD, m);
	if (!(fabs(m[0] - 1.3) < 0.1 && fabs(m[1] - 0.7) < 0.1))
		fail_msg("m = %g %g, want 1.3 0.7", m[0], m[1]);
	devfit_free(f);
}

static void test_bounds(void **state)
{
	struct devfit *f = devfit_new(3);
	double m[3], x[1] = { 1000 };
	unsigned int d0 = 0;

	(void)state;
	/* device 0 claims 50 times its class's cost: held at the bound */
	devfit_add(f, DEVFIT_SOFT, &d0, x, 1, 50000);
	devfit_solve(f, DEVFIT_SOFT, m);
	assert_true(m[0] == DEVFIT_MAX_M);
	/* devices the equations never named keep the class's cost */
	assert_true(m[1] == 1 && m[2] == 1);
	/* no equations at all: all 1 */
	devfit_solve(f, DEVFIT_HARD, m);
	assert_true(m[0] == 1 && m[1] == 1 && m[2] == 1);
	/* a NaN equation is not taken */
	devfit_add(f, DEVFIT_HARD, &d0, x, 1, NAN);
	assert_true(f->rows[DEVFIT_HARD] == 0);
	/* softirqs per interrupt: 0 is an answer, not a bound to stop at */
	devfit_add(f, DEVFIT_SOFT, &d0, x, 1, 0);
	devfit_add(f, DEVFIT_SOFT, &d0, x, 1, 0);
	devfit_solve_in(f, DEVFIT_SOFT, 0.01, 0, 64, m);
	assert_true(m[0] >= 0 && m[0] < 64);
	devfit_solve(f, DEVFIT_SOFT, m);
	assert_true(m[0] >= DEVFIT_MIN_M);
	devfit_free(f);
	f = devfit_new(1);
	devfit_add(f, DEVFIT_SOFT, &d0, x, 1, 0);
	devfit_solve_in(f, DEVFIT_SOFT, 0.01, 0, 64, m);
	assert_true(m[0] < 0.02);
	devfit_solve(f, DEVFIT_SOFT, m);
	assert_true(m[0] == DEVFIT_MIN_M);
	devfit_free(f);
	assert_null(devfit_new(DEVFIT_MAX + 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_window_tells_nothing),
		cmocka_unit_test(test_two_placements_tell),
		cmocka_unit_test(test_base_takes_timer_time),
		cmocka_unit_test(test_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
