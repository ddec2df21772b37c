// SPDX-License-Identifier: GPL-2.0
/*
 * Ingest against its engine (issue 25): the time of
 * ksft_metric_report_history_ingest() of a 40- and a 1,000-series run
 * beside the engine's own bare insert of the same rows, in the same run:
 *
 *  - SQLite: a C loop over sqlite3 with prepared statements in one
 *    transaction (BEGIN IMMEDIATE): the run row, each series row
 *    (INSERT OR IGNORE + its id), each result row;
 *  - PostgreSQL: one transaction with the run row and one COPY of the
 *    result rows (the series exist), over libpq on the same server.
 *
 * "The same rows" are the rows the ingest wrote for its last run, read
 * back from the history, and written into a second history of the same
 * schema (SQLite: FILE.bare; PostgreSQL: the same tables, as new runs).
 * WARM runs first give every series a window, so that the ingest's gate
 * does the work it does in CI. Prints medians and their ratio; never
 * passes or fails on a time.
 *
 * usage: bench-ingest DB [REPS] [WARM]   (defaults 15, 30)
 *   bench/perf/bench_history.sh build/bench/bench-ingest   (both backends)
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ksftmetric/report.h>

#include "bench_log.h"
#include "bench_util.h"
#include "report/store/db.h"

#ifdef KSFTM_HAVE_SQLITE
#include <sqlite3.h>
#endif
#ifdef KSFTM_HAVE_LIBPQ
#include <libpq-fe.h>
#endif

static void die(const char *what, int ret)
{
	fprintf(stderr, "%s: %d: %s\n", what, ret, ksft_metric_report_errmsg());
	exit(1);
}

static size_t order_seq;

/*
 * The clock of every figure: this process's CPU time (the bench and the
 * engine it links run in one thread), or with WALL=1 the wall clock. On
 * a shared machine whose load is many times its cores, wall times are
 * mostly the wait for a core; CPU time is what the work costs. A
 * PostgreSQL server's own CPU time is not in it: for PostgreSQL use WALL=1
 * on a quiet machine, or read the two beside each other as they are.
 */
static int use_wall;

static double now_ns(void)
{
	return use_wall ? bench_mono_ns() : bench_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
}

static double ingest_one(struct ksft_metric_report_history *h, const struct ksft_metric_report *r,
			 const char *tag, size_t n)
{
	struct ksft_metric_report_ingest_opts o;
	char id[64], order[64];
	double t0;
	int ret;

	snprintf(id, sizeof(id), "%s-%06zu", tag, order_seq);
	snprintf(order, sizeof(order), "2026-12-01T%08zu", order_seq++);
	bench_run_opts(&o, id, order);
	t0 = now_ns();
	ret = ksft_metric_report_history_ingest(h, r, &o, NULL);
	if (ret != (int)n)
		die("ingest", ret);
	return (now_ns() - t0) / 1e9;
}

/* The last run's rows: its run row, and per result its series' identity
 * and the result's 14 columns (as text, NULL = SQL NULL). */
#define RES_COLS "run_id, series_id, comparable, run_order, usable, status, shape, policy," \
		 " compare_op, better, value, samples, summary, verdict"

static void last_rows(const char *url, const char *tag, struct db_rows **run,
		      struct db_rows **res)
{
	struct db *db;
	char key[64];
	const char *p[1] = { key };

	snprintf(key, sizeof(key), "%s-%06zu", tag, order_seq - 1);
	if (db_open(url, &db) ||
	    db_query(db, "SELECT run_key, run_order, context, comparable, ingested FROM ksftm_runs"
		     " WHERE run_key = $1", p, 1, run) ||
	    db_query(db, "SELECT s.path, s.case_name, s.metric, s.labels, res.run_id,"
		     " res.series_id, res.comparable, res.run_order, res.usable, res.status,"
		     " res.shape, res.policy, res.compare_op, res.better, res.value, res.samples,"
		     " res.summary, res.verdict FROM ksftm_results res JOIN ksftm_series s ON s.id = res.series_id"
		     " JOIN ksftm_runs r ON r.id = res.run_id WHERE r.run_key = $1", p, 1, res))
		die("read back", -1);
	db_close(db);
}

#ifdef KSFTM_HAVE_SQLITE
static sqlite3_stmt *prep(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "prepare: %s\n", sqlite3_errmsg(db));
		exit(1);
	}
	return st;
}

static void step_done(sqlite3 *db, sqlite3_stmt *st)
{
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		;
	if (rc != SQLITE_DONE) {
		fprintf(stderr, "step: %s\n", sqlite3_errmsg(db));
		exit(1);
	}
	sqlite3_reset(st);
}

static void bind_text(sqlite3_stmt *st, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

/* The bare loop: one transaction, statements prepared once. */
static double bare_sqlite(sqlite3 *db, const struct db_rows *run, const struct db_rows *res,
			  size_t rep)
{
	sqlite3_stmt *ins_run = NULL, *ins_series, *get_series, *ins_res;
	size_t k, n = db_rows_count(res);
	char key[80];
	sqlite3_int64 run_id;
	double t0;
	int c;

	{
		ins_run = prep(db, "INSERT INTO ksftm_runs (run_key, run_order, context, comparable,"
			       " ingested) VALUES (?, ?, ?, ?, ?)");
		ins_series = prep(db, "INSERT OR IGNORE INTO ksftm_series (path, case_name, metric,"
				  " labels) VALUES (?, ?, ?, ?)");
		get_series = prep(db, "SELECT id FROM ksftm_series WHERE path = ? AND case_name = ?"
				  " AND metric = ? AND labels = ?");
		ins_res = prep(db, "INSERT INTO ksftm_results (" RES_COLS ") VALUES (?, ?, ?, ?, ?,"
			       " ?, ?, ?, ?, ?, ?, ?, ?, ?)");
	}
	snprintf(key, sizeof(key), "bare-%zu", rep);
	t0 = now_ns();
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		die("begin", -1);
	bind_text(ins_run, 1, key);
	for (c = 1; c < 5; c++)
		bind_text(ins_run, c + 1, db_rows_get(run, 0, c));
	step_done(db, ins_run);
	run_id = sqlite3_last_insert_rowid(db);
	for (k = 0; k < n; k++) {
		sqlite3_int64 sid = 0;

		for (c = 0; c < 4; c++) {
			bind_text(ins_series, c + 1, db_rows_get(res, k, c));
			bind_text(get_series, c + 1, db_rows_get(res, k, c));
		}
		step_done(db, ins_series);
		if (sqlite3_step(get_series) == SQLITE_ROW)
			sid = sqlite3_column_int64(get_series, 0);
		sqlite3_reset(get_series);
		sqlite3_bind_int64(ins_res, 1, run_id);
		sqlite3_bind_int64(ins_res, 2, sid);
		for (c = 2; c < 14; c++)
			bind_text(ins_res, c + 1, db_rows_get(res, k, 4 + c));
		step_done(db, ins_res);
	}
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		die("commit", -1);
	t0 = (now_ns() - t0) / 1e9;
	sqlite3_finalize(ins_run);
	sqlite3_finalize(ins_series);
	sqlite3_finalize(get_series);
	sqlite3_finalize(ins_res);
	return t0;
}
#endif

#ifdef KSFTM_HAVE_LIBPQ
static void pg_ok(PGconn *pg, PGresult *res, const char *what)
{
	ExecStatusType st = PQresultStatus(res);

	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && st != PGRES_COPY_IN) {
		fprintf(stderr, "%s: %s\n", what, PQerrorMessage(pg));
		exit(1);
	}
}

/* COPY text format: \N for NULL, backslash, tab and newlines escaped. */
static void copy_field(char **buf, size_t *len, size_t *cap, const char *v, int last)
{
	size_t need = (v ? 2 * strlen(v) : 2) + 2;

	if (*len + need >= *cap) {
		*cap = 2 * (*cap + need);
		*buf = realloc(*buf, *cap);
		if (!*buf)
			exit(1);
	}
	if (!v) {
		memcpy(*buf + *len, "\\N", 2);
		*len += 2;
	} else {
		for (; *v; v++) {
			if (*v == '\\' || *v == '\t' || *v == '\n' || *v == '\r')
				(*buf)[(*len)++] = '\\';
			(*buf)[(*len)++] = *v == '\t' ? 't' : *v == '\n' ? 'n' : *v == '\r' ? 'r' : *v;
		}
	}
	(*buf)[(*len)++] = last ? '\n' : '\t';
}

/* The bare COPY: one transaction, the run row, one COPY of the results. */
static double bare_pg(PGconn *pg, const struct db_rows *run, const struct db_rows *res, size_t rep)
{
	size_t k, n = db_rows_count(res), len = 0, cap = 0;
	const char *p[5];
	char key[80], *buf = NULL, *run_id;
	PGresult *q;
	double t0;
	int c;

	snprintf(key, sizeof(key), "bare-%zu", rep);
	p[0] = key;
	for (c = 1; c < 5; c++)
		p[c] = db_rows_get(run, 0, c);
	t0 = now_ns();
	q = PQexec(pg, "BEGIN");
	pg_ok(pg, q, "begin");
	PQclear(q);
	q = PQexecParams(pg, "INSERT INTO ksftm_runs (run_key, run_order, context, comparable,"
			 " ingested) VALUES ($1, $2, $3, $4, $5) RETURNING id", 5, NULL, p, NULL,
			 NULL, 0);
	pg_ok(pg, q, "run row");
	run_id = strdup(PQgetvalue(q, 0, 0));
	PQclear(q);
	for (k = 0; k < n; k++) {
		copy_field(&buf, &len, &cap, run_id, 0);
		for (c = 1; c < 14; c++)
			copy_field(&buf, &len, &cap, db_rows_get(res, k, 4 + c), c == 13);
	}
	q = PQexec(pg, "COPY ksftm_results (" RES_COLS ") FROM STDIN");
	pg_ok(pg, q, "copy");
	PQclear(q);
	if (PQputCopyData(pg, buf, (int)len) != 1 || PQputCopyEnd(pg, NULL) != 1)
		die("copy data", -1);
	q = PQgetResult(pg);
	pg_ok(pg, q, "copy end");
	PQclear(q);
	q = PQexec(pg, "COMMIT");
	pg_ok(pg, q, "commit");
	PQclear(q);
	free(buf);
	free(run_id);
	return (now_ns() - t0) / 1e9;
}
#endif

static void one_size(const char *url, size_t n, int reps, int warm)
{
	struct ksft_metric_report_history *h;
	double *ti = calloc((size_t)reps, sizeof(double));
	double *tb = calloc((size_t)reps, sizeof(double));
	struct db_rows *run = NULL, *res = NULL;
	int pg = !strncmp(url, "postgres", 8), i, ret;
	char tag[32];
	struct buf b = { 0 };

	snprintf(tag, sizeof(tag), "s%zu", n);
	if ((ret = ksft_metric_report_history_open(url, &h)))
		die("open", ret);
	for (i = 0; i < warm + reps; i++) {
		struct ksft_metric_report *r;
		double t;

		make_log(&b, n, tag);
		r = read_log(&b, n);
		t = ingest_one(h, r, tag, n);
		if (i >= warm)
			ti[i - warm] = t;
		ksft_metric_report_free(r);
	}
	ksft_metric_report_history_close(h);
	last_rows(url, tag, &run, &res);
	if (db_rows_count(res) != n)
		die("rows read back", (int)db_rows_count(res));
	if (!pg) {
#ifdef KSFTM_HAVE_SQLITE
		char bare_url[4200];
		sqlite3 *lite;

		/* A second history of the same schema, set up by the library. */
		snprintf(bare_url, sizeof(bare_url), "%s.bare-%zu", url, n);
		unlink(bare_url);
		if ((ret = ksft_metric_report_history_open(bare_url, &h)))
			die("open bare", ret);
		ksft_metric_report_history_close(h);
		if (sqlite3_open(bare_url, &lite) != SQLITE_OK ||
		    sqlite3_exec(lite, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
				 " PRAGMA foreign_keys=ON", NULL, NULL, NULL) != SQLITE_OK)
			die("bare sqlite", -1);
		for (i = 0; i < reps; i++)
			tb[i] = bare_sqlite(lite, run, res, (size_t)i);
		sqlite3_close(lite);
#endif
	} else {
#ifdef KSFTM_HAVE_LIBPQ
		PGconn *c = PQconnectdb(url);

		if (PQstatus(c) != CONNECTION_OK)
			die("bare connect", -1);
		for (i = 0; i < reps; i++)
			tb[i] = bare_pg(c, run, res, (size_t)i + n * 1000);
		PQfinish(c);
#endif
	}
	{
		double mi = bench_median(ti, reps), mb = bench_median(tb, reps);

		printf("ingest of a %zu-series run (%zu points), median of %d after %d runs:\n", n,
		       n * REPEATS, reps, warm);
		printf("  ksft_metric_report_history_ingest  %8.2f ms  %9.0f result rows/s\n",
		       mi * 1e3, n / mi);
		printf("  bare %-29s %8.2f ms  %9.0f result rows/s\n",
		       pg ? "COPY of the same rows" : "prepared loop, same rows", mb * 1e3, n / mb);
		printf("  ingest rate / bare rate: %.1f %%\n", 100.0 * mb / mi);
	}
	db_rows_free(run);
	db_rows_free(res);
	free(ti);
	free(tb);
	free(b.p);
}

int main(int argc, char **argv)
{
	int reps = argc > 2 ? atoi(argv[2]) : 15, warm = argc > 3 ? atoi(argv[3]) : 30;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2 || reps < 1 || warm < 0) {
		fprintf(stderr, "usage: bench-ingest DB [REPS] [WARM]\n");
		return 2;
	}
	use_wall = (getenv("WALL") && !strcmp(getenv("WALL"), "1")) || !strncmp(argv[1], "postgres", 8);
	printf("clock: %s\n", use_wall ? "wall (WALL=1 or PostgreSQL)" : "process CPU time");
	printf("backend: %s\n", !strncmp(argv[1], "postgres", 8) ? "PostgreSQL" : "SQLite");
	one_size(argv[1], 40, reps, warm);
	one_size(argv[1], 1000, reps, warm);
	return 0;
}
