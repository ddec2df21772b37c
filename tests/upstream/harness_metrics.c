// SPDX-License-Identifier: GPL-2.0
/*
 * Every way a kselftest_harness.h test can leave, with the kernel's real
 * header and <ksftmetric/harness.h>: test_upstream.py checks where each
 * case's lines land. Every observation has label test=<test name> and a
 * value unique within its test, so a line written twice is visible.
 * Built twice: write-through (the header's default) and buffered.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include <ksftmetric/harness.h>

/* Records value @v of metric "value" for the running test. */
#define REC(v) do {							\
	struct ksft_metric_label l_[] = {				\
		KSFT_METRIC_LABEL_STR("test", _metadata->name) };	\
	ASSERT_EQ(0, ksft_metric_int("value", "scalar", (v), l_, 1))	\
		TH_LOG("%s", ksft_metric_errmsg());			\
} while (0)

/* Keeps the compiler from seeing the early exits as unconditional. */
static volatile int always = 1;

KSFT_METRIC_TEST(t_pass)
{
	struct ksft_metric_policy p = KSFT_METRIC_POLICY_INIT;

	p.summarize = "max";
	ASSERT_EQ(0, ksft_metric_aggregate("value", &p));
	REC(1);
	REC(2);
}

KSFT_METRIC_TEST(t_return)
{
	REC(1);
	if (always)
		return;
	REC(99);
}

KSFT_METRIC_TEST(t_skip)
{
	REC(1);
	if (always)
		SKIP(return, "no device");
	REC(99);
}

KSFT_METRIC_TEST(t_assert)
{
	REC(1);
	ASSERT_EQ(1, always + 1);
	REC(99);
}

KSFT_METRIC_TEST(t_expect)
{
	REC(1);
	EXPECT_EQ(1, always + 1);
	REC(2);
}

/* A helper process leaving the body must not end (flush) the case. */
KSFT_METRIC_TEST(t_fork)
{
	int status;
	pid_t pid;

	REC(1);
	fflush(stdout);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		return;
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	REC(2);
}

/* abort() outside the harness's own paths (a failed assert(), say). */
KSFT_METRIC_TEST(t_abort)
{
	REC(1);
	fflush(stdout);
	if (always)
		abort();
	REC(99);
}

FIXTURE(fx) {
	int setup_done;
};

FIXTURE_SETUP(fx)
{
	self->setup_done = 1;
}

/* Runs after the body, in the same process: after the case's lines. */
FIXTURE_TEARDOWN(fx)
{
	ksft_print_msg("teardown %s\n", _metadata->name);
	fflush(stdout);		/* the process leaves through _exit() */
}

KSFT_METRIC_TEST_F(fx, f_pass)
{
	ASSERT_EQ(1, self->setup_done);
	REC(1);
	REC(2);
}

KSFT_METRIC_TEST_F(fx, f_return)
{
	REC(1);
	if (always)
		return;
	REC(99);
}

KSFT_METRIC_TEST_F(fx, f_skip)
{
	REC(1);
	if (always)
		SKIP(return, "no device");
	REC(99);
}

KSFT_METRIC_TEST_F(fx, f_assert)
{
	REC(1);
	ASSERT_EQ(1, always + 1);
	REC(99);
}

KSFT_METRIC_TEST_F(fx, f_expect)
{
	REC(1);
	EXPECT_EQ(1, always + 1);
	REC(2);
}

/*
 * Killed by the harness timeout (SIGKILL to the process group). The
 * "sleeping" line tells the checker the records were made before the kill.
 */
KSFT_METRIC_TEST_F_TIMEOUT(fx, f_timeout, 1)
{
	REC(1);
	REC(2);
	ksft_print_msg("f_timeout: recorded, sleeping\n");
	fflush(stdout);
	for (;;)
		pause();
}

/* Teardown in the harness's child, the body in its grandchild. */
FIXTURE(fxp) {
	int unused;
};

FIXTURE_SETUP(fxp)
{
}

FIXTURE_TEARDOWN_PARENT(fxp)
{
	ksft_print_msg("teardown %s\n", _metadata->name);
	fflush(stdout);
}

KSFT_METRIC_TEST_F(fxp, p_assert)
{
	REC(1);
	ASSERT_EQ(1, always + 1);
	REC(99);
}

int main(int argc, char **argv)
{
	const char *slow = getenv("KSFTM_TEST_TIMEOUT");

	/* A loaded machine may need longer to reach the sleep: see the checker. */
	if (slow)
		_fx_f_timeout_object->timeout = atoi(slow);
	return test_harness_run(argc, argv);
}
