/*
 * A --baseline comparison's compact rows (issue 45, model/comparison.c):
 * rows of every kind read back exactly as the same comparison kept whole
 * (compare_rows_compact_off) gives them, field by field and in every
 * format, twice; the rows that do not fit stay whole; and a run of
 * untracked series costs at most 32 bytes a row (it was 120).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "comparison.h"
#include "report_util.h"

/* Untracked scalars (one a zero baseline, one negative), a tracked one
 * (its allowance: kept whole), samples a side (a p-value), a display, an
 * array, a failed case, a series new and one missing. */
#define HIGHER "# ktap-metric-policy-json: {\"name\":\"m\",\"regression\":{\"better\":\"higher\"," \
	"\"compare\":\"p50\",\"relative_tolerance\":0.05},\"summarize\":\"distribution\"}\n"
#define PVAL "# ktap-metric-policy-json: {\"name\":\"p\",\"regression\":{\"better\":\"lower\"," \
	"\"compare\":\"p50\",\"relative_tolerance\":0.01},\"summarize\":\"distribution\"}\n"
#define DISP "# ktap-metric-policy-json: {\"display_label\":\"Gbps\",\"display_scale\":0.001," \
	"\"name\":\"d\",\"summarize\":\"max\"}\n"
#define V(n, t, v) "# ktap-metric-json: {\"name\":\"" n "\",\"shape\":\"scalar\",\"time\":" #t \
	",\"value\":" #v "}\n"
#define A(t, a, b) "# ktap-metric-json: {\"name\":\"arr\",\"shape\":\"per-cpu\",\"time\":" #t \
	",\"value\":[" #a "," #b "]}\n"

static const char base_log[] =
	"TAP version 13\n1..6\n"
	V("u", 1, 4) V("z", 1, 0) V("neg", 1, -5) "ok 1 a\n"
	HIGHER V("m", 1, 100) "ok 2 b\n"
	PVAL V("p", 1, 10) V("p", 2, 11) V("p", 3, 12) V("p", 4, 10.5) "ok 3 c\n"
	DISP V("d", 1, 2000) V("gone", 1, 7) "ok 4 d\n"
	A(1, 1, 2) A(2, 3, 4) "ok 5 e\n"
	HIGHER V("m", 1, 50) "ok 6 f\n";

static const char cur_log[] =
	"TAP version 13\n1..6\n"
	V("u", 1, 5) V("z", 1, 3) V("neg", 1, -10) V("n", 1, 1) "ok 1 a\n"
	HIGHER V("m", 1, 94) "ok 2 b\n"
	PVAL V("p", 1, 14) V("p", 2, 15) V("p", 3, 13) V("p", 4, 16) "ok 3 c\n"
	DISP V("d", 1, 2500) "ok 4 d\n"
	A(1, 1, 5) A(2, 3, 8) "ok 5 e\n"
	HIGHER V("m", 1, 50) "not ok 6 f\n";

static struct ksft_metric_report_baseline *baseline_of(const char *log)
{
	struct ksft_metric_report_baseline *b = ksft_metric_report_baseline_new();
	struct ksft_metric_report *r = ru_read("base.log", log);
	const char *src = "base.log";

	ck_assert_ptr_nonnull(b);
	ck_assert_int_gt(ksft_metric_report_baseline_add_report(b, r, &src, 1), 0);
	ksft_metric_report_free(r);
	return b;
}

/* The comparison of @r against @b, its rows compact (the judge's way) or
 * every one kept whole (@whole). */
static struct ksft_metric_report_comparison *
judged(const struct ksft_metric_report *r, const struct ksft_metric_report_baseline *b,
       const struct ksft_metric_report_compare_opts *o, int whole)
{
	struct ksft_metric_report_comparison *c = NULL;

	compare_rows_compact_off = whole;
	ck_assert_int_ge(ksft_metric_report_compare(r, b, o, &c), 0);
	compare_rows_compact_off = 0;
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(c->crows != NULL, !whole);
	return c;
}

/* Bit for bit (NaN as NaN). */
#define SAME_BITS(a, b) do {							\
	double sb_a_ = (a), sb_b_ = (b);					\
	ck_assert_msg(!memcmp(&sb_a_, &sb_b_, sizeof(sb_a_)), "%s differs", #a);	\
} while (0)

static void same_text(const struct ksft_metric_report_comparison *x,
		      const struct ksft_metric_report_comparison *y, int fmt)
{
	char *tx, *ty;
	size_t lx, ly;

	ck_assert_int_eq(ksft_metric_report_comparison_format(x, fmt, &tx, &lx), 0);
	ck_assert_int_eq(ksft_metric_report_comparison_format(y, fmt, &ty, &ly), 0);
	ck_assert_uint_eq(lx, ly);
	ck_assert_str_eq(tx, ty);
	free(tx);
	free(ty);
}

/* Every row of @x as @y has it, each field and both spreads and side
 * records; the same text in each format. */
static void same_rows(const struct ksft_metric_report_comparison *x,
		      const struct ksft_metric_report_comparison *y)
{
	size_t i, k;

	ck_assert_uint_eq(x->n, y->n);
	ck_assert_uint_eq(x->failing, y->failing);
	ck_assert_uint_eq(x->failed_cases, y->failed_cases);
	for (i = 0; i < x->n; i++) {
		struct cmp_row tx, ty;
		const struct cmp_row *a = cmp_row_at(x, i, &tx), *b = cmp_row_at(y, i, &ty);
		struct ksft_metric_report_row pa = { .sz = sizeof(pa) }, pb = { .sz = sizeof(pb) };
		struct cmp_spread sa, sb;
		int side;

		ck_assert_uint_eq(cmp_row_path_len(a), cmp_row_path_len(b));
		for (k = 0; k < cmp_row_path_len(a); k++)
			ck_assert_str_eq(cmp_row_path(a)[k], cmp_row_path(b)[k]);
		ck_assert_str_eq(cmp_row_case(a), cmp_row_case(b));
		ck_assert_str_eq(cmp_row_name(a), cmp_row_name(b));
		ck_assert_str_eq(cmp_row_labels(a), cmp_row_labels(b));
		ck_assert_int_eq(a->held_series, b->held_series);
		SAME_BITS(a->baseline, b->baseline);
		SAME_BITS(a->current, b->current);
		SAME_BITS(a->change_pct, b->change_pct);
		SAME_BITS(a->allowance, b->allowance);
		SAME_BITS(a->p_value, b->p_value);
		ck_assert_ptr_eq(a->verdict, b->verdict);
		SAME_BITS(cmp_row_disp_scale(a), cmp_row_disp_scale(b));
		ck_assert_pstr_eq(cmp_row_disp_label(a), cmp_row_disp_label(b));
		ck_assert(!memcmp(cmp_side_of(a), cmp_side_of(b), sizeof(struct cmp_side)));
		ck_assert(cmp_side_of(a) == cmp_row_side_at(x, i));
		for (side = CMP_BASE; side <= CMP_CUR; side++) {
			ck_assert_int_eq(a->spread_kind[side], b->spread_kind[side]);
			compare_row_spread(a, side, &sa);
			compare_row_spread(b, side, &sb);
			ck_assert(!memcmp(&sa, &sb, sizeof(sa)));
		}
		ck_assert_uint_eq(a->n_baseline, b->n_baseline);
		ck_assert_uint_eq(a->n_current, b->n_current);
		ck_assert_uint_eq(a->baseline_runs, b->baseline_runs);
		ck_assert_int_eq(a->element, b->element);
		ck_assert_int_eq(a->series, b->series);
		ck_assert_int_eq(a->compare, b->compare);
		ck_assert_int_eq(a->better, b->better);
		ck_assert_int_eq(a->fails, b->fails);
		ck_assert_int_eq(a->beyond_floor, b->beyond_floor);
		ck_assert_int_eq(a->has_current, b->has_current);
		ck_assert_int_eq(a->aggregated, b->aggregated);
		ck_assert_int_eq(a->blind, b->blind);
		/* and through the public call */
		ck_assert_int_eq(ksft_metric_report_comparison_row(x, i, &pa), 0);
		ck_assert_int_eq(ksft_metric_report_comparison_row(y, i, &pb), 0);
		ck_assert_str_eq(pa.verdict, pb.verdict);
		ck_assert_pstr_eq(pa.compare, pb.compare);
		ck_assert_pstr_eq(pa.better, pb.better);
		SAME_BITS(pa.change_pct, pb.change_pct);
		ck_assert_int_eq(pa.fails, pb.fails);
	}
	same_text(x, y, KSFT_METRIC_REPORT_TEXT);
	same_text(x, y, KSFT_METRIC_REPORT_JSON);
	same_text(x, y, KSFT_METRIC_REPORT_CSV);
}

/* Row @i of @c by case and metric name (element @e); fails if absent. */
static size_t row_of(const struct ksft_metric_report_comparison *c, const char *cas,
		     const char *name, int e)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		struct cmp_row t;
		const struct cmp_row *row = cmp_row_at(c, i, &t);

		if (!strcmp(cmp_row_case(row), cas) && !strcmp(cmp_row_name(row), name) &&
		    row->element == e)
			return i;
	}
	ck_abort_msg("no row %s %s[%d]", cas, name, e);
	return 0;
}

/* Is row @i kept compactly? */
static int compact(const struct ksft_metric_report_comparison *c, size_t i)
{
	return !(c->crows[i].flags & CROW_FULL);
}

START_TEST(test_rows_as_kept_whole)
{
	struct ksft_metric_report_compare_opts o = KSFT_METRIC_REPORT_COMPARE_OPTS_INIT;
	struct ksft_metric_report_baseline *b = baseline_of(base_log);
	struct ksft_metric_report *r = ru_read("cur.log", cur_log);
	struct ksft_metric_report_comparison *whole, *c, *again;
	struct cmp_row t;

	whole = judged(r, b, &o, 1);
	c = judged(r, b, &o, 0);
	again = judged(r, b, &o, 0);	/* the same verdicts twice */
	same_rows(c, whole);
	same_rows(again, whole);
	ck_assert_uint_eq(c->failing, 3);	/* m and p regressed; case f failed */
	ck_assert_uint_eq(c->failed_cases, 1);
	/* What fits is compact: untracked (a zero and a negative baseline
	 * too), new, a display, a failed case. */
	ck_assert(compact(c, row_of(c, "a", "u", -1)));
	ck_assert(compact(c, row_of(c, "a", "z", -1)));
	ck_assert(isnan(cmp_row_at(c, row_of(c, "a", "z", -1), &t)->change_pct));
	ck_assert(compact(c, row_of(c, "a", "neg", -1)));
	ck_assert_double_eq(cmp_row_at(c, row_of(c, "a", "neg", -1), &t)->change_pct, -100);
	ck_assert(compact(c, row_of(c, "a", "n", -1)));
	ck_assert_str_eq(cmp_row_at(c, row_of(c, "a", "n", -1), &t)->verdict, "new");
	ck_assert(compact(c, row_of(c, "d", "d", -1)));
	ck_assert_str_eq(cmp_row_disp_label(cmp_row_at(c, row_of(c, "d", "d", -1), &t)), "Gbps");
	ck_assert(compact(c, row_of(c, "f", "m", -1)));
	ck_assert_str_eq(cmp_row_at(c, row_of(c, "f", "m", -1), &t)->verdict, "case_failed");
	/* The rest is kept whole: an allowance, a p-value, elements, missing. */
	ck_assert(!compact(c, row_of(c, "b", "m", -1)));
	ck_assert(!compact(c, row_of(c, "c", "p", -1)));
	ck_assert(!isnan(cmp_row_at(c, row_of(c, "c", "p", -1), &t)->p_value));
	ck_assert(!compact(c, row_of(c, "e", "arr", 1)));
	ck_assert(!compact(c, row_of(c, "d", "gone", -1)));
	ck_assert_str_eq(cmp_row_at(c, row_of(c, "d", "gone", -1), &t)->verdict, "missing");
	ck_assert_ptr_null(cmp_row_mut(c, row_of(c, "a", "u", -1)));
	ck_assert_ptr_nonnull(cmp_row_mut(c, row_of(c, "b", "m", -1)));
	ksft_metric_report_comparison_free(again);
	ksft_metric_report_comparison_free(c);
	ksft_metric_report_comparison_free(whole);
	ksft_metric_report_baseline_free(b);
	ksft_metric_report_free(r);
}
END_TEST

/* One boot's log whose context names seed @seed, rtt at @level. */
static char *boot(int seed, double level)
{
	char *s = NULL;

	ck_assert_int_ge(asprintf(&s, "KTAP version 1\n1..1\n"
		"# ktap-metric-context-json: {\"clock\":\"icount\",\"seed\":\"%d\"}\n"
		"# ktap-metric-policy-json: {\"name\":\"rtt\",\"regression\":{\"better\":\"lower\","
		"\"compare\":\"p50\",\"relative_tolerance\":0.05},\"summarize\":\"distribution\"}\n"
		"# ktap-metric-json: {\"name\":\"rtt\",\"shape\":\"scalar\",\"time\":1,\"value\":%g}\n"
		"# ktap-metric-json: {\"name\":\"rtt\",\"shape\":\"scalar\",\"time\":2,\"value\":%g}\n"
		"# ktap-metric-json: {\"name\":\"x\",\"shape\":\"scalar\",\"time\":1,\"value\":%d}\n"
		"ok 1 case\n", seed, level, level + 0.01, seed), 0);
	return s;
}

/* Judged seed by seed: those rows' side records are kept (whole rows). */
START_TEST(test_seed_rows_as_kept_whole)
{
	struct ksft_metric_report_compare_opts o = KSFT_METRIC_REPORT_COMPARE_OPTS_INIT;
	struct ksft_metric_report_baseline *b = ksft_metric_report_baseline_new();
	struct ksft_metric_report_baseline *seeds = ksft_metric_report_baseline_new();
	struct ksft_metric_report_comparison *whole, *c;
	struct ksft_metric_report *r = NULL;
	const char *src = "boot.log";
	size_t i, judged_by_seed = 0;
	int s;

	for (s = 1; s <= 5; s++) {
		char *ta = boot(s, 100 + s), *tb = boot(s, 120 + s);
		struct ksft_metric_report *ra = ru_read("a.log", ta), *rb = ru_read("b.log", tb);

		ck_assert_int_gt(ksft_metric_report_baseline_add_report(b, ra, &src, 1), 0);
		ck_assert_int_gt(ksft_metric_report_baseline_add_report(seeds, rb, &src, 1), 0);
		ksft_metric_report_free(ra);
		if (s == 1)
			r = rb;
		else
			ksft_metric_report_free(rb);
		free(ta);
		free(tb);
	}
	o.seeds = seeds;
	whole = judged(r, b, &o, 1);
	c = judged(r, b, &o, 0);
	same_rows(c, whole);
	for (i = 0; i < c->n; i++)
		if (cmp_row_side_at(c, i)->seeds_a) {
			judged_by_seed++;
			ck_assert(!compact(c, i));
		}
	ck_assert_uint_ge(judged_by_seed, 1);
	ksft_metric_report_comparison_free(c);
	ksft_metric_report_comparison_free(whole);
	ksft_metric_report_baseline_free(seeds);
	ksft_metric_report_baseline_free(b);
	ksft_metric_report_free(r);
}
END_TEST

/*
 * bench_cli.py's gen_cases() shape (the 200,000-case log: 400,000
 * untracked series) at 2,000 cases: every row compact, at most 32 bytes
 * a row in all (a row was 120). LP64 only.
 */
START_TEST(test_untracked_rows_footprint)
{
	struct ksft_metric_report_compare_opts o = KSFT_METRIC_REPORT_COMPARE_OPTS_INIT;
	struct ksft_metric_report_baseline *b;
	struct ksft_metric_report_comparison *c, *whole;
	struct ksft_metric_report *r;
	size_t n = 2000, i, len = 0, cap = n * 256;
	char *log = malloc(cap);

	ck_assert_ptr_nonnull(log);
	len += (size_t)snprintf(log + len, cap - len, "TAP version 13\n1..1\n# selftests: net: "
				"bench.py\n# TAP version 13\n# 1..%zu\n", n);
	for (i = 1; i <= n; i++)
		len += (size_t)snprintf(log + len, cap - len,
			"# # ktap-metric-json: {\"host\":\"local\",\"name\":\"throughput\","
			"\"shape\":\"scalar\",\"time\":%zu,\"value\":%zu.25}\n"
			"# # ktap-metric-json: {\"name\":\"lat.%zu\",\"shape\":\"scalar\","
			"\"time\":%zu,\"value\":0.%zu}\n# ok %zu bench.case_%zu\n",
			i, i * 7 % 100, i % 100, i, i, i, i);
	snprintf(log + len, cap - len, "ok 1 selftests: net: bench.py\n");
	b = baseline_of(log);
	r = ru_read("cases.log", log);
	c = judged(r, b, &o, 0);
	whole = judged(r, b, &o, 1);
	same_rows(c, whole);
	ck_assert_uint_eq(c->n, 2 * n);
	ck_assert_uint_eq(c->n_full, 0);
	if (sizeof(void *) == 8 && sizeof(double) == 8) {
		ck_assert_uint_le(sizeof(struct cmp_crow), 24);
		ck_assert_uint_le(c->ccap * sizeof(struct cmp_crow) +
				  c->cap * sizeof(struct cmp_row), 32 * c->n);
	}
	ksft_metric_report_comparison_free(whole);
	ksft_metric_report_comparison_free(c);
	ksft_metric_report_baseline_free(b);
	ksft_metric_report_free(r);
	free(log);
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("comparison_rows");
	TCase *tc;

	tc = tcase_create("compact");
	tcase_add_test(tc, test_rows_as_kept_whole);
	tcase_add_test(tc, test_seed_rows_as_kept_whole);
	tcase_add_test(tc, test_untracked_rows_footprint);
	suite_add_tcase(s, tc);
	return s;
}
