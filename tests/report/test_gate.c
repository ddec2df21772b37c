/*
 * The history gate's statistics: the prediction-interval p-value is
 * calibrated (5% of unchanged runs below 0.05), Benjamini-Hochberg keeps
 * the run-level false-alarm rate of 40 unchanged series at q, a real shift
 * in one series of 40 is found, and the verdicts follow the tolerance,
 * the direction and the amount of history.
 */
#include <math.h>
#include <stdlib.h>

#include "check_main.h"
#include "report/judge/gate.h"
#include "sim_rng.h"

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

static void run_of(struct gate_series *s, double (*w)[30], size_t m, double cv,
		   const double *shift)
{
	size_t k;

	for (k = 0; k < m; k++) {
		noise(w[k], 30, 100.0, cv);
		s[k] = (struct gate_series){ .window = w[k], .n_window = 30,
					     .current = 100.0 * (1.0 + cv * gauss()) *
							(1.0 + (shift ? shift[k] : 0)),
					     .better = 1, .rel_tol = 0.0, .abs_tol = NAN };
	}
}

/* 40 unchanged series per run: a run fails if any one regresses. */
START_TEST(test_run_level_false_alarms)
{
	static double w[40][30];
	struct gate_series s[40];
	struct gate_opts o = GATE_OPTS_DEFAULT;
	size_t t, k, failed = 0, failed_uncorrected = 0;

	o.fdr = 0.05;
	rng_state = 11;
	for (t = 0; t < TRIALS / 4; t++) {
		int any = 0, any_raw = 0;

		run_of(s, w, 40, 0.05, NULL);
		ck_assert_int_eq(gate_judge(s, 40, &o), 0);
		for (k = 0; k < 40; k++) {
			any |= s[k].verdict == GATE_REGRESSION || s[k].verdict == GATE_IMPROVEMENT;
			any_raw |= s[k].p_value <= o.fdr;
		}
		failed += any;
		failed_uncorrected += any_raw;
	}
	/* q = 5%: about 5% of runs; uncorrected, most runs would fail. */
	ck_assert_double_le(failed / (double)(TRIALS / 4), 0.08);
	ck_assert_double_ge(failed_uncorrected / (double)(TRIALS / 4), 0.8);
}
END_TEST

START_TEST(test_finds_one_shift_among_40)
{
	static double w[40][30];
	struct gate_series s[40];
	double shift[40] = { 0 };
	size_t k;

	shift[17] = -0.30;	/* six standard deviations of the noise */
	rng_state = 3;
	run_of(s, w, 40, 0.05, shift);
	ck_assert_int_eq(gate_judge(s, 40, NULL), 0);
	ck_assert_int_eq(s[17].verdict, GATE_REGRESSION);
	ck_assert_double_lt(s[17].change, -0.2);
	for (k = 0; k < 40; k++)
		if (k != 17)
			ck_assert_int_ne(s[k].verdict, GATE_REGRESSION);
}
END_TEST

START_TEST(test_tolerance_direction_history)
{
	double quiet[20], loud[20];
	struct gate_series s[6];

	rng_state = 5;
	noise(quiet, 20, 100.0, 0.001);
	noise(loud, 20, 100.0, 0.30);
	/* certain but within the 5% tolerance: does not matter */
	s[0] = (struct gate_series){ .window = quiet, .n_window = 20, .current = 97.0, .better = 1,
				  .rel_tol = 0.05, .abs_tol = NAN };
	/* certain and beyond: lower is better, so a rise regresses */
	s[1] = (struct gate_series){ .window = quiet, .n_window = 20, .current = 110.0, .better = -1,
				  .rel_tol = 0.05, .abs_tol = NAN };
	/* beyond tolerance but inside 30% noise: cannot tell */
	s[2] = (struct gate_series){ .window = loud, .n_window = 20, .current = 85.0, .better = 1,
				  .rel_tol = 0.05, .abs_tol = NAN };
	/* two runs of history: too few to know the noise */
	s[3] = (struct gate_series){ .window = quiet, .n_window = 2, .current = 50.0, .better = 1,
				  .rel_tol = 0.05, .abs_tol = NAN };
	/* no direction: not judged */
	s[4] = (struct gate_series){ .window = quiet, .n_window = 20, .current = 50.0, .better = 0,
				  .rel_tol = 0.05, .abs_tol = NAN };
	/* the absolute tolerance wins when larger */
	s[5] = (struct gate_series){ .window = quiet, .n_window = 20, .current = 90.0, .better = 1,
				  .rel_tol = 0.05, .abs_tol = 20.0 };
	ck_assert_int_eq(gate_judge(s, 6, NULL), 0);
	ck_assert_int_eq(s[0].verdict, GATE_NO_CHANGE);
	ck_assert_int_eq(s[1].verdict, GATE_REGRESSION);
	ck_assert_str_eq(gate_verdict_name(s[1].verdict), "regression");
	ck_assert_int_eq(s[2].verdict, GATE_TOO_NOISY);
	ck_assert_int_eq(s[3].verdict, GATE_TOO_NOISY);
	ck_assert(isnan(s[3].p_value));
	ck_assert_int_eq(s[4].verdict, GATE_UNTRACKED);
	ck_assert_int_eq(s[5].verdict, GATE_NO_CHANGE);
	ck_assert_double_eq_tol(s[5].allowance, 20.0, 1e-12);
}
END_TEST

/* A rise from a negative baseline is a positive change (-10 -> -5: +50 %). */
START_TEST(test_change_sign_negative_baseline)
{
	double w[20];
	struct gate_series s[2];

	rng_state = 9;
	noise(w, 20, -10.0, 0.001);
	s[0] = (struct gate_series){ .window = w, .n_window = 20, .current = -5.0, .better = 1,
				  .rel_tol = 0.05, .abs_tol = NAN };
	s[1] = (struct gate_series){ .window = w, .n_window = 20, .current = -15.0, .better = 1,
				  .rel_tol = 0.05, .abs_tol = NAN };
	ck_assert_int_eq(gate_judge(s, 2, NULL), 0);
	ck_assert_double_eq_tol(s[0].change, 0.5, 0.01);
	ck_assert_double_eq_tol(s[1].change, -0.5, 0.01);
	/* higher is better: the fall is the regression, the rise is not */
	ck_assert_int_eq(s[1].verdict, GATE_REGRESSION);
	ck_assert_int_ne(s[0].verdict, GATE_REGRESSION);
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("gate");
	TCase *c = tcase_create("gate");

	tcase_add_test(c, test_prediction_p_values);
	tcase_add_test(c, test_calibrated);
	tcase_add_test(c, test_run_level_false_alarms);
	tcase_add_test(c, test_finds_one_shift_among_40);
	tcase_add_test(c, test_tolerance_direction_history);
	tcase_add_test(c, test_change_sign_negative_baseline);
	suite_add_tcase(s, c);
	return s;
}
