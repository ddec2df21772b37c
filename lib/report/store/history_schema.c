/* The run history's schema: creating, migrating and opening it (history.h). */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errmsg.h"
#include "history.h"
#include "history_content_key.h"
#include "history_context.h"
#include "history_schema.h"

struct history {
	struct db *db;
	long version;	/* the schema's, as found at open (0: none) */
	long target;	/* what writers create or migrate to */
	int read_indexes;	/* read_indexes known to exist, the layout re-keyed */
};

/*
 * Schema version 1. Every table is prefixed ksftm_ so the history can live
 * in a database shared with other tools (NIPA's). Results copy their run's
 * order, comparability key and usability, so the gate's window ("the last
 * N usable, comparable runs of this series") is one index range scan,
 * whatever the history's length.
 */
static const char schema_v1_common[] =
	"CREATE TABLE IF NOT EXISTS ksftm_series ("
	" id %s,"
	" path TEXT NOT NULL, case_name TEXT NOT NULL, metric TEXT NOT NULL,"
	" labels TEXT NOT NULL,"
	" UNIQUE (path, case_name, metric, labels));"
	"CREATE TABLE IF NOT EXISTS ksftm_runs ("
	" id %s,"
	" run_key TEXT NOT NULL UNIQUE,"
	" run_order TEXT NOT NULL,"
	" context TEXT NOT NULL,"
	" comparable TEXT NOT NULL,"
	" state TEXT NOT NULL DEFAULT 'new',"
	" pinned INTEGER NOT NULL DEFAULT 0,"
	" ingested TEXT NOT NULL);"
	"CREATE TABLE IF NOT EXISTS ksftm_results ("
	" run_id BIGINT NOT NULL REFERENCES ksftm_runs(id) ON DELETE CASCADE,"
	" series_id BIGINT NOT NULL REFERENCES ksftm_series(id),"
	" comparable TEXT NOT NULL,"
	" run_order TEXT NOT NULL,"
	" usable INTEGER NOT NULL,"
	" status TEXT NOT NULL,"
	" shape TEXT NOT NULL,"
	" policy TEXT,"
	" compare_op TEXT,"
	" better TEXT,"
	" value DOUBLE PRECISION,"
	" samples TEXT NOT NULL,"
	" summary TEXT NOT NULL,"
	" PRIMARY KEY (series_id, run_id));"
	"CREATE INDEX IF NOT EXISTS ksftm_runs_order ON ksftm_runs (comparable, run_order);";

/*
 * The results' read path at scale answered from an index alone (no table
 * row per result): a scalar series' window (its values, newest first).
 * Not part of the schema version: every query is the same with or without
 * it (only slower), so a writer adds it to an existing history
 * (history_writable()) without making an older ksft-metric refuse it. It
 * replaces version 1's narrower ksftm_results_window (series_id, comparable,
 * usable, run_order), whose columns lead it; the series of the recent runs
 * (the missing-series check), once ksftm_results_run (run_id) and then
 * ksftm_results_run_series (run_id, usable, series_id, better), are the
 * results' own key's range since issue 45 (update_layout()).
 * The window's index carries each value's compare statistic (issue 31: a
 * policy that changes it is judged like with like, history_gate.c);
 * ksftm_results_window_value, the same without it, is replaced.
 */
#define HISTORY_READ_INDEX "ksftm_results_window_op"
/*
 * Version 2's ksftm_results_series (series_id, run_order) goes on SQLite
 * (issue 45): every result written paid for it (a fifth of an ingest's
 * writes: its entries, one a series, lie on every page of it), for
 * `history`'s points (one series' results in their order, now
 * HISTORY_READ_INDEX's range of the series, sorted: a few thousand in a
 * year) and the gate's recent runs (two ranges of HISTORY_READ_INDEX
 * merged, HISTORY_SHIFT_MERGED_SQL). PostgreSQL keeps it: its planner
 * sorts those merged ranges (doc/decisions.rst).
 */
#define HISTORY_SERIES_INDEX "ksftm_results_series"
#define HISTORY_DROP_SERIES_INDEX "DROP INDEX IF EXISTS " HISTORY_SERIES_INDEX ";"
static const char read_indexes[] =
	"CREATE INDEX IF NOT EXISTS " HISTORY_READ_INDEX
	" ON ksftm_results (series_id, comparable, usable, run_order, value, compare_op);"
	"DROP INDEX IF EXISTS ksftm_results_window_value;"
	"DROP INDEX IF EXISTS ksftm_results_window;"
	"DROP INDEX IF EXISTS ksftm_results_run;";


struct db *history_db(struct history *h)
{
	return h->db;
}

int history_schema_meta_get(struct db *db, const char *key, char **value)
{
	struct db_rows *rows;
	const char *p[1] = { key };
	int ret = db_query(db, "SELECT value FROM ksftm_meta WHERE key = $1", p, 1, &rows);

	*value = NULL;
	if (ret)
		return ret;
	if (db_rows_count(rows) && db_rows_get(rows, 0, 0) &&
	    !(*value = strdup(db_rows_get(rows, 0, 0))))
		ret = ksftm_oom();
	db_rows_free(rows);
	return ret;
}

/*
 * Version 2: the gate's verdict at ingest and its acceptance per result,
 * the level each accepted change starts (ksftm_levels), an index for one
 * series' whole history (on SQLite gone since: HISTORY_SERIES_INDEX), and
 * comparability keys whose values are all text (a collector's --context
 * cpu_count=2 and a log's 2 are one machine).
 */
static const char schema_v2_steps[] =
	"ALTER TABLE ksftm_results ADD COLUMN verdict TEXT;"
	"ALTER TABLE ksftm_results ADD COLUMN accepted INTEGER NOT NULL DEFAULT 0;"
	"CREATE TABLE ksftm_levels ("
	" series_id BIGINT NOT NULL REFERENCES ksftm_series(id),"
	" comparable TEXT NOT NULL,"
	" run_order TEXT NOT NULL,"
	" PRIMARY KEY (series_id, comparable));"
	"CREATE INDEX ksftm_results_series ON ksftm_results (series_id, run_order);"
	"CREATE INDEX ksftm_runs_pinned ON ksftm_runs (comparable, pinned, run_order);";

static int recompute_comparable(struct db *db)
{
	struct db_rows *rows;
	char *keys = NULL;
	size_t i;
	int ret = history_schema_meta_get(db, "comparable_keys", &keys);

	if (ret)
		return ret;
	ret = db_query(db, "SELECT id, context FROM ksftm_runs", NULL, 0, &rows);
	if (!ret && (ret = db_rows_check(db, rows, "ksftm_runs.id ksftm_runs.context", 0, NULL)))
		db_rows_free(rows);
	for (i = 0; !ret && i < db_rows_count(rows); i++) {
		char row[64];
		json_t *ctx;
		char *cmp;
		const char *p[2] = { NULL, db_rows_get(rows, i, 0) };

		snprintf(row, sizeof(row), "ksftm_runs.id = %.40s", p[1]);
		if ((ret = history_json(db, db_rows_get(rows, i, 1), "ksftm_runs.context", row, &ctx))) {
			db_rows_free(rows);
			break;
		}
		p[0] = cmp = history_comparable(ctx, keys ? keys : history_context_default_keys);
		json_decref(ctx);
		if (!cmp) {
			ret = ksftm_oom();
			db_rows_free(rows);
			break;
		}
		ret = db_query(db, "UPDATE ksftm_runs SET comparable = $1 WHERE id = $2", p, 2, NULL);
		if (!ret)
			ret = db_query(db, "UPDATE ksftm_results SET comparable = $1 WHERE run_id = $2",
				       p, 2, NULL);
		free(cmp);
		if (ret)
			db_rows_free(rows);
	}
	if (!ret)
		db_rows_free(rows);
	free(keys);
	return ret;
}

/*
 * Version 3 (issue 40): each run's content key (history_content_key.h),
 * so that a run ingested again under another order or id is recognised;
 * filled in for the runs stored before, from their rows. Run ids stay as
 * they are (the CI's, or an old "sha-" key): they are names scripts and
 * dashboards hold, and the tie-break of every stored order.
 */
static const char schema_v3_steps[] =
	"ALTER TABLE ksftm_runs ADD COLUMN content_key TEXT;"
	"CREATE INDEX ksftm_runs_content ON ksftm_runs (content_key, comparable);";

static int run_content_key(struct db *db, const char *id, const char *ctx, char *out)
{
	struct history_content_key k;
	struct db_rows *rows = NULL;
	const char *p[1] = { id };
	char where[64];
	size_t i;
	int ret = db_query(db, "SELECT s.path, s.case_name, s.metric, s.labels, res.samples"
			   " FROM ksftm_results res JOIN ksftm_series s ON s.id = res.series_id"
			   " WHERE res.run_id = $1", p, 1, &rows);

	snprintf(where, sizeof(where), "ksftm_results.run_id = %.40s", id);
	if (!ret)
		ret = db_rows_check(db, rows, "ksftm_series.path ksftm_series.case_name"
				    " ksftm_series.metric ksftm_series.labels ksftm_results.samples",
				    -1, where);
	history_content_key_init(&k);
	for (i = 0; !ret && i < db_rows_count(rows); i++)
		history_content_key_series(&k, db_rows_get(rows, i, 0), db_rows_get(rows, i, 1),
					   db_rows_get(rows, i, 2), db_rows_get(rows, i, 3),
					   db_rows_get(rows, i, 4));
	if (!ret)
		history_content_key_end(&k, ctx, out);
	db_rows_free(rows);
	return ret;
}

static int fill_content_keys(struct db *db)
{
	struct db_rows *rows = NULL;
	char key[HISTORY_CONTENT_KEY_LEN + 1];
	size_t i;
	int ret = db_query(db, "SELECT id, context FROM ksftm_runs", NULL, 0, &rows);

	if (!ret)
		ret = db_rows_check(db, rows, "ksftm_runs.id ksftm_runs.context", 0, NULL);
	for (i = 0; !ret && i < db_rows_count(rows); i++) {
		const char *p[2] = { key, db_rows_get(rows, i, 0) };

		if (!(ret = run_content_key(db, p[1], db_rows_get(rows, i, 1), key)))
			ret = db_query(db, "UPDATE ksftm_runs SET content_key = $1 WHERE id = $2",
				       p, 2, NULL);
	}
	db_rows_free(rows);
	return ret;
}

static int check_newer(struct db *db, long v)
{
	if (v > HISTORY_SCHEMA_VERSION)
		return ksftm_fail(EPROTO, "history database %s has schema version %ld; this "
				  "ksft-metric knows up to %d (upgrade it)", db_name(db), v,
				  HISTORY_SCHEMA_VERSION);
	return 0;
}

static int create_schema(struct db *db, long target)
{
	int pg = db_dialect(db) == DB_POSTGRESQL;
	const char *autoinc = pg ? "BIGSERIAL PRIMARY KEY" : "INTEGER PRIMARY KEY";
	char sql[sizeof(schema_v1_common) + 64];
	char *version = NULL;
	long v = 0;
	int ret;

	/* Two first ingests at once both create: db_begin_write() serialises
	 * them (SQLite's BEGIN IMMEDIATE, PostgreSQL's advisory lock). */
	if ((ret = db_begin_write(db)))
		return ret;
	if ((ret = db_exec(db, "CREATE TABLE IF NOT EXISTS ksftm_meta"
			       " (key TEXT PRIMARY KEY, value TEXT NOT NULL)")))
		goto fail;
	if ((ret = history_schema_meta_get(db, "schema_version", &version)))
		goto fail;
	if (version) {
		v = strtol(version, NULL, 10);
		free(version);
		if ((ret = check_newer(db, v)))
			goto fail;
		if (v >= target) {
			db_rollback(db);
			return 0;
		}
	} else {
		const char *p[2] = { "schema_version", "1" };
		const char *q[2] = { "comparable_keys", history_context_default_keys };
		static const char ins[] = "INSERT INTO ksftm_meta (key, value) VALUES ($1, $2)";

		snprintf(sql, sizeof(sql), schema_v1_common, autoinc, autoinc);
		if ((ret = db_exec(db, sql)) || (ret = db_exec(db, read_indexes)) ||
		    (ret = db_query(db, ins, p, 2, NULL)) || (ret = db_query(db, ins, q, 2, NULL)))
			goto fail;
		v = 1;
	}
	/* Each step from the database's version up, in this transaction: a
	 * history is migrated whole or not at all. */
	if (v < 2 && target >= 2) {
		if ((ret = db_exec(db, schema_v2_steps)) || (ret = recompute_comparable(db)) ||
		    (ret = db_exec(db, "UPDATE ksftm_meta SET value = '2' WHERE key = 'schema_version'")))
			goto fail;
	}
	if (v < 3 && target >= 3) {
		if ((ret = db_exec(db, schema_v3_steps)) || (ret = fill_content_keys(db)) ||
		    (ret = db_exec(db, "UPDATE ksftm_meta SET value = '3' WHERE key = 'schema_version'")))
			goto fail;
	}
	return db_commit(db);
fail:
	db_rollback(db);
	return ret;
}

/*
 * The schema version, read without a transaction or a lock (a reader must
 * not wait for a running ingest): 0 when the database has no history yet.
 */
static int read_version(struct db *db, long *v)
{
	struct db_rows *rows;
	char *version = NULL, *end;
	int ret = db_query(db, db_dialect(db) == DB_POSTGRESQL ?
			   "SELECT 1 WHERE to_regclass('ksftm_meta') IS NOT NULL" :
			   "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ksftm_meta'",
			   NULL, 0, &rows);

	*v = 0;
	if (ret)
		return ret;
	if (!db_rows_count(rows)) {
		db_rows_free(rows);
		return 0;
	}
	db_rows_free(rows);
	if ((ret = history_schema_meta_get(db, "schema_version", &version)) || !version)
		return ret;
	*v = strtol(version, &end, 10);
	if (end == version || *end || *v < 1)
		ret = ksftm_fail(EBADMSG, "history database %s: ksftm_meta.value in the row with"
				 " key = 'schema_version' is \"%.40s\", not a version", db_name(db),
				 version);
	free(version);
	return ret;
}

int history_open(const char *url, struct history **out)
{
	return history_open_version(url, HISTORY_SCHEMA_VERSION, out);
}

/*
 * Opening only reads the schema version. A database without a history
 * gets its tables at once (what opening always did: a fresh file is an
 * empty history); an older schema is migrated by the first writer
 * (history_writable()), and readers refuse it (history_readable()) rather
 * than write: so a reader never takes the write lock.
 */
/* Longer than any schema creation takes, short of SQLite's own busy timeout. */
#define HISTORY_OPEN_RETRY_MS 60000

static int open_once(struct history *h, const char *url, long version)
{
	int ret = db_open(url, &h->db);

	if (!ret)
		ret = read_version(h->db, &h->version);
	if (!ret)
		ret = check_newer(h->db, h->version);
	if (!ret && !h->version) {
		ret = create_schema(h->db, version);
		if (!ret)
			ret = read_version(h->db, &h->version);
	}
	return ret;
}

int history_open_version(const char *url, long version, struct history **out)
{
	struct history *h;
	unsigned int wait_ms, waited_ms = 0;
	int ret;

	*out = NULL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return ksftm_oom();
	h->target = version;
	/* SQLite answers "locked" at once, without its busy handler, to a
	 * connection that meets another one switching a new file to WAL or
	 * creating its tables (8 first ingests at once did): that open is
	 * tried again from the start, for as long as the busy timeout. */
	for (wait_ms = 1;; wait_ms = wait_ms < 256 ? wait_ms * 2 : wait_ms) {
		ret = open_once(h, url, version);
		if (ret != -EBUSY || waited_ms >= HISTORY_OPEN_RETRY_MS)
			break;
		db_close(h->db);
		h->db = NULL;
		usleep(wait_ms * 1000);
		waited_ms += wait_ms;
	}
	if (ret) {
		history_close(h);
		return ret;
	}
	*out = h;
	return 0;
}

/*
 * The results keyed by (run, series) (issue 45), on SQLite in a table kept
 * in that order (WITHOUT ROWID): one b-tree where the rowid table and its
 * primary key's index (series_id, run_id) were two, and a run's results
 * side by side, so the gate's slab (history_window_slab.c), a run read
 * back, the missing-series check and prune read them in a range, and
 * ksftm_results_run_series is not needed. Each result written goes into
 * two b-trees (this and HISTORY_READ_INDEX; three before
 * HISTORY_SERIES_INDEX went), not five; on PostgreSQL into the heap and
 * three indexes, not four. Like
 * read_indexes, not part of the schema version: every query is the same
 * on either layout, so an older ksft-metric still reads and writes a
 * history its next writer re-keyed (history_writable()), and this one
 * reads one not re-keyed yet.
 */
#define HISTORY_NEW_KEY "PRIMARY KEY (run_id, series_id)"
static const char rekey_sqlite[] =
	"CREATE TABLE ksftm_results_keyed ("
	" run_id BIGINT NOT NULL REFERENCES ksftm_runs(id) ON DELETE CASCADE,"
	" series_id BIGINT NOT NULL REFERENCES ksftm_series(id),"
	" comparable TEXT NOT NULL,"
	" run_order TEXT NOT NULL,"
	" usable INTEGER NOT NULL,"
	" status TEXT NOT NULL,"
	" shape TEXT NOT NULL,"
	" policy TEXT,"
	" compare_op TEXT,"
	" better TEXT,"
	" value DOUBLE PRECISION,"
	" samples TEXT NOT NULL,"
	" summary TEXT NOT NULL,"
	" verdict TEXT,"
	" accepted INTEGER NOT NULL DEFAULT 0,"
	" " HISTORY_NEW_KEY ") WITHOUT ROWID;"
	"INSERT INTO ksftm_results_keyed (run_id, series_id, comparable, run_order, usable,"
	" status, shape, policy, compare_op, better, value, samples, summary, verdict, accepted)"
	" SELECT run_id, series_id, comparable, run_order, usable, status, shape, policy,"
	" compare_op, better, value, samples, summary, verdict, accepted FROM ksftm_results"
	" ORDER BY run_id, series_id;"
	"DROP TABLE ksftm_results;"
	"ALTER TABLE ksftm_results_keyed RENAME TO ksftm_results;";
static const char rekey_postgresql[] =
	"ALTER TABLE ksftm_results DROP CONSTRAINT ksftm_results_pkey;"
	"ALTER TABLE ksftm_results ADD " HISTORY_NEW_KEY ";"
	"DROP INDEX IF EXISTS ksftm_results_run_series;";

/* Has the history HISTORY_READ_INDEX (bit 1), is it in the old layout
 * (bit 2), has it HISTORY_SERIES_INDEX still on SQLite (bit 4)? */
static int layout_of(struct db *db, int *have)
{
	struct db_rows *rows;
	size_t k;
	/* PostgreSQL: the catalogs read at the statement's snapshot, which
	 * sees another writer's commit (to_regclass() answers from a cache
	 * that a transaction need not have refreshed yet). */
	int ret = db_query(db, db_dialect(db) == DB_POSTGRESQL ?
			   "SELECT relname FROM pg_class WHERE relname = '" HISTORY_READ_INDEX "'"
			   " AND pg_table_is_visible(oid) UNION ALL SELECT 'key'"
			   " FROM pg_constraint WHERE conname = 'ksftm_results_pkey'"
			   " AND pg_get_constraintdef(oid) = '" HISTORY_NEW_KEY "'" :
			   "SELECT name FROM sqlite_master WHERE type = 'index' AND name = '"
			   HISTORY_READ_INDEX "' UNION ALL SELECT 'key' FROM sqlite_master"
			   " WHERE type = 'table' AND name = 'ksftm_results'"
			   " AND sql LIKE '%WITHOUT ROWID' UNION ALL SELECT 'series'"
			   " FROM sqlite_master WHERE type = 'index' AND name = '"
			   HISTORY_SERIES_INDEX "'", NULL, 0, &rows);

	*have = 2;
	if (ret)
		return ret;
	for (k = 0; k < db_rows_count(rows); k++)
		if (db_rows_get(rows, k, 0))
			*have ^= !strcmp(db_rows_get(rows, k, 0), "key") ? 2 :
				 !strcmp(db_rows_get(rows, k, 0), "series") ? 4 : 1;
	db_rows_free(rows);
	return 0;
}

/*
 * A history written before read_indexes existed gets them from its next
 * writer (on SQLite, HISTORY_SERIES_INDEX dropped), and one in the old layout is
 * re-keyed (in one transaction: a copy of every result on SQLite, a new
 * key index on PostgreSQL; seconds for a month of a 5,000-series CI,
 * minutes for a year).
 */
static int update_layout(struct db *db)
{
	int ret, have;

	if ((ret = layout_of(db, &have)) || have == 1)
		return ret;
	if ((ret = db_begin_write(db)))
		return ret;
	/* Again under the write lock: another writer may have done it. */
	if ((ret = layout_of(db, &have)) ||
	    ((have & 2) && (ret = db_exec(db, db_dialect(db) == DB_POSTGRESQL ?
					   rekey_postgresql : rekey_sqlite))) ||
	    ((have != 1) && (ret = db_exec(db, read_indexes))) ||
	    ((have & 4) && (ret = db_exec(db, HISTORY_DROP_SERIES_INDEX)))) {
		db_rollback(db);
		return ret;
	}
	return db_commit(db);
}

int history_writable(struct history *h)
{
	int ret;

	if ((ret = db_writable(h->db)))
		return ret;
	if (h->version < h->target) {
		ret = create_schema(h->db, h->target);
		if (!ret)
			ret = read_version(h->db, &h->version);
		if (ret)
			return ret;
	}
	if (h->version >= 2 && !h->read_indexes) {
		if ((ret = update_layout(h->db)))
			return ret;
		h->read_indexes = 1;
	}
	return 0;
}

int history_readable_from(struct history *h, long version)
{
	if (h->version < version)
		return ksftm_fail(EPROTO, "history database %s has schema version %ld: a writer"
				  " (ksft-metric ingest, accept or pin) migrates it to version %d"
				  " first; reading does not", db_name(h->db), h->version,
				  HISTORY_SCHEMA_VERSION);
	return 0;
}

int history_readable(struct history *h)
{
	return history_readable_from(h, HISTORY_SCHEMA_VERSION);
}

void history_close(struct history *h)
{
	if (!h)
		return;
	db_close(h->db);
	free(h);
}

int history_comparable_keys(struct history *h, char **keys_json)
{
	int ret = history_schema_meta_get(h->db, "comparable_keys", keys_json);

	if (!ret && !*keys_json && !(*keys_json = strdup(history_context_default_keys)))
		ret = ksftm_oom();
	return ret;
}
