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
int db_commit(struct db *db);
/* Roll back; safe to call when no transaction is open. */
void db_rollback(struct db *db);

/*
 * Run @sql with @n text parameters (NULL = SQL NULL) and collect its rows
 * (@rows may be NULL when none are wanted). Values come back as text, NULL
 * for SQL NULL; they live until db_rows_free().
 */
int db_query(struct db *db, const char *sql, const char *const *params, int n,
	     struct db_rows **rows);
size_t db_rows_count(const struct db_rows *rows);
int db_rows_columns(const struct db_rows *rows);
const char *db_rows_get(const struct db_rows *rows, size_t row, int col);
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
