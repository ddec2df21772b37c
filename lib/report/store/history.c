/* The run history's schema and ingest (history.h). */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <time.h>

#include "errmsg.h"
#include "float_repr.h"
#include "history.h"
#include "history_sql.h"
#include "rp.h"
#include "rp_compare.h"

struct history {
	struct db *db;
	long version;	/* the schema's, as found at open (0: none) */
	long target;	/* what writers create or migrate to */
	int read_indexes;	/* read_indexes known to exist */
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
 * The results' two read paths at scale, each answered from the index alone
 * (no table row per result): a scalar series' window (its values, newest
 * first) and the series of the recent runs (the missing-series check).
 * Not part of the schema version: every query is the same with or without
 * them (only slower), so a writer adds them to an existing history
 * (history_writable()) without making an older ksft-metric refuse it. They
 * replace version 1's narrower ksftm_results_window (series_id, comparable,
 * usable, run_order) and ksftm_results_run (run_id), whose columns lead them.
 * The window's index carries each value's compare statistic (issue 31: a
 * policy that changes it is judged like with like, history_gate.c);
 * ksftm_results_window_value, the same without it, is replaced.
 */
#define HISTORY_READ_INDEX "ksftm_results_window_op"
static const char read_indexes[] =
	"CREATE INDEX IF NOT EXISTS " HISTORY_READ_INDEX
	" ON ksftm_results (series_id, comparable, usable, run_order, value, compare_op);"
	"CREATE INDEX IF NOT EXISTS ksftm_results_run_series"
	" ON ksftm_results (run_id, usable, series_id, better);"
	"DROP INDEX IF EXISTS ksftm_results_window_value;"
	"DROP INDEX IF EXISTS ksftm_results_window;"
	"DROP INDEX IF EXISTS ksftm_results_run;";

/*
 * A ksft-vm guest's instrument (doc/vm.rst): its clock (icount, kvm; none
 * natively), QEMU and CPU model, and the image it booted, which in a guest
 * is part of the machine. Absent natively, so native histories keep their
 * keys; a guest run is never judged against a native one.
 */
#define VM_COMPARABLE "\"clock\",\"icount_shift\",\"qemu\",\"qemu_cpu\"," \
		      "\"vm_kernel\",\"vm_kernel_config\""

/*
 * Context keys that make two runs comparable by default: the same machine
 * (as the run context line describes it) and the same CI runner/device when
 * the CI names one. Changing kernels are what is being compared, so
 * "kernel" is not among them. Stored in ksftm_meta, so one history keeps
 * one rule.
 */
static const char default_comparable[] = "[\"arch\",\"cpu_count\",\"cpu_model\","
					 "\"device\",\"hostname\",\"placement\",\"runner\","
					 VM_COMPARABLE "]";


struct db *history_db(struct history *h)
{
	return h->db;
}

static int meta_get(struct db *db, const char *key, char **value)
{
	struct db_rows *rows;
	const char *p[1] = { key };
	int ret = db_query(db, "SELECT value FROM ksftm_meta WHERE key = $1", p, 1, &rows);

	*value = NULL;
	if (ret)
		return ret;
	if (db_rows_count(rows) && db_rows_get(rows, 0, 0) &&
	    !(*value = strdup(db_rows_get(rows, 0, 0))))
		ret = ksftm_fail(ENOMEM, "out of memory");
	db_rows_free(rows);
	return ret;
}

/*
 * Version 2: the gate's verdict at ingest and its acceptance per result,
 * the level each accepted change starts (ksftm_levels), an index for one
 * series' whole history, and comparability keys whose values are all
 * text (a collector's --context cpu_count=2 and a log's 2 are one machine).
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
	int ret = meta_get(db, "comparable_keys", &keys);

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
		p[0] = cmp = history_comparable(ctx, keys ? keys : default_comparable);
		json_decref(ctx);
		if (!cmp) {
			ret = ksftm_fail(ENOMEM, "out of memory");
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
	if ((ret = meta_get(db, "schema_version", &version)))
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
		const char *q[2] = { "comparable_keys", default_comparable };
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
	if ((ret = meta_get(db, "schema_version", &version)) || !version)
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
		return ksftm_fail(ENOMEM, "out of memory");
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

/* A history written before read_indexes existed gets them from its next writer. */
static int add_read_indexes(struct db *db)
{
	struct db_rows *rows;
	int ret = db_query(db, db_dialect(db) == DB_POSTGRESQL ?
			   "SELECT 1 WHERE to_regclass('" HISTORY_READ_INDEX "') IS NOT NULL" :
			   "SELECT 1 FROM sqlite_master WHERE type = 'index'"
			   " AND name = '" HISTORY_READ_INDEX "'", NULL, 0, &rows);
	size_t have;

	if (ret)
		return ret;
	have = db_rows_count(rows);
	db_rows_free(rows);
	if (have)
		return 0;
	if ((ret = db_begin_write(db)))
		return ret;
	if ((ret = db_exec(db, read_indexes))) {
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
		if ((ret = add_read_indexes(h->db)))
			return ret;
		h->read_indexes = 1;
	}
	return 0;
}

int history_readable(struct history *h)
{
	if (h->version < HISTORY_SCHEMA_VERSION)
		return ksftm_fail(EPROTO, "history database %s has schema version %ld: a writer"
				  " (ksft-metric ingest, accept or pin) migrates it to version %d"
				  " first; reading does not", db_name(h->db), h->version,
				  HISTORY_SCHEMA_VERSION);
	return 0;
}

void history_close(struct history *h)
{
	if (!h)
		return;
	db_close(h->db);
	free(h);
}

static char *dump(json_t *j)
{
	char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII |
				    JSON_ENCODE_ANY | JSON_REAL_PRECISION(17));

	json_decref(j);
	return s;
}

/* The run's context: the logs' context lines, then the CI's KEY=VALUE
 * items over them (the collector knows the commit and runner best). */
int history_run_context(const struct ksft_metric_report *r, const struct history_run *run,
			json_t **out)
{
	int err;

	*out = rp_context_with(r, run->context, run->n_context, &err);
	return *out ? 0 : err;
}

/* The comparability key: the values of the comparable keys present. */
char *history_comparable(json_t *ctx, const char *keys_json)
{
	json_t *keys = json_loads(keys_json, 0, NULL), *cmp = json_object(), *k;
	size_t i;

	json_array_foreach(keys, i, k) {
		json_t *v = json_object_get(ctx, json_string_value(k));

		if (!json_is_string(k) || !v || json_is_null(v))
			continue;
		if (json_is_string(v)) {
			json_object_set(cmp, json_string_value(k), v);
		} else {	/* 2 and "2" are one machine */
			char *text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);

			json_object_set_new(cmp, json_string_value(k), json_string(text ? text : ""));
			free(text);
		}
	}
	json_decref(keys);
	return dump(cmp);
}

int history_comparable_keys(struct history *h, char **keys_json)
{
	int ret = meta_get(h->db, "comparable_keys", keys_json);

	if (!ret && !*keys_json && !(*keys_json = strdup(default_comparable)))
		ret = ksftm_fail(ENOMEM, "out of memory");
	return ret;
}

/* Everything of one series the history keeps, as JSON/text columns. */
struct series_row {
	char *path, *samples, *summary;
	double value;
	int has_value;
};

/* A finite double as JSON, its shortest round-trip text (null for NaN:
 * a missing value): the columns are written directly, not through a
 * jansson tree and json_dumps, which were an eighth of an ingest. */
static void put_num(struct strbuf *sb, double v)
{
	char buf[FLOAT_REPR_MAX];

	if (isfinite(v))
		strbuf_add(sb, buf, float_repr(v, buf));
	else
		strbuf_adds(sb, "null");
}

static int series_row(const struct ksft_metric_report *r, size_t i,
		      const struct ksft_metric_report_series *s, struct series_row *row)
{
	/* json_dumps(JSON_SORT_KEYS)'s order, which the stored text keeps. */
	static const struct {
		const char *name;
		int code;
	} ops[] = { { "last", RP_OP_LAST }, { "max", RP_OP_MAX }, { "p50", RP_OP_P50 },
		    { "p90", RP_OP_P90 }, { "p99", RP_OP_P99 }, { "total", RP_OP_TOTAL } };
	struct ksft_metric_report_values v = { 0 };
	struct strbuf samples = STRBUF_INIT, summary = STRBUF_INIT;
	struct rp_summary *sums = NULL;
	const char *cmp = s->compare ? s->compare : "p50";
	size_t k, e;
	int ret, n, first = 1;

	memset(row, 0, sizeof(*row));
	ret = ksft_metric_report_series_values(r, i, KSFT_METRIC_REPORT_PROCESSED, &v);
	if (ret)
		goto out;
	strbuf_addc(&samples, '[');
	for (k = 0; k < v.n; k++) {
		if (k)
			strbuf_addc(&samples, ',');
		if (v.width == 1) {
			put_num(&samples, v.v[k]);
			continue;
		}
		strbuf_addc(&samples, '[');
		for (e = 0; e < v.width; e++) {
			if (e)
				strbuf_addc(&samples, ',');
			put_num(&samples, v.v[k * v.width + e]);
		}
		strbuf_addc(&samples, ']');
	}
	strbuf_addc(&samples, ']');
	n = rp_series_summaries(r, i, &sums);
	if (n < 0) {
		ret = n;
		goto out;
	}
	strbuf_addc(&summary, '{');
	for (k = 0; n > 0 && k < sizeof(ops) / sizeof(ops[0]); k++) {
		int code = ops[k].code;

		strbuf_adds(&summary, first ? "\"" : ",\"");
		strbuf_adds(&summary, ops[k].name);
		strbuf_adds(&summary, "\":");
		first = 0;
		if (n > 1) {	/* an array series: one value per element */
			strbuf_addc(&summary, '[');
			for (e = 0; e < (size_t)n; e++) {
				if (e)
					strbuf_addc(&summary, ',');
				put_num(&summary, rp_summary_op(&sums[e], code));
			}
			strbuf_addc(&summary, ']');
		} else {
			double one = rp_summary_op(&sums[0], code);

			put_num(&summary, one);
			if (!strcmp(ops[k].name, cmp) && isfinite(one)) {
				row->value = one;
				row->has_value = 1;
			}
		}
	}
	strbuf_addc(&summary, '}');
	row->path = history_path_json(s->path, s->path_len);
	if (!samples.oom && !summary.oom) {
		row->samples = strbuf_detach(&samples, NULL);
		row->summary = strbuf_detach(&summary, NULL);
	}
	if (!row->path || !row->samples || !row->summary)
		ret = ksftm_fail(ENOMEM, "out of memory");
out:
	free(sums);
	strbuf_free(&samples);
	strbuf_free(&summary);
	ksft_metric_report_values_release(&v);
	return ret;
}

static void series_row_free(struct series_row *row)
{
	free(row->path);
	free(row->samples);
	free(row->summary);
}

/* A run key from the content when the CI gives none: the same logs give
 * the same key, so ingesting them twice is refused, not duplicated. */
char *history_content_key(const struct ksft_metric_report *r, const char *ctx,
			  const char *order)
{
	char *text = NULL, *key;
	size_t len = 0, i;
	unsigned long long h = 1469598103934665603ULL;	/* FNV-1a 64 */

	if (ksft_metric_report_format(r, KSFT_METRIC_REPORT_JSON, &text, &len))
		return NULL;
	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)text[i]) * 1099511628211ULL;
	for (i = 0; ctx[i]; i++)
		h = (h ^ (unsigned char)ctx[i]) * 1099511628211ULL;
	/* The CI's order too: a new build with the same numbers (a
	 * deterministic measurement) is a new run, not the same one again. */
	for (i = 0; order && order[i]; i++)
		h = (h ^ (unsigned char)order[i]) * 1099511628211ULL;
	ksft_metric_report_text_free(text);
	key = malloc(24);
	if (key)
		snprintf(key, 24, "sha-%016llx", h);
	return key;
}

static void utc_now(char *buf, size_t size)
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/*
 * A run id or order as the history keeps it: valid UTF-8 without control
 * characters, so that every reader can show it and no terminal runs it.
 * The error quotes it neutralised (rp_text_dup()).
 */
int history_check_text(const char *field, const char *s)
{
	int control = 0;
	long at = s ? rp_text_bad_at(s, strlen(s), &control) : -1;
	char *shown;
	int ret;

	if (at < 0)
		return 0;
	shown = rp_text_dup(s, strlen(s));
	if (control)
		ret = ksftm_fail(EINVAL, "%s \"%s\": control character 0x%02x at byte %ld",
				 field, shown ? shown : "?", (unsigned char)s[at] == 0xc2 ?
				 (unsigned char)s[at + 1] : (unsigned char)s[at], at);
	else
		ret = ksftm_fail(EINVAL, "%s \"%s\": not valid UTF-8 at byte %ld", field,
				 shown ? shown : "?", at);
	free(shown);
	return ret;
}

/* One series of the run being ingested. */
struct ingest_item {
	struct ksft_metric_report_series s;
	struct series_row row;
};

static void items_free(struct ingest_item *items, size_t n)
{
	size_t i;

	for (i = 0; items && i < n; i++)
		series_row_free(&items[i].row);
	free(items);
}

static int cmp_key_id(const void *a, const void *b)
{
	const struct history_key *const *x = a, *const *y = b;

	return ((*x)->id > (*y)->id) - ((*x)->id < (*y)->id);
}

/*
 * The run's series: @items (allocated) with the rows the history keeps of
 * them, and @keys (allocated) with their identities and the ids of those
 * the history has (the gate judges with these).
 */
static int prepare_series(struct db *db, const struct ksft_metric_report *r, size_t n,
			  struct ingest_item **items_out, struct history_key **keys_out)
{
	struct ingest_item *items = calloc(n ? n : 1, sizeof(*items));
	struct history_key *keys = calloc(n ? n : 1, sizeof(*keys));
	size_t i;
	int ret = 0;

	*items_out = items;
	*keys_out = keys;
	if (!items || !keys)
		return ksftm_fail(ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		items[i].s.sz = sizeof(items[i].s);
		if ((ret = ksft_metric_report_series_get(r, i, &items[i].s)) ||
		    (ret = series_row(r, i, &items[i].s, &items[i].row)))
			return ret;
		keys[i] = (struct history_key){ items[i].row.path, items[i].s.case_name,
						items[i].s.name, items[i].s.labels_json, 0 };
	}
	return history_series_lookup(db, keys, NULL, n);
}

/*
 * The series the history lacks inserted, then looked up: every key of
 * @keys[0..n) gets its id; a run holding one series twice is -EEXIST.
 */
static int insert_series(struct db *db, struct history_key *keys, size_t n, const char *key)
{
	size_t *todo = malloc((n ? n : 1) * sizeof(*todo));
	struct history_key **by_id = malloc((n ? n : 1) * sizeof(*by_id));
	size_t i, n_todo = 0;
	int ret = 0;

	if (!todo || !by_id) {
		ret = ksftm_fail(ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++)
		if (!keys[i].id)
			todo[n_todo++] = i;
	if (n_todo && ((ret = history_series_pass(db, keys, n, todo, n_todo, 1)) ||
		       (ret = history_series_pass(db, keys, n, todo, n_todo, 0))))
		goto out;
	for (i = 0; i < n; i++) {
		if (!keys[i].id) {
			ret = ksftm_fail(EIO, "history database lost a series row");
			goto out;
		}
		by_id[i] = &keys[i];
	}
	qsort(by_id, n, sizeof(*by_id), cmp_key_id);
	for (i = 1; i < n && !ret; i++)
		if (by_id[i]->id == by_id[i - 1]->id)
			ret = ksftm_fail(EEXIST, "run %s holds series %s/%s %s twice", key,
					 by_id[i]->case_name, by_id[i]->metric, by_id[i]->labels);
out:
	free(by_id);
	free(todo);
	return ret;
}

/* The run's result rows, INGEST_CHUNK per INSERT. */
static int insert_results(struct db *db, const struct ingest_item *items,
			  const struct history_key *keys, size_t n, const char *run_id, const char *cmp, const char *order, int incomparable,
			  const unsigned char *verdicts)
{
	const char **p = calloc(INGEST_CHUNK * 14, sizeof(*p));
	char (*num)[64] = calloc(INGEST_CHUNK, sizeof(*num));
	size_t k, from, m, sql_m = 0;
	char *sql = NULL;
	int ret = 0;

	if (!p || !num) {
		ret = ksftm_fail(ENOMEM, "out of memory");
		goto out;
	}
	for (from = 0; from < n && !ret; from += m) {
		const char *text;

		m = n - from < history_chunk_of(db) ? n - from : history_chunk_of(db);
		for (k = 0; k < m; k++) {
			const struct ingest_item *it = &items[from + k];
			const char *verdict = history_verdict_name(verdicts[from + k]);
			const char **q = p + 14 * k;
			char *v = num[k], *sid = num[k] + 40, *usable = num[k] + 62;

			snprintf(v, 40, "%.17g", it->row.value);
			snprintf(sid, 22, "%lld", keys[from + k].id);
			/* Only measurements, on a comparable machine and not judged
			 * a regression (nor measured on a disturbed machine), feed
			 * baselines. */
			usable[0] = history_status_measured(it->s.status) && !incomparable &&
				    strcmp(verdict, KSFTM_VERDICT_REGRESSION) &&
				    strcmp(verdict, KSFTM_VERDICT_DISTURBED) ? '1' : '0';
			usable[1] = '\0';
			q[0] = run_id;
			q[1] = sid;
			q[2] = cmp;
			q[3] = order;
			q[4] = usable;
			q[5] = it->s.status;
			q[6] = it->s.shape;
			q[7] = it->s.policy_json;
			q[8] = it->s.compare;
			q[9] = it->s.better;
			q[10] = it->row.has_value ? v : NULL;
			q[11] = it->row.samples;
			q[12] = it->row.summary;
			q[13] = verdict;
		}
		text = history_multi_values_of(&sql, &sql_m, "INSERT INTO ksftm_results (run_id, series_id,"
				       " comparable, run_order, usable, status, shape, policy,"
				       " compare_op, better, value, samples, summary, verdict)"
				       " VALUES ", m, 14, 0, "");
		ret = text ? db_query(db, text, p, (int)(14 * m), NULL) :
			     ksftm_fail(ENOMEM, "out of memory");
	}
out:
	free(sql);
	free(p);
	free(num);
	return ret;
}

int history_ingest(struct history *h, const struct ksft_metric_report *r,
		   const struct history_run *run, char **run_key_out)
{
	struct db *db = h->db;
	struct db_rows *rows = NULL;
	json_t *ctx_json = NULL;
	struct ksft_metric_report_comparison *judged = NULL;
	unsigned char *verdicts = NULL;
	struct ingest_item *items = NULL;
	struct history_key *series = NULL;
	char now[32], *ctx = NULL, *keys = NULL, *cmp = NULL, *key = NULL, *run_id = NULL;
	char *order = NULL, *sort = NULL;
	size_t n = ksft_metric_report_series_count(r);
	int ret, incomparable;

	if (run_key_out)
		*run_key_out = NULL;
	if ((ret = history_writable(h)) || (ret = history_check_text("run id", run->run_key)) ||
	    (ret = history_check_text("order", run->order)) ||
	    (run->order && (ret = history_order_normalise("order", run->order, &order))) ||
	    (ret = history_run_context(r, run, &ctx_json)))
		goto out;
	ctx = dump(ctx_json);
	if (!ctx) {
		ret = ksftm_fail(ENOMEM, "out of memory");
		goto out;
	}
	utc_now(now, sizeof(now));
	key = run->run_key ? strdup(run->run_key) : history_content_key(r, ctx, order);
	if (!key) {
		ret = ksftm_fail(ENOMEM, "out of memory");
		goto out;
	}

	if ((ret = db_begin_write(db)))
		goto out;
	if ((ret = meta_get(db, "comparable_keys", &keys)))
		goto fail;
	ctx_json = json_loads(ctx, 0, NULL);
	cmp = history_comparable(ctx_json, keys ? keys : default_comparable);
	incomparable = history_context_incomparable(ctx_json);
	/* No --order: the run's own time, else the database's clock (not
	 * before the newest run of these machines), read under the write lock
	 * so that runs ingested one after the other follow each other (never
	 * tied at one second, never a client's clock). The run id breaks ties
	 * of equal orders. */
	if (!cmp) {
		json_decref(ctx_json);
		ret = ksftm_fail(ENOMEM, "out of memory");
		goto fail;
	}
	if (!order && (ret = history_order_default(db, ctx_json, cmp, &order))) {
		json_decref(ctx_json);
		goto fail;
	}
	json_decref(ctx_json);
	if (!(sort = history_order_key(order, key))) {
		ret = ksftm_fail(ENOMEM, "out of memory");
		goto fail;
	}
	/* The run's series and the ids of those the history has: the gate
	 * judges with them, and only the others are inserted. */
	if ((ret = prepare_series(db, r, n, &items, &series)))
		goto fail;
	/* Judge the run against the runs before it, as compare would: a
	 * regression is kept but stays out of later windows until accepted. */
	{
		struct hgate_opts o = { cmp, sort, incomparable,
					run->window, run->fdr, 1 };

		ret = hgate_compare_keys(db, r, &o, series, &judged);
		if (ret < 0)
			goto fail;
		ret = 0;
	}
	if (!(verdicts = history_series_verdicts(judged, n))) {
		ret = ksftm_fail(ENOMEM, "out of memory");
		goto fail;
	}
	{
		const char *p[5] = { key, sort, ctx, cmp, now };

		ret = db_query(db, "INSERT INTO ksftm_runs (run_key, run_order, context, comparable,"
			       " ingested) VALUES ($1, $2, $3, $4, $5) RETURNING id", p, 5, &rows);
		if (ret == -EEXIST)
			ret = ksftm_fail(EEXIST, "run %s is already in the history", key);
		if (ret)
			goto fail;
		run_id = db_rows_get(rows, 0, 0) ? strdup(db_rows_get(rows, 0, 0)) : NULL;
		db_rows_free(rows);
		rows = NULL;
		if (!run_id) {
			ret = ksftm_fail(ENOMEM, "out of memory");
			goto fail;
		}
	}
	if ((ret = insert_series(db, series, n, key)) ||
	    (ret = insert_results(db, items, series, n, run_id, cmp, sort, incomparable,
				  verdicts)))
		goto fail;
	/* Runs of these machines ordered after this one were judged without
	 * it: judged again, so that no verdict depends on the ingest order. */
	if ((ret = history_rejudge_later(db, cmp, sort, run, series, n)))
		goto fail;
	if ((ret = db_commit(db)))
		goto fail;
	ret = (int)n;
	if (run_key_out) {
		*run_key_out = key;
		key = NULL;
	}
	goto out;
fail:
	db_rollback(db);
out:
	ksft_metric_report_comparison_free(judged);
	free(verdicts);
	items_free(items, n);
	free(series);
	db_rows_free(rows);
	free(run_id);
	free(keys);
	free(cmp);
	free(ctx);
	free(key);
	free(order);
	free(sort);
	return ret;
}
