/*
 * Output: the line prefix and the three real sinks (FILE, fd, callback),
 * with their error paths (EPIPE without dying of SIGPIPE, ENOSPC).
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check_main.h"
#include "producer_util.h"

#define LINE_A "ktap-metric-json: {\"host\":\"local\",\"name\":\"a\",\"shape\":\"scalar\",\"time\":T,\"value\":1}"
#define LINE_B "ktap-metric-json: {\"name\":\"b\",\"shape\":\"per-cpu\",\"time\":T,\"value\":[0.5,null]}"
#define POL_B "ktap-metric-policy-json: {\"name\":\"b\",\"summarize\":\"max\"}"

/* Policy line + two observations: the lines above. */
static void record_three(void)
{
	static const struct ksft_metric_label l[] = { KSFT_METRIC_LABEL_STR("host", "local") };
	static const double v[2] = { 0.5, 0 };
	static const unsigned char present[2] = { 1, 0 };
	struct ksft_metric_policy p = KSFT_METRIC_POLICY_INIT;

	p.summarize = "max";
	pu_begin();
	pu_assert_ok(ksft_metric_aggregate("b", &p));
	pu_assert_ok(ksft_metric_int("a", "scalar", 1, l, 1));
	pu_assert_ok(ksft_metric_array("b", "per-cpu", v, present, 2, NULL, 0));
}

static void assert_masked_eq_at(const char *file, int line, const char *got, const char *want)
{
	char *masked = pu_mask_time(got);

	pu_text_eq_at(file, line, masked, want);
	free(masked);
}
#define assert_masked_eq(got, want) assert_masked_eq_at(__FILE__, __LINE__, (got), (want))

START_TEST(test_default_prefix)
{
	record_three();
	pu_expect_end("# " POL_B "\n# " LINE_A "\n# " LINE_B "\n");
}
END_TEST

START_TEST(test_set_prefix)
{
	pu_assert_ok(ksft_metric_set_prefix("# # "));
	record_three();
	pu_expect_end("# # " POL_B "\n# # " LINE_A "\n# # " LINE_B "\n");
	pu_assert_ok(ksft_metric_set_prefix(""));
	record_three();
	pu_expect_end(POL_B "\n" LINE_A "\n" LINE_B "\n");
	/* UTF-8 and tabs are fine; the prefix is taken verbatim. */
	pu_assert_ok(ksft_metric_set_prefix("\t\xc2\xbb "));
	record_three();
	pu_expect_end("\t\xc2\xbb " POL_B "\n\t\xc2\xbb " LINE_A "\n\t\xc2\xbb " LINE_B "\n");
}
END_TEST

START_TEST(test_prefix_copied)
{
	char buf[] = "## ";

	pu_assert_ok(ksft_metric_set_prefix(buf));
	buf[0] = 'X';
	pu_begin();
	pu_assert_ok(ksft_metric_int("a", "scalar", 1, NULL, 0));
	pu_expect_end("## " PU_OBS "{\"name\":\"a\",\"shape\":\"scalar\",\"time\":T,\"value\":1}\n");
}
END_TEST

START_TEST(test_invalid_prefix)
{
	pu_assert_ok(ksft_metric_set_prefix("> "));
	pu_assert_err(ksft_metric_set_prefix("# \n# "), EINVAL, "line prefix contains a line break");
	pu_assert_err(ksft_metric_set_prefix("\n"), EINVAL, "line prefix contains a line break");
	pu_assert_err(ksft_metric_set_prefix("#\r"), EINVAL, "line prefix contains a line break");
	pu_assert_err(ksft_metric_set_prefix(NULL), EINVAL, "line prefix is NULL");
	pu_assert_err(ksft_metric_set_prefix("#\xff "), EINVAL, "line prefix is not valid UTF-8");
	/* The previous prefix stays. */
	record_three();
	pu_expect_end("> " POL_B "\n> " LINE_A "\n> " LINE_B "\n");
}
END_TEST

START_TEST(test_fd_sink_pipe)
{
	int p[2];
	char *text;

	ck_assert_int_eq(pipe(p), 0);
	pu_assert_ok(ksft_metric_set_output_fd(p[1]));
	record_three();
	ck_assert_int_eq(ksft_metric_case_end(), 3);
	ck_assert_int_eq(ksft_metric_case_is_open(), 0);
	/* An empty case writes nothing. */
	pu_begin();
	ck_assert_int_eq(ksft_metric_case_end(), 0);
	close(p[1]);
	text = pu_read_fd(p[0], NULL);
	close(p[0]);
	assert_masked_eq(text, "# " POL_B "\n# " LINE_A "\n# " LINE_B "\n");
	free(text);
}
END_TEST

START_TEST(test_fd_sink_invalid)
{
	struct pu_lines l = { 0 };
	char *text;
	int p[2];

	pu_assert_ok(ksft_metric_set_output_callback(pu_collect_cb, &l));
	pu_assert_err(ksft_metric_set_output_fd(-1), EBADF, "output file descriptor -1 is not open");
	ck_assert_int_eq(pipe(p), 0);
	close(p[0]);
	close(p[1]);
	ck_assert_int_eq(ksft_metric_set_output_fd(p[1]), -EBADF);
	pu_assert_err(ksft_metric_set_output_callback(NULL, NULL), EINVAL, "output callback is NULL");
	pu_assert_err(ksft_metric_set_output_file(NULL), EINVAL, "output stream is NULL");
	/* The rejected calls left the callback sink in place. */
	record_three();
	ck_assert_int_eq(ksft_metric_case_end(), 3);
	text = pu_lines_join(&l);
	assert_masked_eq(text, "# " POL_B "\n# " LINE_A "\n# " LINE_B "\n");
	free(text);
	pu_lines_free(&l);
}
END_TEST

START_TEST(test_file_sink_order)
{
	FILE *f = tmpfile();
	char *text;

	ck_assert_ptr_nonnull(f);
	/* Unflushed stdio output before the lines ... */
	fprintf(f, "# before\n");
	pu_assert_ok(ksft_metric_set_output_file(f));
	record_three();
	ck_assert_int_eq(ksft_metric_case_end(), 3);
	/* ... and after them. */
	fprintf(f, "ok 1 test\n");
	text = pu_read_stream(f, NULL);
	assert_masked_eq(text, "# before\n# " POL_B "\n# " LINE_A "\n# " LINE_B "\nok 1 test\n");
	free(text);
	pu_assert_ok(ksft_metric_set_output_file(stdout));
	fclose(f);
}
END_TEST

START_TEST(test_file_sink_fmemopen)
{
	char buf[4096];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	ck_assert_ptr_nonnull(f);
	fprintf(f, "TAP version 13\n");
	pu_assert_ok(ksft_metric_set_output_file(f));
	record_three();
	ck_assert_int_eq(ksft_metric_case_end(), 3);
	/* The stream was flushed at case end: the text is in buf already. */
	buf[sizeof(buf) - 1] = '\0';
	{
		long pos = ftell(f);

		ck_assert_int_gt(pos, 0);
		buf[pos] = '\0';
	}
	assert_masked_eq(buf, "TAP version 13\n# " POL_B "\n# " LINE_A "\n# " LINE_B "\n");
	fprintf(f, "ok 1 x\n");
	pu_assert_ok(ksft_metric_set_output_file(stdout));
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_ptr_nonnull(strstr(buf, "null]}\nok 1 x\n"));
}
END_TEST

START_TEST(test_default_sink_stdout)
{
	int p[2], saved;
	char *text;

	ck_assert_int_eq(pipe(p), 0);
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	ck_assert_int_ge(saved, 0);
	ck_assert_int_ge(dup2(p[1], STDOUT_FILENO), 0);
	close(p[1]);
	printf("# before\n");
	record_three();
	ck_assert_int_eq(ksft_metric_case_end(), 3);
	printf("ok 1 test\n");
	fflush(stdout);
	ck_assert_int_ge(dup2(saved, STDOUT_FILENO), 0);
	close(saved);
	text = pu_read_fd(p[0], NULL);
	close(p[0]);
	assert_masked_eq(text, "# before\n# " POL_B "\n# " LINE_A "\n# " LINE_B "\nok 1 test\n");
	free(text);
}
END_TEST

struct ctx_check {
	struct pu_lines lines;
	int magic;
};

static int ctx_cb(const char *line, size_t len, void *ctx)
{
	struct ctx_check *c = ctx;

	if (c->magic != 0x5eed)
		return -EFAULT;
	return pu_collect_cb(line, len, &c->lines);
}

START_TEST(test_callback_sink)
{
	struct ctx_check c = { { 0 }, 0x5eed };
	char *text;

	pu_assert_ok(ksft_metric_set_output_callback(ctx_cb, &c));
	record_three();
	ck_assert_int_eq(ksft_metric_case_end(), 3);
	ck_assert_uint_eq(c.lines.n, 3);
	/* Each line whole, prefix included, without its '\n'. */
	ck_assert_int_eq(c.lines.saw_newline, 0);
	text = pu_lines_join(&c.lines);
	assert_masked_eq(text, "# " POL_B "\n# " LINE_A "\n# " LINE_B "\n");
	free(text);
	pu_lines_free(&c.lines);
	/* An empty case never calls back. */
	pu_begin();
	ck_assert_int_eq(ksft_metric_case_end(), 0);
	ck_assert_uint_eq(c.lines.n, 0);
}
END_TEST

START_TEST(test_callback_error)
{
	struct pu_lines l = { 0 };

	l.fail_at = 2;
	l.fail_err = -EXDEV;
	pu_assert_ok(ksft_metric_set_output_callback(pu_collect_cb, &l));
	record_three();
	ck_assert_int_eq(ksft_metric_case_end(), -EXDEV);
	ck_assert_str_ne(ksft_metric_errmsg(), "");
	/* Closed and cleared anyway; the first line was delivered. */
	ck_assert_int_eq(ksft_metric_case_is_open(), 0);
	ck_assert_uint_eq(l.n, 1);
	assert_masked_eq(l.v[0], "# " POL_B);
	pu_lines_free(&l);
	l.fail_at = 0;
	pu_begin();
	ck_assert_int_eq(ksft_metric_case_end(), 0);
	ck_assert_uint_eq(l.n, 0);
}
END_TEST

static int sigpipe_pending(void)
{
	sigset_t s;

	ck_assert_int_eq(sigpending(&s), 0);
	return sigismember(&s, SIGPIPE);
}

START_TEST(test_epipe_fd)
{
	int p[2];

	signal(SIGPIPE, SIG_DFL);
	ck_assert_int_eq(pipe(p), 0);
	close(p[0]);
	pu_assert_ok(ksft_metric_set_output_fd(p[1]));
	record_three();
	/* Still alive: SIGPIPE did not kill us. */
	pu_assert_err(ksft_metric_case_end(), EPIPE,
		      "writing metric lines to the output file descriptor failed: Broken pipe");
	ck_assert_int_eq(ksft_metric_case_is_open(), 0);
	ck_assert_int_eq(sigpipe_pending(), 0);
	close(p[1]);
}
END_TEST

START_TEST(test_epipe_file)
{
	int p[2];
	FILE *f;

	signal(SIGPIPE, SIG_DFL);
	ck_assert_int_eq(pipe(p), 0);
	close(p[0]);
	f = fdopen(p[1], "w");
	ck_assert_ptr_nonnull(f);
	pu_assert_ok(ksft_metric_set_output_file(f));
	record_three();
	pu_assert_err(ksft_metric_case_end(), EPIPE,
		      "writing metric lines to the output stream failed: Broken pipe");
	ck_assert_int_eq(sigpipe_pending(), 0);
	pu_assert_ok(ksft_metric_set_output_file(stdout));
	fclose(f);
}
END_TEST

START_TEST(test_epipe_keeps_pending_sigpipe)
{
	/* A SIGPIPE the application already had pending is not swallowed. */
	sigset_t set, old;
	int p[2];

	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	ck_assert_int_eq(pthread_sigmask(SIG_BLOCK, &set, &old), 0);
	ck_assert_int_eq(raise(SIGPIPE), 0);
	ck_assert_int_eq(sigpipe_pending(), 1);
	ck_assert_int_eq(pipe(p), 0);
	close(p[0]);
	pu_assert_ok(ksft_metric_set_output_fd(p[1]));
	record_three();
	ck_assert_int_eq(ksft_metric_case_end(), -EPIPE);
	ck_assert_int_eq(sigpipe_pending(), 1);
	/* And the mask is the application's again (SIGPIPE still blocked). */
	{
		sigset_t now;

		ck_assert_int_eq(pthread_sigmask(SIG_BLOCK, NULL, &now), 0);
		ck_assert_int_eq(sigismember(&now, SIGPIPE), 1);
	}
	{
		static const struct timespec zero;

		ck_assert_int_eq(sigtimedwait(&set, NULL, &zero), SIGPIPE);
	}
	close(p[1]);
}
END_TEST

START_TEST(test_enospc)
{
	int fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
	FILE *f;

	ck_assert_int_ge(fd, 0);
	pu_assert_ok(ksft_metric_set_output_fd(fd));
	record_three();
	pu_assert_err(ksft_metric_case_end(), ENOSPC,
		      "writing metric lines to the output file descriptor failed: No space left on device");
	ck_assert_int_eq(ksft_metric_case_is_open(), 0);
	close(fd);

	f = fopen("/dev/full", "w");
	ck_assert_ptr_nonnull(f);
	pu_assert_ok(ksft_metric_set_output_file(f));
	record_three();
	pu_assert_err(ksft_metric_case_end(), ENOSPC,
		      "writing metric lines to the output stream failed: No space left on device");
	/* The stream's error state does not stick to the next case. */
	pu_begin();
	ck_assert_int_eq(ksft_metric_case_end(), 0);
	pu_assert_ok(ksft_metric_set_output_file(stdout));
	fclose(f);
}
END_TEST

START_TEST(test_end_buffer_lines)
{
	char *out = NULL;
	size_t len = 0, i, n = 0;
	int r;

	/* The configured sink is not used by the buffer variant. */
	struct pu_lines l = { 0 };

	pu_assert_ok(ksft_metric_set_output_callback(pu_collect_cb, &l));
	pu_assert_ok(ksft_metric_set_prefix("# # "));
	record_three();
	r = ksft_metric_case_end_buffer(&out, &len);
	ck_assert_int_eq(r, 3);
	ck_assert_ptr_nonnull(out);
	ck_assert_uint_eq(len, strlen(out));
	ck_assert_uint_eq(l.n, 0);
	for (i = 0; i < len; i++)
		n += out[i] == '\n';
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(out[len - 1], '\n');
	assert_masked_eq(out, "# # " POL_B "\n# # " LINE_A "\n# # " LINE_B "\n");
	ksft_metric_free(out);
	/* len may be NULL. */
	record_three();
	out = NULL;
	ck_assert_int_eq(ksft_metric_case_end_buffer(&out, NULL), 3);
	ck_assert_ptr_nonnull(out);
	ksft_metric_free(out);
	ksft_metric_free(NULL);
	pu_lines_free(&l);
}
END_TEST

START_TEST(test_large_case_to_fd)
{
	/* Well past one internal batch and PIPE_BUF: order and wholeness kept. */
	enum { N = 5000 };
	char *text, *line;
	FILE *f;
	int i;

	f = tmpfile();
	ck_assert_ptr_nonnull(f);
	pu_assert_ok(ksft_metric_set_output_fd(fileno(f)));
	pu_begin();
	for (i = 0; i < N; i++) {
		struct ksft_metric_label l = KSFT_METRIC_LABEL_INT("seq", i);

		pu_assert_ok(ksft_metric_int("m", "scalar", i, &l, 1));
	}
	ck_assert_int_eq(ksft_metric_case_end(), N);
	text = pu_read_stream(f, NULL);
	ck_assert_uint_eq(pu_count_lines(text), N);
	for (i = 0, line = text; i < N; i++) {
		char want[160];
		char *nl = strchr(line, '\n'), *masked;

		*nl = '\0';
		masked = pu_mask_time(line);
		snprintf(want, sizeof(want), "# " PU_OBS "{\"name\":\"m\",\"seq\":%d,\"shape\":\"scalar\","
			 "\"time\":T,\"value\":%d}", i, i);
		ck_assert_str_eq(masked, want);
		free(masked);
		line = nl + 1;
	}
	free(text);
	pu_assert_ok(ksft_metric_set_output_file(stdout));
	fclose(f);
}
END_TEST

START_TEST(test_prefix_applies_at_end)
{
	/* The prefix in force when the case ends is the one printed. */
	pu_assert_ok(ksft_metric_set_prefix("old "));
	record_three();
	pu_assert_ok(ksft_metric_set_prefix("new "));
	pu_expect_end("new " POL_B "\nnew " LINE_A "\nnew " LINE_B "\n");
}
END_TEST

START_TEST(test_long_line_fd)
{
	/* A line longer than PIPE_BUF between short ones, through a pipe. */
	enum { N = 2000 };
	double *v = malloc(N * sizeof(*v));
	char *want, *p, *text;
	int fds[2], i;

	ck_assert_ptr_nonnull(v);
	want = malloc(N * 24 + 1024);
	ck_assert_ptr_nonnull(want);
	for (i = 0; i < N; i++)
		v[i] = i + 0.125;	/* exact, repr "<i>.125" */
	ck_assert_int_eq(pipe(fds), 0);
	pu_assert_ok(ksft_metric_set_output_fd(fds[1]));
	pu_begin();
	pu_assert_ok(ksft_metric_int("short", "scalar", 1, NULL, 0));
	pu_assert_ok(ksft_metric_array("long", "per-cpu", v, NULL, N, NULL, 0));
	pu_assert_ok(ksft_metric_int("short", "scalar", 2, NULL, 0));
	ck_assert_int_eq(ksft_metric_case_end(), 3);
	close(fds[1]);
	text = pu_read_fd(fds[0], NULL);
	close(fds[0]);
	p = want + sprintf(want, "# " PU_OBS "{\"name\":\"short\",\"shape\":\"scalar\",\"time\":T,\"value\":1}\n"
			   "# " PU_OBS "{\"name\":\"long\",\"shape\":\"per-cpu\",\"time\":T,\"value\":[");
	for (i = 0; i < N; i++)
		p += sprintf(p, "%s%d.125", i ? "," : "", i);
	sprintf(p, "]}\n# " PU_OBS "{\"name\":\"short\",\"shape\":\"scalar\",\"time\":T,\"value\":2}\n");
	ck_assert_uint_gt(strlen(want), 3 * 4096);
	assert_masked_eq(text, want);
	free(text);
	free(want);
	free(v);
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("output");

	suite_add_tcase(s, pu_tcase("default_prefix", test_default_prefix));
	suite_add_tcase(s, pu_tcase("set_prefix", test_set_prefix));
	suite_add_tcase(s, pu_tcase("prefix_copied", test_prefix_copied));
	suite_add_tcase(s, pu_tcase("invalid_prefix", test_invalid_prefix));
	suite_add_tcase(s, pu_tcase("prefix_applies_at_end", test_prefix_applies_at_end));
	suite_add_tcase(s, pu_tcase("fd_sink_pipe", test_fd_sink_pipe));
	suite_add_tcase(s, pu_tcase("fd_sink_invalid", test_fd_sink_invalid));
	suite_add_tcase(s, pu_tcase("file_sink_order", test_file_sink_order));
	suite_add_tcase(s, pu_tcase("file_sink_fmemopen", test_file_sink_fmemopen));
	suite_add_tcase(s, pu_tcase("default_sink_stdout", test_default_sink_stdout));
	suite_add_tcase(s, pu_tcase("callback_sink", test_callback_sink));
	suite_add_tcase(s, pu_tcase("callback_error", test_callback_error));
	suite_add_tcase(s, pu_tcase("epipe_fd", test_epipe_fd));
	suite_add_tcase(s, pu_tcase("epipe_file", test_epipe_file));
	suite_add_tcase(s, pu_tcase("epipe_keeps_pending_sigpipe", test_epipe_keeps_pending_sigpipe));
	suite_add_tcase(s, pu_tcase("enospc", test_enospc));
	suite_add_tcase(s, pu_tcase("end_buffer_lines", test_end_buffer_lines));
	suite_add_tcase(s, pu_tcase("large_case_to_fd", test_large_case_to_fd));
	suite_add_tcase(s, pu_tcase("long_line_fd", test_long_line_fd));
	return s;
}
