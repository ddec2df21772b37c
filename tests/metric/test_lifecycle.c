/*
 * Test case lifecycle: begin/end, calls outside a case, the case clock and
 * the reporting scope counter (ksft.py's KSFT_METRICS* globals).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check_main.h"
#include "producer_util.h"

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

START_TEST(test_begin_end)
{
	char *text;
	int n;

	ck_assert_int_eq(ksft_metric_case_is_open(), 0);
	pu_begin();
	ck_assert_int_eq(ksft_metric_case_is_open(), 1);
	ck_assert_int_eq(ksft_metric_case_end(), 0);
	ck_assert_int_eq(ksft_metric_case_is_open(), 0);

	/* An empty case into a buffer: "" rather than NULL, length 0. */
	pu_begin();
	text = pu_end_text(&n);
	ck_assert_int_eq(n, 0);
	ck_assert_str_eq(text, "");
	free(text);

	/* Cases can follow each other indefinitely. */
	for (n = 0; n < 3; n++) {
		pu_begin();
		pu_assert_ok(ksft_metric_int("m", "scalar", n, NULL, 0));
		text = pu_end_text(NULL);
		ck_assert_int_eq((int)pu_count_lines(text), 1);
		free(text);
	}
}
END_TEST

START_TEST(test_empty_case_buffer)
{
	char *out = NULL;
	size_t len = 99;
	int i;

	/*
	 * An empty case still yields a NUL-terminated "" (the contract: "a
	 * malloc'd NUL-terminated text of whole lines"). Cases with output
	 * first, so the allocator hands back memory that held text.
	 */
	for (i = 0; i < 3; i++) {
		pu_begin();
		pu_assert_ok(ksft_metric_int("some.metric.with.a.long.name", "scalar", i, NULL, 0));
		ck_assert_int_eq(ksft_metric_case_end_buffer(&out, &len), 1);
		ksft_metric_free(out);
		pu_begin();
		out = NULL;
		len = 99;
		ck_assert_int_eq(ksft_metric_case_end_buffer(&out, &len), 0);
		ck_assert_ptr_nonnull(out);
		ck_assert_uint_eq(len, 0);
		ck_assert_msg(out[0] == '\0', "empty case text starts with byte 0x%02x, not NUL",
			      (unsigned char)out[0]);
		ksft_metric_free(out);
	}
}
END_TEST

START_TEST(test_outside_case)
{
	static const double v[2] = { 1, 2 };
	struct ksft_metric_policy pol = KSFT_METRIC_POLICY_INIT;

	pu_assert_err(ksft_metric_int("m", "scalar", 1, NULL, 0), EPERM,
		      "ksft_metric() called outside of a test case");
	pu_assert_err(ksft_metric_double("m", "scalar", 1.5, NULL, 0), EPERM,
		      "ksft_metric() called outside of a test case");
	pu_assert_err(ksft_metric_array("m", "per-cpu", v, NULL, 2, NULL, 0), EPERM,
		      "ksft_metric() called outside of a test case");
	pu_assert_err(ksft_metric_json("m", "scalar", "1", "{\"a\":1}"), EPERM,
		      "ksft_metric() called outside of a test case");
	pu_assert_err(ksft_metric_aggregate("m", NULL), EPERM,
		      "ksft_metric_aggregate() called outside of a test case");
	pu_assert_err(ksft_metric_aggregate("m", &pol), EPERM,
		      "ksft_metric_aggregate() called outside of a test case");
	pu_assert_err(ksft_metric_aggregate_json("m", "{\"summarize\":\"max\"}"), EPERM,
		      "ksft_metric_aggregate() called outside of a test case");
	pu_assert_err(ksft_metric_reporting(1), EPERM,
		      "ksft_metric_reporting() called outside of a test case");
	pu_assert_err(ksft_metric_reporting(0), EPERM,
		      "ksft_metric_reporting() called outside of a test case");
	ck_assert_int_eq(ksft_metric_reporting_enabled(), 0);

	/* After a case too, and nothing recorded in between leaks into the next. */
	pu_begin();
	ck_assert_int_eq(ksft_metric_case_end(), 0);
	pu_assert_err(ksft_metric_int("m", "scalar", 1, NULL, 0), EPERM,
		      "ksft_metric() called outside of a test case");
	pu_assert_err(ksft_metric_aggregate("m", NULL), EPERM,
		      "ksft_metric_aggregate() called outside of a test case");
	pu_begin();
	pu_expect_end("");
}
END_TEST

START_TEST(test_begin_twice)
{
	pu_begin();
	pu_assert_ok(ksft_metric_aggregate("m", NULL));
	pu_assert_ok(ksft_metric_int("m", "scalar", 7, NULL, 0));
	ck_assert_int_eq(ksft_metric_reporting(1), 1);
	ck_assert_int_eq(ksft_metric_case_begin(), -EBUSY);
	ck_assert_str_ne(ksft_metric_errmsg(), "");
	/* The rejected begin changed nothing: case, buffer, policies, scope. */
	ck_assert_int_eq(ksft_metric_case_is_open(), 1);
	ck_assert_int_eq(ksft_metric_reporting_enabled(), 1);
	pu_expect_end("# " PU_POL "{\"name\":\"m\",\"summarize\":\"total\"}\n"
		      "# " PU_OBS "{\"name\":\"m\",\"shape\":\"scalar\",\"time\":T,\"value\":7}\n");
}
END_TEST

START_TEST(test_end_without_begin)
{
	char *out = (char *)1;
	size_t len = 99;

	ck_assert_int_eq(ksft_metric_case_end(), -EPERM);
	ck_assert_str_ne(ksft_metric_errmsg(), "");
	ck_assert_int_eq(ksft_metric_case_end_buffer(&out, &len), -EPERM);
	ck_assert_ptr_null(out);
	/* Ending twice: the second end finds no case. */
	pu_begin();
	ck_assert_int_eq(ksft_metric_case_end(), 0);
	ck_assert_int_eq(ksft_metric_case_end(), -EPERM);
	ck_assert_int_eq(ksft_metric_case_is_open(), 0);
}
END_TEST

START_TEST(test_end_returns_line_count)
{
	static const double v[3] = { 1, 2, 3 };
	char *text;
	int n;

	pu_begin();
	pu_assert_ok(ksft_metric_aggregate("a", NULL));
	pu_assert_ok(ksft_metric_aggregate("b", NULL));
	pu_assert_ok(ksft_metric_aggregate("unobserved", NULL));
	pu_assert_ok(ksft_metric_int("a", "scalar", 1, NULL, 0));
	pu_assert_ok(ksft_metric_double("b", "scalar", 1, NULL, 0));
	pu_assert_ok(ksft_metric_array("c", "per-cpu", v, NULL, 3, NULL, 0));
	pu_assert_ok(ksft_metric_json("a", "scalar", "2", NULL));
	/* 2 policies (the unobserved one is left out) + 4 observations. */
	text = pu_end_text(&n);
	ck_assert_int_eq(n, 6);
	free(text);

	/* The sink path returns the same count. */
	pu_begin();
	pu_assert_ok(ksft_metric_aggregate("a", NULL));
	pu_assert_ok(ksft_metric_int("a", "scalar", 1, NULL, 0));
	pu_assert_ok(ksft_metric_int("a", "scalar", 2, NULL, 0));
	{
		struct pu_lines l = { 0 };

		pu_assert_ok(ksft_metric_set_output_callback(pu_collect_cb, &l));
		ck_assert_int_eq(ksft_metric_case_end(), 3);
		ck_assert_uint_eq(l.n, 3);
		pu_lines_free(&l);
	}
}
END_TEST

START_TEST(test_state_empty_after_end)
{
	struct ksft_metric_policy max = KSFT_METRIC_POLICY_INIT;
	struct pu_lines l = { 0 };

	max.summarize = "max";
	pu_assert_ok(ksft_metric_set_output_callback(pu_collect_cb, &l));
	/* Case 1: policy for "a" (observed) and "b" (never observed). */
	pu_begin();
	pu_assert_ok(ksft_metric_aggregate("a", &max));
	pu_assert_ok(ksft_metric_aggregate("b", &max));
	pu_assert_ok(ksft_metric_int("a", "scalar", 1, NULL, 0));
	ck_assert_int_eq(ksft_metric_reporting(1), 1);
	ck_assert_int_eq(ksft_metric_reporting(1), 2);
	ck_assert_int_eq(ksft_metric_case_end(), 2);
	ck_assert_uint_eq(l.n, 2);
	pu_lines_free(&l);
	/* Reporting counter is 0 right after end (before the next begin). */
	ck_assert_int_eq(ksft_metric_reporting_enabled(), 0);

	/* Case 2: nothing carried over. */
	pu_begin();
	ck_assert_int_eq(ksft_metric_reporting_enabled(), 0);
	ck_assert_int_eq(ksft_metric_reporting(1), 1);
	/* "a" was observed in case 1 only: registering now is not "late". */
	pu_assert_ok(ksft_metric_aggregate("a", NULL));
	/* "b" had another policy in case 1: no conflict now. */
	pu_assert_ok(ksft_metric_aggregate("b", NULL));
	pu_assert_ok(ksft_metric_int("b", "scalar", 2, NULL, 0));
	pu_expect_end("# " PU_POL "{\"name\":\"b\",\"summarize\":\"total\"}\n"
		      "# " PU_OBS "{\"name\":\"b\",\"shape\":\"scalar\",\"time\":T,\"value\":2}\n");

	/* Case 3: an observation of "a" without policy: no policy line. */
	pu_begin();
	pu_assert_ok(ksft_metric_int("a", "scalar", 3, NULL, 0));
	pu_expect_end("# " PU_OBS "{\"name\":\"a\",\"shape\":\"scalar\",\"time\":T,\"value\":3}\n");
}
END_TEST

START_TEST(test_state_empty_after_begin)
{
	/*
	 * A failed end (sink error) still closes and clears the case; the
	 * next begin starts from an empty buffer and policy table.
	 */
	struct pu_lines l = { 0 };

	l.fail_at = 1;
	l.fail_err = -EIO;
	pu_begin();
	pu_assert_ok(ksft_metric_aggregate("a", NULL));
	pu_assert_ok(ksft_metric_int("a", "scalar", 1, NULL, 0));
	ck_assert_int_eq(ksft_metric_reporting(1), 1);
	pu_assert_ok(ksft_metric_set_output_callback(pu_collect_cb, &l));
	ck_assert_int_eq(ksft_metric_case_end(), -EIO);
	ck_assert_int_eq(ksft_metric_case_is_open(), 0);
	ck_assert_int_eq(ksft_metric_reporting_enabled(), 0);
	pu_lines_free(&l);

	pu_begin();
	ck_assert_int_eq(ksft_metric_reporting_enabled(), 0);
	pu_assert_ok(ksft_metric_int("c", "scalar", 1, NULL, 0));
	pu_expect_end("# " PU_OBS "{\"name\":\"c\",\"shape\":\"scalar\",\"time\":T,\"value\":1}\n");
}
END_TEST

/* Record one observation and return its time value (text in @digits). */
static double record_time(char *digits, size_t size)
{
	char *text;
	double t = -1;

	pu_assert_ok(ksft_metric_int("t", "scalar", 0, NULL, 0));
	text = pu_end_text(NULL);
	ck_assert_msg(pu_time_of(text, &t, digits, size), "no time in %s", text);
	free(text);
	return t;
}

/* The number text has at most 6 decimals and is t rounded to microseconds. */
static void assert_microseconds(double t, const char *digits)
{
	const char *dot = strchr(digits, '.');
	char again[64];

	ck_assert_msg(!strchr(digits, 'e'), "time %s in exponent form", digits);
	ck_assert_msg(dot && strlen(dot + 1) >= 1 && strlen(dot + 1) <= 6,
		      "time %s does not have 1..6 decimals", digits);
	/* Round-trip through %.6f: nothing beyond the 6th decimal. */
	snprintf(again, sizeof(again), "%.6f", t);
	ck_assert_msg(strtod(again, NULL) == t, "time %s is not rounded to 6 decimals", digits);
}

START_TEST(test_time_since_begin)
{
	char digits[64];
	double t;

	pu_begin();
	sleep_ms(20);
	t = record_time(digits, sizeof(digits));
	ck_assert_msg(t > 0.015 && t < 5, "time %s after a 20 ms sleep", digits);
	assert_microseconds(t, digits);
}
END_TEST

START_TEST(test_time_restarts_at_begin)
{
	char d1[64], d2[64];
	double t1, t2;

	pu_begin();
	sleep_ms(60);
	t1 = record_time(d1, sizeof(d1));
	ck_assert_msg(t1 >= 0.06, "time %s after a 60 ms sleep", d1);
	/* The next case's clock starts at its own begin. */
	pu_begin();
	t2 = record_time(d2, sizeof(d2));
	ck_assert_msg(t2 >= 0 && t2 < t1, "time %s in a new case, previous case %s", d2, d1);
}
END_TEST

START_TEST(test_time_monotonic_in_case)
{
	double prev = -1;
	char *text, *p;
	int i;

	pu_begin();
	for (i = 0; i < 50; i++) {
		pu_assert_ok(ksft_metric_int("t", "scalar", i, NULL, 0));
		if (i % 10 == 0)
			sleep_ms(1);
	}
	text = pu_end_text(NULL);
	for (p = text; *p; p = strchr(p, '\n') + 1) {
		double t;
		char digits[64];

		ck_assert(pu_time_of(p, &t, digits, sizeof(digits)));
		ck_assert_msg(t >= prev, "time went back from %g to %s", prev, digits);
		if (t >= 1e-4)
			assert_microseconds(t, digits);
		prev = t;
	}
	ck_assert_msg(prev >= 0.004, "last time %g after 5 sleeps of 1 ms", prev);
	free(text);
}
END_TEST

START_TEST(test_reporting_counter)
{
	pu_begin();
	ck_assert_int_eq(ksft_metric_reporting_enabled(), 0);
	ck_assert_int_eq(ksft_metric_reporting(1), 1);
	ck_assert_int_eq(ksft_metric_reporting_enabled(), 1);
	/* Any nonzero value enters one level. */
	ck_assert_int_eq(ksft_metric_reporting(5), 2);
	ck_assert_int_eq(ksft_metric_reporting(-1), 3);
	ck_assert_int_eq(ksft_metric_reporting_enabled(), 1);
	ck_assert_int_eq(ksft_metric_reporting(0), 2);
	ck_assert_int_eq(ksft_metric_reporting(0), 1);
	ck_assert_int_eq(ksft_metric_reporting_enabled(), 1);
	ck_assert_int_eq(ksft_metric_reporting(0), 0);
	ck_assert_int_eq(ksft_metric_reporting_enabled(), 0);
	ck_assert_int_eq(ksft_metric_case_end(), 0);
}
END_TEST

START_TEST(test_reporting_leave_unentered)
{
	pu_begin();
	ck_assert_int_eq(ksft_metric_reporting(0), -EINVAL);
	ck_assert_str_ne(ksft_metric_errmsg(), "");
	/* Still 0: the failed leave did not go negative. */
	ck_assert_int_eq(ksft_metric_reporting_enabled(), 0);
	ck_assert_int_eq(ksft_metric_reporting(1), 1);
	ck_assert_int_eq(ksft_metric_reporting(0), 0);
	ck_assert_int_eq(ksft_metric_reporting(0), -EINVAL);
	ck_assert_int_eq(ksft_metric_reporting(1), 1);
	ck_assert_int_eq(ksft_metric_reporting_enabled(), 1);
	/* One line: the two refused leaves' warning (doc/line-format.rst). */
	ck_assert_int_eq(ksft_metric_case_end(), 1);
}
END_TEST

START_TEST(test_reporting_reset)
{
	/* Reset at end ... */
	pu_begin();
	ck_assert_int_eq(ksft_metric_reporting(1), 1);
	ck_assert_int_eq(ksft_metric_reporting(1), 2);
	ck_assert_int_eq(ksft_metric_case_end(), 0);
	ck_assert_int_eq(ksft_metric_reporting_enabled(), 0);
	pu_assert_err(ksft_metric_reporting(1), EPERM,
		      "ksft_metric_reporting() called outside of a test case");
	ck_assert_int_eq(ksft_metric_reporting_enabled(), 0);
	/* ... and at begin: the depth starts from 0 again. */
	pu_begin();
	ck_assert_int_eq(ksft_metric_reporting_enabled(), 0);
	ck_assert_int_eq(ksft_metric_reporting(0), -EINVAL);
	ck_assert_int_eq(ksft_metric_reporting(1), 1);
	ck_assert_int_eq(ksft_metric_case_end(), 1);	/* the refused leave's warning */
}
END_TEST

static void *other_thread_errmsg(void *arg)
{
	char *out = arg;

	/* A fresh thread has no message; its failure stays its own. */
	snprintf(out, 256, "[%s]", ksft_metric_errmsg());
	if (ksft_metric_reporting(1) != -EPERM)
		snprintf(out, 256, "reporting did not fail");
	else
		snprintf(out + strlen(out), 256 - strlen(out), "%s", ksft_metric_errmsg());
	return NULL;
}

START_TEST(test_errmsg_thread_local)
{
	char other[256] = "";
	pthread_t th;

	pu_assert_err(ksft_metric_int("m", "scalar", 1, NULL, 0), EPERM,
		      "ksft_metric() called outside of a test case");
	ck_assert_int_eq(pthread_create(&th, NULL, other_thread_errmsg, other), 0);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	ck_assert_str_eq(other, "[]ksft_metric_reporting() called outside of a test case");
	/* This thread's message is untouched by the other thread's failure. */
	ck_assert_str_eq(ksft_metric_errmsg(), "ksft_metric() called outside of a test case");
	/* A successful call leaves the last failure's message in place. */
	pu_begin();
	ck_assert_str_eq(ksft_metric_errmsg(), "ksft_metric() called outside of a test case");
	ck_assert_int_eq(ksft_metric_case_end(), 0);
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("lifecycle");

	suite_add_tcase(s, pu_tcase("begin_end", test_begin_end));
	suite_add_tcase(s, pu_tcase("empty_case_buffer", test_empty_case_buffer));
	suite_add_tcase(s, pu_tcase("outside_case", test_outside_case));
	suite_add_tcase(s, pu_tcase("begin_twice", test_begin_twice));
	suite_add_tcase(s, pu_tcase("end_without_begin", test_end_without_begin));
	suite_add_tcase(s, pu_tcase("end_returns_line_count", test_end_returns_line_count));
	suite_add_tcase(s, pu_tcase("state_empty_after_end", test_state_empty_after_end));
	suite_add_tcase(s, pu_tcase("state_empty_after_begin", test_state_empty_after_begin));
	suite_add_tcase(s, pu_tcase("time_since_begin", test_time_since_begin));
	suite_add_tcase(s, pu_tcase("time_restarts_at_begin", test_time_restarts_at_begin));
	suite_add_tcase(s, pu_tcase("time_monotonic_in_case", test_time_monotonic_in_case));
	suite_add_tcase(s, pu_tcase("reporting_counter", test_reporting_counter));
	suite_add_tcase(s, pu_tcase("reporting_leave_unentered", test_reporting_leave_unentered));
	suite_add_tcase(s, pu_tcase("reporting_reset", test_reporting_reset));
	suite_add_tcase(s, pu_tcase("errmsg_thread_local", test_errmsg_thread_local));
	return s;
}
