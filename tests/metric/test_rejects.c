/*
 * Refused producer calls reach the log: a case's refused calls are written
 * at its end as "ktap-metric-warning-json" lines (distinct ones with a
 * count), a successful call clears ksft_metric_errmsg(), and strict mode
 * (ksft_metric_set_strict(), KSFTMETRIC_STRICT=1) fails the case's end
 * with -ECANCELED after its lines are out.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ksftmetric/metric.h>

#include "check_main.h"
#include "producer_util.h"

static const char *warn_line(const char *text, int nth)
{
	const char *p = text;

	while ((p = strstr(p, "# ktap-metric-warning-json: ")))
		if (!nth--)
			return p;
		else
			p++;
	return NULL;
}

START_TEST(test_misspelled_key_reaches_log)
{
	char *text;
	int n;

	pu_reset();
	pu_begin();
	ck_assert_int_eq(ksft_metric_aggregate_json("throughput", "{\"sumarize\":\"p50\"}"),
			 -EINVAL);
	ck_assert_str_ne(ksft_metric_errmsg(), "");
	ck_assert_int_eq(ksft_metric_double("throughput", "scalar", 32.5, NULL, 0), 0);
	/* A successful call clears the message. */
	ck_assert_str_eq(ksft_metric_errmsg(), "");
	ck_assert_int_eq(ksft_metric_double("throughput", "scalar", NAN, NULL, 0), -EINVAL);
	ck_assert_int_eq(ksft_metric_double("throughput", "scalar", NAN, NULL, 0), -EINVAL);
	text = pu_end_raw(&n);
	/* One observation, then two distinct refusals (the NaN counted twice). */
	ck_assert_int_eq(n, 3);
	ck_assert_ptr_nonnull(warn_line(text, 0));
	ck_assert_ptr_nonnull(strstr(warn_line(text, 0),
		"{\"call\":\"ksft_metric_aggregate_json\",\"count\":1,\"errno\":\"EINVAL\","
		"\"message\":\""));
	ck_assert_ptr_nonnull(strstr(text, "sumarize"));
	ck_assert_ptr_nonnull(strstr(warn_line(text, 1),
		"{\"call\":\"ksft_metric_double\",\"count\":2,\"errno\":\"EINVAL\""));
	ck_assert_ptr_nonnull(strstr(warn_line(text, 1), "\"name\":\"throughput\"}"));
	ck_assert_ptr_null(warn_line(text, 2));
	/* The warnings come after the observation. */
	ck_assert(strstr(text, "ktap-metric-json") < warn_line(text, 0));
	free(text);
}
END_TEST

START_TEST(test_clean_case_unchanged_and_cleared)
{
	char *text;
	int n;

	pu_reset();
	pu_begin();
	ck_assert_int_eq(ksft_metric_aggregate_json("x", "{\"bogus\":1}"), -EINVAL);
	text = pu_end_raw(&n);
	ck_assert_int_eq(n, 1);		/* only the warning: nothing was observed */
	free(text);
	/* The next case starts without the last one's refusals. */
	pu_begin();
	ck_assert_int_eq(ksft_metric_int("x", "scalar", 1, NULL, 0), 0);
	text = pu_end_raw(&n);
	ck_assert_int_eq(n, 1);
	ck_assert_ptr_null(strstr(text, "warning"));
	free(text);
	/* Outside a case: refused, nothing kept for a later case. */
	ck_assert_int_eq(ksft_metric_int("x", "scalar", 1, NULL, 0), -EPERM);
	pu_begin();
	text = pu_end_raw(&n);
	ck_assert_int_eq(n, 0);
	free(text);
}
END_TEST

START_TEST(test_cap)
{
	char name[16], *text;
	int i, n;

	pu_reset();
	pu_begin();
	for (i = 0; i < 20; i++) {
		snprintf(name, sizeof(name), "m%d", i);
		ck_assert_int_eq(ksft_metric_double(name, "scalar", NAN, NULL, 0), -EINVAL);
	}
	text = pu_end_raw(&n);
	ck_assert_int_eq(n, 17);	/* 16 kept, one line for the 4 more */
	ck_assert_ptr_nonnull(strstr(text, "{\"call\":\"*\",\"count\":4,"));
	free(text);
}
END_TEST

START_TEST(test_strict)
{
	char *out = NULL;
	size_t len = 0;

	pu_reset();
	ck_assert_int_eq(ksft_metric_set_strict(1), 0);
	ck_assert_int_eq(ksft_metric_case_begin(), 0);
	ck_assert_int_eq(ksft_metric_int("ok", "scalar", 1, NULL, 0), 0);
	ck_assert_int_eq(ksft_metric_case_end_buffer(&out, &len), 1);	/* clean: fine */
	ksft_metric_free(out);
	out = NULL;
	ck_assert_int_eq(ksft_metric_case_begin(), 0);
	ck_assert_int_eq(ksft_metric_aggregate_json("t", "{\"sumarize\":\"p50\"}"), -EINVAL);
	ck_assert_int_eq(ksft_metric_case_end_buffer(&out, &len), -ECANCELED);
	ck_assert_ptr_nonnull(out);	/* the lines are still returned */
	ck_assert_ptr_nonnull(strstr(out, "ktap-metric-warning-json"));
	ck_assert_ptr_nonnull(strstr(ksft_metric_errmsg(), "strict mode: 1 producer call was refused"));
	ksft_metric_free(out);
	ck_assert_int_eq(ksft_metric_set_strict(0), 0);
	/* The environment variable turns it on too. */
	setenv("KSFTMETRIC_STRICT", "1", 1);
	out = NULL;
	ck_assert_int_eq(ksft_metric_case_begin(), 0);
	ck_assert_int_eq(ksft_metric_reporting(0), -EINVAL);
	ck_assert_int_eq(ksft_metric_case_end_buffer(&out, &len), -ECANCELED);
	ksft_metric_free(out);
	unsetenv("KSFTMETRIC_STRICT");
	out = NULL;
	ck_assert_int_eq(ksft_metric_case_begin(), 0);
	ck_assert_int_eq(ksft_metric_reporting(0), -EINVAL);
	ck_assert_int_eq(ksft_metric_case_end_buffer(&out, &len), 1);
	ksft_metric_free(out);
}
END_TEST

/* A binding's own refusal (ksft_metric_refused()) is kept like the library's. */
START_TEST(test_binding_refusal)
{
	char *out = NULL, *text;
	size_t len = 0;
	int n;

	pu_reset();
	/* Outside a case: nothing to keep it in. */
	ck_assert_int_eq(ksft_metric_refused("ksft_metric", "x", EINVAL, "m"), -EPERM);
	pu_begin();
	ck_assert_int_eq(ksft_metric_refused("ksft_metric", "tput", EINVAL,
					     "metric tput: value must be a number, not str"), 0);
	ck_assert_str_eq(ksft_metric_errmsg(), "");
	ck_assert_int_eq(ksft_metric_refused("ksft_metric", "tput", EINVAL,
					     "metric tput: value must be a number, not str"), 0);
	ck_assert_int_eq(ksft_metric_refused("ksft_metric", NULL, EINVAL,
					     "metric name must be a str, not int"), 0);
	ck_assert_int_eq(ksft_metric_refused("ksft_metric", "bad\xc3", ERANGE, "r"), 0);
	/* Bad arguments are refused, and kept as refusals of their own. */
	ck_assert_int_eq(ksft_metric_refused(NULL, "x", EINVAL, "m"), -EINVAL);
	ck_assert_int_eq(ksft_metric_refused("", "x", EINVAL, "m"), -EINVAL);
	ck_assert_int_eq(ksft_metric_refused("f", "x", 0, "m"), -EINVAL);
	ck_assert_int_eq(ksft_metric_refused("f", "x", EINVAL, NULL), -EINVAL);
	ck_assert_str_eq(ksft_metric_errmsg(), "refused call f: message is NULL");
	text = pu_end_raw(&n);
	ck_assert_int_eq(n, 6);
	ck_assert_str_eq(warn_line(text, 0),
		"# ktap-metric-warning-json: {\"call\":\"ksft_metric\",\"count\":2,"
		"\"errno\":\"EINVAL\",\"message\":\"metric tput: value must be a number, not str\","
		"\"name\":\"tput\"}\n"
		"# ktap-metric-warning-json: {\"call\":\"ksft_metric\",\"count\":1,"
		"\"errno\":\"EINVAL\",\"message\":\"metric name must be a str, not int\","
		"\"name\":\"\"}\n"
		"# ktap-metric-warning-json: {\"call\":\"ksft_metric\",\"count\":1,"
		"\"errno\":\"ERANGE\",\"message\":\"r\",\"name\":\"\"}\n"
		"# ktap-metric-warning-json: {\"call\":\"ksft_metric_refused\",\"count\":2,"
		"\"errno\":\"EINVAL\",\"message\":\"refused call: its name is NULL, empty or not valid UTF-8\","
		"\"name\":\"x\"}\n"
		"# ktap-metric-warning-json: {\"call\":\"ksft_metric_refused\",\"count\":1,"
		"\"errno\":\"EINVAL\",\"message\":\"refused call f: errno 0 is not positive\","
		"\"name\":\"x\"}\n"
		"# ktap-metric-warning-json: {\"call\":\"ksft_metric_refused\",\"count\":1,"
		"\"errno\":\"EINVAL\",\"message\":\"refused call f: message is NULL\","
		"\"name\":\"x\"}\n");
	free(text);
	/* Strict mode counts it like any other refusal. */
	ck_assert_int_eq(ksft_metric_set_strict(1), 0);
	ck_assert_int_eq(ksft_metric_case_begin(), 0);
	ck_assert_int_eq(ksft_metric_refused("ksft_metric_aggregate", "t", EINVAL,
					     "metric t: unknown regression key 'comapre'"), 0);
	ck_assert_int_eq(ksft_metric_case_end_buffer(&out, &len), -ECANCELED);
	ck_assert_str_eq(ksft_metric_errmsg(),
		"strict mode: 1 producer call was refused in this test case; first: "
		"ksft_metric_aggregate: metric t: unknown regression key 'comapre'");
	ksft_metric_free(out);
	ck_assert_int_eq(ksft_metric_set_strict(0), 0);
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("rejects");
	TCase *c = tcase_create("rejects");

	tcase_add_test(c, test_misspelled_key_reaches_log);
	tcase_add_test(c, test_clean_case_unchanged_and_cleared);
	tcase_add_test(c, test_cap);
	tcase_add_test(c, test_strict);
	tcase_add_test(c, test_binding_refusal);
	suite_add_tcase(s, c);
	return s;
}
