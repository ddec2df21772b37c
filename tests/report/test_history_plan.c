/*
 * The history's read queries (lib/report/store/history_sql.h: the gate's window,
 * level-shift values, missing series, pinned run; `history`'s points) are
 * index range scans, not scans that grow with the whole history. SQLite: EXPLAIN QUERY PLAN
 * of each, as the code runs it (its parameters bound, with and without a
 * current order and a pinned run), has no SCAN and searches the named
 * tables through an index. PostgreSQL ($KSFTM_HISTORY_URL, history_pg.sh):
 * with enable_seqscan off, EXPLAIN of each shows an index or bitmap scan on
 * the named tables and no sequential scan, i.e. an index serves it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "history_fixture.h"
#include "report/store/history.h"
#include "report/judge/history_judge.h"
#include "report/store/history_sql.h"
#include "report_util.h"

static const char run_log[] =
	"KTAP version 1\n1..2\n"
	"# ktap-metric-policy-json: {\"name\":\"throughput\",\"regression\":{\"better\":\"higher\","
	"\"compare\":\"p50\",\"relative_tolerance\":0.05},\"summarize\":\"distribution\"}\n"
	"# ktap-metric-json: {\"name\":\"throughput\",\"shape\":\"scalar\",\"time\":1.0,\"value\":30.0}\n"
	"# ktap-metric-json: {\"name\":\"throughput\",\"shape\":\"scalar\",\"time\":2.0,\"value\":34.0}\n"
	"# ktap-metric-json: {\"name\":\"throughput\",\"shape\":\"scalar\",\"time\":3.0,\"value\":31.0}\n"
	"ok 1 tcp\n"
	"# ktap-metric-json: {\"host\":\"remote\",\"name\":\"latency\",\"shape\":\"scalar\",\"time\":1.0,\"value\":7}\n"
	"not ok 2 udp\n";

/* A small history with a level, a pin, and two machines. */
static struct history *filled(char **sid, char **cmp)
{
	struct ksft_metric_report *r = ru_read("run.log", run_log);
	const char *ctx_a[] = { "hostname=a", "arch=x86_64" };
	const char *ctx_b[] = { "hostname=b", "arch=x86_64" };
	struct history *h;
	struct db_rows *rows;
	char key[32], order[32];
	int i;

	ck_assert_int_eq(history_open(hist_url, &h), 0);
	for (i = 0; i < 24; i++) {
		struct history_run run = { key, order, i % 3 ? ctx_a : ctx_b, 2, 0, 0 };

		snprintf(key, sizeof(key), "run-%02d", i);
		snprintf(order, sizeof(order), "2026-12-01T%02d", i);
		ck_assert_int_eq(history_record(h, r, &run, NULL), 2);
	}
	ck_assert_int_ge(history_accept(h, "run-10", "throughput"), 0);
	ck_assert_int_eq(history_pin(h, "run-20", 1), 0);
	ksft_metric_report_free(r);
	ck_assert_int_eq(db_query(history_db(h), "SELECT res.series_id, res.comparable FROM"
				  " ksftm_results res JOIN ksftm_series s ON s.id = res.series_id"
				  " JOIN ksftm_runs r ON r.id = res.run_id WHERE s.metric ="
				  " 'throughput' AND r.run_key = 'run-10'", NULL, 0, &rows), 0);
	ck_assert_uint_eq(db_rows_count(rows), 1);
	*sid = strdup(db_rows_get(rows, 0, 0));
	*cmp = strdup(db_rows_get(rows, 0, 1));
	db_rows_free(rows);
	return h;
}

/* A query with its LIMIT filled in, as the code does. */
#define LIMITED(buf, fmt, limit) snprintf((buf), sizeof(buf), fmt, (size_t)(limit))

static int is_pg(void)
{
	const char *env = getenv("KSFTM_HISTORY_URL");

	return env && *env;
}

/*
 * `history`'s points may sort: one series' results, read through an
 * index range of that series (ksftm_results_series, which served them in
 * order, is dropped since issue 45: every ingest paid for it).
 */
static int sort_allowed;

/*
 * Assert that @sql (with @n parameters @p) reads each of @tables ("res" is
 * ksftm_results' alias in the queries) through an index and scans nothing.
 */
static void assert_indexed(struct history *h, const char *what, const char *sql,
			   const char *const *p, int n, const char *const *tables, int n_tables)
{
	struct db *db = history_db(h);
	struct db_rows *rows;
	char *explain = malloc(strlen(sql) + 32), *plan;
	size_t k, len = 1;
	int t;

	ck_assert_ptr_nonnull(explain);
	sprintf(explain, "%s%s", is_pg() ? "EXPLAIN " : "EXPLAIN QUERY PLAN ", sql);
	ck_assert_msg(db_query(db, explain, p, n, &rows) == 0, "%s: %s", what,
		      ksft_metric_report_errmsg());
	free(explain);
	/* The plan as one text, a line per row. */
	for (k = 0; k < db_rows_count(rows); k++)
		len += strlen(db_rows_get(rows, k, db_rows_columns(rows) - 1)) + 1;
	plan = calloc(1, len);
	ck_assert_ptr_nonnull(plan);
	for (k = 0; k < db_rows_count(rows); k++) {
		strcat(plan, db_rows_get(rows, k, db_rows_columns(rows) - 1));
		strcat(plan, "\n");
	}
	for (k = 0; k < db_rows_count(rows); k++) {
		const char *line = db_rows_get(rows, k, db_rows_columns(rows) - 1);

		/* A scan reads the whole table; a sort (for ORDER BY ... LIMIT)
		 * reads every row that matches before the limit applies. */
		if (is_pg()) {
			ck_assert_msg(!strstr(line, "Seq Scan"), "%s scans a table:\n%s", what, plan);
			ck_assert_msg(sort_allowed || !strstr(line, "Sort  ("), "%s sorts:\n%s",
				      what, plan);
		} else {
			ck_assert_msg(strncmp(line, "SCAN", 4), "%s scans a table:\n%s", what, plan);
			ck_assert_msg(sort_allowed || !strstr(line, "FOR ORDER BY"), "%s sorts:\n%s",
				      what, plan);
		}
	}
	for (t = 0; t < n_tables; t++) {
		int found = 0;

		for (k = 0; k < db_rows_count(rows) && !found; k++) {
			const char *line = db_rows_get(rows, k, db_rows_columns(rows) - 1);
			char on[80];

			if (is_pg()) {
				/* "Index Scan [Backward] using I on ksftm_results res",
				 * "Index Only Scan ...", "Bitmap Heap Scan on ..." */
				const char *table = !strcmp(tables[t], "res") ? "ksftm_results" : tables[t];

				snprintf(on, sizeof(on), " on %s", table);
				found = strstr(line, on) && (strstr(line, "Index Scan") ||
							     strstr(line, "Index Only Scan") ||
							     strstr(line, "Bitmap Heap Scan"));
			} else {
				/* "SEARCH res USING INDEX ksftm_results_window (...)", or
				 * older: "SEARCH TABLE ksftm_results AS res USING ..." */
				size_t tl = strlen(tables[t]);
				const char *at = strstr(line, tables[t]);

				found = !strncmp(line, "SEARCH ", 7) && at &&
					(at[tl] == ' ' || at[tl] == '\0') && at[-1] == ' ' &&
					(strstr(line, "USING INDEX") || strstr(line, "USING COVERING INDEX") ||
					 strstr(line, "USING INTEGER PRIMARY KEY") ||
					 strstr(line, "USING PRIMARY KEY"));
			}
		}
		ck_assert_msg(found, "%s does not read %s through an index:\n%s", what, tables[t], plan);
	}
	free(plan);
	db_rows_free(rows);
}

/*
 * SQLite: @sql reads ksftm_results from an index alone ("USING COVERING
 * INDEX"), no table row per result. PostgreSQL's index-only scan depends on
 * its visibility map (what VACUUM last saw), so only SQLite's plan is fixed.
 */
static void assert_covered(struct history *h, const char *what, const char *sql,
			   const char *const *p, int n)
{
	struct db_rows *rows;
	char *explain = malloc(strlen(sql) + 32);
	size_t k;
	int found = 0;

	if (is_pg()) {
		free(explain);
		return;
	}
	ck_assert_ptr_nonnull(explain);
	sprintf(explain, "EXPLAIN QUERY PLAN %s", sql);
	ck_assert_int_eq(db_query(history_db(h), explain, p, n, &rows), 0);
	free(explain);
	for (k = 0; k < db_rows_count(rows); k++) {
		const char *line = db_rows_get(rows, k, db_rows_columns(rows) - 1);

		/* A WITHOUT ROWID table's own key ("USING PRIMARY KEY"; a
		 * rowid table's is "INTEGER PRIMARY KEY") is where its rows are. */
		if (!strncmp(line, "SEARCH res ", 11))
			found = strstr(line, "USING COVERING INDEX") ||
				strstr(line, "USING PRIMARY KEY");
	}
	db_rows_free(rows);
	ck_assert_msg(found, "%s reads ksftm_results rows, not an index alone", what);
}

/* PostgreSQL: is there a plan without a sequential scan or a sort? */
static void pg_no_seqscan(struct history *h)
{
	if (is_pg())
		ck_assert_int_eq(db_exec(history_db(h), "SET enable_seqscan = off;"
					 " SET enable_sort = off"), 0);
}

START_TEST(test_window_plan)
{
	char *sid, *cmp, sql[sizeof(HISTORY_WINDOW_SQL) + 24];
	struct history *h = filled(&sid, &cmp);
	const char *res[] = { "res" };
	const char *p0[5] = { sid, cmp, NULL, NULL, NULL };
	const char *p1[5] = { sid, cmp, "2026-12-01T23", "2026-12-01T20", "2026-12-01T10" };

	pg_no_seqscan(h);
	LIMITED(sql, HISTORY_WINDOW_SQL, 30);
	/* compare --db (no order, no pin) and ingest (its order, a pin). */
	assert_indexed(h, "window", sql, p0, 5, res, 1);
	assert_indexed(h, "window at an order, a pin and a level", sql, p1, 5, res, 1);
	LIMITED(sql, HISTORY_WINDOW_VALUES_SQL, 30);
	assert_indexed(h, "scalar window", sql, p0, 5, res, 1);
	assert_covered(h, "scalar window", sql, p0, 5);
	assert_covered(h, "scalar window at an order, a pin and a level", sql, p1, 5);
	/* The same with the order in the index range (ingest's). */
	LIMITED(sql, HISTORY_WINDOW_BEFORE_SQL, 30);
	assert_indexed(h, "window before an order, a pin and a level", sql, p1, 5, res, 1);
	LIMITED(sql, HISTORY_WINDOW_VALUES_BEFORE_SQL, 30);
	assert_covered(h, "scalar window before an order, a pin and a level", sql, p1, 5);
	/* Without a pin or a level, three parameters (issue 45). */
	LIMITED(sql, HISTORY_WINDOW_PLAIN_SQL, 30);
	assert_indexed(h, "window before an order", sql, p1, 3, res, 1);
	LIMITED(sql, HISTORY_WINDOW_VALUES_PLAIN_SQL, 30);
	assert_covered(h, "scalar window before an order", sql, p1, 3);
	{
		/* The level-shift rule's recent values. */
		const char *q0[4] = { sid, cmp, NULL, NULL };
		const char *q1[4] = { sid, cmp, "2026-12-01T23", "2026-12-01T10" };

		/* SQLite's without ksftm_results_series, PostgreSQL's with it. */
		const char *shift = is_pg() ? HISTORY_SHIFT_SQL : HISTORY_SHIFT_MERGED_SQL;

		assert_indexed(h, "level shift", shift, q0, 4, res, 1);
		assert_indexed(h, "level shift at an order and a level", shift, q1, 4, res, 1);
	}
	{
		const char *p[3] = { sid, cmp, NULL }, *q[3] = { sid, cmp, "2026-12-01T23" };

		assert_indexed(h, "has_any", HISTORY_HAS_ANY_SQL, p, 3,
			       (const char *const[]){ "ksftm_results" }, 1);
		assert_indexed(h, "has_any before an order", HISTORY_HAS_ANY_SQL, q, 3,
			       (const char *const[]){ "ksftm_results" }, 1);
	}
	{
		const char *runs[] = { "ksftm_runs" };
		const char *q0[2] = { cmp, NULL }, *q1[2] = { cmp, "2026-12-01T23" };

		assert_indexed(h, "latest pinned", HISTORY_LATEST_PINNED_SQL, q0, 2, runs, 1);
		assert_indexed(h, "latest pinned at an order", HISTORY_LATEST_PINNED_SQL, q1, 2,
			       runs, 1);
		assert_indexed(h, "later runs", HISTORY_LATER_RUNS_SQL, q1, 2, runs, 1);
		assert_indexed(h, "newest order", HISTORY_NEWEST_ORDER_SQL, q0, 1, runs, 1);
	}
	history_close(h);
	free(sid);
	free(cmp);
}
END_TEST

START_TEST(test_missing_plan)
{
	char *sid, *cmp, sql[sizeof(HISTORY_MISSING_SQL) + 24];
	struct history *h = filled(&sid, &cmp);
	const char *tables[] = { "res", "ksftm_runs" };
	const char *p0[3] = { cmp, NULL, NULL };
	const char *p1[3] = { cmp, "2026-12-01T23", "2026-12-01T20" };

	pg_no_seqscan(h);
	LIMITED(sql, HISTORY_MISSING_SQL, 30);
	assert_indexed(h, "missing series", sql, p0, 3, tables, 2);
	assert_indexed(h, "missing series at an order and a pin", sql, p1, 3, tables, 2);
	assert_covered(h, "missing series", sql, p0, 3);
	history_close(h);
	free(sid);
	free(cmp);
}
END_TEST

START_TEST(test_points_plan)
{
	char *sid, *cmp, sql[sizeof(HISTORY_POINTS_SQL) + 24];
	struct history *h = filled(&sid, &cmp);
	const char *res[] = { "res" };
	const char *pass[2] = { sid, "pass" }, *all[2] = { sid, NULL };

	pg_no_seqscan(h);
	LIMITED(sql, HISTORY_POINTS_SQL, 1000);
	sort_allowed = 1;
	assert_indexed(h, "history points", sql, pass, 2, res, 1);
	assert_indexed(h, "history points, --all-status", sql, all, 2, res, 1);
	sort_allowed = 0;
	history_close(h);
	free(sid);
	free(cmp);
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("history_plan");

	suite_add_tcase(s, hist_tcase("window", test_window_plan));
	suite_add_tcase(s, hist_tcase("missing", test_missing_plan));
	suite_add_tcase(s, hist_tcase("points", test_points_plan));
	return s;
}
