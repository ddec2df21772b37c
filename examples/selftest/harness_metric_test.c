// SPDX-License-Identifier: GPL-2.0
/*
 * A kselftest_harness.h test reporting metrics through
 * <ksftmetric/harness.h>: each KSFT_METRIC_TEST* body is one metric case,
 * whose lines precede the harness's result line however the body leaves.
 * It needs the kernel's kselftest_harness.h, so it is built where that is
 * (tools/testing/selftests/, or tests/upstream/ from linux-source-6.12).
 */
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include <ksftmetric/harness.h>

FIXTURE(pair) {
	int fd[2];
};

FIXTURE_SETUP(pair)
{
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, self->fd));
}

FIXTURE_TEARDOWN(pair)
{
	close(self->fd[0]);
	close(self->fd[1]);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One byte there and back over a socketpair, 20 times. */
KSFT_METRIC_TEST_F(pair, roundtrip)
{
	struct ksft_metric_policy p = KSFT_METRIC_POLICY_INIT;
	char c = 'x';
	int i;

	p.summarize = "p99";
	p.regression_compare = "p99";
	p.regression_better = "lower";
	p.regression_relative_tolerance =
		(struct ksft_metric_value)KSFT_METRIC_DOUBLE_V(0.5);
	ASSERT_EQ(0, ksft_metric_aggregate("roundtrip.us", &p));
	for (i = 0; i < 20; i++) {
		uint64_t t0 = now_ns();

		ASSERT_EQ(1, write(self->fd[0], &c, 1));
		ASSERT_EQ(1, read(self->fd[1], &c, 1));
		ASSERT_EQ(1, write(self->fd[1], &c, 1));
		ASSERT_EQ(1, read(self->fd[0], &c, 1));
		ASSERT_EQ(0, ksft_metric_double("roundtrip.us", "scalar",
						(double)(now_ns() - t0) / 1000.0,
						NULL, 0));
	}
}

/* What was recorded before a SKIP is kept with the skipped case. */
KSFT_METRIC_TEST(offload)
{
	struct ksft_metric_label l[] = { KSFT_METRIC_LABEL_STR("probe", "sysfs") };

	ASSERT_EQ(0, ksft_metric_int("probe.attempts", "scalar", 1, l, 1));
	if (access("/sys/class/net/ksftm-no-such-nic", F_OK))
		SKIP(return, "no offload-capable NIC");
}

TEST_HARNESS_MAIN
