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
		ck_assert_int_eq(ab_judge(a, b, 10, 1, NAN, 0.01, &r), 0);
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
		ck_assert_int_eq(ab_judge(a, b, 10, 1, 0.05, 0.01, &r), 0);
		found += r.verdict == GATE_REGRESSION;
		ck_assert_double_lt(r.ratio, 1.0);
	}
	ck_assert_uint_ge(found, 190);
	/* lower is better: the same drop is an improvement */
	ck_assert_int_eq(ab_judge(a, b, 10, -1, 0.05, 0.01, &r), 0);
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
	ck_assert_int_eq(ab_judge(a, b, 6, 1, NAN, 0.05, &r), 0);
	ck_assert_double_eq_tol(r.p_worse, 1.0 / 64, 1e-12);
	ck_assert_double_eq_tol(r.p_better, 1.0, 1e-12);
	ck_assert_int_eq(r.verdict, GATE_REGRESSION);
	/* within a 50 % tolerance: does not matter */
	ck_assert_int_eq(ab_judge(a, b, 6, 1, 0.5, 0.05, &r), 0);
	ck_assert_int_eq(r.verdict, GATE_NO_CHANGE);
	/* too few pairs for 1 %: cannot tell */
	ck_assert_int_eq(ab_judge(a, b, 6, 1, NAN, 0.01, &r), 0);
	ck_assert_int_eq(r.verdict, GATE_TOO_NOISY);
	/* identical: no change; no direction: untracked; bad values skipped */
	ck_assert_int_eq(ab_judge(a, same, 6, 1, NAN, 0.05, &r), 0);
	ck_assert_int_eq(r.verdict, GATE_NO_CHANGE);
	ck_assert_int_eq(ab_judge(a, b, 6, 0, NAN, 0.05, &r), 0);
	ck_assert_int_eq(r.verdict, GATE_UNTRACKED);
	{
		const double bad[] = { -1, NAN, 0.9, 0.8, 0.7, 0.6 };

		ck_assert_int_eq(ab_judge(a, bad, 6, 1, NAN, 0.05, &r), 0);
		ck_assert_uint_eq(r.n_pairs, 4);
	}
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("ab");
	TCase *c = tcase_create("ab");

	tcase_add_test(c, test_aa_false_alarms);
	tcase_add_test(c, test_finds_slower_b);
	tcase_add_test(c, test_exact_and_edges);
	suite_add_tcase(s, c);
	return s;
}
