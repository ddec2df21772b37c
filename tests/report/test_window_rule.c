/*
 * The history window's rule (lib/report/model/window_rule.c), the
 * one copy the gate (judge/history_gate.c) and the chart band
 * (judge/history_band.c) take through store/history_window_read.c: the transient rule, a run's repeats, the
 * oldest-first order, and the SQL reading as many recent runs as the band.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "history_sql.h"
#include "window_rule.h"
#include "verdict_vocab.h"

START_TEST(test_sizes)
{
	char limit[32];

	ck_assert_uint_eq(history_window_rule_size(0), HISTORY_WINDOW_DEFAULT);
	ck_assert_uint_eq(history_window_rule_size(0), 30);
	ck_assert_uint_eq(history_window_rule_size(12), 12);
	/* The gate's SQL reads exactly the recent runs the band keeps. */
	snprintf(limit, sizeof(limit), "LIMIT %d", HISTORY_RECENT_RUNS);
	ck_assert_str_eq(HISTORY_RECENT_RUNS_SQL, "63");
	ck_assert_ptr_nonnull(strstr(HISTORY_SHIFT_SQL, limit));
	ck_assert_int_eq(HISTORY_TRANSIENT_AFTER, 2);
}
END_TEST

/* Newest first: a flagged run is back in the window once
 * HISTORY_TRANSIENT_AFTER newer runs were at the level (no change or
 * better, not too noisy), and only within the window's reach. */
START_TEST(test_transient)
{
	struct history_window_rule_scan s = { 0 };

	/* No newer run at the level yet: it stays out. */
	ck_assert_int_eq(history_window_rule_transient(&s, 0, 30, KSFTM_VERDICT_REGRESSION, 1), 0);
	ck_assert_int_eq(history_window_rule_transient(&s, 1, 30, KSFTM_VERDICT_NO_CHANGE, 0), 0);
	/* A too-noisy run does not count as back at the level. */
	ck_assert_int_eq(history_window_rule_transient(&s, 2, 30, KSFTM_VERDICT_TOO_NOISY, 0), 0);
	ck_assert_int_eq(history_window_rule_transient(&s, 3, 30, KSFTM_VERDICT_REGRESSION, 1), 0);
	ck_assert_int_eq(history_window_rule_transient(&s, 4, 30, KSFTM_VERDICT_IMPROVEMENT, 0), 0);
	ck_assert_uint_eq(s.clean, 2);
	ck_assert_int_eq(history_window_rule_transient(&s, 5, 30, KSFTM_VERDICT_REGRESSION, 1), 1);
	/* An accepted regression is not flagged: no run back at the level. */
	ck_assert_int_eq(history_window_rule_transient(&s, 6, 30, KSFTM_VERDICT_REGRESSION, 0), 0);
	ck_assert_uint_eq(s.clean, 2);
	/* Past the window's reach: out. */
	ck_assert_int_eq(history_window_rule_transient(&s, 30, 30, KSFTM_VERDICT_REGRESSION, 1), 0);
	ck_assert_int_eq(history_window_rule_transient(&s, 29, 30, KSFTM_VERDICT_REGRESSION, 1), 1);
}
END_TEST

START_TEST(test_repeats)
{
	size_t n;
	double var;

	history_window_rule_repeats("[1, 2, 3]", &n, &var);
	ck_assert_uint_eq(n, 3);
	ck_assert_double_eq_tol(var, 1.0, 1e-12);
	history_window_rule_repeats("[5]", &n, &var);
	ck_assert_uint_eq(n, 1);
	ck_assert(isnan(var));
	/* Not all numbers, not an array, nothing: unknown. */
	history_window_rule_repeats("[1, \"x\"]", &n, &var);
	ck_assert_uint_eq(n, 0);
	ck_assert(isnan(var));
	history_window_rule_repeats("{\"a\": 1}", &n, &var);
	ck_assert_uint_eq(n, 0);
	ck_assert(isnan(var));
	history_window_rule_repeats("[", &n, &var);
	ck_assert_uint_eq(n, 0);
	history_window_rule_repeats(NULL, &n, &var);
	ck_assert_uint_eq(n, 0);
	ck_assert(isnan(var));
}
END_TEST

START_TEST(test_oldest_first)
{
	double v[3] = { 3, 2, 1 }, w[3] = { 0.3, 0.2, 0.1 };
	size_t r[3] = { 30, 20, 10 };

	history_window_rule_oldest_first(v, w, r, NULL, 3);
	ck_assert_double_eq(v[0], 1);
	ck_assert_double_eq(v[2], 3);
	ck_assert_double_eq(w[0], 0.1);
	ck_assert_double_eq(w[1], 0.2);
	ck_assert_uint_eq(r[0], 10);
	ck_assert_uint_eq(r[2], 30);
	history_window_rule_oldest_first(v, w, r, NULL, 0);
	ck_assert_double_eq(v[0], 1);
}
END_TEST

/*
 * Issue 40: the held-out rule's lenient line, HISTORY_HOLD_Z robust sd of
 * successive differences on the worse side of the level, on logarithms
 * for positive values; none for too few runs, no spread, no direction.
 * And the held flags turn oldest first with their runs.
 */
START_TEST(test_hold_line)
{
	/* Alternating 100 and 102, seven runs: six successive differences of
	 * +-log(1.02), median 0, MAD log(1.02); one run's robust sd is
	 * 1.4826 log(1.02) / sqrt(2). */
	double v[8] = { 100, 102, 100, 102, 100, 102, 100, 102 }, scratch[16];
	double sd = log(102.0 / 100.0) * 1.4826 / sqrt(2.0), line;
	double w[3] = { 0, 0, 0 };
	size_t r[3] = { 3, 3, 3 };
	unsigned char held[3] = { 1, 0, 0 };

	line = history_window_rule_hold_line(v, 7, 101, 1, scratch);
	ck_assert_double_eq_tol(line, 101 * exp(-HISTORY_HOLD_Z * sd), 1e-9);
	line = history_window_rule_hold_line(v, 7, 101, -1, scratch);
	ck_assert_double_eq_tol(line, 101 * exp(HISTORY_HOLD_Z * sd), 1e-9);
	ck_assert(isnan(history_window_rule_hold_line(v, 3, 101, 1, scratch)));
	ck_assert(isnan(history_window_rule_hold_line(v, 7, 101, 0, scratch)));
	for (size_t k = 0; k < 8; k++)
		v[k] = 5;
	ck_assert(isnan(history_window_rule_hold_line(v, 8, 5, 1, scratch)));
	/* held flags reversed with the values */
	history_window_rule_oldest_first(v, w, r, held, 3);
	ck_assert_uint_eq(held[0], 0);
	ck_assert_uint_eq(held[2], 1);
	ck_assert_uint_eq(HISTORY_HOLD_MIN_REPEATS, 3);
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("window_rule");
	TCase *c = tcase_create("window_rule");

	tcase_add_test(c, test_sizes);
	tcase_add_test(c, test_transient);
	tcase_add_test(c, test_repeats);
	tcase_add_test(c, test_oldest_first);
	tcase_add_test(c, test_hold_line);
	suite_add_tcase(s, c);
	return s;
}
