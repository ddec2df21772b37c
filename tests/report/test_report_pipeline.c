/*
 * The pipeline with hand-computed numbers: rate (decreases and
 * non-positive elapsed time), busy-core-equivalents with and without a
 * transform, summaries (numpy's linear interpolation), per-element
 * summaries of arrays, the JSON number fast path and Mann-Whitney U.
 */
#include <errno.h>
#include <jansson.h>
#include <ksftmetric/report.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "float_repr.h"
#include "order_stats.h"
#include "report_util.h"
#include "report/read/rp_input.h"
#include "report/judge/stats.h"
#include "report/model/canon.h"
#include "report/model/rp_policy.h"
#include "report/process/pipeline.h"
#include "report/read/ktap.h"
#include "report/read/metric_line.h"
#include "report/read/number.h"

#define M(name, t, v) "# ktap-metric-json: {\"name\":\"" name "\",\"shape\":\"scalar\",\"time\":" #t ",\"value\":" #v "}\n"
#define A(name, t, v) "# ktap-metric-json: {\"name\":\"" name "\",\"shape\":\"per-cpu\",\"time\":" #t ",\"value\":" v "}\n"
#define P(json) "# ktap-metric-policy-json: " json "\n"

static void values(const struct ksft_metric_report *r, size_t i, int stage,
		   struct ksft_metric_report_values *v)
{
	ck_assert_int_eq(ksft_metric_report_series_values(r, i, stage, v), 0);
}

/*
 * (t, v): (0,10) (1,20) (3,20) (3,30) (4,25) (6,35)
 * rates:  t=1: 10/1 = 10; t=3: 0/2 = 0; t=3: dt 0, none; t=4: decreased,
 *         none; t=6: 10/2 = 5.  -> [10, 0, 5], sorted [0, 5, 10]
 * p50: h = 2*0.5 = 1 -> 5; p90: h = 1.8 -> 5 + 0.8*5 = 9;
 * p99: h = 1.98 -> 5 + 0.98*5 = 9.9; max 10; total 15; last 5.
 */
START_TEST(test_rate_scalar)
{
	static const char log[] =
		P("{\"name\":\"c\",\"transform\":\"rate\",\"summarize\":\"distribution\"}")
		M("c", 0, 10) M("c", 1, 20) M("c", 3, 20) M("c", 3, 30) M("c", 4, 25)
		M("c", 6, 35) "ok 1 t\n";
	struct ksft_metric_report *r = ru_read("rate.log", log);
	struct ksft_metric_report_values v;
	size_t i = ru_find(r, "t", "c", "{}");
	char *json;

	values(r, i, KSFT_METRIC_REPORT_PROCESSED, &v);
	ck_assert_uint_eq(v.n, 3);
	ru_assert_num(v.t[0], 1);
	ru_assert_num(v.v[0], 10);
	ru_assert_num(v.t[1], 3);
	ru_assert_num(v.v[1], 0);
	ru_assert_num(v.t[2], 6);
	ru_assert_num(v.v[2], 5);
	ksft_metric_report_values_release(&v);
	ru_assert_num(ru_summary(r, i, "p50"), 5);
	ru_assert_num(ru_summary(r, i, "p90"), 9);
	ru_assert_close(ru_summary(r, i, "p99"), 9.9, 1e-15);
	ru_assert_num(ru_summary(r, i, "max"), 10);
	ru_assert_num(ru_summary(r, i, "total"), 15);
	ru_assert_num(ru_summary(r, i, "last"), 5);
	json = ru_format(r, KSFT_METRIC_REPORT_JSON);
	ck_assert_msg(strstr(json, "\"points\":6,\"processed\":3,") != NULL, "%s", json);
	ck_assert_msg(strstr(json, "\"summary\":{\"p50\":5.0,\"p90\":9.0,\"p99\":9.9") != NULL,
		      "%s", json);
	free(json);
	ksft_metric_report_free(r);
}
END_TEST

/*
 * P0 t=0 [1,5,null,2]; P1 t=2 [3,4,1,6]; P2 t=2 [5,5,5,5]; P3 t=3 [7,8,3]
 * P1-P0, dt 2: [(3-1)/2, 4<5 null, null side, (6-2)/2] = [1, null, null, 2]
 * P2-P1, dt 0: no point
 * P3-P2, dt 1: [2, 3, 3<5 null, missing null]
 * busy-core-equivalents of rates (no /100): [3, 5]; p90: 3 + 0.9*2 = 4.8
 */
static const char array_log[] =
	A("a", 0, "[1,5,null,2]") A("a", 2, "[3,4,1,6]") A("a", 2, "[5,5,5,5]")
	A("a", 3, "[7,8,3]") "ok 1 t\n";

START_TEST(test_rate_arrays)
{
	char log[1024];
	struct ksft_metric_report *r;
	struct ksft_metric_report_values v;
	double out[4];
	size_t i;

	snprintf(log, sizeof(log), "%s%s",
		 P("{\"name\":\"a\",\"transform\":\"rate\",\"summarize\":\"max\"}"), array_log);
	r = ru_read("arr.log", log);
	i = ru_find(r, "t", "a", "{}");
	values(r, i, KSFT_METRIC_REPORT_TRANSFORMED, &v);
	ck_assert_uint_eq(v.n, 2);
	ck_assert_uint_eq(v.width, 4);
	ru_assert_num(v.v[0], 1);
	ck_assert(isnan(v.v[1]) && isnan(v.v[2]));
	ru_assert_num(v.v[3], 2);
	ru_assert_num(v.v[4], 2);
	ru_assert_num(v.v[5], 3);
	ck_assert(isnan(v.v[6]) && isnan(v.v[7]));
	ksft_metric_report_values_release(&v);
	/* Still arrays after processing: summarized per element. */
	ck_assert_int_eq(ksft_metric_report_series_summary(r, i, "max", out, 4), 4);
	ru_assert_num(out[0], 2);
	ru_assert_num(out[1], 3);
	ck_assert(isnan(out[2]));
	ru_assert_num(out[3], 2);
	ksft_metric_report_free(r);

	snprintf(log, sizeof(log), "%s%s",
		 P("{\"name\":\"a\",\"transform\":\"rate\",\"aggregation\":\"busy-core-equivalents\",\"summarize\":\"p90\"}"),
		 array_log);
	r = ru_read("bce.log", log);
	i = ru_find(r, "t", "a", "{}");
	values(r, i, KSFT_METRIC_REPORT_PROCESSED, &v);
	ck_assert_uint_eq(v.n, 2);
	ck_assert_uint_eq(v.width, 1);
	ru_assert_num(v.v[0], 3);
	ru_assert_num(v.v[1], 5);
	ksft_metric_report_values_release(&v);
	ru_assert_close(ru_summary(r, i, "p90"), 4.8, 1e-15);
	ksft_metric_report_free(r);
}
END_TEST

/* Without a transform the entries are percentages: sum / 100. */
START_TEST(test_busy_cores_percent)
{
	static const char log[] =
		P("{\"name\":\"u\",\"aggregation\":\"busy-core-equivalents\",\"summarize\":\"total\"}")
		A("u", 1, "[50,25,null,100]") A("u", 2, "[null,null]") A("u", 3, "[0,0]")
		A("u", 4, "[]") "ok 1 t\n";
	struct ksft_metric_report *r = ru_read("pct.log", log);
	struct ksft_metric_report_values v;
	size_t i = ru_find(r, "t", "u", "{}");

	values(r, i, KSFT_METRIC_REPORT_PROCESSED, &v);
	/* [50,25,null,100] -> 1.75; all-null and empty points are dropped; [0,0] -> 0 */
	ck_assert_uint_eq(v.n, 2);
	ru_assert_num(v.v[0], 1.75);
	ru_assert_num(v.v[1], 0);
	ru_assert_num(v.t[1], 3);
	ksft_metric_report_values_release(&v);
	ru_assert_num(ru_summary(r, i, "total"), 1.75);
	ksft_metric_report_free(r);
}
END_TEST

/*
 * No policy: distribution. One point -> last; several -> p50/p90/p99/max.
 * [4, 1, 3, 2, 10] sorted [1,2,3,4,10]: p50 h=2 -> 3; p90 h=3.6 ->
 * 4 + 0.6*6 = 7.6; p99 h=3.96 -> 4 + 0.96*6 = 9.76; max 10. In doubles
 * 4 * 0.9 - 3 is 0.6000000000000001, so p90 prints 7.6000000000000005,
 * exactly what numpy.percentile(..., 90) returns.
 */
START_TEST(test_distribution)
{
	static const char log[] =
		M("one", 1, 42) M("many", 1, 4) M("many", 2, 1) M("many", 3, 3)
		M("many", 4, 2) M("many", 5, 10) "ok 1 t\n";
	struct ksft_metric_report *r = ru_read("dist.log", log);
	size_t many = ru_find(r, "t", "many", "{}");
	char *json, *text;

	ru_assert_num(ru_summary(r, many, "p50"), 3);
	ru_assert_close(ru_summary(r, many, "p90"), 7.6, 1e-15);
	ru_assert_close(ru_summary(r, many, "p99"), 9.76, 1e-15);
	json = ru_format(r, KSFT_METRIC_REPORT_JSON);
	ck_assert_msg(strstr(json, "\"name\":\"one\",\"labels\":{},\"shape\":\"scalar\",\"status\":\"pass\",\"source\":\"ktap\",\"points\":1,\"processed\":1,\"policy\":null,\"summarize\":\"distribution\",\"summary\":{\"last\":42.0},\"unit\":null,\"scale\":1.0}"),
		      "%s", json);
	ck_assert_msg(strstr(json, "\"summary\":{\"p50\":3.0,\"p90\":7.6000000000000005,\"p99\":9.76,\"max\":10.0}"),
		      "%s", json);
	text = ru_format(r, KSFT_METRIC_REPORT_TEXT);
	/* Text (issue 34): the median with the range of so few points, never
	 * a p99 of five; one point alone. */
	ck_assert_msg(strstr(text, "  one     1  42\n") &&
		      strstr(text, "  many    5  3 (1\xe2\x80\xa6" "10)\n") && !strstr(text, "p99"),
		      "%s", text);
	free(json);
	free(text);
	ksft_metric_report_free(r);
}
END_TEST

/* Per-element JSON summaries: an array with one object or null each. */
START_TEST(test_per_element_json)
{
	static const char log[] =
		P("{\"name\":\"a\",\"summarize\":\"last\"}")
		A("a", 1, "[1,null]") A("a", 2, "[3,null,5]") "ok 1 t\n";
	struct ksft_metric_report *r = ru_read("elem.log", log);
	char *json = ru_format(r, KSFT_METRIC_REPORT_JSON);
	char *om = ru_format(r, KSFT_METRIC_REPORT_OPENMETRICS);
	char *csv = ru_format(r, KSFT_METRIC_REPORT_CSV);

	ck_assert_msg(strstr(json, "\"summary\":[{\"last\":3.0},null,{\"last\":5.0}]"), "%s", json);
	ck_assert_msg(strstr(om, "ksft_metric_a{case=\"t\",path=\"\",metric=\"a\",summary=\"last\",element=\"2\"} 5.0\n"),
		      "%s", om);
	/* no unit (empty), scale 1, on every element's row */
	ck_assert_msg(strstr(csv, "t,[],a,{},pass,2,1,,,,,,,,1.0\r\n"), "%s", csv);
	free(json);
	free(om);
	free(csv);
	ksft_metric_report_free(r);
}
END_TEST

START_TEST(test_quantile_helpers)
{
	double x[] = { 1, 2, 3, 4 };
	double odd[] = { 5, 1, 3 };
	double even[] = { 10, 1, 4, 2 };

	/* h = 3 * 0.5 = 1.5 -> 2.5; h = 2.7 -> 3.7; h = 2.97 -> 3.97 */
	ru_assert_num(ksftm_quantile_sorted(x, 4, 0.5), 2.5);
	ru_assert_close(ksftm_quantile_sorted(x, 4, 0.9), 3.7, 1e-15);
	ru_assert_close(ksftm_quantile_sorted(x, 4, 0.99), 3.97, 1e-15);
	ru_assert_num(ksftm_quantile_sorted(x, 1, 0.99), 1);
	ck_assert(isnan(ksftm_quantile_sorted(x, 0, 0.5)));
	ru_assert_num(ksftm_median(odd, 3), 3);
	ru_assert_num(ksftm_median(even, 4), 3);	/* (2 + 4) / 2 */
}
END_TEST

/* ---- numbers -------------------------------------------------------- */

START_TEST(test_number_fast_path)
{
	static const char *const good[] = {
		"0", "-0", "0.0", "-0.0", "1", "100.5", "0.01", "9.0909", "1.9802",
		"32.62285180182741", "321.16499999999996", "75895.0", "1e22", "1e23",
		"1.7976931348623157e308", "5e-324", "2.2250738585072014e-308",
		"123456789012345678", "0.000001234", "1E+2", "1e-7", "-12.5e-3",
		"9007199254740993", "0.30000000000000004", "4.35e-05",
	};
	static const char *const bad[] = {
		"01", "1.", ".5", "+1", "1e", "1e+", "-", "NaN", "Infinity", "1e400",
		"-1e999", "", "1234567890123456789012",
	};
	char buf[64];
	const char *next;
	double v;
	size_t i;
	unsigned seed = 7;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		size_t n = strlen(good[i]);
		double want = strtod(good[i], NULL);

		ck_assert_msg(!number_parse(good[i], good[i] + n, &next, &v) &&
			      next == good[i] + n, "rejected %s", good[i]);
		if (!strcmp(good[i], "-0"))
			want = 0.0;	/* jansson reads it as the integer 0 */
		ck_assert_msg(memcmp(&v, &want, sizeof(v)) == 0, "%s -> %.17g, want %.17g",
			      good[i], v, want);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t n = strlen(bad[i]);
		int ret = number_parse(bad[i], bad[i] + n, &next, &v);

		ck_assert_msg(ret || next != bad[i] + n, "accepted %s", bad[i]);
	}
	/* Random doubles in the spellings producers use. */
	for (i = 0; i < 200000; i++) {
		double x, want;
		size_t n;

		seed = seed * 1103515245u + 12345u;
		x = (double)(seed >> 8) / (1 << 12) * pow(10, (int)(seed % 13) - 6);
		n = (size_t)snprintf(buf, sizeof(buf), i % 3 == 0 ? "%.17g" :
				     i % 3 == 1 ? "%.4f" : "%.6e", x);
		want = strtod(buf, NULL);
		ck_assert_msg(!number_parse(buf, buf + n, &next, &v), "rejected %s", buf);
		ck_assert_msg(v == want, "%s -> %.17g, want %.17g", buf, v, want);
	}
}
END_TEST

/* Shortest round-trip texts (Python's repr, float_repr()) past Clinger's
 * fast path, and texts one digit off them, read bit for bit as strtod
 * reads them (issue 45's repr_parse()). */
START_TEST(test_number_repr_path)
{
	uint64_t x = 0x243f6a8885a308d3ull;
	char buf[64];
	const char *next;
	size_t i, n;
	double v, want, d;

	for (i = 0; i < 1000000; i++) {
		uint64_t bits;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		bits = (x & 0x800fffffffffffffull) | ((uint64_t)(990 + x % 100) << 52);
		memcpy(&d, &bits, sizeof(d));	/* about 1e-10 .. 1e19 */
		n = float_repr(d, buf);
		buf[n] = '\0';
		if (i & 1) {		/* a last digit one off: not a shortest text */
			char *e = strpbrk(buf, "eE"), *last = (e ? e : buf + n) - 1;

			if (*last >= '1' && *last <= '8')
				*last += (i & 2) ? 1 : -1;
		}
		want = strtod(buf, NULL);
		if (number_parse(buf, buf + n, &next, &v) || next != buf + n ||
		    memcmp(&v, &want, sizeof(v)))
			ck_abort_msg("%s -> %.17g, strtod %.17g", buf, v, want);
	}
}
END_TEST

/* ---- Mann-Whitney U --------------------------------------------------- */

/*
 * A series where one point is much wider than the rest: every consumer
 * of per-element values (report formats, summaries, baseline, compare)
 * must visit each stored value a bounded number of times, not every
 * point once per element (points x widest array; a 2 MB log used to
 * take seconds here and 3 GB in plot). Counted, not timed.
 */
START_TEST(test_wide_point_linear)
{
	enum { POINTS = 2000, WIDE = 2000 };
	size_t cap = (size_t)WIDE * 8 + (size_t)POINTS * 120, len = 0, i, j;
	char *log = malloc(cap);
	struct ksft_metric_report *r;
	struct ksft_metric_report_baseline *b;
	struct ksft_metric_report_comparison *cmp;
	unsigned long long entries = 0, bound;
	double *out = malloc(WIDE * sizeof(double));
	int fmt;

	ck_assert_ptr_nonnull(log);
	ck_assert_ptr_nonnull(out);
	for (i = 0; i < POINTS; i++) {
		size_t w = i == 0 ? WIDE : 2;

		len += (size_t)snprintf(log + len, cap - len,
			"# ktap-metric-json: {\"name\":\"u\",\"shape\":\"per-cpu\",\"time\":%zu,\"value\":[", i);
		for (j = 0; j < w; j++)
			len += (size_t)snprintf(log + len, cap - len, "%s%zu",
						j ? "," : "", j);
		len += (size_t)snprintf(log + len, cap - len, "]}\n");
		entries += w;
		ck_assert_uint_lt(len, cap - 64);
	}
	len += (size_t)snprintf(log + len, cap - len, "ok 1 wide\n");
	r = ru_read_opts("wide.log", log, len, 0);
	/* Generous: a few passes over the entries and the width each. */
	bound = 16 * (entries + WIDE);
	for (fmt = KSFT_METRIC_REPORT_TEXT; fmt <= KSFT_METRIC_REPORT_OPENMETRICS; fmt++) {
		char *text;

		pipeline_work = 0;
		text = ru_format(r, fmt);
		free(text);
		ck_assert_msg(pipeline_work <= bound, "format %d: %llu values visited for %llu entries",
			      fmt, pipeline_work, entries);
	}
	pipeline_work = 0;
	ck_assert_int_eq(ksft_metric_report_series_summary(r, 0, "max", out, WIDE), WIDE);
	ck_assert_msg(pipeline_work <= bound, "summary: %llu visited", pipeline_work);
	ru_assert_num(out[0], 0);	/* element j of every point is j */
	ru_assert_num(out[1], 1);
	ru_assert_num(out[WIDE - 1], WIDE - 1);	/* only in the wide point */
	b = ksft_metric_report_baseline_new();
	ck_assert_ptr_nonnull(b);
	pipeline_work = 0;
	ck_assert_int_ge(ksft_metric_report_baseline_add_report(b, r, NULL, 0), 0);
	ck_assert_int_ge(ksft_metric_report_compare(r, b, NULL, &cmp), 0);
	ck_assert_msg(pipeline_work <= bound, "baseline + compare: %llu visited", pipeline_work);
	ck_assert_uint_eq(ksft_metric_report_comparison_rows(cmp), WIDE);
	ksft_metric_report_comparison_free(cmp);
	ksft_metric_report_baseline_free(b);
	ksft_metric_report_free(r);
	free(out);
	free(log);
}
END_TEST

/*
 * The fast metric-line parser against jansson on the spellings where they
 * could part (the metric_line fuzzer's seeds, kept here as a plain test):
 * whenever the fast path takes a line, the result must be jansson's.
 */
START_TEST(test_metric_line_fast_equals_jansson)
{
	static const char *const lines[] = {
		"{\"host\":\"local\",\"name\":\"t\",\"shape\":\"scalar\",\"time\":11.42686,\"value\":32.62285180182741}",
		"{\"name\":\"c\",\"shape\":\"per-cpu\",\"time\":2.000397,\"value\":[30.0,2.0202,null,99.5]}",
		"{\"name\":\"a\",\"shape\":\"per-cpu\",\"time\":0,\"value\":[]}",
		"{\"cpu\":3,\"flag\":true,\"n\":null,\"name\":\"m\",\"shape\":\"scalar\",\"time\":1,\"value\":-0}",
		"{\"name\":\"m\",\"ratio\":1.50,\"shape\":\"scalar\",\"time\":1e-3,\"value\":1E+16}",
		"{\"value\":1,\"z\":\"1\",\"a\":\"2\",\"shape\":\"scalar\",\"name\":\"m\",\"time\":0.5}",
		" { \"name\" : \"m\" , \"shape\" : \"scalar\" , \"time\" : 1 , \"value\" : [ 1 , 2 ] } ",
		"{\"name\":\"m\",\"shape\":\"scalar\",\"time\":1,\"value\":123456789012345678}",
		"{\"name\":\"m\",\"shape\":\"scalar\",\"time\":1,\"value\":1.7976931348623157e308}",
		"{\"name\":\"m\",\"shape\":\"scalar\",\"time\":-0.0,\"value\":4.9e-324}",
		"{\"name\":\"m\",\"off\":-0,\"neg\":-0.0,\"e\":1e2,\"shape\":\"scalar\",\"time\":1,\"value\":0.1}",
		"{\"name\":\"m\",\"shape\":\"\",\"value\":1e-400}",
	};
	struct ksft_metric_report *r = ksft_metric_report_new(NULL);
	size_t i, k;

	ck_assert_ptr_nonnull(r);
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		const char *p = lines[i], *end = p + strlen(p);
		struct rp_input *in = ktap_input_new(r, "t");
		struct mline f, j;
		char name[64], shape[64], labels[256];
		double vals[8], t;
		size_t nv;
		int arr;

		ck_assert_ptr_nonnull(in);
		ck_assert_msg(!metric_line_parse_fast(in, p, end, &f), "fast path declined %s", p);
		ck_assert_uint_lt(in->labels.len, sizeof(labels));
		ck_assert_uint_le(in->n_vals, 8);
		snprintf(name, sizeof(name), "%.*s", (int)f.name_len, f.name);
		snprintf(shape, sizeof(shape), "%.*s", (int)f.shape_len, f.shape);
		snprintf(labels, sizeof(labels), "%.*s", (int)in->labels.len, in->labels.data);
		nv = in->n_vals;
		for (k = 0; k < nv; k++)
			vals[k] = in->vals[k];
		t = f.t;
		arr = f.is_array;
		ck_assert_msg(!metric_line_parse_slow(in, p, end, &j), "jansson rejects %s", p);
		ck_assert_msg(j.name_len == strlen(name) && !memcmp(j.name, name, j.name_len), "%s", p);
		ck_assert_msg(j.shape_len == strlen(shape) &&
			      (!j.shape_len || !memcmp(j.shape, shape, j.shape_len)), "%s", p);
		ck_assert_msg(!memcmp(&j.t, &t, sizeof(t)) || (isnan(j.t) && isnan(t)), "%s", p);
		ck_assert_int_eq(j.is_array, arr);
		ck_assert_uint_eq(in->n_vals, nv);
		for (k = 0; k < nv; k++)
			ck_assert_msg(!memcmp(&in->vals[k], &vals[k], sizeof(double)) ||
				      (isnan(in->vals[k]) && isnan(vals[k])),
				      "%s: value %zu", p, k);
		ck_assert_msg(in->labels.len == strlen(labels) &&
			      !memcmp(in->labels.data, labels, in->labels.len),
			      "%s: labels %s vs %.*s", p, labels, (int)in->labels.len,
			      in->labels.data);
		ktap_input_abort(in);
	}
	ksft_metric_report_free(r);
}
END_TEST

/*
 * The one error convention inside lib/report (issue 35): not a number is
 * -EINVAL, not the fast path's spelling -ENOENT, a bad line -EINVAL after
 * its warning, a bad policy -EINVAL with its reason as the message (the
 * warning quotes it byte for byte), nothing bad found -ENOENT. Twice.
 */
START_TEST(test_error_convention)
{
	static const struct { const char *json, *why; } bad_pol[] = {
		{ "{\"summarize\":\"p95\"}", "unknown summarize value \"p95\"" },
		{ "{\"regression\":{\"compare\":\"p50\"}}",
		  "regression needs \"compare\" and \"better\"" },
		{ "{\"regression\":{\"better\":\"up\"}}", "unknown regression better value \"up\"" },
		{ "{\"display_range\":{\"min\":2,\"max\":1}}", "display_range min is above max" },
		{ "{\"display_range\":[]}", "display_range must be an object" },
	};
	static const char log[] =
		"# ktap-metric-policy-json: {\"name\":\"m\",\"summarize\":\"p95\"}\n"
		"# ktap-metric-json: [1]\n"
		"ok 1 c\n";
	const char *next, *fast = "[1]", *brace = "{";
	struct ksft_metric_report *r;
	struct rp_policy pol;
	struct rp_input *in;
	struct mline m;
	char *unknown;
	int control = 0, round;
	double v;
	size_t i;

	for (round = 0; round < 2; round++) {
		ck_assert_int_eq(number_parse("x", "x" + 1, &next, &v), -EINVAL);
		ck_assert_int_eq(number_parse("1", "1" + 1, &next, &v), 0);
		ck_assert_int_eq(canon_text_bad_at("ok", 2, &control), -ENOENT);
		ck_assert_int_eq(canon_text_bad_at("a\x01", 2, &control), 1);
		ck_assert_int_eq(control, 1);
		for (i = 0; i < sizeof(bad_pol) / sizeof(bad_pol[0]); i++) {
			json_t *j = json_loads(bad_pol[i].json, 0, NULL);

			ck_assert_int_eq(rp_policy_from_json(j, &pol, &unknown), -EINVAL);
			ck_assert_str_eq(ksft_metric_report_errmsg(), bad_pol[i].why);
			ck_assert_ptr_null(unknown);
			json_decref(j);
		}
		{
			json_t *j = json_loads("{\"summarize\":\"max\",\"bogus\":1}", 0, NULL);

			ck_assert_int_eq(rp_policy_from_json(j, &pol, &unknown), 0);
			ck_assert_str_eq(unknown, "bogus");
			free(unknown);
			rp_policy_clear(&pol);
			json_decref(j);
		}
		r = ru_read("e.log", log);
		ck_assert_uint_eq(ru_warnings_with(r, 1, "policy for metric m: unknown summarize"
						   " value \"p95\"; policy ignored"), 1);
		ck_assert_uint_eq(ru_warnings_with(r, 2, "metric JSON is not an object"), 1);
		in = ktap_input_new(r, "t");
		ck_assert_ptr_nonnull(in);
		ck_assert_int_eq(metric_line_parse_fast(in, fast, fast + 3, &m), -ENOENT);
		ck_assert_int_eq(metric_line_parse_slow(in, fast, fast + 3, &m), -EINVAL);
		ck_assert_int_eq(metric_line_parse_slow(in, brace, brace + 1, &m), -EINVAL);
		ktap_input_abort(in);
		ksft_metric_report_free(r);
	}
}
END_TEST

START_TEST(test_mann_whitney)
{
	double a[] = { 1, 2, 3 }, b[] = { 4, 5, 6 };
	double c[] = { 1, 2, 3, 4, 5 }, d[] = { 6, 7, 8, 9, 10, 11, 12, 13, 14 };
	double e[] = { 1, 3 }, f[] = { 2, 4, 5 };
	double g[] = { 1, 4 }, h[] = { 2, 3 };
	double tx[] = { 1, 2, 2, 3 }, ty[] = { 2, 4, 5, 6, 7, 8, 9, 10, 11 };
	double big_x[10], big_y[20], same[4] = { 5, 5, 5, 5 };
	double sep_x[] = { 100, 100, 101 }, sep_y[] = { 50, 50, 51 };
	double tie_x[] = { 1, 1, 2 }, tie_y[] = { 2, 3, 3, 3 };
	int i;

	/* Exact: U = 0 is 1 of C(6,3) = 20 orderings; two-sided 2/20. */
	ru_assert_close(stats_mann_whitney(a, 3, b, 3), 0.1, 1e-12);
	ru_assert_close(stats_mann_whitney(b, 3, a, 3), 0.1, 1e-12);
	/* Exact: 2 / C(14,5) = 2/2002. */
	ru_assert_close(stats_mann_whitney(c, 5, d, 9), 2.0 / 2002, 1e-12);
	/* Exact: R1 = 1+3 = 4, U = 1; P(U<=1) = 2/C(5,2) = 0.2 -> 0.4. */
	ru_assert_close(stats_mann_whitney(e, 2, f, 3), 0.4, 1e-12);
	/* Exact: U = 2 of max 4, the centre: 2 * 4/6 clipped to 1. */
	ru_assert_num(stats_mann_whitney(g, 2, h, 2), 1.0);
	/*
	 * Ties at small n: the exact permutation distribution of the mid-rank
	 * sum (issue 40 item 11), counted by brute force over the C(13,4) = 715
	 * subsets (itertools.combinations): 4 as extreme, two-sided 8/715.
	 * The normal approximation said 0.016174570106405255.
	 */
	ru_assert_close(stats_mann_whitney(tx, 4, ty, 9), 0.011188811188811189, 1e-12);
	/* 3 against 3 fully separated with ties: 1 of 20 subsets, p 0.1 as
	 * without ties (the normal approximation: 0.047, below 0.05). */
	ru_assert_close(stats_mann_whitney(sep_x, 3, sep_y, 3), 0.1, 1e-12);
	ru_assert_close(stats_mann_whitney(sep_y, 3, sep_x, 3), 0.1, 1e-12);
	/* Ties on both sides across the boundary: 4/35 by brute force. */
	ru_assert_close(stats_mann_whitney(tie_x, 3, tie_y, 4), 0.11428571428571428, 1e-12);
	/* The smallest p the sizes allow: 2/C(4,2), 2/C(6,3), 2/C(8,4). */
	ru_assert_close(stats_mann_whitney_min_p(2, 2), 1.0 / 3, 1e-12);
	ru_assert_close(stats_mann_whitney_min_p(3, 3), 0.1, 1e-12);
	ru_assert_close(stats_mann_whitney_min_p(4, 4), 2.0 / 70, 1e-12);
	ru_assert_num(stats_mann_whitney_min_p(10, 20), 0.0);
	/* Bauer's interval rank: 5 a side, P(U <= 2) = 4/252 <= 0.025 <
	 * P(U <= 3) = 7/252; 4 a side P(U <= 0) = 1/70; 3 a side none. */
	ck_assert_uint_eq(stats_shift_ci_rank(5, 5, 0.05), 3);
	ck_assert_uint_eq(stats_shift_ci_rank(4, 4, 0.05), 1);
	ck_assert_uint_eq(stats_shift_ci_rank(3, 3, 0.05), 0);
	ck_assert_uint_eq(stats_shift_ci_rank(3, 5, 0.05), 1);	/* 1/56 */
	/* Both samples above 8: normal; var = 200/12*31, z = 99.5/sqrt(var). */
	for (i = 0; i < 10; i++)
		big_x[i] = i + 1;
	for (i = 0; i < 20; i++)
		big_y[i] = i + 11;
	ru_assert_close(stats_mann_whitney(big_x, 10, big_y, 20), 1.200944108440625e-05, 1e-10);
	/* All tied: no evidence at all. */
	ru_assert_num(stats_mann_whitney(same, 2, same + 2, 2), 1.0);
	ck_assert(isnan(stats_mann_whitney(a, 0, b, 3)));
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("report_pipeline");
	TCase *tc;

	tc = tcase_create("pipeline");
	tcase_add_test(tc, test_rate_scalar);
	tcase_add_test(tc, test_rate_arrays);
	tcase_add_test(tc, test_busy_cores_percent);
	tcase_add_test(tc, test_distribution);
	tcase_add_test(tc, test_per_element_json);
	tcase_add_test(tc, test_quantile_helpers);
	tcase_add_test(tc, test_wide_point_linear);
	suite_add_tcase(s, tc);
	tc = tcase_create("numbers");
	tcase_add_test(tc, test_number_fast_path);
	tcase_add_test(tc, test_number_repr_path);
	tcase_add_test(tc, test_metric_line_fast_equals_jansson);
	tcase_add_test(tc, test_error_convention);
	suite_add_tcase(s, tc);
	tc = tcase_create("stats");
	tcase_add_test(tc, test_mann_whitney);
	suite_add_tcase(s, tc);
	return s;
}
