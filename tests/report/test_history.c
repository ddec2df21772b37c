/*
 * The run history's storage, against the backend named by
 * $KSFTM_HISTORY_URL (a PostgreSQL server that history_pg.sh starts), else
 * a fresh SQLite file: schema creation and versioning, what one ingest
 * stores, refusals that write nothing, and concurrent writers.
 */
#include <errno.h>
#include <ksftmetric/report.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_main.h"
#include "report/store/history.h"
#include "report/store/history_window.h"
#include "report/judge/history_document.h"
#include "report/judge/history_judge.h"
#include "report/process/pipeline.h"
#include "history_fixture.h"
#include "report_util.h"

static const char run_log[] =
	"KTAP version 1\n1..2\n"
	"# ktap-metric-context-json: {\"arch\":\"x86_64\",\"commit\":\"from-log\","
	"\"hostname\":\"logged\",\"kernel\":\"6.12.9\"}\n"
	"# ktap-metric-policy-json: {\"name\":\"throughput\",\"regression\":{\"better\":\"higher\","
	"\"compare\":\"p50\",\"relative_tolerance\":0.05},\"summarize\":\"distribution\"}\n"
	"# ktap-metric-json: {\"host\":\"local\",\"name\":\"throughput\",\"shape\":\"scalar\",\"time\":1.0,\"value\":30.0}\n"
	"# ktap-metric-json: {\"host\":\"local\",\"name\":\"throughput\",\"shape\":\"scalar\",\"time\":2.0,\"value\":34.0}\n"
	"# ktap-metric-json: {\"host\":\"local\",\"name\":\"throughput\",\"shape\":\"scalar\",\"time\":3.0,\"value\":31.0}\n"
	"ok 1 tcp\n"
	"# ktap-metric-json: {\"name\":\"latency\",\"shape\":\"scalar\",\"time\":1.0,\"value\":7}\n"
	"not ok 2 udp\n";

/* The single value of a one-row, one-column query. */
static char *scalar(struct history *h, const char *sql)
{
	struct db_rows *rows;
	char *v;

	ck_assert_int_eq(db_query(history_db(h), sql, NULL, 0, &rows), 0);
	ck_assert_uint_eq(db_rows_count(rows), 1);
	v = db_rows_get(rows, 0, 0) ? strdup(db_rows_get(rows, 0, 0)) : NULL;
	db_rows_free(rows);
	return v;
}

static long count(struct history *h, const char *table)
{
	char sql[128], *v;
	long n;

	snprintf(sql, sizeof(sql), "SELECT COUNT(*) FROM %s", table);
	v = scalar(h, sql);
	n = strtol(v, NULL, 10);
	free(v);
	return n;
}

START_TEST(test_schema)
{
	struct history *h;
	char *v;

	ck_assert_int_eq(history_open(hist_url, &h), 0);
	v = scalar(h, "SELECT value FROM ksftm_meta WHERE key = 'schema_version'");
	ck_assert_str_eq(v, "3");
	free(v);
	history_close(h);
	/* Opening again finds the schema and changes nothing. */
	ck_assert_int_eq(history_open(hist_url, &h), 0);
	ck_assert_int_eq(count(h, "ksftm_meta"), 2);
	/* A newer schema is refused, not scribbled on. */
	ck_assert_int_eq(db_exec(history_db(h), "UPDATE ksftm_meta SET value = '99'"
				 " WHERE key = 'schema_version'"), 0);
	history_close(h);
	ck_assert_int_eq(history_open(hist_url, &h), -EPROTO);
	ck_assert_msg(strstr(ksft_metric_report_errmsg(), "schema version 99"), "%s",
		      ksft_metric_report_errmsg());
}
END_TEST

/* A version 1 history is migrated whole by its first writer (not by
 * opening, not by a reader): new columns and tables, and comparability
 * keys whose values are all text. */
START_TEST(test_migrate_v1)
{
	struct history *h;
	char *v;

	ck_assert_int_eq(history_open_version(hist_url, 1, &h), 0);
	ck_assert_int_eq(db_exec(history_db(h), "INSERT INTO ksftm_runs (run_key, run_order, context,"
				 " comparable, ingested) VALUES ('old', '1', '{\"cpu_count\":2,"
				 "\"hostname\":\"box\",\"kernel\":\"6.1\"}', '{\"cpu_count\":2,"
				 "\"hostname\":\"box\"}', 'then')"), 0);
	v = scalar(h, "SELECT value FROM ksftm_meta WHERE key = 'schema_version'");
	ck_assert_str_eq(v, "1");
	free(v);
	/* Version 1 has no verdicts yet. */
	ck_assert_int_ne(db_exec(history_db(h), "SELECT verdict FROM ksftm_results"), 0);
	history_close(h);

	/* Opening writes nothing; a reader refuses the old schema, saying a
	 * writer migrates it... */
	ck_assert_int_eq(history_open(hist_url, &h), 0);
	v = scalar(h, "SELECT value FROM ksftm_meta WHERE key = 'schema_version'");
	ck_assert_str_eq(v, "1");
	free(v);
	{
		struct ksft_metric_report_history_opts o = KSFT_METRIC_REPORT_HISTORY_OPTS_INIT;
		char *text = NULL;
		size_t len;

		ck_assert_int_eq(history_document_format(h, &o, KSFT_METRIC_REPORT_TEXT, &text, &len), -EPROTO);
		ck_assert_msg(strstr(ksft_metric_report_errmsg(), "schema version 1: a writer"), "%s",
			      ksft_metric_report_errmsg());
	}
	/* ...and the first writer does, whole. */
	ck_assert_int_eq(history_pin(h, "old", 0), 0);
	v = scalar(h, "SELECT value FROM ksftm_meta WHERE key = 'schema_version'");
	ck_assert_str_eq(v, "3");
	free(v);
	/* Version 3: the old run's content key, from its (here: no) rows. */
	v = scalar(h, "SELECT content_key FROM ksftm_runs WHERE run_key = 'old'");
	ck_assert_msg(!strncmp(v, "fnv-", 4) && strlen(v) == 36, "%s", v);
	free(v);
	v = scalar(h, "SELECT comparable FROM ksftm_runs WHERE run_key = 'old'");
	ck_assert_str_eq(v, "{\"cpu_count\":\"2\",\"hostname\":\"box\"}");
	free(v);
	ck_assert_int_eq(db_exec(history_db(h), "SELECT verdict, accepted FROM ksftm_results"), 0);
	ck_assert_int_eq(count(h, "ksftm_levels"), 0);
	history_close(h);
}
END_TEST

/*
 * Issue 40: a version 2 history's runs get their content key from their
 * rows at migration, the same key ingest gives the same log now; so the
 * log ingested again (a retry, with no id or order) is the old run,
 * named by its old id (ids are kept), and nothing is stored.
 */
START_TEST(test_migrate_v2)
{
	struct ksft_metric_report *r = ru_read("run.log", run_log);
	const char *ctx[] = { "runner=ci-7" };
	struct history_run run = { "sha-0123456789abcdef", "1", ctx, 1, 0, 0 };
	struct history_run retry = { NULL, "2", ctx, 1, 0, 0 };
	struct history *h;
	char *key = NULL, *v;

	/* A history as version 2 left it: a run with an old "sha-" key and
	 * no content key (made by today's ingest, then taken back). */
	ck_assert_int_eq(history_open(hist_url, &h), 0);
	ck_assert_int_eq(history_record(h, r, &run, NULL), 2);
	v = scalar(h, "SELECT content_key FROM ksftm_runs");
	ck_assert_int_eq(db_exec(history_db(h), "DROP INDEX ksftm_runs_content"), 0);
	ck_assert_int_eq(db_exec(history_db(h), "ALTER TABLE ksftm_runs DROP COLUMN content_key"), 0);
	ck_assert_int_eq(db_exec(history_db(h), "UPDATE ksftm_meta SET value = '2'"
				 " WHERE key = 'schema_version'"), 0);
	history_close(h);

	ck_assert_int_eq(history_open(hist_url, &h), 0);
	ck_assert_int_eq(history_record(h, r, &retry, &key), -EALREADY);
	ck_assert_str_eq(key, "sha-0123456789abcdef");
	free(key);
	ck_assert_int_eq(count(h, "ksftm_runs"), 1);
	{
		char *migrated = scalar(h, "SELECT content_key FROM ksftm_runs");
		char *version = scalar(h, "SELECT value FROM ksftm_meta WHERE key = 'schema_version'");

		ck_assert_str_eq(migrated, v);
		ck_assert_str_eq(version, "3");
		free(migrated);
		free(version);
	}
	free(v);
	history_close(h);
	ksft_metric_report_free(r);
}
END_TEST

/* Every stored result as text, in one order (the layouts' common columns). */
static char *results_dump(struct history *h)
{
	struct db_rows *rows;
	size_t k, len = 1;
	char *out;
	int c;

	ck_assert_int_eq(db_query(history_db(h), "SELECT run_id, series_id, comparable, run_order,"
				  " usable, status, shape, policy, compare_op, better, value, samples,"
				  " summary, verdict, accepted FROM ksftm_results"
				  " ORDER BY run_id, series_id", NULL, 0, &rows), 0);
	for (k = 0; k < db_rows_count(rows); k++)
		for (c = 0; c < db_rows_columns(rows); c++)
			len += strlen(db_rows_get(rows, k, c) ? db_rows_get(rows, k, c) : "NULL") + 1;
	out = calloc(1, len);
	ck_assert_ptr_nonnull(out);
	for (k = 0; k < db_rows_count(rows); k++)
		for (c = 0; c < db_rows_columns(rows); c++) {
			strcat(out, db_rows_get(rows, k, c) ? db_rows_get(rows, k, c) : "NULL");
			strcat(out, c + 1 < db_rows_columns(rows) ? "|" : "\n");
		}
	db_rows_free(rows);
	return out;
}

static int is_pg(void)
{
	return !strncmp(hist_url, "postgres", 8);
}

/* Is the results table in the old layout (keyed by (series_id, run_id),
 * on SQLite a rowid table), not keyed by (run_id, series_id)? */
static int old_layout(struct history *h)
{
	char *v;
	int old;

	if (!is_pg()) {
		v = scalar(h, "SELECT sql FROM sqlite_master WHERE name = 'ksftm_results'");
		old = !strstr(v, "WITHOUT ROWID");
		ck_assert_int_eq(!strstr(v, "PRIMARY KEY (run_id, series_id)"), old);
	} else {
		v = scalar(h, "SELECT pg_get_constraintdef(oid) FROM pg_constraint"
			   " WHERE conname = 'ksftm_results_pkey'");
		old = strcmp(v, "PRIMARY KEY (run_id, series_id)") != 0;
		if (old)
			ck_assert_str_eq(v, "PRIMARY KEY (series_id, run_id)");
	}
	free(v);
	return old;
}

/* Has the history the index ksftm_results_series (series_id, run_order)? */
static long series_index(struct history *h)
{
	char *v = scalar(h, is_pg() ?
			 "SELECT COUNT(*) FROM pg_class WHERE relname = 'ksftm_results_series'"
			 " AND pg_table_is_visible(oid)" :
			 "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index'"
			 " AND name = 'ksftm_results_series'");
	long n = strtol(v, NULL, 10);

	free(v);
	return n;
}

/*
 * Issue 45: the results keyed by (run, series), three b-trees a result
 * where there were five. A history in the old layout (as this
 * project wrote it until then) is read as it is, by a reader that writes
 * nothing, and re-keyed whole by its next writer, every result kept.
 */
START_TEST(test_rekey_old_layout)
{
	struct ksft_metric_report *r = ru_read("run.log", run_log);
	const char *ctx[] = { "runner=ci-7" };
	struct history_run run = { "r1", "1", ctx, 1, 0, 0 };
	struct history *h;
	char *before, *after, *doc0 = NULL, *doc1 = NULL;
	struct ksft_metric_report_history_opts o = KSFT_METRIC_REPORT_HISTORY_OPTS_INIT;
	size_t len;

	ck_assert_int_eq(history_open(hist_url, &h), 0);
	ck_assert_int_eq(history_record(h, r, &run, NULL), 2);
	run = (struct history_run){ "r2", "2", ctx, 1, 0, 0 };
	ck_assert_int_eq(history_record(h, r, &run, NULL), 2);
	ck_assert_int_eq(old_layout(h), 0);
	ck_assert_int_eq(history_document_format(h, &o, KSFT_METRIC_REPORT_JSON, &doc0, &len), 0);
	before = results_dump(h);
	/* Back to the old layout, as an older ksft-metric left it. */
	ck_assert_int_eq(db_exec(history_db(h), is_pg() ?
		"ALTER TABLE ksftm_results DROP CONSTRAINT ksftm_results_pkey;"
		"ALTER TABLE ksftm_results ADD PRIMARY KEY (series_id, run_id);"
		"CREATE INDEX ksftm_results_run_series ON ksftm_results (run_id, usable, series_id,"
		" better);" :
		"CREATE TABLE old_results ("
		" run_id BIGINT NOT NULL REFERENCES ksftm_runs(id) ON DELETE CASCADE,"
		" series_id BIGINT NOT NULL REFERENCES ksftm_series(id),"
		" comparable TEXT NOT NULL, run_order TEXT NOT NULL, usable INTEGER NOT NULL,"
		" status TEXT NOT NULL, shape TEXT NOT NULL, policy TEXT, compare_op TEXT,"
		" better TEXT, value DOUBLE PRECISION, samples TEXT NOT NULL, summary TEXT NOT NULL,"
		" PRIMARY KEY (series_id, run_id));"
		"ALTER TABLE old_results ADD COLUMN verdict TEXT;"
		"ALTER TABLE old_results ADD COLUMN accepted INTEGER NOT NULL DEFAULT 0;"
		"INSERT INTO old_results SELECT run_id, series_id, comparable, run_order, usable,"
		" status, shape, policy, compare_op, better, value, samples, summary, verdict,"
		" accepted FROM ksftm_results;"
		"DROP TABLE ksftm_results;"
		"ALTER TABLE old_results RENAME TO ksftm_results;"
		"CREATE INDEX ksftm_results_window_op ON ksftm_results (series_id, comparable,"
		" usable, run_order, value, compare_op);"
		"CREATE INDEX ksftm_results_run_series ON ksftm_results (run_id, usable, series_id,"
		" better);"
		"CREATE INDEX ksftm_results_series ON ksftm_results (series_id, run_order);"), 0);
	ck_assert_int_eq(old_layout(h), 1);
	history_close(h);

	/* A reader reads it as it is, the same, and changes nothing. */
	ck_assert_int_eq(history_open(hist_url, &h), 0);
	after = results_dump(h);
	ck_assert_str_eq(after, before);
	free(after);
	ck_assert_int_eq(history_document_format(h, &o, KSFT_METRIC_REPORT_JSON, &doc1, &len), 0);
	ck_assert_str_eq(doc1, doc0);
	free(doc1);
	ck_assert_int_eq(old_layout(h), 1);
	/* Its next writer re-keys it, every result kept. */
	run = (struct history_run){ "r3", "3", ctx, 1, 0, 0 };
	ck_assert_int_eq(history_record(h, r, &run, NULL), 2);
	ck_assert_int_eq(old_layout(h), 0);
	ck_assert_int_eq(series_index(h), is_pg());
	ck_assert_int_eq(count(h, "ksftm_results"), 6);
	ck_assert_int_eq(db_exec(history_db(h), "DELETE FROM ksftm_runs WHERE run_key = 'r3'"), 0);
	after = results_dump(h);
	ck_assert_str_eq(after, before);
	free(after);
	/* Once: the next writer finds it done. */
	ck_assert_int_eq(history_record(h, r, &run, NULL), 2);
	ck_assert_int_eq(old_layout(h), 0);
	free(before);
	free(doc0);
	history_close(h);
	ksft_metric_report_free(r);
}
END_TEST

/*
 * Issue 45: ksftm_results_series is not written any more on SQLite
 * (PostgreSQL keeps it). A history that has it (as ksft-metric left it
 * until then, in the new layout) is read as it is with the same points
 * and verdicts, and its next writer drops it; the runs it then ingests
 * get the verdicts they got with it.
 */
START_TEST(test_drop_series_index)
{
	struct ksft_metric_report *r = ru_read("run.log", run_log);
	const char *ctx[] = { "runner=ci-7" };
	struct history_run run = { "r1", "1", ctx, 1, 0, 0 };
	struct ksft_metric_report_history_opts o = KSFT_METRIC_REPORT_HISTORY_OPTS_INIT;
	struct history *h;
	char *before, *after, *doc0 = NULL, *doc1 = NULL, key[8], order[8];
	size_t len;
	int i;

	ck_assert_int_eq(history_open(hist_url, &h), 0);
	for (i = 1; i <= 4; i++) {
		snprintf(key, sizeof(key), "r%d", i);
		snprintf(order, sizeof(order), "%d", i);
		run = (struct history_run){ key, order, ctx, 1, 0, 0 };
		ck_assert_int_eq(history_record(h, r, &run, NULL), 2);
	}
	ck_assert_int_eq(series_index(h), is_pg());
	if (is_pg())
		goto out;
	ck_assert_int_eq(history_document_format(h, &o, KSFT_METRIC_REPORT_JSON, &doc0, &len), 0);
	before = results_dump(h);
	ck_assert_int_eq(db_exec(history_db(h), "CREATE INDEX ksftm_results_series"
				 " ON ksftm_results (series_id, run_order)"), 0);
	history_close(h);

	/* A reader reads it as it is, the same, and changes nothing. */
	ck_assert_int_eq(history_open(hist_url, &h), 0);
	ck_assert_int_eq(history_document_format(h, &o, KSFT_METRIC_REPORT_JSON, &doc1, &len), 0);
	ck_assert_str_eq(doc1, doc0);
	free(doc1);
	ck_assert_int_eq(series_index(h), 1);
	/* Its next writer drops it, every result kept, r5 judged as before. */
	run = (struct history_run){ "r5", "5", ctx, 1, 0, 0 };
	ck_assert_int_eq(history_record(h, r, &run, NULL), 2);
	ck_assert_int_eq(series_index(h), 0);
	{
		struct db_rows *rows;

		ck_assert_int_eq(db_query(history_db(h), "SELECT res.verdict FROM ksftm_results res"
					  " JOIN ksftm_runs r ON r.id = res.run_id WHERE r.run_key = 'r5'"
					  " ORDER BY res.series_id", NULL, 0, &rows), 0);
		ck_assert_uint_eq(db_rows_count(rows), 2);
		ck_assert_str_eq(db_rows_get(rows, 0, 0), "no_change");
		ck_assert_str_eq(db_rows_get(rows, 1, 0), "not_comparable");
		db_rows_free(rows);
	}
	ck_assert_int_eq(db_exec(history_db(h), "DELETE FROM ksftm_runs WHERE run_key = 'r5'"), 0);
	after = results_dump(h);
	ck_assert_str_eq(after, before);
	free(after);
	ck_assert_int_eq(history_document_format(h, &o, KSFT_METRIC_REPORT_JSON, &doc1, &len), 0);
	ck_assert_str_eq(doc1, doc0);
	free(doc1);
	free(before);
out:
	free(doc0);
	history_close(h);
	ksft_metric_report_free(r);
}
END_TEST

/* Run @k of test_untracked_verdicts_probed's history: a tracked series,
 * two untracked ones and an interference series in "tcp"; "flaky", whose
 * untracked series fails in runs 0-2 and is absent in run 6; "late", new
 * in run 5. */
static struct ksft_metric_report *probe_run(int k)
{
	char buf[2048];
	size_t len = 0;

	len += (size_t)snprintf(buf + len, sizeof(buf) - len,
		"KTAP version 1\n1..%d\n"
		"# ktap-metric-policy-json: {\"name\":\"throughput\",\"regression\":{\"better\":"
		"\"higher\",\"compare\":\"p50\",\"relative_tolerance\":0.05},\"summarize\":\"p50\"}\n"
		"# ktap-metric-json: {\"name\":\"throughput\",\"shape\":\"scalar\",\"value\":%d}\n"
		"# ktap-metric-json: {\"name\":\"retrans\",\"shape\":\"scalar\",\"value\":%d}\n"
		"# ktap-metric-json: {\"name\":\"interference.others_cpu\",\"shape\":\"scalar\","
		"\"value\":0.0%d}\nok 1 tcp\n", k >= 5 ? 3 : 2, 100 + k % 3, 7 * k, k % 4);
	if (k != 6)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len,
			"# ktap-metric-json: {\"name\":\"plain\",\"shape\":\"scalar\",\"value\":%d}\n"
			"%s 2 flaky\n", 40 + k, k < 3 ? "not ok" : "ok");
	else
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "ok 2 flaky\n");
	if (k >= 5)
		snprintf(buf + len, sizeof(buf) - len,
			 "# ktap-metric-json: {\"name\":\"fresh\",\"shape\":\"scalar\",\"value\":%d}\n"
			 "ok 3 late\n", k);
	return ru_read("probe.log", buf);
}

/* @r's verdicts judged against @h's runs on machines @cmp (all of them:
 * the run is the newest), reading whole windows or not (@verdicts_only),
 * one "case/metric=verdict" line each, in the report's order. */
static char *probe_verdicts(struct history *h, const struct ksft_metric_report *r,
			    const char *cmp, int verdicts_only)
{
	struct hgate_opts o = { .comparable = cmp, .allow_missing = 1, .windows_only = 1,
				.verdicts_only = verdicts_only };
	struct ksft_metric_report_comparison *c = NULL;
	size_t i, n = ksft_metric_report_series_count(r);
	const char **v;
	char *out = calloc(1, 64 * n + 1);

	ck_assert_ptr_nonnull(out);
	ck_assert_int_ge(history_compare_lookup(history_db(h), r, &o, &c), 0);
	v = history_compare_verdicts(c, n);
	ck_assert_ptr_nonnull(v);
	for (i = 0; i < n; i++) {
		struct ksft_metric_report_series s = { .sz = sizeof(s) };

		ck_assert_int_eq(ksft_metric_report_series_get(r, i, &s), 0);
		sprintf(out + strlen(out), "%s/%s=%s\n", s.case_name, s.name, v[i]);
	}
	free(v);
	ksft_metric_report_comparison_free(c);
	return out;
}

/* The verdicts ingest stored for run @key, in the report's order. */
static char *stored_verdicts(struct history *h, const struct ksft_metric_report *r,
			     const char *key)
{
	size_t i, k, n = ksft_metric_report_series_count(r);
	struct db_rows *rows;
	const char *p[1] = { key };
	char *out = calloc(1, 64 * n + 1);

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(db_query(history_db(h), "SELECT s.case_name, s.metric, res.verdict"
				  " FROM ksftm_results res JOIN ksftm_series s ON s.id = res.series_id"
				  " JOIN ksftm_runs r ON r.id = res.run_id WHERE r.run_key = $1",
				  p, 1, &rows), 0);
	ck_assert_uint_eq(db_rows_count(rows), n);
	for (i = 0; i < n; i++) {
		struct ksft_metric_report_series s = { .sz = sizeof(s) };

		ck_assert_int_eq(ksft_metric_report_series_get(r, i, &s), 0);
		for (k = 0; k < n; k++)
			if (!strcmp(db_rows_get(rows, k, 0), s.case_name) &&
			    !strcmp(db_rows_get(rows, k, 1), s.name))
				break;
		ck_assert_uint_lt(k, n);
		sprintf(out + strlen(out), "%s/%s=%s\n", s.case_name, s.name,
			db_rows_get(rows, k, 2));
	}
	db_rows_free(rows);
	return out;
}

/*
 * Issue 45: ingest reads an untracked scalar series' newest window value
 * only (hgate_opts.verdicts_only). Its verdicts are those of the whole
 * windows, run after run: new, not comparable (only failed runs before),
 * untracked, with a run missing the series and with a pinned run; and
 * what ingest stores is what compare --db says, twice the same.
 */
START_TEST(test_untracked_verdicts_probed)
{
	const char *ctx[] = { "runner=ci-9" };
	struct history *h;
	char key[8], order[8], *cmp = NULL;
	int k, seen_new = 0, seen_not_comparable = 0, seen_untracked = 0;

	ck_assert_int_eq(history_open(hist_url, &h), 0);
	for (k = 0; k < 8; k++) {
		struct ksft_metric_report *r = probe_run(k);
		struct history_run run = { key, order, ctx, 1, 0, 0 };
		char *whole = NULL, *probed, *again, *stored;

		snprintf(key, sizeof(key), "p%d", k);
		snprintf(order, sizeof(order), "%d", k);
		if (cmp) {
			whole = probe_verdicts(h, r, cmp, 0);
			probed = probe_verdicts(h, r, cmp, 1);
			again = probe_verdicts(h, r, cmp, 1);
			ck_assert_str_eq(probed, whole);
			ck_assert_str_eq(again, whole);
			seen_new |= strstr(whole, "late/fresh=new") != NULL;
			seen_not_comparable |= strstr(whole, "flaky/plain=not_comparable") != NULL;
			seen_untracked |= strstr(whole, "flaky/plain=untracked") != NULL;
			free(probed);
			free(again);
		}
		ck_assert_int_eq(history_record(h, r, &run, NULL), (k == 6 || k < 5) ? 4 : 5);
		if (whole) {
			stored = stored_verdicts(h, r, key);
			ck_assert_str_eq(stored, whole);
			free(stored);
		}
		free(whole);
		if (!cmp)
			cmp = scalar(h, "SELECT comparable FROM ksftm_runs");
		if (k == 3)
			ck_assert_int_eq(history_pin(h, "p3", 1), 0);
		if (k == 5)
			ck_assert_int_eq(history_pin(h, "p3", 0), 0);
		ksft_metric_report_free(r);
	}
	ck_assert(seen_new && seen_not_comparable && seen_untracked);
	free(cmp);
	history_close(h);
}
END_TEST

/* A log of one "tput" series a case, cases @from..@to (inclusive). */
static char *cases_log(int from, int to)
{
	char *buf = malloc(64 * 1024), *at = buf;
	int c;

	ck_assert_ptr_nonnull(buf);
	at += sprintf(at, "KTAP version 1\n1..%d\n", to - from + 1);
	for (c = from; c <= to; c++)
		at += sprintf(at, "# ktap-metric-json: {\"name\":\"tput\",\"shape\":\"scalar\","
			      "\"time\":1.0,\"value\":%d}\nok %d case%02d\n", 10 + c, c - from + 1, c);
	return buf;
}

/*
 * Issue 45: a run's series ids looked up through the newest run's series
 * (one query) are those of one look-up a series: series in the newest
 * run, in an older one only, and new to the history.
 */
START_TEST(test_lookup_through_newest_run)
{
	const char *ctx[] = { "runner=ci-7" };
	struct ksft_metric_report *r;
	struct history_key *keys, *one;
	struct history *h;
	char *text;
	size_t i, n;

	ck_assert_int_eq(history_open(hist_url, &h), 0);
	text = cases_log(0, 19);
	r = ru_read("a.log", text);
	ck_assert_int_eq(history_record(h, r, &(struct history_run){ "a", "1", ctx, 1, 0, 0 },
					NULL), 20);
	ksft_metric_report_free(r);
	free(text);
	text = cases_log(10, 29);
	r = ru_read("b.log", text);
	ck_assert_int_eq(history_record(h, r, &(struct history_run){ "b", "2", ctx, 1, 0, 0 },
					NULL), 20);
	ksft_metric_report_free(r);
	free(text);
	/* Cases 0-9 in run a only, 10-19 in both, 20-29 in b only, 30-39 new. */
	text = cases_log(0, 39);
	r = ru_read("c.log", text);
	n = ksft_metric_report_series_count(r);
	ck_assert_uint_eq(n, 40);
	ck_assert_int_eq(history_window_lookup_keys(history_db(h), r, &keys), 0);
	ck_assert_int_eq(history_window_lookup_keys(history_db(h), r, &one), 0);
	for (i = 0; i < n; i++) {
		one[i].id = 0;
		/* One at a time: under the threshold of the newest run's query. */
		ck_assert_int_eq(history_series_lookup(history_db(h), one, &i, 1), 0);
		ck_assert_msg(keys[i].id == one[i].id, "series %zu: %lld, one by one %lld", i,
			      keys[i].id, one[i].id);
		ck_assert_int_eq(keys[i].id == 0, i >= 30);
		free((char *)keys[i].path);
		free((char *)one[i].path);
	}
	free(keys);
	free(one);
	ksft_metric_report_free(r);
	free(text);
	history_close(h);
}
END_TEST

/* ksft_metric_report_history_check() on run_log with context item @item
 * (NULL: none): its answer, with *@why (NULL: not wanted) its sentence. */
static int check_with(struct ksft_metric_report_history *kh, const struct ksft_metric_report *r,
		      const char *item, char **why)
{
	struct ksft_metric_report_gate_opts go = KSFT_METRIC_REPORT_GATE_OPTS_INIT;
	const char *ctx[1] = { item };

	go.context = ctx;
	go.n_context = item ? 1 : 0;
	return ksft_metric_report_history_check(kh, r, &go, why);
}

static void ingest_as(struct ksft_metric_report_history *kh, const struct ksft_metric_report *r,
		      const char *id, const char *item)
{
	struct ksft_metric_report_ingest_opts io = KSFT_METRIC_REPORT_INGEST_OPTS_INIT;
	const char *ctx[1] = { item };

	io.run_id = id;
	io.order = id;
	io.context = ctx;
	io.n_context = item ? 1 : 0;
	ck_assert_int_eq(ksft_metric_report_history_ingest(kh, r, &io, NULL), 2);
}

/*
 * Issue 40 item 12: "can this history judge this run?" is one public
 * call, answered from the runs each machine holds of the run's series:
 * empty; its machine's; only other machines' (named, with their runs);
 * an orphan lacking the runner key the others have, until it holds the
 * gate's five runs; a run whose series are new to the history.
 */
START_TEST(test_history_check)
{
	static const char other_log[] =
		"KTAP version 1\n1..1\n"
		"# ktap-metric-json: {\"name\":\"fresh\",\"shape\":\"scalar\",\"value\":1}\n"
		"ok 1 new_case\n";
	struct ksft_metric_report *r = ru_read("run.log", run_log);
	struct ksft_metric_report *fresh = ru_read("fresh.log", other_log);
	struct ksft_metric_report_history *kh;
	char *why = NULL, id[16];
	int i;

	ck_assert_int_eq(ksft_metric_report_history_open(hist_url, &kh), 0);
	ck_assert_int_eq(check_with(kh, r, "runner=a", &why), KSFT_METRIC_REPORT_HISTORY_EMPTY);
	ck_assert_msg(strstr(why, "holds no run: nothing to judge this run against"), "%s", why);
	ksft_metric_report_text_free(why);
	for (i = 0; i < 6; i++) {
		snprintf(id, sizeof(id), "a-%d", i);
		ingest_as(kh, r, id, "runner=a");
	}
	why = (char *)1;
	ck_assert_int_eq(check_with(kh, r, "runner=a", &why), KSFT_METRIC_REPORT_HISTORY_FITS);
	ck_assert_ptr_null(why);
	ck_assert_int_eq(check_with(kh, r, "runner=b", &why),
			 KSFT_METRIC_REPORT_HISTORY_OTHER_CONTEXTS);
	ck_assert_msg(strstr(why, "but 6 runs there hold its series under other contexts (the"
			     " comparability keys that differ): runner=a (6 runs)"), "%s", why);
	ksft_metric_report_text_free(why);
	ck_assert_int_eq(check_with(kh, r, NULL, &why), KSFT_METRIC_REPORT_HISTORY_KEY_MISSING);
	ck_assert_msg(strstr(why, "this run's context has no runner, which every other run of"
			     " its series") && strstr(why, "0 runs there are comparable") &&
		      strstr(why, "runner=a (6 runs)"), "%s", why);
	ksft_metric_report_text_free(why);
	/* An orphan of the bare context: still one until it holds five. */
	for (i = 0; i < 5; i++) {
		snprintf(id, sizeof(id), "bare-%d", i);
		ingest_as(kh, r, id, NULL);
		ck_assert_int_eq(check_with(kh, r, NULL, NULL), i < 4 ?
				 KSFT_METRIC_REPORT_HISTORY_KEY_MISSING :
				 KSFT_METRIC_REPORT_HISTORY_FITS);
	}
	/* Series new to the history: nothing can be wrong with its context. */
	ck_assert_int_eq(check_with(kh, fresh, "runner=z", NULL), KSFT_METRIC_REPORT_HISTORY_FITS);
	ck_assert_int_eq(check_with(kh, NULL, NULL, NULL), -EINVAL);
	ksft_metric_report_history_close(kh);
	ksft_metric_report_free(fresh);
	ksft_metric_report_free(r);
}
END_TEST

START_TEST(test_ingest)
{
	struct ksft_metric_report *r = ru_read("run.log", run_log);
	const char *ctx[] = { "commit=abc123", "runner=ci-7", "hostname=box" };
	struct history_run run = { "run-1", "2026-11-30T10:00:00Z", ctx, 3, 0, 0 };
	struct history *h;
	struct db_rows *rows;
	char *key;

	ck_assert_int_eq(history_open(hist_url, &h), 0);
	ck_assert_int_eq(history_record(h, r, &run, &key), 2);
	ck_assert_str_eq(key, "run-1");
	free(key);
	ck_assert_int_eq(count(h, "ksftm_runs"), 1);
	ck_assert_int_eq(count(h, "ksftm_series"), 2);
	ck_assert_int_eq(db_query(history_db(h),
		"SELECT s.case_name, s.metric, s.labels, r.status, r.usable, r.value,"
		" r.samples, r.compare_op, r.better, r.run_order, r.comparable"
		" FROM ksftm_results r JOIN ksftm_series s ON s.id = r.series_id"
		" ORDER BY s.case_name", NULL, 0, &rows), 0);
	ck_assert_uint_eq(db_rows_count(rows), 2);
	/* tcp passed: usable, compare value p50 of 30, 34, 31. */
	ck_assert_str_eq(db_rows_get(rows, 0, 0), "tcp");
	ck_assert_str_eq(db_rows_get(rows, 0, 1), "throughput");
	ck_assert_str_eq(db_rows_get(rows, 0, 2), "{\"host\":\"local\"}");
	ck_assert_str_eq(db_rows_get(rows, 0, 3), "pass");
	ck_assert_str_eq(db_rows_get(rows, 0, 4), "1");
	ck_assert_double_eq(strtod(db_rows_get(rows, 0, 5), NULL), 31.0);
	ck_assert_str_eq(db_rows_get(rows, 0, 6), "[30.0,34.0,31.0]");
	ck_assert_str_eq(db_rows_get(rows, 0, 7), "p50");
	ck_assert_str_eq(db_rows_get(rows, 0, 8), "higher");
	/* The order in UTC to the microsecond, then the run id (ties). */
	ck_assert_str_eq(db_rows_get(rows, 0, 9), "2026-11-30T10:00:00.000000Z\001run-1");
	/* Comparable by the machine and runner keys, not the commit; the
	 * CI's items win over the log's context line. */
	ck_assert_str_eq(db_rows_get(rows, 0, 10),
			 "{\"arch\":\"x86_64\",\"hostname\":\"box\",\"runner\":\"ci-7\"}");
	/* udp failed: kept, never a baseline. */
	ck_assert_str_eq(db_rows_get(rows, 1, 0), "udp");
	ck_assert_str_eq(db_rows_get(rows, 1, 3), "fail");
	ck_assert_str_eq(db_rows_get(rows, 1, 4), "0");
	db_rows_free(rows);
	{
		char *stored = scalar(h, "SELECT context FROM ksftm_runs");

		ck_assert_str_eq(stored, "{\"arch\":\"x86_64\",\"commit\":\"abc123\",\"hostname\":\"box\","
				 "\"kernel\":\"6.12.9\",\"runner\":\"ci-7\"}");
		free(stored);
	}
	history_close(h);
	ksft_metric_report_free(r);
}
END_TEST

START_TEST(test_refusals_write_nothing)
{
	struct ksft_metric_report *r = ru_read("run.log", run_log);
	const char *bad[] = { "commit=abc", "no-equals-sign" };
	struct history_run run = { "run-1", "1", NULL, 0, 0, 0 };
	struct history_run badrun = { "run-2", "2", bad, 2, 0, 0 };
	struct history *h;
	char *first = NULL;

	const char *other[] = { "commit=other" };
	struct history_run again = { "run-1", "3", other, 1, 0, 0 };

	ck_assert_int_eq(history_open(hist_url, &h), 0);
	ck_assert_int_eq(history_record(h, r, &run, NULL), 2);
	/* The same run key with the same content: the same run again (a CI's
	 * retry, issue 40), named back, nothing stored. */
	ck_assert_int_eq(history_record(h, r, &run, &first), -EALREADY);
	ck_assert_str_eq(first, "run-1");
	free(first);
	first = NULL;
	/* The same run key with other content (another context): refused. */
	ck_assert_int_eq(history_record(h, r, &again, NULL), -EEXIST);
	ck_assert_str_eq(ksft_metric_report_errmsg(), "run run-1 is already in the history");
	/* A malformed context item: the one run-context rule's message, the
	 * same as report's and compare's --context (read/context.c). */
	ck_assert_int_eq(history_record(h, r, &badrun, NULL), -EINVAL);
	ck_assert_str_eq(ksft_metric_report_errmsg(),
			 "context entry 2 'no-equals-sign': not KEY=VALUE with a non-empty KEY");
	ck_assert_int_eq(count(h, "ksftm_runs"), 1);
	ck_assert_int_eq(count(h, "ksftm_results"), 2);
	/* Without a run key the content names the run: the same logs are
	 * the run stored as run-1, whatever the order; other content is a
	 * new run, named by its content key. */
	run.run_key = NULL;
	run.order = "7";
	ck_assert_int_eq(history_record(h, r, &run, &first), -EALREADY);
	ck_assert_str_eq(first, "run-1");
	free(first);
	first = NULL;
	run.context = other;
	run.n_context = 1;
	ck_assert_int_eq(history_record(h, r, &run, &first), 2);
	ck_assert_msg(!strncmp(first, "fnv-", 4) && strlen(first) == 36, "%s", first);
	{
		char *stored = scalar(h, "SELECT content_key FROM ksftm_runs WHERE run_key <> 'run-1'");

		ck_assert_str_eq(stored, first);
		free(stored);
	}
	ck_assert_int_eq(history_record(h, r, &run, NULL), -EALREADY);
	ck_assert_int_eq(count(h, "ksftm_runs"), 2);
	free(first);
	history_close(h);
	ksft_metric_report_free(r);
}
END_TEST

/* A log of one case with @n scalar series (one point each). */
static struct ksft_metric_report *wide_report(size_t n)
{
	size_t cap = 128 + n * 96, len = 0, k;
	char *text = malloc(cap);
	struct ksft_metric_report *r;

	ck_assert_ptr_nonnull(text);
	len += (size_t)snprintf(text + len, cap - len, "KTAP version 1\n1..1\n");
	for (k = 0; k < n; k++)
		len += (size_t)snprintf(text + len, cap - len, "# ktap-metric-json: {\"name\":\"m%zu\","
					"\"shape\":\"scalar\",\"time\":1,\"value\":%zu}\n", k, k);
	snprintf(text + len, cap - len, "ok 1 wide\n");
	r = ru_read("wide.log", text);
	free(text);
	return r;
}

/* pipeline_work (comparison rows visited, values summarised) of ingesting @n
 * series after a run of them: linear in @n, not quadratic. */
static unsigned long long ingest_work(struct history *h, size_t n, const char *key)
{
	struct ksft_metric_report *r = wide_report(n);
	struct history_run run = { key, "2", NULL, 0, 0, 0 };
	char first[64];
	unsigned long long work;

	snprintf(first, sizeof(first), "%s-first", key);
	run.run_key = first;
	run.order = "1";
	ck_assert_int_eq(history_record(h, r, &run, NULL), (int)n);
	run.run_key = key;
	run.order = "2";
	pipeline_work = 0;
	ck_assert_int_eq(history_record(h, r, &run, NULL), (int)n);
	work = pipeline_work;
	ksft_metric_report_free(r);
	return work;
}

START_TEST(test_ingest_linear)
{
	struct history *h;
	unsigned long long small, big;

	ck_assert_int_eq(history_open(hist_url, &h), 0);
	small = ingest_work(h, 250, "small");
	big = ingest_work(h, 1000, "big");
	/* 4x the series: 4x the work (a scan of every row per series: 16x). */
	ck_assert_msg(small > 0 && big <= 5 * small, "250 series: %llu, 1000: %llu", small, big);
	history_close(h);
}
END_TEST

#define WRITERS 8
#define RUNS_EACH 5

START_TEST(test_concurrent_writers)
{
	pid_t pids[WRITERS];
	struct history *h;
	int i, status;

	/* Each writer opens its own connection, as separate CI jobs do; the
	 * first ones race to create the schema. */
	for (i = 0; i < WRITERS; i++) {
		pids[i] = fork();
		ck_assert_int_ge(pids[i], 0);
		if (pids[i] == 0) {
			struct ksft_metric_report *r = ru_read("run.log", run_log);
			struct history *hc;
			char key[32];
			int j, bad = 0;

			if (history_open(hist_url, &hc)) {
				fprintf(stderr, "writer %d: open: %s\n", i, ksft_metric_report_errmsg());
				_exit(1);
			}
			for (j = 0; j < RUNS_EACH; j++) {
				struct history_run run = { key, key, NULL, 0, 0, 0 };

				snprintf(key, sizeof(key), "w%d-r%d", i, j);
				if (history_record(hc, r, &run, NULL) != 2) {
					fprintf(stderr, "writer %d: %s\n", i, ksft_metric_report_errmsg());
					bad = 1;
				}
			}
			history_close(hc);
			ksft_metric_report_free(r);
			_exit(bad);
		}
	}
	for (i = 0; i < WRITERS; i++) {
		ck_assert_int_eq(waitpid(pids[i], &status, 0), pids[i]);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			      "writer %d failed (status %d)", i, status);
	}
	ck_assert_int_eq(history_open(hist_url, &h), 0);
	ck_assert_int_eq(count(h, "ksftm_runs"), WRITERS * RUNS_EACH);
	ck_assert_int_eq(count(h, "ksftm_results"), WRITERS * RUNS_EACH * 2);
	ck_assert_int_eq(count(h, "ksftm_series"), 2);
	history_close(h);
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("history");

	suite_add_tcase(s, hist_tcase("schema", test_schema));
	suite_add_tcase(s, hist_tcase("migrate_v1", test_migrate_v1));
	suite_add_tcase(s, hist_tcase("migrate_v2", test_migrate_v2));
	suite_add_tcase(s, hist_tcase("rekey_old_layout", test_rekey_old_layout));
	suite_add_tcase(s, hist_tcase("drop_series_index", test_drop_series_index));
	suite_add_tcase(s, hist_tcase("untracked_verdicts_probed", test_untracked_verdicts_probed));
	suite_add_tcase(s, hist_tcase("lookup_through_newest_run", test_lookup_through_newest_run));
	suite_add_tcase(s, hist_tcase("history_check", test_history_check));
	suite_add_tcase(s, hist_tcase("ingest", test_ingest));
	suite_add_tcase(s, hist_tcase("refusals_write_nothing", test_refusals_write_nothing));
	suite_add_tcase(s, hist_tcase("ingest_linear", test_ingest_linear));
	suite_add_tcase(s, hist_tcase("concurrent_writers", test_concurrent_writers));
	return s;
}
