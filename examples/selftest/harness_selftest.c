// SPDX-License-Identifier: GPL-2.0
/*
 * A kselftest_harness.h-style runner: every test runs in a forked child.
 * The child opens and ends the metric case itself, so its lines are
 * flushed before it exits and precede the parent's "ok N" line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ksftmetric/ksftmetric.h>

#include "ktap.h"

static int test_latency(void)
{
	struct ksft_metric_policy p = KSFT_METRIC_POLICY_INIT;
	struct ksft_metric_label l[] = { KSFT_METRIC_LABEL_STR("op", "connect") };
	int i, err = 0;

	p.summarize = "p99";
	p.regression_compare = "p99";
	p.regression_better = "lower";
	p.regression_absolute_tolerance = (struct ksft_metric_value)KSFT_METRIC_INT_V(5);
	err |= ksft_metric_aggregate("latency.us", &p) < 0;
	for (i = 0; i < 3; i++)
		err |= ksft_metric_int("latency.us", "scalar", 40 + i, l, 1) < 0;
	return err;
}

static int test_counters(void)
{
	struct ksft_metric_label l[] = {
		KSFT_METRIC_LABEL_STR("host", "remote"),
		KSFT_METRIC_LABEL_BOOL("offload", 1),
	};

	return ksft_metric_json("tx.packets", "scalar", "1000", NULL) < 0 ||
	       ksft_metric_int("tx.packets", "scalar", 2500, l, 2) < 0;
}

static int run_in_child(int (*fn)(void))
{
	int status;
	pid_t pid;

	fflush(stdout);		/* nothing buffered may be printed twice */
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		int fail = ksft_metric_case_begin() < 0;

		fail |= fn();
		/* Flushes stdout: the lines are out before the child exits. */
		fail |= ksft_metric_case_end() < 0;
		if (fail)
			printf("# %s\n", ksft_metric_errmsg());
		fflush(stdout);
		_exit(fail);
	}
	if (waitpid(pid, &status, 0) < 0)
		return 1;
	return !WIFEXITED(status) || WEXITSTATUS(status);
}

int main(void)
{
	static const struct { const char *name; int (*fn)(void); } tests[] = {
		{ "harness.latency", test_latency },
		{ "harness.counters", test_counters },
	};
	int i, pass = 0, n = (int)(sizeof(tests) / sizeof(tests[0]));

	ktap_header(n);
	for (i = 0; i < n; i++) {
		int fail = run_in_child(tests[i].fn);

		ktap_result(!fail, i + 1, tests[i].name);
		pass += !fail;
	}
	ktap_totals(pass, n - pass);
	return pass == n ? 0 : 1;
}
