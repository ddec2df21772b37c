/*
 * Caller-sized option structs follow libbpf's rule (lib/common/opts_size.h): an
 * older caller's smaller struct is accepted and nothing past its sz is read
 * (the structs here are malloc'd at exactly that size, so ASan would see a
 * read past it); a newer caller's larger struct is accepted only when the
 * bytes this library does not know are zero.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <ksftmetric/report.h>

#include "check_main.h"
#include "producer_util.h"

/* A heap copy of the first @sz bytes of @full, with its sz field set to @sz. */
static void *older(const void *full, size_t sz)
{
	void *p = malloc(sz);

	ck_assert_ptr_nonnull(p);
	memcpy(p, full, sz);
	memcpy(p, &sz, sizeof(sz));
	return p;
}

START_TEST(test_policy_older)
{
	struct ksft_metric_policy full = KSFT_METRIC_POLICY_INIT;
	struct ksft_metric_policy *old;

	full.summarize = "max";
	full.display_label = "not in the old struct";
	old = older(&full, offsetof(struct ksft_metric_policy, display_label));
	pu_begin();
	pu_assert_ok(ksft_metric_aggregate("m", old));
	pu_assert_ok(ksft_metric_int("m", "scalar", 1, NULL, 0));
	pu_expect_end("# " PU_POL "{\"name\":\"m\",\"summarize\":\"max\"}\n"
		      "# " PU_OBS "{\"name\":\"m\",\"shape\":\"scalar\",\"time\":T,\"value\":1}\n");
	free(old);
	/* The oldest possible struct: only sz. Everything reads as unset. */
	old = older(&full, sizeof(size_t));
	pu_begin();
	pu_assert_ok(ksft_metric_aggregate("m", old));
	pu_assert_ok(ksft_metric_int("m", "scalar", 1, NULL, 0));
	pu_expect_end("# " PU_POL "{\"name\":\"m\",\"summarize\":\"total\"}\n"
		      "# " PU_OBS "{\"name\":\"m\",\"shape\":\"scalar\",\"time\":T,\"value\":1}\n");
	free(old);
}
END_TEST

START_TEST(test_policy_newer)
{
	struct {
		struct ksft_metric_policy p;
		unsigned char future[24];
	} big;

	memset(&big, 0, sizeof(big));
	big.p.sz = sizeof(big);
	big.p.summarize = "p50";
	pu_begin();
	pu_assert_ok(ksft_metric_aggregate("m", &big.p));	/* zero tail: fine */
	big.future[sizeof(big.future) - 1] = 1;
	pu_assert_err_prefix(ksft_metric_aggregate("n", &big.p), EINVAL,
			     "metric n: policy has non-zero fields this library does not know");
	/* Nothing registered: a different policy for n is not a conflict. */
	pu_assert_ok(ksft_metric_aggregate("n", NULL));
	free(pu_end_text(NULL));
}
END_TEST

START_TEST(test_report_opts)
{
	struct ksft_metric_report_opts full = KSFT_METRIC_REPORT_OPTS_INIT, *old;
	struct {
		struct ksft_metric_report_opts o;
		unsigned char future[16];
	} big;
	struct ksft_metric_report *r;

	full.max_line = 4096;
	full.max_warnings = 5;
	old = older(&full, offsetof(struct ksft_metric_report_opts, max_warnings));
	r = ksft_metric_report_new(old);
	ck_assert_msg(r != NULL, "older opts rejected: %s", ksft_metric_report_errmsg());
	ksft_metric_report_free(r);
	free(old);

	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	r = ksft_metric_report_new(&big.o);
	ck_assert_msg(r != NULL, "zero tail rejected: %s", ksft_metric_report_errmsg());
	ksft_metric_report_free(r);
	big.future[3] = 7;
	errno = 0;
	ck_assert_ptr_null(ksft_metric_report_new(&big.o));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_msg(strstr(ksft_metric_report_errmsg(), "does not know"), "%s", ksft_metric_report_errmsg());
	big.o.sz = 3;
	ck_assert_ptr_null(ksft_metric_report_new(&big.o));
}
END_TEST

START_TEST(test_compare_opts)
{
	struct ksft_metric_report_compare_opts full = KSFT_METRIC_REPORT_COMPARE_OPTS_INIT, *old;
	struct {
		struct ksft_metric_report_compare_opts o;
		unsigned char future[16];
	} big;
	struct ksft_metric_report *r = ksft_metric_report_new(NULL);
	struct ksft_metric_report_baseline *b = ksft_metric_report_baseline_new();
	struct ksft_metric_report_comparison *c = NULL;

	ck_assert_ptr_nonnull(r);
	ck_assert_ptr_nonnull(b);
	full.allow_missing = 1;
	old = older(&full, offsetof(struct ksft_metric_report_compare_opts, allow_missing));
	ck_assert_int_ge(ksft_metric_report_compare(r, b, old, &c), 0);
	ksft_metric_report_comparison_free(c);
	free(old);

	memset(&big, 0, sizeof(big));
	big.o = full;
	big.o.sz = sizeof(big);
	c = NULL;
	ck_assert_int_ge(ksft_metric_report_compare(r, b, &big.o, &c), 0);
	ksft_metric_report_comparison_free(c);
	big.future[0] = 1;
	c = NULL;
	ck_assert_int_eq(ksft_metric_report_compare(r, b, &big.o, &c), -EINVAL);
	ck_assert_msg(strstr(ksft_metric_report_errmsg(), "does not know"), "%s", ksft_metric_report_errmsg());
	ck_assert_ptr_null(c);
	ksft_metric_report_baseline_free(b);
	ksft_metric_report_free(r);
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("opts_size");
	TCase *c = tcase_create("opts_size");

	tcase_add_checked_fixture(c, pu_reset, NULL);
	tcase_add_test(c, test_policy_older);
	tcase_add_test(c, test_policy_newer);
	tcase_add_test(c, test_report_opts);
	tcase_add_test(c, test_compare_opts);
	suite_add_tcase(s, c);
	return s;
}
