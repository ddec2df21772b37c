/*
 * The history gate's statistics: the run-level control keeps the false-alarm rate of 40 unchanged series at q for regressions
 * and, apart, for improvements, a real shift in one series of 40 is found,
 * a lasting drop at the old two-sided border fails while an equal
 * improvement does not, repeats count for what they are worth, grouped
 * series spend one group's budget, and the verdicts follow the tolerance,
 * the direction and the amount of history. (The prediction interval, the
 * former test, is bench/'s: bench/gate/check_gate_retired.c checks it.)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check_main.h"
#include "report/judge/gate.h"
#include "report/judge/gate_control.h"
#include "sim_rng.h"

#define TRIALS 4000

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
	size_t t, k, failed = 0, improved = 0, failed_uncorrected = 0;

	o.fdr = 0.05;
	rng_state = 11;
	for (t = 0; t < TRIALS / 4; t++) {
		int any = 0, any_up = 0, any_raw = 0;

		run_of(s, w, 40, 0.05, NULL);
		ck_assert_int_eq(gate_judge(s, 40, &o), 0);
		for (k = 0; k < 40; k++) {
			any |= s[k].verdict == GATE_REGRESSION;
			any_up |= s[k].verdict == GATE_IMPROVEMENT;
			any_raw |= s[k].p_value <= o.fdr;
		}
		failed += any;
		improved += any_up;
		failed_uncorrected += any_raw;
	}
	/* q = 5%: at most about 5% of runs fail, and apart from that at most
	 * about 5% report an improvement; uncorrected, far more runs would
	 * fail (24.5 % with the residuals' heavy tail, GATE_TAIL_DF, which
	 * makes a p-value of normal noise conservative, 11 % since the run
	 * alone is judged two ways at once; 50 % and more with normal
	 * tails). */
	ck_assert_double_le(failed / (double)(TRIALS / 4), 0.07);
	ck_assert_double_le(improved / (double)(TRIALS / 4), 0.07);
	ck_assert_double_ge(failed_uncorrected / (double)(TRIALS / 4), 0.1);
}
END_TEST

START_TEST(test_finds_one_shift_among_40)
{
	static double w[40][30];
	struct gate_series s[40];
	double shift[40] = { 0 };
	size_t k;

	/* Ten standard deviations of the noise: with the residuals' heavy
	 * tail (GATE_TAIL_DF) one run six sd off, as this test had, is no
	 * longer proof among 40 series at q = 1 %. */
	shift[17] = -0.50;
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

/* A series whose recent runs are @m unchanged ones then @k at @shift. */
static void lasting(double *rec, size_t m, size_t k, double shift, double cv)
{
	size_t i;

	for (i = 0; i < m + k; i++)
		rec[i] = 100.0 * (1.0 + cv * gauss()) * (i >= m ? 1.0 + shift : 1.0);
}

/*
 * One-sided: the old two-sided prediction interval at q = 1 % needs a
 * run-alone p of 1 %; a drop just inside that border (its p 1.2 %) in five
 * runs in a row never fails it, run by run (flagged runs leave its
 * window, so the next run meets the same window). The
 * CUSUM toward the bad side adds the runs up and fails; the same rise is an
 * improvement at most, never a regression.
 */
START_TEST(test_one_sided_lasting_border)
{
	/* The drop whose two-sided prediction p on this window is 1.2 %, just
	 * inside: bench/gate/check_gate_retired.c bisects it from the retired
	 * interval (gate_retired.c) and checks this value. */
	const double d = 4.6946110135296442;
	double rec[35], win[30], up[35];
	struct gate_series s[2];
	size_t i;

	rng_state = 29;
	noise(win, 30, 100.0, 0.02);
	for (i = 0; i < 35; i++) {
		rec[i] = i < 30 ? win[i] : 100.0 - d;
		up[i] = i < 30 ? win[i] : 100.0 + d;
	}
	s[0] = (struct gate_series){ .window = win, .n_window = 30, .current = rec[34],
				     .better = 1, .rel_tol = 0.0, .abs_tol = NAN,
				     .recent = rec, .n_recent = 34, .group = "one" };
	s[1] = s[0];
	s[1].current = up[34];
	s[1].recent = up;
	s[1].group = "other";
	ck_assert_int_eq(gate_judge(s, 2, NULL), 0);
	ck_assert_msg(s[0].verdict == GATE_REGRESSION, "d %g z %g S %g p %g q %g", d, s[0].z,
		      s[0].cusum, s[0].p_value, s[0].q_value);
	ck_assert_int_ne(s[1].verdict, GATE_REGRESSION);
	ck_assert_double_gt(s[0].cusum, 5.0);
}
END_TEST

/* A lasting 1.5 sd drop: the per-run test almost never sees it, the CUSUM
 * does within the bound Siegmund's approximation gives (h at the run's
 * budget), and an unchanged history stays quiet. */
START_TEST(test_lasting_drop_delay)
{
	double rec[80];
	struct gate_series s;
	size_t t, k, found = 0, late = 0, quiet = 0;
	double h = gate_cusum_h(0.01 / 2, GATE_CUSUM_K);
	double bound = gate_cusum_arl(1.5, GATE_CUSUM_K, h);

	rng_state = 13;
	ck_assert_double_lt(bound, 8.0);
	for (t = 0; t < 200; t++) {
		size_t delay = 0;

		lasting(rec, 40, 40, -0.075, 0.05);	/* 1.5 sd of 5 % */
		for (k = 1; k <= 40 && !delay; k++) {
			s = (struct gate_series){ .window = rec + 10, .n_window = 30,
						  .current = rec[39 + k], .better = 1,
						  .rel_tol = NAN, .abs_tol = NAN,
						  .recent = rec, .n_recent = 39 + k };
			ck_assert_int_eq(gate_judge(&s, 1, NULL), 0);
			if (s.verdict == GATE_REGRESSION)
				delay = k;
		}
		found += delay > 0;
		late += !delay || delay > 3 * bound;
		s = (struct gate_series){ .window = rec + 10, .n_window = 30, .current = rec[39],
					  .better = 1, .rel_tol = NAN, .abs_tol = NAN,
					  .recent = rec, .n_recent = 39 };
		ck_assert_int_eq(gate_judge(&s, 1, NULL), 0);
		quiet += s.verdict != GATE_REGRESSION;
	}
	printf("lasting 1.5 sd drop: found %zu of 200 within 40 runs, %zu late or never, "
	       "%zu quiet before it\n", found, late, quiet);
	/* Measured: 175, 39, 200 with the residuals' heavy tail (GATE_TAIL_DF
	 * = 6; the normal tail found 195+ and had up to 25 late, and on the
	 * recorded corpus failed 2.5 times as many unchanged runs). */
	ck_assert_uint_ge(found, 165);
	ck_assert_uint_le(late, 60);
	ck_assert_uint_ge(quiet, 194);
}
END_TEST

/*
 * A short history: before GATE_CUSUM_MIN_RUNS recent runs the CUSUM does
 * not accumulate (the run alone is judged, and "what it would need" counts
 * the runs until it does); with that many, the same runs accumulate.
 */
START_TEST(test_short_history_run_alone)
{
	double rec[40];
	struct gate_series s;
	size_t n;

	rng_state = 41;
	noise(rec, 40, 100.0, 0.02);
	for (n = 34; n < 40; n++)	/* the last runs 1.2 sd worse */
		rec[n] = 100.0 * (1 - 1.2 * 0.02);
	for (n = 20; n <= 39; n += 19) {
		/* The same last runs, behind 14 or 33 older ones. */
		s = (struct gate_series){ .window = rec + n - 14, .n_window = 14,
					  .current = rec[39], .better = 1, .rel_tol = 0.01,
					  .abs_tol = NAN, .recent = rec + 39 - n,
					  .n_recent = n };
		ck_assert_int_eq(gate_judge(&s, 1, NULL), 0);
		if (n == 20) {	/* under GATE_CUSUM_MIN_RUNS (25) */
			ck_assert_msg(s.cusum <= fmax(0, s.z - GATE_CUSUM_K) + 1e-12,
				      "n %zu: S %g from z %g alone", n, s.cusum, s.z);
			ck_assert_msg(s.need_runs >= (double)(GATE_CUSUM_MIN_RUNS - n) + 1,
				      "n %zu: needs %g runs", n, s.need_runs);
		} else {
			ck_assert_msg(s.cusum > s.z - GATE_CUSUM_K + 1.0,
				      "n %zu: S %g does not accumulate (z %g)", n, s.cusum, s.z);
		}
	}
}
END_TEST

/*
 * Repeats: a run's value of 5 repeats with a between-run sd of 5 % and a
 * within-run sd of 5 % has sd sqrt(25 + 25 / 5) %, not 5 / sqrt(5) %: the
 * gate's noise says so, and the run-level rate holds with 5 repeats.
 */
START_TEST(test_repeats_counted_for_their_worth)
{
	enum { M = 40, N = 30, R = 5 };
	static double rec[M][N], wv[M][N];
	static size_t reps[M][N];
	struct gate_series s[M];
	size_t t, k, i, j, failed = 0;
	double sig = 0;

	rng_state = 17;
	for (t = 0; t < 400; t++) {
		int any = 0;

		for (k = 0; k < M; k++) {
			double cur_m = 0, cur_v = 0, x[R];

			for (i = 0; i < N + 1; i++) {
				double b = 100.0 * (1.0 + 0.05 * gauss()), m = 0, v = 0;

				for (j = 0; j < R; j++)
					m += (x[j] = b + 5.0 * gauss()) / R;
				for (j = 0; j < R; j++)
					v += (x[j] - m) * (x[j] - m) / (R - 1);
				if (i < N) {
					rec[k][i] = m;
					wv[k][i] = v;
					reps[k][i] = R;
				} else {
					cur_m = m;
					cur_v = v;
				}
			}
			s[k] = (struct gate_series){ .window = rec[k], .n_window = N,
						     .current = cur_m, .better = 1,
						     .rel_tol = NAN, .abs_tol = NAN,
						     .recent = rec[k], .n_recent = N,
						     .recent_repeats = reps[k],
						     .recent_within = wv[k], .repeats = R,
						     .within = cur_v };
		}
		ck_assert_int_eq(gate_judge(s, M, NULL), 0);
		for (k = 0; k < M; k++)
			any |= s[k].verdict == GATE_REGRESSION;
		failed += any;
		sig += s[0].sigma / 400;
	}
	ck_assert_double_eq_tol(sig, sqrt(0.05 * 0.05 + 0.05 * 0.05 / R), 0.006);
	ck_assert_double_gt(sig, 0.05);
	ck_assert_uint_le(failed, 10);	/* q = 1 %: about 4 of 400 */
}
END_TEST

/* Ten series of a case that move together spend one group's share: a
 * shift in the whole case is found as surely as in one series alone, and
 * the run's budget is split over groups, not series. */
START_TEST(test_groups_share_a_budget)
{
	static double w[40][30];
	struct gate_series s[40];
	double shift[40] = { 0 };
	size_t k;

	for (k = 0; k < 10; k++)
		shift[k] = -0.45;	/* 9 sd: one run (GATE_TAIL_DF) */
	rng_state = 19;
	run_of(s, w, 40, 0.05, shift);
	for (k = 0; k < 40; k++)
		s[k].group = k < 10 ? "case-a" : k < 20 ? "case-b" : k < 30 ? "case-c" : "case-d";
	ck_assert_int_eq(gate_judge(s, 40, NULL), 0);
	for (k = 0; k < 10; k++)
		ck_assert_int_eq(s[k].verdict, GATE_REGRESSION);
	for (k = 10; k < 40; k++)
		ck_assert_int_ne(s[k].verdict, GATE_REGRESSION);
	/* A lone series of a four-group run: q / 4 over its group of 10. */
	ck_assert_double_eq_tol(gate_control_series_budget(s, 40, 3, 0.01), 0.01 / 4 / 10, 1e-15);
}
END_TEST

/* What a series that cannot be judged would need. */
START_TEST(test_says_what_it_would_need)
{
	double loud[20];
	struct gate_series s;

	rng_state = 23;
	noise(loud, 20, 100.0, 0.10);
	s = (struct gate_series){ .window = loud, .n_window = 20, .current = 93.0, .better = 1,
				  .rel_tol = 0.05, .abs_tol = NAN };
	ck_assert_int_eq(gate_judge(&s, 1, NULL), 0);
	ck_assert_int_eq(s.verdict, GATE_TOO_NOISY);
	ck_assert_double_gt(s.sigma, 0.05);
	ck_assert_double_lt(s.sigma, 0.2);
	ck_assert_double_gt(s.smallest, 0.07);	/* more than this run's drop */
	ck_assert_double_gt(s.need_runs, 1);	/* a lasting 5 % drop: some runs */
	ck_assert(isfinite(s.need_runs));
	ck_assert(isinf(s.need_repeats));	/* one repeat each: no within part */
}
END_TEST

/*
 * The verdict does not depend on the unit (issue 31 item 8): the same
 * history and run, in any unit, get the same verdict and p-value. A
 * window holding a value at or below zero is judged on the values, where
 * the zero-noise test and the squares were absolute: scaled by 1e-14 a
 * too-noisy drop became a regression with p = 0, and by 1e160 the squares
 * overflowed. Checked at 1, 1e-14, 1e160 and a power of two, twice each.
 */
static void scaled_series(double unit, const double *hist, size_t n, double cur,
			  double *w, struct gate_series *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		w[i] = hist[i] * unit;
	*s = (struct gate_series){ .window = w, .n_window = n, .current = cur * unit,
				   .better = 1, .rel_tol = 0.05, .abs_tol = NAN,
				   .recent = w, .n_recent = n };
}

START_TEST(test_unit_scale)
{
	static const double units[] = { 1, 1e-14, 1e160, 0x1p-900, 1 };
	double hist[30], w[30];
	size_t i, u, pass;
	struct gate_series s, ref;

	rng_state = 31;
	for (i = 0; i < 30; i++)
		hist[i] = 1.0 + 0.3 * gauss();
	hist[7] = 0.0;		/* a value at zero: judged on the values */
	for (pass = 0; pass < 2; pass++) {
		/* A too-noisy drop, a certain one and an unchanged run. */
		static const double cur[] = { 0.6, -2.5, 1.02 };

		for (i = 0; i < 3; i++) {
			scaled_series(1, hist, 30, cur[i], w, &ref);
			ck_assert_int_eq(gate_judge(&ref, 1, NULL), 0);
			for (u = 1; u < sizeof(units) / sizeof(units[0]); u++) {
				scaled_series(units[u], hist, 30, cur[i], w, &s);
				ck_assert_int_eq(gate_judge(&s, 1, NULL), 0);
				ck_assert_int_eq(s.verdict, ref.verdict);
				ck_assert_double_eq_tol(s.p_value, ref.p_value,
							1e-9 + 1e-9 * ref.p_value);
				ck_assert_double_eq_tol(s.sigma, ref.sigma, 1e-9);
				ck_assert_double_eq_tol(s.baseline / units[u], ref.baseline,
							1e-9);
			}
		}
	}
	scaled_series(1, hist, 30, -2.5, w, &ref);
	ck_assert_int_eq(gate_judge(&ref, 1, NULL), 0);
	ck_assert_int_eq(ref.verdict, GATE_REGRESSION);
	scaled_series(1, hist, 30, 0.6, w, &ref);
	ck_assert_int_eq(gate_judge(&ref, 1, NULL), 0);
	ck_assert_int_eq(ref.verdict, GATE_TOO_NOISY);
}
END_TEST

/*
 * A deterministic series (issue 32: instruction-counted runs, bit-identical
 * or within about 0.1 %): a 1 % change fails in one run, unchanged runs
 * never do, in any unit.
 */
START_TEST(test_deterministic_series)
{
	static const double units[] = { 1, 1e-14, 1e160 };
	double hist[12], w[12];
	size_t u, i, t, pass;
	struct gate_series s;

	for (pass = 0; pass < 2; pass++)
		for (u = 0; u < 3; u++) {
			/* Bit-identical history. */
			for (i = 0; i < 12; i++)
				hist[i] = 8.79;
			scaled_series(units[u], hist, 12, 8.79 * 0.99, w, &s);
			s.rel_tol = 0.005;
			ck_assert_int_eq(gate_judge(&s, 1, NULL), 0);
			ck_assert_int_eq(s.verdict, GATE_REGRESSION);
			scaled_series(units[u], hist, 12, 8.79, w, &s);
			s.rel_tol = 0.005;
			ck_assert_int_eq(gate_judge(&s, 1, NULL), 0);
			ck_assert_int_eq(s.verdict, GATE_NO_CHANGE);
			/* The last bit moved (a sum in another order). */
			scaled_series(units[u], hist, 12, nextafter(8.79, 0), w, &s);
			s.rel_tol = 0;
			ck_assert_int_eq(gate_judge(&s, 1, NULL), 0);
			ck_assert_int_ne(s.verdict, GATE_REGRESSION);
			/* Within 0.1 %: 200 unchanged runs pass, every 1 % drop fails. */
			rng_state = 37;
			for (t = 0; t < 200; t++) {
				for (i = 0; i < 12; i++)
					hist[i] = 8.79 * (1 + 0.0005 * (2 * uniform() - 1));
				scaled_series(units[u], hist, 12,
					      8.79 * (1 + 0.0005 * (2 * uniform() - 1)), w, &s);
				s.rel_tol = 0.005;
				ck_assert_int_eq(gate_judge(&s, 1, NULL), 0);
				ck_assert_int_ne(s.verdict, GATE_REGRESSION);
				scaled_series(units[u], hist, 12, 8.79 * 0.99, w, &s);
				s.rel_tol = 0.005;
				ck_assert_int_eq(gate_judge(&s, 1, NULL), 0);
				ck_assert_int_eq(s.verdict, GATE_REGRESSION);
			}
		}
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("gate");
	TCase *c = tcase_create("gate");

	tcase_add_test(c, test_run_level_false_alarms);
	tcase_add_test(c, test_finds_one_shift_among_40);
	tcase_add_test(c, test_tolerance_direction_history);
	tcase_add_test(c, test_change_sign_negative_baseline);
	tcase_add_test(c, test_one_sided_lasting_border);
	tcase_add_test(c, test_lasting_drop_delay);
	tcase_add_test(c, test_repeats_counted_for_their_worth);
	tcase_add_test(c, test_groups_share_a_budget);
	tcase_add_test(c, test_says_what_it_would_need);
	tcase_add_test(c, test_short_history_run_alone);
	tcase_add_test(c, test_unit_scale);
	tcase_add_test(c, test_deterministic_series);
	suite_add_tcase(s, c);
	return s;
}
