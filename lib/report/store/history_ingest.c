/*
 * The run history's ingest, the storing steps (history_ingest.h): a run
 * and its series prepared, then stored in one transaction with the
 * verdicts judge/history_record.c had the gate give them.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <time.h>
#include <ksftmetric/report.h>

#include "errmsg.h"
#include "float_repr.h"
#include "history.h"
#include "history_content_key.h"
#include "history_context.h"
#include "history_schema.h"
#include "history_sql.h"
#include "canon.h"
#include "pipeline.h"
#include "report.h"
#include "report_summaries.h"
#include "rp.h"
#include "rp_policy.h"
#include "strbuf.h"
#include "history_ingest.h"

/* Everything of one series the history keeps, as JSON/text columns. */
struct series_row {
	char *path, *samples, *summary;
	double value;
	int has_value;
	int has_first, width;	/* history_key's */
	double first;
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

/*
 * What ksft_metric_report_series_summary() by the gate's statistic gives
 * (@n, the first of @sums), kept for the gate's reader, which would
 * summarise the series again (history_window_read.c).
 */
static void gate_first(const struct ksft_metric_report_series *s, const struct rp_summary *sums,
		       int n, struct series_row *row)
{
	const char *op;
	double rel_tol, abs_tol;
	int better, code;

	rp_policy_gate_of(s, &op, &better, &rel_tol, &abs_tol);
	code = op ? canon_op_parse(op, 0) : RP_OP_NONE;
	if (!code)
		return;		/* the reader says why */
	row->has_first = 1;
	row->width = n;
	row->first = n > 0 && sums ? pipeline_summary_op(&sums[0], code) : NAN;
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
	struct strbuf summary = STRBUF_INIT;
	struct rp_summary *sums = NULL;
	const char *cmp = s->compare ? s->compare : "p50";
	size_t k, e;
	int ret, n, first = 1;

	memset(row, 0, sizeof(*row));
	/* The samples as stored, which the run's content key hashes too. */
	ret = history_content_key_samples(r, i, &row->samples);
	if (ret)
		goto out;
	n = report_series_summaries(r, i, &sums);
	if (n < 0) {
		ret = n;
		goto out;
	}
	gate_first(s, sums, n, row);
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
				put_num(&summary, pipeline_summary_op(&sums[e], code));
			}
			strbuf_addc(&summary, ']');
		} else {
			double one = pipeline_summary_op(&sums[0], code);

			put_num(&summary, one);
			if (!strcmp(ops[k].name, cmp) && isfinite(one)) {
				row->value = one;
				row->has_value = 1;
			}
		}
	}
	strbuf_addc(&summary, '}');
	row->path = history_path_json(s->path, s->path_len);
	if (!summary.oom)
		row->summary = strbuf_detach(&summary, NULL);
	if (!row->path || !row->samples || !row->summary)
		ret = ksftm_oom();
out:
	free(sums);
	strbuf_free(&summary);
	return ret;
}

static void series_row_free(struct series_row *row)
{
	free(row->path);
	free(row->samples);
	free(row->summary);
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
 * The error quotes it neutralised (canon_text_dup()).
 */
int history_check_text(const char *field, const char *s)
{
	int control = 0;
	long at = s ? canon_text_bad_at(s, strlen(s), &control) : -1;
	char *shown;
	int ret;

	if (at < 0)
		return 0;
	shown = canon_text_dup(s, strlen(s));
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
 * them, and @keys (allocated) with their identities (the ids of those the
 * history has are looked up in the transaction; the gate judges with
 * them).
 */
static int prepare_series(const struct ksft_metric_report *r, size_t n,
			  struct ingest_item **items_out, struct history_key **keys_out)
{
	struct ingest_item *items = calloc(n ? n : 1, sizeof(*items));
	struct history_key *keys = calloc(n ? n : 1, sizeof(*keys));
	size_t i;
	int ret = 0;

	*items_out = items;
	*keys_out = keys;
	if (!items || !keys)
		return ksftm_oom();
	for (i = 0; i < n; i++) {
		items[i].s.sz = sizeof(items[i].s);
		if ((ret = ksft_metric_report_series_get(r, i, &items[i].s)) ||
		    (ret = series_row(r, i, &items[i].s, &items[i].row)))
			return ret;
		keys[i] = (struct history_key){ items[i].row.path, items[i].s.case_name,
						items[i].s.name, items[i].s.labels_json, 0,
						items[i].row.has_first, items[i].row.width,
						items[i].row.first };
	}
	return 0;
}

/* The run's content key from its prepared rows (history_content_key.h). */
static void content_key(struct history_ingest *in)
{
	struct history_content_key k;
	size_t i;

	history_content_key_init(&k);
	for (i = 0; i < in->n; i++)
		history_content_key_series(&k, in->items[i].row.path, in->items[i].s.case_name,
					   in->items[i].s.name, in->items[i].s.labels_json,
					   in->items[i].row.samples);
	history_content_key_end(&k, in->ctx, in->content);
}

/*
 * The run stored already: -EALREADY naming it (in->dup_key), else 0. Without
 * a run id from the CI, any run of its content key; with one, that run if
 * its content is the same (a CI that names a new run with the same numbers
 * and context, a deterministic measurement, is believed; doc/decisions.rst).
 */
static int already_there(struct history_ingest *in)
{
	struct db_rows *rows = NULL;
	const char *p[2] = { in->content, in->run->run_key };
	int ret = db_query(in->db, "SELECT run_key FROM ksftm_runs WHERE content_key = $1"
			   " AND (CAST($2 AS TEXT) IS NULL OR run_key = $2) ORDER BY id LIMIT 1",
			   p, 2, &rows);

	if (!ret && db_rows_count(rows) && db_rows_get(rows, 0, 0)) {
		in->dup_key = strdup(db_rows_get(rows, 0, 0));
		ret = in->dup_key ?
		      ksftm_fail(EALREADY, "this run is already in the history as run %s (the same"
				 " context and series: %s)", in->dup_key, in->content) :
		      ksftm_oom();
	}
	db_rows_free(rows);
	return ret;
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
		ret = ksftm_oom();
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

/*
 * The run's result rows, INGEST_CHUNK per INSERT; on SQLite
 * INGEST_LITE_CHUNK, the rest one by one (two statements prepared once
 * each: a statement of another size would be prepared again). Numbers
 * bound as numbers (db_query_values()), so SQLite converts no text to
 * them. On SQLite "OR FAIL": a failed row ends the statement without
 * undoing its earlier rows, so SQLite keeps no statement journal (a
 * temporary file: the pages each INSERT changes, written there first,
 * two thirds of an ingest's writes, issue 45); any failure rolls the
 * whole write transaction back (history_ingest_end()), so nothing of it
 * is kept either way.
 */
static int insert_results(struct db *db, const struct ingest_item *items,
			  const struct history_key *keys, size_t n, long long run_id, const char *cmp,
			  const char *order, int incomparable,
			  const char *const *verdicts)
{
	struct db_value *p = calloc(INGEST_CHUNK * 14, sizeof(*p));
	int lite = db_dialect(db) == DB_SQLITE;
	size_t chunk = lite ? INGEST_LITE_CHUNK : INGEST_CHUNK;
	size_t k, from, m, sql_m = 0;
	char *sql = NULL;
	int ret = 0;

	if (!p) {
		ret = ksftm_oom();
		goto out;
	}
	for (from = 0; from < n && !ret; from += m) {
		const char *text;

		m = n - from >= chunk ? chunk : lite ? 1 : n - from;
		for (k = 0; k < m; k++) {
			const struct ingest_item *it = &items[from + k];
			const char *verdict = verdicts[from + k];
			struct db_value *q = p + 14 * k;

			q[0] = db_int(run_id);
			q[1] = db_int(keys[from + k].id);
			q[2] = db_text(cmp);
			q[3] = db_text(order);
			/* Only measurements, on a comparable machine and not judged
			 * a regression (nor measured on a disturbed machine), feed
			 * baselines. */
			q[4] = db_int(history_status_measured(it->s.status) && !incomparable &&
				      strcmp(verdict, KSFTM_VERDICT_REGRESSION) &&
				      strcmp(verdict, KSFTM_VERDICT_DISTURBED));
			q[5] = db_text(it->s.status);
			q[6] = db_text(it->s.shape);
			q[7] = db_text(it->s.policy_json);
			q[8] = db_text(it->s.compare);
			q[9] = db_text(it->s.better);
			q[10] = it->row.has_value ? db_real(it->row.value) : db_text(NULL);
			q[11] = db_text(it->row.samples);
			q[12] = db_text(it->row.summary);
			q[13] = db_text(verdict);
		}
		text = history_multi_values_of(&sql, &sql_m, lite ? "INSERT OR FAIL INTO ksftm_results"
				       " (run_id, series_id,"
				       " comparable, run_order, usable, status, shape, policy,"
				       " compare_op, better, value, samples, summary, verdict)"
				       " VALUES " : "INSERT INTO ksftm_results (run_id, series_id,"
				       " comparable, run_order, usable, status, shape, policy,"
				       " compare_op, better, value, samples, summary, verdict)"
				       " VALUES ", m, 14, 0, "");
		ret = text ? db_query_values(db, text, p, (int)(14 * m), NULL) :
			     ksftm_oom();
	}
out:
	free(sql);
	free(p);
	return ret;
}

int history_ingest_prepare(struct history_ingest *in, struct history *h,
			   const struct ksft_metric_report *r, const struct history_run *run)
{
	json_t *ctx_json = NULL;
	int ret;

	memset(in, 0, sizeof(*in));
	in->h = h;
	in->db = history_db(h);
	in->r = r;
	in->run = run;
	in->n = ksft_metric_report_series_count(r);
	if ((ret = history_writable(h)) || (ret = history_check_text("run id", run->run_key)) ||
	    (ret = history_check_text("order", run->order)) ||
	    (run->order && (ret = run_order_normalise("order", run->order, &in->order))) ||
	    (ret = history_run_context(r, run, &ctx_json)))
		return ret;
	in->ctx = history_context_text(ctx_json);
	if (!in->ctx)
		return ksftm_oom();
	utc_now(in->now, sizeof(in->now));
	if ((ret = prepare_series(r, in->n, &in->items, &in->series)))
		return ret;
	content_key(in);
	/* No run id from the CI: the content key is the run's id. */
	if (!(in->key = strdup(run->run_key ? run->run_key : in->content)))
		return ksftm_oom();
	return 0;
}

int history_ingest_begin(struct history_ingest *in)
{
	struct db *db = in->db;
	json_t *ctx_json;
	int ret;

	/* Its results reference the run it inserts and series it looks up
	 * or inserts, under the write lock: no foreign key to check. */
	if ((ret = db_begin_write_trusted(db)))
		return ret;
	in->in_tx = 1;
	/* A retry of a stored run (a new --order, none, another id): the
	 * same content is recognised, never stored twice (issue 40). */
	if ((ret = already_there(in)) ||
	    (ret = history_schema_meta_get(db, "comparable_keys", &in->keys)))
		return ret;
	ctx_json = json_loads(in->ctx, 0, NULL);
	in->cmp = history_comparable(ctx_json, in->keys ? in->keys : history_context_default_keys);
	in->incomparable = history_context_incomparable(ctx_json);
	/* No --order: the run's own time, else the database's clock (not
	 * before the newest run of these machines), read under the write lock
	 * so that runs ingested one after the other follow each other (never
	 * tied at one second, never a client's clock). The run id breaks ties
	 * of equal orders. */
	if (!in->cmp) {
		json_decref(ctx_json);
		return ksftm_oom();
	}
	if (!in->order && (ret = run_order_default(db, ctx_json, in->cmp, &in->order))) {
		json_decref(ctx_json);
		return ret;
	}
	json_decref(ctx_json);
	if (!(in->sort = run_order_key(in->order, in->key)))
		return ksftm_oom();
	/* The ids of the run's series the history has: the gate judges with
	 * them, and only the others are inserted. */
	if ((ret = history_series_lookup(db, in->series, NULL, in->n)))
		return ret;
	/* Ingest keeps the verdicts of the run's own series: the series it
	 * lacks (their rows, allowed) are not read (issue 45: a tenth of an
	 * ingest). */
	in->gate = (struct hgate_opts){ .comparable = in->cmp, .order = in->sort,
					.incomparable = in->incomparable,
					.window = in->run->window, .fdr = in->run->fdr,
					.allow_missing = 1, .windows_only = 1,
					.verdicts_only = 1 };
	return 0;
}

int history_ingest_store(struct history_ingest *in, const char *const *verdicts)
{
	struct db *db = in->db;
	struct db_rows *rows = NULL;
	const char *p[6] = { in->key, in->sort, in->ctx, in->cmp, in->now, in->content };
	int ret;

	ret = db_query(db, "INSERT INTO ksftm_runs (run_key, run_order, context, comparable,"
		       " ingested, content_key) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
		       p, 6, &rows);
	if (ret == -EEXIST)
		ret = ksftm_fail(EEXIST, "run %s is already in the history", in->key);
	if (!ret) {
		if (!db_rows_int64(rows, 0, 0, &in->run_id))
			ret = ksftm_fail(EIO, "history database %s: no id for run %s",
					 db_name(db), in->key);
	}
	db_rows_free(rows);
	if (!ret)
		ret = insert_series(db, in->series, in->n, in->key);
	if (!ret)
		ret = insert_results(db, in->items, in->series, in->n, in->run_id, in->cmp,
				     in->sort, in->incomparable, verdicts);
	return ret;
}

int history_ingest_commit(struct history_ingest *in, char **run_key_out)
{
	int ret = db_commit(in->db);

	if (ret)
		return ret;
	in->in_tx = 0;
	if (run_key_out) {
		*run_key_out = in->key;
		in->key = NULL;
	}
	return (int)in->n;
}

void history_ingest_end(struct history_ingest *in)
{
	if (in->in_tx)
		db_rollback(in->db);
	items_free(in->items, in->n);
	free(in->series);
	free(in->keys);
	free(in->cmp);
	free(in->ctx);
	free(in->key);
	free(in->dup_key);
	free(in->order);
	free(in->sort);
	memset(in, 0, sizeof(*in));
}
