/*
 * Units for display (lib/report/model/units.c): a known SI or binary unit
 * is scaled to the prefix that reads best, 6 significant digits (%.6g, as
 * every other number of the tables); any other
 * label follows the number as given; display_scale comes first.
 */
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

START_TEST(test_si_rates)
{
	ck_assert_str_eq(txt(7.981e9, NAN, "bps"), "7.981 Gbit/s");
	ck_assert_str_eq(txt(7.981e9, NAN, "bit/s"), "7.981 Gbit/s");
	ck_assert_str_eq(txt(32.62286, NAN, "Gbps"), "32.6229 Gbit/s");
	ck_assert_str_eq(txt(0.5, NAN, "Gbps"), "500 Mbit/s");
	ck_assert_str_eq(txt(1500, NAN, "Gbps"), "1.5 Tbit/s");
	ck_assert_str_eq(txt(999.9997, NAN, "kbit/s"), "1 Mbit/s");	/* rounding */
	ck_assert_str_eq(txt(12, NAN, "bps"), "12 bit/s");
	ck_assert_str_eq(txt(0.25, NAN, "bps"), "0.25 bit/s");	/* no sub-unit rates */
	ck_assert_str_eq(txt(2.5e6, NAN, "pps"), "2.5 Mpps");
	ck_assert_str_eq(txt(3.2e9, NAN, "Hz"), "3.2 GHz");
	ck_assert_str_eq(txt(1.25e8, NAN, "B/s"), "125 MB/s");
	ck_assert_str_eq(txt(-2e9, NAN, "bps"), "-2 Gbit/s");
	ck_assert_str_eq(txt(0, NAN, "Gbps"), "0 Gbit/s");
}
END_TEST

START_TEST(test_binary_and_time)
{
	ck_assert_str_eq(txt(1536, NAN, "B"), "1.5 KiB");
	ck_assert_str_eq(txt(3 * 1048576.0, NAN, "bytes"), "3 MiB");
	ck_assert_str_eq(txt(2048, NAN, "MiB"), "2 GiB");
	ck_assert_str_eq(txt(1500, NAN, "MB"), "1.5 GB");	/* SI stays SI */
	ck_assert_str_eq(txt(1500, NAN, "us"), "1.5 ms");
	ck_assert_str_eq(txt(0.000042, NAN, "s"), "42 us");
	ck_assert_str_eq(txt(0.5, NAN, "us"), "500 ns");
	ck_assert_str_eq(txt(7200, NAN, "s"), "7200 s");	/* no ks */
	ck_assert_str_eq(txt(250, NAN, "Latency (us)"), "250 us");
	ck_assert_str_eq(txt(2500, NAN, "Latency (us)"), "2.5 ms");
}
END_TEST

START_TEST(test_other_labels_and_scale)
{
	ck_assert_str_eq(txt(42.5, NAN, "CPU ms/GB"), "42.5 CPU ms/GB");
	ck_assert_str_eq(txt(0.0425, 1000, "CPU ms/GB"), "42.5 CPU ms/GB");
	ck_assert_str_eq(txt(12.5, NAN, "%"), "12.5 %");
	ck_assert_str_eq(txt(12.5, NAN, "furlongs per fortnight"), "12.5 furlongs per fortnight");
	ck_assert_str_eq(txt(12.5, NAN, NULL), "12.5");
	/* display_scale first, then the unit: 7.981 (Gbit) * 1000 in Mbps */
	ck_assert_str_eq(txt(7.981, 1000, "Mbps"), "7.981 Gbit/s");
	ck_assert_str_eq(txt(NAN, NAN, "Gbps"), "-");
	ck_assert_str_eq(txt(INFINITY, NAN, "Gbps"), "-");
	/* Case matters: "mbps" is no unit we know (milli? mega?). */
	ck_assert_str_eq(txt(5, NAN, "mbps"), "5 mbps");
}
END_TEST

START_TEST(test_truncation)
{
	char buf[6];
	int n = ksft_metric_report_value_text(buf, sizeof(buf), 7.981e9, NAN, "bps");

	ck_assert_int_eq(n, (int)strlen("7.981 Gbit/s"));
	ck_assert_str_eq(buf, "7.981");
	ck_assert_int_lt(ksft_metric_report_value_text(NULL, 4, 1, NAN, "B"), 0);
	ck_assert_int_eq(ksft_metric_report_value_text(NULL, 0, 1, NAN, "B"), 3);
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("units");
	TCase *c = tcase_create("units");

	tcase_add_test(c, test_si_rates);
	tcase_add_test(c, test_binary_and_time);
	tcase_add_test(c, test_other_labels_and_scale);
	tcase_add_test(c, test_truncation);
	suite_add_tcase(s, c);
	return s;
}
