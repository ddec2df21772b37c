// SPDX-License-Identifier: GPL-2.0
/*
 * ksft-iperf3 run --remote ssh HOST: the client's words reach the "remote"
 * as themselves, never re-parsed by its shell. A stand-in ssh that behaves
 * like OpenSSH (joins its words, runs them with sh -c) reaches this host;
 * real iperf3 on loopback, started through a recorder at a path full of
 * shell syntax. Needs iperf3 (77 = skip), not root.
 */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "argv_log.h"
#include "cli_util.h"
#include "proc.h"

static char tmpdir[64], dir[256], wrapper[320], ssh[4096], argv_file[128];

static void setup(void)
{
	const char *standin = getenv("KSFTM_STANDIN_DIR");
	char target[4096];

	ck_assert_ptr_nonnull(standin);
	strcpy(tmpdir, "/tmp/ksftm-iperf3-remote-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	ck_assert_int_eq(chdir(tmpdir), 0);	/* where an injected "touch" lands */
	snprintf(dir, sizeof(dir), "%s/" HOSTILE_DIR, tmpdir);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	/* "iperf3" at a hostile path: records its words, then runs iperf3. */
	snprintf(wrapper, sizeof(wrapper), "%s/iperf3", dir);
	snprintf(target, sizeof(target), "%s/argv-log", standin);
	ck_assert_int_eq(symlink(target, wrapper), 0);
	snprintf(ssh, sizeof(ssh), "%s/ssh", standin);
	snprintf(argv_file, sizeof(argv_file), "%s/argv.log", tmpdir);
	setenv("KSFTM_ARGV_LOG", argv_file, 1);
	setenv("KSFTM_ARGV_EXEC", "iperf3", 1);
}

static void teardown(void)
{
	char pwned[128];

	snprintf(pwned, sizeof(pwned), "%s/pwned", tmpdir);
	unlink(pwned);
	unlink(argv_file);
	unlink(wrapper);
	rmdir(dir);
	ck_assert_int_eq(chdir("/"), 0);
	ck_assert_msg(rmdir(tmpdir) == 0, "%s left files behind", tmpdir);
}

static void run_cli(const char *server_addr, struct exproc_result *r)
{
	const char *argv[] = {
		getenv("KSFTM_KSFT_IPERF3"), "run", "--iperf3", wrapper,
		"--bind", "127.0.0.1", "--server-addr", server_addr,
		"--time", "1", "--interval", "0.1",
		"--remote", ssh, "-p", "22", "-o", "BatchMode=yes", "host.example", NULL,
	};
	char *err = NULL;

	ck_assert_ptr_nonnull(argv[0]);
	ck_assert_msg(exproc_run(NULL, argv, 60000, r, &err) == 0, "%s", err);
	ck_assert_int_eq(r->timed_out, 0);
}

static void assert_not_pwned(void)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/pwned", tmpdir);
	ck_assert_msg(access(path, F_OK) != 0, "a remote shell ran an injected command");
}

/* The client's record: "WRAPPER -c ADDR -p ..." as exact words. */
static void assert_client_words(const char *addr)
{
	char want[1024] = "", *log = NULL, *err = NULL;

	netstring_add(want, sizeof(want), wrapper);
	netstring_add(want, sizeof(want), "-c");
	netstring_add(want, sizeof(want), addr);
	netstring_add(want, sizeof(want), "-p");
	ck_assert_msg(ex_read_file(argv_file, &log, NULL, &err) == 0, "%s", err);
	ck_assert_msg(strstr(log, want), "%s\nlacks\n%s", log, want);
	free(log);
}

START_TEST(test_run_through_ssh)
{
	struct exproc_result r;

	run_cli("127.0.0.1", &r);
	ck_assert_msg(exproc_exit_code(r.status) == 0, "%s\n%s", r.out, r.errout);
	ck_assert_msg(strstr(r.out, "\nok 1 iperf3.throughput\n"), "%s", r.out);
	exproc_result_free(&r);
	assert_client_words("127.0.0.1");
	assert_not_pwned();
}
END_TEST

START_TEST(test_hostile_server_addr)
{
	struct exproc_result r;
	int i;

	/* Each fails as a name iperf3 cannot resolve, not as shell syntax. */
	for (i = 0; i < 3; i++) {
		const char *addr[] = { "127.0.0.1;touch pwned", "$(touch pwned)",
				       "`touch pwned`\n>pwned" };

		unlink(argv_file);
		run_cli(addr[i], &r);
		ck_assert_msg(exproc_exit_code(r.status) == 1, "%s\n%s", r.out, r.errout);
		ck_assert_msg(strstr(r.out, "\nnot ok 1 iperf3.throughput\n"), "%s", r.out);
		exproc_result_free(&r);
		assert_client_words(addr[i]);
		assert_not_pwned();
	}
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("iperf3_remote");
	TCase *tc = tcase_create("ssh_quoting");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_run_through_ssh);
	tcase_add_test(tc, test_hostile_server_addr);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr;
	int failed;

	if (!exproc_find_program("iperf3")) {
		printf("SKIP: iperf3 not found\n");
		return 77;
	}
	sr = srunner_create(make_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
