// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/stat parser: the fixtures parse to the right CPUs and ticks, and
 * every broken fixture fails with -EBADMSG and a message naming the file,
 * the line and the reason.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check_main.h"
#include "proc_stat.h"
#include "sm_error.h"
#include "sm_test_util.h"

static struct cpu_snapshot snap;
static struct sm_buf buf;

static void teardown(void)
{
	cpu_snapshot_free(&snap);
	sm_buf_free(&buf);
}

/* Parse fixture @name into snap; @return the parser's result. */
static int parse_fixture(const char *name)
{
	int err = read_whole_file(sm_fixture(name), &buf);

	ck_assert_msg(err == 0, "read %s: %s", name, sm_errmsg());
	return cpu_snapshot_parse(&snap, buf.data, buf.len, "/proc/stat");
}

#define assert_bad(name, want_msg) do {						\
	int r_ = parse_fixture(name);						\
	ck_assert_int_eq(r_, -EBADMSG);						\
	ck_assert_str_eq(sm_errmsg(), (want_msg));				\
} while (0)

START_TEST(test_two_cpus)
{
	static const uint64_t cpu0[CPU_NFIELDS] = { 1000, 10, 500, 80000, 100, 0, 50, 0 };

	ck_assert_int_eq(parse_fixture("stat_2cpu_a"), 0);
	ck_assert_uint_eq(snap.n, 2);
	ck_assert(snap.present[0] && snap.present[1]);
	ck_assert_mem_eq(snap.ticks[0], cpu0, sizeof(cpu0));
	ck_assert_uint_eq(snap.ticks[1][CPU_IDLE], 70000);
	ck_assert_uint_eq(snap.ticks[1][CPU_SOFTIRQ], 60);
}
END_TEST

START_TEST(test_256_cpus)
{
	size_t i;

	ck_assert_int_eq(parse_fixture("stat_256cpu_a"), 0);
	ck_assert_uint_eq(snap.n, 256);
	for (i = 0; i < 256; i++) {
		ck_assert(snap.present[i]);
		ck_assert_uint_eq(snap.ticks[i][CPU_USER], 10000 + i);
		ck_assert_uint_eq(snap.ticks[i][CPU_SOFTIRQ], 300 + i);
	}
	/* Reparsing a smaller file reuses the memory and forgets the old CPUs. */
	ck_assert_int_eq(parse_fixture("stat_2cpu_a"), 0);
	ck_assert_uint_eq(snap.n, 2);
	ck_assert(!snap.present[2] && !snap.present[255]);
}
END_TEST

START_TEST(test_offline_gap)
{
	ck_assert_int_eq(parse_fixture("stat_hotplug_1"), 0);	/* cpu2 offline */
	ck_assert_uint_eq(snap.n, 4);
	ck_assert(snap.present[0] && snap.present[1] && !snap.present[2] && snap.present[3]);
	ck_assert_int_eq(parse_fixture("stat_hotplug_2"), 0);	/* cpu2 back, cpu5 new */
	ck_assert_uint_eq(snap.n, 6);
	ck_assert(snap.present[2] && !snap.present[4] && snap.present[5]);
}
END_TEST

START_TEST(test_reference_line_rules)
{
	/* Total line, "cpuX" lines and other lines are skipped; tabs separate; extra fields ignored. */
	static const char text[] =
		"cpu  1 2 3 4 5 6 7 8\n"
		"cpux 1 2 3\n"
		"cpu1\t9 8 7 6 5 4 3 2 1 0 99 x\n"
		"cpu0a 1\n"
		"page 5 6\n";

	ck_assert_int_eq(cpu_snapshot_parse(&snap, text, strlen(text), "t"), 0);
	ck_assert_uint_eq(snap.n, 2);
	ck_assert(!snap.present[0] && snap.present[1]);
	ck_assert_uint_eq(snap.ticks[1][CPU_USER], 9);
	ck_assert_uint_eq(snap.ticks[1][CPU_STEAL], 2);
}
END_TEST

START_TEST(test_short_fields)
{
	assert_bad("bad_short_fields", "/proc/stat line 3: cpu1 has 4 fields, expected at least 8");
}
END_TEST

START_TEST(test_nonnumeric)
{
	assert_bad("bad_nonnumeric",
		   "/proc/stat line 3: cpu1 field 3 (system) is not a 64-bit unsigned integer: '6x0'");
}
END_TEST

START_TEST(test_overflow)
{
	assert_bad("bad_overflow",
		   "/proc/stat line 2: cpu0 field 1 (user) is not a 64-bit unsigned integer: "
		   "'18446744073709551616'");
}
END_TEST

START_TEST(test_negative)
{
	assert_bad("bad_negative",
		   "/proc/stat line 2: cpu0 field 1 (user) is not a 64-bit unsigned integer: '-1000'");
}
END_TEST

START_TEST(test_duplicate)
{
	assert_bad("bad_duplicate", "/proc/stat line 3: cpu0 appears twice");
}
END_TEST

START_TEST(test_cpu_id_range)
{
	assert_bad("bad_cpu_id", "/proc/stat line 3: CPU id 70000 out of range (max 65535)");
}
END_TEST

START_TEST(test_truncated)
{
	assert_bad("bad_truncated", "/proc/stat line 3: truncated (no newline at end of file)");
}
END_TEST

START_TEST(test_empty_and_no_cpu)
{
	assert_bad("bad_empty", "/proc/stat: empty");
	assert_bad("bad_no_cpu", "/proc/stat: no per-CPU lines (cpuN) in 7 lines");
}
END_TEST

START_TEST(test_garbage)
{
	int r = parse_fixture("bad_garbage");

	ck_assert_int_eq(r, -EBADMSG);
	ck_assert_msg(!strncmp(sm_errmsg(), "/proc/stat", 10), "%s", sm_errmsg());
	assert_bad("bad_nul", "/proc/stat line 3: cpu1 field 1 (user) is not a 64-bit unsigned "
		   "integer: '20\\x00\\x00'");
}
END_TEST

START_TEST(test_missing_file)
{
	ck_assert_int_eq(read_whole_file("/nonexistent/proc/stat", &buf), -ENOENT);
	ck_assert_str_eq(sm_errmsg(), "cannot open /nonexistent/proc/stat: No such file or directory");
}
END_TEST

START_TEST(test_real_proc_stat)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	size_t i, online = 0;

	ck_assert_int_eq(read_whole_file("/proc/stat", &buf), 0);
	ck_assert_int_eq(cpu_snapshot_parse(&snap, buf.data, buf.len, "/proc/stat"), 0);
	for (i = 0; i < snap.n; i++)
		online += snap.present[i];
	ck_assert_int_eq((long)online, ncpu);
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("sysmon_proc_stat");
	TCase *tc;

	tc = tcase_create("parse");
	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, test_two_cpus);
	tcase_add_test(tc, test_256_cpus);
	tcase_add_test(tc, test_offline_gap);
	tcase_add_test(tc, test_reference_line_rules);
	tcase_add_test(tc, test_real_proc_stat);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, test_short_fields);
	tcase_add_test(tc, test_nonnumeric);
	tcase_add_test(tc, test_overflow);
	tcase_add_test(tc, test_negative);
	tcase_add_test(tc, test_duplicate);
	tcase_add_test(tc, test_cpu_id_range);
	tcase_add_test(tc, test_truncated);
	tcase_add_test(tc, test_empty_and_no_cpu);
	tcase_add_test(tc, test_garbage);
	tcase_add_test(tc, test_missing_file);
	suite_add_tcase(s, tc);
	return s;
}
