// SPDX-License-Identifier: GPL-2.0
/*
 * The remote sampler against local stand-ins for a remote: the real script
 * under dash, bash and an ssh-like joined command line, with hostile names;
 * and fake remotes that fail to start, die, hang or answer garbage, each of
 * which must give an error naming the endpoint.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../check_main.h"
#include "remote_sampler.h"
#include "sm_error.h"
#include "sm_test_util.h"

static char *root;
static struct remote_sampler *rs;
static struct cpu_snapshot snap;

static void setup(void)
{
	root = sm_root_new();
	sm_root_stat(root, "stat_2cpu_a");
	sm_root_nic(root, "eth0", 11, 12, 13);
}

static void teardown(void)
{
	remote_sampler_stop(rs);
	rs = NULL;
	cpu_snapshot_free(&snap);
	sm_root_free(root);
}

#define OK(expr) ck_assert_msg((expr) == 0, "%s: %s", #expr, sm_errmsg())

#define assert_msg_has(part) \
	ck_assert_msg(strstr(sm_errmsg(), (part)), "message \"%s\" lacks \"%s\"", sm_errmsg(), (part))

/* Start, take two samples (fixture changes between them), check, stop cleanly. */
static void two_samples(const char *const *prefix, const char *ifname, const char *r)
{
	uint64_t nic[NIC_NCOUNTERS] = { 0 };

	OK(remote_sampler_start(&rs, prefix, ifname, r, 5000));
	ck_assert_int_eq(remote_sampler_clk_tck(rs), sysconf(_SC_CLK_TCK));
	OK(remote_sampler_collect(rs, &snap, nic));
	ck_assert_uint_eq(snap.n, 2);
	ck_assert_uint_eq(snap.ticks[1][CPU_USER], 2000);
	if (ifname) {
		ck_assert_uint_eq(nic[NIC_RX_DROPPED], 11);
		ck_assert_uint_eq(nic[NIC_RX_MISSED_ERRORS], 12);
		ck_assert_uint_eq(nic[NIC_TX_DROPPED], 13);
	}
	sm_root_stat(r, "stat_hotplug_2");
	OK(remote_sampler_request(rs));
	OK(remote_sampler_request(rs));	/* one request per sample, however often asked */
	OK(remote_sampler_collect(rs, &snap, nic));
	ck_assert_uint_eq(snap.n, 6);
	OK(remote_sampler_stop(rs));
	rs = NULL;
}

START_TEST(test_dash)
{
	const char *const prefix[] = { "env", NULL };

	two_samples(prefix, "eth0", root);
}
END_TEST

START_TEST(test_bash)
{
	const char *const prefix[] = { "sh", "-c", "shift; exec bash \"$@\"", "wrap", NULL };

	if (access("/bin/bash", X_OK))
		return;
	two_samples(prefix, "eth0", root);
}
END_TEST

START_TEST(test_ssh_like_join)
{
	/* ssh joins its words into one command line for the remote's shell. */
	const char *const prefix[] = { "sh", "-c", "exec sh -c \"$*\"", "fake-ssh", NULL };

	two_samples(prefix, "eth0", root);
}
END_TEST

START_TEST(test_no_nic)
{
	const char *const prefix[] = { "env", NULL };

	two_samples(prefix, NULL, root);
}
END_TEST

START_TEST(test_hostile_names)
{
	/* Quotes, $(...), backquotes, spaces and a newline, in the ifname and the root. */
	const char *const ifname = "q'$(x)`y` \"z\n";
	const char *const prefix[] = { "env", NULL };
	char weird[4096];

	snprintf(weird, sizeof(weird), "%s/it's $HOME `id`", root);
	ck_assert_int_eq(mkdir(weird, 0755), 0);
	snprintf(weird + strlen(weird), sizeof(weird) - strlen(weird), "/proc");
	ck_assert_int_eq(mkdir(weird, 0755), 0);
	weird[strlen(weird) - 5] = '\0';
	sm_root_stat(weird, "stat_2cpu_a");
	sm_root_nic(weird, ifname, 11, 12, 13);
	sm_root_stat(root, "bad_garbage");	/* reading the unquoted root would fail */
	two_samples(prefix, ifname, weird);
}
END_TEST

START_TEST(test_script_text)
{
	char *s = remote_sampler_script("a'b", NULL);

	ck_assert_ptr_nonnull(s);
	ck_assert_msg(!strncmp(s, "R='' IF='a'\\''b'\n{\n", 19), "%s", s);
	free(s);
}
END_TEST

START_TEST(test_cannot_run)
{
	const char *const prefix[] = { "/nonexistent/ssh", "host", NULL };

	ck_assert_int_eq(remote_sampler_start(&rs, prefix, NULL, NULL, 2000), -ENOENT);
	ck_assert_str_eq(sm_errmsg(), "remote endpoint `/nonexistent/ssh host`: cannot run "
		"/nonexistent/ssh: No such file or directory");
}
END_TEST

START_TEST(test_exits_at_start)
{
	const char *const prefix[] = {
		"sh", "-c", "echo 'ssh: connect to host h port 22: Connection refused' >&2; exit 255",
		"ssh", NULL
	};

	ck_assert_int_eq(remote_sampler_start(&rs, prefix, NULL, NULL, 5000), -EPROTO);
	ck_assert_str_eq(sm_errmsg(), "remote endpoint `sh -c 'echo '\\''ssh: connect to host h "
		"port 22: Connection refused'\\'' >&2; exit 255' ssh`: sampler exited with status "
		"255 (stderr: 'ssh: connect to host h port 22: Connection refused')");
}
END_TEST

/* A fake remote: prints a banner and the ready line, then answers "s" with @answer. */
/*
 * A remote endpoint that answers each sample request with @answer, given
 * @timeout_ms to do it: 300 ms only where the test wants the timeout, a
 * generous 10 s where it wants the answer (a shell starved by a loaded
 * machine under a sanitizer must not turn a parse error into a timeout).
 */
static int fake_within(const char *answer, const char *ifname, uint64_t *nic,
		       int timeout_ms)
{
	char code[1024];
	const char *const prefix[] = { "sh", "-c", code, "fake", NULL };
	int err;

	snprintf(code, sizeof(code),
		 "echo 'Welcome!'; echo __KSFT_SYSMON_READY__ 250\n"
		 "while read -r l; do [ \"$l\" = s ] && { %s; }; done", answer);
	err = remote_sampler_start(&rs, prefix, ifname, NULL, timeout_ms);
	ck_assert_msg(err == 0, "%s", sm_errmsg());
	ck_assert_int_eq(remote_sampler_clk_tck(rs), 250);
	return remote_sampler_collect(rs, &snap, nic);
}

static int fake(const char *answer, const char *ifname, uint64_t *nic)
{
	return fake_within(answer, ifname, nic, 10000);
}

START_TEST(test_garbage_stat)
{
	uint64_t nic[NIC_NCOUNTERS];

	ck_assert_int_eq(fake("printf 'hello\\ncpu0 1 2\\n__KSFT_SYSTEM_STAT_END__\\n'", NULL, nic),
			 -EBADMSG);
	assert_msg_has("remote endpoint `sh -c ");
	assert_msg_has("fake`: /proc/stat line 2: cpu0 has 2 fields, expected at least 8");
}
END_TEST

START_TEST(test_no_nic_line)
{
	uint64_t nic[NIC_NCOUNTERS];

	ck_assert_int_eq(fake("cat /proc/stat; echo __KSFT_SYSTEM_STAT_END__", "eth0", nic),
			 -EPROTO);
	assert_msg_has("fake`: answer has no NIC counter line");
}
END_TEST

START_TEST(test_bad_nic_line)
{
	uint64_t nic[NIC_NCOUNTERS];

	ck_assert_int_eq(fake("cat /proc/stat; echo __KSFT_NIC_STATS__ 1 x 3; "
			      "echo __KSFT_SYSTEM_STAT_END__", "eth0", nic), -EPROTO);
	assert_msg_has("fake`: malformed NIC counter line '__KSFT_NIC_STATS__ 1 x 3'");
}
END_TEST

START_TEST(test_hangs)
{
	uint64_t nic[NIC_NCOUNTERS];
	struct timespec a, b;

	/* Never answers, ignores SIGTERM and EOF: a timeout, then SIGKILL at stop. */
	ck_assert_int_eq(fake_within("trap '' TERM; while :; do sleep 0.05; done", NULL, nic, 300),
			 -ETIMEDOUT);
	assert_msg_has("fake`: no complete sample within 0.3 s");
	clock_gettime(CLOCK_MONOTONIC, &a);
	remote_sampler_stop(rs);
	rs = NULL;
	clock_gettime(CLOCK_MONOTONIC, &b);
	ck_assert_int_lt(b.tv_sec - a.tv_sec, 6);
}
END_TEST

START_TEST(test_dies_mid_run)
{
	const char *const prefix[] = {
		"sh", "-c",
		"echo __KSFT_SYSMON_READY__ 100;"
		"while read -r l; do [ \"$l\" = s ] && break; done;"
		"cat /proc/stat; echo __KSFT_SYSTEM_STAT_END__; read -r l; echo boom >&2; exit 1",
		"fake", NULL
	};
	uint64_t nic[NIC_NCOUNTERS];

	OK(remote_sampler_start(&rs, prefix, NULL, NULL, 5000));
	OK(remote_sampler_collect(rs, &snap, nic));
	ck_assert_int_eq(remote_sampler_collect(rs, &snap, nic), -EPROTO);
	assert_msg_has("fake`: sampler exited with status 1 (stderr: 'boom')");
	/* Once dead, stop reports nothing new. */
	ck_assert_int_eq(remote_sampler_stop(rs), 0);
	rs = NULL;
}
END_TEST

START_TEST(test_remote_files_missing)
{
	const char *const prefix[] = { "env", NULL };
	uint64_t nic[NIC_NCOUNTERS];
	char path[4200];

	OK(remote_sampler_start(&rs, prefix, "eth1", root, 5000));
	ck_assert_int_eq(remote_sampler_collect(rs, &snap, nic), -EPROTO);
	assert_msg_has("`env`: sampler exited with status 4 (stderr: 'ksft-sysmon: cannot read "
		       "a counter from ");
	assert_msg_has("/sys/class/net/eth1/statistics/rx_dropped')");
	remote_sampler_stop(rs);
	rs = NULL;

	snprintf(path, sizeof(path), "%s/proc/stat", root);
	unlink(path);
	OK(remote_sampler_start(&rs, prefix, "eth0", root, 5000));
	ck_assert_int_eq(remote_sampler_collect(rs, &snap, nic), -EPROTO);
	assert_msg_has("`env`: sampler exited with status 3 (stderr: 'cat: ");
	assert_msg_has("/proc/stat: No such file or directory')");
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("sysmon_remote");
	TCase *tc;

	tc = tcase_create("sampling");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_dash);
	tcase_add_test(tc, test_bash);
	tcase_add_test(tc, test_ssh_like_join);
	tcase_add_test(tc, test_no_nic);
	tcase_add_test(tc, test_hostile_names);
	tcase_add_test(tc, test_script_text);
	suite_add_tcase(s, tc);

	tc = tcase_create("failures");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_cannot_run);
	tcase_add_test(tc, test_exits_at_start);
	tcase_add_test(tc, test_garbage_stat);
	tcase_add_test(tc, test_no_nic_line);
	tcase_add_test(tc, test_bad_nic_line);
	tcase_add_test(tc, test_hangs);
	tcase_add_test(tc, test_dies_mid_run);
	tcase_add_test(tc, test_remote_files_missing);
	suite_add_tcase(s, tc);
	return s;
}
