/* The history's SQL backends behind db.h: SQLite and PostgreSQL (libpq). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "db.h"
#include "errmsg.h"
#include "float_repr.h"

#ifdef KSFTM_HAVE_SQLITE
#include <sqlite3.h>
#endif
#ifdef KSFTM_HAVE_LIBPQ
#include <libpq-fe.h>
#endif

struct db {
	enum db_dialect dialect;
	int in_tx;
	int read_only;		/* SQLite: the file cannot be written */
	char name[DB_NAME_MAX];	/* the URL or path as messages show it */
#ifdef KSFTM_HAVE_SQLITE
	sqlite3 *lite;
	struct lite_stmt *stmts;	/* prepared once per handle (lite_prepared()) */
	size_t n_stmts, next_evict;
#endif
#ifdef KSFTM_HAVE_LIBPQ
	PGconn *pg;
#endif
};

#ifdef KSFTM_HAVE_SQLITE
/* A statement kept prepared for its SQL text: the gate and ingest run the
 * same few statements once per series. */
struct lite_stmt {
	unsigned long hash;
	char *sql;
	sqlite3_stmt *st;
};

/* More than the distinct statements one command runs (about 30). */
#define LITE_STMT_CACHE 64
#endif

struct db_rows {
	size_t n;
	int cols;
	char **cells;	/* n * cols, row-major; NULL = SQL NULL */
};

/* The advisory lock key a PostgreSQL history's writers queue on
 * ("ksft" in ASCII). */
#define DB_PG_WRITE_LOCK "1802724980"

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

const char *db_name(const struct db *db)
{
	return db->name;
}

int db_read_only(const struct db *db)
{
	return db->read_only;
}

/* Append @n bytes of @s to @out (room @size, @len used; always NUL-ended). */
static void put(char *out, size_t size, size_t *len, const char *s, size_t n)
{
	if (*len + 1 >= size)
		return;
	if (n > size - 1 - *len)
		n = size - 1 - *len;
	memcpy(out + *len, s, n);
	*len += n;
	out[*len] = '\0';
}

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Does key @k (@n bytes, percent-decoded as libpq does) name a secret:
 * password, sslpassword... */
static int secret_key(const char *k, size_t n)
{
	char dec[64];
	size_t i, m = 0;

	for (i = 0; i < n && m < sizeof(dec) - 1; i++) {
		if (k[i] == '%' && i + 2 < n && hexval(k[i + 1]) >= 0 && hexval(k[i + 2]) >= 0) {
			dec[m++] = (char)(hexval(k[i + 1]) * 16 + hexval(k[i + 2]));
			i += 2;
		} else {
			dec[m++] = k[i];
		}
	}
	dec[m] = '\0';
	while (m && (dec[m - 1] == ' ' || dec[m - 1] == '\t'))
		dec[--m] = '\0';
	return m >= 8 && !strcasecmp(dec + m - 8, "password");
}

/*
 * Mask every KEY=VALUE whose key names a password, the items separated by
 * @seps (a URL's query: "&"; a conninfo string: white space, with '...'
 * quoted values).
 */
static void mask_params(const char *s, const char *seps, char *out, size_t size, size_t *len)
{
	while (*s) {
		size_t item = strcspn(s, seps);
		const char *eq = memchr(s, '=', item);

		if (eq && secret_key(s, (size_t)(eq - s))) {
			const char *v = eq + 1;

			put(out, size, len, s, (size_t)(v - s));
			put(out, size, len, "***", 3);
			if (*v == '\'' && strchr(seps, ' ')) {	/* a quoted conninfo value */
				for (v++; *v && *v != '\''; v++)
					if (*v == '\\' && v[1])
						v++;
				item = (size_t)(v - s) + (*v ? 1 : 0);
			}
		} else {
			put(out, size, len, s, item);
		}
		s += item;
		if (*s) {
			put(out, size, len, s, 1);
			s++;
		}
	}
}

/*
 * @url as a message may show it: a postgresql:// URL without its user
 * information (user:password@) and with every password=... parameter
 * masked, a conninfo-like "... password=..." masked; a file path as it is.
 */
const char *db_redact(const char *url, char *out, size_t size)
{
	size_t len = 0;

	if (!size)
		return "";
	out[0] = '\0';
	if (!url)
		return out;
	if (is_pg_url(url)) {
		const char *auth = strstr(url, "://") + 3, *q;
		size_t upto = strcspn(auth, "/");	/* libpq: user info ends at '@' before '/' */
		const char *at = memchr(auth, '@', upto);

		/* The last '@' of the authority: a password may hold '@'. */
		while (at && memchr(at + 1, '@', upto - (size_t)(at + 1 - auth)))
			at = memchr(at + 1, '@', upto - (size_t)(at + 1 - auth));
		put(out, size, &len, url, (size_t)(auth - url));
		if (at) {
			put(out, size, &len, "***@", 4);
			auth = at + 1;
		}
		q = strchr(auth, '?');
		put(out, size, &len, auth, q ? (size_t)(q - auth + 1) : strlen(auth));
		if (q)
			mask_params(q + 1, "&", out, size, &len);
	} else if (strcasestr(url, "password")) {
		mask_params(url, " \t\n", out, size, &len);
	} else {
		put(out, size, &len, url, strlen(url));
	}
	if (len + 1 >= size && size > 4)
		memcpy(out + size - 4, "...", 4);
	return out;
}

/* Mask each occurrence of the @n-byte @secret in @text ("***", never
 * longer than the secret: the text only shrinks). */
static void scrub_one(char *text, const char *secret, size_t n)
{
	size_t m = n < 3 ? n : 3;
	char *p = text;

	if (!n)
		return;
	while ((p = memmem(p, strlen(p), secret, n))) {
		memset(p, '*', m);
		memmove(p + m, p + n, strlen(p + n) + 1);
		p += m;
	}
}

const char *db_scrub(const char *url, const char *text, char *out, size_t size)
{
	const char *auth, *s;
	size_t len = 0;

	if (!size)
		return "";
	out[0] = '\0';
	put(out, size, &len, text ? text : "", text ? strlen(text) : 0);
	while (len && out[len - 1] == '\n')
		out[--len] = '\0';
	if (!url)
		return out;
	/* The user information whole, then every KEY=VALUE's value of a
	 * password key, raw (libpq's messages quote raw tokens). */
	if (is_pg_url(url)) {
		size_t upto;
		const char *at;

		auth = strstr(url, "://") + 3;
		upto = strcspn(auth, "/");
		at = memchr(auth, '@', upto);
		while (at && memchr(at + 1, '@', upto - (size_t)(at + 1 - auth)))
			at = memchr(at + 1, '@', upto - (size_t)(at + 1 - auth));
		if (at) {
			const char *colon = memchr(auth, ':', (size_t)(at - auth));

			scrub_one(out, auth, (size_t)(at - auth));
			if (colon)
				scrub_one(out, colon + 1, (size_t)(at - colon - 1));
		}
	}
	for (s = url; (s = strchr(s, '=')); s++) {
		const char *k = s, *v = s + 1;

		while (k > url && !strchr("&? \t\n", k[-1]))
			k--;
		if (secret_key(k, (size_t)(s - k)))
			scrub_one(out, v, strcspn(v, "& \t\n"));
	}
	return out;
}

#ifdef KSFTM_HAVE_LIBPQ
/* libpq prints notices (e.g. "relation already exists, skipping") to
 * stderr unless a processor takes them; a NULL one is ignored. Library
 * code never prints. */
static void pg_notice_ignore(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}
#endif

#ifdef KSFTM_HAVE_SQLITE
/* Finalize every cached statement (before the connection closes). */
static void lite_forget(struct db *db)
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

static int lite_open_immutable(struct db *db, const char *path)
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
				    SQLITE_OPEN_FULLMUTEX, NULL);
	free(uri);
	return (int)k;
}
#endif

int db_open(const char *url, struct db **out)
{
	struct db *db;

	*out = NULL;
	if (!url || !*url)
		return ksftm_fail(EINVAL, "history database: no path or URL given");
	db = calloc(1, sizeof(*db));
	if (!db)
		return ksftm_fail(ENOMEM, "out of memory");
	db_redact(url, db->name, sizeof(db->name));
	if (is_pg_url(url)) {
#ifdef KSFTM_HAVE_LIBPQ
		db->dialect = DB_POSTGRESQL;
		db->pg = PQconnectdb(url);
		if (!db->pg || PQstatus(db->pg) != CONNECTION_OK) {
			/* libpq's message may quote a bad URL's token: show no secret. */
			char why[DB_NAME_MAX];
			int ret = ksftm_fail(EIO, "history database %s: cannot connect: %s", db->name,
					     db->pg ? db_scrub(url, PQerrorMessage(db->pg), why,
							       sizeof(why)) : "out of memory");

			db_close(db);
			return ret;
		}
		PQsetNoticeProcessor(db->pg, pg_notice_ignore, NULL);
		*out = db;
		return 0;
#else
		int ret = ksftm_fail(ENOTSUP, "history database %s: built without PostgreSQL (libpq)",
				     db->name);

		free(db);
		return ret;
#endif
	}
#ifdef KSFTM_HAVE_SQLITE
	db->dialect = DB_SQLITE;
	if (sqlite3_open_v2(url, &db->lite, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			    SQLITE_OPEN_FULLMUTEX, NULL) != SQLITE_OK) {
		int ret = ksftm_fail(EIO, "history database %s: %s", db->name,
				     db->lite ? sqlite3_errmsg(db->lite) : "out of memory");

		db_close(db);
		return ret;
	}
	sqlite3_busy_timeout(db->lite, SQLITE_BUSY_MS);
	/* A file we may not write (0444, another user's) opens read-only:
	 * nothing to set up, only to read. */
	db->read_only = sqlite3_db_readonly(db->lite, "main") == 1;
	if (db->read_only) {
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
					     " 'PRAGMA wal_checkpoint(TRUNCATE)')", db->name,
					     db->name, db->name);

			db_close(db);
			return ret;
		}
		if (!readable &&
		    (lite_open_immutable(db, url) != SQLITE_OK ||
		     sqlite3_exec(db->lite, "SELECT count(*) FROM sqlite_master", NULL, NULL,
				  NULL) != SQLITE_OK)) {
			int ret = ksftm_fail(EIO, "history database %s: cannot read it: %s", db->name,
					     db->lite ? sqlite3_errmsg(db->lite) : "out of memory");

			db_close(db);
			return ret;
		}
		*out = db;
		return 0;
	}
	/* WAL: readers never block the writer; NORMAL sync is durable across
	 * process crashes (what concurrent CI ingests need). */
	int set = db_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
			  "PRAGMA foreign_keys=ON");

	if (set) {
		/* -EBUSY stays -EBUSY: history_open_version() tries again. */
		int ret = ksftm_fail(set == -EBUSY ? EBUSY : EIO, "history database %s: %s",
				     db->name, sqlite3_errmsg(db->lite));

		db_close(db);
		return ret;
	}
	*out = db;
	return 0;
#else
	int ret = ksftm_fail(ENOTSUP, "history database %s: built without SQLite", db->name);

	free(db);
	return ret;
#endif
}

void db_close(struct db *db)
{
	if (!db)
		return;
#ifdef KSFTM_HAVE_SQLITE
	lite_forget(db);
	free(db->stmts);
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

static unsigned long sql_hash(const char *s)
{
	unsigned long h = 5381;

	while (*s)
		h = h * 33 ^ (unsigned char)*s++;
	return h;
}

/*
 * @sql prepared once per handle: the cached statement, or a new one kept
 * in the cache (the oldest one finalized when it is full), in @out.
 * @return 0 or a negative errno with its message.
 */
static int lite_fail(struct db *db, const char *sql);

static int lite_prepared(struct db *db, const char *sql, struct lite_stmt **out)
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
		return ksftm_fail(ENOMEM, "out of memory");
	/* "$N" as SQLite's "?N", whose bind index is N: a named parameter's
	 * index is looked up by a scan of the statement's names, which a
	 * multi-row insert's thousands of parameters make quadratic. */
	if (!(text = strdup(sql)))
		return ksftm_fail(ENOMEM, "out of memory");
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
		return ksftm_fail(ENOMEM, "out of memory");
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

static int lite_query(struct db *db, const char *sql, const char *const *params, int n,
		      struct db_rows **rows)
{
	struct lite_stmt *cached = NULL;
	sqlite3_stmt *st = NULL;
	struct db_rows *r = NULL;
	size_t cap = 0;
	int i, rc, oom = 0, ret = 0;

	if ((ret = lite_prepared(db, sql, &cached)))
		return ret;
	st = cached->st;
	/* "$N" is "?N" (lite_prepared()), bind index N; parameters past the
	 * statement's last are not used by it. */
	if (n > sqlite3_bind_parameter_count(st))
		n = sqlite3_bind_parameter_count(st);
	for (i = 0; i < n; i++) {
		rc = params[i] ? sqlite3_bind_text(st, i + 1, params[i], -1, SQLITE_STATIC) :
				 sqlite3_bind_null(st, i + 1);
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
		for (i = 0; i < r->cols; i++) {
			/* A REAL as its shortest round-trip text, as PostgreSQL
			 * sends it: SQLite's own text is 15 digits (not the stored
			 * double) and its printf was a fifth of a compare --db. */
			if (sqlite3_column_type(st, i) == SQLITE_FLOAT) {
				char num[FLOAT_REPR_MAX];

				rows_set(r, r->n, i, num,
					 float_repr(sqlite3_column_double(st, i), num), &oom);
				continue;
			}
			rows_set(r, r->n, i, (const char *)sqlite3_column_text(st, i),
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
	sqlite3_clear_bindings(st);
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

int db_writable(const struct db *db)
{
	return db->read_only ? ksftm_fail(EROFS, "history database %s is read-only here: only"
					  " reading it works", db->name) : 0;
}

int db_begin_write(struct db *db)
{
	int ret = db_writable(db);

	if (ret)
		return ret;
	ret = db_exec(db, db->dialect == DB_SQLITE ? "BEGIN IMMEDIATE" : "BEGIN");
	if (!ret)
		db->in_tx = 1;
	/* PostgreSQL's READ COMMITTED lets two ingests each read a window
	 * without the other's run: writers of one history (one database) queue
	 * on a transaction-level advisory lock, as SQLite's BEGIN IMMEDIATE
	 * makes them; readers take no lock. Released at COMMIT/ROLLBACK. */
	if (!ret && db->dialect == DB_POSTGRESQL &&
	    (ret = db_exec(db, "SELECT pg_advisory_xact_lock(" DB_PG_WRITE_LOCK ")")))
		db_rollback(db);
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

int db_rows_check(const struct db *db, const struct db_rows *rows, const char *spec,
		  int key_col, const char *where)
{
	size_t r, n = db_rows_count(rows);
	int c;

	for (r = 0; r < n; r++)
		for (c = 0; c < rows->cols; c++) {
			const char *col = spec, *key = spec;
			size_t len, klen;
			int k;

			for (k = 0; k < c && *col; k++) {
				col += strcspn(col, " ");
				col += strspn(col, " ");
			}
			len = strcspn(col, " ");
			if (!len || *col == '?' || rows->cells[r * (size_t)rows->cols + (size_t)c])
				continue;
			for (k = 0; k < key_col && *key; k++) {
				key += strcspn(key, " ");
				key += strspn(key, " ");
			}
			klen = strcspn(key, " ");
			if (*key == '?')
				key++, klen--;
			if (key_col >= 0 && key_col != c && db_rows_get(rows, r, key_col))
				return ksftm_fail(EBADMSG, "history database %s: %.*s is NULL in the"
						  " row with %.*s = %.80s", db->name, (int)len, col,
						  (int)klen, key, db_rows_get(rows, r, key_col));
			return ksftm_fail(EBADMSG, "history database %s: %.*s is NULL in a row%s%s",
					  db->name, (int)len, col, where ? " with " : "",
					  where ? where : "");
		}
	return 0;
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
