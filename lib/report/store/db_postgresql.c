/* The history's PostgreSQL backend behind db.h (db_backend.h's table):
 * libpq, a history many CI runners share. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "db_backend.h"
#include "errmsg.h"

/* The advisory lock key a PostgreSQL history's writers queue on
 * ("ksft" in ASCII). */
#define DB_PG_WRITE_LOCK "1802724980"

/* A PostgreSQL handle: struct db first (db_backend.h). */
struct pg {
	struct db db;
	PGconn *pg;
};

static struct pg *pg_of(struct db *db)
{
	return (struct pg *)db;
}

/* libpq prints notices (e.g. "relation already exists, skipping") to
 * stderr unless a processor takes them; a NULL one is ignored. Library
 * code never prints. */
static void pg_notice_ignore(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

/* Connect to the libpq connection URI @url. */
static int pg_open(struct db *base, const char *url)
{
	struct pg *db = pg_of(base);

	db->pg = PQconnectdb(url);
	if (!db->pg || PQstatus(db->pg) != CONNECTION_OK) {
		/* libpq's message may quote a bad URL's token: show no secret. */
		char why[DB_NAME_MAX];

		return ksftm_fail(EIO, "history database %s: cannot connect: %s", db->db.name,
				  db->pg ? db_redact_scrub(url, PQerrorMessage(db->pg), why,
							   sizeof(why)) : "out of memory");
	}
	PQsetNoticeProcessor(db->pg, pg_notice_ignore, NULL);
	return 0;
}

static void pg_close(struct db *db)
{
	if (pg_of(db)->pg)
		PQfinish(pg_of(db)->pg);
}

static int pg_fail(struct pg *db, PGresult *res, const char *sql)
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

static int pg_query(struct db *base, const char *sql, const char *const *params, int n,
		    struct db_rows **rows)
{
	struct pg *db = pg_of(base);
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
			db_rows_set(r, row, i, PQgetisnull(res, (int)row, i) ? NULL :
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

static int pg_exec(struct db *base, const char *sql)
{
	struct pg *db = pg_of(base);
	PGresult *res = PQexec(db->pg, sql);
	int ret = 0;

	if (!res || (PQresultStatus(res) != PGRES_COMMAND_OK &&
		     PQresultStatus(res) != PGRES_TUPLES_OK))
		ret = pg_fail(db, res, sql);
	PQclear(res);
	return ret;
}

static void pg_rollback(struct db *db)
{
	PQclear(PQexec(pg_of(db)->pg, "ROLLBACK"));
}

/*
 * PostgreSQL's READ COMMITTED lets two ingests each read a window without
 * the other's run: writers of one history (one database) queue on a
 * transaction-level advisory lock, as SQLite's BEGIN IMMEDIATE makes them;
 * readers take no lock. Released at COMMIT/ROLLBACK.
 */
const struct db_ops db_postgresql_ops = {
	.dialect = DB_POSTGRESQL,
	.size = sizeof(struct pg),
	.open = pg_open,
	.close = pg_close,
	.query = pg_query,
	.exec = pg_exec,
	.rollback = pg_rollback,
	.begin = "BEGIN",
	.after_begin = "SELECT pg_advisory_xact_lock(" DB_PG_WRITE_LOCK ")",
};
