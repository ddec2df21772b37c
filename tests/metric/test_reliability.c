/*
 * Reliability of the producer: the per-case memory cap, write-through mode,
 * and a case still open when the process exits or dies (exit(), SIGTERM,
 * abort(), SIGKILL with write-through). Each death runs in a forked child
 * writing to a pipe; the parent checks what came out.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ksftmetric/ksftmetric.h>

#include "check_main.h"
#include "producer_util.h"

enum death { DIE_EXIT, DIE_SIGTERM, DIE_ABORT, DIE_SIGKILL, DIE_END, DIE_OWN_HANDLER };

static void own_handler(int sig)
{
	(void)sig;
	_exit(42);
}

/* Child: 3 observations, then die as told; returns the child's output. */
static char *run_child(enum death how, int stream, int *status)
{
	static char buf[1 << 16];
	size_t len = 0;
	int fds[2];
	pid_t pid;
	ssize_t n;

	ck_assert_int_eq(pipe(fds), 0);
	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int i;

		close(fds[0]);
		/* Check's runner handlers are inherited: start from the defaults. */
		signal(SIGTERM, SIG_DFL);
		signal(SIGABRT, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		if (how == DIE_OWN_HANDLER)
			signal(SIGTERM, own_handler);
		if (ksft_metric_set_output_fd(fds[1]) || ksft_metric_set_stream(stream) ||
		    ksft_metric_case_begin() || ksft_metric_aggregate("x", NULL))
			_exit(3);
		for (i = 0; i < 3; i++)
			if (ksft_metric_int("x", "scalar", i, NULL, 0))
				_exit(4);
		switch (how) {
		case DIE_EXIT:
			exit(0);
		case DIE_SIGTERM:
		case DIE_OWN_HANDLER:
			raise(SIGTERM);
			break;
		case DIE_ABORT:
			abort();
		case DIE_SIGKILL:
			raise(SIGKILL);
			break;
		case DIE_END:
			ksft_metric_case_end();
			exit(0);
		}
		_exit(5);
	}
	close(fds[1]);
	while ((n = read(fds[0], buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	close(fds[0]);
	ck_assert_int_eq(waitpid(pid, status, 0), pid);
	return buf;
}

static const char three[] =
	"# ktap-metric-policy-json: {\"name\":\"x\",\"summarize\":\"total\"}\n"
	"# ktap-metric-json: {\"name\":\"x\",\"shape\":\"scalar\",\"time\":T,\"value\":0}\n"
	"# ktap-metric-json: {\"name\":\"x\",\"shape\":\"scalar\",\"time\":T,\"value\":1}\n"
	"# ktap-metric-json: {\"name\":\"x\",\"shape\":\"scalar\",\"time\":T,\"value\":2}\n";

#define STREAM_BEGIN "# ktap-metric-stream-json: {\"state\":\"begin\"}\n"
#define STREAM_END "# ktap-metric-stream-json: {\"state\":\"end\"}\n"

static void expect_framed(const char *out, const char *head, const char *tail)
{
	char want[1024];
	char *masked = pu_mask_time(out);

	snprintf(want, sizeof(want), "%s%s%s", head, three, tail);
	pu_assert_text_eq(masked, want);
	free(masked);
}

static void expect_output(const char *out, const char *tail)
{
	expect_framed(out, "", tail);
}

START_TEST(test_exit_flushes)
{
	int status;
	char *out = run_child(DIE_EXIT, 0, &status);

	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	expect_output(out, "# ktap-metric-abort-json: {\"reason\":\"exit\",\"status\":0}\n");
}
END_TEST

START_TEST(test_sigterm_flushes)
{
	int status;
	char *out = run_child(DIE_SIGTERM, 0, &status);

	/* Still dies of the signal, so the harness sees the same status. */
	ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	expect_output(out, "# ktap-metric-abort-json: {\"reason\":\"SIGTERM\"}\n");
}
END_TEST

START_TEST(test_abort_flushes)
{
	int status;
	char *out = run_child(DIE_ABORT, 0, &status);

	ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
	expect_output(out, "# ktap-metric-abort-json: {\"reason\":\"SIGABRT\"}\n");
}
END_TEST

START_TEST(test_own_handler_kept)
{
	int status;
	char *out = run_child(DIE_OWN_HANDLER, 0, &status);

	/* The test's handler ran (_exit skips atexit): nothing of ours. */
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 42);
	ck_assert_str_eq(out, "");
}
END_TEST

START_TEST(test_sigkill_buffered_loses_case)
{
	int status;
	char *out = run_child(DIE_SIGKILL, 0, &status);

	/* Without write-through SIGKILL takes everything: why streaming exists. */
	ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	ck_assert_str_eq(out, "");
}
END_TEST

START_TEST(test_sigkill_stream_keeps_lines)
{
	int status;
	char *out = run_child(DIE_SIGKILL, 1, &status);

	ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	/* Framed, with no "end": a reader can tell the case was cut short. */
	expect_framed(out, STREAM_BEGIN, "");
}
END_TEST

START_TEST(test_stream_not_repeated_at_end)
{
	int status;
	char *out = run_child(DIE_END, 1, &status);

	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	expect_framed(out, STREAM_BEGIN, STREAM_END);
}
END_TEST

START_TEST(test_stream_env)
{
	int n, devnull = open("/dev/null", O_WRONLY);
	char *out;

	pu_reset();
	setenv("KSFTMETRIC_STREAM", "1", 1);
	pu_begin();
	unsetenv("KSFTMETRIC_STREAM");
	/* Written at record time, so nothing is left for the end. */
	ck_assert_int_eq(ksft_metric_set_output_callback(NULL, NULL), -EINVAL);
	ck_assert_int_eq(ksft_metric_set_output_fd(devnull), 0);
	ck_assert_int_eq(ksft_metric_int("x", "scalar", 1, NULL, 0), 0);
	out = pu_end_text(&n);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(out, STREAM_END);	/* only the frame is left */
	free(out);
	/* The next case, without the variable, buffers again. */
	pu_begin();
	ck_assert_int_eq(ksft_metric_int("x", "scalar", 1, NULL, 0), 0);
	out = pu_end_text(&n);
	ck_assert_int_eq(n, 1);
	free(out);
	pu_reset();
	close(devnull);
}
END_TEST

START_TEST(test_buffer_limit)
{
	char *out, *masked;
	int i, kept = 0, ret = 0, n;

	pu_reset();
	ck_assert_int_eq(ksft_metric_set_buffer_limit(100), -EINVAL);
	ck_assert_int_eq(ksft_metric_set_buffer_limit(65536), 0);
	pu_begin();
	for (i = 0; i < 100000; i++) {
		ret = ksft_metric_int("x", "scalar", i, NULL, 0);
		if (ret)
			break;
		kept++;
	}
	ck_assert_int_eq(ret, -ENOBUFS);
	ck_assert_msg(strstr(ksft_metric_errmsg(), "metric buffer limit of 65536 bytes per case reached"),
		      "message: %s", ksft_metric_errmsg());
	/* The cap bounds what is buffered (a record is 32 to 128 bytes). */
	ck_assert_int_gt(kept, 65536 / 128);
	ck_assert_int_lt(kept, 65536 / 32);
	/* Later calls keep failing; nothing kept is lost. */
	ck_assert_int_eq(ksft_metric_int("x", "scalar", -1, NULL, 0), -ENOBUFS);
	out = pu_end_text(&n);
	ck_assert_int_eq(n, kept);
	masked = pu_mask_time(out);
	ck_assert(strstr(masked, "\"value\":0}\n"));
	ck_assert(!strstr(masked, "\"value\":-1}"));
	free(masked);
	free(out);
	/* A new case starts from zero again. */
	pu_begin();
	ck_assert_int_eq(ksft_metric_int("x", "scalar", 1, NULL, 0), 0);
	free(pu_end_text(NULL));
	ck_assert_int_eq(ksft_metric_set_buffer_limit(KSFT_METRIC_DEFAULT_BUFFER_LIMIT), 0);
}
END_TEST

/* A full non-blocking pipe (EAGAIN) is an error with a message, not silence. */
START_TEST(test_full_nonblocking_pipe)
{
	char junk[4096];
	int fds[2], i, ret;

	pu_reset();
	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_int_eq(fcntl(fds[1], F_SETPIPE_SZ, 4096) >= 0, 1);
	ck_assert_int_eq(fcntl(fds[1], F_SETFL, O_NONBLOCK), 0);
	memset(junk, 'x', sizeof(junk));
	/* Leave room for about one line. */
	while (write(fds[1], junk, 512) == 512)
		;
	ck_assert_int_eq(read(fds[0], junk, 300), 300);
	ck_assert_int_eq(ksft_metric_set_output_fd(fds[1]), 0);
	pu_begin();
	for (i = 0; i < 100; i++)
		ck_assert_int_eq(ksft_metric_int("x", "scalar", i, NULL, 0), 0);
	ret = ksft_metric_case_end();
	ck_assert_int_eq(ret, -EAGAIN);
	ck_assert_msg(strstr(ksft_metric_errmsg(), "writing metric lines to the output file descriptor failed"),
		      "message: %s", ksft_metric_errmsg());
	pu_reset();
	close(fds[0]);
	close(fds[1]);
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("reliability");
	TCase *tc = tcase_create("death");

	tcase_add_test(tc, test_exit_flushes);
	tcase_add_test(tc, test_sigterm_flushes);
	tcase_add_test(tc, test_abort_flushes);
	tcase_add_test(tc, test_own_handler_kept);
	tcase_add_test(tc, test_sigkill_buffered_loses_case);
	tcase_add_test(tc, test_sigkill_stream_keeps_lines);
	tcase_add_test(tc, test_stream_not_repeated_at_end);
	suite_add_tcase(s, tc);
	tc = tcase_create("stream_env");
	tcase_add_test(tc, test_stream_env);
	suite_add_tcase(s, tc);
	tc = tcase_create("full_pipe");
	tcase_add_test(tc, test_full_nonblocking_pipe);
	suite_add_tcase(s, tc);
	tc = tcase_create("buffer_limit");
	tcase_add_test(tc, test_buffer_limit);
	suite_add_tcase(s, tc);
	return s;
}
