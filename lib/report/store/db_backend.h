/*
 * What db.c asks of a history backend (db_sqlite.c, db_postgresql.c): one
 * table of operations each, and the handle and rows they share (db_rows.c,
 * db_redact.c below them all). Only these files include this.
 */
#ifndef KSFTM_DB_BACKEND_H
#define KSFTM_DB_BACKEND_H

#include <stddef.h>

#include "db.h"

/* The part of a handle every backend has; a backend's own handle starts
 * with it (db_sqlite.c's struct lite, db_postgresql.c's struct pg). */
struct db {
	const struct db_ops *ops;
	enum db_dialect dialect;
	int in_tx;
	int trusted;		/* in db_begin_write_trusted()'s transaction */
	int read_only;		/* SQLite: the file cannot be written */
	char name[DB_NAME_MAX];	/* the URL or path as messages show it */
};

struct db_ops {
	enum db_dialect dialect;
	size_t size;		/* the backend's handle, struct db first */
	/* Connect @db (zeroed but for its struct db) to @url. On failure the
	 * caller closes it: close() takes a half-open handle. */
	int (*open)(struct db *db, const char *url);
	void (*close)(struct db *db);
	int (*query)(struct db *db, const char *sql, const struct db_value *params, int n,
		     struct db_rows **rows);
	int (*exec)(struct db *db, const char *sql);
	/* Roll back, ignoring a failure (the caller's message stays). */
	void (*rollback)(struct db *db);
	const char *begin;	/* the statement that opens a write transaction */
	const char *after_begin;	/* run next in it (NULL: none) */
	/* Before a trusted transaction's begin and after its end (NULL: none). */
	const char *trust, *distrust;
};

/* The backends built in (meson builds a backend's file only when its
 * library is found); NULL when one is not. */
extern const struct db_ops db_sqlite_ops;
extern const struct db_ops db_postgresql_ops;
#ifdef KSFTM_HAVE_SQLITE
#define DB_SQLITE_OPS (&db_sqlite_ops)
#else
#define DB_SQLITE_OPS NULL
#endif
#ifdef KSFTM_HAVE_LIBPQ
#define DB_POSTGRESQL_OPS (&db_postgresql_ops)
#else
#define DB_POSTGRESQL_OPS NULL
#endif

/* A block of cell texts (db_rows.c): cells are carved from a few blocks,
 * not allocated one by one (a slab of a whole run is 60,000 cells). */
struct db_rows_block;

/* The room a number's text is made in (float_repr()'s longest, and more
 * than an int64's). */
#define DB_NUMBER_TEXT_MAX 32

/* One cell: its type, a number as the backend gave it, and its text (a
 * TEXT's; a number's, made in the room kept for it when first asked). */
struct db_cell {
	char *text;		/* NULL for SQL NULL */
	union {
		long long i;
		double d;
	} num;
	int type;		/* enum db_type */
};

struct db_rows {
	size_t n, cap;		/* rows, and room for them in cells */
	int cols;
	int cells_inline;	/* cells are the allocation's own (db_rows_new()) */
	struct db_cell *cells;	/* n * cols, row-major */
	struct db_rows_block *blocks;	/* the texts, newest block first */
};

/*
 * Rows of @cols columns with room for @rows of them and a first block of
 * text in one allocation, not three (a window query's few rows; issue
 * 45). NULL when out of memory.
 */
struct db_rows *db_rows_new(int cols, size_t rows);
/* Room in @r for @rows rows: 0, or -ENOMEM (no message). */
int db_rows_reserve(struct db_rows *r, size_t rows);

/* Is @url a PostgreSQL one (postgresql:// or postgres://)? db_redact.c. */
int db_redact_is_pg_url(const char *url);

/* db_rows.c: cell (@row, @col) of @r as a copy of @len bytes of @v (NULL: SQL NULL);
 * *@oom set when the copy cannot be made. */
void db_rows_set(struct db_rows *r, size_t row, int col, const char *v, size_t len, int *oom);
/* ... and as a number, its text made only if a caller asks for it. */
void db_rows_set_int64(struct db_rows *r, size_t row, int col, long long v, int *oom);
void db_rows_set_double(struct db_rows *r, size_t row, int col, double v, int *oom);

#endif
