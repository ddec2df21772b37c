/*
 * A run's order as the history stores it (lib/report/store/run_order.c):
 * ISO 8601 date-times with a zone in UTC to the microsecond, so that
 * offsets compare as times (git log --format=%cI, %ci); anything else as
 * given; a date-time with a field out of range refused, saying what to
 * pass; the sort key breaks ties by the run id.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ksftmetric/report.h>

#include "check_main.h"
#include "history.h"

static void norm(const char *in, const char *want)
{
	char *out = NULL;

	ck_assert_int_eq(run_order_normalise("order", in, &out), 0);
	ck_assert_str_eq(out, want);
	free(out);
}

static void refused(const char *in)
{
	char *out = (char *)"x";

	ck_assert_int_eq(run_order_normalise("order", in, &out), -EINVAL);
	ck_assert_ptr_null(out);
	ck_assert_msg(strstr(ksft_metric_report_errmsg(), in) &&
		      strstr(ksft_metric_report_errmsg(), "pass ISO 8601 with a zone"),
		      "%s", ksft_metric_report_errmsg());
}

START_TEST(test_offsets_in_utc)
{
	norm("2026-12-01T10:30:00+02:00", "2026-12-01T08:30:00.000000Z");
	norm("2026-12-01T10:00:00Z", "2026-12-01T10:00:00.000000Z");
	norm("2026-12-01T10:00:00z", "2026-12-01T10:00:00.000000Z");
	norm("2026-12-01T10:30:00+0200", "2026-12-01T08:30:00.000000Z");
	norm("2026-12-01T10:30:00+02", "2026-12-01T08:30:00.000000Z");
	norm("2026-12-01 10:30:00 +0200", "2026-12-01T08:30:00.000000Z");	/* %ci */
	norm("2026-12-01T23:30:00-05:00", "2026-12-02T04:30:00.000000Z");
	norm("2026-01-01T00:30:00+01:00", "2025-12-31T23:30:00.000000Z");
	norm("2026-12-01T10:30Z", "2026-12-01T10:30:00.000000Z");
	norm("2026-12-01T10:30:00.5Z", "2026-12-01T10:30:00.500000Z");
	norm("2026-12-01T10:30:00,123456789+00:00", "2026-12-01T10:30:00.123456Z");
	norm("2028-02-29T12:00:00Z", "2028-02-29T12:00:00.000000Z");
	/* 10:30+02:00 is before 10:00Z, as text too once stored. */
	{
		char *a, *b;

		ck_assert_int_eq(run_order_normalise("order", "2026-12-01T10:30:00+02:00", &a), 0);
		ck_assert_int_eq(run_order_normalise("order", "2026-12-01T10:00:00Z", &b), 0);
		ck_assert_int_lt(strcmp(a, b), 0);
		free(a);
		free(b);
	}
}
END_TEST

START_TEST(test_other_text_as_given)
{
	norm("000123", "000123");
	norm("2026-12-01T08:02", "2026-12-01T08:02");	/* no zone */
	norm("2026-12-01", "2026-12-01");
	norm("build 7", "build 7");
	norm("2026-12-01T10:30:00+02:00 rc1", "2026-12-01T10:30:00+02:00 rc1");
	norm("", "");
}
END_TEST

START_TEST(test_out_of_range_refused)
{
	refused("2026-02-30T10:00:00+01:00");
	refused("2026-13-01T10:00:00Z");
	refused("2026-12-01T24:00:00Z");
	refused("2026-12-01T10:61:00Z");
	refused("2026-12-01T10:00:00+25:00");
	refused("2027-02-29T12:00:00Z");
}
END_TEST

START_TEST(test_sort_key)
{
	char *a = run_order_key("2026-12-01", "sha-b"), *b = run_order_key("2026-12-01", "sha-a");
	char *c = run_order_key("2026-12-01T", "sha-0");

	/* Ties by the run id; a shorter order before any longer one. */
	ck_assert_int_gt(strcmp(a, b), 0);
	ck_assert_int_lt(strcmp(a, c), 0);
	ck_assert_uint_eq(run_order_shown_len(a), strlen("2026-12-01"));
	ck_assert_uint_eq(run_order_shown_len("plain"), 5);
	free(a);
	free(b);
	free(c);
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("run_order");
	TCase *c = tcase_create("run_order");

	tcase_add_test(c, test_offsets_in_utc);
	tcase_add_test(c, test_other_text_as_given);
	tcase_add_test(c, test_out_of_range_refused);
	tcase_add_test(c, test_sort_key);
	suite_add_tcase(s, c);
	return s;
}
