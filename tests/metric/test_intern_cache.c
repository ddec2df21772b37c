/*
 * The recording path's cache of interned strings by the address a caller
 * passed them at (lib/metric/intern.h, intern_cached()): a buffer reused for
 * another name, a shorter string at the same address, a string interned by
 * a rejected record (then reused, or asked for again), more call sites than the cache has slots, and a new
 * case all record exactly what an uncached lookup would.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "producer_util.h"

#define OBS(json) "# " PU_OBS json "\n"
#define SCALAR(name, v) OBS("{\"name\":\"" name "\",\"shape\":\"scalar\",\"time\":T,\"value\":" v "}")

/* One buffer, rewritten between calls: same address, other bytes. */
START_TEST(test_reused_buffer)
{
	char name[32], shape[16];

	pu_begin();
	strcpy(shape, "scalar");
	strcpy(name, "rx.bytes");
	pu_assert_ok(ksft_metric_int(name, shape, 1, NULL, 0));
	strcpy(name, "tx.bytes");
	pu_assert_ok(ksft_metric_int(name, shape, 2, NULL, 0));
	/* A prefix of the cached string: equal bytes up to the caller's NUL. */
	strcpy(name, "tx");
	pu_assert_ok(ksft_metric_int(name, shape, 3, NULL, 0));
	/* A longer string that starts with the cached one. */
	strcpy(name, "tx.bytes.total");
	pu_assert_ok(ksft_metric_int(name, shape, 4, NULL, 0));
	strcpy(name, "tx.bytes");
	pu_assert_ok(ksft_metric_int(name, shape, 5, NULL, 0));
	pu_expect_end(SCALAR("rx.bytes", "1") SCALAR("tx.bytes", "2") SCALAR("tx", "3")
		      SCALAR("tx.bytes.total", "4") SCALAR("tx.bytes", "5"));
}
END_TEST

/* Label keys and string values through the same buffers. */
START_TEST(test_reused_label_buffers)
{
	char key[16], val[16];
	struct ksft_metric_label l = KSFT_METRIC_LABEL_STR(key, val);

	pu_begin();
	strcpy(key, "dev");
	strcpy(val, "eth0");
	pu_assert_ok(ksft_metric_int("m", "scalar", 1, &l, 1));
	strcpy(val, "eth1");
	pu_assert_ok(ksft_metric_int("m", "scalar", 2, &l, 1));
	strcpy(key, "queue");
	strcpy(val, "3");
	pu_assert_ok(ksft_metric_int("m", "scalar", 3, &l, 1));
	/* A reserved key at a cached key's address is still refused. */
	strcpy(key, "time");
	pu_assert_err(ksft_metric_int("m", "scalar", 4, &l, 1), EINVAL,
		      "metric label uses reserved name: time");
	strcpy(key, "dev");
	strcpy(val, "eth0");
	pu_assert_ok(ksft_metric_int("m", "scalar", 5, &l, 1));
	pu_expect_end(OBS("{\"dev\":\"eth0\",\"name\":\"m\",\"shape\":\"scalar\",\"time\":T,\"value\":1}")
		      OBS("{\"dev\":\"eth1\",\"name\":\"m\",\"shape\":\"scalar\",\"time\":T,\"value\":2}")
		      OBS("{\"name\":\"m\",\"queue\":\"3\",\"shape\":\"scalar\",\"time\":T,\"value\":3}")
		      OBS("{\"dev\":\"eth0\",\"name\":\"m\",\"shape\":\"scalar\",\"time\":T,\"value\":5}"));
}
END_TEST

static const char first[] = "first.metric";
static const char second[] = "second.metric";
#define SECOND(v) OBS("{\"name\":\"second.metric\",\"shape\":\"other\",\"time\":T,\"value\":" v "}")

/* Open a case whose first record, of "first.metric", is refused: its
 * strings ("first.metric", "scalar", "k") are interned, then dropped. */
static void begin_with_refused_record(void)
{
	static const char bad_utf8[] = { (char)0xff, 0 };
	const struct ksft_metric_label bad = KSFT_METRIC_LABEL_STR("k", bad_utf8);

	pu_begin();
	pu_assert_err(ksft_metric_int(first, "scalar", 1, &bad, 1), EINVAL,
		      "metric first.metric: label k value is not valid UTF-8");
}

/*
 * The cache still holds the dropped strings' addresses. Their ids are
 * then given to other strings: a later call at the first address must
 * not find the second string's id.
 */
START_TEST(test_rejected_record_strings)
{
	begin_with_refused_record();
	/* Takes the ids "first.metric" and "scalar" had. */
	pu_assert_ok(ksft_metric_int(second, "other", 2, NULL, 0));
	pu_assert_ok(ksft_metric_int(first, "scalar", 3, NULL, 0));
	pu_assert_ok(ksft_metric_int(second, "other", 4, NULL, 0));
	pu_expect_end(SECOND("2") SCALAR("first.metric", "3") SECOND("4"));
}
END_TEST

/*
 * The same, called again at once: the dropped strings' bytes and entries
 * are still in the table's memory past its end, and must not be found
 * there (a later string would take their ids and rename this record).
 */
START_TEST(test_rejected_then_same)
{
	begin_with_refused_record();
	pu_assert_ok(ksft_metric_int(first, "scalar", 2, NULL, 0));
	pu_assert_ok(ksft_metric_int(second, "other", 3, NULL, 0));
	pu_expect_end(SCALAR("first.metric", "2") SECOND("3"));
}
END_TEST

/* More distinct addresses than cache slots, each recorded twice, in turn. */
START_TEST(test_many_call_sites)
{
	enum { N = 300 };
	char (*names)[16] = malloc(sizeof(*names) * N);
	char want[64], *raw, *text, *p;
	int i, pass;

	ck_assert_ptr_nonnull(names);
	for (i = 0; i < N; i++)
		snprintf(names[i], sizeof(names[i]), "m%d", i);
	pu_begin();
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < N; i++)
			pu_assert_ok(ksft_metric_int(names[i], "scalar", pass * N + i, NULL, 0));
	raw = pu_end_text(NULL);
	text = pu_mask_time(raw);
	free(raw);
	p = text;
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < N; i++) {
			snprintf(want, sizeof(want),
				 "{\"name\":\"m%d\",\"shape\":\"scalar\",\"time\":T,\"value\":%d}\n",
				 i, pass * N + i);
			p = strstr(p, PU_OBS);
			ck_assert_ptr_nonnull(p);
			p += strlen(PU_OBS);
			ck_assert_msg(!strncmp(p, want, strlen(want)), "line %d: got %.60s, want %s",
				      pass * N + i, p, want);
		}
	ck_assert_ptr_null(strstr(p, PU_OBS));
	free(text);
	free(names);
}
END_TEST

/* A string cached in one case is looked up afresh in the next. */
START_TEST(test_next_case)
{
	char name[16];

	strcpy(name, "a");
	pu_begin();
	pu_assert_ok(ksft_metric_int(name, "scalar", 1, NULL, 0));
	pu_expect_end(SCALAR("a", "1"));
	strcpy(name, "b");
	pu_begin();
	pu_assert_ok(ksft_metric_int(name, "scalar", 2, NULL, 0));
	pu_expect_end(SCALAR("b", "2"));
}
END_TEST

Suite *make_suite(void)
{
	const struct ck_case cases[] = {
		{ "reused_buffer", test_reused_buffer },
		{ "reused_label_buffers", test_reused_label_buffers },
		{ "rejected_record_strings", test_rejected_record_strings },
		{ "rejected_then_same", test_rejected_then_same },
		{ "many_call_sites", test_many_call_sites },
		{ "next_case", test_next_case },
	};
	Suite *s = suite_create("intern_cache");
	size_t i;

	/* pu_tcase(): each case with the producer's reset fixture. */
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		suite_add_tcase(s, pu_tcase(cases[i].name, cases[i].test));
	return s;
}
