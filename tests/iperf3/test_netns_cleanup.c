// SPDX-License-Identifier: GPL-2.0
/*
 * netns_main()'s stale-namespace cleanup removes only namespaces its own
 * killed runs left behind, never one that merely looks like ours. Root
 * only (77 = skip otherwise). Names made here carry this test's pid and a
 * random token, so parallel runs do not collide.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <unistd.h>

#include <check.h>
#include "netns.h"
#include "proc.h"

static int ns_exists(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	return access(path, F_OK) == 0;
}

static void ip_netns(const char *verb, const char *name)
{
	const char *argv[] = { "ip", "netns", verb, name, NULL };
	struct exproc_result r;
	char *err = NULL;

	ck_assert_msg(exproc_run(NULL, argv, 20000, &r, &err) == 0, "%s", err);
	ck_assert_msg(exproc_exit_code(r.status) == 0, "ip netns %s %s: %s", verb, name,
		      r.errout);
	exproc_result_free(&r);
}

/* A pid that no process has right now: a child's, once reaped. */
static int dead_pid(void)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (!pid)
		_exit(0);
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
	return (int)pid;
}

/* Names in /run/netns that start with "ksftm-ns" and contain @part. */
static int count_ns(const char *part)
{
	DIR *d = opendir("/run/netns");
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "ksftm-ns", 8) && strstr(e->d_name, part))
			n++;
	closedir(d);
	return n;
}

static void run_probe(const char *mode, struct exproc *p)
{
	const char *argv[] = { getenv("KSFTM_NETNS_PROBE"), mode, NULL };
	char *err = NULL;

	ck_assert_ptr_nonnull(argv[0]);
	ck_assert_msg(exproc_spawn(p, NULL, argv, &err) == 0, "%s", err);
}

START_TEST(test_foreign_namespaces_survive)
{
	char old_style[64], new_style[64];
	unsigned int token;
	struct exproc p;
	char *out;
	int dead = dead_pid();

	ck_assert_int_eq(getrandom(&token, sizeof(token), 0), (ssize_t)sizeof(token));
	/* Names another tool (or an older build) might use, with a dead pid. */
	snprintf(old_style, sizeof(old_style), "ksftm-nsa-%d", dead);
	snprintf(new_style, sizeof(new_style), "ksftm-nsb-%d-%08x", dead, token);
	ip_netns("add", old_style);
	ip_netns("add", new_style);

	run_probe("once", &p);
	ck_assert_int_eq(exproc_wait(&p, 60000), 0);
	out = exproc_output(&p, 2, NULL);
	ck_assert_msg(exproc_exit_code(p.status) == 0, "%s", out);
	free(out);
	exproc_close(&p);
	ck_assert_msg(ns_exists(old_style), "%s was deleted by someone who did not create it",
		      old_style);
	ck_assert_msg(ns_exists(new_style), "%s was deleted by someone who did not create it",
		      new_style);
	ip_netns("del", old_style);
	ip_netns("del", new_style);
}
END_TEST

START_TEST(test_killed_run_cleaned_next_time)
{
	char part[32], foreign[64], *out = NULL;
	long long deadline;
	struct exproc p, q;
	int pid;

	snprintf(foreign, sizeof(foreign), "ksftm-nsa-%d", dead_pid());
	ip_netns("add", foreign);
	run_probe("wait", &p);
	pid = (int)p.pid;
	deadline = ex_monotonic_ms() + 60000;
	while (ex_monotonic_ms() < deadline) {
		free(out);
		out = exproc_output(&p, 1, NULL);
		if (strstr(out, "ready\n") || exproc_wait(&p, 0) == 0)
			break;
		usleep(20000);
	}
	ck_assert_msg(strstr(out, "ready\n"), "probe did not start: %s", out);
	free(out);
	/* Killed outright: it cannot clean up, its namespaces stay. */
	kill(pid, SIGKILL);
	ck_assert_int_eq(exproc_wait(&p, 10000), 0);
	exproc_close(&p);
	snprintf(part, sizeof(part), "-%d-", pid);
	ck_assert_int_eq(count_ns(part), 2);

	/* The next run removes them (registered, owner gone), not the foreign one. */
	run_probe("once", &q);
	ck_assert_int_eq(exproc_wait(&q, 60000), 0);
	ck_assert_int_eq(exproc_exit_code(q.status), 0);
	exproc_close(&q);
	ck_assert_int_eq(count_ns(part), 0);
	ck_assert(ns_exists(foreign));
	ip_netns("del", foreign);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("netns_cleanup");
	TCase *tc = tcase_create("stale");

	tcase_set_timeout(tc, 180);
	tcase_add_test(tc, test_foreign_namespaces_survive);
	tcase_add_test(tc, test_killed_run_cleaned_next_time);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr;
	int failed;

	if (geteuid() != 0 || !exproc_find_program("ip")) {
		printf("SKIP: network namespaces need root and ip(8)\n");
		return 77;
	}
	sr = srunner_create(make_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
