/*
 * Observations: values, shapes, labels, the JSON entry point, and every
 * rejection (exact message, -EINVAL, nothing changed). Expected texts are
 * what the Python reference (json.dumps(sort_keys=True,
 * separators=(",", ":"), allow_nan=False)) prints; test_python_reference
 * checks that against python3 itself.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "producer_util.h"

#define OBS(json) "# " PU_OBS json "\n"
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* One observation line of metric "m", shape "scalar", given value text. */
#define M_SCALAR(v) OBS("{\"name\":\"m\",\"shape\":\"scalar\",\"time\":T,\"value\":" v "}")

START_TEST(test_int_values)
{
	pu_begin();
	pu_assert_ok(ksft_metric_int("m", "scalar", 0, NULL, 0));
	pu_assert_ok(ksft_metric_int("m", "scalar", -1, NULL, 0));
	pu_assert_ok(ksft_metric_int("m", "scalar", 75895, NULL, 0));
	pu_assert_ok(ksft_metric_int("m", "scalar", INT64_MIN, NULL, 0));
	pu_assert_ok(ksft_metric_int("m", "scalar", INT64_MAX, NULL, 0));
	pu_expect_end(M_SCALAR("0") M_SCALAR("-1") M_SCALAR("75895")
		      M_SCALAR("-9223372036854775808") M_SCALAR("9223372036854775807"));
}
END_TEST

START_TEST(test_double_repr)
{
	static const struct { double v; const char *text; } cases[] = {
		{ 0.1, "0.1" },
		{ 100.0, "100.0" },
		{ 0.0, "0.0" },
		{ -0.0, "-0.0" },
		{ 1e16, "1e+16" },
		{ 1e15, "1000000000000000.0" },
		{ 1.1e-05, "1.1e-05" },
		{ 0.0001, "0.0001" },
		{ 32.62285180182741, "32.62285180182741" },
		{ 75895.0, "75895.0" },
		{ 321.16499999999996, "321.16499999999996" },
		{ 5e-324, "5e-324" },
		{ 1.7976931348623157e308, "1.7976931348623157e+308" },
		{ -2.5, "-2.5" },
		{ 123456789012345680.0, "1.2345678901234568e+17" },
	};
	char want[4096] = "";
	volatile double a = 0.1, b = 0.2;
	size_t i;

	pu_begin();
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		pu_assert_ok(ksft_metric_double("m", "scalar", cases[i].v, NULL, 0));
		snprintf(want + strlen(want), sizeof(want) - strlen(want),
			 "# " PU_OBS "{\"name\":\"m\",\"shape\":\"scalar\",\"time\":T,\"value\":%s}\n",
			 cases[i].text);
	}
	/* Computed, not a literal: 0.1 + 0.2. */
	pu_assert_ok(ksft_metric_double("m", "scalar", a + b, NULL, 0));
	strcat(want, M_SCALAR("0.30000000000000004"));
	pu_expect_end(want);
}
END_TEST

START_TEST(test_arrays)
{
	static const double v[4] = { 75.0, 22.0, NAN, 100.0 };
	static const unsigned char present[4] = { 1, 1, 0, 1 };
	static const unsigned char none_present[2] = { 0, 0 };
	static const double mixed[5] = { 0.0, -0.0, 0.01, 1e16, 9.0909 };

	pu_begin();
	/* A missing entry is null, whatever its value (NaN here) is. */
	pu_assert_ok(ksft_metric_array("cpu.utilization", "per-cpu", v, present, 4, NULL, 0));
	/* present == NULL: every entry is present. */
	pu_assert_ok(ksft_metric_array("m", "per-cpu", mixed, NULL, 5, NULL, 0));
	pu_assert_ok(ksft_metric_array("m", "per-cpu", v, none_present, 2, NULL, 0));
	/* Empty arrays, with and without a values pointer. */
	pu_assert_ok(ksft_metric_array("m", "per-cpu", NULL, NULL, 0, NULL, 0));
	pu_assert_ok(ksft_metric_array("m", "per-cpu", v, present, 0, NULL, 0));
	pu_expect_end(
		OBS("{\"name\":\"cpu.utilization\",\"shape\":\"per-cpu\",\"time\":T,"
		    "\"value\":[75.0,22.0,null,100.0]}")
		OBS("{\"name\":\"m\",\"shape\":\"per-cpu\",\"time\":T,"
		    "\"value\":[0.0,-0.0,0.01,1e+16,9.0909]}")
		OBS("{\"name\":\"m\",\"shape\":\"per-cpu\",\"time\":T,\"value\":[null,null]}")
		OBS("{\"name\":\"m\",\"shape\":\"per-cpu\",\"time\":T,\"value\":[]}")
		OBS("{\"name\":\"m\",\"shape\":\"per-cpu\",\"time\":T,\"value\":[]}"));
}
END_TEST

START_TEST(test_large_array)
{
	double v[256];
	unsigned char present[256];
	char *text, *want, *p;
	size_t i;

	for (i = 0; i < 256; i++) {
		v[i] = (double)i / 4;
		present[i] = i % 7 != 3;
	}
	pu_begin();
	pu_assert_ok(ksft_metric_array("m", "per-cpu", v, present, 256, NULL, 0));
	text = pu_end_text(NULL);
	want = malloc(16 * 256 + 256);
	ck_assert_ptr_nonnull(want);
	p = want + sprintf(want, "# " PU_OBS "{\"name\":\"m\",\"shape\":\"per-cpu\",\"time\":T,\"value\":[");
	for (i = 0; i < 256; i++) {
		char num[32];

		/* i / 4 is exact, and "%.2f" minus a trailing 0 is its repr. */
		snprintf(num, sizeof(num), "%.2f", v[i]);
		if (num[strlen(num) - 1] == '0')
			num[strlen(num) - 1] = '\0';
		p += sprintf(p, "%s%s", i ? "," : "", present[i] ? num : "null");
	}
	strcpy(p, "]}\n");
	{
		char *masked = pu_mask_time(text);

		pu_assert_text_eq(masked, want);
		free(masked);
	}
	free(want);
	free(text);
}
END_TEST

START_TEST(test_shapes)
{
	pu_begin();
	pu_assert_ok(ksft_metric_int("m", "scalar", 1, NULL, 0));
	pu_assert_ok(ksft_metric_int("m", "per-cpu", 1, NULL, 0));
	/* Any other layout name; the library never infers or checks it. */
	pu_assert_ok(ksft_metric_int("m", "histogram/v2", 1, NULL, 0));
	pu_assert_ok(ksft_metric_double("m", "per-queue \xc3\xbc \"q\"", 1, NULL, 0));
	pu_expect_end(
		OBS("{\"name\":\"m\",\"shape\":\"scalar\",\"time\":T,\"value\":1}")
		OBS("{\"name\":\"m\",\"shape\":\"per-cpu\",\"time\":T,\"value\":1}")
		OBS("{\"name\":\"m\",\"shape\":\"histogram/v2\",\"time\":T,\"value\":1}")
		OBS("{\"name\":\"m\",\"shape\":\"per-queue \\u00fc \\\"q\\\"\",\"time\":T,\"value\":1.0}"));
}
END_TEST

START_TEST(test_label_types)
{
	const struct ksft_metric_label l[] = {
		KSFT_METRIC_LABEL_STR("host", "local"),
		KSFT_METRIC_LABEL_INT("cpu", -3),
		KSFT_METRIC_LABEL_INT("big", INT64_MIN),
		KSFT_METRIC_LABEL_DOUBLE("ratio", 0.5),
		KSFT_METRIC_LABEL_DOUBLE("whole", 100.0),
		KSFT_METRIC_LABEL_DOUBLE("negz", -0.0),
		KSFT_METRIC_LABEL_BOOL("ok", 1),
		KSFT_METRIC_LABEL_BOOL("bad", 0),
		KSFT_METRIC_LABEL_BOOL("seven", 7),	/* !!7 */
		KSFT_METRIC_LABEL_STR("empty", ""),
	};

	pu_begin();
	pu_assert_ok(ksft_metric_double("throughput", "scalar", 100.5, l, ARRAY_SIZE(l)));
	pu_expect_end(OBS("{\"bad\":false,\"big\":-9223372036854775808,\"cpu\":-3,\"empty\":\"\","
			  "\"host\":\"local\",\"name\":\"throughput\",\"negz\":-0.0,\"ok\":true,"
			  "\"ratio\":0.5,\"seven\":true,\"shape\":\"scalar\",\"time\":T,"
			  "\"value\":100.5,\"whole\":100.0}"));
}
END_TEST

START_TEST(test_label_unicode)
{
	const struct ksft_metric_label l[] = {
		KSFT_METRIC_LABEL_STR("e", "caf\xc3\xa9"),
		KSFT_METRIC_LABEL_STR("ls", "a\xe2\x80\xa8" "b"),		/* U+2028 */
		KSFT_METRIC_LABEL_STR("emoji", "\xf0\x9f\x98\x80"),		/* U+1F600 */
		KSFT_METRIC_LABEL_STR("ctl", "q\"b\\s/\b\f\n\r\t\x01\x1f\x7f"),
		KSFT_METRIC_LABEL_STR("edges", "\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf"
						"\xf0\x90\x80\x80\xf4\x8f\xbf\xbf"),
	};

	pu_begin();
	pu_assert_ok(ksft_metric_int("m", "scalar", 1, l, ARRAY_SIZE(l)));
	/* Python: json.dumps(..., ensure_ascii=True) */
	pu_expect_end(OBS("{\"ctl\":\"q\\\"b\\\\s/\\b\\f\\n\\r\\t\\u0001\\u001f\\u007f\","
			  "\"e\":\"caf\\u00e9\","
			  "\"edges\":\"\\u0080\\u07ff\\u0800\\uffff\\ud800\\udc00\\udbff\\udfff\","
			  "\"emoji\":\"\\ud83d\\ude00\",\"ls\":\"a\\u2028b\","
			  "\"name\":\"m\",\"shape\":\"scalar\",\"time\":T,\"value\":1}"));
}
END_TEST

START_TEST(test_label_key_order)
{
	/* Given scrambled; sorted by code point among name/shape/time/value. */
	const struct ksft_metric_label l[] = {
		KSFT_METRIC_LABEL_INT("zzz", 10),
		KSFT_METRIC_LABEL_INT("\xf0\x9f\x98\x80", 12),	/* U+1F600 */
		KSFT_METRIC_LABEL_INT("value2", 9),
		KSFT_METRIC_LABEL_INT("nam", 4),
		KSFT_METRIC_LABEL_INT("\xef\xbf\xbd", 13),	/* U+FFFD */
		KSFT_METRIC_LABEL_INT("a", 3),
		KSFT_METRIC_LABEL_INT("timf", 8),
		KSFT_METRIC_LABEL_INT("names", 5),
		KSFT_METRIC_LABEL_INT("_", 2),
		KSFT_METRIC_LABEL_INT("shape0", 6),
		KSFT_METRIC_LABEL_INT("\xc3\xa9", 11),		/* U+00E9 */
		KSFT_METRIC_LABEL_INT("tim", 7),
		KSFT_METRIC_LABEL_INT("Z", 1),
	};

	pu_begin();
	pu_assert_ok(ksft_metric_int("m", "scalar", 0, l, ARRAY_SIZE(l)));
	pu_expect_end(OBS("{\"Z\":1,\"_\":2,\"a\":3,\"nam\":4,\"name\":\"m\",\"names\":5,"
			  "\"shape\":\"scalar\",\"shape0\":6,\"tim\":7,\"time\":T,\"timf\":8,"
			  "\"value\":0,\"value2\":9,\"zzz\":10,\"\\u00e9\":11,\"\\ufffd\":13,"
			  "\"\\ud83d\\ude00\":12}"));
}
END_TEST

START_TEST(test_many_labels)
{
	struct ksft_metric_label l[100];
	char keys[100][16], want[4096], *p = want;
	int i;

	for (i = 0; i < 100; i++) {
		int k = 99 - i;	/* given in reverse order */

		snprintf(keys[i], sizeof(keys[i]), "k%03d", k);
		l[i].key = keys[i];
		l[i].value.type = KSFT_METRIC_INT;
		l[i].value.u.i = k;
	}
	p += sprintf(p, "# " PU_OBS "{");
	for (i = 0; i < 100; i++)
		p += sprintf(p, "\"k%03d\":%d,", i, i);
	sprintf(p, "\"name\":\"m\",\"shape\":\"scalar\",\"time\":T,\"value\":1}\n");
	pu_begin();
	pu_assert_ok(ksft_metric_int("m", "scalar", 1, l, 100));
	pu_expect_end(want);
}
END_TEST

START_TEST(test_json_numbers)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "42", "42" }, { "-7", "-7" }, { "0", "0" }, { "-0", "0" },
		{ "1.5", "1.5" }, { "1e2", "100.0" }, { "100.0", "100.0" },
		{ "-0.0", "-0.0" }, { "1E-7", "1e-07" }, { "0.30000000000000004", "0.30000000000000004" },
		{ "9223372036854775807", "9223372036854775807" },
		{ "-9223372036854775808", "-9223372036854775808" },
		{ "32.62285180182741", "32.62285180182741" }, { "75895.0", "75895.0" },
		{ " 3 ", "3" }, { "1e16", "1e+16" }, { "0.1", "0.1" },
	};
	char want[4096] = "";
	size_t i;

	pu_begin();
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		pu_assert_ok(ksft_metric_json("m", "scalar", cases[i].in, NULL));
		snprintf(want + strlen(want), sizeof(want) - strlen(want),
			 "# " PU_OBS "{\"name\":\"m\",\"shape\":\"scalar\",\"time\":T,\"value\":%s}\n",
			 cases[i].out);
	}
	pu_expect_end(want);
}
END_TEST

START_TEST(test_json_big_integer)
{
	/* Past int64: either printed exactly (as Python would) or rejected. */
	char *text, *masked;
	int r;

	pu_begin();
	r = ksft_metric_json("m", "scalar", "9223372036854775808", NULL);
	text = pu_end_text(NULL);
	masked = pu_mask_time(text);
	if (r == 0) {
		pu_assert_text_eq(masked, M_SCALAR("9223372036854775808"));
	} else {
		ck_assert_int_eq(r, -EINVAL);
		pu_assert_text_eq(masked, "");
	}
	free(masked);
	free(text);
}
END_TEST

START_TEST(test_json_arrays)
{
	pu_begin();
	pu_assert_ok(ksft_metric_json("m", "per-cpu", "[1, 2.5, null, -3, 1e-7, 0.0, 100]", NULL));
	pu_assert_ok(ksft_metric_json("m", "per-cpu", "[]", NULL));
	pu_assert_ok(ksft_metric_json("m", "per-cpu", "[null]", NULL));
	pu_assert_ok(ksft_metric_json("m", "per-cpu", "[0.0,0.0,0.02,0.16]", NULL));
	pu_expect_end(
		OBS("{\"name\":\"m\",\"shape\":\"per-cpu\",\"time\":T,"
		    "\"value\":[1,2.5,null,-3,1e-07,0.0,100]}")
		OBS("{\"name\":\"m\",\"shape\":\"per-cpu\",\"time\":T,\"value\":[]}")
		OBS("{\"name\":\"m\",\"shape\":\"per-cpu\",\"time\":T,\"value\":[null]}")
		OBS("{\"name\":\"m\",\"shape\":\"per-cpu\",\"time\":T,\"value\":[0.0,0.0,0.02,0.16]}"));
}
END_TEST

START_TEST(test_json_labels)
{
	pu_begin();
	pu_assert_ok(ksft_metric_json("m", "scalar", "1",
				      "{\"host\":\"local\",\"b\":true,\"c\":false,\"d\":-1,"
				      "\"e\":2.50,\"f\":\"\\u00e9\\ud83d\\ude00\\u2028\",\"g\":1e2}"));
	pu_assert_ok(ksft_metric_json("m", "scalar", "2", "{}"));
	pu_assert_ok(ksft_metric_json("m", "scalar", "3", NULL));
	pu_assert_ok(ksft_metric_json("m", "scalar", "4", " { \"zzz\" : \"\" , \"a\" : 0 } "));
	pu_expect_end(
		OBS("{\"b\":true,\"c\":false,\"d\":-1,\"e\":2.5,"
		    "\"f\":\"\\u00e9\\ud83d\\ude00\\u2028\",\"g\":100.0,\"host\":\"local\","
		    "\"name\":\"m\",\"shape\":\"scalar\",\"time\":T,\"value\":1}")
		M_SCALAR("2") M_SCALAR("3")
		OBS("{\"a\":0,\"name\":\"m\",\"shape\":\"scalar\",\"time\":T,\"value\":4,\"zzz\":\"\"}"));
}
END_TEST

/* ------------------------------------------------------------------ */
/* Rejections: each bad call sits between good ones and changes nothing. */

#define GOOD_LINE OBS("{\"name\":\"good\",\"shape\":\"scalar\",\"time\":T,\"value\":1}")
#define AFTER_LINE OBS("{\"k\":\"v\",\"name\":\"after\",\"shape\":\"per-cpu\",\"time\":T,\"value\":[2.0,null]}")

static void reject_begin(void)
{
	pu_begin();
	pu_assert_ok(ksft_metric_int("good", "scalar", 1, NULL, 0));
}

static void reject_end_at(const char *file, int line)
{
	static const struct ksft_metric_label l[] = { KSFT_METRIC_LABEL_STR("k", "v") };
	static const double v[2] = { 2.0, 3.0 };
	static const unsigned char present[2] = { 1, 0 };

	/* The buffer still takes records ... */
	pu_assert_ok(ksft_metric_array("after", "per-cpu", v, present, 2, l, 1));
	/* ... and "m" (the name the bad calls use) was not observed. */
	pu_assert_ok(ksft_metric_aggregate("m", NULL));
	pu_expect_end_at(file, line, GOOD_LINE AFTER_LINE);
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

static const struct ksft_metric_label lab_ok[] = {
	KSFT_METRIC_LABEL_STR("host", "local"), KSFT_METRIC_LABEL_INT("cpu", 1)
};

START_TEST(test_reject_reserved_labels)
{
	static const char *const reserved[] = { "name", "shape", "value", "time" };
	static const double v[1] = { 1 };
	char msg[64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(reserved); i++) {
		/* The reserved key last, after good labels. */
		struct ksft_metric_label l[3] = {
			KSFT_METRIC_LABEL_STR("host", "local"), KSFT_METRIC_LABEL_INT("cpu", 1),
			KSFT_METRIC_LABEL_STR(reserved[i], "x"),
		};

		snprintf(msg, sizeof(msg), "metric label uses reserved name: %s", reserved[i]);
		REJECT(ksft_metric_int("m", "scalar", 1, l, 3), msg);
		REJECT(ksft_metric_double("m", "scalar", 1, &l[2], 1), msg);
		REJECT(ksft_metric_array("m", "per-cpu", v, NULL, 1, l, 3), msg);
	}
	REJECT(ksft_metric_json("m", "scalar", "1", "{\"host\":\"x\",\"time\":1}"),
	       "metric label uses reserved name: time");
	REJECT(ksft_metric_json("m", "scalar", "1", "{\"value\":true}"),
	       "metric label uses reserved name: value");
	REJECT(ksft_metric_json("m", "scalar", "1", "{\"name\":\"n\"}"),
	       "metric label uses reserved name: name");
	REJECT(ksft_metric_json("m", "scalar", "1", "{\"shape\":\"s\"}"),
	       "metric label uses reserved name: shape");
}
END_TEST

START_TEST(test_reject_reserved_after_other_use)
{
	/* "time" and "name" already known as a metric name and a label value. */
	const struct ksft_metric_label uses[] = { KSFT_METRIC_LABEL_STR("what", "name") };
	const struct ksft_metric_label bad1[] = { KSFT_METRIC_LABEL_INT("time", 1) };
	const struct ksft_metric_label bad2[] = { KSFT_METRIC_LABEL_INT("name", 1) };

	pu_begin();
	pu_assert_ok(ksft_metric_int("time", "scalar", 1, uses, 1));
	pu_assert_err(ksft_metric_int("m", "scalar", 1, bad1, 1), EINVAL,
		      "metric label uses reserved name: time");
	pu_assert_err(ksft_metric_int("m", "scalar", 1, bad2, 1), EINVAL,
		      "metric label uses reserved name: name");
	pu_assert_err(ksft_metric_int("time", "scalar", 1, bad2, 1), EINVAL,
		      "metric label uses reserved name: name");
	pu_expect_end(OBS("{\"name\":\"time\",\"shape\":\"scalar\",\"time\":T,\"value\":1,\"what\":\"name\"}"));
}
END_TEST

START_TEST(test_reject_name_shape)
{
	static const double v[1] = { 1 };

	REJECT(ksft_metric_int("", "scalar", 1, NULL, 0), "metric name is empty");
	REJECT(ksft_metric_int(NULL, "scalar", 1, NULL, 0), "metric name is NULL");
	REJECT(ksft_metric_double("", "scalar", 1, lab_ok, 2), "metric name is empty");
	REJECT(ksft_metric_array(NULL, "per-cpu", v, NULL, 1, NULL, 0), "metric name is NULL");
	REJECT(ksft_metric_int("m", "", 1, NULL, 0), "metric m: shape is empty");
	REJECT(ksft_metric_int("m", NULL, 1, NULL, 0), "metric m: shape is NULL");
	REJECT(ksft_metric_array("m", "", v, NULL, 1, NULL, 0), "metric m: shape is empty");
	REJECT(ksft_metric_json("m", "", "1", NULL), "metric m: shape is empty");
	REJECT(ksft_metric_json("m", NULL, "1", NULL), "metric m: shape is NULL");
	REJECT(ksft_metric_json("", "scalar", "1", NULL), "metric name is empty");
	REJECT(ksft_metric_json(NULL, "scalar", "1", NULL), "metric name is NULL");
}
END_TEST

START_TEST(test_reject_label_keys)
{
	const struct ksft_metric_label empty[] = {
		KSFT_METRIC_LABEL_STR("host", "local"), KSFT_METRIC_LABEL_INT("", 1),
	};
	const struct ksft_metric_label dup[] = {
		KSFT_METRIC_LABEL_STR("host", "local"), KSFT_METRIC_LABEL_INT("cpu", 1),
		KSFT_METRIC_LABEL_STR("host", "remote"),
	};
	const struct ksft_metric_label null_key[] = {
		KSFT_METRIC_LABEL_STR("host", "local"), KSFT_METRIC_LABEL_INT(NULL, 1),
	};

	REJECT(ksft_metric_int("m", "scalar", 1, empty, 2), "metric m: label name is empty");
	REJECT(ksft_metric_int("m", "scalar", 1, dup, 3), "metric m: label host given twice");
	REJECT(ksft_metric_int("m", "scalar", 1, null_key, 2), "metric m: label 1 has no name");
	REJECT(ksft_metric_int("m", "scalar", 1, NULL, 2), "metric m: labels array is NULL");
	REJECT(ksft_metric_json("m", "scalar", "1", "{\"\":1}"), "metric m: label name is empty");
	REJECT_PREFIX(ksft_metric_json("m", "scalar", "1", "{\"a\":1,\"a\":2}"),
		      "metric m: labels JSON: ");
}
END_TEST

START_TEST(test_reject_label_values)
{
	struct ksft_metric_label l[2] = {
		KSFT_METRIC_LABEL_STR("host", "local"), KSFT_METRIC_LABEL_STR("k", NULL),
	};

	REJECT(ksft_metric_int("m", "scalar", 1, l, 2), "metric m: label k value is NULL");
	l[1].value.type = 99;
	REJECT(ksft_metric_int("m", "scalar", 1, l, 2), "metric m: label k has unknown type 99");
	l[1].value.type = KSFT_METRIC_UNSET;
	REJECT(ksft_metric_int("m", "scalar", 1, l, 2), "metric m: label k has unknown type 0");
	l[1].value.type = KSFT_METRIC_BOOL;
	l[1].value.u.b = 2;
	REJECT(ksft_metric_int("m", "scalar", 1, l, 2), "metric m: label k boolean is 2, not 0 or 1");
}
END_TEST

START_TEST(test_reject_nonfinite)
{
	const double nan_v[3] = { 1, NAN, 2 }, inf_v[2] = { 1, -INFINITY };
	struct ksft_metric_label l[2] = {
		KSFT_METRIC_LABEL_STR("host", "local"), KSFT_METRIC_LABEL_DOUBLE("k", NAN),
	};

	REJECT(ksft_metric_double("m", "scalar", NAN, NULL, 0), "metric m: value is NaN");
	REJECT(ksft_metric_double("m", "scalar", -NAN, lab_ok, 2), "metric m: value is NaN");
	REJECT(ksft_metric_double("m", "scalar", INFINITY, NULL, 0), "metric m: value is infinite");
	REJECT(ksft_metric_double("m", "scalar", -INFINITY, NULL, 0), "metric m: value is infinite");
	REJECT(ksft_metric_array("m", "per-cpu", nan_v, NULL, 3, NULL, 0),
	       "metric m: value[1] is NaN");
	REJECT(ksft_metric_array("m", "per-cpu", inf_v, NULL, 2, lab_ok, 2),
	       "metric m: value[1] is infinite");
	REJECT(ksft_metric_int("m", "scalar", 1, l, 2), "metric m: label k value is NaN");
	l[1].value.u.d = INFINITY;
	REJECT(ksft_metric_int("m", "scalar", 1, l, 2), "metric m: label k value is infinite");
	REJECT(ksft_metric_array("m", "per-cpu", NULL, NULL, 2, NULL, 0),
	       "metric m: values array is NULL");
	/* JSON has no NaN/Infinity literals: a syntax error. */
	REJECT_PREFIX(ksft_metric_json("m", "scalar", "NaN", NULL), "metric m: value JSON: ");
	REJECT_PREFIX(ksft_metric_json("m", "scalar", "Infinity", NULL), "metric m: value JSON: ");
	REJECT_PREFIX(ksft_metric_json("m", "scalar", "[1,-Infinity]", NULL), "metric m: value JSON: ");
	/* Out of double range: rejected rather than printed as inf. */
	REJECT_PREFIX(ksft_metric_json("m", "scalar", "1e400", NULL), "metric m: value JSON: ");
	REJECT_PREFIX(ksft_metric_json("m", "scalar", "1", "{\"k\":1e400}"), "metric m: labels JSON: ");
}
END_TEST

START_TEST(test_reject_utf8)
{
	static const char *const bad[] = {
		"\xff", "a\xc3", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		const struct ksft_metric_label key[] = {
			KSFT_METRIC_LABEL_STR("host", "local"), KSFT_METRIC_LABEL_INT(bad[i], 1),
		};
		const struct ksft_metric_label val[] = {
			KSFT_METRIC_LABEL_STR("host", "local"), KSFT_METRIC_LABEL_STR("k", bad[i]),
		};

		REJECT(ksft_metric_int(bad[i], "scalar", 1, NULL, 0), "metric name is not valid UTF-8");
		REJECT(ksft_metric_int("m", bad[i], 1, NULL, 0), "metric m: shape is not valid UTF-8");
		REJECT(ksft_metric_int("m", "scalar", 1, key, 2),
		       "metric m: a label name is not valid UTF-8");
		REJECT(ksft_metric_int("m", "scalar", 1, val, 2),
		       "metric m: label k value is not valid UTF-8");
	}
	/* Invalid UTF-8 inside JSON text is a JSON error. */
	REJECT_PREFIX(ksft_metric_json("m", "scalar", "1", "{\"k\":\"\xff\"}"),
		      "metric m: labels JSON: ");
}
END_TEST

/* errmsg() of the last call contains @needle. */
static void assert_errmsg_has(const char *needle)
{
	ck_assert_msg(strstr(rejected_msg, needle) != NULL,
		      "errmsg \"%s\" lacks \"%s\"", rejected_msg, needle);
}

START_TEST(test_reject_json_malformed)
{
	REJECT_PREFIX(ksft_metric_json("m", "scalar", "1,", NULL), "metric m: value JSON: ");
	assert_errmsg_has(" at line 1 column 2");
	REJECT_PREFIX(ksft_metric_json("m", "scalar", "[1,\n2,", NULL), "metric m: value JSON: ");
	assert_errmsg_has(" at line 2 column ");
	REJECT_PREFIX(ksft_metric_json("m", "scalar", "", NULL), "metric m: value JSON: ");
	assert_errmsg_has(" at line ");
	REJECT_PREFIX(ksft_metric_json("m", "scalar", "1", "{\"a\":}"), "metric m: labels JSON: ");
	assert_errmsg_has(" at line 1 column 6");
	REJECT_PREFIX(ksft_metric_json("m", "scalar", "1", "{\"a\":1"), "metric m: labels JSON: ");
	assert_errmsg_has(" at line 1 column ");
	REJECT(ksft_metric_json("m", "scalar", NULL, NULL), "metric m: value JSON is NULL");
}
END_TEST

START_TEST(test_reject_json_value_type)
{
	static const char *const whole[] = { "\"1\"", "{}", "{\"a\":1}", "true", "false", "null" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(whole); i++)
		REJECT(ksft_metric_json("m", "scalar", whole[i], NULL),
		       "metric m: value must be a number or an array of numbers and nulls");
	REJECT(ksft_metric_json("m", "per-cpu", "[1,[2]]", NULL),
	       "metric m: value[1] must be a number or null");
	REJECT(ksft_metric_json("m", "per-cpu", "[1,2,\"3\"]", NULL),
	       "metric m: value[2] must be a number or null");
	REJECT(ksft_metric_json("m", "per-cpu", "[true]", NULL),
	       "metric m: value[0] must be a number or null");
	REJECT(ksft_metric_json("m", "per-cpu", "[{}]", NULL),
	       "metric m: value[0] must be a number or null");
}
END_TEST

START_TEST(test_reject_json_labels)
{
	static const char *const not_object[] = { "[]", "[1]" };
	static const char *const bad_value[] = {
		"{\"host\":\"x\",\"k\":null}", "{\"k\":[1]}", "{\"k\":{}}",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(not_object); i++)
		REJECT(ksft_metric_json("m", "scalar", "1", not_object[i]),
		       "metric m: labels JSON must be an object");
	/* Not even an object/array at the top: a JSON error. */
	REJECT_PREFIX(ksft_metric_json("m", "scalar", "1", "1"), "metric m: labels JSON");
	REJECT_PREFIX(ksft_metric_json("m", "scalar", "1", "\"k\""), "metric m: labels JSON");
	for (i = 0; i < ARRAY_SIZE(bad_value); i++)
		REJECT(ksft_metric_json("m", "scalar", "1", bad_value[i]),
		       "metric m: label k must be a string, number or boolean");
}
END_TEST

START_TEST(test_reject_partial_record)
{
	/*
	 * The bad label comes after good ones with new strings, in a case
	 * that already has many records: the half-built record is dropped.
	 */
	const struct ksft_metric_label l[] = {
		KSFT_METRIC_LABEL_STR("new1", "fresh value"), KSFT_METRIC_LABEL_DOUBLE("new2", 1.5),
		KSFT_METRIC_LABEL_STR("new3", "\xff"),
	};
	const struct ksft_metric_label ok[] = { KSFT_METRIC_LABEL_STR("new1", "fresh value") };
	char want[8192] = "";
	int i;

	pu_begin();
	for (i = 0; i < 40; i++) {
		pu_assert_ok(ksft_metric_int("m0", "scalar", i, NULL, 0));
		snprintf(want + strlen(want), sizeof(want) - strlen(want),
			 "# " PU_OBS "{\"name\":\"m0\",\"shape\":\"scalar\",\"time\":T,\"value\":%d}\n", i);
		if (i % 10 == 0)
			pu_assert_err(ksft_metric_int("m", "scalar", 1, l, 3), EINVAL,
				      "metric m: label new3 value is not valid UTF-8");
	}
	pu_assert_ok(ksft_metric_int("m", "scalar", 2, ok, 1));
	strcat(want, OBS("{\"name\":\"m\",\"new1\":\"fresh value\",\"shape\":\"scalar\",\"time\":T,\"value\":2}"));
	pu_expect_end(want);
}
END_TEST

/* ------------------------------------------------------------------ */
/* The same observations through python3 and the seed's code.         */

/*
 * The reference's ksft_metric()/ksft_metric_aggregate()/_ksft_flush_metrics()
 * from the seed (patches 1-3), verbatim but for the clock: time.monotonic()
 * returns 0.0 at case begin, then each time our library printed.
 */
static const char py_script[] =
	"import json, sys, threading\n"
	"times = [float(t) for t in open(sys.argv[1]).read().split()]\n"
	"clock = iter([0.0] + times)\n"
	"class _Time:\n"
	"    @staticmethod\n"
	"    def monotonic():\n"
	"        return next(clock)\n"
	"time = _Time()\n"
	"def ksft_pr(s):\n"
	"    sys.stdout.write('# ' + s + '\\n')\n"
	"KSFT_METRICS = None\n"
	"KSFT_METRICS_START = None\n"
	"KSFT_METRIC_AGGREGATES = None\n"
	"KSFT_METRICS_LOCK = threading.Lock()\n"
	"def ksft_metric_aggregate(name, summarize='total', *, aggregation=None,\n"
	"                          transform=None, regression=None,\n"
	"                          display_range=None, display_scale=None,\n"
	"                          display_label=None):\n"
	"    metadata = {'summarize': summarize}\n"
	"    optional = {'aggregation': aggregation, 'transform': transform,\n"
	"                'regression': regression, 'display_range': display_range,\n"
	"                'display_scale': display_scale, 'display_label': display_label}\n"
	"    metadata.update({k: v for k, v in optional.items() if v is not None})\n"
	"    with KSFT_METRICS_LOCK:\n"
	"        previous = KSFT_METRIC_AGGREGATES.get(name)\n"
	"        if previous is not None and previous != metadata:\n"
	"            raise ValueError(f'Conflicting aggregation for metric {name}')\n"
	"        if previous is None and any(m['name'] == name for m in KSFT_METRICS):\n"
	"            raise RuntimeError(f'Aggregation registered after metric {name} was recorded')\n"
	"        KSFT_METRIC_AGGREGATES[name] = metadata\n"
	"def ksft_metric(name, value, *, shape, **labels):\n"
	"    with KSFT_METRICS_LOCK:\n"
	"        metric = {'name': name, 'shape': shape, 'value': value,\n"
	"                  'time': round(time.monotonic() - KSFT_METRICS_START, 6)}\n"
	"        for key, label_value in sorted(labels.items()):\n"
	"            if key in metric:\n"
	"                raise ValueError(f'Metric label uses reserved name: {key}')\n"
	"            metric[key] = label_value\n"
	"        KSFT_METRICS.append(metric)\n"
	"def _ksft_flush_metrics():\n"
	"    metrics, aggregates = KSFT_METRICS, KSFT_METRIC_AGGREGATES\n"
	"    metric_names = {metric['name'] for metric in metrics or []}\n"
	"    for name, metadata in (aggregates or {}).items():\n"
	"        if name not in metric_names:\n"
	"            continue\n"
	"        policy = {'name': name, **metadata}\n"
	"        payload = json.dumps(policy, allow_nan=False, separators=(',', ':'), sort_keys=True)\n"
	"        ksft_pr(f'ktap-metric-policy-json: {payload}')\n"
	"    for metric in metrics or []:\n"
	"        payload = json.dumps(metric, allow_nan=False, separators=(',', ':'), sort_keys=True)\n"
	"        ksft_pr(f'ktap-metric-json: {payload}')\n"
	"KSFT_METRICS = []\n"
	"KSFT_METRICS_START = time.monotonic()\n"
	"KSFT_METRIC_AGGREGATES = {}\n"
	/* The test case: mirror of record_python_mix() below. */
	"ksft_metric_aggregate('cpu.time.usr', summarize='p90', transform='rate',\n"
	"    aggregation='busy-core-equivalents', display_range={'min': 0, 'max': 100},\n"
	"    display_scale=100, display_label='Percent of one CPU')\n"
	"ksft_metric_aggregate('throughput', summarize='distribution',\n"
	"    regression={'compare': 'p50', 'better': 'higher', 'relative_tolerance': 0.05,\n"
	"                'absolute_tolerance': 1.5})\n"
	"ksft_metric_aggregate('unused', summarize='max')\n"
	"ksft_metric_aggregate('lat', summarize='p99', display_range={'max': 2.5},\n"
	"    display_label='\\u00b5s \\U0001F600')\n"
	"ksft_metric('throughput', 100.5, shape='scalar', direction='rx')\n"
	"ksft_metric('cpu.time.usr', [75.0, 22.0, None, 100.0, 0.01, -0.0], shape='per-cpu', host='local')\n"
	"ksft_metric('tcp.retransmits', 75895.0, shape='scalar', host='remote', ok=True, bad=False)\n"
	"ksft_metric('lat', -9223372036854775808, shape='histogram', **{'\\U0001F600': '\\u2028',\n"
	"    'a': 0.1 + 0.2, 'nam': 1e16, 'zzz': 5e-324, 'value2': 1.1e-05, '\\u00e9': 'caf\\u00e9',\n"
	"    'Z': -7, 'ctl': 'q\"\\\\\\x01\\x7f\\t'})\n"
	"ksft_metric('throughput', 32.62285180182741, shape='scalar', host='local')\n"
	"ksft_metric('m', 0, shape='scalar')\n"
	"ksft_metric('m', [1, 2.5, None, -3], shape='per-cpu')\n"
	"ksft_metric('m', 9223372036854775807, shape='scalar', big=-9223372036854775808, f=100.0)\n"
	"_ksft_flush_metrics()\n";

static void record_python_mix(void)
{
	struct ksft_metric_policy cpu = KSFT_METRIC_POLICY_INIT, tput = KSFT_METRIC_POLICY_INIT,
				  unused = KSFT_METRIC_POLICY_INIT, lat = KSFT_METRIC_POLICY_INIT;
	const struct ksft_metric_label rx[] = { KSFT_METRIC_LABEL_STR("direction", "rx") };
	const struct ksft_metric_label local[] = { KSFT_METRIC_LABEL_STR("host", "local") };
	const struct ksft_metric_label remote[] = {
		KSFT_METRIC_LABEL_STR("host", "remote"), KSFT_METRIC_LABEL_BOOL("ok", 1),
		KSFT_METRIC_LABEL_BOOL("bad", 0),
	};
	volatile double a = 0.1, b = 0.2;
	const struct ksft_metric_label mix[] = {
		KSFT_METRIC_LABEL_STR("\xf0\x9f\x98\x80", "\xe2\x80\xa8"),
		KSFT_METRIC_LABEL_DOUBLE("a", a + b),
		KSFT_METRIC_LABEL_DOUBLE("nam", 1e16),
		KSFT_METRIC_LABEL_DOUBLE("zzz", 5e-324),
		KSFT_METRIC_LABEL_DOUBLE("value2", 1.1e-05),
		KSFT_METRIC_LABEL_STR("\xc3\xa9", "caf\xc3\xa9"),
		KSFT_METRIC_LABEL_INT("Z", -7),
		KSFT_METRIC_LABEL_STR("ctl", "q\"\\\x01\x7f\t"),
	};
	const struct ksft_metric_label big[] = {
		KSFT_METRIC_LABEL_INT("big", INT64_MIN), KSFT_METRIC_LABEL_DOUBLE("f", 100.0),
	};
	const double cpu_v[6] = { 75.0, 22.0, 0, 100.0, 0.01, -0.0 };
	const unsigned char cpu_p[6] = { 1, 1, 0, 1, 1, 1 };

	cpu.summarize = "p90";
	cpu.transform = "rate";
	cpu.aggregation = "busy-core-equivalents";
	cpu.display_min.type = KSFT_METRIC_INT;
	cpu.display_min.u.i = 0;
	cpu.display_max.type = KSFT_METRIC_INT;
	cpu.display_max.u.i = 100;
	cpu.display_scale.type = KSFT_METRIC_INT;
	cpu.display_scale.u.i = 100;
	cpu.display_label = "Percent of one CPU";
	tput.summarize = "distribution";
	tput.regression_compare = "p50";
	tput.regression_better = "higher";
	tput.regression_relative_tolerance.type = KSFT_METRIC_DOUBLE;
	tput.regression_relative_tolerance.u.d = 0.05;
	tput.regression_absolute_tolerance.type = KSFT_METRIC_DOUBLE;
	tput.regression_absolute_tolerance.u.d = 1.5;
	unused.summarize = "max";
	lat.summarize = "p99";
	lat.display_max.type = KSFT_METRIC_DOUBLE;
	lat.display_max.u.d = 2.5;
	lat.display_label = "\xc2\xb5s \xf0\x9f\x98\x80";

	pu_assert_ok(ksft_metric_aggregate("cpu.time.usr", &cpu));
	pu_assert_ok(ksft_metric_aggregate("throughput", &tput));
	pu_assert_ok(ksft_metric_aggregate("unused", &unused));
	pu_assert_ok(ksft_metric_aggregate("lat", &lat));
	pu_assert_ok(ksft_metric_double("throughput", "scalar", 100.5, rx, 1));
	pu_assert_ok(ksft_metric_array("cpu.time.usr", "per-cpu", cpu_v, cpu_p, 6, local, 1));
	pu_assert_ok(ksft_metric_double("tcp.retransmits", "scalar", 75895.0, remote, 3));
	pu_assert_ok(ksft_metric_int("lat", "histogram", INT64_MIN, mix, ARRAY_SIZE(mix)));
	pu_assert_ok(ksft_metric_double("throughput", "scalar", 32.62285180182741, local, 1));
	pu_assert_ok(ksft_metric_int("m", "scalar", 0, NULL, 0));
	pu_assert_ok(ksft_metric_json("m", "per-cpu", "[1, 2.5, null, -3]", NULL));
	pu_assert_ok(ksft_metric_int("m", "scalar", INT64_MAX, big, 2));
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	ck_assert_int_eq(fputs(text, f) >= 0, 1);
	ck_assert_int_eq(fclose(f), 0);
}

START_TEST(test_python_reference)
{
	char script[] = "/tmp/ksftm-ref-XXXXXX", times[] = "/tmp/ksftm-times-XXXXXX";
	char cmd[256], digits[64], *ours, *theirs, *p;
	char tbuf[4096] = "";
	FILE *py;
	int fd, status, n;

	pu_begin();
	record_python_mix();
	ours = pu_end_text(&n);
	ck_assert_int_eq(n, 3 + 8);

	/* The time of each observation, as printed, in order. */
	for (p = ours; *p; p = strchr(p, '\n') + 1)
		if (pu_time_of(p, NULL, digits, sizeof(digits)))
			snprintf(tbuf + strlen(tbuf), sizeof(tbuf) - strlen(tbuf), "%s\n", digits);
	ck_assert_int_eq((int)pu_count_lines(tbuf), 8);

	fd = mkstemp(script);
	ck_assert_int_ge(fd, 0);
	close(fd);
	fd = mkstemp(times);
	ck_assert_int_ge(fd, 0);
	close(fd);
	write_file(script, py_script);
	write_file(times, tbuf);
	snprintf(cmd, sizeof(cmd), "python3 -I %s %s", script, times);
	py = popen(cmd, "r");
	ck_assert_ptr_nonnull(py);
	theirs = pu_read_fd(fileno(py), NULL);
	status = pclose(py);
	unlink(script);
	unlink(times);
	ck_assert_msg(status == 0, "%s exited with status %d", cmd, status);
	/* Byte for byte, times included. */
	pu_assert_text_eq(ours, theirs);
	free(theirs);
	free(ours);
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("observe");

	suite_add_tcase(s, pu_tcase("int_values", test_int_values));
	suite_add_tcase(s, pu_tcase("double_repr", test_double_repr));
	suite_add_tcase(s, pu_tcase("arrays", test_arrays));
	suite_add_tcase(s, pu_tcase("large_array", test_large_array));
	suite_add_tcase(s, pu_tcase("shapes", test_shapes));
	suite_add_tcase(s, pu_tcase("label_types", test_label_types));
	suite_add_tcase(s, pu_tcase("label_unicode", test_label_unicode));
	suite_add_tcase(s, pu_tcase("label_key_order", test_label_key_order));
	suite_add_tcase(s, pu_tcase("many_labels", test_many_labels));
	suite_add_tcase(s, pu_tcase("json_numbers", test_json_numbers));
	suite_add_tcase(s, pu_tcase("json_big_integer", test_json_big_integer));
	suite_add_tcase(s, pu_tcase("json_arrays", test_json_arrays));
	suite_add_tcase(s, pu_tcase("json_labels", test_json_labels));
	suite_add_tcase(s, pu_tcase("reject_reserved_labels", test_reject_reserved_labels));
	suite_add_tcase(s, pu_tcase("reject_reserved_after_other_use", test_reject_reserved_after_other_use));
	suite_add_tcase(s, pu_tcase("reject_name_shape", test_reject_name_shape));
	suite_add_tcase(s, pu_tcase("reject_label_keys", test_reject_label_keys));
	suite_add_tcase(s, pu_tcase("reject_label_values", test_reject_label_values));
	suite_add_tcase(s, pu_tcase("reject_nonfinite", test_reject_nonfinite));
	suite_add_tcase(s, pu_tcase("reject_utf8", test_reject_utf8));
	suite_add_tcase(s, pu_tcase("reject_json_malformed", test_reject_json_malformed));
	suite_add_tcase(s, pu_tcase("reject_json_value_type", test_reject_json_value_type));
	suite_add_tcase(s, pu_tcase("reject_json_labels", test_reject_json_labels));
	suite_add_tcase(s, pu_tcase("reject_partial_record", test_reject_partial_record));
	suite_add_tcase(s, pu_tcase("python_reference", test_python_reference));
	return s;
}
