/*
 * ksft_metric(): the C11 _Generic call picks the typed call from the value's
 * type, so an int prints as an integer, a double in shortest repr and a
 * uint64_t counter beyond int64 is refused instead of wrapping negative.
 */
#include <stdint.h>

#include "check_main.h"
#include "producer_util.h"

#define OBS(json) "# " PU_OBS json "\n"
#define M(v) OBS("{\"name\":\"m\",\"shape\":\"scalar\",\"time\":T,\"value\":" v "}")

START_TEST(test_integer_types)
{
	signed char sc = -5;
	unsigned char uc = 200;
	short sh = -300;
	unsigned short us = 60000;
	long l = -7;
	unsigned long ul = 4000000000UL;
	long long ll = INT64_MIN;
	uint64_t u64 = (uint64_t)INT64_MAX;

	pu_begin();
	pu_assert_ok(ksft_metric("m", "scalar", 3, NULL, 0));
	pu_assert_ok(ksft_metric("m", "scalar", sc, NULL, 0));
	pu_assert_ok(ksft_metric("m", "scalar", uc, NULL, 0));
	pu_assert_ok(ksft_metric("m", "scalar", sh, NULL, 0));
	pu_assert_ok(ksft_metric("m", "scalar", us, NULL, 0));
	pu_assert_ok(ksft_metric("m", "scalar", l, NULL, 0));
	pu_assert_ok(ksft_metric("m", "scalar", ul, NULL, 0));
	pu_assert_ok(ksft_metric("m", "scalar", ll, NULL, 0));
	pu_assert_ok(ksft_metric("m", "scalar", u64, NULL, 0));
	pu_expect_end(M("3") M("-5") M("200") M("-300") M("60000") M("-7")
		      M("4000000000") M("-9223372036854775808")
		      M("9223372036854775807"));
}
END_TEST

START_TEST(test_floating_types)
{
	float f = 0.5f;
	long double ld = 2.25L;

	pu_begin();
	pu_assert_ok(ksft_metric("m", "scalar", 100.0, NULL, 0));
	pu_assert_ok(ksft_metric("m", "scalar", f, NULL, 0));
	pu_assert_ok(ksft_metric("m", "scalar", ld, NULL, 0));
	pu_assert_ok(ksft_metric("m", "scalar", 0.1, NULL, 0));
	pu_expect_end(M("100.0") M("0.5") M("2.25") M("0.1"));
}
END_TEST

START_TEST(test_labels)
{
	const struct ksft_metric_label labels[] = {
		KSFT_METRIC_LABEL_STR("host", "local"),
		KSFT_METRIC_LABEL_INT("cpu", 3),
	};

	pu_begin();
	pu_assert_ok(ksft_metric("throughput", "scalar", 32.5, labels, 2));
	pu_expect_end(OBS("{\"cpu\":3,\"host\":\"local\",\"name\":\"throughput\","
			  "\"shape\":\"scalar\",\"time\":T,\"value\":32.5}"));
}
END_TEST

START_TEST(test_uint_out_of_range)
{
	uint64_t big = (uint64_t)INT64_MAX + 1;

	pu_assert_err(ksft_metric("m", "scalar", big, NULL, 0), EPERM,
		      "ksft_metric() called outside of a test case");
	pu_begin();
	pu_assert_err(ksft_metric("m", "scalar", big, NULL, 0), ERANGE,
		      "metric m: value 9223372036854775808 is outside int64");
	pu_assert_err(ksft_metric_uint("m", "scalar", UINT64_MAX, NULL, 0), ERANGE,
		      "metric m: value 18446744073709551615 is outside int64");
	/* Refused calls record nothing. */
	pu_expect_end("");
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("generic");

	suite_add_tcase(s, pu_tcase("integer_types", test_integer_types));
	suite_add_tcase(s, pu_tcase("floating_types", test_floating_types));
	suite_add_tcase(s, pu_tcase("labels", test_labels));
	suite_add_tcase(s, pu_tcase("uint_out_of_range", test_uint_out_of_range));
	return s;
}
