/*
 * Change points: the t distribution against closed forms and table values,
 * Welch's test, and E-divisive segmentation on series with known shifts and
 * on stationary noise (deterministic pseudo-random data: no flakes).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "check_main.h"
#include "report/judge/changepoint.h"
#include "report/judge/tails.h"
#include "sim_rng.h"

START_TEST(test_student_t)
{
	/* Closed forms: df 1 is Cauchy, df 2 is 1 - t / sqrt(2 + t^2). */
	ck_assert_double_eq_tol(tails_student_t_two_sided(1.0, 1.0), 0.5, 1e-12);
	ck_assert_double_eq_tol(tails_student_t_two_sided(2.0, 2.0), 1 - 2 / sqrt(6.0), 1e-12);
	ck_assert_double_eq_tol(tails_student_t_two_sided(-2.0, 2.0), 1 - 2 / sqrt(6.0), 1e-12);
	/* Table values. */
	ck_assert_double_eq_tol(tails_student_t_two_sided(2.228138852, 10), 0.05, 1e-8);
	ck_assert_double_eq_tol(tails_student_t_two_sided(4.032142983, 5), 0.01, 1e-8);
	ck_assert_double_eq_tol(tails_student_t_two_sided(1.959963985, 1e7), 0.05, 1e-6);
	ck_assert_double_eq(tails_student_t_two_sided(0.0, 7), 1.0);
	ck_assert(isnan(tails_student_t_two_sided(1.0, 0)));
}
END_TEST

START_TEST(test_fisher_f)
{
	/* F(1, d) is a t squared; F(2, 2) has P(F >= f) = 1 / (1 + f). */
	ck_assert_double_eq_tol(tails_f_upper(4.0, 1, 10), tails_student_t_two_sided(2.0, 10), 1e-12);
	ck_assert_double_eq_tol(tails_f_upper(3.0, 2, 2), 0.25, 1e-12);
	/* Table value: F(3, 12) at 0.05 is 3.490295. */
	ck_assert_double_eq_tol(tails_f_upper(3.490295, 3, 12), 0.05, 1e-6);
	ck_assert_double_eq(tails_f_upper(0.0, 2, 5), 1.0);
	ck_assert(isnan(tails_f_upper(1.0, 0, 5)));
}
END_TEST

START_TEST(test_welch)
{
	const double a[] = { 10, 11, 9, 10, 10 }, b[] = { 10, 11, 9, 10, 10 };
	const double c[] = { 20, 21, 19, 20, 20 }, k1[] = { 5, 5, 5 }, k2[] = { 6, 6, 6 };

	ck_assert_double_eq(changepoint_welch_p(a, 5, b, 5), 1.0);
	ck_assert(changepoint_welch_p(a, 5, c, 5) < 1e-6);
	/* No noise at all: equal is certain sameness, different certain change. */
	ck_assert_double_eq(changepoint_welch_p(k1, 3, k1, 3), 1.0);
	ck_assert_double_eq(changepoint_welch_p(k1, 3, k2, 3), 0.0);
	ck_assert(isnan(changepoint_welch_p(a, 1, b, 5)));
}
END_TEST

/* Signed as the values moved, also below zero: -10 -> -5 is +50 %. */
START_TEST(test_change_sign_negative)
{
	double x[40];
	struct changepoint *cp;
	int n;

	rng_state = 7;
	noise(x, 20, -10.0, 0.01);
	noise(x + 20, 20, -5.0, 0.01);
	n = changepoint_find(x, 40, NULL, &cp);
	ck_assert_int_eq(n, 1);
	ck_assert_double_eq_tol(cp[0].change, 0.5, 0.01);
	free(cp);
	ck_assert_double_eq(rel_change(-5, -10), 0.5);
	ck_assert_double_eq(rel_change(-15, -10), -0.5);
	ck_assert_double_eq(rel_change(5, 10), -0.5);
	ck_assert(isnan(rel_change(1, 0)));
}
END_TEST

START_TEST(test_one_shift)
{
	double x[100];
	struct changepoint *cp;
	int n;

	rng_state = 42;
	noise(x, 60, 100.0, 0.02);
	noise(x + 60, 40, 90.0, 0.02);	/* a 10% drop at run 60 */
	n = changepoint_find(x, 100, NULL, &cp);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(cp[0].index, 60);
	ck_assert_double_eq_tol(cp[0].before, 100.0, 1.0);
	ck_assert_double_eq_tol(cp[0].after, 90.0, 1.0);
	ck_assert_double_eq_tol(cp[0].change, -0.10, 0.015);
	ck_assert(cp[0].welch_p < 1e-6);
	/* The permutation test cannot say more than 1 in 2000. */
	ck_assert_double_eq(cp[0].detect_p, 1.0 / 2000);
	ck_assert_double_eq(cp[0].p_value, cp[0].detect_p);
	free(cp);
}
END_TEST

START_TEST(test_two_shifts)
{
	double x[120];
	struct changepoint *cp;
	int n;

	rng_state = 7;
	noise(x, 40, 50.0, 0.03);
	noise(x + 40, 40, 60.0, 0.03);
	noise(x + 80, 40, 50.0, 0.03);
	n = changepoint_find(x, 120, NULL, &cp);
	ck_assert_int_eq(n, 2);
	ck_assert_uint_eq(cp[0].index, 40);
	ck_assert_uint_eq(cp[1].index, 80);
	ck_assert(cp[0].change > 0.15 && cp[1].change < -0.12);
	free(cp);
}
END_TEST

START_TEST(test_stationary_noise)
{
	double x[60];
	struct changepoint *cp;
	int seq, flagged = 0, n;

	/* 200 unchanged histories: at p < 0.001 hardly any may show a change. */
	for (seq = 0; seq < 200; seq++) {
		rng_state = 1000 + (uint64_t)seq;
		noise(x, 60, 30.0, 0.13);
		n = changepoint_find(x, 60, NULL, &cp);
		ck_assert_int_ge(n, 0);
		flagged += n > 0;
		free(cp);
	}
	/* With a plain t-test on the best split it was 11 of 200. */
	ck_assert_msg(flagged <= 2, "%d of 200 stationary histories flagged", flagged);
}
END_TEST

START_TEST(test_long_history)
{
	size_t n = 10000;
	double *x = malloc(n * sizeof(*x));
	struct cp_opts o = CP_OPTS_DEFAULT;
	struct changepoint *cp;
	int k;

	ck_assert_ptr_nonnull(x);
	rng_state = 99;
	noise(x, 9000, 10.0, 0.05);
	noise(x + 9000, 1000, 9.0, 0.05);
	o.min_change = 0.05;
	k = changepoint_find(x, n, &o, &cp);
	ck_assert_int_eq(k, 1);
	ck_assert_uint_eq(cp[0].index, 9000);
	free(cp);
	free(x);
}
END_TEST

START_TEST(test_min_change)
{
	double x[80];
	struct cp_opts o = CP_OPTS_DEFAULT;
	struct changepoint *cp;

	rng_state = 5;
	noise(x, 40, 100.0, 0.002);
	noise(x + 40, 40, 101.0, 0.002);	/* 1%: certain, but small */
	ck_assert_int_eq(changepoint_find(x, 80, &o, &cp), 1);
	free(cp);
	o.min_change = 0.02;
	ck_assert_int_eq(changepoint_find(x, 80, &o, &cp), 0);
	ck_assert_ptr_null(cp);
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("changepoint");
	TCase *c = tcase_create("changepoint");

	tcase_add_test(c, test_student_t);
	tcase_add_test(c, test_fisher_f);
	tcase_add_test(c, test_welch);
	tcase_add_test(c, test_one_shift);
	tcase_add_test(c, test_two_shifts);
	tcase_add_test(c, test_stationary_noise);
	tcase_add_test(c, test_long_history);
	tcase_add_test(c, test_min_change);
	tcase_add_test(c, test_change_sign_negative);
	suite_add_tcase(s, c);
	return s;
}
