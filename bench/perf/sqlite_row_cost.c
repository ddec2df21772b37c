// SPDX-License-Identifier: GPL-2.0
/*
 * SQLite's own cost of the history's statements, one at a time, on a copy
 * of a real history (issue 45): run under valgrind --tool=callgrind twice,
 * with the work and with only its setup (SKIP=1), and subtract; the
 * difference over N is the cost a statement or a row. Prints the rows it
 * read or wrote; passes or fails nothing.
 *
 *   sqlite_row_cost HISTORY window          one window query a series (HISTORY_WINDOW_VALUES_SQL)
 *   sqlite_row_cost HISTORY slab            the last runs' results in one query (read as numbers)
 *   sqlite_row_cost HISTORY insert ROWS FK  1,000 result rows of a new run, ROWS a statement,
 *                                           foreign keys checked (FK 1) or not
 *
 * bench/perf/bench_sqlite_row_cost.sh runs each under callgrind and prints
 * the differences. The history is changed by insert: give it a copy.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SERIES 1000

static const char window_sql[] =
	"SELECT res.value, NULL, res.compare_op, res.run_order FROM ksftm_results res"
	" WHERE res.series_id = ?1 AND res.comparable = ?2 AND res.usable = 1"
	" AND (CAST(?3 AS TEXT) IS NULL OR res.run_order < ?3)"
	" AND (CAST(?4 AS TEXT) IS NULL OR res.run_order <= ?4)"
	" AND res.run_order >= COALESCE(CAST(?5 AS TEXT), '')"
	" ORDER BY res.run_order DESC LIMIT 30";
static const char slab_sql[] =
	"SELECT series_id, value, compare_op, run_order, usable FROM ksftm_results"
	" WHERE run_id > 0";

/* Every cell of the current row, read as its type asks. */
static void read_row(sqlite3_stmt *st)
{
	int c;

	for (c = 0; c < sqlite3_column_count(st); c++)
		switch (sqlite3_column_type(st, c)) {
		case SQLITE_INTEGER:
			sqlite3_column_int64(st, c);
			break;
		case SQLITE_FLOAT:
			sqlite3_column_double(st, c);
			break;
		case SQLITE_TEXT:
			sqlite3_column_text(st, c);
			sqlite3_column_bytes(st, c);
			break;
		}
}

static long run_window(sqlite3 *db, sqlite3_stmt *st, const char *cmp, int skip)
{
	long rows = 0, id;

	for (id = 1; !skip && id <= SERIES; id++) {
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_text(st, 2, cmp, -1, SQLITE_STATIC);
		sqlite3_bind_null(st, 3);
		sqlite3_bind_null(st, 4);
		sqlite3_bind_null(st, 5);
		while (sqlite3_step(st) == SQLITE_ROW) {
			read_row(st);
			rows++;
		}
		sqlite3_reset(st);
	}
	(void)db;
	return rows;
}

static long run_slab(sqlite3_stmt *st, int skip)
{
	long rows = 0;

	while (!skip && sqlite3_step(st) == SQLITE_ROW) {
		read_row(st);
		rows++;
	}
	sqlite3_reset(st);
	return rows;
}

static int insert(sqlite3 *db, int per, int skip, const char *cmp)
{
	char *sql = malloc(256 + (size_t)per * 14 * 8);
	sqlite3_stmt *st;
	int len, r, c;
	long id;

	len = sprintf(sql, "INSERT INTO ksftm_results (run_id, series_id, comparable, run_order,"
		      " usable, status, shape, policy, compare_op, better, value, samples,"
		      " summary, verdict) VALUES ");
	for (r = 0; r < per; r++) {
		len += sprintf(sql + len, "%s(", r ? "," : "");
		for (c = 0; c < 14; c++)
			len += sprintf(sql + len, "%s?%d", c ? "," : "", r * 14 + c + 1);
		len += sprintf(sql + len, ")");
	}
	if (sqlite3_exec(db, "INSERT INTO ksftm_runs (id, run_key, run_order, context, comparable,"
			 " ingested) VALUES (1000000, 'sqlite_row_cost', '9999', '{}', 'x', 'now')",
			 NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "%s\n", sqlite3_errmsg(db));
		return 1;
	}
	for (id = 1; !skip && id + per - 1 <= SERIES; id += per) {
		for (r = 0; r < per; r++) {
			int b = r * 14;

			sqlite3_bind_int64(st, b + 1, 1000000);
			sqlite3_bind_int64(st, b + 2, id + r);
			sqlite3_bind_text(st, b + 3, cmp, -1, SQLITE_STATIC);
			sqlite3_bind_text(st, b + 4, "9999", -1, SQLITE_STATIC);
			sqlite3_bind_int64(st, b + 5, 1);
			sqlite3_bind_text(st, b + 6, "pass", -1, SQLITE_STATIC);
			sqlite3_bind_text(st, b + 7, "scalar", -1, SQLITE_STATIC);
			sqlite3_bind_text(st, b + 8, "{\"regression\":{\"better\":\"higher\",\"compare\":"
					  "\"p50\",\"relative_tolerance\":0.05},\"summarize\":"
					  "\"distribution\"}", -1, SQLITE_STATIC);
			sqlite3_bind_text(st, b + 9, "p50", -1, SQLITE_STATIC);
			sqlite3_bind_text(st, b + 10, "higher", -1, SQLITE_STATIC);
			sqlite3_bind_double(st, b + 11, 7.9927 + (double)id);
			sqlite3_bind_text(st, b + 12, "[7.6072,8.474,7.9927]", -1, SQLITE_STATIC);
			sqlite3_bind_text(st, b + 13, "{\"last\":7.9927,\"max\":8.474,\"p50\":7.9927,"
					  "\"p90\":8.377740000000001,\"p99\":8.464374,\"total\":"
					  "24.0739}", -1, SQLITE_STATIC);
			sqlite3_bind_text(st, b + 14, "no change", -1, SQLITE_STATIC);
		}
		if (sqlite3_step(st) != SQLITE_DONE) {
			fprintf(stderr, "%s\n", sqlite3_errmsg(db));
			return 1;
		}
		sqlite3_reset(st);
	}
	printf("rows %ld\n", skip ? 0L : (long)(SERIES / per * per));
	sqlite3_finalize(st);
	free(sql);
	return 0;
}

int main(int argc, char **argv)
{
	int skip = getenv("SKIP") != NULL, ret = 0;
	char cmp[256] = "";
	sqlite3_stmt *st;
	sqlite3 *db;

	if (argc < 3) {
		fprintf(stderr, "usage: sqlite_row_cost HISTORY window|slab|insert [ROWS FK]\n");
		return 2;
	}
	if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL)) {
		fprintf(stderr, "%s: cannot open\n", argv[1]);
		return 1;
	}
	sqlite3_exec(db, !strcmp(argv[2], "insert") && argc > 4 && atoi(argv[4]) ?
		     "PRAGMA foreign_keys=ON" : "PRAGMA foreign_keys=OFF", NULL, NULL, NULL);
	/* As ingest does: everything inside one write transaction. */
	sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (sqlite3_prepare_v2(db, "SELECT comparable FROM ksftm_runs ORDER BY id LIMIT 1", -1,
			       &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		snprintf(cmp, sizeof(cmp), "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	if (!strcmp(argv[2], "insert")) {
		ret = insert(db, argc > 3 ? atoi(argv[3]) : 1, skip, cmp);
	} else if (sqlite3_prepare_v2(db, !strcmp(argv[2], "window") ? window_sql : slab_sql,
				      -1, &st, NULL) == SQLITE_OK) {
		printf("rows %ld\n", !strcmp(argv[2], "window") ? run_window(db, st, cmp, skip) :
		       run_slab(st, skip));
		sqlite3_finalize(st);
	} else {
		fprintf(stderr, "%s\n", sqlite3_errmsg(db));
		ret = 1;
	}
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	sqlite3_close(db);
	return ret;
}
