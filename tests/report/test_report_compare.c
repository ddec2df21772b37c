/*
 * Baselines and the regression gate with hand-computed numbers: allowance
 * = max(relative * |baseline|, absolute), better higher/lower, the median
 * over several runs, new/missing series, --tolerance for series without a
 * regression policy, Mann-Whitney p-values and --alpha; baseline files
 * round-trip and malformed ones are refused whole.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "report_util.h"

#define POL(reg) "# ktap-metric-policy-json: {\"name\":\"m\",\"regression\":" reg ",\"summarize\":\"distribution\"}\n"
#define M(t, v) "# ktap-metric-json: {\"name\":\"m\",\"shape\":\"scalar\",\"time\":" #t ",\"value\":" #v "}\n"
#define HIGHER_5 "{\"better\":\"higher\",\"compare\":\"p50\",\"relative_tolerance\":0.05}"

/* A baseline of one run per log in @logs (NULL-terminated). */
static struct ksft_metric_report_baseline *baseline_of(const char *const *logs)
{
	struct ksft_metric_report_baseline *b = ksft_metric_report_baseline_new();

	ck_assert_ptr_nonnull(b);
	for (; *logs; logs++) {
		struct ksft_metric_report *r = ru_read("base.log", *logs);
		const char *src = "base.log";

		ck_assert_int_gt(ksft_metric_report_baseline_add_report(b, r, &src, 1), 0);
		ksft_metric_report_free(r);
	}
	return b;
}

struct outcome {
	int failing;
	struct ksft_metric_report_row row;	/* the first row */
	size_t rows;
};

static struct outcome compare(const char *const *base_logs, const char *cur_log,
			      double tolerance, double alpha)
{
	struct ksft_metric_report_compare_opts o = KSFT_METRIC_REPORT_COMPARE_OPTS_INIT;
	struct ksft_metric_report_baseline *b = baseline_of(base_logs);
	struct ksft_metric_report *r = ru_read("cur.log", cur_log);
	struct ksft_metric_report_comparison *c;
	struct outcome out;
	static char verdict[32];

	o.tolerance_pct = tolerance;
	o.alpha = alpha;
	out.failing = ksft_metric_report_compare(r, b, &o, &c);
	ck_assert_int_ge(out.failing, 0);
	out.rows = ksft_metric_report_comparison_rows(c);
	memset(&out.row, 0, sizeof(out.row));
	out.row.sz = sizeof(out.row);
	ck_assert_int_eq(ksft_metric_report_comparison_row(c, 0, &out.row), 0);
	snprintf(verdict, sizeof(verdict), "%s", out.row.verdict);
	out.row.verdict = verdict;
	/* Strings die with the comparison; keep only what the tests read. */
	out.row.case_name = out.row.name = out.row.labels_json = NULL;
	out.row.path = NULL;
	out.row.compare = out.row.better = NULL;
	ksft_metric_report_comparison_free(c);
	ksft_metric_report_baseline_free(b);
	ksft_metric_report_free(r);
	return out;
}

/* Baseline runs 100, 110, 90 -> median 100; allowance 5% of 100 = 5. */
static const char *const three_runs[] = {
	POL(HIGHER_5) M(1, 100) "ok 1 t\n",
	POL(HIGHER_5) M(1, 110) "ok 1 t\n",
	POL(HIGHER_5) M(1, 90) "ok 1 t\n",
	NULL,
};

START_TEST(test_allowance_higher)
{
	struct outcome o;

	o = compare(three_runs, POL(HIGHER_5) M(1, 94) "ok 1 t\n", -1, 0);
	ck_assert_str_eq(o.row.verdict, "regression");	/* 94 < 100 - 5 */
	ck_assert_int_eq(o.failing, 1);
	ru_assert_num(o.row.baseline, 100);
	ru_assert_num(o.row.current, 94);
	ru_assert_num(o.row.allowance, 5);
	ru_assert_close(o.row.change_pct, -6, 1e-12);
	ck_assert_uint_eq(o.row.baseline_runs, 3);
	ck_assert_uint_eq(o.row.n_baseline, 3);
	ck_assert_uint_eq(o.row.n_current, 1);
	ck_assert(isnan(o.row.p_value));	/* one current sample */
	o = compare(three_runs, POL(HIGHER_5) M(1, 95) "ok 1 t\n", -1, 0);
	ck_assert_str_eq(o.row.verdict, "no_change");		/* exactly at the edge */
	ck_assert_int_eq(o.failing, 0);
	o = compare(three_runs, POL(HIGHER_5) M(1, 105.5) "ok 1 t\n", -1, 0);
	ck_assert_str_eq(o.row.verdict, "improvement");
	ck_assert_int_eq(o.failing, 0);
}
END_TEST

#define ABS_POL POL("{\"better\":\"higher\",\"compare\":\"p50\",\"relative_tolerance\":0.05,\"absolute_tolerance\":10}")
#define LOWER_POL POL("{\"better\":\"lower\",\"compare\":\"max\",\"relative_tolerance\":0.05}")

START_TEST(test_allowance_absolute_and_lower)
{
	static const char *const abs_runs[] = { ABS_POL M(1, 100) "ok 1 t\n", NULL };
	static const char *const lower_runs[] = {
		LOWER_POL M(1, 80) M(2, 100) "ok 1 t\n", NULL,
	};
	struct outcome o;

	/* max(5% of 100, 10) = 10: 94 is within, 89 is not. */
	o = compare(abs_runs, ABS_POL M(1, 94) "ok 1 t\n", -1, 0);
	ru_assert_num(o.row.allowance, 10);
	ck_assert_str_eq(o.row.verdict, "no_change");
	o = compare(abs_runs, ABS_POL M(1, 89) "ok 1 t\n", -1, 0);
	ck_assert_str_eq(o.row.verdict, "regression");
	/* The current run's policy decides: without one, nothing is gated. */
	o = compare(abs_runs, M(1, 89) "ok 1 t\n", -1, 0);
	ck_assert_str_eq(o.row.verdict, "untracked");
	ck_assert_int_eq(o.failing, 0);
	/* Lower is better, compare max: baseline max 100, allowance 5. */
	o = compare(lower_runs, LOWER_POL M(1, 1) M(2, 106) "ok 1 t\n", -1, 0);
	ck_assert_str_eq(o.row.verdict, "regression");
	ru_assert_num(o.row.current, 106);
	ru_assert_num(o.row.baseline, 100);
	o = compare(lower_runs, LOWER_POL M(1, 94) "ok 1 t\n", -1, 0);
	ck_assert_str_eq(o.row.verdict, "improvement");
}
END_TEST

/* Even number of runs: the median is the mean of the middle two. */
START_TEST(test_median_of_runs)
{
	static const char *const runs[] = {
		POL(HIGHER_5) M(1, 100) "ok 1 t\n",
		POL(HIGHER_5) M(1, 110) "ok 1 t\n", NULL,
	};
	struct outcome o = compare(runs, POL(HIGHER_5) M(1, 100) "ok 1 t\n", -1, 0);

	ru_assert_num(o.row.baseline, 105);
	ru_assert_num(o.row.allowance, 5.25);
	ck_assert_str_eq(o.row.verdict, "no_change");		/* 100 >= 99.75 */
	/* Two runs and two current samples: a p-value. Baseline pool {100,110}. */
	o = compare(runs, POL(HIGHER_5) M(1, 50) M(2, 60) "ok 1 t\n", -1, 0);
	ck_assert_str_eq(o.row.verdict, "regression");
	ru_assert_num(o.row.current, 55);
	/* Exact: U = 0 of C(4,2) = 6 orderings -> 2/6. */
	ru_assert_close(o.row.p_value, 1.0 / 3, 1e-12);
}
END_TEST

/* The compare value comes from the series, not from summarize. */
START_TEST(test_compare_independent_of_summarize)
{
	static const char *const runs[] = {
		"# ktap-metric-policy-json: {\"name\":\"m\",\"regression\":{\"better\":\"higher\",\"compare\":\"p90\",\"absolute_tolerance\":0.001},\"summarize\":\"last\"}\n"
		M(1, 1) M(2, 2) M(3, 3) M(4, 4) M(5, 5) "ok 1 t\n", NULL,
	};
	/* p90 of 1..5: h = 3.6 -> 4.6 */
	struct outcome o = compare(runs, "# ktap-metric-policy-json: {\"name\":\"m\",\"regression\":{\"better\":\"higher\",\"compare\":\"p90\",\"absolute_tolerance\":0.001},\"summarize\":\"last\"}\n"
				   M(1, 4.6) "ok 1 t\n", -1, 0);

	ru_assert_close(o.row.baseline, 4.6, 1e-15);
	ru_assert_num(o.row.current, 4.6);
	ck_assert_str_eq(o.row.verdict, "no_change");
}
END_TEST

/*
 * Several samples on both sides: p-value; --alpha needs it below A where
 * the rank test can reach A at all. Where no ordering of the samples can
 * (2 or 3 a side: the smallest two-sided p is 1/3 or 0.1), the tolerance
 * decides as with one sample (issue 40 item 11: 100,100 -> 50,50 was TOO
 * NOISY, exit 0, while 100 -> 50 was a REGRESSION). Each verdict twice.
 */
START_TEST(test_alpha)
{
	static const char *const runs[] = {
		POL(HIGHER_5) M(1, 4) M(2, 5) M(3, 6) "ok 1 t\n", NULL,
	};
	static const char *const runs4[] = {
		POL(HIGHER_5) M(1, 4) M(2, 5) M(3, 6) M(4, 7) "ok 1 t\n", NULL,
	};
	static const char *const two[] = {
		POL(HIGHER_5) M(1, 100) M(2, 100) "ok 1 t\n", NULL,
	};
	static const char cur[] = POL(HIGHER_5) M(1, 1) M(2, 2) M(3, 3) "ok 1 t\n";
	static const char cur4[] = POL(HIGHER_5) M(1, 1) M(2, 2) M(3, 3) M(4, 3.5) "ok 1 t\n";
	static const char mixed4[] = POL(HIGHER_5) M(1, 1) M(2, 2) M(3, 3) M(4, 6.5) "ok 1 t\n";
	static const char half[] = POL(HIGHER_5) M(1, 50) M(2, 50) "ok 1 t\n";
	struct outcome o;
	int twice;

	for (twice = 0; twice < 2; twice++) {
		o = compare(runs, cur, -1, 0);
		ck_assert_str_eq(o.row.verdict, "regression");		/* 2 < 5 - 0.25 */
		ru_assert_close(o.row.p_value, 0.1, 1e-12);		/* exact, 2/20 */
		ck_assert_uint_eq(o.row.n_baseline, 3);
		ck_assert_uint_eq(o.row.n_current, 3);
		/* p = 0.1 is the best 3 against 3 can do: the tolerance decides. */
		o = compare(runs, cur, -1, 0.05);
		ck_assert_str_eq(o.row.verdict, "regression");
		ck_assert_int_eq(o.failing, 1);
		o = compare(runs, cur, -1, 0.2);
		ck_assert_str_eq(o.row.verdict, "regression");
		ck_assert_int_eq(o.failing, 1);
		/* 2 a side, tied: 100,100 -> 50,50 fails as 100 -> 50 does. */
		o = compare(two, half, -1, 0.05);
		ck_assert_str_eq(o.row.verdict, "regression");
		ck_assert_int_eq(o.failing, 1);
		ru_assert_close(o.row.p_value, 1.0 / 3, 1e-12);	/* exact with ties */
		/* 4 a side can reach 0.05 (2/70): the test decides. */
		o = compare(runs4, cur4, -1, 0.05);
		ck_assert_str_eq(o.row.verdict, "regression");
		ru_assert_close(o.row.p_value, 2.0 / 70, 1e-12);
		o = compare(runs4, mixed4, -1, 0.05);
		ck_assert_str_eq(o.row.verdict, "too_noisy");	/* 14/70 >= 0.05 */
		ru_assert_close(o.row.p_value, 14.0 / 70, 1e-12);
		ck_assert_int_eq(o.failing, 0);
	}
}
END_TEST

/* --tolerance gates series without a regression policy: a drop > PCT %. */
START_TEST(test_tolerance)
{
	static const char *const runs[] = {
		"# ktap-metric-policy-json: {\"name\":\"m\",\"summarize\":\"p90\"}\n"
		M(1, 100) "ok 1 t\n", NULL,
	};
	static const char cur[] =
		"# ktap-metric-policy-json: {\"name\":\"m\",\"summarize\":\"p90\"}\n"
		M(1, 89) "ok 1 t\n";
	struct outcome o;

	o = compare(runs, cur, -1, 0);
	ck_assert_str_eq(o.row.verdict, "untracked");
	ck_assert(isnan(o.row.allowance));
	ru_assert_close(o.row.change_pct, -11, 1e-12);
	o = compare(runs, cur, 10, 0);
	ck_assert_str_eq(o.row.verdict, "regression");	/* 89 < 100 - 10 */
	ru_assert_num(o.row.allowance, 10);
	o = compare(runs, cur, 12, 0);
	ck_assert_str_eq(o.row.verdict, "no_change");
}
END_TEST

/* zperf series are "higher is better"; 5% by default as zperf_regression.py. */
START_TEST(test_zperf_gate)
{
	static const char *const runs[] = { "ZPERF-RESULT udp4_mbps=13.099\n", NULL };
	struct outcome o;

	o = compare(runs, "ZPERF-RESULT udp4_mbps=12.5\n", -1, 0);
	ck_assert_str_eq(o.row.verdict, "no_change");		/* -4.6% */
	o = compare(runs, "ZPERF-RESULT udp4_mbps=12.3\n", -1, 0);
	ck_assert_str_eq(o.row.verdict, "regression");	/* -6.1% */
	o = compare(runs, "ZPERF-RESULT udp4_mbps=12.3\n", 7, 0);
	ck_assert_str_eq(o.row.verdict, "no_change");
	o = compare(runs, "ZPERF-RESULT udp4_mbps=12.5\n", 1, 0);
	ck_assert_str_eq(o.row.verdict, "regression");
}
END_TEST

START_TEST(test_new_and_missing)
{
	static const char *const runs[] = {
		POL(HIGHER_5) M(1, 100) "ok 1 gone\n"
		"# ktap-metric-json: {\"name\":\"info\",\"shape\":\"scalar\",\"value\":1}\nok 2 gone\n",
		NULL,
	};
	struct ksft_metric_report_compare_opts o = KSFT_METRIC_REPORT_COMPARE_OPTS_INIT;
	struct ksft_metric_report_baseline *b = baseline_of(runs);
	struct ksft_metric_report *r = ru_read("cur.log", POL(HIGHER_5) M(1, 100) "ok 1 fresh\n");
	struct ksft_metric_report_comparison *c;
	struct ksft_metric_report_row row = { .sz = sizeof(row) };
	char *text;
	size_t len;

	ck_assert_int_eq(ksft_metric_report_compare(r, b, &o, &c), 1);
	ck_assert_uint_eq(ksft_metric_report_comparison_rows(c), 3);
	ck_assert_int_eq(ksft_metric_report_comparison_row(c, 0, &row), 0);
	ck_assert_str_eq(row.case_name, "fresh");
	ck_assert_str_eq(row.verdict, "new");
	ck_assert_int_eq(row.fails, 0);
	ck_assert_int_eq(ksft_metric_report_comparison_row(c, 1, &row), 0);
	ck_assert_str_eq(row.case_name, "gone");
	ck_assert_str_eq(row.verdict, "missing");
	ck_assert_int_eq(row.fails, 1);			/* it was gated */
	ru_assert_num(row.baseline, 100);
	ck_assert_int_eq(ksft_metric_report_comparison_row(c, 2, &row), 0);
	ck_assert_str_eq(row.name, "info");
	ck_assert_int_eq(row.fails, 0);			/* not gated */
	ck_assert_int_eq(ksft_metric_report_comparison_row(c, 3, &row), -ERANGE);
	ck_assert_int_eq(ksft_metric_report_comparison_format(c, KSFT_METRIC_REPORT_TEXT,
							      &text, &len), 0);
	ck_assert_msg(strstr(text, "3 rows: 2 missing 1 new\nRESULT: REGRESSION\n"), "%s", text);
	free(text);
	ck_assert_int_eq(ksft_metric_report_comparison_format(c, KSFT_METRIC_REPORT_OPENMETRICS,
							      &text, &len), -EINVAL);
	ksft_metric_report_comparison_free(c);
	o.allow_missing = 1;
	ck_assert_int_eq(ksft_metric_report_compare(r, b, &o, &c), 0);
	ksft_metric_report_comparison_free(c);
	ksft_metric_report_baseline_free(b);
	ksft_metric_report_free(r);
}
END_TEST

/* Arrays that stay arrays are compared element by element. */
START_TEST(test_per_element_rows)
{
	static const char pol[] =
		"# ktap-metric-policy-json: {\"name\":\"a\",\"regression\":{\"better\":\"lower\",\"compare\":\"max\",\"absolute_tolerance\":1},\"summarize\":\"max\"}\n";
	static const char *const runs[] = {
		"# ktap-metric-policy-json: {\"name\":\"a\",\"regression\":{\"better\":\"lower\",\"compare\":\"max\",\"absolute_tolerance\":1},\"summarize\":\"max\"}\n"
		"# ktap-metric-json: {\"name\":\"a\",\"shape\":\"per-cpu\",\"time\":1,\"value\":[1,2]}\nok 1 t\n",
		NULL,
	};
	char cur[1024];
	struct ksft_metric_report_compare_opts o = KSFT_METRIC_REPORT_COMPARE_OPTS_INIT;
	struct ksft_metric_report_baseline *b = baseline_of(runs);
	struct ksft_metric_report *r;
	struct ksft_metric_report_comparison *c;
	struct ksft_metric_report_row row = { .sz = sizeof(row) };

	snprintf(cur, sizeof(cur), "%s%s", pol,
		 "# ktap-metric-json: {\"name\":\"a\",\"shape\":\"per-cpu\",\"time\":1,\"value\":[1.5,4,7]}\nok 1 t\n");
	r = ru_read("cur.log", cur);
	ck_assert_int_eq(ksft_metric_report_compare(r, b, &o, &c), 1);
	ck_assert_uint_eq(ksft_metric_report_comparison_rows(c), 3);
	ksft_metric_report_comparison_row(c, 0, &row);
	ck_assert_int_eq(row.element, 0);
	ck_assert_str_eq(row.verdict, "no_change");		/* 1.5 <= 1 + 1 */
	ksft_metric_report_comparison_row(c, 1, &row);
	ck_assert_str_eq(row.verdict, "regression");	/* 4 > 2 + 1 */
	ksft_metric_report_comparison_row(c, 2, &row);
	ck_assert_str_eq(row.verdict, "not_comparable");	/* no baseline CPU 2 */
	ksft_metric_report_comparison_free(c);
	ksft_metric_report_baseline_free(b);
	ksft_metric_report_free(r);
}
END_TEST

/*
 * A comparison's rows point at its report's names (issue 45: they were
 * copied, 40 bytes and a string a row): the comparison holds the report,
 * so freeing the report and the baseline first is safe, and the text is
 * the same after as before. Two baseline runs of two samples each: the
 * keys several runs hold, and a spread of several values kept apart.
 */
START_TEST(test_comparison_outlives_report)
{
	static const char *const runs[] = {
		POL(HIGHER_5) M(1, 100) M(2, 104) "ok 1 t\n" M(1, 7) "ok 2 gone\n",
		POL(HIGHER_5) M(1, 98) M(2, 102) "ok 1 t\n",
		NULL,
	};
	struct ksft_metric_report_compare_opts o = KSFT_METRIC_REPORT_COMPARE_OPTS_INIT;
	struct ksft_metric_report_baseline *b = baseline_of(runs);
	struct ksft_metric_report *r = ru_read("cur.log", POL(HIGHER_5) M(1, 80) M(2, 84) "ok 1 t\n");
	struct ksft_metric_report *other;
	struct ksft_metric_report_comparison *c;
	struct ksft_metric_report_row row = { .sz = sizeof(row) };
	char *before, *after;
	size_t len;

	ck_assert_int_eq(ksft_metric_report_compare(r, b, &o, &c), 1);
	ck_assert_int_eq(ksft_metric_report_comparison_format(c, KSFT_METRIC_REPORT_TEXT,
							      &before, &len), 0);
	/* The baseline's four samples and the run's two, each shown as a range. */
	ck_assert_msg(strstr(before, "101 (98\xe2\x80\xa6" "104)"), "%s", before);
	ck_assert_msg(strstr(before, "82 (80\xe2\x80\xa6" "84)"), "%s", before);
	ksft_metric_report_free(r);
	ksft_metric_report_baseline_free(b);
	/* Memory the report gave back, were it given back, is written over. */
	other = ru_read("other.log", POL(HIGHER_5) M(1, 1) "ok 1 xxxxxxxxxxxxxxxxxxxx\n");
	ck_assert_int_eq(ksft_metric_report_comparison_format(c, KSFT_METRIC_REPORT_TEXT,
							      &after, &len), 0);
	ck_assert_str_eq(after, before);
	ck_assert_int_eq(ksft_metric_report_comparison_row(c, 0, &row), 0);
	ck_assert_str_eq(row.case_name, "t");
	ck_assert_str_eq(row.name, "m");
	ck_assert_str_eq(row.verdict, "regression");
	ck_assert_int_eq(ksft_metric_report_comparison_row(c, 1, &row), 0);
	ck_assert_str_eq(row.case_name, "gone");
	ck_assert_str_eq(row.verdict, "missing");
	free(before);
	free(after);
	ksft_metric_report_comparison_free(c);	/* and the report with it */
	ksft_metric_report_free(other);
}
END_TEST

/*
 * A run in its baseline's order is matched key after key without a hash
 * (issue 45); out of order, or with a series between, each still finds
 * its own key: nothing NEW, nothing MISSING but the one gone.
 */
START_TEST(test_compare_order_independent)
{
	static const char *const runs[] = {
		POL(HIGHER_5) M(1, 10) "ok 1 a\n" M(1, 20) "ok 2 b\n" M(1, 30) "ok 3 c\n"
		M(1, 40) "ok 4 d\n",
		NULL,
	};
	static const char *const logs[] = {
		POL(HIGHER_5) M(1, 10) "ok 1 a\n" M(1, 20) "ok 2 b\n" M(1, 30) "ok 3 c\n"
		M(1, 40) "ok 4 d\n",
		POL(HIGHER_5) M(1, 30) "ok 1 c\n" M(1, 10) "ok 2 a\n" M(1, 5) "ok 3 x\n"
		M(1, 20) "ok 4 b\n",
	};
	static const char *const want[2][5] = {
		{ "a", "b", "c", "d", NULL },
		{ "c", "a", "x", "b", "d" },
	};
	/* 1: new, 2: missing, 0: judged (not new, not missing) */
	static const int kind[2][5] = { { 0, 0, 0, 0, 0 }, { 0, 0, 1, 0, 2 } };
	struct ksft_metric_report_compare_opts o = KSFT_METRIC_REPORT_COMPARE_OPTS_INIT;
	struct ksft_metric_report_baseline *b = baseline_of(runs);
	size_t l, i;

	for (l = 0; l < 2; l++) {
		struct ksft_metric_report *r = ru_read("cur.log", logs[l]);
		struct ksft_metric_report_comparison *c;
		size_t n = l ? 5 : 4;

		ck_assert_int_ge(ksft_metric_report_compare(r, b, &o, &c), 0);
		ck_assert_uint_eq(ksft_metric_report_comparison_rows(c), n);
		for (i = 0; i < n; i++) {
			struct ksft_metric_report_row row = { .sz = sizeof(row) };

			ck_assert_int_eq(ksft_metric_report_comparison_row(c, i, &row), 0);
			ck_assert_str_eq(row.case_name, want[l][i]);
			ck_assert_int_eq(!strcmp(row.verdict, "new"), kind[l][i] == 1);
			ck_assert_int_eq(!strcmp(row.verdict, "missing"), kind[l][i] == 2);
		}
		ksft_metric_report_comparison_free(c);
		ksft_metric_report_free(r);
	}
	ksft_metric_report_baseline_free(b);
}
END_TEST

/* A log against its own run in step (no index built) gives the rows the
 * index gives: the same run with one series more (judged by the index). */
START_TEST(test_compare_in_step_same_rows)
{
	static const char *const in_step[] = {
		POL(HIGHER_5) M(1, 10) M(2, 11) "ok 1 a\n" M(1, 20) "ok 2 b\n"
		M(1, 30) M(2, 29) M(3, 31) "ok 3 c\n",
		NULL,
	};
	static const char *const more[] = {
		POL(HIGHER_5) M(1, 10) M(2, 11) "ok 1 a\n" M(1, 20) "ok 2 b\n"
		M(1, 30) M(2, 29) M(3, 31) "ok 3 c\n" M(1, 40) "ok 4 d\n",
		NULL,
	};
	struct ksft_metric_report_compare_opts o = KSFT_METRIC_REPORT_COMPARE_OPTS_INIT;
	struct ksft_metric_report_baseline *b1 = baseline_of(in_step), *b2 = baseline_of(more);
	struct ksft_metric_report *r = ru_read("cur.log", POL(HIGHER_5) M(1, 9) M(2, 8) "ok 1 a\n"
					       M(1, 25) "ok 2 b\n" M(1, 30) "ok 3 c\n");
	struct ksft_metric_report_comparison *c1, *c2;
	size_t i, k;

	for (k = 0; k < 2; k++) {	/* a verdict twice: the same */
		ck_assert_int_ge(ksft_metric_report_compare(r, b1, &o, &c1), 0);
		ck_assert_int_ge(ksft_metric_report_compare(r, b2, &o, &c2), 0);
		ck_assert_uint_eq(ksft_metric_report_comparison_rows(c1), 3);
		ck_assert_uint_eq(ksft_metric_report_comparison_rows(c2), 4);
		for (i = 0; i < 3; i++) {
			struct ksft_metric_report_row x = { .sz = sizeof(x) }, y = { .sz = sizeof(y) };

			ck_assert_int_eq(ksft_metric_report_comparison_row(c1, i, &x), 0);
			ck_assert_int_eq(ksft_metric_report_comparison_row(c2, i, &y), 0);
			ck_assert_str_eq(x.case_name, y.case_name);
			ck_assert_str_eq(x.verdict, y.verdict);
			ck_assert_int_eq(x.fails, y.fails);
			ck_assert_uint_eq(x.n_baseline, y.n_baseline);
			ck_assert_uint_eq(x.n_current, y.n_current);
			ck_assert_uint_eq(x.baseline_runs, 1);
			ck_assert_uint_eq(y.baseline_runs, 1);
			ck_assert_double_eq(x.baseline, y.baseline);
			ck_assert_double_eq(x.current, y.current);
			ck_assert(x.p_value == y.p_value || (isnan(x.p_value) && isnan(y.p_value)));
		}
		{
			struct ksft_metric_report_row d = { .sz = sizeof(d) };

			ck_assert_int_eq(ksft_metric_report_comparison_row(c2, 3, &d), 0);
			ck_assert_str_eq(d.case_name, "d");
			ck_assert_str_eq(d.verdict, "missing");
		}
		ksft_metric_report_comparison_free(c1);
		ksft_metric_report_comparison_free(c2);
	}
	ksft_metric_report_free(r);
	ksft_metric_report_baseline_free(b1);
	ksft_metric_report_baseline_free(b2);
}
END_TEST

/* ---- baseline files --------------------------------------------------- */

static char *baseline_text(const struct ksft_metric_report_baseline *b)
{
	char *text;
	size_t len;

	ck_assert_int_eq(ksft_metric_report_baseline_format(b, &text, &len), 0);
	ck_assert_uint_eq(strlen(text), len);
	return text;
}

START_TEST(test_baseline_round_trip)
{
	static const char *const runs[] = {
		"# # ktap-metric-policy-json: {\"name\":\"a\",\"transform\":\"rate\",\"summarize\":\"p90\"}\n"
		"# # ktap-metric-json: {\"host\":\"local\",\"name\":\"a\",\"shape\":\"per-cpu\",\"time\":0,\"value\":[0,null]}\n"
		"# # ktap-metric-json: {\"host\":\"local\",\"name\":\"a\",\"shape\":\"per-cpu\",\"time\":2,\"value\":[1,3]}\n"
		"# ok 1 inner\nok 1 outer \"quoted\" \\ name\n",
		M(1, 0.1) "ok 1 t\n",
		NULL,
	};
	struct ksft_metric_report_baseline *b = baseline_of(runs), *b2;
	char *text = baseline_text(b), *text2;

	ck_assert_msg(strstr(text, "{\"format\":\"ksft-metric-baseline\",\"version\":1,\"runs\":[\n"
				   "{\"sources\":[\"base.log\"],\"series\":[\n"
				   " {\"case\":\"inner\",\"path\":[\"outer \\\"quoted\\\" \\\\ name\"],\"name\":\"a\",\"labels\":{\"host\":\"local\"},\"shape\":\"per-cpu\",\"source\":\"ktap\",\"policy\":{\"summarize\":\"p90\",\"transform\":\"rate\"},\"samples\":[[0.5,null]]}]},\n"
				   "{\"sources\":[\"base.log\"],\"series\":[\n"
				   " {\"case\":\"t\",\"path\":[],\"name\":\"m\",\"labels\":{},\"shape\":\"scalar\",\"source\":\"ktap\",\"policy\":null,\"samples\":[0.1]}]}]}\n"),
		      "%s", text);
	b2 = ksft_metric_report_baseline_new();
	ck_assert_int_eq(ksft_metric_report_baseline_load(b2, text, strlen(text), "b.json"), 2);
	text2 = baseline_text(b2);
	ck_assert_str_eq(text, text2);
	/* Loading adds runs. */
	ck_assert_int_eq(ksft_metric_report_baseline_load(b2, text, strlen(text), "b.json"), 4);
	free(text);
	free(text2);
	ksft_metric_report_baseline_free(b);
	ksft_metric_report_baseline_free(b2);
}
END_TEST

START_TEST(test_baseline_flat_zperf)
{
	static const char flat[] = "{\n    \"tcp4_mbps\": 5.97,\n    \"udp4_mbps\": 13.099\n}\n";
	struct ksft_metric_report_compare_opts o = KSFT_METRIC_REPORT_COMPARE_OPTS_INIT;
	struct ksft_metric_report_baseline *b = ksft_metric_report_baseline_new();
	struct ksft_metric_report *r = ru_read("console.log",
		"ZPERF-RESULT udp4_mbps=10.0\nZPERF-RESULT tcp4_mbps=5.97\n");
	struct ksft_metric_report_comparison *c;
	struct ksft_metric_report_row row = { .sz = sizeof(row) };

	ck_assert_int_eq(ksft_metric_report_baseline_load(b, flat, strlen(flat), "zperf.json"), 1);
	o.tolerance_pct = 5;
	ck_assert_int_eq(ksft_metric_report_compare(r, b, &o, &c), 1);
	ksft_metric_report_comparison_row(c, 0, &row);
	ck_assert_str_eq(row.name, "udp4_mbps");
	ck_assert_str_eq(row.verdict, "regression");
	ksft_metric_report_comparison_row(c, 1, &row);
	ck_assert_str_eq(row.verdict, "no_change");
	ksft_metric_report_comparison_free(c);
	ksft_metric_report_baseline_free(b);
	ksft_metric_report_free(r);
}
END_TEST

START_TEST(test_baseline_malformed)
{
	static const struct { const char *text, *msg; } cases[] = {
		{ "{\"format\":\"ksft-metric-baseline\",\"version\":1,\"runs\":[", "b.json:1: malformed JSON" },
		{ "[1]", "not a JSON object" },
		{ "{\"format\":\"other\",\"version\":1,\"runs\":[]}", "\"format\" is not" },
		{ "{\"format\":\"ksft-metric-baseline\",\"version\":2,\"runs\":[]}", "version" },
		{ "{\"format\":\"ksft-metric-baseline\",\"version\":1}", "no \"runs\" array" },
		{ "{\"format\":\"ksft-metric-baseline\",\"version\":1,\"runs\":[{\"series\":[{\"case\":\"t\"}]}]}",
		  "runs[0].series[0]: needs case" },
		{ "{\"format\":\"ksft-metric-baseline\",\"version\":1,\"runs\":[{\"series\":[{\"case\":\"t\",\"path\":[],\"name\":\"m\",\"labels\":{},\"samples\":[1,[2]]}]}]}",
		  "samples must be" },
		{ "{\"format\":\"ksft-metric-baseline\",\"version\":1,\"runs\":[{\"series\":[{\"case\":\"t\",\"path\":[],\"name\":\"m\",\"labels\":{},\"policy\":{\"summarize\":\"p95\"},\"samples\":[1]}]}]}",
		  "bad policy" },
		{ "{\"udp4_mbps\": \"fast\"}", "flat baseline" },
	};
	struct ksft_metric_report_baseline *b = ksft_metric_report_baseline_new();
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ret = ksft_metric_report_baseline_load(b, cases[i].text,
							   strlen(cases[i].text), "b.json");

		ck_assert_msg(ret == -EINVAL, "case %zu: %d", i, ret);
		ck_assert_msg(strstr(ksft_metric_report_errmsg(), cases[i].msg), "case %zu: %s", i,
			      ksft_metric_report_errmsg());
		ck_assert_uint_eq(ksft_metric_report_baseline_runs(b), 0);
	}
	ksft_metric_report_baseline_free(b);
}
END_TEST

/*
 * The one-pass reader of save's layout (store/baseline_scan.c) against
 * jansson: each text once as save lays it out and once with the top-level
 * keys in another order (which only the jansson path reads) must give
 * the same runs, or the same error.
 */
START_TEST(test_baseline_scan_same_as_jansson)
{
	static const char head[] = "{\"format\":\"ksft-metric-baseline\",\"version\":1,\"runs\":[";
	static const char other[] = "{\"version\":1,\"format\":\"ksft-metric-baseline\",\"runs\":[";
	static const char *const runs[] = {
		"\n{\"sources\":[\"a.log\",\"b.log\"],\"series\":[\n"
		" {\"case\":\"t\",\"path\":[\"p\",\"q\"],\"name\":\"m\",\"labels\":{\"a\":\"1\",\"b\":\"2\"},\"shape\":\"scalar\",\"source\":\"ktap\",\"policy\":null,\"samples\":[1,0.5,null,-0,1e5,123456789012345678,3.000000000000000444]},\n"
		" {\"case\":\"t\",\"path\":[\"p\",\"q\"],\"name\":\"c\",\"labels\":{},\"shape\":\"per-cpu\",\"source\":\"ktap\",\"policy\":{\"summarize\":\"p90\",\"transform\":\"rate\"},\"samples\":[[0.5,null],[],[2]]}]}]}\n",
		/* blanks, escapes, unsorted or non-string labels, unknown keys, key order */
		"{ \"sources\" : [ ] , \"series\" : [ { \"samples\" : [ 2 ] , \"name\" : \"m\" , \"case\" : \"t\" , \"path\" : [ ] , \"labels\" : { } } ] } ] }",
		"{\"sources\":[],\"series\":[{\"case\":\"t\\u00e9\\n\",\"path\":[\"\\\"x\\\"\"],\"name\":\"m\",\"labels\":{\"z\":\"1\",\"a\":\"2\"},\"samples\":[1]},"
		"{\"case\":\"t\",\"path\":[],\"name\":\"m\",\"labels\":{\"n\":5},\"extra\":[1,{\"y\":\"}\"}],\"samples\":[1]},"
		"{\"case\":\"t\",\"path\":[],\"name\":\"e\",\"labels\":{},\"shape\":\"x\",\"source\":\"zperf\",\"samples\":[]}]}]}",
		/* a run's context (issue 42), as save writes it and otherwise */
		"{\"sources\":[\"a.log\"],\"context\":{\"clock\":\"icount\",\"cpu_count\":1},\"series\":[{\"case\":\"t\",\"path\":[],\"name\":\"m\",\"labels\":{},\"samples\":[1]}]}]}",
		"{\"sources\":[],\"context\" : { \"z\" : \"}{\" , \"a\" : [1] },\"series\":[{\"case\":\"t\",\"path\":[],\"name\":\"m\",\"labels\":{},\"samples\":[1]}]}]}",
		"{\"sources\":[],\"context\":{},\"series\":[{\"case\":\"t\",\"path\":[],\"name\":\"m\",\"labels\":{},\"samples\":[1]}]}]}",
		/* errors: each must be the jansson path's */
		"{\"sources\":[],\"context\":[1],\"series\":[{\"case\":\"t\",\"path\":[],\"name\":\"m\",\"labels\":{},\"samples\":[1]}]}]}",
		"{\"sources\":[],\"series\":[{\"case\":\"t\",\"path\":[],\"name\":\"m\",\"labels\":{},\"samples\":[1,[2]]}]}]}",
		"{\"sources\":[],\"series\":[{\"case\":\"t\",\"path\":[],\"name\":\"m\",\"name\":\"n\",\"labels\":{},\"samples\":[1]}]}]}",
		"{\"sources\":[],\"series\":[{\"case\":\"t\",\"path\":[],\"name\":\"m\",\"labels\":{},\"policy\":{\"summarize\":\"p95\"},\"samples\":[1]}]}]}",
		"{\"sources\":[],\"series\":[{\"case\":\"t\",\"path\":[],\"name\":\"m\",\"labels\":{},\"samples\":[1e999]}]}]}",
		"{\"sources\":[],\"series\":[{\"case\":\"t\",\"path\":[],\"name\":\"m\",\"labels\":{},\"samples\":[1]}]}]}x",
		"{\"sources\":[],\"series\":[{\"case\":\"t\",\"path\":[],\"name\":\"m\",\"labels\":{},\"samples\":[1]}",
	};
	size_t i;

	for (i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		struct ksft_metric_report_baseline *b1 = ksft_metric_report_baseline_new();
		struct ksft_metric_report_baseline *b2 = ksft_metric_report_baseline_new();
		size_t n = strlen(runs[i]);
		char *t1 = malloc(sizeof(head) + n), *t2 = malloc(sizeof(head) + n);
		char *msg1;
		int r1, r2;

		ck_assert_ptr_nonnull(t1);
		ck_assert_ptr_nonnull(t2);
		memcpy(t1, head, sizeof(head) - 1);
		memcpy(t1 + sizeof(head) - 1, runs[i], n + 1);
		memcpy(t2, other, sizeof(other) - 1);
		memcpy(t2 + sizeof(other) - 1, runs[i], n + 1);
		r1 = ksft_metric_report_baseline_load(b1, t1, strlen(t1), "b.json");
		msg1 = strdup(ksft_metric_report_errmsg());
		r2 = ksft_metric_report_baseline_load(b2, t2, strlen(t2), "b.json");
		ck_assert_msg(r1 == r2, "case %zu: %d vs %d", i, r1, r2);
		if (r1 < 0) {
			ck_assert_str_eq(msg1, ksft_metric_report_errmsg());
		} else {
			char *f1 = baseline_text(b1), *f2 = baseline_text(b2);

			ck_assert_str_eq(f1, f2);
			free(f1);
			free(f2);
		}
		free(msg1);
		free(t1);
		free(t2);
		ksft_metric_report_baseline_free(b1);
		ksft_metric_report_baseline_free(b2);
	}
}
END_TEST

START_TEST(test_compare_formats)
{
	static const char *const runs[] = { POL(HIGHER_5) M(1, 100) "ok 1 t\n", NULL };
	struct ksft_metric_report_compare_opts o = KSFT_METRIC_REPORT_COMPARE_OPTS_INIT;
	struct ksft_metric_report_baseline *b = baseline_of(runs);
	struct ksft_metric_report *r = ru_read("cur.log", POL(HIGHER_5) M(1, 90) "ok 1 t\n");
	struct ksft_metric_report_comparison *c;
	char *text;
	size_t len;

	ck_assert_int_eq(ksft_metric_report_compare(r, b, &o, &c), 1);
	ck_assert_int_eq(ksft_metric_report_comparison_format(c, KSFT_METRIC_REPORT_JSON, &text, &len), 0);
	ck_assert_str_eq(text, "{\"rows\":[\n"
		"{\"case\":\"t\",\"path\":[],\"name\":\"m\",\"labels\":{},\"element\":null,\"compare\":\"p50\",\"better\":\"higher\",\"unit\":null,\"scale\":1.0,\"baseline\":100.0,\"current\":90.0,\"change_pct\":-10.0,\"allowance\":5.0,\"p_value\":null,\"n_baseline\":1,\"n_current\":1,\"baseline_runs\":1,\"beyond_floor\":true,\"verdict\":\"regression\",\"fails\":true}],\n"
		"\"context_mismatch\":null,\"failing\":1,\"cannot_gate\":0,\"result\":\"regression\"}\n");
	free(text);
	ck_assert_int_eq(ksft_metric_report_comparison_format(c, KSFT_METRIC_REPORT_CSV, &text, &len), 0);
	ck_assert_str_eq(text, "case,path,name,labels,element,compare,better,baseline,current,change_pct,allowance,p_value,n_baseline,n_current,baseline_runs,verdict,fails\r\n"
		"t,[],m,{},,p50,higher,100.0,90.0,-10.0,5.0,,1,1,1,regression,1\r\n");
	free(text);
	ck_assert_int_eq(ksft_metric_report_comparison_format(c, KSFT_METRIC_REPORT_TEXT, &text, &len), 0);
	ck_assert_str_eq(text,
		"t\n"
		"  METRIC  COMPARE  BASELINE  CURRENT  CHANGE  ALLOWED    N  P  VERDICT     UNIT\n"
		"  m       p50 ^         100       90  -10.0%        5  1/1  -  REGRESSION\n"
		"\n"
		"COMPARE: the statistic judged (p50 the median) and its better direction (^ higher, v lower); BASELINE, CURRENT: that\n"
		"statistic, with the range (min\xe2\x80\xa6max) of fewer than 10 values or \xc2\xb1 their robust spread (% of the median): the baseline's\n"
		"samples (with --db its runs), this run's samples; CHANGE: current against baseline (~: no change the samples show; a\n"
		"change within the tolerance says what is allowed); ALLOWED: the change the policy tolerates, in the row's unit; N:\n"
		"samples baseline/current; P: the p-value (with --db, adjusted across the run); name[n]: element n of an array metric.\n"
		"doc/consumer.rst explains each verdict.\n"
		"\n1 rows: 1 regression\nRESULT: REGRESSION\n");
	free(text);
	ksft_metric_report_comparison_free(c);
	ksft_metric_report_baseline_free(b);
	ksft_metric_report_free(r);
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("report_compare");
	TCase *tc;

	tc = tcase_create("gate");
	tcase_add_test(tc, test_allowance_higher);
	tcase_add_test(tc, test_allowance_absolute_and_lower);
	tcase_add_test(tc, test_median_of_runs);
	tcase_add_test(tc, test_compare_independent_of_summarize);
	tcase_add_test(tc, test_alpha);
	tcase_add_test(tc, test_tolerance);
	tcase_add_test(tc, test_zperf_gate);
	tcase_add_test(tc, test_new_and_missing);
	tcase_add_test(tc, test_per_element_rows);
	tcase_add_test(tc, test_compare_formats);
	tcase_add_test(tc, test_comparison_outlives_report);
	tcase_add_test(tc, test_compare_order_independent);
	tcase_add_test(tc, test_compare_in_step_same_rows);
	suite_add_tcase(s, tc);
	tc = tcase_create("baseline");
	tcase_add_test(tc, test_baseline_round_trip);
	tcase_add_test(tc, test_baseline_flat_zperf);
	tcase_add_test(tc, test_baseline_malformed);
	tcase_add_test(tc, test_baseline_scan_same_as_jansson);
	suite_add_tcase(s, tc);
	return s;
}
