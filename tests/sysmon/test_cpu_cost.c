// SPDX-License-Identifier: GPL-2.0
/*
 * CPU cost per byte (cpu_cost.h) and the busy totals it is built on
 * (ksft_sysmon_busy_seconds()): exact values on fixture roots, real
 * /proc/stat growing under a busy loop, perf_event counters opened for
 * real (software clocks everywhere, hardware ones where the machine has
 * them), and every refused call.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../check_main.h"
#include "cpu_cost.h"
#include "sm_test_util.h"
#include "sysmon.h"

static char *root, *rroot;

static void setup(void)
{
	root = sm_root_new();
	rroot = sm_root_new();
	sm_root_stat(root, "stat_2cpu_a");
	sm_root_stat(rroot, "stat_hotplug_0");
	sm_begin();
}

static void teardown(void)
{
	sm_root_free(root);
	sm_root_free(rroot);
}

static struct ksft_sysmon *fixture_monitor(int remote)
{
	static const char *const here[] = { "env", NULL };
	struct ksft_sysmon_opts o = KSFT_SYSMON_OPTS_INIT;
	struct ksft_sysmon *mon;

	o.root = root;
	o.interval = 3600;	/* no periodic samples */
	if (remote) {
		o.remote_argv = here;
		o.remote_root = rroot;
	}
	mon = ksft_sysmon_start(&o);
	ck_assert_msg(mon != NULL, "start: %s", ksft_sysmon_errmsg());
	return mon;
}

static double tck(void)
{
	return (double)sysconf(_SC_CLK_TCK);
}

/* user + nice + system + irq + softirq over all CPUs, since start. */
START_TEST(test_busy_seconds_fixture)
{
	struct ksft_sysmon *mon = fixture_monitor(1);
	double local, remote;
	struct sm_case c;

	ck_assert_int_eq(ksft_sysmon_busy_seconds(mon, &local, &remote), 0);
	ck_assert_double_eq(local, 0);
	ck_assert_double_eq(remote, 0);
	/* cpu0: +50 user, +10 nice, +20 system, +10 softirq; cpu1: +1 user. */
	sm_root_stat(root, "stat_2cpu_b");
	ck_assert_int_eq(ksft_sysmon_busy_seconds(mon, &local, NULL), 0);
	ck_assert_double_eq_tol(local, 91 / tck(), 1e-12);
	/* CPU 2 went offline with 310 busy ticks: the total never goes below 0. */
	sm_root_stat(rroot, "stat_hotplug_1");
	ck_assert_int_eq(ksft_sysmon_busy_seconds(mon, NULL, &remote), 0);
	ck_assert_double_eq(remote, 0);
	ck_assert_int_eq(ksft_sysmon_stop(mon), 0);
	sm_end(&c);
	/* Reading the totals records nothing: only the final sample's lines. */
	ck_assert_uint_eq(sm_count(&c, "cpu.time.usr", "local"), 1);
	sm_case_free(&c);
}
END_TEST

START_TEST(test_busy_seconds_no_remote)
{
	struct ksft_sysmon *mon = fixture_monitor(0);
	double local = -1, remote = 0;

	ck_assert_int_eq(ksft_sysmon_busy_seconds(mon, &local, &remote), 0);
	ck_assert_double_eq(local, 0);
	ck_assert(isnan(remote));
	ck_assert_int_eq(ksft_sysmon_stop(mon), 0);
	ck_assert_int_eq(ksft_sysmon_busy_seconds(NULL, &local, &remote), -EINVAL);
	ck_assert(isnan(local));
}
END_TEST

static const char cost_policy[] =
	"{\"display_label\":\"CPU ms/GB\",\"display_range\":{\"min\":0},"
	"\"display_scale\":1000,\"name\":\"cpu.cost\",\"regression\":{\"better\":"
	"\"lower\",\"compare\":\"p50\",\"relative_tolerance\":0.1},"
	"\"summarize\":\"distribution\"}";

/* Fixture ticks, real software counters: exact cost, positive clocks. */
START_TEST(test_cost_fixture_software_counters)
{
	struct ksft_sysmon *mon = fixture_monitor(1);
	struct ksft_cpu_cost_opts co = KSFT_CPU_COST_OPTS_INIT;
	struct ksft_cpu_cost_result r;
	struct ksft_cpu_cost *meter;
	struct timespec ts = { 0, 20000000 };
	struct sm_case c;
	size_t i;

	co.mon = mon;
	co.counters = KSFT_CPU_COST_SW_COUNTERS;
	meter = ksft_cpu_cost_new(&co);
	ck_assert_msg(meter != NULL, "%s", ksft_sysmon_errmsg());
	ck_assert_msg(ksft_cpu_cost_counters_missing(meter) == NULL, "%s",
		      ksft_cpu_cost_counters_missing(meter));
	ck_assert_int_eq(ksft_cpu_cost_begin(meter), 0);
	sm_root_stat(root, "stat_2cpu_b");
	sm_root_stat(rroot, "stat_hotplug_1");
	nanosleep(&ts, NULL);
	ck_assert_int_eq(ksft_cpu_cost_end(meter, 2000000000, &r), 0);
	ck_assert_double_eq_tol(r.cost_local, 91 / tck() / 2, 1e-12);
	ck_assert_double_eq(r.cost_remote, 0);
	/* cpu-clock on every CPU ran for at least the 20 ms slept. */
	ck_assert_msg(r.cycles_per_byte >= 0.02e9 / 2e9, "cpu-clock %g ns/byte",
		      r.cycles_per_byte);
	ck_assert_msg(r.instructions_per_byte >= 0, "task-clock %g", r.instructions_per_byte);
	ck_assert_int_eq(ksft_cpu_cost_end(meter, 1, NULL), -EINVAL);	/* no begin */
	ksft_cpu_cost_free(meter);
	ck_assert_int_eq(ksft_sysmon_stop(mon), 0);

	sm_end(&c);
	for (i = 0; i < c.n_pol; i++)
		if (strstr(c.pol_text[i], "\"cpu.cost\""))
			break;
	ck_assert_uint_lt(i, c.n_pol);
	ck_assert_str_eq(c.pol_text[i], cost_policy);
	ck_assert_uint_eq(sm_count(&c, "cpu.cost", "local"), 1);
	ck_assert_uint_eq(sm_count(&c, "cpu.cost", "remote"), 1);
	ck_assert_double_eq_tol(json_real_value(json_object_get(
		sm_find(&c, "cpu.cost", "local", 0), "value")), 0.455, 1e-12);
	/* Software clocks prove the plumbing; they are never recorded as cycles. */
	ck_assert_uint_eq(sm_count(&c, "cpu.cycles_per_byte", "local"), 0);
	sm_case_free(&c);
}
END_TEST

static void burn(double seconds)
{
	struct timespec a, b;
	volatile unsigned long x = 0;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	do {
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	} while ((double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9 < seconds);
}

/* Real /proc/stat and, where they exist, real cycles and instructions. */
START_TEST(test_cost_live_hardware_or_reason)
{
	struct ksft_sysmon_opts o = KSFT_SYSMON_OPTS_INIT;
	struct ksft_cpu_cost_opts co = KSFT_CPU_COST_OPTS_INIT;
	struct ksft_cpu_cost_result r;
	struct ksft_cpu_cost *meter;
	struct ksft_sysmon *mon;
	const char *missing;
	struct sm_case c;

	o.interval = 3600;
	mon = ksft_sysmon_start(&o);
	ck_assert_msg(mon != NULL, "%s", ksft_sysmon_errmsg());
	co.mon = mon;
	co.counters = KSFT_CPU_COST_HW_COUNTERS;
	meter = ksft_cpu_cost_new(&co);
	ck_assert_ptr_nonnull(meter);
	missing = ksft_cpu_cost_counters_missing(meter);
	ck_assert_int_eq(ksft_cpu_cost_begin(meter), 0);
	burn(0.3);	/* 30 ticks of this CPU at least */
	ck_assert_int_eq(ksft_cpu_cost_end(meter, 1000000000, &r), 0);
	ck_assert_msg(r.cost_local >= 0.2 && r.cost_local < 60, "cost %g", r.cost_local);
	ck_assert(isnan(r.cost_remote));
	if (missing) {
		/* A VM without a PMU: the reason, and no numbers at all. */
		ck_assert_msg(!strncmp(missing, "no hardware counters (perf_event_open: ", 39) ||
			      !strncmp(missing, "counters not permitted (perf_event_open: ", 41) ||
			      !strncmp(missing, "counters unavailable (perf_event_open: ", 39),
			      "reason: %s", missing);
		ck_assert(isnan(r.cycles_per_byte) && isnan(r.instructions_per_byte));
	} else {
		ck_assert_msg(r.cycles_per_byte > 0 && r.instructions_per_byte > 0,
			      "cycles %g, instructions %g per byte", r.cycles_per_byte,
			      r.instructions_per_byte);
	}
	ksft_cpu_cost_free(meter);
	ck_assert_int_eq(ksft_sysmon_stop(mon), 0);
	sm_end(&c);
	ck_assert_uint_eq(sm_count(&c, "cpu.cost", "local"), 1);
	ck_assert_uint_eq(sm_count(&c, "cpu.cost", "remote"), 0);
	ck_assert_uint_eq(sm_count(&c, "cpu.cycles_per_byte", "local"), missing ? 0 : 1);
	ck_assert_uint_eq(sm_count(&c, "cpu.instructions_per_byte", "local"), missing ? 0 : 1);
	sm_case_free(&c);
}
END_TEST

START_TEST(test_refused)
{
	struct ksft_sysmon *mon = fixture_monitor(0);
	struct ksft_cpu_cost_opts co = KSFT_CPU_COST_OPTS_INIT;
	struct ksft_cpu_cost *meter;
	struct sm_case c;

	ck_assert_ptr_null(ksft_cpu_cost_new(NULL));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(ksft_cpu_cost_new(&co));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_msg(strstr(ksft_sysmon_errmsg(), "no system monitor"), "%s", ksft_sysmon_errmsg());
	co.mon = mon;
	co.counters = 7;
	ck_assert_ptr_null(ksft_cpu_cost_new(&co));
	ck_assert_msg(strstr(ksft_sysmon_errmsg(), "counters 7"), "%s", ksft_sysmon_errmsg());
	co.counters = KSFT_CPU_COST_NO_COUNTERS;
	co.sz = 3;
	ck_assert_ptr_null(ksft_cpu_cost_new(&co));
	co.sz = sizeof(co);
	meter = ksft_cpu_cost_new(&co);
	ck_assert_ptr_nonnull(meter);
	ck_assert_ptr_null(ksft_cpu_cost_counters_missing(meter));
	ck_assert_int_eq(ksft_cpu_cost_end(meter, 100, NULL), -EINVAL);
	ck_assert_msg(strstr(ksft_sysmon_errmsg(), "without ksft_cpu_cost_begin"), "%s",
		      ksft_sysmon_errmsg());
	ck_assert_int_eq(ksft_cpu_cost_begin(meter), 0);
	ck_assert_int_eq(ksft_cpu_cost_end(meter, 0, NULL), -EINVAL);
	ck_assert_msg(strstr(ksft_sysmon_errmsg(), "no bytes"), "%s", ksft_sysmon_errmsg());
	ck_assert_int_eq(ksft_cpu_cost_begin(NULL), -EINVAL);
	ksft_cpu_cost_free(meter);
	ksft_cpu_cost_free(NULL);
	ck_assert_int_eq(ksft_sysmon_stop(mon), 0);
	sm_end(&c);
	ck_assert_uint_eq(sm_count(&c, "cpu.cost", "local"), 0);
	sm_case_free(&c);
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("sysmon_cpu_cost");
	TCase *tc = tcase_create("cpu_cost");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_busy_seconds_fixture);
	tcase_add_test(tc, test_busy_seconds_no_remote);
	tcase_add_test(tc, test_cost_fixture_software_counters);
	tcase_add_test(tc, test_cost_live_hardware_or_reason);
	tcase_add_test(tc, test_refused);
	suite_add_tcase(s, tc);
	return s;
}
