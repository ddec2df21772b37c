/*
 * The gate's band for the history charts (lib/report/judge/gate_band.c):
 * its lines are where the gate itself alarms on one run, not a picture's
 * own statistic.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "check_main.h"
#include "report/judge/gate.h"
#include "report/judge/gate_band.h"
#include "report/judge/gate_control.h"
#include "sim_rng.h"

/* The gate's residual of a run at @x, alone. */
static double z_of(struct gate_series s, double x)
{
	s.current = x;
	s.group = NULL;
	ck_assert_int_eq(gate_judge(&s, 1, NULL), 0);
	return s.z;
}

/* Both lines: the gate's own residual there is the run-alone threshold of
 * the series' budget, a hair inside it does not alarm alone, a hair
 * beyond it does (through gate_judge of the whole run). */
static void check_lines(int better, double cv, int recent)
{
	static double w[30], r[40];
	struct gate_series s[3], one;
	struct gate_band b[3];
	size_t k;
	double zs, share;

	rng_state = 29 + (uint64_t)(better + 1) + (uint64_t)recent;
	noise(w, 30, 100.0, cv);
	noise(r, 40, 100.0, cv);
	for (k = 0; k < 3; k++) {
		s[k] = (struct gate_series){ .window = w, .n_window = 30, .current = NAN,
					     .better = better, .rel_tol = NAN, .abs_tol = NAN,
					     .within = NAN, .recent = recent ? r : NULL,
					     .n_recent = recent ? 40 : 0,
					     .group = k < 2 ? "case-a" : "case-b" };
	}
	s[1].current = 100.0;
	ck_assert_int_eq(gate_band_judge(s, 3, NULL, b), 0);
	for (k = 0; k < 3; k++) {
		ck_assert(b[k].judged);
		/* q / 2 groups / 2 series of case-a, q / 2 for case-b */
		ck_assert_double_eq_tol(b[k].budget, k < 2 ? 0.01 / 4 : 0.01 / 2, 1e-15);
		zs = b[k].z_alarm;
		/* The recent runs together take their share only for runs of
		 * GATE_GUARD_ADAPT_REPEATS repeats or more (issue 40,
		 * GATE_TOGETHER_SHARE); these runs' repeats are unknown. */
		ck_assert_int_eq(s[k].together_on, 0);
		share = s[k].together_on ? 1 - GATE_TOGETHER_SHARE : 1;
		ck_assert_double_eq_tol(0.5 * erfc(zs / M_SQRT2),
					b[k].budget * GATE_SHEWHART_SHARE * share, 1e-12);
		ck_assert(isfinite(b[k].worse) && isfinite(b[k].better));
		ck_assert(better > 0 ? b[k].worse < b[k].level && b[k].better > b[k].level :
				       b[k].worse > b[k].level && b[k].better < b[k].level);
		/* The run alone's line, or nearer, the far-outside one. */
		if (b[k].worse != s[k].far_line)
			ck_assert_double_eq_tol(z_of(s[k], b[k].worse), zs, 1e-6);
		else
			ck_assert(z_of(s[k], b[k].worse) < zs);
		ck_assert_double_eq_tol(z_of(s[k], b[k].better), -zs, 1e-6);
		ck_assert(isfinite(b[k].sigma) && b[k].sigma > 0);
		ck_assert_double_eq_tol(b[k].h, gate_cusum_h(b[k].budget * share *
							     (1 - GATE_SHEWHART_SHARE),
							     GATE_CUSUM_K), 1e-12);
	}
	/* The next run (NaN current) has no residual; the judged one has. */
	ck_assert(isnan(b[0].z) && isnan(b[0].cusum) && isfinite(b[1].z));
	ck_assert(isnan(s[0].current));
	/* The run-alone rule at those lines, in the whole run's judgement:
	 * beyond the worse line (and beyond no tolerance) a regression. */
	for (k = 0; k < 2; k++) {
		struct gate_series all[3] = { s[0], s[1], s[2] };
		double edge = b[0].worse, away = edge - b[0].level;

		all[0].current = edge + away * (k ? 0.01 : -0.01);
		all[1].current = all[2].current = b[0].level;
		ck_assert_int_eq(gate_judge(all, 3, NULL), 0);
		if (k)
			ck_assert_int_eq(all[0].verdict, GATE_REGRESSION);
		else	/* inside: not proven (no tolerance: "too noisy") */
			ck_assert_int_ne(all[0].verdict, GATE_REGRESSION);
	}
	one = s[2];
	one.current = b[2].level;
	ck_assert_int_eq(gate_judge(&one, 1, NULL), 0);
	ck_assert_double_eq_tol(one.baseline, b[2].level, 1e-12);
}

START_TEST(test_lines_are_the_gates)
{
	check_lines(1, 0.02, 0);
	check_lines(-1, 0.02, 0);
	check_lines(1, 0.05, 1);
	check_lines(-1, 0.05, 1);
}
END_TEST

/* The CUSUM before the run: the regression CUSUM the gate carries in. */
START_TEST(test_cusum_before)
{
	static double w[30], r[40];
	struct gate_series s, t;
	struct gate_band b;
	size_t k;

	rng_state = 31;
	noise(w, 30, 100.0, 0.02);
	noise(r, 40, 100.0, 0.02);
	for (k = 34; k < 40; k++)
		r[k] -= 2.0;	/* a lasting 1 sd drop in the last runs */
	s = (struct gate_series){ .window = w, .n_window = 30, .current = NAN, .better = 1,
				  .rel_tol = NAN, .abs_tol = NAN, .within = NAN, .recent = r,
				  .n_recent = 40 };
	ck_assert_int_eq(gate_band_judge(&s, 1, NULL, &b), 0);
	ck_assert_double_gt(b.cusum_before, 0.5);
	/* A run at the level (z about 0) takes k off it: S = max(0, S0 + z / c - k),
	 * c >= 1 the gate's autocorrelation factor. */
	t = s;
	t.current = b.level;
	ck_assert_int_eq(gate_judge(&t, 1, NULL), 0);
	ck_assert_double_eq_tol(t.cusum, fmax(0, b.cusum_before - GATE_CUSUM_K),
				fabs(t.z_cusum) + 1e-9);
}
END_TEST

/* What the gate cannot judge has no band. */
START_TEST(test_no_band)
{
	double w[3] = { 1, 2, 3 };
	struct gate_series s[2];
	struct gate_band b[2];

	s[0] = (struct gate_series){ .window = w, .n_window = 3, .current = 2, .better = 1,
				     .rel_tol = NAN, .abs_tol = NAN, .within = NAN };
	s[1] = s[0];
	s[1].better = 0;
	ck_assert_int_eq(gate_band_judge(s, 2, NULL, b), 0);
	ck_assert(!b[0].judged && !b[1].judged);
	ck_assert(isnan(b[0].worse) && isnan(b[0].level));
	ck_assert_uint_eq(b[0].n_window, 3);
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("gate_band");
	TCase *c = tcase_create("gate_band");

	tcase_add_test(c, test_lines_are_the_gates);
	tcase_add_test(c, test_cusum_before);
	tcase_add_test(c, test_no_band);
	suite_add_tcase(s, c);
	return s;
}
