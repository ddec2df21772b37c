/*
 * Units for display (lib/report/model/units.c): a value times
 * display_scale, 6 significant digits (%.6g, as every other number of the
 * tables), then the author's display_label as written: no prefix is ever
 * chosen for it; and the one rule deciding a series' unit and scale.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include <ksftmetric/report.h>

#include "check_main.h"

static const char *txt(double v, double scale, const char *label)
{
	static char buf[128];

	ck_assert_int_gt(ksft_metric_report_value_text(buf, sizeof(buf), v, scale, label), 0);
	return buf;
}

/* Issue 34: the author's unit as written, whatever the numbers. */
START_TEST(test_author_unit_kept)
{
	ck_assert_str_eq(txt(1.25e3, NAN, "MB/s"), "1250 MB/s");	/* not 1.25 GB/s */
	ck_assert_str_eq(txt(0.5, NAN, "MB/s"), "0.5 MB/s");	/* not 500 kB/s */
	ck_assert_str_eq(txt(7.981e9, NAN, "bps"), "7.981e+09 bps");
	ck_assert_str_eq(txt(32.62286, NAN, "Gbps"), "32.6229 Gbps");
	ck_assert_str_eq(txt(0.5, NAN, "Gbps"), "0.5 Gbps");
	ck_assert_str_eq(txt(1536, NAN, "B"), "1536 B");
	ck_assert_str_eq(txt(1500, NAN, "us"), "1500 us");
	ck_assert_str_eq(txt(2500, NAN, "Latency (us)"), "2500 Latency (us)");
	ck_assert_str_eq(txt(-2e9, NAN, "bps"), "-2e+09 bps");
	ck_assert_str_eq(txt(0, NAN, "Gbps"), "0 Gbps");
}
END_TEST

START_TEST(test_other_labels_and_scale)
{
	ck_assert_str_eq(txt(42.5, NAN, "CPU ms/GB"), "42.5 CPU ms/GB");
	/* history's 0.6188 is compare's 618.8 (issue 34) */
	ck_assert_str_eq(txt(0.6188, 1000, "test CPU ms/GB"), "618.8 test CPU ms/GB");
	ck_assert_str_eq(txt(12.5, NAN, "%"), "12.5 %");
	ck_assert_str_eq(txt(12.5, NAN, "furlongs per fortnight"), "12.5 furlongs per fortnight");
	ck_assert_str_eq(txt(12.5, NAN, NULL), "12.5");
	ck_assert_str_eq(txt(12.5, 2, NULL), "25");
	/* display_scale first, then the label as written */
	ck_assert_str_eq(txt(7.981, 1000, "Mbps"), "7981 Mbps");
	ck_assert_str_eq(txt(NAN, NAN, "Gbps"), "-");
	ck_assert_str_eq(txt(INFINITY, NAN, "Gbps"), "-");
	ck_assert_str_eq(txt(5, NAN, "mbps"), "5 mbps");
}
END_TEST

/* The one rule every output follows: a series' unit and scale. */
START_TEST(test_display_unit)
{
	const char *unit = "x";
	double scale = 0;

	ck_assert_int_eq(ksft_metric_report_display_unit(1000, "test CPU ms/GB", NULL,
							 &scale, &unit), 0);
	ck_assert(scale == 1000);
	ck_assert_str_eq(unit, "test CPU ms/GB");
	ck_assert_int_eq(ksft_metric_report_display_unit(NAN, "MB/s", NULL, &scale, &unit), 0);
	ck_assert(scale == 1);
	ck_assert_str_eq(unit, "MB/s");
	/* No label: no unit invented; display_scale alone still scales. */
	ck_assert_int_eq(ksft_metric_report_display_unit(100, NULL, NULL, &scale, &unit), 0);
	ck_assert(scale == 100);
	ck_assert_ptr_null(unit);
	/* Aggregated: busy cores, unscaled (the label is per element). */
	ck_assert_int_eq(ksft_metric_report_display_unit(100, "Percent of one CPU",
							 "busy-core-equivalents", &scale,
							 &unit), 0);
	ck_assert(scale == 1);
	ck_assert_str_eq(unit, "busy cores");
	ck_assert_int_eq(ksft_metric_report_display_unit(NAN, "Gbps", "", &scale, &unit), 0);
	ck_assert_str_eq(unit, "Gbps");
	ck_assert_int_eq(ksft_metric_report_display_unit(1, "B", NULL, NULL, &unit), -EINVAL);
	ck_assert_int_eq(ksft_metric_report_display_unit(1, "B", NULL, &scale, NULL), -EINVAL);
}
END_TEST

START_TEST(test_truncation)
{
	char buf[6];
	int n = ksft_metric_report_value_text(buf, sizeof(buf), 7.981, NAN, "Gbps");

	ck_assert_int_eq(n, (int)strlen("7.981 Gbps"));
	ck_assert_str_eq(buf, "7.981");
	ck_assert_int_lt(ksft_metric_report_value_text(NULL, 4, 1, NAN, "B"), 0);
	ck_assert_int_eq(ksft_metric_report_value_text(NULL, 0, 1, NAN, "B"), 3);
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("units");
	TCase *c = tcase_create("units");

	tcase_add_test(c, test_author_unit_kept);
	tcase_add_test(c, test_other_labels_and_scale);
	tcase_add_test(c, test_display_unit);
	tcase_add_test(c, test_truncation);
	suite_add_tcase(s, c);
	return s;
}
