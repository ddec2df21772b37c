// SPDX-License-Identifier: GPL-2.0
/*
 * Metric computation on fixture snapshots: the reference's formulas, names,
 * policies and record order; nulls for hotplugged CPUs; no negative values
 * when counters step back; NIC resets; Python-exact utilization rounding.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check_main.h"
#include "host_metrics.h"
#include "sm_error.h"
#include "sm_test_util.h"

#define N NAN	/* null in an expected array */

static struct host_metrics hm;
static struct cpu_snapshot snap;

static void setup(void)
{
	memset(&hm, 0, sizeof(hm));
	sm_begin();
}

static void teardown(void)
{
	host_metrics_free(&hm);
	cpu_snapshot_free(&snap);
}

/* snap := parsed fixture @name. */
static struct cpu_snapshot *load(const char *name)
{
	struct sm_buf b = { 0 };

	ck_assert_int_eq(read_whole_file(sm_fixture(name), &b), 0);
	ck_assert_msg(cpu_snapshot_parse(&snap, b.data, b.len, name) == 0, "%s", sm_errmsg());
	sm_buf_free(&b);
	return &snap;
}

static struct cpu_snapshot *load_text(const char *text)
{
	ck_assert_msg(cpu_snapshot_parse(&snap, text, strlen(text), "text") == 0, "%s",
		      sm_errmsg());
	return &snap;
}

#define OK(expr) ck_assert_msg((expr) == 0, "%s: %s", #expr, sm_errmsg())

START_TEST(test_policies)
{
	static const char *const want[] = {
		"{\"aggregation\":\"busy-core-equivalents\",\"display_label\":\"Percent of one CPU\","
		"\"display_range\":{\"max\":100,\"min\":0},\"display_scale\":100,"
		"\"name\":\"cpu.time.usr\",\"summarize\":\"p90\",\"transform\":\"rate\"}",
		"{\"aggregation\":\"busy-core-equivalents\",\"display_label\":\"Percent of one CPU\","
		"\"display_range\":{\"max\":100,\"min\":0},\"display_scale\":100,"
		"\"name\":\"cpu.time.sys\",\"summarize\":\"p90\",\"transform\":\"rate\"}",
		"{\"aggregation\":\"busy-core-equivalents\",\"display_label\":\"Percent of one CPU\","
		"\"display_range\":{\"max\":100,\"min\":0},\"display_scale\":100,"
		"\"name\":\"cpu.time.sirq\",\"summarize\":\"p90\",\"transform\":\"rate\"}",
		"{\"aggregation\":\"busy-core-equivalents\",\"display_label\":\"Percent of one CPU\","
		"\"display_range\":{\"max\":100,\"min\":0},\"name\":\"cpu.utilization\","
		"\"summarize\":\"p90\"}",
		"{\"display_range\":{\"min\":0},\"name\":\"nic.rx.dropped\","
		"\"summarize\":\"distribution\",\"transform\":\"rate\"}",
		"{\"display_range\":{\"min\":0},\"name\":\"nic.rx.missed_errors\","
		"\"summarize\":\"distribution\",\"transform\":\"rate\"}",
		"{\"display_range\":{\"min\":0},\"name\":\"nic.tx.dropped\","
		"\"summarize\":\"distribution\",\"transform\":\"rate\"}",
	};
	const uint64_t nic[NIC_NCOUNTERS] = { 0, 0, 0 };
	struct sm_case c;
	size_t i;

	OK(host_metrics_register());
	OK(host_metrics_register());	/* again: equal policies are fine */
	OK(host_metrics_baseline(&hm, "local", 100, load("stat_2cpu_a"), nic));
	OK(host_metrics_record(&hm, load("stat_2cpu_b"), nic));
	sm_end(&c);
	ck_assert_uint_eq(c.n_pol, 7);
	for (i = 0; i < 7; i++)
		ck_assert_str_eq(c.pol_text[i], want[i]);
	sm_case_free(&c);
}
END_TEST

START_TEST(test_two_cpus)
{
	static const char *const order[] = {
		"nic.rx.dropped", "nic.rx.missed_errors", "nic.tx.dropped",
		"cpu.time.usr", "cpu.time.sys", "cpu.time.sirq", "cpu.utilization",
		"nic.rx.dropped", "nic.rx.missed_errors", "nic.tx.dropped",
	};
	const uint64_t nic[NIC_NCOUNTERS] = { 4, 5, 6 };
	struct sm_case c;
	size_t i;

	OK(host_metrics_baseline(&hm, "local", 100, load("stat_2cpu_a"), nic));
	OK(host_metrics_record(&hm, load("stat_2cpu_b"), nic));
	sm_end(&c);
	ck_assert_uint_eq(c.n_obs, 10);
	for (i = 0; i < 10; i++) {
		ck_assert_str_eq(json_string_value(json_object_get(c.obs[i], "name")), order[i]);
		ck_assert_str_eq(json_string_value(json_object_get(c.obs[i], "host")), "local");
	}
	sm_assert_int(sm_find(&c, "nic.rx.dropped", "local", 0), 0);	/* initial 0 */
	sm_assert_array(sm_find(&c, "cpu.time.usr", "local", 0), 0.6, 0.01);
	sm_assert_array(sm_find(&c, "cpu.time.sys", "local", 0), 0.2, 0.0);
	sm_assert_array(sm_find(&c, "cpu.time.sirq", "local", 0), 0.1, 0.0);
	sm_assert_array(sm_find(&c, "cpu.utilization", "local", 0), 45.0, 33.3333);
	sm_assert_int(sm_find(&c, "nic.tx.dropped", "local", 1), 0);
	sm_case_free(&c);
}
END_TEST

START_TEST(test_clk_tck)
{
	struct sm_case c;

	/* cpu.time divides ticks by that host's USER_HZ, not a constant 100. */
	OK(host_metrics_baseline(&hm, "remote", 250, load("stat_2cpu_a"), NULL));
	OK(host_metrics_record(&hm, load("stat_2cpu_b"), NULL));
	sm_end(&c);
	ck_assert_uint_eq(c.n_obs, 4);	/* no NIC: no nic.* */
	sm_assert_array(sm_find(&c, "cpu.time.usr", "remote", 0), 60 / 250.0, 1 / 250.0);
	sm_case_free(&c);
}
END_TEST

START_TEST(test_256_cpus)
{
	double usr[256], util[256];
	struct sm_case c;
	json_t *o;
	size_t i;

	OK(host_metrics_baseline(&hm, "local", 100, load("stat_256cpu_a"), NULL));
	OK(host_metrics_record(&hm, load("stat_256cpu_b"), NULL));
	sm_end(&c);
	for (i = 0; i < 256; i++) {
		usr[i] = (double)(i % 7) / 100;
		util[i] = (double)(i % 7 + i % 5 + i % 3);
	}
	sm_assert_array_at(__FILE__, __LINE__, sm_find(&c, "cpu.time.usr", "local", 0), usr, 256);
	sm_assert_array_at(__FILE__, __LINE__, sm_find(&c, "cpu.utilization", "local", 0), util, 256);
	o = json_array_get(json_object_get(sm_find(&c, "cpu.time.sirq", "local", 0), "value"), 200);
	ck_assert(json_real_value(o) == 200 % 3 / 100.0);
	sm_case_free(&c);
}
END_TEST

START_TEST(test_hotplug)
{
	struct sm_case c;

	OK(host_metrics_baseline(&hm, "local", 100, load("stat_hotplug_0"), NULL));
	OK(host_metrics_record(&hm, load("stat_hotplug_1"), NULL));	/* cpu2 offline */
	OK(host_metrics_record(&hm, load("stat_hotplug_2"), NULL));	/* back; cpu5 new */
	OK(host_metrics_record(&hm, load("stat_hotplug_3"), NULL));
	sm_end(&c);
	sm_assert_array(sm_find(&c, "cpu.time.usr", "local", 0), 0.1, 0.1, N, 0.1);
	sm_assert_array(sm_find(&c, "cpu.utilization", "local", 0), 10.0, 10.0, N, 10.0);
	/* Length grows to the highest CPU seen; cpu5 was not in the baseline. */
	sm_assert_array(sm_find(&c, "cpu.time.usr", "local", 1), 0.2, 0.2, 0.3, 0.2, N, N);
	sm_assert_array(sm_find(&c, "cpu.utilization", "local", 1), 10.0, 10.0, N, 10.0, N, N);
	sm_assert_array(sm_find(&c, "cpu.time.usr", "local", 2), 0.3, 0.3, 0.4, 0.3, N, N);
	sm_assert_array(sm_find(&c, "cpu.utilization", "local", 2), 10.0, 10.0, 10.0, 10.0, N, 10.0);
	sm_case_free(&c);
}
END_TEST

START_TEST(test_counters_step_back)
{
	struct sm_case c;
	size_t k, i;

	OK(host_metrics_baseline(&hm, "local", 100, load("stat_decrease_0"), NULL));
	OK(host_metrics_record(&hm, load("stat_decrease_1"), NULL));	/* user, iowait back */
	OK(host_metrics_record(&hm, load("stat_decrease_0"), NULL));	/* and forth */
	sm_end(&c);
	/* cpu0: user -5 counts 0, nice +10; idle +100 of 110 ticks: 9.0909 % busy. */
	sm_assert_array(sm_find(&c, "cpu.time.usr", "local", 0), 0.1, 0.2);
	sm_assert_array(sm_find(&c, "cpu.utilization", "local", 0), 9.0909, 20.0);
	/* Back to d0: cpu0 user +5 iowait +50, others back: nothing negative. */
	sm_assert_array(sm_find(&c, "cpu.time.usr", "local", 1), 0.15, 0.2);
	sm_assert_array(sm_find(&c, "cpu.utilization", "local", 1), 9.0909, N);
	for (k = 0; k < c.n_obs; k++) {
		json_t *v = json_object_get(c.obs[k], "value");

		for (i = 0; i < json_array_size(v); i++)
			ck_assert(json_is_null(json_array_get(v, i)) ||
				  json_real_value(json_array_get(v, i)) >= 0);
	}
	sm_case_free(&c);
}
END_TEST

START_TEST(test_nic_reset)
{
	const uint64_t base[3] = { 100, 5, 7 }, s1[3] = { 150, 5, 9 }, reset[3] = { 3, 0, 1 },
		       s3[3] = { 10, 0, 1 };
	struct sm_case c;

	OK(host_metrics_baseline(&hm, "local", 100, load("stat_2cpu_a"), base));
	OK(host_metrics_record(&hm, load("stat_2cpu_a"), s1));
	OK(host_metrics_record(&hm, load("stat_2cpu_a"), reset));
	OK(host_metrics_record(&hm, load("stat_2cpu_a"), s3));
	sm_end(&c);
	sm_assert_int(sm_find(&c, "nic.rx.dropped", "local", 0), 0);
	sm_assert_int(sm_find(&c, "nic.rx.dropped", "local", 1), 50);
	sm_assert_int(sm_find(&c, "nic.rx.dropped", "local", 2), 53);	/* 150 -> 3: reset, +3 */
	sm_assert_int(sm_find(&c, "nic.rx.dropped", "local", 3), 60);
	sm_assert_int(sm_find(&c, "nic.rx.missed_errors", "local", 3), 0);
	sm_assert_int(sm_find(&c, "nic.tx.dropped", "local", 1), 2);
	sm_assert_int(sm_find(&c, "nic.tx.dropped", "local", 3), 3);
	/* Unchanged /proc/stat: no ticks, so no utilization at all (as the reference). */
	ck_assert_uint_eq(sm_count(&c, "cpu.utilization", "local"), 0);
	sm_assert_array(sm_find(&c, "cpu.time.usr", "local", 2), 0.0, 0.0);
	sm_case_free(&c);
}
END_TEST

START_TEST(test_no_common_cpu)
{
	struct sm_case c;

	OK(host_metrics_baseline(&hm, "local", 100, load_text("cpu0 1 1 1 1 1 1 1 1\n"), NULL));
	OK(host_metrics_record(&hm, load_text("cpu3 1 1 1 1 1 1 1 1\n"), NULL));
	OK(host_metrics_record(&hm, load_text("cpu3 2 1 1 1 1 1 1 1\n"), NULL));
	sm_end(&c);
	/* First sample: no CPU in both snapshots, so nothing; then cpu3 alone. */
	ck_assert_uint_eq(sm_count(&c, "cpu.time.usr", "local"), 0);
	ck_assert_uint_eq(sm_count(&c, "cpu.utilization", "local"), 1);
	sm_assert_array(sm_find(&c, "cpu.utilization", "local", 0), N, N, N, 100.0);
	sm_case_free(&c);
}
END_TEST

START_TEST(test_outside_case)
{
	char *junk = NULL;

	ksft_metric_case_end_buffer(&junk, NULL);
	ksft_metric_free(junk);
	ck_assert_int_eq(host_metrics_register(), -EPERM);
	ck_assert_msg(!strncmp(sm_errmsg(), "registering the policy of cpu.time.usr: ", 40), "%s",
		      sm_errmsg());
}
END_TEST

START_TEST(test_util_known_values)
{
	ck_assert(util_percent(1, 3) == 33.3333);
	ck_assert(util_percent(2, 3) == 66.6667);
	ck_assert(util_percent(1, 11) == 9.0909);
	ck_assert(util_percent(19, 99) == 19.1919);
	ck_assert(util_percent(1, 101) == 0.9901);
	ck_assert(util_percent(0, 7) == 0.0);
	ck_assert(util_percent(7, 7) == 100.0);
	/* An exact decimal tie: 0.00025 is a little above it as a double -> up. */
	ck_assert(util_percent(1, 400000) == 0.0003);
	ck_assert(util_percent((UINT64_C(1) << 33) / 3, UINT64_C(1) << 33) == 33.3333);
}
END_TEST

START_TEST(test_util_fast_equals_slow)
{
	uint64_t t, b, x = 88172645463325252ULL;
	int i;

	for (t = 1; t <= 2000; t++)
		for (b = 0; b <= t; b++)
			ck_assert_msg(util_percent(b, t) == util_percent_slow(b, t), "%llu/%llu",
				      (unsigned long long)b, (unsigned long long)t);
	for (i = 0; i < 2000000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		t = 1 + (x >> 32) % 4000000000u;
		b = (x & 0xffffffffu) % (t + 1);
		ck_assert_msg(util_percent(b, t) == util_percent_slow(b, t), "%llu/%llu",
			      (unsigned long long)b, (unsigned long long)t);
	}
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("sysmon_host_metrics");
	TCase *tc;

	tc = tcase_create("metrics");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_policies);
	tcase_add_test(tc, test_two_cpus);
	tcase_add_test(tc, test_clk_tck);
	tcase_add_test(tc, test_256_cpus);
	tcase_add_test(tc, test_outside_case);
	suite_add_tcase(s, tc);

	tc = tcase_create("hotplug_and_resets");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_hotplug);
	tcase_add_test(tc, test_counters_step_back);
	tcase_add_test(tc, test_nic_reset);
	tcase_add_test(tc, test_no_common_cpu);
	suite_add_tcase(s, tc);

	tc = tcase_create("utilization_rounding");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_util_known_values);
	tcase_add_test(tc, test_util_fast_equals_slow);
	suite_add_tcase(s, tc);
	return s;
}
