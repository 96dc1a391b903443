// SPDX-License-Identifier: GPL-2.0-or-later
/* test_devfit.c - per-device multipliers fitted across windows: one window
 * in which two devices share every CPU in the same proportions tells only
 * their sum, split as their targets say; a second, after a placement
 * moved them, tells them apart; a precise minute outweighs a second one
 * tick off; timer time on every CPU goes to the base, not the devices; a
 * long history of windows that barely tell them apart does; a light
 * device's exact counts speak for it beside a busy one; and pooled by
 * class (devfit_solve_pooled): recovered where the CPUs' mixes differ,
 * the priors kept where they do not, close under a tick's noise, and
 * what earlier runs left called carried. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "devfit.h"

static const unsigned int both[2] = { 0, 1 };

/* The weight of a CPU's equation over @dt seconds, as estimate.c gives
 * it: a clock of 100 ticks a second, and 5% of the time for the model. */
static double weight(double y, double dt)
{
	double tick = 1e6 / (100 * dt);

	return 1 / (tick * tick / 6 + 0.05 * 0.05 * y * y);
}

/* A CPU serving @ra interrupts/s of device 0 and @rb of device 1 whose
 * true costs are 1.3 and 0.7 of the reference (10 us), over @dt seconds,
 * its time measured @err us/s off. */
static void cpu_at(struct devfit *f, enum devfit_kind k, double ra, double rb, double base,
		   double dt, double err)
{
	double x[2] = { ra * 10, rb * 10 };
	double y = ra * 10 * 1.3 + rb * 10 * 0.7 + base + err;

	devfit_add(f, k, both, x, 2, y, weight(y, dt));
}

static void cpu(struct devfit *f, enum devfit_kind k, double ra, double rb, double base)
{
	cpu_at(f, k, ra, rb, base, 60, 0);
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
	devfit_solve(f, DEVFIT_SOFT, NULL, m);
	/* the data says only that the weighted mean is right: 2*1.3+0.7 = 3.3 */
	if (!(fabs((2 * m[0] + m[1]) / 3 - 1.1) < 0.02 && fabs(m[0] - m[1]) < 0.2))
		fail_msg("m = %g %g, want a mean of 1.1 and the two alike", m[0], m[1]);
	devfit_free(f);
}

/* Where the data cannot tell them apart, the targets do: device 0's
 * class costs four times device 1's, and device 0 stays the dearer
 * (alike targets leave them alike: the test above). */
static void test_targets_split_what_data_cannot(void **state)
{
	static const double target[2] = { 2.0, 0.5 };
	struct devfit *f = devfit_new(2);
	double m[2];

	(void)state;
	devfit_solve(f, DEVFIT_SOFT, target, m);
	assert_true(m[0] == 2.0 && m[1] == 0.5);
	cpu(f, DEVFIT_SOFT, 2000, 1000, 0);
	cpu(f, DEVFIT_SOFT, 4000, 2000, 0);
	devfit_solve(f, DEVFIT_SOFT, target, m);
	/* 2 m0 + m1 = 3.3, and device 0 still well above device 1 */
	if (!(fabs(2 * m[0] + m[1] - 3.3) < 0.05 && m[0] / m[1] > 2.5))
		fail_msg("m = %g %g, want 2 m0 + m1 = 3.3 and m0 well above m1", m[0], m[1]);
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
	devfit_solve(f, DEVFIT_SOFT, NULL, m);
	/* near the truth; the pull towards 1 keeps them a little short */
	if (!(fabs(m[0] - 1.3) < 0.05 && fabs(m[1] - 0.7) < 0.05))
		fail_msg("m = %g %g, want 1.3 0.7", m[0], m[1]);
	devfit_free(f);
}

/* A second's CPU time is known to a clock tick, 1% of a CPU; a minute's
 * to a sixtieth of that. The minute says device 0 costs 1.3; a second
 * whose reading was a tick high says 1.63. Weighed by their precision the
 * minute decides; weighed alike they would meet half way. */
static void test_precise_window_outweighs_noisy(void **state)
{
	struct devfit *f = devfit_new(2), *g = devfit_new(2);
	double m[2], alike[2];
	double xa[2] = { 30000, 0 }, xb[2] = { 0, 30000 };

	(void)state;
	cpu_at(f, DEVFIT_HARD, 3000, 0, 0, 60, 0);
	cpu_at(f, DEVFIT_HARD, 0, 3000, 0, 60, 0);
	cpu_at(f, DEVFIT_HARD, 3000, 0, 0, 1, 10000);
	cpu_at(f, DEVFIT_HARD, 0, 3000, 0, 1, 0);
	devfit_solve(f, DEVFIT_HARD, NULL, m);
	if (!(fabs(m[0] - 1.3) < 0.04 && fabs(m[1] - 0.7) < 0.04))
		fail_msg("m = %g %g, want 1.3 0.7", m[0], m[1]);
	/* the same equations, all of one weight */
	devfit_add(g, DEVFIT_HARD, both, xa, 2, 39000, 1e-6);
	devfit_add(g, DEVFIT_HARD, both, xb, 2, 21000, 1e-6);
	devfit_add(g, DEVFIT_HARD, both, xa, 2, 49000, 1e-6);
	devfit_add(g, DEVFIT_HARD, both, xb, 2, 21000, 1e-6);
	devfit_solve(g, DEVFIT_HARD, NULL, alike);
	if (!(alike[0] > 1.4))
		fail_msg("weighed alike: m0 = %g, expected the noisy second to pull it", alike[0]);
	devfit_free(f);
	devfit_free(g);
}

/* Timers and IPIs take 400 us/s of hard-irq time on every CPU, light
 * devices 1,500 to 3,000: without the base, the devices would take it,
 * device 1 a fifth too much. */
static void test_base_takes_timer_time(void **state)
{
	struct devfit *f = devfit_new(2);
	double m[2];

	(void)state;
	cpu(f, DEVFIT_HARD, 300, 0, 400);
	cpu(f, DEVFIT_HARD, 0, 300, 400);
	cpu(f, DEVFIT_HARD, 150, 150, 400);
	cpu(f, DEVFIT_HARD, 200, 100, 400);
	cpu(f, DEVFIT_HARD, 0, 0, 400);
	devfit_solve(f, DEVFIT_HARD, NULL, m);
	if (!(fabs(m[0] - 1.3) < 0.05 && fabs(m[1] - 0.7) < 0.05))
		fail_msg("m = %g %g, want 1.3 0.7", m[0], m[1]);
	devfit_free(f);
}

/* Windows that barely tell two devices apart (every CPU holds them in
 * nearly the same mix, as after a placement that spread each evenly):
 * one such window leaves them near their targets, and the same
 * placement seen run after run must let the data, not the pull, decide:
 * the prior is one, however long the history. */
static void test_history_outweighs_prior(void **state)
{
	struct devfit *f = devfit_new(2);
	double one[2], many[2];

	(void)state;
	for (int run = 0; run < 24; run++) {
		devfit_decay(f, 0.84);
		cpu(f, DEVFIT_HARD, 2000, 1000, 0);
		cpu(f, DEVFIT_HARD, 2000, 1300, 0);
		cpu(f, DEVFIT_HARD, 1700, 1000, 0);
		cpu(f, DEVFIT_HARD, 2200, 900, 0);
		if (run == 0)
			devfit_solve(f, DEVFIT_HARD, NULL, one);
	}
	devfit_solve(f, DEVFIT_HARD, NULL, many);
	/* one window: device 0 well short of 1.3, device 1 well above 0.7 */
	if (!(one[0] < 1.2 && one[1] > 0.8))
		fail_msg("one window: m = %g %g, expected the pull to hold them", one[0], one[1]);
	/* a history of the same: at least half way from there to the truth */
	if (!(fabs(many[0] - 1.3) < fabs(one[0] - 1.3) / 2 &&
	      fabs(many[1] - 0.7) < fabs(one[1] - 0.7) / 2))
		fail_msg("history: m = %g %g, one window %g %g, want nearer 1.3 0.7",
			 many[0], many[1], one[0], one[1]);
	devfit_free(f);
}

/* Softirqs per interrupt, from exact counts: a busy HBA raises one BLOCK
 * softirq an interrupt, a light NVMe drive beside it none. A pull as
 * strong as an average device's data (the HBA's, nearly) held the drive
 * at 0.78; it must come out nearer none than one. */
static void test_light_device_speaks_for_itself(void **state)
{
	struct devfit *f = devfit_new(2);
	static const double mix[4][2] = {
		{ 10000, 500 }, { 8000, 900 }, { 12000, 300 }, { 6000, 700 },
	};
	double m[2];

	(void)state;
	for (int c = 0; c < 4; c++)
		devfit_add(f, DEVFIT_SOFT, both, mix[c], 2, mix[c][0], 1);
	devfit_solve_in(f, DEVFIT_SOFT, 0.01, 0, 64, m);
	if (!(fabs(m[0] - 1) < 0.02 && m[1] < 0.3))
		fail_msg("m = %g %g, want 1 and near 0", m[0], m[1]);
	devfit_free(f);
}

static void test_bounds(void **state)
{
	static const double target[3] = { 2, 1, 0.5 };
	struct devfit *f = devfit_new(3);
	double m[3], x[1] = { 1000 };
	unsigned int d0 = 0;

	(void)state;
	/* device 0 claims 50 times its reference cost: held at the bound */
	devfit_add(f, DEVFIT_SOFT, &d0, x, 1, 50000, 1e-6);
	devfit_solve(f, DEVFIT_SOFT, NULL, m);
	assert_true(m[0] == DEVFIT_MAX_M);
	/* the bound is of the target */
	devfit_solve(f, DEVFIT_SOFT, target, m);
	assert_true(m[0] == DEVFIT_MAX_M * 2);
	/* devices the equations never named keep their targets */
	assert_true(m[1] == 1 && m[2] == 0.5);
	devfit_solve(f, DEVFIT_SOFT, NULL, m);
	assert_true(m[1] == 1 && m[2] == 1);
	/* no equations at all: the targets */
	devfit_solve(f, DEVFIT_HARD, target, m);
	assert_true(m[0] == 2 && m[1] == 1 && m[2] == 0.5);
	/* an equation that is NaN, or of no weight, is not taken */
	devfit_add(f, DEVFIT_HARD, &d0, x, 1, NAN, 1e-6);
	devfit_add(f, DEVFIT_HARD, &d0, x, 1, 1000, 0);
	devfit_add(f, DEVFIT_HARD, &d0, x, 1, 1000, -1);
	devfit_add(f, DEVFIT_HARD, &d0, x, 1, 1000, NAN);
	for (unsigned int i = 0; i < 16; i++)
		assert_true(f->n[DEVFIT_HARD][i] == 0);
	/* softirqs per interrupt: 0 is an answer, not a bound to stop at */
	devfit_add(f, DEVFIT_SOFT, &d0, x, 1, 0, 1);
	devfit_add(f, DEVFIT_SOFT, &d0, x, 1, 0, 1);
	devfit_solve_in(f, DEVFIT_SOFT, 0.01, 0, 64, m);
	assert_true(m[0] >= 0 && m[0] < 64);
	devfit_solve(f, DEVFIT_SOFT, NULL, m);
	assert_true(m[0] >= DEVFIT_MIN_M);
	devfit_free(f);
	f = devfit_new(1);
	devfit_add(f, DEVFIT_SOFT, &d0, x, 1, 0, 1);
	devfit_solve_in(f, DEVFIT_SOFT, 0.01, 0, 64, m);
	assert_true(m[0] < 0.02);
	devfit_solve(f, DEVFIT_SOFT, NULL, m);
	assert_true(m[0] == DEVFIT_MIN_M);
	devfit_free(f);
	assert_null(devfit_new(DEVFIT_MAX + 1));
}

/*
 * devfit_solve_pooled(): the machine of issue 34 in small. Device 0 is a
 * NIC (group 0) whose packets cost 1.2 of the reference, device 1 a
 * second NIC (group 0) at 1.5, device 2 an NVMe drive (group 1) at 0.3,
 * device 3 an HBA (group 1) at 0.2. @cpus[c] gives each device's events
 * on CPU c; y is their true work, plus @noise[c] us/s.
 */
static const double pooled_true[4] = { 1.2, 1.5, 0.3, 0.2 };
static const int pooled_group[4] = { 0, 0, 1, 1 };
static const unsigned int pooled_dev[4] = { 0, 1, 2, 3 };

static void pooled_cpu(struct devfit *f, const double *ev, double noise, double dt)
{
	double x[4], y = noise;

	for (int i = 0; i < 4; i++) {
		x[i] = ev[i] * 10;
		y += x[i] * pooled_true[i];
	}
	devfit_add(f, DEVFIT_SOFT, pooled_dev, x, 4, y, weight(y, dt));
}

/* Well posed: CPUs hold the four devices in many mixes over a minute:
 * every multiplier is the data's, whatever the prior says. */
static void test_pooled_well_posed(void **state)
{
	static const double mix[8][4] = {
		{ 2500, 0, 0, 0 }, { 0, 2500, 0, 0 }, { 0, 0, 5000, 0 },
		{ 0, 0, 0, 4000 }, { 2500, 0, 5000, 0 }, { 0, 2500, 0, 4000 },
		{ 2500, 2500, 0, 0 }, { 0, 0, 5000, 4000 },
	};
	struct devfit *f = devfit_new(4);
	struct devfit_group g[2];
	double prior[4] = { 3, 3, 3, 3 }, m[4];

	(void)state;
	assert_non_null(f);
	for (int c = 0; c < 8; c++)
		pooled_cpu(f, mix[c], 0, 60);
	devfit_solve_pooled(f, DEVFIT_SOFT, pooled_group, 2, prior, m, g);
	for (int i = 0; i < 4; i++)
		if (!(fabs(m[i] / pooled_true[i] - 1) < 0.03))
			fail_msg("device %d: %.3f, true %.3f", i, m[i], pooled_true[i]);
	assert_int_equal(g[0].how, DEVFIT_FITTED);
	assert_int_equal(g[1].how, DEVFIT_FITTED);
	/* each group's cost near its devices', far from the prior: a
	 * device counts for at most DEVFIT_SPREAD of its prior, so a prior
	 * ten times off still leans the cheap class a little (0.37) */
	assert_true(g[0].m > 1.15 && g[0].m < 1.6);
	if (!(g[1].m > 0.18 && g[1].m < 0.45))
		fail_msg("storage group %.3f", g[1].m);
	devfit_free(f);
}

/* Ill posed: one second; NIC 0 and the NVMe drive share every CPU of
 * theirs one to one, the HBA is nowhere: only their sum is known. NIC 1
 * alone pins the NICs' cost, which the NVMe drive's data cannot move: the
 * drive keeps something near its prior, not the floor that NIC 1's dearer
 * packets would leave it (the failure of issue 34), and the HBA, with no
 * equation, near its prior (its class's cost, which the drive's data
 * moves a little). */
static void test_pooled_ill_posed_keeps_priors(void **state)
{
	static const double shared[4] = { 2500, 0, 5000, 0 }, alone[4] = { 0, 2500, 0, 0 };
	struct devfit *f = devfit_new(4);
	struct devfit_group g[2];
	double prior[4] = { 1, 1, 0.4, 0.4 }, m[4], sum;

	(void)state;
	assert_non_null(f);
	for (int c = 0; c < 4; c++) {
		pooled_cpu(f, shared, 0, 1);
		pooled_cpu(f, alone, 0, 1);
	}
	devfit_solve_pooled(f, DEVFIT_SOFT, pooled_group, 2, prior, m, g);
	/* the data's sum holds */
	sum = 2500 * m[0] + 5000 * m[2];
	assert_true(fabs(sum / (2500 * 1.2 + 5000 * 0.3) - 1) < 0.02);
	assert_true(fabs(m[1] / 1.5 - 1) < 0.05);
	assert_true(m[2] > 0.15 && m[2] < 0.6);
	assert_true(m[3] > 0.3 && m[3] < 0.5);
	assert_int_equal(g[0].how, DEVFIT_FITTED);
	assert_int_equal(g[1].how, DEVFIT_PRIOR);
	devfit_free(f);
}

/* Noisy: 32 one-second windows' worth of CPUs in four mixes, each time
 * up to a clock tick off (a fixed pseudo-random sequence): the
 * multipliers within 20% (the HBA, the lightest, is pulled towards its
 * class by what its data leaves open), the NICs' within 5%. */
static void test_pooled_noisy(void **state)
{
	static const double mix[4][4] = {
		{ 2500, 0, 5000, 0 }, { 0, 2500, 0, 4000 },
		{ 2500, 0, 0, 4000 }, { 0, 0, 5000, 0 },
	};
	struct devfit *f = devfit_new(4);
	struct devfit_group g[2];
	double m[4];
	uint32_t seed = 34;

	(void)state;
	assert_non_null(f);
	for (int c = 0; c < 32; c++) {
		double u;

		seed = seed * 1103515245u + 12345u;
		u = (double)(seed >> 8) / (double)(1u << 24) - 0.5;
		pooled_cpu(f, mix[c % 4], u * 1e4, 1);
	}
	devfit_solve_pooled(f, DEVFIT_SOFT, pooled_group, 2, NULL, m, g);
	for (int i = 0; i < 4; i++)
		if (!(fabs(m[i] / pooled_true[i] - 1) < (i < 2 ? 0.05 : 0.2)))
			fail_msg("device %d: %.3f, true %.3f", i, m[i], pooled_true[i]);
	devfit_free(f);
}

/* What earlier runs left and this run did not add to is carried. */
static void test_pooled_carried(void **state)
{
	static const double alone[4] = { 2500, 0, 0, 0 };
	struct devfit *f = devfit_new(4);
	struct devfit_group g[2];
	double m[4];

	(void)state;
	assert_non_null(f);
	pooled_cpu(f, alone, 0, 60);
	devfit_decay(f, 0.84);
	devfit_solve_pooled(f, DEVFIT_SOFT, pooled_group, 2, NULL, m, g);
	assert_int_equal(g[0].how, DEVFIT_CARRIED);
	assert_true(fabs(m[0] / 1.2 - 1) < 0.03);
	pooled_cpu(f, alone, 0, 60);
	devfit_solve_pooled(f, DEVFIT_SOFT, pooled_group, 2, NULL, m, g);
	assert_int_equal(g[0].how, DEVFIT_FITTED);
	devfit_free(f);
}

/* The chi-square each group reports says whether its devices differ
 * beyond their standard errors (estimate.c takes the pooled costs only
 * then): each device alone on two CPUs for a minute, the two NICs at
 * pooled_true's unlike costs, then at one cost. */
static void test_pooled_chi2(void **state)
{
	static const double mix[8][4] = {
		{ 2500, 0, 0, 0 }, { 2500, 0, 0, 0 }, { 0, 2500, 0, 0 },
		{ 0, 2500, 0, 0 }, { 0, 0, 5000, 0 }, { 0, 0, 5000, 0 },
		{ 0, 0, 0, 4000 }, { 0, 0, 0, 4000 },
	};
	const double same[4] = { pooled_true[0], pooled_true[0], pooled_true[2],
				 pooled_true[3] };
	struct devfit_group g[2];
	double prior[4] = { 1, 1, 1, 1 }, m[4];

	(void)state;
	for (int k = 0; k < 2; k++) {
		const double *t = k ? same : pooled_true;
		struct devfit *f = devfit_new(4);

		assert_non_null(f);
		for (int c = 0; c < 8; c++) {
			double x[4], y = 0;

			for (int i = 0; i < 4; i++) {
				x[i] = mix[c][i] * 10;
				y += x[i] * t[i];
			}
			devfit_add(f, DEVFIT_SOFT, pooled_dev, x, 4, y, weight(y, 60));
		}
		devfit_solve_pooled(f, DEVFIT_SOFT, pooled_group, 2, prior, m, g);
		assert_int_equal(g[0].dof, 1);
		if (k == 0 && !(g[0].chi2 > 2.0 * g[0].dof))
			fail_msg("unlike NICs: chi2 %.3f", g[0].chi2);
		if (k == 1 && !(g[0].chi2 < 2.0 * g[0].dof))
			fail_msg("like NICs: chi2 %.3f", g[0].chi2);
		devfit_free(f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_window_tells_nothing),
		cmocka_unit_test(test_targets_split_what_data_cannot),
		cmocka_unit_test(test_two_placements_tell),
		cmocka_unit_test(test_precise_window_outweighs_noisy),
		cmocka_unit_test(test_base_takes_timer_time),
		cmocka_unit_test(test_history_outweighs_prior),
		cmocka_unit_test(test_light_device_speaks_for_itself),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_pooled_well_posed),
		cmocka_unit_test(test_pooled_ill_posed_keeps_priors),
		cmocka_unit_test(test_pooled_noisy),
		cmocka_unit_test(test_pooled_carried),
		cmocka_unit_test(test_pooled_chi2),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
