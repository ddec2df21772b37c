// SPDX-License-Identifier: GPL-2.0
/*
 * The kselftest.h flow with the kernel's real header: print the header and
 * plan, then per case begin, record, end right before ksft_test_result_*(),
 * and ksft_finished(). Observations carry label test=<case> and a value
 * unique within it; case "sampled" also records from a second thread.
 */
#include <pthread.h>
#include <stdio.h>

#include "kselftest.h"
#include <ksftmetric/ksftmetric.h>

static int rec(const char *test, int64_t v)
{
	struct ksft_metric_label l[] = { KSFT_METRIC_LABEL_STR("test", test) };
	int ret = ksft_metric_int("value", "scalar", v, l, 1);

	if (ret < 0)
		ksft_print_msg("ksft_metric_int: %s\n", ksft_metric_errmsg());
	return ret;
}

static int end_case(void)
{
	int ret = ksft_metric_case_end();

	if (ret < 0)
		ksft_print_msg("ksft_metric_case_end: %s\n", ksft_metric_errmsg());
	return ret;
}

static void *sampler(void *arg)
{
	int i;

	for (i = 0; i < 3; i++)
		if (rec("sampled", 10 + i) < 0)
			*(int *)arg = 1;
	return NULL;
}

int main(void)
{
	struct ksft_metric_policy p = KSFT_METRIC_POLICY_INIT;
	pthread_t th;
	int err = 0, thread_err = 0;

	ksft_print_header();
	ksft_set_plan(6);

	ksft_metric_case_begin();
	p.summarize = "max";
	err |= ksft_metric_aggregate("value", &p) < 0;
	err |= rec("pass", 1) < 0 || rec("pass", 2) < 0;
	err |= end_case() < 0;
	ksft_test_result(!err, "pass\n");

	ksft_metric_case_begin();
	rec("fail", 1);
	end_case();
	ksft_test_result_fail("fail\n");

	ksft_metric_case_begin();
	rec("skip", 1);
	end_case();
	ksft_test_result_code(KSFT_SKIP, "skip", "no device");

	ksft_metric_case_begin();
	rec("xfail", 1);
	end_case();
	ksft_test_result_code(KSFT_XFAIL, "xfail", "known bug");

	err = ksft_metric_case_begin() < 0;
	err |= pthread_create(&th, NULL, sampler, &thread_err) != 0;
	if (!err)
		pthread_join(th, NULL);
	err |= thread_err | (rec("sampled", 1) < 0);
	err |= end_case() < 0;
	ksft_test_result(!err, "sampled\n");

	/* A case without metrics prints nothing but its result. */
	ksft_metric_case_begin();
	ksft_test_result(end_case() == 0, "empty\n");

	ksft_finished();
}
