// SPDX-License-Identifier: GPL-2.0
/*
 * What the iperf3 and kperf runners share: the options-struct size rule
 * (libbpf's: older smaller structs work, newer larger ones only with an
 * all-zero unknown tail) and one definition of their metric policies.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ksftmetric/metric.h>

#include "check_main.h"
#include "iperf3_runner.h"
#include "kperf_runner.h"
#include "net_policy.h"
#include "proc.h"

#define NOWHERE "/nonexistent/ksftm-program"
#define TAIL 64

static const char *fixture(const char *sub, const char *name)
{
	static char path[4096];
	const char *dir = getenv("KSFTM_FIXTURES");

	ck_assert_msg(dir != NULL, "KSFTM_FIXTURES is not set");
	snprintf(path, sizeof(path), "%s/%s/%s", dir, sub, name);
	return path;
}

/*
 * A caller's struct of @sz bytes on the heap, exactly that large (so the
 * sanitizers catch a read past it), starting as @init.
 */
static void *caller_struct(const void *init, size_t init_size, size_t sz)
{
	unsigned char *p = calloc(1, sz);

	ck_assert_ptr_nonnull(p);
	memcpy(p, init, sz < init_size ? sz : init_size);
	memcpy(p, &sz, sizeof(sz));
	return p;
}

/* iperf3_run() with a program that is not there: -ENOENT means accepted. */
static int iperf3_with_size(size_t sz, int tail_byte, char **err)
{
	struct iperf3_opts o = IPERF3_OPTS_INIT;
	unsigned char *p;
	struct iperf3_result r;
	int ret;

	o.iperf3 = NOWHERE;
	p = caller_struct(&o, sizeof(o), sz);
	if (tail_byte >= 0)
		p[sizeof(o) + (size_t)tail_byte] = 1;
	ret = iperf3_run((const struct iperf3_opts *)p, &r, err);
	free(p);
	return ret;
}

START_TEST(test_iperf3_opts_sizes)
{
	char *err = NULL;

	/* Older callers: up to the field before the last, or just sz. */
	ck_assert_int_eq(iperf3_with_size(offsetof(struct iperf3_opts, connect_timeout_ms),
					  -1, &err), -ENOENT);
	ck_assert_int_eq(iperf3_with_size(offsetof(struct iperf3_opts, iperf3) +
					  sizeof(char *), -1, &err), -ENOENT);
	ck_assert_int_eq(iperf3_with_size(sizeof(struct iperf3_opts), -1, &err), -ENOENT);
	/* A newer caller that leaves its new fields zero: fine. */
	ck_assert_int_eq(iperf3_with_size(sizeof(struct iperf3_opts) + TAIL, -1, &err),
			 -ENOENT);
	/* ... one that sets a field we do not know: an error naming it. */
	ck_assert_int_eq(iperf3_with_size(sizeof(struct iperf3_opts) + TAIL, TAIL - 1, &err),
			 -EINVAL);
	ck_assert_msg(strstr(err, "iperf3_run: options set a field unknown to this build"),
		      "%s", err);
	ck_assert_int_eq(iperf3_with_size(sizeof(struct iperf3_opts) + TAIL, 0, &err),
			 -EINVAL);
	/* A size too small to hold the size itself (not initialised), and NULL. */
	{
		struct iperf3_opts bad = IPERF3_OPTS_INIT;

		bad.sz = 4;
		ck_assert_int_eq(iperf3_run(&bad, NULL, &err), -EINVAL);
		ck_assert_msg(strstr(err, "_OPTS_INIT"), "%s", err);
	}
	ck_assert_int_eq(iperf3_run(NULL, NULL, &err), -EINVAL);
	free(err);
}
END_TEST

static int kperf_with_size(size_t sz, int tail_byte, char **err)
{
	struct kperf_opts o = KPERF_OPTS_INIT;
	struct kperf_result r;
	unsigned char *p;
	int ret;

	o.server = NOWHERE;
	o.local_addr = "127.0.0.1";
	o.remote_addr = "127.0.0.1";
	p = caller_struct(&o, sizeof(o), sz);
	if (tail_byte >= 0)
		p[sizeof(o) + (size_t)tail_byte] = 0x80;
	ret = kperf_run((const struct kperf_opts *)p, NULL, &r, err);
	free(p);
	return ret;
}

START_TEST(test_kperf_opts_sizes)
{
	struct kperf_opts zero;
	struct kperf_result r;
	char *err = NULL;

	/* Older callers: without pid_dir, without anything after remote_addr. */
	ck_assert_int_eq(kperf_with_size(offsetof(struct kperf_opts, pid_dir), -1, &err),
			 -ENOENT);
	ck_assert_int_eq(kperf_with_size(offsetof(struct kperf_opts, remote_addr) +
					 sizeof(char *), -1, &err), -ENOENT);
	ck_assert_str_eq(err, NOWHERE " not found");
	/* Without remote_addr the required field is missing, not garbage. */
	ck_assert_int_eq(kperf_with_size(offsetof(struct kperf_opts, remote_addr), -1, &err),
			 -EINVAL);
	ck_assert_msg(strstr(err, "local_addr and remote_addr are required"), "%s", err);
	/* Newer callers: zero tail fine, a set unknown field an error. */
	ck_assert_int_eq(kperf_with_size(sizeof(struct kperf_opts) + TAIL, -1, &err), -ENOENT);
	ck_assert_int_eq(kperf_with_size(sizeof(struct kperf_opts) + TAIL, 17, &err), -EINVAL);
	ck_assert_msg(strstr(err, "kperf: options set a field unknown to this build (byte "),
		      "%s", err);
	ck_assert_int_eq(kperf_run(NULL, NULL, &r, &err), -EINVAL);
	/* kperf_missing() leaves unusable options to the start to report. */
	ck_assert_ptr_null(kperf_missing(NULL));
	memset(&zero, 0, sizeof(zero));
	ck_assert_ptr_null(kperf_missing(&zero));
	free(err);
}
END_TEST

static const char policies[] =
	"# ktap-metric-policy-json: {\"name\":\"throughput\",\"regression\":"
	"{\"better\":\"higher\",\"compare\":\"p50\",\"relative_tolerance\":0.05},"
	"\"summarize\":\"distribution\"}\n"
	"# ktap-metric-policy-json: {\"name\":\"tcp.retransmits\",\"summarize\":\"max\"}\n";

static size_t count(const char *text, const char *what)
{
	size_t n = 0;

	for (; (text = strstr(text, what)); text++)
		n++;
	return n;
}

/* Both runners record into one case: one policy definition, no conflict. */
START_TEST(test_one_policy_definition)
{
	struct iperf3_result ir;
	struct kperf_result kr;
	char *err = NULL, *text = NULL;

	ck_assert_int_eq(iperf3_parse_file(fixture("iperf3", "basic.json"), &ir, &err), 0);
	ck_assert_int_eq(kperf_parse_file(fixture("kperf", "client-n1.txt"), &kr, &err), 0);
	ck_assert_int_eq(ksft_metric_case_begin(), 0);
	ck_assert_int_eq(ex_net_policies_register(&err), 0);
	ck_assert_msg(iperf3_record_metrics(&ir, 0, "basic.json", &err) == 0, "%s", err);
	ck_assert_msg(kperf_record_metrics(&kr, &err) == 0, "%s", err);
	/* 3 policies, iperf3's 2 points and one per stable interval, kperf's 4. */
	ck_assert_int_eq(ksft_metric_case_end_buffer(&text, NULL), 3 + 2 + (int)ir.n_kept + 4);
	ck_assert_msg(!strncmp(text, policies, strlen(policies)), "%s", text);
	ck_assert_int_eq(count(text, "ktap-metric-policy-json"), 3);
	ck_assert_int_eq(count(text, "\"name\":\"" EX_POLICY_THROUGHPUT "\""), 4);
	ck_assert_int_eq(count(text, "\"name\":\"" EX_POLICY_RETRANSMITS "\""), 4);
	ksft_metric_free(text);
	kperf_result_free(&kr);
	free(err);
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("runner_shared");
	TCase *tc = tcase_create("opts");

	tcase_add_test(tc, test_iperf3_opts_sizes);
	tcase_add_test(tc, test_kperf_opts_sizes);
	suite_add_tcase(s, tc);
	tc = tcase_create("policies");
	tcase_add_test(tc, test_one_policy_definition);
	suite_add_tcase(s, tc);
	return s;
}
