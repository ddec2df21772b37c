/*
 * Policies (ksft_metric_aggregate() and its JSON variant): every option's
 * exact JSON, emission rules, equality and conflicts, validation, and the
 * seed's example lines reproduced exactly (time masked).
 */
#include <pthread.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "producer_util.h"

#define OBS(json) "# " PU_OBS json "\n"
#define POL(json) "# " PU_POL json "\n"
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define M_OBS OBS("{\"name\":\"m\",\"shape\":\"scalar\",\"time\":T,\"value\":1}")

static struct ksft_metric_value vint(int64_t i)
{
	struct ksft_metric_value v = KSFT_METRIC_INT_V(i);

	return v;
}

static struct ksft_metric_value vdbl(double d)
{
	struct ksft_metric_value v = KSFT_METRIC_DOUBLE_V(d);

	return v;
}

/* Register @p for "m", observe "m" once, and expect exactly @pol_json. */
static void expect_policy_at(const char *file, int line,
			     const struct ksft_metric_policy *p, const char *pol_json)
{
	char want[2048];

	snprintf(want, sizeof(want), "# " PU_POL "%s\n%s", pol_json, M_OBS);
	pu_begin();
	pu_assert_ok(ksft_metric_aggregate("m", p));
	pu_assert_ok(ksft_metric_int("m", "scalar", 1, NULL, 0));
	pu_expect_end_at(file, line, want);
}
#define expect_policy(p, json) expect_policy_at(__FILE__, __LINE__, (p), (json))

static void expect_policy_json_at(const char *file, int line, const char *pjson,
				  const char *pol_json)
{
	char want[2048];

	snprintf(want, sizeof(want), "# " PU_POL "%s\n%s", pol_json, M_OBS);
	pu_begin();
	pu_assert_ok(ksft_metric_aggregate_json("m", pjson));
	pu_assert_ok(ksft_metric_int("m", "scalar", 1, NULL, 0));
	pu_expect_end_at(file, line, want);
}
#define expect_policy_json(pj, json) expect_policy_json_at(__FILE__, __LINE__, (pj), (json))

START_TEST(test_all_options)
{
	struct ksft_metric_policy p = KSFT_METRIC_POLICY_INIT;

	p.transform = "rate";
	p.aggregation = "busy-core-equivalents";
	p.summarize = "p99";
	p.regression_compare = "p90";
	p.regression_better = "lower";
	p.regression_relative_tolerance = vdbl(0.1);
	p.regression_absolute_tolerance = vint(5);
	p.display_min = vint(-1);
	p.display_max = vdbl(2.5);
	p.display_scale = vint(1000);
	p.display_label = "Latency (\xc2\xb5s)";
	expect_policy(&p, "{\"aggregation\":\"busy-core-equivalents\","
		      "\"display_label\":\"Latency (\\u00b5s)\","
		      "\"display_range\":{\"max\":2.5,\"min\":-1},\"display_scale\":1000,"
		      "\"name\":\"m\",\"regression\":{\"absolute_tolerance\":5,\"better\":\"lower\","
		      "\"compare\":\"p90\",\"relative_tolerance\":0.1},\"summarize\":\"p99\","
		      "\"transform\":\"rate\"}");
}
END_TEST

START_TEST(test_each_option_alone)
{
	struct ksft_metric_policy p;
	static const char *const summaries[] = {
		"last", "total", "p50", "p90", "p99", "max", "distribution",
	};
	static const char *const compares[] = { "last", "total", "p50", "p90", "p99", "max" };
	char want[512];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(summaries); i++) {
		struct ksft_metric_policy q = KSFT_METRIC_POLICY_INIT;

		q.summarize = summaries[i];
		snprintf(want, sizeof(want), "{\"name\":\"m\",\"summarize\":\"%s\"}", summaries[i]);
		expect_policy(&q, want);
	}
	for (i = 0; i < ARRAY_SIZE(compares); i++) {
		struct ksft_metric_policy q = KSFT_METRIC_POLICY_INIT;

		q.regression_compare = compares[i];
		q.regression_better = i % 2 ? "higher" : "lower";
		q.regression_absolute_tolerance = vdbl(0.0);
		snprintf(want, sizeof(want),
			 "{\"name\":\"m\",\"regression\":{\"absolute_tolerance\":0.0,"
			 "\"better\":\"%s\",\"compare\":\"%s\"},\"summarize\":\"total\"}",
			 q.regression_better, compares[i]);
		expect_policy(&q, want);
	}
	p = (struct ksft_metric_policy)KSFT_METRIC_POLICY_INIT;
	p.transform = "rate";
	expect_policy(&p, "{\"name\":\"m\",\"summarize\":\"total\",\"transform\":\"rate\"}");
	p = (struct ksft_metric_policy)KSFT_METRIC_POLICY_INIT;
	p.aggregation = "busy-core-equivalents";
	expect_policy(&p, "{\"aggregation\":\"busy-core-equivalents\",\"name\":\"m\",\"summarize\":\"total\"}");
	p = (struct ksft_metric_policy)KSFT_METRIC_POLICY_INIT;
	p.display_min = vint(0);
	expect_policy(&p, "{\"display_range\":{\"min\":0},\"name\":\"m\",\"summarize\":\"total\"}");
	p = (struct ksft_metric_policy)KSFT_METRIC_POLICY_INIT;
	p.display_max = vint(100);
	expect_policy(&p, "{\"display_range\":{\"max\":100},\"name\":\"m\",\"summarize\":\"total\"}");
	p = (struct ksft_metric_policy)KSFT_METRIC_POLICY_INIT;
	p.display_scale = vdbl(0.001);
	expect_policy(&p, "{\"display_scale\":0.001,\"name\":\"m\",\"summarize\":\"total\"}");
	p = (struct ksft_metric_policy)KSFT_METRIC_POLICY_INIT;
	p.display_label = "Gbit/s";
	expect_policy(&p, "{\"display_label\":\"Gbit/s\",\"name\":\"m\",\"summarize\":\"total\"}");
	p = (struct ksft_metric_policy)KSFT_METRIC_POLICY_INIT;
	p.regression_compare = "max";
	p.regression_better = "higher";
	p.regression_relative_tolerance = vint(0);
	expect_policy(&p, "{\"name\":\"m\",\"regression\":{\"better\":\"higher\",\"compare\":\"max\","
		      "\"relative_tolerance\":0},\"summarize\":\"total\"}");
	/* min == max is a valid (if odd) range. */
	p = (struct ksft_metric_policy)KSFT_METRIC_POLICY_INIT;
	p.display_min = vdbl(5);
	p.display_max = vint(5);
	expect_policy(&p, "{\"display_range\":{\"max\":5,\"min\":5.0},\"name\":\"m\",\"summarize\":\"total\"}");
}
END_TEST

START_TEST(test_numbers_as_given)
{
	struct ksft_metric_policy p = KSFT_METRIC_POLICY_INIT;

	p.display_min = vint(0);
	p.display_max = vint(100);
	p.display_scale = vint(100);
	expect_policy(&p, "{\"display_range\":{\"max\":100,\"min\":0},\"display_scale\":100,"
		      "\"name\":\"m\",\"summarize\":\"total\"}");
	p.display_min = vdbl(0.0);
	p.display_max = vdbl(100.0);
	p.display_scale = vdbl(100.0);
	expect_policy(&p, "{\"display_range\":{\"max\":100.0,\"min\":0.0},\"display_scale\":100.0,"
		      "\"name\":\"m\",\"summarize\":\"total\"}");
	p.display_min = vdbl(-0.5);
	p.display_max = vdbl(1e16);
	p.display_scale = vdbl(1.1e-05);
	expect_policy(&p, "{\"display_range\":{\"max\":1e+16,\"min\":-0.5},\"display_scale\":1.1e-05,"
		      "\"name\":\"m\",\"summarize\":\"total\"}");
	p.display_min = vint(INT64_MIN);
	p.display_max = vint(INT64_MAX);
	p.display_scale = vint(INT64_MAX);
	expect_policy(&p, "{\"display_range\":{\"max\":9223372036854775807,\"min\":-9223372036854775808},"
		      "\"display_scale\":9223372036854775807,\"name\":\"m\",\"summarize\":\"total\"}");
}
END_TEST

START_TEST(test_defaults)
{
	struct ksft_metric_policy p = KSFT_METRIC_POLICY_INIT;

	expect_policy(NULL, "{\"name\":\"m\",\"summarize\":\"total\"}");
	expect_policy(&p, "{\"name\":\"m\",\"summarize\":\"total\"}");
	expect_policy_json(NULL, "{\"name\":\"m\",\"summarize\":\"total\"}");
	expect_policy_json("{}", "{\"name\":\"m\",\"summarize\":\"total\"}");
	/* NULL policy, struct defaults and explicit "total" are one policy. */
	pu_begin();
	pu_assert_ok(ksft_metric_aggregate("m", NULL));
	pu_assert_ok(ksft_metric_aggregate("m", &p));
	p.summarize = "total";
	pu_assert_ok(ksft_metric_aggregate("m", &p));
	pu_assert_ok(ksft_metric_aggregate_json("m", "{\"summarize\":\"total\"}"));
	pu_assert_ok(ksft_metric_aggregate_json("m", NULL));
	pu_assert_ok(ksft_metric_int("m", "scalar", 1, NULL, 0));
	pu_expect_end(POL("{\"name\":\"m\",\"summarize\":\"total\"}") M_OBS);
}
END_TEST

START_TEST(test_emitted_only_if_observed)
{
	pu_begin();
	pu_assert_ok(ksft_metric_aggregate("a", NULL));
	pu_assert_ok(ksft_metric_aggregate("b", NULL));
	pu_assert_ok(ksft_metric_aggregate("c", NULL));
	pu_assert_ok(ksft_metric_aggregate_json("d", "{\"summarize\":\"max\"}"));
	pu_assert_ok(ksft_metric_int("c", "scalar", 1, NULL, 0));
	pu_assert_ok(ksft_metric_json("a", "scalar", "2", NULL));
	/* Similar names are not the metric. */
	pu_assert_ok(ksft_metric_int("bb", "scalar", 3, NULL, 0));
	pu_assert_ok(ksft_metric_int("x", "scalar", 4, NULL, 0));
	pu_expect_end(POL("{\"name\":\"a\",\"summarize\":\"total\"}")
		      POL("{\"name\":\"c\",\"summarize\":\"total\"}")
		      OBS("{\"name\":\"c\",\"shape\":\"scalar\",\"time\":T,\"value\":1}")
		      OBS("{\"name\":\"a\",\"shape\":\"scalar\",\"time\":T,\"value\":2}")
		      OBS("{\"name\":\"bb\",\"shape\":\"scalar\",\"time\":T,\"value\":3}")
		      OBS("{\"name\":\"x\",\"shape\":\"scalar\",\"time\":T,\"value\":4}"));
}
END_TEST

START_TEST(test_registration_order_first)
{
	struct ksft_metric_policy max = KSFT_METRIC_POLICY_INIT;

	max.summarize = "max";
	pu_begin();
	/* An observation without policy, then policies registered later ... */
	pu_assert_ok(ksft_metric_int("x", "scalar", 1, NULL, 0));
	pu_assert_ok(ksft_metric_aggregate("z", &max));
	pu_assert_ok(ksft_metric_int("z", "scalar", 2, NULL, 0));
	pu_assert_ok(ksft_metric_aggregate_json("y", "{\"summarize\":\"p50\"}"));
	pu_assert_ok(ksft_metric_int("y", "scalar", 3, NULL, 0));
	pu_assert_ok(ksft_metric_aggregate("a", NULL));
	pu_assert_ok(ksft_metric_int("a", "scalar", 4, NULL, 0));
	pu_assert_ok(ksft_metric_int("z", "scalar", 5, NULL, 0));
	/* ... all come first, in registration (not name) order. */
	pu_expect_end(POL("{\"name\":\"z\",\"summarize\":\"max\"}")
		      POL("{\"name\":\"y\",\"summarize\":\"p50\"}")
		      POL("{\"name\":\"a\",\"summarize\":\"total\"}")
		      OBS("{\"name\":\"x\",\"shape\":\"scalar\",\"time\":T,\"value\":1}")
		      OBS("{\"name\":\"z\",\"shape\":\"scalar\",\"time\":T,\"value\":2}")
		      OBS("{\"name\":\"y\",\"shape\":\"scalar\",\"time\":T,\"value\":3}")
		      OBS("{\"name\":\"a\",\"shape\":\"scalar\",\"time\":T,\"value\":4}")
		      OBS("{\"name\":\"z\",\"shape\":\"scalar\",\"time\":T,\"value\":5}"));
}
END_TEST

START_TEST(test_same_policy_twice)
{
	struct ksft_metric_policy p = KSFT_METRIC_POLICY_INIT, q;
	char label[] = "Percent of one CPU";

	p.summarize = "p90";
	p.display_min = vint(0);
	p.display_max = vint(100);
	p.display_scale = vint(1);
	p.display_label = label;
	p.regression_compare = "p50";
	p.regression_better = "higher";
	p.regression_relative_tolerance = vint(0);
	/* Equal by value: 0 == 0.0 == -0.0, 100 == 100.0, 1 == 1.0, another label copy. */
	q = p;
	q.display_min = vdbl(0.0);
	q.display_max = vdbl(100.0);
	q.display_scale = vdbl(1.0);
	q.regression_relative_tolerance = vdbl(-0.0);
	q.display_label = "Percent of one CPU";
	pu_begin();
	pu_assert_ok(ksft_metric_aggregate("m", &p));
	pu_assert_ok(ksft_metric_aggregate("m", &p));
	/* The library keeps its own copy of the label: our buffer may change. */
	label[0] = 'X';
	pu_assert_ok(ksft_metric_aggregate("m", &q));
	pu_assert_err(ksft_metric_aggregate("m", &p), EEXIST, "Conflicting aggregation for metric m");
	label[0] = 'P';
	pu_assert_ok(ksft_metric_aggregate_json("m", "{\"summarize\":\"p90\",\"display_range\":"
		"{\"min\":0.0,\"max\":100},\"display_scale\":1.0,\"display_label\":\"Percent of one CPU\","
		"\"regression\":{\"compare\":\"p50\",\"better\":\"higher\",\"relative_tolerance\":0}}"));
	pu_assert_ok(ksft_metric_int("m", "scalar", 1, NULL, 0));
	/* Registering an equal policy after the observation is fine too. */
	pu_assert_ok(ksft_metric_aggregate("m", &p));
	label[0] = 'Y';
	/* One line; the latest spelling wins, as with the reference's dict assignment. */
	pu_expect_end(POL("{\"display_label\":\"Percent of one CPU\",\"display_range\":{\"max\":100,\"min\":0},"
			  "\"display_scale\":1,\"name\":\"m\",\"regression\":{\"better\":\"higher\","
			  "\"compare\":\"p50\",\"relative_tolerance\":0},\"summarize\":\"p90\"}") M_OBS);
}
END_TEST

START_TEST(test_equal_spelling_latest_wins)
{
	struct ksft_metric_policy p = KSFT_METRIC_POLICY_INIT;

	p.display_min = vint(0);
	pu_begin();
	pu_assert_ok(ksft_metric_aggregate("m", &p));
	p.display_min = vdbl(0.0);
	pu_assert_ok(ksft_metric_aggregate("m", &p));
	pu_assert_ok(ksft_metric_int("m", "scalar", 1, NULL, 0));
	pu_expect_end(POL("{\"display_range\":{\"min\":0.0},\"name\":\"m\",\"summarize\":\"total\"}") M_OBS);
}
END_TEST

START_TEST(test_conflict)
{
	struct ksft_metric_policy p = KSFT_METRIC_POLICY_INIT, q;

	p.summarize = "max";
	p.display_max = vint(9007199254740993);
	pu_begin();
	pu_assert_ok(ksft_metric_aggregate("m", &p));
	q = p;
	q.summarize = "p50";
	pu_assert_err(ksft_metric_aggregate("m", &q), EEXIST, "Conflicting aggregation for metric m");
	pu_assert_err(ksft_metric_aggregate("m", NULL), EEXIST, "Conflicting aggregation for metric m");
	pu_assert_err(ksft_metric_aggregate_json("m", "{\"summarize\":\"max\"}"), EEXIST,
		      "Conflicting aggregation for metric m");
	q = p;
	q.display_label = "x";
	pu_assert_err(ksft_metric_aggregate("m", &q), EEXIST, "Conflicting aggregation for metric m");
	q = p;
	q.transform = "rate";
	pu_assert_err(ksft_metric_aggregate("m", &q), EEXIST, "Conflicting aggregation for metric m");
	/* Exact comparison: 2**53 + 1 != 2**53 (the nearest double). */
	q = p;
	q.display_max = vdbl(9007199254740992.0);
	pu_assert_err(ksft_metric_aggregate("m", &q), EEXIST, "Conflicting aggregation for metric m");
	q = p;
	q.display_min = vint(0);
	pu_assert_err(ksft_metric_aggregate("m", &q), EEXIST, "Conflicting aggregation for metric m");
	pu_assert_ok(ksft_metric_int("m", "scalar", 1, NULL, 0));
	/* After the observation: still a conflict (not "late"). */
	pu_assert_err(ksft_metric_aggregate_json("m", "{\"summarize\":\"last\"}"), EEXIST,
		      "Conflicting aggregation for metric m");
	/* The first registration stands. */
	pu_expect_end(POL("{\"display_range\":{\"max\":9007199254740993},\"name\":\"m\","
			  "\"summarize\":\"max\"}") M_OBS);
}
END_TEST

START_TEST(test_after_observation)
{
	pu_begin();
	pu_assert_ok(ksft_metric_int("m", "scalar", 1, NULL, 0));
	pu_assert_err(ksft_metric_aggregate("m", NULL), EALREADY,
		      "Aggregation registered after metric m was recorded");
	pu_assert_err(ksft_metric_aggregate_json("m", "{\"summarize\":\"max\"}"), EALREADY,
		      "Aggregation registered after metric m was recorded");
	/* Also when the observation came through the JSON entry point. */
	pu_assert_ok(ksft_metric_json("j", "per-cpu", "[1,null]", NULL));
	pu_assert_err(ksft_metric_aggregate("j", NULL), EALREADY,
		      "Aggregation registered after metric j was recorded");
	/* Other names are unaffected; nothing was registered for m or j. */
	pu_assert_ok(ksft_metric_aggregate("n", NULL));
	pu_assert_ok(ksft_metric_int("n", "scalar", 2, NULL, 0));
	pu_expect_end(POL("{\"name\":\"n\",\"summarize\":\"total\"}") M_OBS
		      OBS("{\"name\":\"j\",\"shape\":\"per-cpu\",\"time\":T,\"value\":[1,null]}")
		      OBS("{\"name\":\"n\",\"shape\":\"scalar\",\"time\":T,\"value\":2}"));
}
END_TEST

static void *observe_in_thread(void *arg)
{
	(void)arg;
	return (void *)(intptr_t)ksft_metric_int("t", "scalar", 1, NULL, 0);
}

START_TEST(test_after_observation_other_thread)
{
	pthread_t th;
	void *ret;

	pu_begin();
	ck_assert_int_eq(pthread_create(&th, NULL, observe_in_thread, NULL), 0);
	ck_assert_int_eq(pthread_join(th, &ret), 0);
	ck_assert_int_eq((int)(intptr_t)ret, 0);
	pu_assert_err(ksft_metric_aggregate("t", NULL), EALREADY,
		      "Aggregation registered after metric t was recorded");
	pu_expect_end(OBS("{\"name\":\"t\",\"shape\":\"scalar\",\"time\":T,\"value\":1}"));
}
END_TEST

/* ------------------------------------------------------------------ */
/* Invalid policies: -EINVAL, a message naming the field, nothing kept. */

/*
 * Around each bad registration for "bad": a good policy and observation
 * before; afterwards "bad" is still unregistered (a different, valid
 * policy is accepted) and the output is exactly the good lines.
 */
static void reject_begin(void)
{
	struct ksft_metric_policy good = KSFT_METRIC_POLICY_INIT;

	good.summarize = "max";
	pu_begin();
	pu_assert_ok(ksft_metric_aggregate("good", &good));
	pu_assert_ok(ksft_metric_int("good", "scalar", 1, NULL, 0));
}

static void reject_end_at(const char *file, int line)
{
	struct ksft_metric_policy last = KSFT_METRIC_POLICY_INIT;

	last.summarize = "last";
	pu_assert_ok(ksft_metric_aggregate("bad", &last));
	pu_assert_ok(ksft_metric_int("bad", "scalar", 2, NULL, 0));
	pu_expect_end_at(file, line,
			 POL("{\"name\":\"good\",\"summarize\":\"max\"}")
			 POL("{\"name\":\"bad\",\"summarize\":\"last\"}")
			 OBS("{\"name\":\"good\",\"shape\":\"scalar\",\"time\":T,\"value\":1}")
			 OBS("{\"name\":\"bad\",\"shape\":\"scalar\",\"time\":T,\"value\":2}"));
}

#define REJECT(call, msg) do {					\
	reject_begin();						\
	pu_assert_err(call, EINVAL, msg);			\
	reject_end_at(__FILE__, __LINE__);			\
} while (0)

/* The refused call's message, kept: a later successful call clears errmsg(). */
static char rejected_msg[512];

#define REJECT_PREFIX(call, pfx) do {				\
	reject_begin();						\
	pu_assert_err_prefix(call, EINVAL, pfx);		\
	snprintf(rejected_msg, sizeof(rejected_msg), "%s", ksft_metric_errmsg()); \
	reject_end_at(__FILE__, __LINE__);			\
} while (0)

#define SUMMARIES "last, total, p50, p90, p99, max, distribution"
#define COMPARES "last, total, p50, p90, p99, max"

/* A valid regression policy to break one field at a time. */
static struct ksft_metric_policy regression(void)
{
	struct ksft_metric_policy p = KSFT_METRIC_POLICY_INIT;

	p.regression_compare = "p50";
	p.regression_better = "higher";
	p.regression_relative_tolerance = vdbl(0.05);
	return p;
}

START_TEST(test_invalid_names)
{
	REJECT(ksft_metric_aggregate("", NULL), "metric name is empty");
	REJECT(ksft_metric_aggregate(NULL, NULL), "metric name is NULL");
	REJECT(ksft_metric_aggregate_json("", "{}"), "metric name is empty");
	REJECT(ksft_metric_aggregate_json(NULL, "{}"), "metric name is NULL");
	/* Invalid UTF-8 names (lone continuation, truncated sequence, overlong
	 * '/', surrogate) never reach a policy line. */
	REJECT(ksft_metric_aggregate("m\x80", NULL), "policy metric name is not valid UTF-8");
	REJECT(ksft_metric_aggregate("ab\xc3", NULL), "policy metric name is not valid UTF-8");
	REJECT(ksft_metric_aggregate("\xc0\xaf", NULL), "policy metric name is not valid UTF-8");
	REJECT(ksft_metric_aggregate_json("\xed\xa0\x80", "{}"),
	       "policy metric name is not valid UTF-8");
	/* Valid multi-byte names are fine. */
	pu_begin();
	pu_assert_ok(ksft_metric_aggregate("d\xc3\xa9" "bit", NULL));
	pu_assert_ok(ksft_metric_int("d\xc3\xa9" "bit", "scalar", 1, NULL, 0));
	pu_expect_end(POL("{\"name\":\"d\\u00e9bit\",\"summarize\":\"total\"}")
		      OBS("{\"name\":\"d\\u00e9bit\",\"shape\":\"scalar\",\"time\":T,\"value\":1}"));
}
END_TEST

START_TEST(test_invalid_choices)
{
	struct ksft_metric_policy p = KSFT_METRIC_POLICY_INIT;

	p.summarize = "avg";
	REJECT(ksft_metric_aggregate("bad", &p),
	       "metric bad: unknown summarize 'avg' (expected one of: " SUMMARIES ")");
	p.summarize = "";
	REJECT(ksft_metric_aggregate("bad", &p),
	       "metric bad: unknown summarize '' (expected one of: " SUMMARIES ")");
	p.summarize = "MAX";
	REJECT(ksft_metric_aggregate("bad", &p),
	       "metric bad: unknown summarize 'MAX' (expected one of: " SUMMARIES ")");
	p = (struct ksft_metric_policy)KSFT_METRIC_POLICY_INIT;
	p.transform = "delta";
	REJECT(ksft_metric_aggregate("bad", &p),
	       "metric bad: unknown transform 'delta' (expected one of: rate)");
	p = (struct ksft_metric_policy)KSFT_METRIC_POLICY_INIT;
	p.aggregation = "sum";
	REJECT(ksft_metric_aggregate("bad", &p),
	       "metric bad: unknown aggregation 'sum' (expected one of: busy-core-equivalents)");
	p = regression();
	p.regression_compare = "p75";
	REJECT(ksft_metric_aggregate("bad", &p),
	       "metric bad: unknown regression compare 'p75' (expected one of: " COMPARES ")");
	p.regression_compare = "distribution";
	REJECT(ksft_metric_aggregate("bad", &p),
	       "metric bad: unknown regression compare 'distribution' (expected one of: " COMPARES ")");
	p = regression();
	p.regression_better = "smaller";
	REJECT(ksft_metric_aggregate("bad", &p),
	       "metric bad: unknown regression better 'smaller' (expected one of: higher, lower)");
	p = (struct ksft_metric_policy)KSFT_METRIC_POLICY_INIT;
	p.summarize = "\xff";
	REJECT_PREFIX(ksft_metric_aggregate("bad", &p), "metric bad: summarize ");
}
END_TEST

START_TEST(test_invalid_regression)
{
	struct ksft_metric_policy p = regression();

	p.regression_relative_tolerance.type = KSFT_METRIC_UNSET;
	REJECT(ksft_metric_aggregate("bad", &p),
	       "metric bad: regression policy needs relative_tolerance or absolute_tolerance");
	p = regression();
	p.regression_better = NULL;
	REJECT(ksft_metric_aggregate("bad", &p),
	       "metric bad: regression policy needs better (higher or lower)");
	/* Regression fields without compare. */
	p = regression();
	p.regression_compare = NULL;
	REJECT(ksft_metric_aggregate("bad", &p), "metric bad: regression policy needs compare");
	p = (struct ksft_metric_policy)KSFT_METRIC_POLICY_INIT;
	p.regression_absolute_tolerance = vint(1);
	REJECT(ksft_metric_aggregate("bad", &p), "metric bad: regression policy needs compare");
	p = regression();
	p.regression_relative_tolerance = vdbl(-0.05);
	REJECT(ksft_metric_aggregate("bad", &p), "metric bad: regression relative_tolerance is negative");
	p = regression();
	p.regression_absolute_tolerance = vint(-1);
	REJECT(ksft_metric_aggregate("bad", &p), "metric bad: regression absolute_tolerance is negative");
	p = regression();
	p.regression_relative_tolerance = vdbl(NAN);
	REJECT(ksft_metric_aggregate("bad", &p), "metric bad: regression relative_tolerance is NaN");
	p = regression();
	p.regression_absolute_tolerance = vdbl(INFINITY);
	REJECT(ksft_metric_aggregate("bad", &p), "metric bad: regression absolute_tolerance is infinite");
	p = regression();
	p.regression_relative_tolerance.type = KSFT_METRIC_STRING;
	p.regression_relative_tolerance.u.s = "0.05";
	REJECT(ksft_metric_aggregate("bad", &p),
	       "metric bad: regression relative_tolerance must be a number");
}
END_TEST

START_TEST(test_invalid_display)
{
	struct ksft_metric_policy p = KSFT_METRIC_POLICY_INIT;

	p.display_min = vint(10);
	p.display_max = vdbl(9.5);
	REJECT(ksft_metric_aggregate("bad", &p), "metric bad: display_range min is greater than max");
	p.display_min = vdbl(NAN);
	p.display_max.type = KSFT_METRIC_UNSET;
	REJECT(ksft_metric_aggregate("bad", &p), "metric bad: display_range min is NaN");
	p = (struct ksft_metric_policy)KSFT_METRIC_POLICY_INIT;
	p.display_max = vdbl(-INFINITY);
	REJECT(ksft_metric_aggregate("bad", &p), "metric bad: display_range max is infinite");
	p = (struct ksft_metric_policy)KSFT_METRIC_POLICY_INIT;
	p.display_max.type = KSFT_METRIC_BOOL;
	p.display_max.u.b = 1;
	REJECT(ksft_metric_aggregate("bad", &p), "metric bad: display_range max must be a number");
	p = (struct ksft_metric_policy)KSFT_METRIC_POLICY_INIT;
	p.display_scale = vint(0);
	REJECT(ksft_metric_aggregate("bad", &p), "metric bad: display_scale must be positive");
	p.display_scale = vdbl(0.0);
	REJECT(ksft_metric_aggregate("bad", &p), "metric bad: display_scale must be positive");
	p.display_scale = vdbl(-0.0);
	REJECT(ksft_metric_aggregate("bad", &p), "metric bad: display_scale must be positive");
	p.display_scale = vint(-100);
	REJECT(ksft_metric_aggregate("bad", &p), "metric bad: display_scale must be positive");
	p.display_scale = vdbl(NAN);
	REJECT(ksft_metric_aggregate("bad", &p), "metric bad: display_scale is NaN");
	p = (struct ksft_metric_policy)KSFT_METRIC_POLICY_INIT;
	p.display_label = "";
	REJECT(ksft_metric_aggregate("bad", &p), "metric bad: display_label is empty");
	p.display_label = "ab\xc3";
	REJECT(ksft_metric_aggregate("bad", &p), "metric bad: display_label is not valid UTF-8");
}
END_TEST

START_TEST(test_invalid_size)
{
	struct ksft_metric_policy p = KSFT_METRIC_POLICY_INIT;

	ck_assert_uint_eq(p.sz, sizeof(p));
	p.summarize = "max";
	/* Sizes no version of the struct can have (it would cut a pointer). */
	p.sz = sizeof(p) - 1;
	REJECT_PREFIX(ksft_metric_aggregate("bad", &p), "metric bad: policy sz ");
	p.sz = 0;
	REJECT_PREFIX(ksft_metric_aggregate("bad", &p), "metric bad: policy sz 0 ");
	/* Larger (a newer caller's struct) is fine. */
	{
		struct {
			struct ksft_metric_policy p;
			char future[16];
		} big;

		memset(&big, 0, sizeof(big));
		big.p = p;
		big.p.sz = sizeof(big);
		expect_policy(&big.p, "{\"name\":\"m\",\"summarize\":\"max\"}");
	}
}
END_TEST

/* ------------------------------------------------------------------ */
/* The JSON variant. */

START_TEST(test_json_all_options)
{
	expect_policy_json("{\"summarize\":\"p90\",\"transform\":\"rate\","
			   "\"aggregation\":\"busy-core-equivalents\","
			   "\"display_range\":{\"min\":0,\"max\":100.0},\"display_scale\":100,"
			   "\"display_label\":\"Percent of one CPU \\u00b5\","
			   "\"regression\":{\"compare\":\"p50\",\"better\":\"higher\","
			   "\"relative_tolerance\":0.05,\"absolute_tolerance\":1e2}}",
			   "{\"aggregation\":\"busy-core-equivalents\","
			   "\"display_label\":\"Percent of one CPU \\u00b5\","
			   "\"display_range\":{\"max\":100.0,\"min\":0},\"display_scale\":100,"
			   "\"name\":\"m\",\"regression\":{\"absolute_tolerance\":100.0,"
			   "\"better\":\"higher\",\"compare\":\"p50\",\"relative_tolerance\":0.05},"
			   "\"summarize\":\"p90\",\"transform\":\"rate\"}");
	expect_policy_json(" { \"display_range\" : { \"max\" : 5 } } ",
			   "{\"display_range\":{\"max\":5},\"name\":\"m\",\"summarize\":\"total\"}");
}
END_TEST

START_TEST(test_json_nulls_unset)
{
	expect_policy_json("{\"summarize\":null,\"transform\":null,\"aggregation\":null,"
			   "\"regression\":null,\"display_range\":null,\"display_scale\":null,"
			   "\"display_label\":null}",
			   "{\"name\":\"m\",\"summarize\":\"total\"}");
	expect_policy_json("{\"display_range\":{\"min\":null,\"max\":3}}",
			   "{\"display_range\":{\"max\":3},\"name\":\"m\",\"summarize\":\"total\"}");
	expect_policy_json("{\"regression\":{\"compare\":\"max\",\"better\":\"lower\","
			   "\"relative_tolerance\":null,\"absolute_tolerance\":0}}",
			   "{\"name\":\"m\",\"regression\":{\"absolute_tolerance\":0,\"better\":\"lower\","
			   "\"compare\":\"max\"},\"summarize\":\"total\"}");
}
END_TEST

START_TEST(test_json_invalid_values)
{
	REJECT(ksft_metric_aggregate_json("bad", "{\"summarize\":\"avg\"}"),
	       "metric bad: unknown summarize 'avg' (expected one of: " SUMMARIES ")");
	REJECT(ksft_metric_aggregate_json("bad", "{\"transform\":\"delta\"}"),
	       "metric bad: unknown transform 'delta' (expected one of: rate)");
	REJECT(ksft_metric_aggregate_json("bad", "{\"aggregation\":\"sum\"}"),
	       "metric bad: unknown aggregation 'sum' (expected one of: busy-core-equivalents)");
	REJECT(ksft_metric_aggregate_json("bad", "{\"regression\":{\"compare\":\"distribution\","
					  "\"better\":\"higher\",\"relative_tolerance\":0.1}}"),
	       "metric bad: unknown regression compare 'distribution' (expected one of: " COMPARES ")");
	REJECT(ksft_metric_aggregate_json("bad", "{\"regression\":{\"compare\":\"p50\","
					  "\"better\":\"up\",\"relative_tolerance\":0.1}}"),
	       "metric bad: unknown regression better 'up' (expected one of: higher, lower)");
	REJECT(ksft_metric_aggregate_json("bad", "{\"regression\":{\"compare\":\"p50\",\"better\":\"higher\"}}"),
	       "metric bad: regression policy needs relative_tolerance or absolute_tolerance");
	REJECT(ksft_metric_aggregate_json("bad", "{\"regression\":{\"better\":\"higher\","
					  "\"relative_tolerance\":0.1}}"),
	       "metric bad: regression policy needs compare");
	REJECT(ksft_metric_aggregate_json("bad", "{\"regression\":{}}"),
	       "metric bad: regression policy needs compare");
	REJECT(ksft_metric_aggregate_json("bad", "{\"regression\":{\"compare\":\"p50\","
					  "\"better\":\"higher\",\"absolute_tolerance\":-1}}"),
	       "metric bad: regression absolute_tolerance is negative");
	REJECT(ksft_metric_aggregate_json("bad", "{\"display_range\":{\"min\":1,\"max\":0}}"),
	       "metric bad: display_range min is greater than max");
	REJECT(ksft_metric_aggregate_json("bad", "{\"display_range\":{}}"),
	       "metric bad: display_range needs min or max");
	REJECT(ksft_metric_aggregate_json("bad", "{\"display_range\":{\"min\":null}}"),
	       "metric bad: display_range needs min or max");
	REJECT(ksft_metric_aggregate_json("bad", "{\"display_scale\":0}"),
	       "metric bad: display_scale must be positive");
	REJECT(ksft_metric_aggregate_json("bad", "{\"display_scale\":-2.5}"),
	       "metric bad: display_scale must be positive");
	REJECT(ksft_metric_aggregate_json("bad", "{\"display_label\":\"\"}"),
	       "metric bad: display_label is empty");
	REJECT_PREFIX(ksft_metric_aggregate_json("bad", "{\"display_scale\":1e999}"),
		      "metric bad: policy JSON: ");
}
END_TEST

START_TEST(test_json_invalid_shape)
{
	REJECT(ksft_metric_aggregate_json("bad", "{\"summarize\":\"max\",\"foo\":1}"),
	       "metric bad: unknown policy key 'foo'");
	REJECT(ksft_metric_aggregate_json("bad", "{\"name\":\"bad\"}"),
	       "metric bad: unknown policy key 'name'");
	REJECT(ksft_metric_aggregate_json("bad", "{\"regression\":{\"compare\":\"p50\",\"better\":\"higher\","
					  "\"relative_tolerance\":0.1,\"tolerance\":1}}"),
	       "metric bad: unknown regression key 'tolerance'");
	REJECT(ksft_metric_aggregate_json("bad", "{\"display_range\":{\"min\":0,\"mid\":1}}"),
	       "metric bad: unknown display_range key 'mid'");
	/* Wrong types. */
	REJECT(ksft_metric_aggregate_json("bad", "{\"summarize\":5}"),
	       "metric bad: summarize must be a string");
	REJECT(ksft_metric_aggregate_json("bad", "{\"transform\":[\"rate\"]}"),
	       "metric bad: transform must be a string");
	REJECT(ksft_metric_aggregate_json("bad", "{\"aggregation\":true}"),
	       "metric bad: aggregation must be a string");
	REJECT(ksft_metric_aggregate_json("bad", "{\"display_label\":1}"),
	       "metric bad: display_label must be a string");
	REJECT(ksft_metric_aggregate_json("bad", "{\"display_scale\":\"100\"}"),
	       "metric bad: display_scale must be a number");
	REJECT(ksft_metric_aggregate_json("bad", "{\"display_scale\":true}"),
	       "metric bad: display_scale must be a number");
	REJECT(ksft_metric_aggregate_json("bad", "{\"display_range\":[0,100]}"),
	       "metric bad: display_range must be an object");
	REJECT(ksft_metric_aggregate_json("bad", "{\"display_range\":{\"min\":\"0\"}}"),
	       "metric bad: display_range min must be a number");
	REJECT(ksft_metric_aggregate_json("bad", "{\"regression\":\"p50\"}"),
	       "metric bad: regression must be an object");
	REJECT(ksft_metric_aggregate_json("bad", "{\"regression\":{\"compare\":50,\"better\":\"higher\","
					  "\"relative_tolerance\":0.1}}"),
	       "metric bad: regression compare must be a string");
	REJECT(ksft_metric_aggregate_json("bad", "{\"regression\":{\"compare\":\"p50\",\"better\":\"higher\","
					  "\"relative_tolerance\":\"5%\"}}"),
	       "metric bad: regression relative_tolerance must be a number");
	/* Not an object, malformed, duplicate keys. */
	REJECT(ksft_metric_aggregate_json("bad", "[]"), "metric bad: policy JSON must be an object");
	REJECT_PREFIX(ksft_metric_aggregate_json("bad", "\"max\""), "metric bad: policy JSON");
	REJECT_PREFIX(ksft_metric_aggregate_json("bad", "{\"summarize\":"), "metric bad: policy JSON: ");
	ck_assert_msg(strstr(rejected_msg, " at line 1 column ") != NULL,
		      "no position in \"%s\"", rejected_msg);
	REJECT_PREFIX(ksft_metric_aggregate_json("bad", "{\"summarize\":\"max\",\"summarize\":\"max\"}"),
		      "metric bad: policy JSON: ");
}
END_TEST

START_TEST(test_json_equals_struct)
{
	struct ksft_metric_policy p = KSFT_METRIC_POLICY_INIT;

	p.summarize = "distribution";
	p.transform = "rate";
	p.display_min = vint(0);
	pu_begin();
	pu_assert_ok(ksft_metric_aggregate_json("m", "{\"display_range\":{\"min\":0},"
						"\"summarize\":\"distribution\",\"transform\":\"rate\"}"));
	pu_assert_ok(ksft_metric_aggregate("m", &p));
	p.transform = NULL;
	pu_assert_err(ksft_metric_aggregate("m", &p), EEXIST, "Conflicting aggregation for metric m");
	pu_assert_ok(ksft_metric_int("m", "scalar", 1, NULL, 0));
	pu_expect_end(POL("{\"display_range\":{\"min\":0},\"name\":\"m\",\"summarize\":\"distribution\","
			  "\"transform\":\"rate\"}") M_OBS);
}
END_TEST

/* ------------------------------------------------------------------ */
/* The seed's example lines, exactly (times masked).                  */

START_TEST(test_seed_patch1_readme)
{
	static const struct ksft_metric_label rx[] = { KSFT_METRIC_LABEL_STR("direction", "rx") };
	static const struct ksft_metric_label local[] = { KSFT_METRIC_LABEL_STR("host", "local") };
	static const double v[4] = { 75.0, 22.0, 0, 100.0 };
	static const unsigned char present[4] = { 1, 1, 0, 1 };

	pu_begin();
	/* ksft_metric("throughput", 100.5, shape="scalar", direction="rx") */
	pu_assert_ok(ksft_metric_double("throughput", "scalar", 100.5, rx, 1));
	/* ksft_metric("cpu.utilization", [75.0, 22.0, None, 100.0], shape="per-cpu", host="local") */
	pu_assert_ok(ksft_metric_array("cpu.utilization", "per-cpu", v, present, 4, local, 1));
	pu_expect_end(
		"# ktap-metric-json: {\"direction\":\"rx\",\"name\":\"throughput\",\"shape\":\"scalar\",\"time\":T,\"value\":100.5}\n"
		"# ktap-metric-json: {\"host\":\"local\",\"name\":\"cpu.utilization\",\"shape\":\"per-cpu\",\"time\":T,\"value\":[75.0,22.0,null,100.0]}\n");

	/* Nested by run_kselftest.sh: "# # ktap-metric-json: <json>". */
	pu_assert_ok(ksft_metric_set_prefix("# # "));
	pu_begin();
	pu_assert_ok(ksft_metric_json("throughput", "scalar", "100.5", "{\"direction\":\"rx\"}"));
	pu_expect_end("# # ktap-metric-json: {\"direction\":\"rx\",\"name\":\"throughput\",\"shape\":\"scalar\",\"time\":T,\"value\":100.5}\n");
}
END_TEST

START_TEST(test_seed_patch2_readme)
{
	static const struct ksft_metric_label local[] = { KSFT_METRIC_LABEL_STR("host", "local") };
	struct ksft_metric_policy p = KSFT_METRIC_POLICY_INIT;
	static const char want[] =
		"# ktap-metric-policy-json: {\"display_range\":{\"min\":0},\"name\":\"nic.rx.dropped\",\"summarize\":\"distribution\",\"transform\":\"rate\"}\n"
		"# ktap-metric-json: {\"host\":\"local\",\"name\":\"nic.rx.dropped\",\"shape\":\"scalar\",\"time\":T,\"value\":0}\n";

	/*
	 * ksft_metric_aggregate("nic.rx.dropped", summarize="distribution",
	 *                       transform="rate", display_range={"min": 0})
	 * ksft_metric("nic.rx.dropped", 0, shape="scalar", host="local")
	 */
	p.summarize = "distribution";
	p.transform = "rate";
	p.display_min = vint(0);
	pu_begin();
	pu_assert_ok(ksft_metric_aggregate("nic.rx.dropped", &p));
	pu_assert_ok(ksft_metric_int("nic.rx.dropped", "scalar", 0, local, 1));
	pu_expect_end(want);
	/* The same through the JSON entry points. */
	pu_begin();
	pu_assert_ok(ksft_metric_aggregate_json("nic.rx.dropped", "{\"summarize\":\"distribution\","
						"\"transform\":\"rate\",\"display_range\":{\"min\":0}}"));
	pu_assert_ok(ksft_metric_json("nic.rx.dropped", "scalar", "0", "{\"host\":\"local\"}"));
	pu_expect_end(want);
}
END_TEST

/* SystemMonitor._register_aggregations() with the numbers as the text shows them. */
static void register_system_monitor(void)
{
	static const char *const cpu_time[] = { "cpu.time.usr", "cpu.time.sys", "cpu.time.sirq" };
	struct ksft_metric_policy p = KSFT_METRIC_POLICY_INIT;
	size_t i;

	p.summarize = "p90";
	p.transform = "rate";
	p.aggregation = "busy-core-equivalents";
	p.display_min = vdbl(0.0);
	p.display_max = vdbl(100.0);
	p.display_scale = vdbl(100.0);
	p.display_label = "Percent of one CPU";
	for (i = 0; i < ARRAY_SIZE(cpu_time); i++)
		pu_assert_ok(ksft_metric_aggregate(cpu_time[i], &p));
	p.transform = NULL;
	p.display_scale.type = KSFT_METRIC_UNSET;
	pu_assert_ok(ksft_metric_aggregate("cpu.utilization", &p));
	/* NIC policies: registered, never observed here, so not emitted. */
	pu_assert_ok(ksft_metric_aggregate_json("nic.rx.dropped", "{\"summarize\":\"distribution\","
						"\"transform\":\"rate\",\"display_range\":{\"min\":0}}"));
}

/* The first values of the patch 3 sample (the text's arrays are 224 long). */
START_TEST(test_seed_patch3_policies)
{
	static const struct ksft_metric_label local[] = { KSFT_METRIC_LABEL_STR("host", "local") };
	static const char *const names[] = {
		"cpu.time.usr", "cpu.time.sys", "cpu.time.sirq", "cpu.utilization",
	};
	static const char *const values[] = {
		"[0.0,0.0,0.02,0.0,0.0,0.01,0.0,0.0,0.01,0.0,0.01,0.0,0.0,0.0,0.16]",
		"[0.0,0.0,0.0,0.0,0.0,0.02,0.0,0.0,0.0,0.01,0.01,0.0,0.0,0.01,0.13]",
		"[0.09,0.0,0.0,0.0,0.0,0.0,0.0,0.01,0.0,0.0,0.01,0.0,0.0,0.0,0.08]",
		"[9.0909,0.0,2.0202,0.0,0.0,3.0,0.0,0.9901,0.9901,1.0,2.9412,0.0,0.0,0.9901,30.0]",
	};
	char want[8192];
	size_t i;

	strcpy(want,
	       "# # ktap-metric-policy-json: {\"aggregation\":\"busy-core-equivalents\",\"display_label\":\"Percent of one CPU\",\"display_range\":{\"max\":100.0,\"min\":0.0},\"display_scale\":100.0,\"name\":\"cpu.time.usr\",\"summarize\":\"p90\",\"transform\":\"rate\"}\n"
	       "# # ktap-metric-policy-json: {\"aggregation\":\"busy-core-equivalents\",\"display_label\":\"Percent of one CPU\",\"display_range\":{\"max\":100.0,\"min\":0.0},\"display_scale\":100.0,\"name\":\"cpu.time.sys\",\"summarize\":\"p90\",\"transform\":\"rate\"}\n"
	       "# # ktap-metric-policy-json: {\"aggregation\":\"busy-core-equivalents\",\"display_label\":\"Percent of one CPU\",\"display_range\":{\"max\":100.0,\"min\":0.0},\"display_scale\":100.0,\"name\":\"cpu.time.sirq\",\"summarize\":\"p90\",\"transform\":\"rate\"}\n"
	       "# # ktap-metric-policy-json: {\"aggregation\":\"busy-core-equivalents\",\"display_label\":\"Percent of one CPU\",\"display_range\":{\"max\":100.0,\"min\":0.0},\"name\":\"cpu.utilization\",\"summarize\":\"p90\"}\n");
	pu_assert_ok(ksft_metric_set_prefix("# # "));
	pu_begin();
	register_system_monitor();
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		double v[32];
		const char *p = values[i];
		size_t n = 0;

		/* The C array API, from the text's numbers. */
		while (*p != ']' && n < ARRAY_SIZE(v)) {
			char *end;

			v[n++] = strtod(p + 1, &end);
			p = end;
		}
		ck_assert_uint_eq(n, 15);
		pu_assert_ok(ksft_metric_array(names[i], "per-cpu", v, NULL, n, local, 1));
		snprintf(want + strlen(want), sizeof(want) - strlen(want),
			 "# # ktap-metric-json: {\"host\":\"local\",\"name\":\"%s\",\"shape\":\"per-cpu\","
			 "\"time\":T,\"value\":%s}\n", names[i], values[i]);
	}
	pu_expect_end(want);
}
END_TEST

/* The tail of patch 3's first cpu.utilization sample, through the JSON entry point. */
START_TEST(test_seed_patch3_json_array)
{
	static const char value[] =
		"[0.0,0.0,1.0,3.0,12.0,3.0,0.0,0.0,1.0,0.0,0.0,1.9802,0.0,0.0,2.0,0.0,0.9901,"
		"0.0,19.1919,0.0,0.0,0.0,0.0,1.0,0.9901,0.0,1.9608,2.9703,3.8835,2.9126,"
		"1.0101,8.9109,6.0,30.0,5.0,9.0909,3.9604,2.9412,2.0202]";
	char want[2048];

	snprintf(want, sizeof(want),
		 "# # ktap-metric-policy-json: {\"aggregation\":\"busy-core-equivalents\",\"display_label\":\"Percent of one CPU\",\"display_range\":{\"max\":100.0,\"min\":0.0},\"name\":\"cpu.utilization\",\"summarize\":\"p90\"}\n"
		 "# # ktap-metric-json: {\"host\":\"local\",\"name\":\"cpu.utilization\",\"shape\":\"per-cpu\",\"time\":T,\"value\":%s}\n",
		 value);
	pu_assert_ok(ksft_metric_set_prefix("# # "));
	pu_begin();
	register_system_monitor();
	pu_assert_ok(ksft_metric_json("cpu.utilization", "per-cpu", value, "{\"host\":\"local\"}"));
	pu_expect_end(want);
}
END_TEST

/* Patch 3's sample output verbatim (224 CPUs), from a golden file. */
START_TEST(test_seed_patch3_golden)
{
	char *golden = pu_read_golden(__FILE__, "seed_patch3_system_monitor.txt");
	char *want = pu_mask_time(golden), *line;
	int n_obs = 0;

	pu_assert_ok(ksft_metric_set_prefix("# # "));
	pu_begin();
	register_system_monitor();
	for (line = golden; *line; line = strchr(line, '\n') + 1) {
		static const char obs_tag[] = "# # " PU_OBS "{\"host\":\"";
		char host[32], name[64];
		const char *p, *q;
		double v[256];
		struct ksft_metric_label l = KSFT_METRIC_LABEL_STR("host", host);
		size_t n = 0;

		ck_assert_ptr_nonnull(strchr(line, '\n'));
		if (strncmp(line, obs_tag, sizeof(obs_tag) - 1))
			continue;
		p = strstr(line, "\"host\":\"") + 8;
		q = strchr(p, '"');
		snprintf(host, sizeof(host), "%.*s", (int)(q - p), p);
		p = strstr(line, "\"name\":\"") + 8;
		q = strchr(p, '"');
		snprintf(name, sizeof(name), "%.*s", (int)(q - p), p);
		p = strstr(line, "\"value\":[") + 8;
		while (*p != ']') {
			char *end;

			ck_assert_uint_lt(n, ARRAY_SIZE(v));
			v[n++] = strtod(p + 1, &end);
			p = end;
		}
		ck_assert_uint_eq(n, 224);
		pu_assert_ok(ksft_metric_array(name, "per-cpu", v, NULL, n, &l, 1));
		n_obs++;
	}
	ck_assert_int_eq(n_obs, 4);
	pu_expect_end(want);
	free(want);
	free(golden);
}
END_TEST

/* Iperf3Runner's policies, registered as in patch 4. */
static void register_iperf(void)
{
	struct ksft_metric_policy tput = KSFT_METRIC_POLICY_INIT, retr = KSFT_METRIC_POLICY_INIT;

	tput.summarize = "distribution";
	tput.regression_compare = "p50";
	tput.regression_better = "higher";
	tput.regression_relative_tolerance = vdbl(0.05);
	retr.summarize = "max";
	pu_assert_ok(ksft_metric_aggregate("throughput", &tput));
	pu_assert_ok(ksft_metric_aggregate("tcp.retransmits", &retr));
}

#define IPERF_POLICIES \
	"# # ktap-metric-policy-json: {\"name\":\"throughput\",\"regression\":{\"better\":\"higher\",\"compare\":\"p50\",\"relative_tolerance\":0.05},\"summarize\":\"distribution\"}\n" \
	"# # ktap-metric-policy-json: {\"name\":\"tcp.retransmits\",\"summarize\":\"max\"}\n"

START_TEST(test_seed_patch4)
{
	static const struct ksft_metric_label local[] = { KSFT_METRIC_LABEL_STR("host", "local") };
	static const struct ksft_metric_label remote[] = { KSFT_METRIC_LABEL_STR("host", "remote") };

	pu_assert_ok(ksft_metric_set_prefix("# # "));
	pu_begin();
	register_iperf();
	pu_assert_ok(ksft_metric_double("throughput", "scalar", 32.62285180182741, local, 1));
	pu_assert_ok(ksft_metric_double("tcp.retransmits", "scalar", 75895.0, remote, 1));
	pu_expect_end(IPERF_POLICIES
		"# # ktap-metric-json: {\"host\":\"local\",\"name\":\"throughput\",\"shape\":\"scalar\",\"time\":T,\"value\":32.62285180182741}\n"
		"# # ktap-metric-json: {\"host\":\"remote\",\"name\":\"tcp.retransmits\",\"shape\":\"scalar\",\"time\":T,\"value\":75895.0}\n");
}
END_TEST

START_TEST(test_seed_patch6)
{
	/* The kperf sample at the end of the series, through the JSON variants. */
	pu_assert_ok(ksft_metric_set_prefix("# # "));
	pu_begin();
	pu_assert_ok(ksft_metric_aggregate_json("throughput", "{\"summarize\":\"distribution\","
		"\"regression\":{\"compare\":\"p50\",\"better\":\"higher\",\"relative_tolerance\":0.05}}"));
	pu_assert_ok(ksft_metric_aggregate_json("tcp.retransmits", "{\"summarize\":\"max\"}"));
	pu_assert_ok(ksft_metric_json("throughput", "scalar", "321.225", "{\"host\":\"remote\"}"));
	pu_assert_ok(ksft_metric_json("tcp.retransmits", "scalar", "903.0", "{\"host\":\"remote\"}"));
	pu_assert_ok(ksft_metric_json("throughput", "scalar", "321.16499999999996", "{\"host\":\"local\"}"));
	pu_assert_ok(ksft_metric_json("tcp.retransmits", "scalar", "0.0", "{\"host\":\"local\"}"));
	pu_expect_end(IPERF_POLICIES
		"# # ktap-metric-json: {\"host\":\"remote\",\"name\":\"throughput\",\"shape\":\"scalar\",\"time\":T,\"value\":321.225}\n"
		"# # ktap-metric-json: {\"host\":\"remote\",\"name\":\"tcp.retransmits\",\"shape\":\"scalar\",\"time\":T,\"value\":903.0}\n"
		"# # ktap-metric-json: {\"host\":\"local\",\"name\":\"throughput\",\"shape\":\"scalar\",\"time\":T,\"value\":321.16499999999996}\n"
		"# # ktap-metric-json: {\"host\":\"local\",\"name\":\"tcp.retransmits\",\"shape\":\"scalar\",\"time\":T,\"value\":0.0}\n");
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("policy");

	suite_add_tcase(s, pu_tcase("all_options", test_all_options));
	suite_add_tcase(s, pu_tcase("each_option_alone", test_each_option_alone));
	suite_add_tcase(s, pu_tcase("numbers_as_given", test_numbers_as_given));
	suite_add_tcase(s, pu_tcase("defaults", test_defaults));
	suite_add_tcase(s, pu_tcase("emitted_only_if_observed", test_emitted_only_if_observed));
	suite_add_tcase(s, pu_tcase("registration_order_first", test_registration_order_first));
	suite_add_tcase(s, pu_tcase("same_policy_twice", test_same_policy_twice));
	suite_add_tcase(s, pu_tcase("equal_spelling_latest_wins", test_equal_spelling_latest_wins));
	suite_add_tcase(s, pu_tcase("conflict", test_conflict));
	suite_add_tcase(s, pu_tcase("after_observation", test_after_observation));
	suite_add_tcase(s, pu_tcase("after_observation_other_thread", test_after_observation_other_thread));
	suite_add_tcase(s, pu_tcase("invalid_names", test_invalid_names));
	suite_add_tcase(s, pu_tcase("invalid_choices", test_invalid_choices));
	suite_add_tcase(s, pu_tcase("invalid_regression", test_invalid_regression));
	suite_add_tcase(s, pu_tcase("invalid_display", test_invalid_display));
	suite_add_tcase(s, pu_tcase("invalid_size", test_invalid_size));
	suite_add_tcase(s, pu_tcase("json_all_options", test_json_all_options));
	suite_add_tcase(s, pu_tcase("json_nulls_unset", test_json_nulls_unset));
	suite_add_tcase(s, pu_tcase("json_invalid_values", test_json_invalid_values));
	suite_add_tcase(s, pu_tcase("json_invalid_shape", test_json_invalid_shape));
	suite_add_tcase(s, pu_tcase("json_equals_struct", test_json_equals_struct));
	suite_add_tcase(s, pu_tcase("seed_patch1_readme", test_seed_patch1_readme));
	suite_add_tcase(s, pu_tcase("seed_patch2_readme", test_seed_patch2_readme));
	suite_add_tcase(s, pu_tcase("seed_patch3_policies", test_seed_patch3_policies));
	suite_add_tcase(s, pu_tcase("seed_patch3_json_array", test_seed_patch3_json_array));
	suite_add_tcase(s, pu_tcase("seed_patch3_golden", test_seed_patch3_golden));
	suite_add_tcase(s, pu_tcase("seed_patch4", test_seed_patch4));
	suite_add_tcase(s, pu_tcase("seed_patch6", test_seed_patch6));
	return s;
}
