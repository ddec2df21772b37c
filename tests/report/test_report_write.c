/*
 * ksft_metric_report_write() and ksft_metric_report_comparison_write()
 * (issue 45): the bytes of the string calls in every format, written as
 * they are made (chunks, never the whole text at once), and a failed
 * write or a bad argument said.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "report_util.h"

/* What a stream was handed: every byte, in how many writes, the largest. */
struct capture {
	char *data;
	size_t len, cap, writes, largest;
};

static ssize_t capture_write(void *cookie, const char *buf, size_t n)
{
	struct capture *c = cookie;

	if (c->len + n + 1 > c->cap) {
		c->cap = (c->len + n + 1) * 2;
		c->data = realloc(c->data, c->cap);
		ck_assert_ptr_nonnull(c->data);
	}
	memcpy(c->data + c->len, buf, n);
	c->len += n;
	c->data[c->len] = '\0';
	c->writes += n > 0;
	if (n > c->largest)
		c->largest = n;
	return (ssize_t)n;
}

/* Unbuffered: each fwrite() of the library reaches capture_write() whole. */
static FILE *capture_open(struct capture *c)
{
	cookie_io_functions_t io = { NULL, capture_write, NULL, NULL };
	FILE *f;

	memset(c, 0, sizeof(*c));
	f = fopencookie(c, "w", io);
	ck_assert_ptr_nonnull(f);
	setvbuf(f, NULL, _IONBF, 0);
	return f;
}

/* A log of @cases cases, two series each (one with a regression policy),
 * 12 points a series, the values scaled by @k from case @from on. */
static char *make_log(size_t cases, double k, size_t from)
{
	char *text = NULL;
	size_t len = 0, i, p;
	FILE *f = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(f);
	fputs("# ktap-metric-context-json: {\"arch\":\"x86_64\",\"cpu_count\":2,"
	      "\"debug_kernel\":false,\"governor\":\"performance\",\"hostname\":\"vm\","
	      "\"kernel\":\"6.12.9\",\"time\":\"2026-12-01T08:30:00Z\"}\n", f);
	for (i = 0; i < cases; i++) {
		double s = i >= from ? k : 1.0;

		fputs("# ktap-metric-policy-json: {\"name\":\"rate\",\"display_label\":\"Gbps\","
		      "\"regression\":{\"better\":\"higher\",\"compare\":\"p50\","
		      "\"relative_tolerance\":0.05}}\n", f);
		for (p = 0; p < 12; p++) {
			fprintf(f, "# ktap-metric-json: {\"name\":\"rate\",\"shape\":\"scalar\","
				"\"labels\":{\"dir\":\"tx\"},\"time\":%zu,\"value\":%.6g}\n", p,
				s * (10.0 + (double)(i % 7) + 0.1 * (double)p));
			fprintf(f, "# ktap-metric-json: {\"name\":\"lat_us\",\"shape\":\"scalar\","
				"\"time\":%zu,\"value\":%.6g}\n", p,
				(double)(i % 13) + 0.01 * (double)(p * p));
		}
		fprintf(f, "ok %zu case_%zu with a long enough name to wrap at eighty\n",
			i + 1, i);
	}
	fclose(f);
	return text;
}

/* Streamed and string text agree; large text came in chunks. */
static void same_bytes(const char *what, int fmt, const char *want, size_t want_len,
		       const struct capture *c, int chunked)
{
	ck_assert_msg(c->len == want_len && !memcmp(c->data, want, want_len),
		      "%s %#x: %zu bytes written, %zu made as a string", what, fmt, c->len,
		      want_len);
	if (chunked)	/* the logs here make text of several chunks */
		ck_assert_msg(want_len > 4 * 65536 && c->writes >= 4 &&
			      c->largest < 65536 + 16384,
			      "%s %#x: %zu bytes in %zu writes, the largest %zu", what, fmt,
			      want_len, c->writes, c->largest);
	else if (!chunked)
		ck_assert_uint_le(c->writes, 1);
}

START_TEST(test_report_write_same_bytes)
{
	static const int fmts[] = {
		KSFT_METRIC_REPORT_TEXT, KSFT_METRIC_REPORT_TEXT | KSFT_METRIC_REPORT_TEXT_NARROW,
		KSFT_METRIC_REPORT_TEXT | KSFT_METRIC_REPORT_TEXT_VERBOSE,
		KSFT_METRIC_REPORT_JSON, KSFT_METRIC_REPORT_CSV, KSFT_METRIC_REPORT_OPENMETRICS,
		KSFT_METRIC_REPORT_KCIDB, KSFT_METRIC_REPORT_NIPA,
	};
	struct ksft_metric_report_format_opts o = KSFT_METRIC_REPORT_FORMAT_OPTS_INIT;
	char *log = make_log(3000, 1.0, 0);
	struct ksft_metric_report *r = ru_read("run.log", log);
	size_t i, style, len, round;

	o.origin = "ci";
	o.build_id = "ci:1";
	for (round = 0; round < 2; round++)
		for (style = 0; style < 2; style++)
			for (i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
				int chunked = (fmts[i] & 0xff) == KSFT_METRIC_REPORT_TEXT ||
					      fmts[i] == KSFT_METRIC_REPORT_JSON ||
					      fmts[i] == KSFT_METRIC_REPORT_CSV;
				struct capture c;
				FILE *f = capture_open(&c);
				char *want = NULL;

				o.name_style = style ? KSFT_METRIC_REPORT_NAMES_NIPA :
						       KSFT_METRIC_REPORT_NAMES_KTAP;
				ck_assert_int_eq(ksft_metric_report_format_ext(r, fmts[i], &o,
									       &want, &len), 0);
				ck_assert_int_eq(ksft_metric_report_write(r, fmts[i], &o, f), 0);
				fclose(f);
				same_bytes("report", fmts[i], want, len, &c, chunked);
				free(want);
				free(c.data);
			}
	ksft_metric_report_free(r);
	free(log);
}
END_TEST

START_TEST(test_comparison_write_same_bytes)
{
	static const int fmts[] = {
		KSFT_METRIC_REPORT_TEXT, KSFT_METRIC_REPORT_TEXT | KSFT_METRIC_REPORT_COMPARE_ALL,
		KSFT_METRIC_REPORT_TEXT | KSFT_METRIC_REPORT_TEXT_NARROW,
		KSFT_METRIC_REPORT_JSON, KSFT_METRIC_REPORT_CSV, KSFT_METRIC_REPORT_REPLY,
	};
	char *base_log = make_log(3000, 1.0, 0), *cur_log = make_log(3000, 0.8, 2990);
	struct ksft_metric_report_baseline *b = ksft_metric_report_baseline_new();
	struct ksft_metric_report *base = ru_read("base.log", base_log);
	struct ksft_metric_report *cur = ru_read("cur.log", cur_log);
	struct ksft_metric_report_comparison *cmp;
	const char *src = "base.log";
	size_t i, len, round;

	ck_assert_int_gt(ksft_metric_report_baseline_add_report(b, base, &src, 1), 0);
	/* The last 10 cases' rates 20 % down: 10 failing rows, not an error. */
	ck_assert_int_eq(ksft_metric_report_compare(cur, b, NULL, &cmp), 10);
	for (round = 0; round < 2; round++)
		for (i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
			struct capture c;
			FILE *f = capture_open(&c);
			char *want = NULL;

			ck_assert_int_eq(ksft_metric_report_comparison_format(cmp, fmts[i], &want,
									      &len), 0);
			ck_assert_int_eq(ksft_metric_report_comparison_write(cmp, fmts[i], f), 0);
			fclose(f);
			same_bytes("comparison", fmts[i], want, len, &c,
				   fmts[i] != KSFT_METRIC_REPORT_REPLY);
			free(want);
			free(c.data);
		}
	ksft_metric_report_comparison_free(cmp);
	ksft_metric_report_free(cur);
	ksft_metric_report_free(base);
	ksft_metric_report_baseline_free(b);
	free(cur_log);
	free(base_log);
}
END_TEST

/*
 * A write that fails is said with its errno (a full disk), whichever
 * chunk it was; bad arguments and an unknown format fail before any
 * byte is written.
 */
START_TEST(test_write_failures)
{
	char *log = make_log(3000, 1.0, 0);
	struct ksft_metric_report *r = ru_read("run.log", log);
	struct ksft_metric_report_baseline *b = ksft_metric_report_baseline_new();
	struct ksft_metric_report_comparison *cmp;
	const char *src = "run.log";
	struct capture c;
	size_t round;
	FILE *f;

	ck_assert_int_gt(ksft_metric_report_baseline_add_report(b, r, &src, 1), 0);
	ck_assert_int_eq(ksft_metric_report_compare(r, b, NULL, &cmp), 0);
	for (round = 0; round < 2; round++) {
		f = fopen("/dev/full", "w");
		ck_assert_ptr_nonnull(f);
		ck_assert_int_eq(ksft_metric_report_write(r, KSFT_METRIC_REPORT_TEXT, NULL, f),
				 -ENOSPC);
		ck_assert_str_eq(ksft_metric_report_errmsg(),
				 "writing the output: No space left on device");
		clearerr(f);
		ck_assert_int_eq(ksft_metric_report_comparison_write(cmp, KSFT_METRIC_REPORT_JSON,
								     f), -ENOSPC);
		ck_assert_str_eq(ksft_metric_report_errmsg(),
				 "writing the output: No space left on device");
		fclose(f);

		f = capture_open(&c);
		ck_assert_int_eq(ksft_metric_report_write(r, 99, NULL, f), -EINVAL);
		ck_assert_str_eq(ksft_metric_report_errmsg(), "unknown report format 99");
		ck_assert_int_eq(ksft_metric_report_comparison_write(cmp, 99, f), -EINVAL);
		ck_assert_str_eq(ksft_metric_report_errmsg(),
				 "comparison format 99 is not supported");
		ck_assert_int_eq(ksft_metric_report_write(NULL, KSFT_METRIC_REPORT_TEXT, NULL, f),
				 -EINVAL);
		ck_assert_int_eq(ksft_metric_report_write(r, KSFT_METRIC_REPORT_TEXT, NULL, NULL),
				 -EINVAL);
		ck_assert_int_eq(ksft_metric_report_comparison_write(NULL, KSFT_METRIC_REPORT_TEXT,
								     f), -EINVAL);
		fclose(f);
		ck_assert_uint_eq(c.len, 0);
		free(c.data);
	}
	ksft_metric_report_comparison_free(cmp);
	ksft_metric_report_baseline_free(b);
	ksft_metric_report_free(r);
	free(log);
}
END_TEST

Suite *make_suite(void)
{
	const struct ck_case cases[] = {
		{ "report_write_same_bytes", test_report_write_same_bytes },
		{ "comparison_write_same_bytes", test_comparison_write_same_bytes },
		{ "write_failures", test_write_failures },
	};

	return ck_suite_of("report_write", cases, sizeof(cases) / sizeof(cases[0]));
}
