/*
 * The gate's retired methods that bench/ keeps to compare with
 * (gate_retired.c): the prediction interval's p-value on either scale, and
 * its calibration (a fraction a of unchanged runs at or below a); and the
 * drop tests/report/test_gate.c's lasting border uses, which this interval
 * alone would have let through.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check_main.h"
#include "gate_retired.h"
#include "report/sim_rng.h"

#define TRIALS 4000

START_TEST(test_prediction_p_values)
{
	const double w[] = { 10, 11, 9, 10, 10 };
	const double flat[] = { 7, 7, 7, 7 };
	const double ratio[] = { 1, 2, 4, 8, 16 };

	/* The more symmetric scale: w is symmetric as it is (its mean 10 is
	 * the centre); ratio is symmetric on logarithms (geometric mean 4). */
	ck_assert_double_eq_tol(gate_prediction_p(w, 5, 10), 1.0, 1e-9);
	ck_assert_double_eq_tol(gate_prediction_p(ratio, 5, 4), 1.0, 1e-9);
	ck_assert(gate_prediction_p(ratio, 5, 31) > 0.05);	/* within its log spread */
	ck_assert(gate_prediction_p(w, 5, 20) < 0.001);
	ck_assert(gate_prediction_p(w, 5, 10.5) > 0.5);
	ck_assert_double_eq(gate_prediction_p(flat, 4, 7), 1.0);
	ck_assert_double_eq(gate_prediction_p(flat, 4, 8), 0.0);
	ck_assert(isnan(gate_prediction_p(w, 1, 10)));
	ck_assert(isnan(gate_prediction_p(w, 5, NAN)));
}
END_TEST

/* Under no change, P(p < a) = a: the test claims what it delivers. */
START_TEST(test_calibrated)
{
	double w[31];
	size_t t, below05 = 0, below01 = 0;

	rng_state = 7;
	for (t = 0; t < TRIALS * 5; t++) {
		size_t i;
		double p;

		for (i = 0; i < 31; i++)
			w[i] = 20.0 * exp(0.2 * gauss());	/* log-normal, CV ~20% */
		p = gate_prediction_p(w, 30, w[30]);
		below05 += p < 0.05;
		below01 += p < 0.01;
	}
	ck_assert_double_eq_tol(below05 / (double)(TRIALS * 5), 0.05, 0.008);
	ck_assert_double_eq_tol(below01 / (double)(TRIALS * 5), 0.01, 0.004);
}
END_TEST

/*
 * test_gate.c's test_one_sided_lasting_border drops its series by
 * GATE_BORDER_DROP: the largest drop (bisected, 60 steps) whose two-sided
 * prediction p on that test's window is above 1.2 %, inside the old
 * border; found again here, so the constant there cannot drift from it.
 */
#define GATE_BORDER_DROP 4.6946110135296442

START_TEST(test_border_drop)
{
	double win[30], lo = 0, hi = 30, d;
	size_t i;

	rng_state = 29;		/* the window test_one_sided_lasting_border draws */
	noise(win, 30, 100.0, 0.02);
	for (i = 0; i < 60; i++) {
		d = (lo + hi) / 2;
		if (gate_prediction_p(win, 30, 100.0 - d) > 0.012)
			lo = d;
		else
			hi = d;
	}
	ck_assert_msg(lo == GATE_BORDER_DROP, "bisected %.17g", lo);
	ck_assert_double_gt(gate_prediction_p(win, 30, 100.0 - lo), 0.01);
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("gate_retired");
	TCase *c = tcase_create("gate_retired");

	tcase_add_test(c, test_prediction_p_values);
	tcase_add_test(c, test_calibrated);
	tcase_add_test(c, test_border_drop);
	suite_add_tcase(s, c);
	return s;
}
