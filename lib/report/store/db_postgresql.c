/* The history's PostgreSQL backend behind db.h (db_backend.h's table):
 * libpq, a history many CI runners share. libpq is loaded (dlopen) when a
 * postgresql:// history is first opened, not linked: with its TLS,
 * Kerberos and LDAP libraries it was 25 of the tool's 29 shared objects,
 * and their loading 8 % of an ingest into SQLite (issue 45). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "db_backend.h"
#include "errmsg.h"
#include "float_repr.h"

/* The libpq calls this backend makes, found in libpq.so.5 at first use. */
#define PQ_CALLS(X) X(PQclear) X(PQconnectdb) X(PQerrorMessage) X(PQexec) X(PQexecParams) X(PQfinish) X(PQgetisnull) X(PQgetlength) X(PQgetvalue) X(PQnfields) X(PQntuples) X(PQresultErrorField) X(PQresultErrorMessage) X(PQresultStatus) X(PQsetNoticeProcessor) X(PQstatus)

static struct {
#define PQ_MEMBER(name) __typeof__(name) *name;
	PQ_CALLS(PQ_MEMBER)
#undef PQ_MEMBER
} pq;
static char pq_missing[256];	/* why libpq could not be loaded, else "" */
static pthread_once_t pq_once = PTHREAD_ONCE_INIT;

static void pq_load(void)
{
	void *h = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
	const char *why;

	if (!h) {
		why = dlerror();
		snprintf(pq_missing, sizeof(pq_missing), "%s", why ? why : "libpq.so.5 not found");
		return;
	}
#define PQ_FIND(name)								\
	if (!pq_missing[0] && !(*(void **)&pq.name = dlsym(h, #name)))		\
		snprintf(pq_missing, sizeof(pq_missing), "libpq.so.5 has no %s", #name);
	PQ_CALLS(PQ_FIND)
#undef PQ_FIND
	/* The handle stays open: the process may connect again. */
}

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

	pthread_once(&pq_once, pq_load);
	if (pq_missing[0])
		return ksftm_fail(ENOTSUP, "history database %s: PostgreSQL needs libpq: %s",
				  db->db.name, pq_missing);
	db->pg = pq.PQconnectdb(url);
	if (!db->pg || pq.PQstatus(db->pg) != CONNECTION_OK) {
		/* libpq's message may quote a bad URL's token: show no secret. */
		char why[DB_NAME_MAX];

		return ksftm_fail(EIO, "history database %s: cannot connect: %s", db->db.name,
				  db->pg ? db_redact_scrub(url, pq.PQerrorMessage(db->pg), why,
							   sizeof(why)) : "out of memory");
	}
	pq.PQsetNoticeProcessor(db->pg, pg_notice_ignore, NULL);
	return 0;
}

static void pg_close(struct db *db)
{
	if (pg_of(db)->pg)
		pq.PQfinish(pg_of(db)->pg);
}

static int pg_fail(struct pg *db, PGresult *res, const char *sql)
{
	const char *state = res ? pq.PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	/* 23505 unique_violation, 40001 serialization, 40P01 deadlock. */
	int err = state && !strcmp(state, "23505") ? EEXIST :
		  state && (!strcmp(state, "40001") || !strcmp(state, "40P01")) ? EBUSY : EIO;
	const char *msg = res ? pq.PQresultErrorMessage(res) : pq.PQerrorMessage(db->pg);
	size_t len = strlen(msg);

	while (len && msg[len - 1] == '\n')
		len--;
	return ksftm_fail(err, "history database: %.*s (in: %.80s)", (int)len, msg, sql);
}

/*
 * @v[0..n) as libpq's text parameters in @text (a number's text in @num,
 * DB_NUMBER_TEXT_MAX bytes each). @return 0 or -ENOMEM.
 */
static int pg_params(const struct db_value *v, int n, const char ***text, char **num)
{
	int i;

	*text = calloc(n ? (size_t)n : 1, sizeof(**text));
	*num = malloc(n ? (size_t)n * DB_NUMBER_TEXT_MAX : 1);
	if (!*text || !*num)
		return ksftm_oom();
	for (i = 0; i < n; i++) {
		char *at = *num + (size_t)i * DB_NUMBER_TEXT_MAX;

		if (v[i].type == DB_TEXT) {
			(*text)[i] = v[i].v.text;
		} else if (v[i].type == DB_INTEGER) {
			int64_repr(v[i].v.i, at);
			(*text)[i] = at;
		} else if (v[i].type == DB_REAL) {
			/* Round-trip text: PostgreSQL reads back the same double. */
			if (isfinite(v[i].v.d))
				float_repr(v[i].v.d, at);
			else
				strcpy(at, isnan(v[i].v.d) ? "NaN" : v[i].v.d > 0 ? "Infinity" :
				       "-Infinity");
			(*text)[i] = at;
		}
	}
	return 0;
}

static int pg_query(struct db *base, const char *sql, const struct db_value *params, int n,
		    struct db_rows **rows)
{
	struct pg *db = pg_of(base);
	const char **text = NULL;
	char *num = NULL;
	PGresult *res;
	ExecStatusType st;
	struct db_rows *r;
	int i, oom = 0, ret = 0;
	size_t row;

	if ((ret = pg_params(params, n, &text, &num))) {
		free(text);
		free(num);
		return ret;
	}
	res = pq.PQexecParams(db->pg, sql, n, NULL, text, NULL, NULL, 0);
	free(text);
	free(num);
	st = res ? pq.PQresultStatus(res) : PGRES_FATAL_ERROR;
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
		ret = pg_fail(db, res, sql);
		pq.PQclear(res);
		return ret;
	}
	if (!rows) {
		pq.PQclear(res);
		return 0;
	}
	r = db_rows_new(pq.PQnfields(res), (size_t)pq.PQntuples(res));
	if (r)
		r->n = (size_t)pq.PQntuples(res);
	for (row = 0; r && !oom && row < r->n; row++)
		for (i = 0; i < r->cols; i++)
			db_rows_set(r, row, i, pq.PQgetisnull(res, (int)row, i) ? NULL :
				    pq.PQgetvalue(res, (int)row, i),
				    (size_t)pq.PQgetlength(res, (int)row, i), &oom);
	pq.PQclear(res);
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
	PGresult *res = pq.PQexec(db->pg, sql);
	int ret = 0;

	if (!res || (pq.PQresultStatus(res) != PGRES_COMMAND_OK &&
		     pq.PQresultStatus(res) != PGRES_TUPLES_OK))
		ret = pg_fail(db, res, sql);
	pq.PQclear(res);
	return ret;
}

static void pg_rollback(struct db *db)
{
	pq.PQclear(pq.PQexec(pg_of(db)->pg, "ROLLBACK"));
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
	.trust = NULL,
	.distrust = NULL,
};
