/*
 * The series model's memory (issue 45): a series holds its case and its
 * metric by reference to records its siblings share, a scalar series'
 * one point in place; the tables of series positions (series_tab.c)
 * find, lose and keep every entry whatever the collisions.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "report/model/report.h"
#include "report/model/series.h"
#include "strbuf.h"
#include "report_util.h"

/* Slot of @v[@i] in @t, or -1 (a probe as the readers do it). */
static long slot_of(const struct rp_htab *t, struct rp_series *const *v, size_t i)
{
	uint64_t h = v[i]->hash;
	size_t j;

	for (j = series_htab_home(t, h); t->pos[j]; j = series_htab_next(t, j))
		if (t->pos[j] == i + 1) {
			ck_assert_uint_eq(t->tag[j], series_htab_tag(h));
			return (long)j;
		}
	return -1;
}

/*
 * 3,000 series whose hashes fall on 50 homes (long runs of probes that
 * wrap around the table's end), inserted, then two of three removed in
 * a scrambled order: every entry left is found where a probe looks,
 * none removed is, and the count follows.
 */
START_TEST(test_htab_collisions)
{
	enum { N = 3000 };
	struct rp_series *s = calloc(N, sizeof(*s)), **v = calloc(N, sizeof(*v));
	unsigned char *gone = calloc(N, 1);
	struct rp_htab t;
	size_t i, k, left = N;

	ck_assert_ptr_nonnull(s);
	ck_assert_ptr_nonnull(v);
	ck_assert_ptr_nonnull(gone);
	ck_assert_int_eq(series_htab_init(&t), 0);
	for (i = 0; i < N; i++) {
		/* low 32 bits: one of 50 homes near the table's end; tag: any */
		s[i].hash = (uint64_t)(i * 2654435761u) << 32 | (0xffffffffu - (uint32_t)(i % 50));
		v[i] = &s[i];
		ck_assert_int_eq(series_htab_insert(&t, v, i), 0);
	}
	ck_assert_uint_eq(t.n, N);
	for (k = 0; k < N; k++) {
		i = (k * 7919) % N;	/* 7919 is prime: every i once */
		if (i % 3 == 0)
			continue;
		series_htab_remove(&t, v, i);
		gone[i] = 1;
		left--;
		series_htab_remove(&t, v, i);	/* not there: nothing */
		ck_assert_uint_eq(t.n, left);
	}
	for (i = 0; i < N; i++) {
		if (gone[i])
			ck_assert_int_eq(slot_of(&t, v, i), -1);
		else
			ck_assert_int_ge(slot_of(&t, v, i), 0);
	}
	series_htab_free(&t);
	free(gone);
	free(v);
	free(s);
}
END_TEST

/* Room made at once: the entries then go in without a rebuild. */
START_TEST(test_htab_reserve)
{
	enum { N = 10000 };
	struct rp_series *s = calloc(N, sizeof(*s)), **v = calloc(N, sizeof(*v));
	struct rp_htab t;
	uint32_t *slots;
	size_t i;

	ck_assert_ptr_nonnull(s);
	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(series_htab_init(&t), 0);
	ck_assert_int_eq(series_htab_reserve(&t, N, v), 0);
	slots = t.pos;
	ck_assert_uint_le(t.size, N + N / 3 + 8);	/* 3/4 full: 5.3 bytes an entry */
	for (i = 0; i < N; i++) {
		s[i].hash = (uint64_t)i * 0x9e3779b97f4a7c15ull;
		v[i] = &s[i];
		ck_assert_int_eq(series_htab_insert(&t, v, i), 0);
	}
	ck_assert_ptr_eq(t.pos, slots);
	for (i = 0; i < N; i++)
		ck_assert_int_ge(slot_of(&t, v, i), 0);
	series_htab_free(&t);
	free(v);
	free(s);
}
END_TEST

/*
 * Three cases of two series: each case's series share one case record,
 * the same metric in every case one metric record; a scalar series'
 * one point in the struct, a second point moves them out. A series was
 * 208 bytes and held its case name, path and strings itself; the plain
 * cases of an input share where they were read.
 */
START_TEST(test_identity_shared)
{
	struct ksft_metric_report *r = ru_read("t", "TAP version 13\n1..3\n"
		"# ktap-metric-json: {\"name\":\"a\",\"host\":\"x\",\"value\":1}\n"
		"# ktap-metric-json: {\"name\":\"b\",\"value\":2}\nok 1 c1\n"
		"# ktap-metric-json: {\"name\":\"a\",\"host\":\"x\",\"value\":3}\n"
		"# ktap-metric-json: {\"name\":\"b\",\"value\":4}\nok 2 c2\n"
		"# ktap-metric-json: {\"name\":\"a\",\"host\":\"x\",\"value\":5}\n"
		"# ktap-metric-json: {\"name\":\"a\",\"host\":\"x\",\"value\":6}\n"
		"# ktap-metric-json: {\"name\":\"b\",\"value\":7}\nok 3 c3\n");
	struct rp_vals view;
	const struct rp_vals *raw;
	size_t i;

	if (sizeof(void *) == 8 && sizeof(double) == 8)
		ck_assert_uint_le(sizeof(struct rp_series), 48);
	ck_assert_uint_eq(r->n_series, 6);
	for (i = 0; i < 6; i += 2) {
		ck_assert_ptr_eq(r->series[i]->kase, r->series[i + 1]->kase);
		ck_assert_ptr_ne(r->series[i]->metric, r->series[i + 1]->metric);
		ck_assert_ptr_eq(r->series[i]->metric, r->series[0]->metric);
		ck_assert_ptr_eq(r->series[i + 1]->metric, r->series[1]->metric);
		ck_assert_uint_eq(r->series[i]->kase->path_len, 0);
		ck_assert(!r->series[i]->reading);
	}
	ck_assert_ptr_ne(r->series[0]->kase, r->series[2]->kase);
	ck_assert_ptr_eq(r->series[0]->kase->src, r->series[4]->kase->src);
	ck_assert_str_eq(series_file(r->series[4]), "t");
	ck_assert_ptr_null(series_reason(r->series[4]));
	ck_assert_str_eq(series_case_name(r->series[2]), "c2");
	ck_assert_str_eq(series_labels(r->series[0]), "{\"host\":\"x\"}");
	ck_assert_int_eq(r->series[0]->form, RP_FORM_ONE);
	raw = series_raw(r->series[2], &view);
	ck_assert_uint_eq(raw->n, 1);
	ck_assert_ptr_eq(raw, &view);
	ru_assert_num(raw->v[0], 3);
	ck_assert_int_eq(r->series[4]->form, RP_FORM_MANY);	/* c3's two "a" */
	raw = series_raw(r->series[4], &view);
	ck_assert_uint_eq(raw->n, 2);
	ru_assert_num(raw->v[1], 6);
	ck_assert_uint_eq(series_n_points(r->series[4]), 2);
	ck_assert_uint_eq(series_joined(r->series[4]), 0);
	ksft_metric_report_free(r);
}
END_TEST

/*
 * A repeated case whose repeat is worse: the series it repeats take the
 * repeat's status and reason, its other series keep their own (their
 * shared case record is not changed under them).
 */
START_TEST(test_join_keeps_siblings)
{
	struct ksft_metric_report *r = ru_read("t", "TAP version 13\n1..2\n"
		"# ktap-metric-json: {\"name\":\"a\",\"value\":1}\n"
		"# ktap-metric-json: {\"name\":\"b\",\"value\":2}\nok 1 c\n"
		"# ktap-metric-json: {\"name\":\"a\",\"value\":3}\nok 1 c # TIMEOUT slow\n");
	struct ksft_metric_report_series q = { .sz = sizeof(q) };

	ck_assert_uint_eq(r->n_series, 2);
	ck_assert_int_eq(ksft_metric_report_series_get(r, 0, &q), 0);
	ck_assert_str_eq(q.name, "a");
	ck_assert_str_eq(q.status, "timeout");
	ck_assert_str_eq(q.status_reason, "slow");
	ck_assert_uint_eq(q.repeats, 2);
	ck_assert_uint_eq(q.points, 2);
	ck_assert_int_eq(ksft_metric_report_series_get(r, 1, &q), 0);
	ck_assert_str_eq(q.name, "b");
	ck_assert_str_eq(q.status, "pass");
	ck_assert_ptr_null(q.status_reason);
	ck_assert_uint_eq(q.repeats, 1);
	ck_assert_str_eq(series_case_name(r->series[0]), series_case_name(r->series[1]));
	ksft_metric_report_free(r);
}
END_TEST

/*
 * The keys of a case's series after the first are made from the first's
 * path and case (series_adopt()): each series' hash is still its own
 * full key's, whatever its name needs (quotes, escapes) or its path.
 */
START_TEST(test_keys_of_siblings)
{
	struct ksft_metric_report *r = ru_read("t", "TAP version 13\n1..2\n"
		"# selftests: net: a.py\n# TAP version 13\n# 1..2\n"
		"# # ktap-metric-json: {\"name\":\"a\",\"value\":1}\n"
		"# # ktap-metric-json: {\"name\":\"q\\\"uote\",\"value\":2}\n"
		"# # ktap-metric-json: {\"name\":\"b\",\"k\":\"v\",\"value\":3}\n"
		"# ok 1 c\\\"1\n"
		"# # ktap-metric-json: {\"name\":\"\\u00e9\",\"value\":4}\n"
		"# # ktap-metric-json: {\"name\":\"a\",\"value\":5}\n"
		"# ok 2 c2\nok 1 selftests: net: a.py\n"
		"# ktap-metric-json: {\"name\":\"a\",\"value\":6}\nok 2 top\n");
	struct strbuf kb = STRBUF_INIT;
	size_t i;

	ck_assert_uint_eq(r->n_series, 6);
	for (i = 0; i < r->n_series; i++) {
		const struct rp_series *x = r->series[i];
		char *want = series_make_key(series_path(x), series_path_len(x),
					     series_case_name(x), series_name(x), series_labels(x));

		ck_assert_ptr_nonnull(want);
		ck_assert_str_eq(series_key_text(x, &kb), want);
		ck_assert(x->hash == series_key_hash(want, strlen(want)));
		free(want);
	}
	ck_assert_str_eq(series_name(r->series[1]), "q\"uote");
	ck_assert_str_eq(series_case_name(r->series[0]), "c\\\"1");
	ck_assert_uint_eq(series_path_len(r->series[3]), 1);
	ck_assert_uint_eq(series_path_len(r->series[5]), 0);
	strbuf_free(&kb);
	ksft_metric_report_free(r);
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("series_model");
	TCase *tc = tcase_create("tables");

	tcase_add_test(tc, test_htab_collisions);
	tcase_add_test(tc, test_htab_reserve);
	suite_add_tcase(s, tc);
	tc = tcase_create("records");
	tcase_add_test(tc, test_identity_shared);
	tcase_add_test(tc, test_join_keeps_siblings);
	tcase_add_test(tc, test_keys_of_siblings);
	suite_add_tcase(s, tc);
	return s;
}
