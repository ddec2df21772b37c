/*
 * The history's SQL interface (db.h) over its backends (db_backend.h):
 * SQLite (db_sqlite.c) and PostgreSQL (db_postgresql.c). What does not
 * depend on the backend: choosing it and transactions; the rows are
 * db_rows.c's, the names without credentials db_redact.c's.
 */
#include <errno.h>
#include <stdlib.h>

#include "db_backend.h"
#include "errmsg.h"

enum db_dialect db_dialect(const struct db *db)
{
	return db->dialect;
}

const char *db_name(const struct db *db)
{
	return db->name;
}

int db_read_only(const struct db *db)
{
	return db->read_only;
}

int db_open(const char *url, struct db **out)
{
	const struct db_ops *ops;
	char name[DB_NAME_MAX];
	struct db *db;
	int ret;

	*out = NULL;
	if (!url || !*url)
		return ksftm_fail(EINVAL, "history database: no path or URL given");
	ops = db_redact_is_pg_url(url) ? DB_POSTGRESQL_OPS : DB_SQLITE_OPS;
	if (!ops)
		return ksftm_fail(ENOTSUP, db_redact_is_pg_url(url) ?
				  "history database %s: built without PostgreSQL (libpq)" :
				  "history database %s: built without SQLite",
				  db_redact(url, name, sizeof(name)));
	db = calloc(1, ops->size);
	if (!db)
		return ksftm_oom();
	db->ops = ops;
	db->dialect = ops->dialect;
	db_redact(url, db->name, sizeof(db->name));
	if ((ret = ops->open(db, url))) {
		db_close(db);
		return ret;
	}
	*out = db;
	return 0;
}

void db_close(struct db *db)
{
	if (!db)
		return;
	db->ops->close(db);
	free(db);
}


int db_query_values(struct db *db, const char *sql, const struct db_value *params, int n,
		    struct db_rows **rows)
{
	if (rows)
		*rows = NULL;
	return db->ops->query(db, sql, params, n, rows);
}

/* Text parameters as typed ones: on the stack up to this many. */
#define DB_PARAMS_ON_STACK 16

int db_query(struct db *db, const char *sql, const char *const *params, int n,
	     struct db_rows **rows)
{
	struct db_value on_stack[DB_PARAMS_ON_STACK] = { { DB_NULL, { 0 } } }, *v = on_stack;
	int i, ret;

	if (n > DB_PARAMS_ON_STACK && !(v = malloc((size_t)n * sizeof(*v))))
		return ksftm_oom();
	for (i = 0; i < n; i++)
		v[i] = db_text(params[i]);
	ret = db_query_values(db, sql, v, n, rows);
	if (v != on_stack)
		free(v);
	return ret;
}

int db_exec(struct db *db, const char *sql)
{
	return db->ops->exec(db, sql);
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
	ret = db_exec(db, db->ops->begin);
	if (!ret)
		db->in_tx = 1;
	/* PostgreSQL: its writers' advisory lock (db_postgresql.c). */
	if (!ret && db->ops->after_begin && (ret = db_exec(db, db->ops->after_begin)))
		db_rollback(db);
	return ret;
}

/* After a trusted transaction: its checks on again (SQLite sets them
 * only outside a transaction). */
static int db_distrust(struct db *db)
{
	if (!db->trusted)
		return 0;
	db->trusted = 0;
	return db_exec(db, db->ops->distrust);
}

int db_begin_write_trusted(struct db *db)
{
	int ret = db_writable(db);

	if (ret || !db->ops->trust)
		return ret ? ret : db_begin_write(db);
	if ((ret = db_exec(db, db->ops->trust)))
		return ret;
	db->trusted = 1;
	if ((ret = db_begin_write(db)))
		db_distrust(db);
	return ret;
}

int db_commit(struct db *db)
{
	int ret = db_exec(db, "COMMIT");

	if (!ret) {
		db->in_tx = 0;
		ret = db_distrust(db);
	}
	return ret;
}

void db_rollback(struct db *db)
{
	if (!db->in_tx)
		return;
	db->in_tx = 0;
	/* Keep the caller's message: the rollback's own failure adds nothing. */
	db->ops->rollback(db);
	/* (Its failure would replace the caller's message: it does not fail
	 * outside a transaction.) */
	if (db->trusted) {
		db->trusted = 0;
		db->ops->exec(db, db->ops->distrust);
	}
}

