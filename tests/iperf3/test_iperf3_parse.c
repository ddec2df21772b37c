// SPDX-License-Identifier: GPL-2.0
/*
 * iperf3 --json parsing on the real captures in tests/fixtures/iperf3 and
 * on broken variants of them, the metric lines, and "ksft-iperf3 parse".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <ksftmetric/metric.h>

#include "check_main.h"
#include "cli_util.h"
#include "iperf3_runner.h"
#include "proc.h"

static const char *fixture(const char *name)
{
	static char path[4096];
	const char *dir = getenv("KSFTM_FIXTURES");

	ck_assert_msg(dir != NULL, "KSFTM_FIXTURES is not set");
	snprintf(path, sizeof(path), "%s/iperf3/%s", dir, name);
	return path;
}

/* Parse @text; on failure assert that the message contains @want. */
static int parse_text(const char *text, struct iperf3_result *r, const char *want)
{
	char *err = NULL;
	int ret = iperf3_parse_json(text, strlen(text), "t.json", r, &err);

	if (want) {
		ck_assert_int_lt(ret, 0);
		ck_assert_ptr_nonnull(err);
		ck_assert_msg(strstr(err, want), "message '%s' lacks '%s'", err, want);
	} else {
		ck_assert_msg(ret == 0, "unexpected error: %s", err ? err : "?");
	}
	free(err);
	return ret;
}

/* basic.json with @edit applied, as compact JSON text. */
static char *edited_basic(void (*edit)(json_t *root))
{
	json_error_t jerr;
	json_t *root = json_load_file(fixture("basic.json"), 0, &jerr);
	char *text;

	ck_assert_msg(root != NULL, "%s", jerr.text);
	edit(root);
	text = json_dumps(root, JSON_COMPACT);
	json_decref(root);
	return text;
}

/*
 * Expected values computed by hand from the captures: the middle intervals
 * (indexes 3..6 of 10) of sum.bits_per_second, / 1e9, averaged.
 */
START_TEST(test_basic)
{
	struct iperf3_result r;
	char *err = NULL;

	ck_assert_int_eq(iperf3_parse_file(fixture("basic.json"), &r, &err), 0);
	/* (18.98378897386101 + 18.769122268688644 + 19.225115348334667
	 *  + 19.5564308090727) / 4 */
	ck_assert_double_eq_tol(r.throughput_gbps, 19.13361434998926, 1e-12);
	ck_assert_int_eq(r.n_intervals, 10);
	ck_assert_int_eq(r.n_stable, 4);
	ck_assert_int_eq(r.has_retransmits, 1);
	ck_assert_int_eq(r.retransmits, 16);
	ck_assert_uint_eq(r.bytes, UINT64_C(23980933120));	/* end.sum_received.bytes */
	ck_assert_int_eq(r.reverse, 0);
	ck_assert_int_eq(iperf3_require_retransmits(&r, "basic.json", &err), 0);
	ck_assert_ptr_null(err);
}
END_TEST

START_TEST(test_reverse)
{
	struct iperf3_result r;
	char *err = NULL;

	ck_assert_int_eq(iperf3_parse_file(fixture("reverse.json"), &r, &err), 0);
	/* (19.312361858696648 + 19.31985543344535 + 14.954746343382824
	 *  + 18.840415193518364) / 4 */
	ck_assert_double_eq_tol(r.throughput_gbps, 18.106844707260798, 1e-12);
	ck_assert_int_eq(r.retransmits, 35);
	/* The receiver's count, not the sender's 22763274240. */
	ck_assert_uint_eq(r.bytes, UINT64_C(22762291147));
	ck_assert_int_eq(r.reverse, 1);
}
END_TEST

START_TEST(test_parallel)
{
	struct iperf3_result r;
	char *err = NULL;

	/* Two streams: "sum" already adds them up per interval. */
	ck_assert_int_eq(iperf3_parse_file(fixture("P2.json"), &r, &err), 0);
	/* (21.518658953325966 + 21.956875196771324 + 23.366310650808777
	 *  + 24.869280714630558) / 4 */
	ck_assert_double_eq_tol(r.throughput_gbps, 22.92778137888416, 1e-12);
	ck_assert_int_eq(r.retransmits, 42);
}
END_TEST

START_TEST(test_error_key)
{
	struct iperf3_result r;
	const char *path = fixture("error-connrefused.json");
	char *err = NULL, want[4200];

	/* iperf3 exited 0 here: the "error" key is the only sign. */
	ck_assert_int_eq(iperf3_parse_file(path, &r, &err), -EPROTO);
	snprintf(want, sizeof(want),
		 "%s: error: iperf3 failed: unable to connect to server: Connection refused",
		 path);
	ck_assert_str_eq(err, want);
	free(err);
}
END_TEST

START_TEST(test_truncated_file)
{
	char tmpl[] = "/tmp/ksftm-iperf3-XXXXXX", *text, *err = NULL;
	struct iperf3_result r;
	size_t len;
	int fd;

	ck_assert_int_eq(ex_read_file(fixture("basic.json"), &text, &len, &err), 0);
	fd = mkstemp(tmpl);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, len / 2), (ssize_t)(len / 2));
	close(fd);
	ck_assert_int_eq(iperf3_parse_file(tmpl, &r, &err), -EINVAL);
	/* "FILE:LINE:COL: invalid JSON: reason" */
	ck_assert_msg(!strncmp(err, tmpl, strlen(tmpl)) && strstr(err, ": invalid JSON: "),
		      "%s", err);
	free(err);
	err = NULL;
	unlink(tmpl);
	ck_assert_int_eq(iperf3_parse_file(tmpl, &r, &err), -ENOENT);
	ck_assert_msg(strstr(err, "cannot open"), "%s", err);
	free(err);
	free(text);
}
END_TEST

static void drop_sum_sent(json_t *root)
{
	json_object_del(json_object_get(root, "end"), "sum_sent");
}

static void real_retransmits(json_t *root)
{
	json_object_set_new(json_object_get(json_object_get(root, "end"), "sum_sent"),
			    "retransmits", json_real(16.0));
}

static void bool_retransmits(json_t *root)
{
	json_object_set_new(json_object_get(json_object_get(root, "end"), "sum_sent"),
			    "retransmits", json_true());
}

static void drop_bps(json_t *root)
{
	json_object_del(json_object_get(json_array_get(json_object_get(root, "intervals"),
						       4), "sum"), "bits_per_second");
}

static void string_bps(json_t *root)
{
	json_object_set_new(json_object_get(json_array_get(json_object_get(root, "intervals"),
							   0), "sum"),
			    "bits_per_second", json_string("fast"));
}

static void drop_sum(json_t *root)
{
	json_object_del(json_array_get(json_object_get(root, "intervals"), 9), "sum");
}

static void six_intervals(json_t *root)
{
	json_t *iv = json_object_get(root, "intervals");

	while (json_array_size(iv) > 6)
		json_array_remove(iv, 0);
}

static void seven_intervals(json_t *root)
{
	json_t *iv = json_object_get(root, "intervals");

	while (json_array_size(iv) > 7)
		json_array_remove(iv, 0);
}

static void no_intervals(json_t *root)
{
	json_object_del(root, "intervals");
}

static void object_intervals(json_t *root)
{
	json_object_set_new(root, "intervals", json_object());
}

START_TEST(test_broken_variants)
{
	struct iperf3_result r;
	char *text, *err = NULL;

	/* UDP-like: no retransmits; fine unless metrics need them. */
	text = edited_basic(drop_sum_sent);
	parse_text(text, &r, NULL);
	free(text);
	ck_assert_int_eq(r.has_retransmits, 0);
	ck_assert_int_eq(iperf3_require_retransmits(&r, "basic.json", &err), -ENODATA);
	ck_assert_str_eq(err, "basic.json: end.sum_sent.retransmits missing");
	free(err);

	text = edited_basic(real_retransmits);
	parse_text(text, &r, "t.json: end.sum_sent.retransmits: not an integer");
	free(text);
	text = edited_basic(bool_retransmits);
	parse_text(text, &r, "t.json: end.sum_sent.retransmits: not an integer");
	free(text);
	text = edited_basic(drop_bps);
	parse_text(text, &r, "t.json: intervals[4].sum.bits_per_second missing");
	free(text);
	text = edited_basic(string_bps);
	parse_text(text, &r, "t.json: intervals[0].sum.bits_per_second: not a number");
	free(text);
	text = edited_basic(drop_sum);
	parse_text(text, &r, "t.json: intervals[9].sum missing");
	free(text);
	text = edited_basic(no_intervals);
	parse_text(text, &r, "t.json: intervals missing");
	free(text);
	text = edited_basic(object_intervals);
	parse_text(text, &r, "t.json: intervals: not an array");
	free(text);

	/* 6 intervals leave nothing after dropping 3 + 3: an error, not 0/0. */
	text = edited_basic(six_intervals);
	ck_assert_int_eq(parse_text(text, &r, "t.json: intervals: 6 intervals, need at least 7"),
			 -ERANGE);
	/* The hint names the options both programs have, not iperf3's -i. */
	ck_assert_int_eq(parse_text(text, &r, "t.json: intervals: 6 intervals, need at least 7"
				    " (the first and last 3 are dropped); run longer (--time)"
				    " or report more often (--interval)"), -ERANGE);
	free(text);
	/* 7 is the minimum: the 4th of the last 7 (index 6 of the capture). */
	text = edited_basic(seven_intervals);
	parse_text(text, &r, NULL);
	free(text);
	ck_assert_double_eq_tol(r.throughput_gbps, 19.5564308090727, 1e-12);

	parse_text("", &r, "t.json:");
	parse_text("[1, 2]", &r, "t.json: top level: not a JSON object");
	parse_text("{\"intervals\": []}", &r, "t.json: intervals: 0 intervals");
	parse_text("{\"error\": 5}", &r, "t.json: error: iperf3 failed: (non-string");
	parse_text("{\"intervals\": [1,2,3,4,5,6,7]}", &r,
		   "t.json: intervals[0]: not an object");
}
END_TEST

/* The case's metric lines, or NULL when there are none. */
static char *case_lines(int reverse, const struct iperf3_result *r, int *ret)
{
	char *text = NULL, *err = NULL;
	int lines;

	ck_assert_int_eq(ksft_metric_case_begin(), 0);
	*ret = iperf3_record_metrics(r, reverse, "basic.json", &err);
	free(err);
	lines = ksft_metric_case_end_buffer(&text, NULL);
	ck_assert_int_ge(lines, 0);
	if (!lines) {
		ksft_metric_free(text);
		text = NULL;
	}
	return text;
}

START_TEST(test_metrics)
{
	struct iperf3_result r;
	char *text, *err = NULL;
	int ret;

	ck_assert_int_eq(iperf3_parse_file(fixture("basic.json"), &r, &err), 0);
	text = case_lines(0, &r, &ret);
	ck_assert_int_eq(ret, 0);
	ck_assert_msg(strstr(text,
		"# ktap-metric-policy-json: {\"name\":\"throughput\",\"regression\":"
		"{\"better\":\"higher\",\"compare\":\"p50\",\"relative_tolerance\":0.05},"
		"\"summarize\":\"distribution\"}\n"
		"# ktap-metric-policy-json: {\"name\":\"tcp.retransmits\",\"summarize\":\"max\"}\n"
		"# ktap-metric-policy-json: {\"name\":\"throughput.interval\","
		"\"summarize\":\"distribution\"}\n"
		"# ktap-metric-json: {\"host\":\"local\",\"name\":\"throughput\","
		"\"shape\":\"scalar\",\"time\":"), "%s", text);
	/* Each stable interval as its own point, on the receiving host. */
	ck_assert_uint_eq(r.n_kept, r.n_stable);
	{
		size_t n = 0;
		const char *p = text;

		while ((p = strstr(p, "{\"host\":\"local\",\"name\":\"throughput.interval\"")))
			n++, p++;
		ck_assert_uint_eq(n, r.n_kept);
	}
	ck_assert_msg(strstr(text, ",\"value\":19.13361434998926}\n"
			     "# ktap-metric-json: {\"host\":\"remote\",\"name\":\"tcp.retransmits\","
			     "\"shape\":\"scalar\",\"time\":"), "%s", text);
	ck_assert_msg(strstr(text, ",\"value\":16}\n"), "%s", text);
	ksft_metric_free(text);

	/* Reverse: the remote end receives, the local end sends. */
	text = case_lines(1, &r, &ret);
	ck_assert_msg(strstr(text, "{\"host\":\"remote\",\"name\":\"throughput\""), "%s", text);
	ck_assert_msg(strstr(text, "{\"host\":\"local\",\"name\":\"tcp.retransmits\""),
		      "%s", text);
	ksft_metric_free(text);

	/* Missing retransmits while reporting: an error, nothing recorded. */
	r.has_retransmits = 0;
	text = case_lines(0, &r, &ret);
	ck_assert_int_eq(ret, -ENODATA);
	ck_assert_ptr_null(text);	/* policies without observations: no lines */
}
END_TEST

static void run_cli(const char *const *argv, struct exproc_result *r)
{
	char *err = NULL;

	ck_assert_msg(exproc_run(NULL, argv, 10000, r, &err) == 0, "%s", err ? err : "?");
	ck_assert_int_eq(r->timed_out, 0);
}

START_TEST(test_cli_parse)
{
	static const struct { const char *file, *out; } cases[] = {
		{ "basic.json", "{\"throughput_gbps\": 19.13361434998926, \"retransmits\": 16}\n" },
		{ "reverse.json", "{\"throughput_gbps\": 18.106844707260798, \"retransmits\": 35}\n" },
		{ "P2.json", "{\"throughput_gbps\": 22.92778137888416, \"retransmits\": 42}\n" },
	};
	const char *exe = getenv("KSFTM_KSFT_IPERF3");
	struct exproc_result r;
	size_t i;

	ck_assert_ptr_nonnull(exe);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *argv[] = { exe, "parse", fixture(cases[i].file), NULL };

		run_cli(argv, &r);
		ck_assert_int_eq(exproc_exit_code(r.status), 0);
		ck_assert_str_eq(r.out, cases[i].out);
		exproc_result_free(&r);
	}
	{
		const char *argv[] = { exe, "parse", fixture("error-connrefused.json"), NULL };

		run_cli(argv, &r);
		ck_assert_int_eq(exproc_exit_code(r.status), 1);
		ck_assert_str_eq(r.out, "");
		ck_assert_msg(strstr(r.errout, "error-connrefused.json: error: iperf3 failed: "
				     "unable to connect to server: Connection refused\n"),
			      "%s", r.errout);
		exproc_result_free(&r);
	}
	{
		const char *argv[] = { exe, "parse", "/nonexistent.json", NULL };

		run_cli(argv, &r);
		ck_assert_int_eq(exproc_exit_code(r.status), 1);
		ck_assert_msg(strstr(r.errout, "/nonexistent.json: cannot open"), "%s", r.errout);
		exproc_result_free(&r);
	}
	{
		const char *argv[] = { exe, "parse", NULL };

		run_cli(argv, &r);
		ck_assert_int_eq(exproc_exit_code(r.status), 2);
		exproc_result_free(&r);
	}
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("iperf3_parse");
	TCase *tc = tcase_create("fixtures");

	tcase_add_test(tc, test_basic);
	tcase_add_test(tc, test_reverse);
	tcase_add_test(tc, test_parallel);
	tcase_add_test(tc, test_error_key);
	suite_add_tcase(s, tc);
	tc = tcase_create("broken");
	tcase_add_test(tc, test_truncated_file);
	tcase_add_test(tc, test_broken_variants);
	suite_add_tcase(s, tc);
	tc = tcase_create("metrics");
	tcase_add_test(tc, test_metrics);
	suite_add_tcase(s, tc);
	tc = tcase_create("cli");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_cli_parse);
	suite_add_tcase(s, tc);
	return s;
}
