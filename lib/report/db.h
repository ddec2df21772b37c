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

/* Statements without results (DDL, BEGIN...); several separated by ';'. */
int db_exec(struct db *db, const char *sql);

/*
 * A write transaction. SQLite takes the write lock at once (BEGIN
 * IMMEDIATE, waiting for other writers), so concurrent ingests serialise
 * instead of failing half-way; PostgreSQL uses its own locking.
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

#endif
