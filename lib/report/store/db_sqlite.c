/* The history's SQLite backend behind db.h (db_backend.h's table): a file,
 * the embedded default. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "db_backend.h"
#include "errmsg.h"

/* A statement kept prepared for its SQL text: the gate and ingest run the
 * same few statements once per series. */
struct lite_stmt {
	unsigned long hash;
	char *sql;
	sqlite3_stmt *st;
};

/* More than the distinct statements one command runs (about 30). */
#define LITE_STMT_CACHE 64

/* Rows a query's first allocation has room for: a window's (30 runs). */
#define LITE_ROWS_FIRST 32

/* How long a SQLite writer waits for another one (8 concurrent ingests of
 * a large run must queue, not fail). */
#define SQLITE_BUSY_MS 120000

/* A SQLite handle: struct db first (db_backend.h). */
struct lite {
	struct db db;
	sqlite3 *lite;
	struct lite_stmt *stmts;	/* prepared once per handle (lite_prepared()) */
	size_t n_stmts, next_evict;
};

static struct lite *lite_of(struct db *db)
{
	return (struct lite *)db;
}
/* Finalize every cached statement (before the connection closes). */
static void lite_forget(struct lite *db)
{
	size_t i;

	for (i = 0; i < db->n_stmts; i++) {
		sqlite3_finalize(db->stmts[i].st);
		free(db->stmts[i].sql);
	}
	db->n_stmts = 0;
}

/*
 * A WAL history that this process may read but not write: SQLite needs its
 * -shm and -wal files, and cannot create them in a directory it may not
 * write. Without them no writer has the file open (a writer keeps both), so
 * the file is read as immutable (a URI; the path percent-encoded).
 */
/* Has @path a -wal file with content (commits not in the file itself)? */
static int lite_wal_pending(const char *path)
{
	struct stat st;
	char *wal;
	int pending;

	if (asprintf(&wal, "%s-wal", path) < 0)
		return 1;	/* cannot tell: do not read stale */
	pending = !stat(wal, &st) && st.st_size > 0;
	free(wal);
	return pending;
}

static int lite_open_immutable(struct lite *db, const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(path), k, len = 0;
	char *uri = malloc(3 * n + 32);

	if (!uri)
		return SQLITE_NOMEM;
	len = (size_t)sprintf(uri, "file:");
	for (k = 0; k < n; k++) {
		unsigned char c = (unsigned char)path[k];

		if (c == '%' || c == '?' || c == '#' || c < 0x20 || c >= 0x7f) {
			uri[len++] = '%';
			uri[len++] = hex[c >> 4];
			uri[len++] = hex[c & 15];
		} else {
			uri[len++] = (char)c;
		}
	}
	strcpy(uri + len, "?immutable=1");
	lite_forget(db);
	sqlite3_close(db->lite);
	db->lite = NULL;
	k = (size_t)sqlite3_open_v2(uri, &db->lite, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI |
				    SQLITE_OPEN_NOMUTEX, NULL);
	free(uri);
	return (int)k;
}

static int lite_exec(struct db *base, const char *sql);

/* Open the file @url (created if missing); read-only when it cannot be
 * written. */
static int lite_open(struct db *base, const char *url)
{
	struct lite *db = lite_of(base);

	if (sqlite3_open_v2(url, &db->lite, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		int ret = ksftm_fail(EIO, "history database %s: %s", db->db.name,
				     db->lite ? sqlite3_errmsg(db->lite) : "out of memory");

		return ret;
	}
	sqlite3_busy_timeout(db->lite, SQLITE_BUSY_MS);
	/* A file we may not write (0444, another user's) opens read-only:
	 * nothing to set up, only to read. */
	db->db.read_only = sqlite3_db_readonly(db->lite, "main") == 1;
	if (db->db.read_only) {
		int readable = sqlite3_exec(db->lite, "SELECT count(*) FROM sqlite_master", NULL,
					    NULL, NULL) == SQLITE_OK;

		/* Immutable reads ignore the -wal: commits still in it (a copy
		 * taken without -shm) would be silently missing. */
		if (!readable && lite_wal_pending(url)) {
			int ret = ksftm_fail(EIO, "history database %s: its write-ahead log %s-wal"
					     " holds commits a reader sees only through %s-shm,"
					     " which cannot be created here (the directory is not"
					     " writable): read it where it can be created, or"
					     " have a writer checkpoint it first (sqlite3 FILE"
					     " 'PRAGMA wal_checkpoint(TRUNCATE)')", db->db.name,
					     db->db.name, db->db.name);

			return ret;
		}
		if (!readable &&
		    (lite_open_immutable(db, url) != SQLITE_OK ||
		     sqlite3_exec(db->lite, "SELECT count(*) FROM sqlite_master", NULL, NULL,
				  NULL) != SQLITE_OK)) {
			int ret = ksftm_fail(EIO, "history database %s: cannot read it: %s", db->db.name,
					     db->lite ? sqlite3_errmsg(db->lite) : "out of memory");

			return ret;
		}
		return 0;
	}
	/* WAL: readers never block the writer; NORMAL sync is durable across
	 * process crashes (what concurrent CI ingests need). */
	int set = lite_exec(base, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
			  "PRAGMA foreign_keys=ON");

	if (set) {
		/* -EBUSY stays -EBUSY: history_open_version() tries again. */
		int ret = ksftm_fail(set == -EBUSY ? EBUSY : EIO, "history database %s: %s",
				     db->db.name, sqlite3_errmsg(db->lite));

		return ret;
	}
	return 0;
}

static int lite_fail(struct lite *db, const char *sql)
{
	int code = sqlite3_errcode(db->lite);

	return ksftm_fail(code == SQLITE_BUSY || code == SQLITE_LOCKED ? EBUSY :
			  code == SQLITE_CONSTRAINT ? EEXIST : EIO,
			  "history database: %s (in: %.80s)", sqlite3_errmsg(db->lite), sql);
}

/*
 * A statement's cache key: its length and its first and last bytes (the
 * cache compares the whole text after). Hashing every byte of a 300-byte
 * statement was 4 % of an ingest (issue 45): the same statements run once
 * per series, and those that differ do so at their start (the table, the
 * columns) or their end (a LIMIT).
 */
#define SQL_HASH_EDGE 24

static unsigned long sql_hash(const char *s)
{
	size_t len = strlen(s), k;
	unsigned long h = 5381 ^ len;

	for (k = 0; k < len && k < SQL_HASH_EDGE; k++)
		h = h * 33 ^ (unsigned char)s[k];
	for (k = len > SQL_HASH_EDGE ? len - SQL_HASH_EDGE : len; k < len; k++)
		h = h * 33 ^ (unsigned char)s[k];
	return h;
}

/*
 * @sql prepared once per handle: the cached statement, or a new one kept
 * in the cache (the oldest one finalized when it is full), in @out.
 * @return 0 or a negative errno with its message.
 */
static int lite_prepared(struct lite *db, const char *sql, struct lite_stmt **out)
{
	unsigned long h = sql_hash(sql);
	struct lite_stmt *e, fresh = { h, NULL, NULL };
	char *text, *c;
	size_t i;
	int quoted = 0, rc;

	for (i = 0; i < db->n_stmts; i++)
		if (db->stmts[i].hash == h && !strcmp(db->stmts[i].sql, sql)) {
			*out = &db->stmts[i];
			return 0;
		}
	if (!db->stmts && !(db->stmts = calloc(LITE_STMT_CACHE, sizeof(*db->stmts))))
		return ksftm_oom();
	/* "$N" as SQLite's "?N", whose bind index is N: a named parameter's
	 * index is looked up by a scan of the statement's names, which a
	 * multi-row insert's thousands of parameters make quadratic. */
	if (!(text = strdup(sql)))
		return ksftm_oom();
	for (c = text; *c; c++) {
		if (*c == '\'')
			quoted = !quoted;
		else if (!quoted && *c == '$' && c[1] >= '0' && c[1] <= '9')
			*c = '?';
	}
	rc = sqlite3_prepare_v2(db->lite, text, -1, &fresh.st, NULL);
	free(text);
	if (rc != SQLITE_OK)
		return lite_fail(db, sql);
	if (!(fresh.sql = strdup(sql))) {
		sqlite3_finalize(fresh.st);
		return ksftm_oom();
	}
	if (db->n_stmts < LITE_STMT_CACHE) {
		e = &db->stmts[db->n_stmts++];
	} else {
		e = &db->stmts[db->next_evict];
		db->next_evict = (db->next_evict + 1) % LITE_STMT_CACHE;
		sqlite3_finalize(e->st);
		free(e->sql);
	}
	*e = fresh;
	*out = e;
	return 0;
}

static int lite_query(struct db *base, const char *sql, const struct db_value *params, int n,
		      struct db_rows **rows)
{
	struct lite *db = lite_of(base);
	struct lite_stmt *cached = NULL;
	sqlite3_stmt *st = NULL;
	struct db_rows *r = NULL;
	int i, rc, oom = 0, ret = 0;

	if ((ret = lite_prepared(db, sql, &cached)))
		return ret;
	st = cached->st;
	/* "$N" is "?N" (lite_prepared()), bind index N; parameters past the
	 * statement's last are not used by it. */
	if (n > sqlite3_bind_parameter_count(st))
		n = sqlite3_bind_parameter_count(st);
	/* Parameters this call leaves unbound must not keep the last call's
	 * (a call that binds them all needs no clearing). */
	if (n < sqlite3_bind_parameter_count(st))
		sqlite3_clear_bindings(st);
	for (i = 0; i < n; i++) {
		switch (params[i].type) {
		case DB_INTEGER:
			rc = sqlite3_bind_int64(st, i + 1, params[i].v.i);
			break;
		case DB_REAL:
			rc = sqlite3_bind_double(st, i + 1, params[i].v.d);
			break;
		case DB_TEXT:
			rc = sqlite3_bind_text(st, i + 1, params[i].v.text, -1, SQLITE_STATIC);
			break;
		default:
			rc = sqlite3_bind_null(st, i + 1);
		}
		if (rc != SQLITE_OK) {
			ret = lite_fail(db, sql);
			goto out;
		}
	}
	/* Room for a window's rows at once (LITE_ROWS_FIRST). */
	if (rows && !(r = db_rows_new(sqlite3_column_count(st), LITE_ROWS_FIRST))) {
		ret = ksftm_oom();
		goto out;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (!r || !r->cols)
			continue;
		if (r->n == r->cap && db_rows_reserve(r, r->n + 1)) {
			oom = 1;
			break;
		}
		for (i = 0; i < r->cols; i++) {
			int type = sqlite3_column_type(st, i);

			/* Numbers as numbers (db.h): their text only if asked. */
			if (type == SQLITE_INTEGER) {
				db_rows_set_int64(r, r->n, i, sqlite3_column_int64(st, i), &oom);
				continue;
			}
			if (type == SQLITE_FLOAT) {
				db_rows_set_double(r, r->n, i, sqlite3_column_double(st, i), &oom);
				continue;
			}
			if (type == SQLITE_NULL) {	/* (a window's summaries) */
				db_rows_set(r, r->n, i, NULL, 0, &oom);
				continue;
			}
			db_rows_set(r, r->n, i, (const char *)sqlite3_column_text(st, i),
				    (size_t)sqlite3_column_bytes(st, i), &oom);
		}
		r->n++;
	}
	if (oom)
		ret = ksftm_fail(ENOMEM, "out of memory reading the history database");
	else if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		ret = lite_fail(db, sql);
out:
	/* Kept prepared: reset (releasing its read lock) for the next call. */
	sqlite3_reset(st);
	if (ret || !rows)
		db_rows_free(r);
	else
		*rows = r;
	return ret;
}

static int lite_exec(struct db *base, const char *sql)
{
	struct lite *db = lite_of(base);
	char *err = NULL;

	if (sqlite3_exec(db->lite, sql, NULL, NULL, &err) != SQLITE_OK) {
		int ret = lite_fail(db, sql);

		sqlite3_free(err);
		return ret;
	}
	return 0;
}

static void lite_rollback(struct db *db)
{
	sqlite3_exec(lite_of(db)->lite, "ROLLBACK", NULL, NULL, NULL);
}

static void lite_close(struct db *base)
{
	struct lite *db = lite_of(base);

	lite_forget(db);
	free(db->stmts);
	if (db->lite)
		sqlite3_close(db->lite);
}

/* BEGIN IMMEDIATE: the write lock at once, waiting for other writers. */
const struct db_ops db_sqlite_ops = {
	.dialect = DB_SQLITE,
	.size = sizeof(struct lite),
	.open = lite_open,
	.close = lite_close,
	.query = lite_query,
	.exec = lite_exec,
	.rollback = lite_rollback,
	.begin = "BEGIN IMMEDIATE",
	.after_begin = NULL,
	.trust = "PRAGMA foreign_keys=OFF",
	.distrust = "PRAGMA foreign_keys=ON",
};
