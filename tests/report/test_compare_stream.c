/*
 * compare against a baseline file read as a stream
 * (ksft_metric_report_compare_fd(), issue 45): the rows, verdicts and
 * errors of ksft_metric_report_baseline_load() + ksft_metric_report_compare()
 * on every file; streamed (one series held at a time) exactly when the
 * file is one run in step with the report, else read whole.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check_main.h"
#include "judge/compare_stream.h"
#include "report_util.h"

#define POL "# ktap-metric-policy-json: {\"name\":\"m\",\"regression\":{\"better\":\"higher\"," \
	"\"compare\":\"p50\",\"relative_tolerance\":0.05},\"summarize\":\"distribution\"}\n"
#define M(v) "# ktap-metric-json: {\"name\":\"m\",\"shape\":\"scalar\",\"value\":" #v "}\n"
#define CTX(clock) "# ktap-metric-context-json: {\"clock\":\"" clock "\",\"kernel\":\"6.12\"}\n"

/* Three cases a, b, c; the current run's values are below the baseline's. */
#define LOG_ABC POL M(10) M(11) "ok 1 a\n" M(20) "ok 2 b\n" M(30) M(31) "ok 3 c\n"
#define CUR_ABC POL M(9) M(8) "ok 1 a\n" M(25) "ok 2 b\n" M(30) "ok 3 c\n"

/* save's text of one run a log in @logs (NULL-terminated): malloc'd. */
static char *saved(const char *const *logs)
{
	struct ksft_metric_report_baseline *b = ksft_metric_report_baseline_new();
	char *text;
	size_t len;

	ck_assert_ptr_nonnull(b);
	for (; *logs; logs++) {
		struct ksft_metric_report *r = ru_read("base.log", *logs);
		const char *src = "base.log";

		ck_assert_int_gt(ksft_metric_report_baseline_add_report(b, r, &src, 1), 0);
		ksft_metric_report_free(r);
	}
	ck_assert_int_eq(ksft_metric_report_baseline_format(b, &text, &len), 0);
	ksft_metric_report_baseline_free(b);
	return text;
}

static char *saved1(const char *log)
{
	const char *logs[] = { log, NULL };

	return saved(logs);
}

/* @text in an unnamed file, its position at its end (pread ignores it). */
static int file_of(const char *text)
{
	int fd = memfd_create("baseline", 0);
	size_t len = strlen(text);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
	return fd;
}

static char *json_of(const struct ksft_metric_report_comparison *c)
{
	char *text;
	size_t len;

	ck_assert_int_eq(ksft_metric_report_comparison_format(c, KSFT_METRIC_REPORT_JSON, &text,
							      &len), 0);
	return text;
}

/*
 * @cur against @text both ways, twice (a verdict twice): the same return,
 * the same JSON of the rows (or the same error message) and context
 * difference; streamed or not as @want_streamed says. @return the stream's
 * most bytes held.
 */
static size_t check_same(const char *cur_log, const char *text, int allow_mismatch,
			 size_t window, int want_streamed)
{
	struct ksft_metric_report_compare_opts o = KSFT_METRIC_REPORT_COMPARE_OPTS_INIT;
	struct ksft_metric_report *r = ru_read("cur.log", cur_log);
	struct compare_stream_stats st;
	int k, fd = file_of(text);

	o.allow_context_mismatch = allow_mismatch;
	for (k = 0; k < 2; k++) {
		struct ksft_metric_report_baseline *b = ksft_metric_report_baseline_new();
		struct ksft_metric_report_comparison *c1 = NULL, *c2 = NULL;
		char *msg1 = NULL;
		int f1, f2;

		f1 = ksft_metric_report_baseline_load(b, text, strlen(text), "b.json");
		if (f1 >= 0)
			f1 = ksft_metric_report_compare(r, b, &o, &c1);
		if (f1 < 0)
			msg1 = strdup(ksft_metric_report_errmsg());
		f2 = compare_stream_fd(r, fd, "b.json", &o, &c2, window, &st);
		ck_assert_int_eq(f2, f1);
		ck_assert_int_eq(st.streamed, want_streamed);
		if (f1 < 0) {
			ck_assert_ptr_null(c2);
			ck_assert_str_eq(ksft_metric_report_errmsg(), msg1);
		} else {
			char *j1 = json_of(c1), *j2 = json_of(c2);
			const char *d1 = ksft_metric_report_comparison_context_diff(c1);
			const char *d2 = ksft_metric_report_comparison_context_diff(c2);

			ck_assert_str_eq(j2, j1);
			ck_assert_int_eq(!d1, !d2);
			if (d1)
				ck_assert_str_eq(d2, d1);
			ksft_metric_report_text_free(j1);
			ksft_metric_report_text_free(j2);
		}
		free(msg1);
		ksft_metric_report_comparison_free(c1);
		ksft_metric_report_comparison_free(c2);
		ksft_metric_report_baseline_free(b);
	}
	close(fd);
	ksft_metric_report_free(r);
	return st.held_max;
}

START_TEST(test_in_step_streams)
{
	char *text = saved1(LOG_ABC);

	check_same(CUR_ABC, text, 0, COMPARE_STREAM_WINDOW, 1);
	check_same(CUR_ABC, text, 0, 16, 1);	/* a window shorter than a line: it grows */
	free(text);
}
END_TEST

/* Each file that is not one run in step is read whole, to the same rows. */
START_TEST(test_fallbacks_same_rows)
{
	static const char *const two[] = { LOG_ABC, LOG_ABC, NULL };
	char *text;

	text = saved(two);			/* two runs */
	check_same(CUR_ABC, text, 0, 64, 0);
	free(text);
	/* c before b */
	text = saved1(POL M(10) M(11) "ok 1 a\n" M(30) M(31) "ok 2 c\n" M(20) "ok 3 b\n");
	check_same(CUR_ABC, text, 0, 64, 0);
	free(text);
	text = saved1(LOG_ABC M(40) "ok 4 d\n");	/* d missing from the run */
	check_same(CUR_ABC, text, 0, 64, 0);
	free(text);
	text = saved1(POL M(10) M(11) "ok 1 a\n" M(20) "ok 2 b\n");	/* c new */
	check_same(CUR_ABC, text, 0, 64, 0);
	free(text);
	/* an extra and a missing one in the same place: d for c */
	text = saved1(POL M(10) M(11) "ok 1 a\n" M(20) "ok 2 b\n" M(30) "ok 3 d\n");
	check_same(CUR_ABC, text, 0, 64, 0);
	free(text);
	/* the flat file zperf_regression.py --save writes */
	check_same("ZPERF-RESULT udp4_mbps=12.3\n", "{\"udp4_mbps\": 13.099}\n", 0, 64, 0);
	/* a name with an escape: the scanner leaves it to jansson */
	text = saved1(POL M(10) "ok 1 a\\\\b\n");
	check_same(POL M(9) "ok 1 a\\\\b\n", text, 0, 64, 0);
	free(text);
}
END_TEST

/* A run that holds a series twice (a file made by hand, in step up to
 * its extra copy of a): a's key has both, as the index gives it,
 * whether read as a stream or not. */
START_TEST(test_series_twice_in_a_run)
{
	char *text = saved1(LOG_ABC), *twice, *a_end;
	struct ksft_metric_report *r = ru_read("cur.log", CUR_ABC);
	struct ksft_metric_report_baseline *b = ksft_metric_report_baseline_new();
	struct ksft_metric_report_comparison *c;
	struct ksft_metric_report_row row = { .sz = sizeof(row) };
	size_t a_len, tail;
	int k;

	/* a's line again after c's: "...{c}" ",\n {a}" "]}]}\n" */
	a_end = strstr(text, "},\n {");
	ck_assert_ptr_nonnull(a_end);
	a_len = (size_t)(a_end + 1 - strstr(text, "\n {"));
	tail = strlen("]}]}\n");
	ck_assert_int_gt(asprintf(&twice, "%.*s,%.*s%s", (int)(strlen(text) - tail), text,
				  (int)a_len, strstr(text, "\n {"), "]}]}\n"), 0);
	ck_assert_int_eq(ksft_metric_report_baseline_load(b, twice, strlen(twice), "b.json"), 1);
	for (k = 0; k < 2; k++) {
		ck_assert_int_ge(ksft_metric_report_compare(r, b, NULL, &c), 0);
		ck_assert_uint_eq(ksft_metric_report_comparison_rows(c), 3);
		ck_assert_int_eq(ksft_metric_report_comparison_row(c, 0, &row), 0);
		ck_assert_str_eq(row.case_name, "a");
		ck_assert_uint_eq(row.baseline_runs, 2);	/* a's two series */
		ck_assert_uint_eq(row.n_baseline, 4);
		ksft_metric_report_comparison_free(c);
	}
	check_same(CUR_ABC, twice, 0, 64, 0);
	ksft_metric_report_baseline_free(b);
	ksft_metric_report_free(r);
	free(twice);
	free(text);
}
END_TEST

/* A pipe cannot be read twice: read whole, to the same rows. */
START_TEST(test_pipe_read_whole)
{
	struct ksft_metric_report *r = ru_read("cur.log", CUR_ABC);
	struct ksft_metric_report_baseline *b = ksft_metric_report_baseline_new();
	struct ksft_metric_report_comparison *c1, *c2;
	struct compare_stream_stats st;
	char *text = saved1(LOG_ABC), *j1, *j2;
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(write(p[1], text, strlen(text)), (ssize_t)strlen(text));
	close(p[1]);
	ck_assert_int_gt(ksft_metric_report_baseline_load(b, text, strlen(text), "b.json"), 0);
	ck_assert_int_eq(compare_stream_fd(r, p[0], "b.json", NULL, &c2, 64, &st),
			 ksft_metric_report_compare(r, b, NULL, &c1));
	ck_assert_int_eq(st.streamed, 0);
	j1 = json_of(c1);
	j2 = json_of(c2);
	ck_assert_str_eq(j2, j1);
	ksft_metric_report_text_free(j1);
	ksft_metric_report_text_free(j2);
	ksft_metric_report_comparison_free(c1);
	ksft_metric_report_comparison_free(c2);
	ksft_metric_report_baseline_free(b);
	ksft_metric_report_free(r);
	close(p[0]);
	free(text);
}
END_TEST

/* A malformed line, early or late, a second run broken, a cut file: the
 * whole file's error, word for word. */
START_TEST(test_errors_same_text)
{
	char *text = saved1(LOG_ABC), *bad, *at;
	size_t len = strlen(text);

	bad = strdup(text);
	at = strstr(bad, "\"samples\":[");	/* the first series */
	ck_assert_ptr_nonnull(at);
	memcpy(at + 11, "\"x\"", 3);
	check_same(CUR_ABC, bad, 0, 64, 0);
	free(bad);
	bad = strdup(text);
	at = strrchr(bad, '{');			/* the last series' labels */
	ck_assert_ptr_nonnull(at);
	*at = '[';
	check_same(CUR_ABC, bad, 0, 64, 0);
	free(bad);
	bad = strndup(text, len - 4);		/* cut short */
	check_same(CUR_ABC, bad, 0, 64, 0);
	free(bad);
	ck_assert_int_gt(asprintf(&bad, "%.*s,\n{\"sources\":[],\"series\":[{]}]}\n",
				  (int)(len - 3), text), 0);	/* a broken second run */
	check_same(CUR_ABC, bad, 0, 64, 0);
	free(bad);
	check_same(CUR_ABC, "", 0, 64, 0);	/* empty */
	free(text);
}
END_TEST

/* A baseline measured otherwise: the same refusal, or with
 * allow_context_mismatch the same rows and difference, streamed. */
START_TEST(test_context_differs)
{
	char *text = saved1(CTX("icount") LOG_ABC);

	check_same(CTX("tsc") CUR_ABC, text, 0, 64, 0);
	check_same(CTX("tsc") CUR_ABC, text, 1, 64, 1);
	check_same(CTX("icount") CUR_ABC, text, 0, 64, 1);
	free(text);
}
END_TEST

/* A long file streamed through a small window holds a small part of it. */
START_TEST(test_streams_bounded)
{
	size_t n = 4000, i, held, len;
	char *log = NULL, *cur = NULL, *text;
	FILE *f = open_memstream(&log, &len), *g;

	g = open_memstream(&cur, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(g);
	fputs(POL, f);
	fputs(POL, g);
	for (i = 0; i < n; i++) {
		fprintf(f, M(%zu) "ok %zu case_%zu\n", i + 1, i + 1, i);
		fprintf(g, M(%zu) "ok %zu case_%zu\n", i + 2, i + 1, i);
	}
	fclose(f);
	fclose(g);
	text = saved1(log);
	held = check_same(cur, text, 0, 4096, 1);
	ck_assert_uint_gt(held, 0);
	ck_assert_msg(held * 4 < strlen(text), "held %zu of a %zu-byte file", held, strlen(text));
	free(text);
	free(log);
	free(cur);
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("compare_stream");
	TCase *tc;

	tc = tcase_create("streamed");
	tcase_add_test(tc, test_in_step_streams);
	tcase_add_test(tc, test_streams_bounded);
	suite_add_tcase(s, tc);
	tc = tcase_create("read_whole");
	tcase_add_test(tc, test_fallbacks_same_rows);
	tcase_add_test(tc, test_pipe_read_whole);
	tcase_add_test(tc, test_series_twice_in_a_run);
	suite_add_tcase(s, tc);
	tc = tcase_create("errors");
	tcase_add_test(tc, test_errors_same_text);
	suite_add_tcase(s, tc);
	tc = tcase_create("context");
	tcase_add_test(tc, test_context_differs);
	suite_add_tcase(s, tc);
	return s;
}
