/*
 * One small SQL interface over the two history backends: SQLite (a file,
 * the embedded default) and PostgreSQL (libpq, a history many CI runners
 * share). Statements are written once, with $1..$N text parameters, which
 * both accept; the few places where the dialects differ ask db_dialect().
 * Every call returns 0 or a negative errno with ksftm_fail()'s message.
 */
#ifndef KSFTM_DB_H
#define KSFTM_DB_H

#include <stddef.h>

#include <ksftmetric/report.h>

struct db;
struct db_rows;

enum db_dialect { DB_SQLITE, DB_POSTGRESQL };

/*
 * Open @url: "postgresql://..." or "postgres://..." (a libpq connection
 * URI) or a SQLite file path (created if missing). @return 0, -ENOTSUP
 * (backend not built in), -EIO (cannot connect/open), -ENOMEM.
 */
int db_open(const char *url, struct db **out);
void db_close(struct db *db);
enum db_dialect db_dialect(const struct db *db);

/*
 * A SQLite file this process may only read (0444, another user's): opened
 * read-only, and db_begin_write() says so (-EROFS). When its directory does
 * not let SQLite create the WAL's -shm/-wal files (and so no writer has it
 * open), it is read as immutable.
 */
int db_read_only(const struct db *db);
/* 0, or -EROFS saying that @db is read-only here. */
int db_writable(const struct db *db);

/* The URL or path of @db as messages show it (db_redact()). */
#define DB_NAME_MAX KSFT_METRIC_REPORT_HISTORY_NAME_MAX
const char *db_name(const struct db *db);

/*
 * Every message that names a database names it through this: @url in @out
 * (@size bytes, "..." when cut) without credentials: a postgresql:// URL's
 * user information (user:password@) becomes "***@", the value of every
 * parameter whose key ends in "password" (password=, sslpassword=, also
 * percent-encoded, in a URL's query or a conninfo string) "***". A file
 * path is shown as it is. @return @out.
 */
const char *db_redact(const char *url, char *out, size_t size);
/* @text (a driver's message about @url) with each secret of @url masked,
 * trailing newlines dropped, in @out. @return @out. */
const char *db_redact_scrub(const char *url, const char *text, char *out, size_t size);

/* Statements without results (DDL, BEGIN...); several separated by ';'. */
int db_exec(struct db *db, const char *sql);

/*
 * A write transaction. SQLite takes the write lock at once (BEGIN
 * IMMEDIATE, waiting for other writers), PostgreSQL a transaction-level
 * advisory lock all writers of the database share, so concurrent ingests
 * serialise (each judges against a window holding the runs committed
 * before it) instead of failing half-way. Readers use no transaction and
 * wait for no writer.
 */
int db_begin_write(struct db *db);
/*
 * The same for a writer that keeps its references right itself: ingest
 * inserts the results of the run it has just inserted, of series it has
 * just looked up or inserted, under the write lock, so no other writer
 * can remove them in between. SQLite checks no foreign key in it (the
 * checks were a tenth of inserting a result: issue 45); they are on
 * again after db_commit()/db_rollback(). PostgreSQL checks them as ever.
 */
int db_begin_write_trusted(struct db *db);
int db_commit(struct db *db);
/* Roll back; safe to call when no transaction is open. */
void db_rollback(struct db *db);

/* A value's type: a parameter's, a cell's. */
enum db_type { DB_NULL, DB_INTEGER, DB_REAL, DB_TEXT };

/*
 * Run @sql with @n text parameters (NULL = SQL NULL) and collect its rows
 * (@rows may be NULL when none are wanted). They live until db_rows_free().
 */
int db_query(struct db *db, const char *sql, const char *const *params, int n,
	     struct db_rows **rows);

/* A typed parameter: SQLite binds a number as one (no text for it to
 * convert to the column's type), PostgreSQL gets its text (an INTEGER in
 * decimal, a REAL as its shortest round-trip text). */
struct db_value {
	enum db_type type;
	union {
		long long i;
		double d;
		const char *text;
	} v;
};

static inline struct db_value db_text(const char *text)
{
	return (struct db_value){ text ? DB_TEXT : DB_NULL, { .text = text } };
}

static inline struct db_value db_int(long long i)
{
	return (struct db_value){ DB_INTEGER, { .i = i } };
}

static inline struct db_value db_real(double d)
{
	return (struct db_value){ DB_REAL, { .d = d } };
}

/* db_query() with typed parameters. */
int db_query_values(struct db *db, const char *sql, const struct db_value *params, int n,
		    struct db_rows **rows);
size_t db_rows_count(const struct db_rows *rows);
int db_rows_columns(const struct db_rows *rows);

/*
 * A cell as the backend gave it: SQLite's INTEGER and REAL as numbers
 * (sqlite3_column_int64/double: no REAL goes through text between the
 * history and the gate), PostgreSQL's every value as its text.
 */
enum db_type db_rows_type(const struct db_rows *rows, size_t row, int col);

/* A cell as text, NULL for SQL NULL (and outside the rows): a REAL as its
 * shortest round-trip text, an INTEGER in decimal, made when first asked
 * (so one rows object is not for two threads at once). */
const char *db_rows_get(const struct db_rows *rows, size_t row, int col);

/* A cell as a number: 1 and *@x, or 0 for SQL NULL (@x untouched). The
 * same value strtod()/strtoll() of db_rows_get()'s text gives, without
 * the text. */
int db_rows_double(const struct db_rows *rows, size_t row, int col, double *x);
int db_rows_int64(const struct db_rows *rows, size_t row, int col, long long *x);
void db_rows_free(struct db_rows *rows);

/*
 * A history another tool made (or edited) may lack the NOT NULL
 * constraints: check @rows before reading them. @spec names each column
 * of the query, "table.column" separated by spaces, "?table.column" for
 * those that may be NULL. A NULL in another is -EBADMSG naming the
 * column and the row: by its column @key_col's value, or @where (e.g.
 * "ksftm_results.series_id = 3") when @key_col is -1 or NULL itself.
 */
int db_rows_check(const struct db *db, const struct db_rows *rows, const char *spec,
		  int key_col, const char *where);

#endif
