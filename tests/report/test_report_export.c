/*
 * ksft_metric_report_format_ext(): the options struct's size rule, NIPA's
 * namify() on awkward names, the KCIDB option checks naming the field, the
 * units a display label gives, that a name style changes names only, and
 * that a table the text writers cannot make fails the call (out of memory).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "check_main.h"
#include "history_text.h"
#include "strbuf.h"
#include "text_fit.h"
#include "report_util.h"

#define LOG \
	"# selftests: net: a..b.sh\n" \
	"# # ktap-metric-policy-json: {\"display_label\":\"Gbps\",\"name\":\"t\",\"summarize\":\"max\"}\n" \
	"# # ktap-metric-json: {\"name\":\"t\",\"shape\":\"scalar\",\"time\":1,\"value\":2}\n" \
	"# ok 1 ._x__\n" \
	"# # ktap-metric-json: {\"name\":\"t\",\"shape\":\"scalar\",\"time\":1,\"value\":3}\n" \
	"# ok 2 !!!\n" \
	"ok 1 selftests: net: a..b.sh\n"

static char *fmt_ext(const struct ksft_metric_report *r, int fmt,
		     const struct ksft_metric_report_format_opts *o, int want)
{
	char *out = NULL;
	int ret = ksft_metric_report_format_ext(r, fmt, o, &out, NULL);

	ck_assert_msg(ret == want, "format_ext = %d (%s), want %d", ret,
		      ksft_metric_report_errmsg(), want);
	return out;
}

START_TEST(test_opts_size_rule)
{
	struct ksft_metric_report *r = ru_read("x.log", LOG);
	struct {
		struct ksft_metric_report_format_opts o;
		char tail[16];
	} big;
	struct ksft_metric_report_format_opts o = KSFT_METRIC_REPORT_FORMAT_OPTS_INIT;
	char *out;

	/* An older caller's smaller struct: the rest reads as zero. */
	o.sz = offsetof(struct ksft_metric_report_format_opts, name_style);
	o.name_style = KSFT_METRIC_REPORT_NAMES_NIPA;	/* beyond sz: ignored */
	out = fmt_ext(r, KSFT_METRIC_REPORT_TEXT, &o, 0);
	ck_assert_ptr_nonnull(strstr(out, "selftests: net: a..b.sh"));
	free(out);
	o.sz = 0;
	fmt_ext(r, KSFT_METRIC_REPORT_TEXT, &o, -EINVAL);
	ck_assert_ptr_nonnull(strstr(ksft_metric_report_errmsg(), ".sz 0"));
	/* A newer caller's larger struct: fine only with a zero tail. */
	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	free(fmt_ext(r, KSFT_METRIC_REPORT_TEXT, &big.o, 0));
	big.tail[3] = 1;
	fmt_ext(r, KSFT_METRIC_REPORT_TEXT, &big.o, -EINVAL);
	o = (struct ksft_metric_report_format_opts)KSFT_METRIC_REPORT_FORMAT_OPTS_INIT;
	o.name_style = 7;
	fmt_ext(r, KSFT_METRIC_REPORT_TEXT, &o, -EINVAL);
	ck_assert_ptr_nonnull(strstr(ksft_metric_report_errmsg(), "name_style 7"));
	o.name_style = 0;
	o.n_context = 1;
	fmt_ext(r, KSFT_METRIC_REPORT_NIPA, &o, -EINVAL);
	ck_assert_int_eq(ksft_metric_report_format_ext(NULL, 0, NULL, &out, NULL), -EINVAL);
	ck_assert_int_eq(ksft_metric_report_format_ext(r, 99, NULL, &out, NULL), -EINVAL);
	ksft_metric_report_free(r);
}
END_TEST

START_TEST(test_namify)
{
	struct ksft_metric_report *r = ru_read("x.log", LOG);
	struct ksft_metric_report_format_opts o = KSFT_METRIC_REPORT_FORMAT_OPTS_INIT;
	char *out;

	o.name_style = KSFT_METRIC_REPORT_NAMES_NIPA;
	out = fmt_ext(r, KSFT_METRIC_REPORT_CSV, &o, 0);
	/*
	 * A leading run gives "-", a trailing one goes, nothing left: no-name.
	 * A CSV cell starting with "-" is quoted behind a ' (no formula).
	 */
	ck_assert_msg(strstr(out, "\n\"'-x\",\"[\"\"selftests-net\"\",\"\"a-b-sh\"\"]\",t,") &&
		      strstr(out, "\nno-name,\"[\"\"selftests-net\"\",\"\"a-b-sh\"\"]\",t,"),
		      "%s", out);
	free(out);
	/* The sidecar names the same way, whatever the name style. */
	out = fmt_ext(r, KSFT_METRIC_REPORT_NIPA, &o, 0);
	ck_assert_msg(strstr(out, "\"group\":\"selftests-net\",\"test\":\"a-b-sh\",\"subtest\":\"-x\",\"case\":\"._x__\""),
		      "%s", out);
	free(out);
	/* Numbers and the rest of the series are untouched. */
	out = fmt_ext(r, KSFT_METRIC_REPORT_JSON, &o, 0);
	/* (the policy is case 1's: case 2 summarizes as distribution) */
	ck_assert_ptr_nonnull(strstr(out, "\"summary\":{\"max\":2.0}"));
	ck_assert_ptr_nonnull(strstr(out, "\"summary\":{\"last\":3.0}"));
	free(out);
	ksft_metric_report_free(r);
}
END_TEST

START_TEST(test_kcidb_checks)
{
	static const char *const ctx[] = { "k=v", "novalue" };
	struct ksft_metric_report *r = ru_read("x.log", LOG);
	struct ksft_metric_report_format_opts o = KSFT_METRIC_REPORT_FORMAT_OPTS_INIT;
	char *out;

	/* Without options it needs them. */
	out = NULL;
	ck_assert_int_eq(ksft_metric_report_format(r, KSFT_METRIC_REPORT_KCIDB, &out, NULL),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(ksft_metric_report_errmsg(), "KCIDB origin '(none)'"));
	o.origin = "ci";
	o.build_id = "other:1";	/* another origin's build is fine */
	o.start_time = "2026-12-01T07:55:00.5+01:00";
	out = fmt_ext(r, KSFT_METRIC_REPORT_KCIDB, &o, 0);
	ck_assert_msg(strstr(out, "\"number\":{\"value\":2.0,\"unit\":\"Gbps\"}"), "%s", out);
	free(out);
	o.start_time = "2026-12-01 07:55:00";
	fmt_ext(r, KSFT_METRIC_REPORT_KCIDB, &o, -EINVAL);
	ck_assert_ptr_nonnull(strstr(ksft_metric_report_errmsg(), "KCIDB start time"));
	o.start_time = NULL;
	o.build_id = ":1";
	fmt_ext(r, KSFT_METRIC_REPORT_KCIDB, &o, -EINVAL);
	ck_assert_ptr_nonnull(strstr(ksft_metric_report_errmsg(), "KCIDB build id ':1'"));
	o.build_id = "ci:1";
	o.context = ctx;
	o.n_context = 2;
	fmt_ext(r, KSFT_METRIC_REPORT_KCIDB, &o, -EINVAL);
	ck_assert_ptr_nonnull(strstr(ksft_metric_report_errmsg(), "context entry 2 'novalue'"));
	o.n_context = 1;
	o.run_id = "";
	fmt_ext(r, KSFT_METRIC_REPORT_KCIDB, &o, -EINVAL);
	o.run_id = "r1";
	out = fmt_ext(r, KSFT_METRIC_REPORT_KCIDB, &o, 0);
	ck_assert_ptr_nonnull(strstr(out, "\"misc\":{\"context\":{\"k\":\"v\"}"));
	/* No start time given: none written. */
	ck_assert_ptr_null(strstr(out, "start_time"));
	free(out);
	ksft_metric_report_free(r);
}
END_TEST

START_TEST(test_units)
{
	static const struct {
		const char *policy, *want;
	} cases[] = {
		/* The label as written, never rescaled (issue 34)... */
		{ "\"display_label\":\"Latency (us)\"", "{\"value\":2.0,\"unit\":\"Latency (us)\"}" },
		{ "\"display_label\":\"MB/s\"", "{\"value\":2.0,\"unit\":\"MB/s\"}" },
		{ "\"display_label\":\"B\"", "{\"value\":2.0,\"unit\":\"B\"}" },
		{ "\"display_label\":\"s\",\"display_scale\":1", "{\"value\":2.0,\"unit\":\"s\"}" },
		/* ... the value in it: times display_scale. */
		{ "\"display_label\":\"ms\",\"display_scale\":1000", "{\"value\":2000.0,\"unit\":\"ms\"}" },
		{ "\"display_label\":\"Gbps (x)\"", "{\"value\":2.0,\"unit\":\"Gbps (x)\"}" },
		{ "\"display_scale\":10", "{\"value\":20.0}" },
		{ "\"summarize\":\"p50\"", "{\"value\":2.0}" },
	};
	struct ksft_metric_report_format_opts o = KSFT_METRIC_REPORT_FORMAT_OPTS_INIT;
	size_t i;

	o.origin = "ci";
	o.build_id = "ci:1";
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char log[512], *out;
		struct ksft_metric_report *r;

		snprintf(log, sizeof(log),
			 "# ktap-metric-policy-json: {%s,\"name\":\"t\"}\n"
			 "# ktap-metric-json: {\"name\":\"t\",\"shape\":\"scalar\",\"time\":1,\"value\":2}\n"
			 "ok 1 c\n", cases[i].policy);
		r = ru_read("u.log", log);
		out = fmt_ext(r, KSFT_METRIC_REPORT_KCIDB, &o, 0);
		ck_assert_msg(strstr(out, cases[i].want), "%s: %s", cases[i].policy, out);
		free(out);
		ksft_metric_report_free(r);
	}
}
END_TEST

/*
 * A total of two 1e308 values is +Inf: OpenMetrics spells it "+Inf" (null
 * is no sample value), KCIDB leaves number out and says why in misc.
 */
START_TEST(test_non_finite_summary)
{
	static const char log[] =
		"# ktap-metric-policy-json: {\"name\":\"t\",\"summarize\":\"total\"}\n"
		"# ktap-metric-json: {\"name\":\"t\",\"shape\":\"scalar\",\"time\":1,\"value\":1e308}\n"
		"# ktap-metric-json: {\"name\":\"t\",\"shape\":\"scalar\",\"time\":2,\"value\":1e308}\n"
		"ok 1 c\n";
	struct ksft_metric_report_format_opts o = KSFT_METRIC_REPORT_FORMAT_OPTS_INIT;
	struct ksft_metric_report *r = ru_read("inf.log", log);
	char *out;

	out = fmt_ext(r, KSFT_METRIC_REPORT_OPENMETRICS, &o, 0);
	ck_assert_msg(strstr(out, "summary=\"total\"} +Inf\n"), "%s", out);
	ck_assert_msg(!strstr(out, "null"), "%s", out);
	free(out);
	o.origin = "ci";
	o.build_id = "ci:1";
	out = fmt_ext(r, KSFT_METRIC_REPORT_KCIDB, &o, 0);
	ck_assert_msg(!strstr(out, "\"number\""), "%s", out);
	ck_assert_msg(strstr(out, "\"number_omitted\":\"total is +Inf: number.value must be a finite number\""),
		      "%s", out);
	free(out);
	ksft_metric_report_free(r);
}
END_TEST

/*
 * table_init() failing on demand: this test links with
 * -Wl,--wrap=table_init (tests/report/meson.build), so the writers' calls
 * land here; the @fail_table_at-th call (1 = the first) fails as an
 * allocation would, every other one is the real table_init().
 */
struct table;
int __real_table_init(struct table *t, size_t cols);
int __wrap_table_init(struct table *t, size_t cols);
static unsigned fail_table_at, table_calls;

int __wrap_table_init(struct table *t, size_t cols)
{
	if (++table_calls != fail_table_at)
		return __real_table_init(t, cols);
	return -ENOMEM;	/* as its calloc() failing: nothing to free */
}

/*
 * The text writer's table is made once and emptied for each case (issue
 * 45: one table a case was a quarter of its allocations): a table that
 * cannot be made fails the call with out of memory rather than returning
 * a report cut short (issue 35). Twice, same answer.
 */
START_TEST(test_text_table_oom)
{
	static const char log[] =
		"# ktap-metric-json: {\"name\":\"t\",\"shape\":\"scalar\",\"time\":1,\"value\":2}\n"
		"ok 1 first\n"
		"# ktap-metric-json: {\"name\":\"t\",\"shape\":\"scalar\",\"time\":1,\"value\":3}\n"
		"ok 2 second\n";
	struct ksft_metric_report *r = ru_read("oom.log", log);
	unsigned at, round;
	char *out;

	for (round = 0; round < 2; round++) {
		fail_table_at = 0;
		table_calls = 0;
		out = fmt_ext(r, KSFT_METRIC_REPORT_TEXT, NULL, 0);
		ck_assert_ptr_nonnull(strstr(out, "second"));
		ck_assert_uint_eq(table_calls, 1);	/* one table, two cases */
		free(out);
		for (at = 1; at <= 1; at++) {
			table_calls = 0;
			fail_table_at = at;
			out = fmt_ext(r, KSFT_METRIC_REPORT_TEXT, NULL, -ENOMEM);
			ck_assert_ptr_null(out);
			ck_assert_str_eq(ksft_metric_report_errmsg(), "out of memory");
			ck_assert_uint_eq(table_calls, at);
		}
	}
	fail_table_at = 0;
	ksft_metric_report_free(r);
}
END_TEST

/*
 * `history`'s text the same way: its first table failing ends the call
 * with -ENOMEM and frees what it held (the leak before shows under ASan).
 */
START_TEST(test_history_text_table_oom)
{
	json_t *doc = json_loads("{\"series\":[{\"metric\":\"t\",\"labels\":{},\"path\":[],"
				 "\"case\":\"c\",\"changes\":[],\"points\":[{\"value\":1,"
				 "\"run\":\"r1\",\"order\":\"1\",\"status\":\"ok\"}]}]}", 0, NULL);
	struct strbuf sb = STRBUF_INIT;
	unsigned round;

	ck_assert_ptr_nonnull(doc);
	for (round = 0; round < 2; round++) {
		fail_table_at = 0;
		ck_assert_int_eq(history_text_render(doc, KSFT_METRIC_REPORT_TEXT, &sb), 0);
		ck_assert_msg(strstr(sb.data, "Untracked series"), "%s", sb.data);
		strbuf_free(&sb);
		table_calls = 0;
		fail_table_at = 1;
		ck_assert_int_eq(history_text_render(doc, KSFT_METRIC_REPORT_TEXT, &sb), -ENOMEM);
		strbuf_free(&sb);
	}
	fail_table_at = 0;
	json_decref(doc);
}
END_TEST

/*
 * The comparison's text: its table that cannot be made fails the call,
 * never a report with rows missing above its "RESULT: OK". One table for
 * every case (issue 45: one a case was a fifth of the text's cost).
 */
START_TEST(test_compare_text_table_oom)
{
	static const char base[] =
		"# ktap-metric-policy-json: {\"name\":\"t\",\"regression\":{\"better\":\"higher\","
		"\"compare\":\"p50\",\"relative_tolerance\":0.05}}\n"
		"# ktap-metric-json: {\"name\":\"t\",\"shape\":\"scalar\",\"time\":1,\"value\":2}\n"
		"ok 1 first\n"
		"# ktap-metric-policy-json: {\"name\":\"t\",\"regression\":{\"better\":\"higher\","
		"\"compare\":\"p50\",\"relative_tolerance\":0.05}}\n"
		"# ktap-metric-json: {\"name\":\"t\",\"shape\":\"scalar\",\"time\":1,\"value\":3}\n"
		"ok 2 second\n";
	struct ksft_metric_report_baseline *b = ksft_metric_report_baseline_new();
	struct ksft_metric_report *r = ru_read("cur.log", base);
	struct ksft_metric_report_comparison *c;
	const char *src = "base.log";
	unsigned at, round;
	char *out;

	ck_assert_int_gt(ksft_metric_report_baseline_add_report(b, r, &src, 1), 0);
	ck_assert_int_eq(ksft_metric_report_compare(r, b, NULL, &c), 0);
	for (round = 0; round < 2; round++) {
		fail_table_at = 0;
		table_calls = 0;
		out = NULL;
		ck_assert_int_eq(ksft_metric_report_comparison_format(c, KSFT_METRIC_REPORT_TEXT,
								      &out, NULL), 0);
		ck_assert_msg(strstr(out, "second") && strstr(out, "RESULT: OK"), "%s", out);
		ck_assert_uint_eq(table_calls, 1);	/* one table, two cases */
		free(out);
		for (at = 1; at <= 1; at++) {
			table_calls = 0;
			fail_table_at = at;
			out = NULL;
			ck_assert_int_eq(ksft_metric_report_comparison_format(c, KSFT_METRIC_REPORT_TEXT,
									      &out, NULL), -ENOMEM);
			ck_assert_ptr_null(out);
			ck_assert_str_eq(ksft_metric_report_errmsg(), "out of memory");
			ck_assert_uint_eq(table_calls, at);
		}
	}
	fail_table_at = 0;
	ksft_metric_report_comparison_free(c);
	ksft_metric_report_baseline_free(b);
	ksft_metric_report_free(r);
}
END_TEST


/* The table's numbers are printf's, byte for byte, now that they are
 * written without printf (issue 45): every decade's ties, their
 * neighbours and random doubles. */
static void num_same(double v)
{
	struct strbuf sb = STRBUF_INIT;
	double a = fabs(v);
	char want[64];

	if (a == 0.0)
		snprintf(want, sizeof(want), "0");
	else if (a >= 1e4 && a < 1e15)
		snprintf(want, sizeof(want), "%.0f", v);
	else if (a >= 1e-3)
		snprintf(want, sizeof(want), "%.4g", v);
	else
		snprintf(want, sizeof(want), "%.3g", v);
	text_fit_num(&sb, v);
	/* (Check records every assertion: test first, a million times) */
	if (!sb.data || strcmp(sb.data, want))
		ck_abort_msg("%.17g: \"%s\", printf \"%s\"", v, sb.data ? sb.data : "(null)", want);
	strbuf_free(&sb);
}

START_TEST(test_text_num_is_printf)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;
	double p, v;
	int e, k, i;

	for (e = -6; e <= 16; e++) {
		p = pow(10, e);
		for (k = 0; k <= 20000; k++) {
			v = (k + 0.5) * p / 1000;	/* the ties of 4 digits */
			num_same(v);
			num_same(-v);
			num_same(nextafter(v, 0));
			num_same(nextafter(v, INFINITY));
			num_same(k * p / 1000);
		}
	}
	for (i = 0; i < 2000000; i++) {
		uint64_t bits;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		bits = (x & 0x800fffffffffffffull) | ((uint64_t)(1003 + x % 70) << 52);
		memcpy(&v, &bits, sizeof(v));	/* 2^-20 .. 2^50 */
		num_same(v);
	}
	num_same(9999.5);
	num_same(9999.4999999);
	num_same(99999.5);
	num_same(0.0009995);
	num_same(1e15);
	num_same(9007199254740993.0);
	num_same(-0.0);
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("report_export");
	TCase *tc = tcase_create("format_ext");

	tcase_add_test(tc, test_opts_size_rule);
	tcase_add_test(tc, test_namify);
	tcase_add_test(tc, test_kcidb_checks);
	tcase_add_test(tc, test_units);
	tcase_add_test(tc, test_non_finite_summary);
	tcase_add_test(tc, test_text_table_oom);
	tcase_add_test(tc, test_history_text_table_oom);
	tcase_add_test(tc, test_compare_text_table_oom);
	tcase_add_test(tc, test_text_num_is_printf);
	suite_add_tcase(s, tc);
	return s;
}
