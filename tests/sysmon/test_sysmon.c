// SPDX-License-Identifier: GPL-2.0
/*
 * The public API (sysmon.h) end to end: a monitor over fixture roots with a
 * local and a remote host, the reporting scope, the sampling thread's
 * drift-free schedule, sampler errors deferred to stop, netlink on a live
 * interface, and every rejected option.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../check_main.h"
#include "sm_schedule.h"
#include "sm_test_util.h"
#include "sysmon.h"

#define N NAN

static char *root, *rroot;

static void setup(void)
{
	root = sm_root_new();
	rroot = sm_root_new();
	sm_root_stat(root, "stat_2cpu_a");
	sm_root_nic(root, "eth0", 1, 2, 3);
	sm_root_stat(rroot, "stat_hotplug_0");
	sm_root_nic(rroot, "eth1", 100, 0, 50);
	sm_begin();
}

static void teardown(void)
{
	sm_root_free(root);
	sm_root_free(rroot);
}

static void nap(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	nanosleep(&ts, NULL);
}

static struct ksft_sysmon *start_ok(const struct ksft_sysmon_opts *o)
{
	struct ksft_sysmon *mon = ksft_sysmon_start(o);

	ck_assert_msg(mon != NULL, "start: %s", ksft_sysmon_errmsg());
	return mon;
}

#define assert_start_fails(opts, err, part) do {				\
	ck_assert_ptr_null(ksft_sysmon_start(opts));				\
	ck_assert_int_eq(errno, (err));						\
	ck_assert_msg(strstr(ksft_sysmon_errmsg(), (part)), "message \"%s\" lacks \"%s\"", \
		      ksft_sysmon_errmsg(), (part));				\
	ck_assert_int_eq(ksft_metric_reporting_enabled(), 0);			\
} while (0)

START_TEST(test_fixture_run)
{
	static const char *const remote[] = { "env", NULL };
	static const char *const order[] = {
		"nic.rx.dropped", "nic.rx.missed_errors", "nic.tx.dropped",	/* local 0s */
		"nic.rx.dropped", "nic.rx.missed_errors", "nic.tx.dropped",	/* remote 0s */
	};
	struct ksft_sysmon_opts o = KSFT_SYSMON_OPTS_INIT;
	struct ksft_sysmon *mon;
	struct sm_case c;
	size_t i;

	o.ifname = "eth0";
	o.root = root;
	o.remote_argv = remote;
	o.remote_ifname = "eth1";
	o.remote_root = rroot;
	o.interval = 3600;	/* only explicit samples and the final one */
	ck_assert_int_eq(ksft_metric_reporting_enabled(), 0);
	mon = start_ok(&o);
	ck_assert_int_eq(ksft_metric_reporting_enabled(), 1);

	sm_root_stat(root, "stat_2cpu_b");
	sm_root_nic(root, "eth0", 5, 2, 10);
	sm_root_stat(rroot, "stat_hotplug_1");
	sm_root_nic(rroot, "eth1", 90, 0, 60);	/* rx_dropped reset */
	ck_assert_int_eq(ksft_sysmon_sample(mon), 0);
	sm_root_stat(rroot, "stat_hotplug_2");
	ck_assert_int_eq(ksft_sysmon_stop(mon), 0);
	ck_assert_int_eq(ksft_metric_reporting_enabled(), 0);

	sm_end(&c);
	ck_assert_uint_eq(c.n_pol, 7);
	for (i = 0; i < 6; i++) {
		ck_assert_str_eq(json_string_value(json_object_get(c.obs[i], "name")), order[i]);
		sm_assert_int(c.obs[i], 0);
	}
	/* Sample 1: local, then remote. */
	sm_assert_array(c.obs[6], 0.6, 0.01);
	ck_assert_str_eq(json_string_value(json_object_get(c.obs[6], "host")), "local");
	sm_assert_array(sm_find(&c, "cpu.utilization", "local", 0), 45.0, 33.3333);
	sm_assert_int(sm_find(&c, "nic.rx.dropped", "local", 1), 4);
	sm_assert_int(sm_find(&c, "nic.tx.dropped", "local", 1), 7);
	sm_assert_array(sm_find(&c, "cpu.time.usr", "remote", 0), 0.1, 0.1, N, 0.1);
	sm_assert_array(sm_find(&c, "cpu.utilization", "remote", 0), 10.0, 10.0, N, 10.0);
	sm_assert_int(sm_find(&c, "nic.rx.dropped", "remote", 1), 90);
	sm_assert_int(sm_find(&c, "nic.tx.dropped", "remote", 1), 10);
	/* Final sample at stop: local unchanged (no utilization), remote hotplug. */
	ck_assert_uint_eq(sm_count(&c, "cpu.time.usr", "local"), 2);
	ck_assert_uint_eq(sm_count(&c, "cpu.utilization", "local"), 1);
	sm_assert_array(sm_find(&c, "cpu.time.usr", "remote", 1), 0.2, 0.2, 0.3, 0.2, N, N);
	sm_assert_array(sm_find(&c, "cpu.utilization", "remote", 1), 10.0, 10.0, N, 10.0, N, N);
	ck_assert_uint_eq(c.n_obs, 6 + 7 * 2 + 6 + 7);
	sm_case_free(&c);
}
END_TEST

/*
 * The grid itself, with no clock: each next slot is on the grid set at
 * start, after "now", and never more than one interval after it.
 */
START_TEST(test_schedule_grid)
{
	const int64_t iv = 20000000;	/* 20 ms */
	int64_t now;

	/* On time: the next slot. */
	ck_assert_int_eq(sm_next_slot(1000 + iv, iv, 1000 + iv + 5), 1000 + 2 * iv);
	/* Late by a little: still the next slot (a late sample does not drift). */
	ck_assert_int_eq(sm_next_slot(1000 + iv, iv, 1000 + 2 * iv - 1), 1000 + 2 * iv);
	/* Exactly on the next slot: that one is past, take the one after. */
	ck_assert_int_eq(sm_next_slot(1000 + iv, iv, 1000 + 2 * iv), 1000 + 3 * iv);
	/* Very late (3.5 slots): missed slots are skipped, none bunched. */
	ck_assert_int_eq(sm_next_slot(1000 + iv, iv, 1000 + iv + 7 * iv / 2), 1000 + 5 * iv);
	/* Called at or after the slot just sampled. */
	for (now = 1000; now < 1000 + 10 * iv; now += iv / 7) {
		int64_t s = sm_next_slot(1000, iv, now);

		ck_assert_int_eq((s - 1000) % iv, 0);
		ck_assert(s > now && s <= now + iv);
	}
}
END_TEST

/* The live sampler: at most one sample per slot (plus the final one). How
 * many slots a loaded machine actually serves is not asserted. */
START_TEST(test_schedule)
{
	struct ksft_sysmon_opts o = KSFT_SYSMON_OPTS_INIT;
	struct ksft_sysmon *mon;
	struct sm_case c;
	double t0, t;
	size_t n, k;

	o.root = root;
	o.interval = 0.02;
	mon = start_ok(&o);
	nap(0.5);
	ck_assert_int_eq(ksft_sysmon_stop(mon), 0);
	sm_end(&c);
	n = sm_count(&c, "cpu.time.usr", "local");
	t0 = json_real_value(json_object_get(sm_find(&c, "cpu.time.usr", "local", 0), "time"));
	t = json_real_value(json_object_get(sm_find(&c, "cpu.time.usr", "local", n - 1), "time"));
	/* Start and final samples at least; never more than one per slot. */
	ck_assert_msg(n >= 2, "%zu samples", n);
	ck_assert_msg(n <= (size_t)((t - t0) / 0.02) + 3, "%zu samples in %.3f s at 50 Hz",
		      n, t - t0);
	for (k = 1; k < n; k++)
		ck_assert(json_real_value(json_object_get(sm_find(&c, "cpu.time.usr", "local", k),
							 "time")) >=
			  json_real_value(json_object_get(sm_find(&c, "cpu.time.usr", "local", k - 1),
							 "time")));
	sm_case_free(&c);
}
END_TEST

/* A stop right after a sample still leaves a final interval worth a rate. */
START_TEST(test_final_sample_gap)
{
	struct ksft_sysmon_opts o = KSFT_SYSMON_OPTS_INIT;
	struct ksft_sysmon *mon;
	struct sm_case c;
	double last, before;
	size_t n;

	o.root = root;
	o.interval = 0.4;
	mon = start_ok(&o);
	nap(0.1);
	ck_assert_int_eq(ksft_sysmon_sample(mon), 0);	/* "a periodic sample" */
	ck_assert_int_eq(ksft_sysmon_stop(mon), 0);	/* ... and at once stop */
	sm_end(&c);
	n = sm_count(&c, "cpu.time.usr", "local");
	ck_assert_uint_eq(n, 2);
	before = json_real_value(json_object_get(sm_find(&c, "cpu.time.usr", "local", 0), "time"));
	last = json_real_value(json_object_get(sm_find(&c, "cpu.time.usr", "local", 1), "time"));
	ck_assert_msg(last - before >= 0.19, "final sample %.6f s after the previous one",
		      last - before);
	sm_case_free(&c);
}
END_TEST

START_TEST(test_sampler_error_reported_at_stop)
{
	struct ksft_sysmon_opts o = KSFT_SYSMON_OPTS_INIT;
	struct ksft_sysmon *mon;
	char want[4200];
	struct sm_case c;

	o.root = root;
	o.interval = 0.01;
	mon = start_ok(&o);
	sm_root_stat(root, "bad_short_fields");
	nap(0.2);
	snprintf(want, sizeof(want), "%s/proc/stat line 3: cpu1 has 4 fields, expected at least 8",
		 root);
	sm_assert_err(ksft_sysmon_sample(mon), EBADMSG, want);	/* sticks */
	sm_root_stat(root, "stat_2cpu_b");
	sm_assert_err(ksft_sysmon_stop(mon), EBADMSG, want);
	ck_assert_str_eq(ksft_sysmon_errmsg(), want);
	ck_assert_int_eq(ksft_metric_reporting_enabled(), 0);
	sm_end(&c);
	sm_case_free(&c);
}
END_TEST

START_TEST(test_remote_dies_reported_at_stop)
{
	const char *const remote[] = {
		"sh", "-c",
		"echo __KSFT_SYSMON_READY__ 100;"
		"while read -r l; do [ \"$l\" = s ] && break; done;"
		"cat /proc/stat; echo __KSFT_SYSTEM_STAT_END__; echo 'lost connection' >&2; exit 1",
		"nsB", NULL
	};
	struct ksft_sysmon_opts o = KSFT_SYSMON_OPTS_INIT;
	struct ksft_sysmon *mon;
	struct sm_case c;

	o.root = root;
	o.remote_argv = remote;
	o.interval = 3600;
	mon = start_ok(&o);
	sm_assert_err(ksft_sysmon_stop(mon), EPROTO,
		      "nsB`: sampler exited with status 1 (stderr: 'lost connection')");
	sm_end(&c);
	sm_case_free(&c);
}
END_TEST

/* The remote dies mid-run: its series ends, the local one goes on. */
START_TEST(test_remote_dies_local_goes_on)
{
	const char *const remote[] = {
		"sh", "-c",
		"echo __KSFT_SYSMON_READY__ 100;"
		"while read -r l; do [ \"$l\" = s ] && break; done;"
		"cat /proc/stat; echo __KSFT_SYSTEM_STAT_END__; exit 1",
		"nsB", NULL
	};
	struct ksft_sysmon_opts o = KSFT_SYSMON_OPTS_INIT;
	struct ksft_sysmon *mon;
	struct sm_case c;

	o.root = root;
	o.remote_argv = remote;
	o.interval = 0.05;
	mon = start_ok(&o);
	nap(0.5);
	/* Every later call reports it; the local sample is still taken. */
	sm_assert_err(ksft_sysmon_sample(mon), EPROTO, "nsB`: sampler exited with status 1");
	sm_assert_err(ksft_sysmon_stop(mon), EPROTO, "nsB`: sampler exited with status 1");
	sm_end(&c);
	ck_assert_uint_ge(sm_count(&c, "cpu.time.usr", "local"), 6);
	ck_assert_uint_le(sm_count(&c, "cpu.time.usr", "remote"), 1);
	sm_case_free(&c);
}
END_TEST

START_TEST(test_live_netlink_and_remote)
{
	static const char *const remote[] = { "env", NULL };
	struct ksft_sysmon_opts o = KSFT_SYSMON_OPTS_INIT;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	struct ksft_sysmon *mon;
	struct sm_case c;
	json_t *v;

	o.ifname = "lo";
	o.remote_argv = remote;
	o.remote_ifname = "lo";
	o.interval = 0.05;
	mon = start_ok(&o);
	nap(0.2);
	ck_assert_int_eq(ksft_sysmon_sample(mon), 0);
	ck_assert_int_eq(ksft_sysmon_stop(mon), 0);
	sm_end(&c);
	ck_assert_uint_ge(sm_count(&c, "cpu.time.usr", "local"), 2);
	ck_assert_uint_ge(sm_count(&c, "cpu.time.sys", "remote"), 2);
	ck_assert_uint_ge(sm_count(&c, "nic.rx.dropped", "local"), 3);
	ck_assert_uint_ge(sm_count(&c, "nic.tx.dropped", "remote"), 3);
	v = json_object_get(sm_find(&c, "cpu.time.usr", "local", 0), "value");
	ck_assert_int_le((long)json_array_size(v), ncpu);
	ck_assert_int_ge((long)json_array_size(v), 1);
	sm_case_free(&c);
}
END_TEST

START_TEST(test_twice_in_one_case)
{
	struct ksft_sysmon_opts o = KSFT_SYSMON_OPTS_INIT;
	struct sm_case c;

	o.root = root;
	o.interval = 3600;
	ck_assert_int_eq(ksft_sysmon_stop(start_ok(&o)), 0);
	ck_assert_int_eq(ksft_sysmon_stop(start_ok(&o)), 0);	/* equal policies again */
	ck_assert_int_eq(ksft_sysmon_stop(NULL), 0);
	sm_end(&c);
	ck_assert_uint_eq(c.n_pol, 3);	/* cpu.time.*: the only metrics observed */
	sm_case_free(&c);
}
END_TEST

START_TEST(test_case_ended_first)
{
	struct ksft_sysmon_opts o = KSFT_SYSMON_OPTS_INIT;
	struct ksft_sysmon *mon;
	struct sm_case c;

	o.root = root;
	o.interval = 3600;
	mon = start_ok(&o);
	sm_end(&c);
	sm_case_free(&c);
	sm_assert_err(ksft_sysmon_stop(mon), EPERM, "recording cpu.time.usr: ");
}
END_TEST

START_TEST(test_no_case)
{
	char *junk = NULL;

	ksft_metric_case_end_buffer(&junk, NULL);
	ksft_metric_free(junk);
	ck_assert_ptr_null(ksft_sysmon_start(NULL));
	ck_assert_int_eq(errno, EPERM);
	ck_assert_msg(!strncmp(ksft_sysmon_errmsg(), "cannot enter a reporting scope (is a test "
			       "case open?): ", 52), "%s", ksft_sysmon_errmsg());
}
END_TEST

START_TEST(test_bad_options)
{
	static const char *const empty[] = { NULL };
	static const char *const nope[] = { "/nonexistent/ssh", "h", NULL };
	struct ksft_sysmon_opts o = KSFT_SYSMON_OPTS_INIT, big[2];

	o.interval = -1;
	assert_start_fails(&o, EINVAL, "interval -1 s is out of range");
	o.interval = NAN;
	assert_start_fails(&o, EINVAL, "interval nan s is out of range");
	o.interval = 0;
	o.remote_argv = empty;
	assert_start_fails(&o, EINVAL, "remote_argv is empty");
	o.remote_argv = NULL;
	o.remote_ifname = "eth1";
	assert_start_fails(&o, EINVAL, "remote_ifname/remote_root given without remote_argv");
	o.remote_ifname = NULL;
	o.ifname = "a/b";
	assert_start_fails(&o, EINVAL, "local interface name 'a/b' is invalid");
	o.ifname = "sixteen-chars-xx";
	assert_start_fails(&o, EINVAL, "local interface name 'sixteen-chars-xx' is invalid");
	o.ifname = "nonexistent9";
	assert_start_fails(&o, ENODEV, "netlink: interface nonexistent9: no such device");
	o.ifname = "eth7";
	o.root = root;
	assert_start_fails(&o, ENOENT, "/sys/class/net/eth7/statistics/rx_dropped: No such file");
	o.ifname = NULL;
	o.remote_argv = nope;
	assert_start_fails(&o, ENOENT, "remote endpoint `/nonexistent/ssh h`: cannot run");
	o.remote_argv = NULL;
	o.sz = 0;
	assert_start_fails(&o, EINVAL, "initialise with KSFT_SYSMON_OPTS_INIT");
	memset(big, 0, sizeof(big));
	big[0] = (struct ksft_sysmon_opts)KSFT_SYSMON_OPTS_INIT;
	big[0].sz = sizeof(big);
	big[0].root = root;
	big[0].interval = 3600;
	ck_assert_int_eq(ksft_sysmon_stop(start_ok(&big[0])), 0);	/* zero tail: fine */
	((unsigned char *)big)[sizeof(big) - 1] = 1;
	assert_start_fails(&big[0], EINVAL, "opts has unknown non-zero fields");
	/* An older caller's struct without remote_timeout_ms: the garbage past
	 * its sz is never read. */
	big[0] = (struct ksft_sysmon_opts)KSFT_SYSMON_OPTS_INIT;
	big[0].sz = offsetof(struct ksft_sysmon_opts, remote_timeout_ms);
	big[0].root = root;
	big[0].interval = 3600;
	big[0].remote_timeout_ms = -5;
	ck_assert_int_eq(ksft_sysmon_stop(start_ok(&big[0])), 0);
	big[0].sz = 5;
	assert_start_fails(&big[0], EINVAL, "not a struct size");
	sm_root_stat(root, "bad_nonnumeric");
	o.sz = sizeof(o);
	o.root = root;
	assert_start_fails(&o, EBADMSG, "/proc/stat line 3: cpu1 field 3 (system) is not a "
			   "64-bit unsigned integer: '6x0'");
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("sysmon_api");
	TCase *tc;

	tc = tcase_create("monitor");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_fixture_run);
	tcase_add_test(tc, test_schedule_grid);
	tcase_add_test(tc, test_schedule);
	tcase_add_test(tc, test_final_sample_gap);
	tcase_add_test(tc, test_sampler_error_reported_at_stop);
	tcase_add_test(tc, test_remote_dies_reported_at_stop);
	tcase_add_test(tc, test_remote_dies_local_goes_on);
	tcase_add_test(tc, test_live_netlink_and_remote);
	tcase_add_test(tc, test_twice_in_one_case);
	tcase_add_test(tc, test_case_ended_first);
	suite_add_tcase(s, tc);

	tc = tcase_create("rejections");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_no_case);
	tcase_add_test(tc, test_bad_options);
	suite_add_tcase(s, tc);
	return s;
}
