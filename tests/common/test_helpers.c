/*
 * lib/common's small helpers: overflow-checked growth, the double
 * comparison, quantiles and the median, the policy vocabulary's lookup.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "errmsg.h"
#include "grow.h"
#include "order_stats.h"
#include "policy_vocab.h"
#include "verdict_vocab.h"

START_TEST(test_grow_doubles)
{
	int *v = NULL;
	size_t cap = 0, i;

	ck_assert_int_eq(ksftm_grow((void **)&v, &cap, 1, sizeof(*v), 4), 0);
	ck_assert_uint_eq(cap, 4);
	ck_assert_int_eq(ksftm_grow((void **)&v, &cap, 4, sizeof(*v), 4), 0);
	ck_assert_uint_eq(cap, 4);	/* enough room: nothing done */
	ck_assert_int_eq(ksftm_grow((void **)&v, &cap, 5, sizeof(*v), 4), 0);
	ck_assert_uint_eq(cap, 8);
	ck_assert_int_eq(ksftm_grow((void **)&v, &cap, 100, sizeof(*v), 4), 0);
	ck_assert_uint_eq(cap, 128);
	for (i = 0; i < 100; i++)
		v[i] = (int)i;	/* ASan: the room is really there */
	free(v);
}
END_TEST

START_TEST(test_grow_overflow)
{
	char *v = NULL, *keep;
	size_t cap = 0;

	ck_assert_int_eq(ksftm_grow((void **)&v, &cap, 16, 1, 16), 0);
	keep = v;
	/* elements * size beyond SIZE_MAX: refused, nothing changed */
	ck_assert_int_eq(ksftm_grow((void **)&v, &cap, SIZE_MAX / 8, 16, 16), -ENOMEM);
	ck_assert_ptr_eq(v, keep);
	ck_assert_uint_eq(cap, 16);
	/* doubling past SIZE_MAX */
	ck_assert_int_eq(ksftm_grow((void **)&v, &cap, SIZE_MAX, 1, 16), -ENOMEM);
	ck_assert_uint_eq(cap, 16);
	free(v);
}
END_TEST

START_TEST(test_cmp_double)
{
	double x[] = { 3, -1, 2.5, -0.0, 1e300, -1e300 };
	double one = 1, two = 2;

	ck_assert_int_eq(ksftm_cmp_double(&one, &two), -1);
	ck_assert_int_eq(ksftm_cmp_double(&two, &one), 1);
	ck_assert_int_eq(ksftm_cmp_double(&one, &one), 0);
	qsort(x, 6, sizeof(*x), ksftm_cmp_double);
	ck_assert(x[0] == -1e300 && x[1] == -1 && x[2] == 0 && x[3] == 2.5 &&
		  x[4] == 3 && x[5] == 1e300);
}
END_TEST

START_TEST(test_sort_doubles)
{
	/*
	 * The insertion sort (up to 32 values) gives qsort()'s array bit for
	 * bit: 0 and -0 in their order, duplicates, NaN left to qsort().
	 */
	static const double pool[] = { 0.0, -0.0, 1, -1, 2.5, 2.5, 1e300, -1e300, 3, NAN };
	unsigned int seed = 45;
	size_t n, i, round;

	for (round = 0; round < 2000; round++) {
		double a[40], b[40];

		n = round % 41;
		for (i = 0; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			/* NaN in one array of ten. */
			a[i] = pool[(seed >> 16) % (round % 10 ? 9 : 10)];
			b[i] = a[i];
		}
		ksftm_sort_doubles(a, n);
		qsort(b, n, sizeof(*b), ksftm_cmp_double);
		ck_assert_int_eq(memcmp(a, b, n * sizeof(*a)), 0);
	}
}
END_TEST

START_TEST(test_median)
{
	double odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 }, one[] = { 7 };
	/* numpy.median([6.951537853084733, 34.44228640964949]) is the lerp
	 * from the upper end, not (a + b) / 2, which is 1 ulp lower. */
	double pair[] = { 34.44228640964949, 6.951537853084733 };
	double huge[] = { DBL_MAX, DBL_MAX };

	ck_assert(isnan(ksftm_median(NULL, 0)));
	ck_assert(ksftm_median(one, 1) == 7);
	ck_assert(ksftm_median(odd, 3) == 3);
	ck_assert(odd[0] == 1 && odd[2] == 5);	/* sorted in place */
	ck_assert(ksftm_median(even, 4) == 2.5);
	ck_assert(ksftm_median(pair, 2) == 20.696912131367114);
	ck_assert(ksftm_median(huge, 2) == DBL_MAX);	/* (a + b) / 2 is inf */
}
END_TEST

START_TEST(test_quantile)
{
	double x[] = { 1, 2, 3, 4, 5 };

	ck_assert(ksftm_quantile_sorted(x, 5, 0) == 1);
	ck_assert(ksftm_quantile_sorted(x, 5, 1) == 5);
	ck_assert(ksftm_quantile_sorted(x, 5, 0.9) == 4.6);
	ck_assert(isnan(ksftm_quantile_sorted(x, 0, 0.5)));
}
END_TEST

START_TEST(test_vocab)
{
	ck_assert_int_eq(ksftm_vocab_index(ksftm_summaries, KSFTM_SUM_DEFAULT), 1);
	ck_assert_int_eq(ksftm_vocab_index(ksftm_summaries, "distribution"), 6);
	ck_assert_int_eq(ksftm_vocab_index(ksftm_comparisons, "distribution"), -ENOENT);
	ck_assert_int_eq(ksftm_vocab_index(ksftm_betters, "lower"), 1);
	ck_assert_int_eq(ksftm_vocab_index(ksftm_transforms, "Rate"), -ENOENT);
	ck_assert_int_eq(ksftm_vocab_index(ksftm_aggregations, "busy-core-equivalents"), 0);
}
END_TEST

/* Each code is its name in snake_case; old codes read as today's. */
START_TEST(test_verdict_vocab)
{
	char buf[32], want[32];
	int i;
	size_t k;

	for (i = 0; i < KSFTM_N_VERDICTS; i++) {
		const struct ksftm_verdict_word *w = &ksftm_verdicts[i];

		for (k = 0; w->name[k] && k + 1 < sizeof(want); k++)
			want[k] = w->name[k] == ' ' ? '_' : (char)(w->name[k] - 'A' + 'a');
		want[k] = '\0';
		ck_assert_str_eq(w->code, want);
		ck_assert_int_eq(ksftm_verdict_index(w->code), i);
		ck_assert_str_eq(ksftm_verdict_name(w->code), w->name);
	}
	ck_assert_str_eq(ksftm_verdict_code(KSFTM_VERDICT_OLD_NO_CHANGE), KSFTM_VERDICT_NO_CHANGE);
	ck_assert_str_eq(ksftm_verdict_code("noise"), "too_noisy");
	ck_assert_str_eq(ksftm_verdict_name("incomparable"), "NOT COMPARABLE");
	ck_assert_str_eq(ksftm_verdict_code("regression"), "regression");
	/* back at the old level: no change or better, never too noisy */
	ck_assert(ksftm_verdict_at_level("no_change") && ksftm_verdict_at_level("ok"));
	ck_assert(ksftm_verdict_at_level("improvement"));
	ck_assert(!ksftm_verdict_at_level("too_noisy") && !ksftm_verdict_at_level("noise"));
	ck_assert(!ksftm_verdict_at_level("regression") && !ksftm_verdict_at_level("accepted"));
	ck_assert(!ksftm_verdict_at_level(NULL));
	ck_assert_str_eq(ksftm_verdict_code("other"), "other");
	ck_assert_ptr_null(ksftm_verdict_name(NULL));
	ck_assert_int_eq(ksftm_verdict_index("OK"), -ENOENT);
	ck_assert_str_eq(ksftm_verdict_lower("ok", buf, sizeof(buf)), "no change");
	ck_assert_str_eq(ksftm_verdict_lower("too_noisy", buf, 4), "too");
}
END_TEST

/* The one out-of-memory failure: -ENOMEM and the one text, as ksftm_fail() gave it. */
START_TEST(test_oom)
{
	char want[64];

	ksftm_errmsg_clear();
	ck_assert_int_eq(ksftm_oom(), -ENOMEM);
	ck_assert_str_eq(ksftm_errmsg(), "out of memory");
	ck_assert_int_eq(ksftm_fail(ENOMEM, "out of memory"), -ENOMEM);
	strcpy(want, ksftm_errmsg());
	ksftm_oom();
	ck_assert_str_eq(ksftm_errmsg(), want);
}
END_TEST

Suite *make_suite(void)
{
	struct ck_case tc[] = {
		{ "grow_doubles", test_grow_doubles },
		{ "grow_overflow", test_grow_overflow },
		{ "cmp_double", test_cmp_double },
		{ "sort_doubles", test_sort_doubles },
		{ "median", test_median },
		{ "quantile", test_quantile },
		{ "vocab", test_vocab },
		{ "verdict_vocab", test_verdict_vocab },
		{ "oom", test_oom },
	};

	return ck_suite_of("common_helpers", tc, sizeof(tc) / sizeof(tc[0]));
}
