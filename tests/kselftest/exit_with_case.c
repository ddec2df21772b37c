/*
 * A selftest written against the real kselftest.h (extracted from the
 * kernel source at test time, see check_exit_with_case.py) that leaves
 * through kselftest.h's exit helpers with a metric case still open.
 * argv[1]: skip (ksft_exit_skip() after a plan), skip_noplan (before any
 * plan or result), fail_msg (ksft_exit_fail_msg()).
 */
#include <stdio.h>
#include <string.h>

#include <ksftmetric/metric.h>

#include "kselftest.h"

static void record(const char *name, long long v)
{
	if (ksft_metric_int(name, "scalar", v, NULL, 0))
		ksft_exit_fail_msg("recording %s: %s\n", name, ksft_metric_errmsg());
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	ksft_print_header();
	if (!strcmp(mode, "skip_noplan")) {
		ksft_metric_case_begin();
		record("probe_ns", 5);
		ksft_exit_skip("not supported here\n");
	}
	ksft_set_plan(2);
	/* An ordinary case first: its lines precede its own result line. */
	ksft_metric_case_begin();
	record("first_ns", 1);
	ksft_metric_case_end();
	ksft_test_result_pass("first\n");
	/* The second leaves with its case open. */
	ksft_metric_case_begin();
	record("second_ns", 2);
	record("second_ns", 3);
	if (!strcmp(mode, "skip"))
		ksft_exit_skip("no device\n");
	if (!strcmp(mode, "fail_msg"))
		ksft_exit_fail_msg("cannot open the device\n");
	ksft_metric_case_end();
	ksft_test_result_pass("second\n");
	ksft_finished();
}
