/*
 * Paired A/B judging (lib/report/judge/ab.h): an A/A set (both variants
 * the same) fails at most at the test's rate (measured over 4000 sets and
 * asserted with room), a 10 % slower B is found from 10 pairs whose pairs
 * share the machine's drift, the signed-rank p-values are exact for small
 * sets, and the tolerance and direction decide as in the gate.
 */
#include <math.h>
#include <stdlib.h>

#include "check_main.h"
#include "report/judge/ab.h"
#include "sim_rng.h"

/* Ten pairs: a drifting level both variants share, 3 % noise each. */
static void pairs(double *a, double *b, size_t n, double b_factor)
{
	size_t i;
	double level = 100;

	for (i = 0; i < n; i++) {
		level *= 1 + 0.08 * gauss();	/* the machine's state, shared */
		a[i] = level * (1 + 0.03 * gauss());
		b[i] = level * b_factor * (1 + 0.03 * gauss());
	}
}

START_TEST(test_aa_false_alarms)
{
	double a[10], b[10];
	struct ab_result r;
	size_t t, failed = 0, better = 0;

	rng_state = 51;
	for (t = 0; t < 4000; t++) {
		pairs(a, b, 10, 1.0);
		ck_assert_int_eq(ab_judge(a, b, 10, 1, NAN, NAN, 0.01, &r), 0);
		failed += r.verdict == GATE_REGRESSION;
		better += r.verdict == GATE_IMPROVEMENT;
	}
	/* one-sided 1 %: exact p of 10 pairs is discrete, at most 1 % */
	ck_assert_uint_le(failed, 60);
	ck_assert_uint_le(better, 60);
	ck_assert_uint_gt(failed, 0);
}
END_TEST

START_TEST(test_finds_slower_b)
{
	double a[10], b[10];
	struct ab_result r;
	size_t t, found = 0;

	rng_state = 53;
	for (t = 0; t < 200; t++) {
		pairs(a, b, 10, 0.90);
		ck_assert_int_eq(ab_judge(a, b, 10, 1, 0.05, NAN, 0.01, &r), 0);
		found += r.verdict == GATE_REGRESSION;
		ck_assert_double_lt(r.ratio, 1.0);
	}
	ck_assert_uint_ge(found, 190);
	/* lower is better: the same drop is an improvement */
	ck_assert_int_eq(ab_judge(a, b, 10, -1, 0.05, NAN, 0.01, &r), 0);
	ck_assert_int_ne(r.verdict, GATE_REGRESSION);
}
END_TEST

START_TEST(test_exact_and_edges)
{
	const double a[] = { 1, 1, 1, 1, 1, 1 };
	const double b[] = { 0.9, 0.8, 0.95, 0.7, 0.85, 0.99 };
	const double same[] = { 1, 1, 1, 1, 1, 1 };
	struct ab_result r;

	/* all six B below A: W- = 21, P = 1/64 exactly */
	ck_assert_int_eq(ab_judge(a, b, 6, 1, NAN, NAN, 0.05, &r), 0);
	ck_assert_double_eq_tol(r.p_worse, 1.0 / 64, 1e-12);
	ck_assert_double_eq_tol(r.p_better, 1.0, 1e-12);
	ck_assert_int_eq(r.verdict, GATE_REGRESSION);
	/* within a 50 % tolerance: does not matter */
	ck_assert_int_eq(ab_judge(a, b, 6, 1, 0.5, NAN, 0.05, &r), 0);
	ck_assert_int_eq(r.verdict, GATE_NO_CHANGE);
	/* too few pairs for 1 %: cannot tell */
	ck_assert_int_eq(ab_judge(a, b, 6, 1, NAN, NAN, 0.01, &r), 0);
	ck_assert_int_eq(r.verdict, GATE_TOO_NOISY);
	/* identical: no change; no direction: untracked; bad values skipped */
	ck_assert_int_eq(ab_judge(a, same, 6, 1, NAN, NAN, 0.05, &r), 0);
	ck_assert_int_eq(r.verdict, GATE_NO_CHANGE);
	ck_assert_int_eq(ab_judge(a, b, 6, 0, NAN, NAN, 0.05, &r), 0);
	ck_assert_int_eq(r.verdict, GATE_UNTRACKED);
	{
		const double bad[] = { -1, NAN, 0.9, 0.8, 0.7, 0.6 };

		/* -1 is a value (judged as a difference), NaN is not */
		ck_assert_int_eq(ab_judge(a, bad, 6, 1, NAN, NAN, 0.05, &r), 0);
		ck_assert_uint_eq(r.n_pairs, 5);
		ck_assert_int_eq(r.diff, 1);
	}
}
END_TEST

/*
 * Issue 33 item 2: a lower-is-better count from 0 (A) to 50+ (B) in 10 of
 * 10 pairs has no ratio; its differences are judged: a regression, never
 * NO CHANGE from 0 usable pairs.
 */
START_TEST(test_zero_values_judged_by_difference)
{
	const double a[10] = { 0 }, aa[10] = { 0 };
	const double b[10] = { 50, 52, 61, 57, 55, 70, 51, 58, 66, 53 };
	struct ab_result r;
	int k;

	for (k = 0; k < 2; k++) {	/* twice: the same verdict */
		ck_assert_int_eq(ab_judge(a, b, 10, -1, 0.05, NAN, 0.01, &r), 0);
		ck_assert_uint_eq(r.n_pairs, 10);
		ck_assert_int_eq(r.diff, 1);
		ck_assert(isnan(r.ratio));
		ck_assert_double_eq_tol(r.shift, 55.5, 3);
		ck_assert_double_eq_tol(r.p_worse, 1.0 / 1024, 1e-12);
		ck_assert_int_eq(r.verdict, GATE_REGRESSION);
	}
	/* higher is better: the same rise is an improvement */
	ck_assert_int_eq(ab_judge(a, b, 10, 1, 0.05, NAN, 0.01, &r), 0);
	ck_assert_int_eq(r.verdict, GATE_IMPROVEMENT);
	/* 0 and 0 throughout: no change (all differences zero) */
	ck_assert_int_eq(ab_judge(a, aa, 10, -1, 0.05, NAN, 0.01, &r), 0);
	ck_assert_int_eq(r.verdict, GATE_NO_CHANGE);
	/* below an absolute tolerance of 100: no change */
	ck_assert_int_eq(ab_judge(a, b, 10, -1, NAN, 100, 0.01, &r), 0);
	ck_assert_int_eq(r.verdict, GATE_NO_CHANGE);
}
END_TEST

/* Issue 33 items 2 and 4: nothing to judge, or too few pairs to reach
 * alpha, is TOO NOISY (never NO CHANGE), and says how many are needed. */
START_TEST(test_cannot_judge_is_not_no_change)
{
	const double a[6] = { 1, 1, 1, 1, 1, 1 };
	const double b[6] = { 0.53, 0.52, 0.55, 0.51, 0.54, 0.50 };
	const double same[6] = { 1.001, 0.999, 1.002, 1, 1.001, 0.998 };
	const double none[3] = { NAN, NAN, NAN };
	struct ab_result r;

	ck_assert_uint_eq(ab_pairs_needed(0.01), 7);
	ck_assert_uint_eq(ab_pairs_needed(0.05), 5);
	ck_assert_uint_eq(ab_pairs_needed(1.0 / 64), 6);
	ck_assert_uint_eq(ab_pairs_needed(0.01 / 3), 9);
	/* a -47 % drop in all 6 pairs: 1/64 > 0.01, cannot tell, needs 7 */
	ck_assert_int_eq(ab_judge(a, b, 6, 1, 0.05, NAN, 0.01, &r), 0);
	ck_assert_int_eq(r.verdict, GATE_TOO_NOISY);
	ck_assert_uint_eq(r.pairs_needed, 7);
	/* within tolerance on 6 pairs is no proof of "no change" either */
	ck_assert_int_eq(ab_judge(a, same, 6, 1, 0.05, NAN, 0.01, &r), 0);
	ck_assert_int_eq(r.verdict, GATE_TOO_NOISY);
	/* no usable pair at all */
	ck_assert_int_eq(ab_judge(none, none, 3, 1, 0.05, NAN, 0.01, &r), 0);
	ck_assert_uint_eq(r.n_pairs, 0);
	ck_assert_int_eq(r.verdict, GATE_TOO_NOISY);
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("ab");
	TCase *c = tcase_create("ab");

	tcase_add_test(c, test_aa_false_alarms);
	tcase_add_test(c, test_finds_slower_b);
	tcase_add_test(c, test_exact_and_edges);
	tcase_add_test(c, test_zero_values_judged_by_difference);
	tcase_add_test(c, test_cannot_judge_is_not_no_change);
	suite_add_tcase(s, c);
	return s;
}
