// SPDX-License-Identifier: GPL-2.0
/*
 * A kselftest.h-style C test reporting metrics: case 1 records from the test
 * itself, case 2 from a background sampler thread while the test works.
 * The metric lines come out right before each "ok N" line.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include <ksftmetric/ksftmetric.h>

#include "ktap.h"

static int check(int ret, const char *what)
{
	if (ret < 0)
		printf("# %s: %s\n", what, ksft_metric_errmsg());
	return ret < 0;
}

/* Case 1: a throughput measurement with a regression policy. */
static int test_throughput(void)
{
	struct ksft_metric_policy p = KSFT_METRIC_POLICY_INIT;
	struct ksft_metric_label rx[] = { KSFT_METRIC_LABEL_STR("direction", "rx") };
	int err = 0;

	p.summarize = "distribution";
	p.regression_compare = "p50";
	p.regression_better = "higher";
	p.regression_relative_tolerance.type = KSFT_METRIC_DOUBLE;
	p.regression_relative_tolerance.u.d = 0.05;
	err |= check(ksft_metric_aggregate("throughput", &p), "aggregate");
	err |= check(ksft_metric_double("throughput", "scalar", 100.5, rx, 1), "record");
	return err;
}

static atomic_int stop;

/* A sampler: per-CPU utilization every 10 ms, CPU 2 "offline". */
static void *sampler(void *arg)
{
	struct ksft_metric_label host[] = { KSFT_METRIC_LABEL_STR("host", "local") };
	double util[4] = { 75.0, 22.0, 0.0, 100.0 };
	unsigned char online[4] = { 1, 1, 0, 1 };
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	int *err = arg;

	do {
		*err |= check(ksft_metric_array("cpu.utilization", "per-cpu", util, online,
						 4, host, 1), "sample");
		util[0] = util[0] > 50 ? util[0] - 5 : util[0] + 5;
		nanosleep(&tick, NULL);
	} while (!atomic_load(&stop));
	return NULL;
}

/* Case 2: the test runs while a second thread samples. */
static int test_sampled(void)
{
	struct ksft_metric_policy p = KSFT_METRIC_POLICY_INIT;
	struct timespec work = { 0, 35 * 1000 * 1000 };
	int err = 0, sampler_err = 0;
	pthread_t t;

	p.summarize = "p90";
	p.aggregation = "busy-core-equivalents";
	p.display_min = (struct ksft_metric_value)KSFT_METRIC_INT_V(0);
	p.display_max = (struct ksft_metric_value)KSFT_METRIC_INT_V(100);
	p.display_label = "Percent of one CPU";
	err |= check(ksft_metric_aggregate("cpu.utilization", &p), "aggregate");
	err |= check(ksft_metric_reporting(1), "reporting");
	atomic_store(&stop, 0);
	if (pthread_create(&t, NULL, sampler, &sampler_err))
		return 1;
	nanosleep(&work, NULL);	/* "the benchmark" */
	err |= check(ksft_metric_int("ops", "scalar", 12345, NULL, 0), "record");
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	err |= check(ksft_metric_reporting(0), "reporting");
	return err | sampler_err;
}

int main(void)
{
	static const struct { const char *name; int (*fn)(void); } tests[] = {
		{ "metric_selftest.throughput", test_throughput },
		{ "metric_selftest.sampled", test_sampled },
	};
	int i, pass = 0, n = (int)(sizeof(tests) / sizeof(tests[0]));

	ktap_header(n);
	for (i = 0; i < n; i++) {
		int fail = check(ksft_metric_case_begin(), "case begin");

		fail |= tests[i].fn();
		/* Flush right before the result line, as ksft_run() does. */
		fail |= check(ksft_metric_case_end(), "case end");
		ktap_result(!fail, i + 1, tests[i].name);
		pass += !fail;
	}
	ktap_totals(pass, n - pass);
	return pass == n ? 0 : 1;
}
