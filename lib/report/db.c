/* The history's SQL backends behind db.h: SQLite and PostgreSQL (libpq). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "errmsg.h"

#ifdef KSFTM_HAVE_SQLITE
#include <sqlite3.h>
#endif
#ifdef KSFTM_HAVE_LIBPQ
#include <libpq-fe.h>
#endif

struct db {
	enum db_dialect dialect;
	int in_tx;
#ifdef KSFTM_HAVE_SQLITE
	sqlite3 *lite;
#endif
#ifdef KSFTM_HAVE_LIBPQ
	PGconn *pg;
#endif
};

struct db_rows {
	size_t n;
	int cols;
	char **cells;	/* n * cols, row-major; NULL = SQL NULL */
};

/* How long a SQLite writer waits for another one (8 concurrent ingests of
 * a large run must queue, not fail). */
#define SQLITE_BUSY_MS 120000

enum db_dialect db_dialect(const struct db *db)
{
	return db->dialect;
}

static int is_pg_url(const char *url)
{
	return !strncmp(url, "postgresql://", 13) || !strncmp(url, "postgres://", 11);
}

int db_open(const char *url, struct db **out)
{
	struct db *db;

	*out = NULL;
	if (!url || !*url)
		return ksftm_fail(EINVAL, "history database: no path or URL given");
	db = calloc(1, sizeof(*db));
	if (!db)
		return ksftm_fail(ENOMEM, "out of memory");
	if (is_pg_url(url)) {
#ifdef KSFTM_HAVE_LIBPQ
		db->dialect = DB_POSTGRESQL;
		db->pg = PQconnectdb(url);
		if (!db->pg || PQstatus(db->pg) != CONNECTION_OK) {
			int ret = ksftm_fail(EIO, "history database %s: cannot connect: %s", url,
					     db->pg ? PQerrorMessage(db->pg) : "out of memory");

			db_close(db);
			return ret;
		}
		/* Notices (e.g. "relation already exists, skipping") are not ours
		 * to print: library code never prints. */
		PQsetNoticeProcessor(db->pg, NULL, NULL);
		*out = db;
		return 0;
#else
		free(db);
		return ksftm_fail(ENOTSUP, "history database %s: built without PostgreSQL (libpq)", url);
#endif
	}
#ifdef KSFTM_HAVE_SQLITE
	db->dialect = DB_SQLITE;
	if (sqlite3_open_v2(url, &db->lite, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			    SQLITE_OPEN_FULLMUTEX, NULL) != SQLITE_OK) {
		int ret = ksftm_fail(EIO, "history database %s: %s", url,
				     db->lite ? sqlite3_errmsg(db->lite) : "out of memory");

		db_close(db);
		return ret;
	}
	sqlite3_busy_timeout(db->lite, SQLITE_BUSY_MS);
	/* WAL: readers never block the writer; NORMAL sync is durable across
	 * process crashes (what concurrent CI ingests need). */
	if (db_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
			"PRAGMA foreign_keys=ON")) {
		int ret = ksftm_fail(EIO, "history database %s: %s", url, sqlite3_errmsg(db->lite));

		db_close(db);
		return ret;
	}
	*out = db;
	return 0;
#else
	free(db);
	return ksftm_fail(ENOTSUP, "history database %s: built without SQLite", url);
#endif
}

void db_close(struct db *db)
{
	if (!db)
		return;
#ifdef KSFTM_HAVE_SQLITE
	if (db->lite)
		sqlite3_close(db->lite);
#endif
#ifdef KSFTM_HAVE_LIBPQ
	if (db->pg)
		PQfinish(db->pg);
#endif
	free(db);
}

static void rows_set(struct db_rows *r, size_t row, int col, const char *v, size_t len, int *oom)
{
	char *c = NULL;

	if (v) {
		c = malloc(len + 1);
		if (c) {
			memcpy(c, v, len);
			c[len] = '\0';
		} else {
			*oom = 1;
		}
	}
	r->cells[row * (size_t)r->cols + (size_t)col] = c;
}

#ifdef KSFTM_HAVE_SQLITE
static int lite_fail(struct db *db, const char *sql)
{
	int code = sqlite3_errcode(db->lite);

	return ksftm_fail(code == SQLITE_BUSY || code == SQLITE_LOCKED ? EBUSY :
			  code == SQLITE_CONSTRAINT ? EEXIST : EIO,
			  "history database: %s (in: %.80s)", sqlite3_errmsg(db->lite), sql);
}

static int lite_query(struct db *db, const char *sql, const char *const *params, int n,
		      struct db_rows **rows)
{
	sqlite3_stmt *st = NULL;
	struct db_rows *r = NULL;
	size_t cap = 0;
	int i, rc, oom = 0, ret = 0;
	char name[16];

	if (sqlite3_prepare_v2(db->lite, sql, -1, &st, NULL) != SQLITE_OK)
		return lite_fail(db, sql);
	for (i = 0; i < n; i++) {
		int idx;

		snprintf(name, sizeof(name), "$%d", i + 1);
		idx = sqlite3_bind_parameter_index(st, name);
		if (!idx)
			continue;	/* a parameter the statement does not use */
		rc = params[i] ? sqlite3_bind_text(st, idx, params[i], -1, SQLITE_STATIC) :
				 sqlite3_bind_null(st, idx);
		if (rc != SQLITE_OK) {
			ret = lite_fail(db, sql);
			goto out;
		}
	}
	if (rows) {
		r = calloc(1, sizeof(*r));
		if (!r) {
			ret = ksftm_fail(ENOMEM, "out of memory");
			goto out;
		}
		r->cols = sqlite3_column_count(st);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (!r || !r->cols)
			continue;
		if (r->n == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			char **cells = realloc(r->cells, ncap * (size_t)r->cols * sizeof(char *));

			if (!cells) {
				oom = 1;
				break;
			}
			r->cells = cells;
			cap = ncap;
		}
		for (i = 0; i < r->cols; i++)
			rows_set(r, r->n, i, (const char *)sqlite3_column_text(st, i),
				 (size_t)sqlite3_column_bytes(st, i), &oom);
		r->n++;
	}
	if (oom)
		ret = ksftm_fail(ENOMEM, "out of memory reading the history database");
	else if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		ret = lite_fail(db, sql);
out:
	sqlite3_finalize(st);
	if (ret || !rows)
		db_rows_free(r);
	else
		*rows = r;
	return ret;
}
#endif

#ifdef KSFTM_HAVE_LIBPQ
static int pg_fail(struct db *db, PGresult *res, const char *sql)
{
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	/* 23505 unique_violation, 40001 serialization, 40P01 deadlock. */
	int err = state && !strcmp(state, "23505") ? EEXIST :
		  state && (!strcmp(state, "40001") || !strcmp(state, "40P01")) ? EBUSY : EIO;
	const char *msg = res ? PQresultErrorMessage(res) : PQerrorMessage(db->pg);
	size_t len = strlen(msg);

	while (len && msg[len - 1] == '\n')
		len--;
	return ksftm_fail(err, "history database: %.*s (in: %.80s)", (int)len, msg, sql);
}

static int pg_query(struct db *db, const char *sql, const char *const *params, int n,
		    struct db_rows **rows)
{
	PGresult *res = PQexecParams(db->pg, sql, n, NULL, params, NULL, NULL, 0);
	ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
	struct db_rows *r;
	int i, oom = 0, ret = 0;
	size_t row;

	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
		ret = pg_fail(db, res, sql);
		PQclear(res);
		return ret;
	}
	if (!rows) {
		PQclear(res);
		return 0;
	}
	r = calloc(1, sizeof(*r));
	if (r) {
		r->n = (size_t)PQntuples(res);
		r->cols = PQnfields(res);
		r->cells = r->n && r->cols ? calloc(r->n * (size_t)r->cols, sizeof(char *)) : NULL;
		if (r->n && r->cols && !r->cells)
			oom = 1;
	}
	for (row = 0; r && !oom && row < r->n; row++)
		for (i = 0; i < r->cols; i++)
			rows_set(r, row, i, PQgetisnull(res, (int)row, i) ? NULL :
				 PQgetvalue(res, (int)row, i),
				 (size_t)PQgetlength(res, (int)row, i), &oom);
	PQclear(res);
	if (!r || oom) {
		db_rows_free(r);
		return ksftm_fail(ENOMEM, "out of memory reading the history database");
	}
	*rows = r;
	return 0;
}
#endif

int db_query(struct db *db, const char *sql, const char *const *params, int n,
	     struct db_rows **rows)
{
	if (rows)
		*rows = NULL;
#ifdef KSFTM_HAVE_SQLITE
	if (db->dialect == DB_SQLITE)
		return lite_query(db, sql, params, n, rows);
#endif
#ifdef KSFTM_HAVE_LIBPQ
	if (db->dialect == DB_POSTGRESQL)
		return pg_query(db, sql, params, n, rows);
#endif
	(void)sql;
	(void)params;
	(void)n;
	return ksftm_fail(ENOTSUP, "history database: no backend");
}

int db_exec(struct db *db, const char *sql)
{
#ifdef KSFTM_HAVE_SQLITE
	if (db->dialect == DB_SQLITE) {
		char *err = NULL;

		if (sqlite3_exec(db->lite, sql, NULL, NULL, &err) != SQLITE_OK) {
			int ret = lite_fail(db, sql);

			sqlite3_free(err);
			return ret;
		}
		return 0;
	}
#endif
#ifdef KSFTM_HAVE_LIBPQ
	if (db->dialect == DB_POSTGRESQL) {
		PGresult *res = PQexec(db->pg, sql);
		int ret = 0;

		if (!res || (PQresultStatus(res) != PGRES_COMMAND_OK &&
			     PQresultStatus(res) != PGRES_TUPLES_OK))
			ret = pg_fail(db, res, sql);
		PQclear(res);
		return ret;
	}
#endif
	(void)sql;
	return ksftm_fail(ENOTSUP, "history database: no backend");
}

int db_begin_write(struct db *db)
{
	int ret = db_exec(db, db->dialect == DB_SQLITE ? "BEGIN IMMEDIATE" : "BEGIN");

	if (!ret)
		db->in_tx = 1;
	return ret;
}

int db_commit(struct db *db)
{
	int ret = db_exec(db, "COMMIT");

	if (!ret)
		db->in_tx = 0;
	return ret;
}

void db_rollback(struct db *db)
{
	if (!db->in_tx)
		return;
	db->in_tx = 0;
	/* Keep the caller's message: the rollback's own failure adds nothing. */
#ifdef KSFTM_HAVE_SQLITE
	if (db->dialect == DB_SQLITE)
		sqlite3_exec(db->lite, "ROLLBACK", NULL, NULL, NULL);
#endif
#ifdef KSFTM_HAVE_LIBPQ
	if (db->dialect == DB_POSTGRESQL)
		PQclear(PQexec(db->pg, "ROLLBACK"));
#endif
}

size_t db_rows_count(const struct db_rows *rows)
{
	return rows ? rows->n : 0;
}

int db_rows_columns(const struct db_rows *rows)
{
	return rows ? rows->cols : 0;
}

const char *db_rows_get(const struct db_rows *rows, size_t row, int col)
{
	if (!rows || row >= rows->n || col < 0 || col >= rows->cols)
		return NULL;
	return rows->cells[row * (size_t)rows->cols + (size_t)col];
}

void db_rows_free(struct db_rows *rows)
{
	size_t i;

	if (!rows)
		return;
	for (i = 0; i < rows->n * (size_t)rows->cols; i++)
		free(rows->cells[i]);
	free(rows->cells);
	free(rows);
}
