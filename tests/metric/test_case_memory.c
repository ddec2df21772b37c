/*
 * What a case holds, and what a refused call leaves behind: the per-case
 * memory cap counts the strings a case keeps (label values and keys,
 * metric names, policies) like its records, and in write-through mode a
 * line that failed to go out changes no state (metric not marked observed,
 * policy not registered).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "producer_util.h"

#define LIMIT ((size_t)1 << 20)
#define BIG (100 * 1024)
#define TRIES 64	/* 6.4 MB of distinct strings against a 1 MiB cap */

/* A @len-byte string, distinct for each @i. */
static char *distinct(int i, size_t len)
{
	char *s = malloc(len + 1);

	ck_assert_ptr_nonnull(s);
	memset(s, 'a' + i % 26, len);
	snprintf(s, len, "%d-", i);
	s[strlen(s)] = 'x';	/* keep the full length: overwrite the NUL */
	s[len] = '\0';
	return s;
}

static void expect_limit_msg(void)
{
	char want[128];

	snprintf(want, sizeof(want), "metric buffer limit of %zu bytes per case reached", LIMIT);
	ck_assert_msg(strstr(ksft_metric_errmsg(), want), "message: %s", ksft_metric_errmsg());
}

START_TEST(test_label_values_capped)
{
	int i, ret = 0, kept = 0, n;
	char *out;

	ck_assert_int_eq(ksft_metric_set_buffer_limit(LIMIT), 0);
	pu_begin();
	for (i = 0; i < TRIES; i++) {
		char *v = distinct(i, BIG);
		struct ksft_metric_label l = KSFT_METRIC_LABEL_STR("blob", v);

		ret = ksft_metric_int("m", "scalar", i, &l, 1);
		free(v);
		if (ret)
			break;
		kept++;
	}
	ck_assert_msg(ret == -ENOBUFS, "%d distinct 100 KB labels accepted under a 1 MiB cap (ret %d)",
		      kept, ret);
	expect_limit_msg();
	ck_assert_int_le((size_t)kept * BIG, LIMIT);
	ck_assert_int_ge(kept, 4);
	/* Known strings still fit; what was kept is emitted whole. */
	ck_assert_int_eq(ksft_metric_int("m", "scalar", -1, NULL, 0), 0);
	out = pu_end_text(&n);
	ck_assert_int_eq(n, kept + 1);
	ck_assert_uint_gt(strlen(out), (size_t)kept * BIG);
	free(out);
}
END_TEST

START_TEST(test_names_capped)
{
	int i, ret = 0, kept = 0;

	ck_assert_int_eq(ksft_metric_set_buffer_limit(LIMIT), 0);
	pu_begin();
	for (i = 0; i < 5000; i++) {
		char *name = distinct(i, 1024);

		ret = ksft_metric_double(name, "scalar", 1.5, NULL, 0);
		free(name);
		if (ret)
			break;
		kept++;
	}
	ck_assert_msg(ret == -ENOBUFS, "%d distinct 1 KB names accepted under a 1 MiB cap", kept);
	expect_limit_msg();
	ck_assert_int_le((size_t)kept * 1024, LIMIT);
	free(pu_end_text(NULL));
}
END_TEST

START_TEST(test_policies_capped)
{
	struct ksft_metric_policy p = KSFT_METRIC_POLICY_INIT;
	int i, ret = 0, kept = 0;

	ck_assert_int_eq(ksft_metric_set_buffer_limit(LIMIT), 0);
	pu_begin();
	for (i = 0; i < TRIES; i++) {
		char name[32], *label = distinct(i, BIG);

		snprintf(name, sizeof(name), "m%d", i);
		p.display_label = label;
		ret = ksft_metric_aggregate(name, &p);
		free(label);
		if (ret)
			break;
		kept++;
	}
	ck_assert_msg(ret == -ENOBUFS, "%d policies with 100 KB labels accepted under a 1 MiB cap",
		      kept);
	expect_limit_msg();
	ck_assert_int_le((size_t)kept * BIG, LIMIT);
	free(pu_end_text(NULL));
}
END_TEST

/*
 * A refused record leaves none of its strings behind: 64 records whose
 * second label is invalid, each with a new 100 KB first label, would hold
 * 6.4 MB of strings; afterwards a valid one still fits under 1 MiB.
 */
START_TEST(test_refused_record_leaves_no_strings)
{
	int i;

	ck_assert_int_eq(ksft_metric_set_buffer_limit(LIMIT), 0);
	pu_begin();
	for (i = 0; i < TRIES; i++) {
		char *v = distinct(i, BIG), name[32];
		struct ksft_metric_label l[2] = {
			KSFT_METRIC_LABEL_STR("blob", v),
			KSFT_METRIC_LABEL_STR("bad", "\xff"),
		};

		snprintf(name, sizeof(name), "n%d", i);
		pu_assert_err_prefix(ksft_metric_int(name, "scalar", i, l, 2), EINVAL,
				     "metric n");
		ck_assert(strstr(ksft_metric_errmsg(), "label bad value is not valid UTF-8"));
		free(v);
	}
	pu_assert_ok(ksft_metric_int("m", "scalar", 1, NULL, 0));
	{
		char *v = distinct(999, BIG);
		struct ksft_metric_label l = KSFT_METRIC_LABEL_STR("blob", v);

		pu_assert_ok(ksft_metric_int("m", "scalar", 2, &l, 1));
		free(v);
	}
	free(pu_end_text(NULL));
}
END_TEST

START_TEST(test_stream_failed_write_changes_nothing)
{
	struct ksft_metric_policy max = KSFT_METRIC_POLICY_INIT;
	struct ksft_metric_label l = KSFT_METRIC_LABEL_STR("host", "a");
	int bad[2], good[2];
	char *text;

	max.summarize = "max";
	signal(SIGPIPE, SIG_DFL);	/* the library blocks it around writes */
	ck_assert_int_eq(pipe(bad), 0);
	ck_assert_int_eq(pipe(good), 0);
	close(bad[0]);
	pu_assert_ok(ksft_metric_set_output_fd(bad[1]));
	pu_assert_ok(ksft_metric_set_stream(1));
	pu_begin();
	ck_assert_int_eq(ksft_metric_int("m", "scalar", 1, &l, 1), -EPIPE);
	ck_assert_int_eq(ksft_metric_aggregate("p", &max), -EPIPE);
	/* The output works again: the failed calls left no state behind. */
	pu_assert_ok(ksft_metric_set_output_fd(good[1]));
	pu_assert_ok(ksft_metric_aggregate("m", NULL));	/* m was not observed */
	pu_assert_ok(ksft_metric_aggregate("p", NULL));	/* no conflicting "max" */
	pu_assert_ok(ksft_metric_int("p", "scalar", 2, NULL, 0));
	ck_assert_int_ge(ksft_metric_case_end(), 0);
	pu_assert_ok(ksft_metric_set_stream(0));
	pu_assert_ok(ksft_metric_set_output_file(stdout));
	close(bad[1]);
	close(good[1]);
	text = pu_read_fd(good[0], NULL);
	close(good[0]);
	ck_assert_ptr_nonnull(text);
	{
		char *masked = pu_mask_time(text);

		pu_assert_text_eq(masked,
			"# " PU_POL "{\"name\":\"m\",\"summarize\":\"total\"}\n"
			"# " PU_POL "{\"name\":\"p\",\"summarize\":\"total\"}\n"
			"# " PU_OBS "{\"name\":\"p\",\"shape\":\"scalar\",\"time\":T,\"value\":2}\n"
			/* (its "begin" frame went to the broken output) */
			"# ktap-metric-stream-json: {\"state\":\"end\"}\n"
			/* the two failed writes, in the log after all */
			"# ktap-metric-warning-json: {\"call\":\"ksft_metric_int\",\"count\":1,"
			"\"errno\":\"EPIPE\",\"message\":\"writing metric lines to the output file descriptor failed: Broken pipe\",\"name\":\"m\"}\n"
			"# ktap-metric-warning-json: {\"call\":\"ksft_metric_aggregate\",\"count\":1,"
			"\"errno\":\"EPIPE\",\"message\":\"writing metric lines to the output file descriptor failed: Broken pipe\",\"name\":\"p\"}\n");
		free(masked);
	}
	free(text);
}
END_TEST

static void teardown(void)
{
	ck_assert_int_eq(ksft_metric_set_buffer_limit(KSFT_METRIC_DEFAULT_BUFFER_LIMIT), 0);
}

Suite *make_suite(void)
{
	Suite *s = suite_create("case_memory");
	TCase *c = tcase_create("case_memory");

	tcase_add_checked_fixture(c, pu_reset, teardown);
	tcase_add_test(c, test_label_values_capped);
	tcase_add_test(c, test_names_capped);
	tcase_add_test(c, test_policies_capped);
	tcase_add_test(c, test_refused_record_leaves_no_strings);
	tcase_add_test(c, test_stream_failed_write_changes_nothing);
	suite_add_tcase(s, c);
	return s;
}
