/* The run history's schema and ingest (history.h). */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "errmsg.h"
#include "history.h"

struct history {
	struct db *db;
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
	"CREATE INDEX IF NOT EXISTS ksftm_results_window"
	" ON ksftm_results (series_id, comparable, usable, run_order);"
	"CREATE INDEX IF NOT EXISTS ksftm_results_run ON ksftm_results (run_id);"
	"CREATE INDEX IF NOT EXISTS ksftm_runs_order ON ksftm_runs (comparable, run_order);";

/*
 * Context keys that make two runs comparable by default: the same machine
 * (as the run context line describes it) and the same CI runner/device when
 * the CI names one. Changing kernels are what is being compared, so
 * "kernel" is not among them. Stored in ksftm_meta, so one history keeps
 * one rule.
 */
static const char default_comparable[] = "[\"arch\",\"cpu_count\",\"cpu_model\","
					 "\"device\",\"hostname\",\"runner\"]";

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
	if (db_rows_count(rows) && db_rows_get(rows, 0, 0))
		*value = strdup(db_rows_get(rows, 0, 0));
	db_rows_free(rows);
	return 0;
}

static int create_schema(struct db *db)
{
	int pg = db_dialect(db) == DB_POSTGRESQL;
	const char *autoinc = pg ? "BIGSERIAL PRIMARY KEY" : "INTEGER PRIMARY KEY";
	char sql[sizeof(schema_v1_common) + 64];
	char *version = NULL;
	int ret;

	if ((ret = db_begin_write(db)))
		return ret;
	/* Two first ingests at once both create: serialise them (SQLite's
	 * BEGIN IMMEDIATE already has). */
	if (pg && (ret = db_exec(db, "SELECT pg_advisory_xact_lock(4242424242)")))
		goto fail;
	if ((ret = db_exec(db, "CREATE TABLE IF NOT EXISTS ksftm_meta"
			       " (key TEXT PRIMARY KEY, value TEXT NOT NULL)")))
		goto fail;
	if ((ret = meta_get(db, "schema_version", &version)))
		goto fail;
	if (version) {
		long v = strtol(version, NULL, 10);

		free(version);
		if (v > HISTORY_SCHEMA_VERSION) {
			ret = ksftm_fail(EPROTO, "history database has schema version %ld; this "
					 "ksft-metric knows up to %d (upgrade it)", v,
					 HISTORY_SCHEMA_VERSION);
			goto fail;
		}
		/* Version 1 is the first: nothing to migrate yet. A later
		 * version adds its steps here, each in this transaction. */
		db_rollback(db);
		return 0;
	}
	snprintf(sql, sizeof(sql), schema_v1_common, autoinc, autoinc);
	if ((ret = db_exec(db, sql)))
		goto fail;
	{
		const char *p[2] = { "schema_version", "1" };
		const char *q[2] = { "comparable_keys", default_comparable };
		static const char ins[] = "INSERT INTO ksftm_meta (key, value) VALUES ($1, $2)";

		if ((ret = db_query(db, ins, p, 2, NULL)) || (ret = db_query(db, ins, q, 2, NULL)))
			goto fail;
	}
	return db_commit(db);
fail:
	db_rollback(db);
	return ret;
}

int history_open(const char *url, struct history **out)
{
	struct history *h;
	int ret;

	*out = NULL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return ksftm_fail(ENOMEM, "out of memory");
	ret = db_open(url, &h->db);
	if (!ret)
		ret = create_schema(h->db);
	if (ret) {
		history_close(h);
		return ret;
	}
	*out = h;
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

/* A finite double as JSON (null for NaN: a missing value). */
static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* The run's context: the logs' context lines, then the CI's KEY=VALUE
 * items over them (the collector knows the commit and runner best). */
static int build_context(const struct ksft_metric_report *r, const struct history_run *run,
			 json_t **out)
{
	json_t *ctx = json_loads(ksft_metric_report_context_json(r), 0, NULL);
	size_t i;

	if (!json_is_object(ctx)) {
		json_decref(ctx);
		ctx = json_object();
	}
	if (!ctx)
		return ksftm_fail(ENOMEM, "out of memory");
	for (i = 0; i < run->n_context; i++) {
		const char *item = run->context[i], *eq = item ? strchr(item, '=') : NULL;
		char *key;

		if (!eq || eq == item) {
			json_decref(ctx);
			return ksftm_fail(EINVAL, "context item \"%s\" is not KEY=VALUE",
					  item ? item : "(null)");
		}
		key = strndup(item, (size_t)(eq - item));
		if (!key || json_object_set_new(ctx, key, json_string(eq + 1))) {
			int bad_utf8 = key != NULL;

			free(key);
			json_decref(ctx);
			return bad_utf8 ? ksftm_fail(EINVAL, "context item \"%s\" is not valid UTF-8", item)
					: ksftm_fail(ENOMEM, "out of memory");
		}
		free(key);
	}
	*out = ctx;
	return 0;
}

/* The comparability key: the values of the comparable keys present. */
static char *comparable_of(json_t *ctx, const char *keys_json)
{
	json_t *keys = json_loads(keys_json, 0, NULL), *cmp = json_object(), *k;
	size_t i;

	json_array_foreach(keys, i, k) {
		json_t *v = json_object_get(ctx, json_string_value(k));

		if (json_is_string(k) && v)
			json_object_set(cmp, json_string_value(k), v);
	}
	json_decref(keys);
	return dump(cmp);
}

/* Everything of one series the history keeps, as JSON/text columns. */
struct series_row {
	char *path, *samples, *summary;
	double value;
	int has_value;
};

static int series_row(const struct ksft_metric_report *r, size_t i,
		      const struct ksft_metric_report_series *s, struct series_row *row)
{
	static const char *const ops[] = { "last", "total", "max", "p50", "p90", "p99" };
	struct ksft_metric_report_values v = { 0 };
	json_t *path = json_array(), *samples = json_array(), *summary = json_object();
	const char *cmp = s->compare ? s->compare : "p50";
	size_t k, e;
	int ret, n;

	memset(row, 0, sizeof(*row));
	for (k = 0; k < s->path_len; k++)
		json_array_append_new(path, json_string(s->path[k]));
	ret = ksft_metric_report_series_values(r, i, KSFT_METRIC_REPORT_PROCESSED, &v);
	if (ret)
		goto out;
	for (k = 0; k < v.n; k++) {
		if (v.width == 1) {
			json_array_append_new(samples, num(v.v[k]));
		} else {
			json_t *a = json_array();

			for (e = 0; e < v.width; e++)
				json_array_append_new(a, num(v.v[k * v.width + e]));
			json_array_append_new(samples, a);
		}
	}
	for (k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
		double one[1];
		double *all = one;

		n = ksft_metric_report_series_summary(r, i, ops[k], one, 1);
		if (n < 0) {
			ret = n;
			goto out;
		}
		if (n > 1) {	/* an array series: one value per element */
			json_t *a = json_array();

			all = malloc((size_t)n * sizeof(double));
			if (!all) {
				json_decref(a);
				ret = ksftm_fail(ENOMEM, "out of memory");
				goto out;
			}
			ksft_metric_report_series_summary(r, i, ops[k], all, (size_t)n);
			for (e = 0; e < (size_t)n; e++)
				json_array_append_new(a, num(all[e]));
			free(all);
			json_object_set_new(summary, ops[k], a);
		} else if (n == 1) {
			json_object_set_new(summary, ops[k], num(one[0]));
			if (!strcmp(ops[k], cmp) && isfinite(one[0])) {
				row->value = one[0];
				row->has_value = 1;
			}
		}
	}
	row->path = dump(path);
	row->samples = dump(samples);
	row->summary = dump(summary);
	path = samples = summary = NULL;
	if (!row->path || !row->samples || !row->summary)
		ret = ksftm_fail(ENOMEM, "out of memory");
out:
	json_decref(path);
	json_decref(samples);
	json_decref(summary);
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
static char *content_key(const struct ksft_metric_report *r, const char *ctx)
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

int history_ingest(struct history *h, const struct ksft_metric_report *r,
		   const struct history_run *run, char **run_key_out)
{
	struct ksft_metric_report_series s;
	struct db *db = h->db;
	struct db_rows *rows = NULL;
	json_t *ctx_json = NULL;
	char now[32], *ctx = NULL, *keys = NULL, *cmp = NULL, *key = NULL, *run_id = NULL;
	size_t i, n = ksft_metric_report_series_count(r);
	int ret;

	if (run_key_out)
		*run_key_out = NULL;
	if ((ret = build_context(r, run, &ctx_json)))
		return ret;
	ctx = dump(ctx_json);
	if (!ctx)
		return ksftm_fail(ENOMEM, "out of memory");
	utc_now(now, sizeof(now));
	key = run->run_key ? strdup(run->run_key) : content_key(r, ctx);
	if (!key) {
		free(ctx);
		return ksftm_fail(ENOMEM, "out of memory");
	}

	if ((ret = db_begin_write(db)))
		goto out;
	if ((ret = meta_get(db, "comparable_keys", &keys)))
		goto fail;
	ctx_json = json_loads(ctx, 0, NULL);
	cmp = comparable_of(ctx_json, keys ? keys : default_comparable);
	json_decref(ctx_json);
	if (!cmp) {
		ret = ksftm_fail(ENOMEM, "out of memory");
		goto fail;
	}
	{
		const char *p[5] = { key, run->order ? run->order : now, ctx, cmp, now };

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
	for (i = 0; i < n; i++) {
		struct series_row row;
		char value[40], usable[2];
		const char *sid;

		memset(&s, 0, sizeof(s));
		s.sz = sizeof(s);
		if ((ret = ksft_metric_report_series_get(r, i, &s)) ||
		    (ret = series_row(r, i, &s, &row)))
			goto fail;
		{
			const char *p[4] = { row.path, s.case_name, s.name, s.labels_json };

			ret = db_query(db, "INSERT INTO ksftm_series (path, case_name, metric, labels)"
				       " VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING", p, 4, NULL);
			if (!ret)
				ret = db_query(db, "SELECT id FROM ksftm_series WHERE path = $1 AND"
					       " case_name = $2 AND metric = $3 AND labels = $4",
					       p, 4, &rows);
		}
		if (ret || !(sid = db_rows_get(rows, 0, 0))) {
			series_row_free(&row);
			ret = ret ? ret : ksftm_fail(EIO, "history database lost a series row");
			goto fail;
		}
		snprintf(value, sizeof(value), "%.17g", row.value);
		/* Only cases that passed feed baselines. */
		snprintf(usable, sizeof(usable), "%d", !strcmp(s.status, "pass"));
		{
			const char *p[13] = { run_id, sid, cmp, run->order ? run->order : now,
					      usable, s.status, s.shape, s.policy_json, s.compare,
					      s.better, row.has_value ? value : NULL, row.samples,
					      row.summary };

			ret = db_query(db, "INSERT INTO ksftm_results (run_id, series_id, comparable,"
				       " run_order, usable, status, shape, policy, compare_op, better,"
				       " value, samples, summary) VALUES ($1, $2, $3, $4, $5, $6, $7,"
				       " $8, $9, $10, $11, $12, $13)", p, 13, NULL);
		}
		db_rows_free(rows);
		rows = NULL;
		series_row_free(&row);
		if (ret == -EEXIST)
			ret = ksftm_fail(EEXIST, "run %s holds series %s/%s %s twice", key,
					 s.case_name, s.name, s.labels_json);
		if (ret)
			goto fail;
	}
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
	db_rows_free(rows);
	free(run_id);
	free(keys);
	free(cmp);
	free(ctx);
	free(key);
	return ret;
}
