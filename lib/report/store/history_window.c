/*
 * The rows the history gate judges, read from the history
 * (history_window.h). Every window is one index range scan
 * (ksftm_results_window), so the cost follows the run's size and N, not
 * the history's length; on PostgreSQL, BATCH series share a round trip.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "grow.h"
#include "history.h"
#include "history_sql.h"
#include "history_window.h"
#include "window_rule.h"
#include "strbuf.h"

static const char window_sql[] = HISTORY_WINDOW_SQL;
static const char missing_sql[] = HISTORY_MISSING_SQL;
/* On SQLite without ksftm_results_series (history_sql.h). */
static const char shift_merged_sql[] = HISTORY_SHIFT_MERGED_SQL;
static const char shift_sql[] = HISTORY_SHIFT_SQL;

/* Where a series' accepted level starts. */
struct history_window_level {
	long long id;
	const char *order;
};

#define BATCH 256

static int cmp_level(const void *a, const void *b)
{
	const struct history_window_level *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* The order where series @id's accepted level starts, or NULL. */
const char *history_window_level(const struct history_window *w, long long id)
{
	struct history_window_level key = { id, NULL }, *lv;

	if (!w->n_levels)
		return NULL;
	lv = bsearch(&key, w->levels, w->n_levels, sizeof(*lv), cmp_level);
	return lv ? lv->order : NULL;
}

/* The pinned order that ends series @id's window, or NULL: a level
 * accepted after the latest pinned run wins over it (history_triage.c),
 * so pin and accept never leave a series with an empty window. */
const char *history_window_pin(const struct history_window *w, long long id)
{
	const char *lvl = history_window_level(w, id);

	return w->pinned && lvl && strcmp(lvl, w->pinned) > 0 ? NULL : w->pinned;
}

/* Has the history any result of series @id on such machines before the run? */
static int has_any(struct db *db, long long id, const char *cmp, const char *order, int *any)
{
	struct db_value p[3] = { db_int(id), db_text(cmp), db_text(order) };
	struct db_rows *rows;
	int ret = db_query_values(db, HISTORY_HAS_ANY_SQL, p, 3, &rows);

	if (!ret) {
		*any = db_rows_count(rows) > 0;
		db_rows_free(rows);
	}
	return ret;
}

/*
 * A statement for @n series at once (PostgreSQL): @sel's rows for each
 * series of a VALUES list (k: its index, sid: its id, lvl: where its level
 * starts), through LATERAL, so each is the one-series query's index range
 * scan; ordered by k, then newest first. @sel's own parameters are
 * $1..$@n_params; each series adds three after them.
 */
static char *batch_sql(const char *sel, size_t n, int n_params)
{
	struct strbuf sb = STRBUF_INIT;
	char one[96];
	size_t k;

	strbuf_adds(&sb, "SELECT v.k, w.* FROM (VALUES ");
	for (k = 0; k < n; k++) {
		snprintf(one, sizeof(one), "%s(CAST($%zu AS INTEGER), CAST($%zu AS BIGINT),"
			 " CAST($%zu AS TEXT))", k ? ", " : "", (size_t)n_params + 3 * k + 1,
			 (size_t)n_params + 3 * k + 2, (size_t)n_params + 3 * k + 3);
		strbuf_adds(&sb, one);
	}
	strbuf_adds(&sb, ") v(k, sid, lvl) CROSS JOIN LATERAL (");
	strbuf_adds(&sb, sel);
	strbuf_adds(&sb, ") w ORDER BY v.k, w.run_order DESC");
	if (sb.oom) {
		strbuf_free(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

static int keep_batch(struct history_window *w, struct db_rows *rows)
{
	int ret = ksftm_grow((void **)&w->batches, &w->cap_batches, w->n_batches + 1,
			     sizeof(*w->batches), 8);

	if (ret) {
		db_rows_free(rows);
		return ksftm_fail(-ret, "out of memory");
	}
	w->batches[w->n_batches++] = rows;
	return 0;
}

/*
 * PostgreSQL: the rows of @sel (run per series with "v.sid" and "v.lvl"
 * for the series' id and level, $1..$@n_params being @params) for the
 * series @idx[0..n), into @out[idx[k]], BATCH series per round trip.
 */
static int fetch_batched(struct history_window *w, const char *sel, const char *const *params,
			 int n_params, const size_t *idx, size_t n, struct history_window_span *out)
{
	const char **p = calloc((size_t)n_params + 3 * BATCH, sizeof(*p));
	char (*num)[48] = calloc(BATCH, sizeof(*num));
	size_t from, m, k, r;
	int ret = 0;

	if (!p || !num)
		ret = ksftm_oom();
	for (from = 0; from < n && !ret; from += m) {
		struct db_rows *rows = NULL;
		char *sql;

		m = n - from < BATCH ? n - from : BATCH;
		memcpy(p, params, (size_t)n_params * sizeof(*p));
		for (k = 0; k < m; k++) {
			size_t i = idx[from + k];

			snprintf(num[k], 24, "%zu", i);
			snprintf(num[k] + 24, 24, "%lld", w->keys[i].id);
			p[n_params + 3 * k] = num[k];
			p[n_params + 3 * k + 1] = num[k] + 24;
			p[n_params + 3 * k + 2] = history_window_level(w, w->keys[i].id);
		}
		sql = batch_sql(sel, m, n_params);
		ret = sql ? db_query(w->db, sql, p, n_params + 3 * (int)m, &rows) :
			    ksftm_oom();
		free(sql);
		if (ret || (ret = keep_batch(w, rows)))
			break;
		for (r = 0; r < db_rows_count(rows);) {
			const char *at = db_rows_get(rows, r, 0);
			size_t i = at ? strtoul(at, NULL, 10) : SIZE_MAX, e = r;

			while (e < db_rows_count(rows) && db_rows_get(rows, e, 0) && at &&
			       !strcmp(db_rows_get(rows, e, 0), at))
				e++;
			if (e == r)
				e++;
			else if (i < ksft_metric_report_series_count(w->r))
				out[i] = (struct history_window_span){ rows, r, e - r, 1, 0 };
			r = e;
		}
	}
	free(p);
	free(num);
	return ret;
}


/* Series @i's window by @q, or by @plain_q (three parameters) when no pin
 * and no level bound it. */
static int window_rows(struct history_window *w, size_t i, const char *q, const char *plain_q,
		       struct history_window_span *out)
{
	const char *pin = history_window_pin(w, w->keys[i].id);
	const char *level = history_window_level(w, w->keys[i].id);
	struct db_value p[5] = { db_int(w->keys[i].id), db_text(w->o->comparable),
				 db_text(w->o->order), db_text(pin), db_text(level) };
	int plain = w->o->order && !pin && !level;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = db_query_values(w->db, plain ? plain_q : q, p, plain ? 3 : 5, &out->rows);
	out->n = db_rows_count(out->rows);
	out->owned = 1;
	return ret;
}

/* The window of series @i (one query; on PostgreSQL the batch fetched it);
 * @scalar: its values only, not the summaries an array's elements need. */
int history_window_of(struct history_window *w, size_t i, int scalar, struct history_window_span *out)
{
	if (w->win) {
		*out = w->win[i];
		return 0;
	}
	return window_rows(w, i, scalar ? w->scalar_q : w->window_q,
			   scalar ? w->scalar_plain_q : w->window_plain_q, out);
}

int history_window_probe(struct history_window *w, size_t i, struct history_window_span *out)
{
	if (w->win)
		return history_window_of(w, i, 1, out);
	return window_rows(w, i, w->probe_q, w->probe_plain_q, out);
}

/* The batched windows ($1 comparability key, $2 order, $3 pinned order):
 * HISTORY_WINDOW_SQL with the series' id and level from the VALUES list. */
#define BATCH_WINDOW_SQL \
	"SELECT res.value, res.summary, res.compare_op, res.run_order FROM ksftm_results res" \
	" WHERE res.series_id = v.sid AND res.comparable = $1 AND res.usable = 1" \
	" AND (CAST($2 AS TEXT) IS NULL OR res.run_order < $2)" \
	" AND (CAST($3 AS TEXT) IS NULL OR res.run_order <= $3)" \
	" AND res.run_order >= COALESCE(v.lvl, '')" \
	" ORDER BY res.run_order DESC LIMIT %zu"

/* The batched recent runs ($1 comparability key, $2 order): HISTORY_SHIFT_SQL's. */
#define BATCH_SHIFT_SQL \
	HISTORY_SHIFT_COLUMNS \
	" WHERE res.series_id = v.sid AND res.comparable = $1" \
	HISTORY_SHIFT_FILTER \
	" AND (CAST($2 AS TEXT) IS NULL OR res.run_order < $2)" \
	" AND res.run_order >= COALESCE(v.lvl, '')" \
	" ORDER BY res.run_order DESC LIMIT " HISTORY_RECENT_RUNS_SQL

/* The batched HISTORY_HAS_ANY_SQL ($1 comparability key, $2 order): a row if any. */
#define BATCH_HAS_ANY_SQL \
	"SELECT 1 AS one, '' AS run_order FROM ksftm_results res" \
	" WHERE res.series_id = v.sid AND res.comparable = $1" \
	" AND (CAST($2 AS TEXT) IS NULL OR res.run_order < $2) LIMIT 1"

/* PostgreSQL: every known series' window, BATCH series a round trip. */
int history_window_prefetch(struct history_window *w, size_t n)
{
	const char *p[3] = { w->o->comparable, w->o->order, w->pinned };
	char sel[sizeof(BATCH_WINDOW_SQL) + 24];
	size_t *idx, i, m = 0;
	int ret;

	if (db_dialect(w->db) != DB_POSTGRESQL || w->o->incomparable)
		return 0;
	w->win = calloc(n ? n : 1, sizeof(*w->win));
	idx = calloc(n ? n : 1, sizeof(*idx));
	if (!w->win || !idx) {
		free(idx);
		return ksftm_oom();
	}
	snprintf(sel, sizeof(sel), BATCH_WINDOW_SQL, history_window_rule_size(w->o->window));
	/* Those the pin ends, then those whose later level wins over it. */
	for (i = 0; i < n; i++)
		if (w->keys[i].id && history_window_pin(w, w->keys[i].id))
			idx[m++] = i;
	ret = m ? fetch_batched(w, sel, p, 3, idx, m, w->win) : 0;
	for (i = m = 0; i < n; i++)
		if (w->keys[i].id && !history_window_pin(w, w->keys[i].id))
			idx[m++] = i;
	p[2] = NULL;
	if (!ret && m)
		ret = fetch_batched(w, sel, p, 3, idx, m, w->win);
	/* has_any() of the series whose window is empty, batched alike. */
	for (i = m = 0; !ret && i < n; i++)
		if (w->keys[i].id && !w->win[i].n)
			idx[m++] = i;
	if (!ret && !(w->any = calloc(n ? n : 1, sizeof(*w->any))))
		ret = ksftm_oom();
	if (!ret && m)
		ret = fetch_batched(w, BATCH_HAS_ANY_SQL, p, 2, idx, m, w->any);
	free(idx);
	return ret;
}

/* The accepted levels on the run's machines, once (not once per series). */
static int load_levels(struct history_window *w)
{
	const char *p[1] = { w->o->comparable };
	size_t k, n;
	int ret = db_query(w->db, HISTORY_LEVELS_SQL, p, 1, &w->level_rows);

	if (ret || (ret = db_rows_check(w->db, w->level_rows, "ksftm_levels.series_id"
					" ksftm_levels.run_order", 0, NULL)))
		return ret;
	n = db_rows_count(w->level_rows);
	w->levels = calloc(n ? n : 1, sizeof(*w->levels));
	if (!w->levels)
		return ksftm_oom();
	for (k = 0; k < n; k++) {
		db_rows_int64(w->level_rows, k, 0, &w->levels[k].id);
		w->levels[k].order = db_rows_get(w->level_rows, k, 1);
	}
	w->n_levels = n;
	if (n)
		qsort(w->levels, n, sizeof(*w->levels), cmp_level);
	return 0;
}

static int latest_pinned(struct history_window *w, char **out)
{
	const char *p[2] = { w->o->comparable, w->o->order };
	struct db_rows *rows;
	int ret = db_query(w->db, HISTORY_LATEST_PINNED_SQL, p, 2, &rows);

	*out = NULL;
	if (ret)
		return ret;
	if (db_rows_count(rows) && db_rows_get(rows, 0, 0) &&
	    !(*out = strdup(db_rows_get(rows, 0, 0))))
		ret = ksftm_oom();
	db_rows_free(rows);
	return ret;
}

int history_window_keys(const struct ksft_metric_report *r, size_t upto, struct history_key **out)
{
	size_t n = ksft_metric_report_series_count(r);
	struct history_key *keys = calloc(n ? n : 1, sizeof(*keys));

	*out = keys;
	if (!keys)
		return ksftm_oom();
	return history_window_keys_fill(r, keys, 0, upto < n ? upto : n);
}

int history_window_keys_fill(const struct ksft_metric_report *r, struct history_key *keys,
			     size_t from, size_t to)
{
	size_t i;
	int ret = 0;

	for (i = from; i < to && !ret; i++) {
		struct ksft_metric_report_series s = { .sz = sizeof(s) };

		if ((ret = ksft_metric_report_series_get(r, i, &s)))
			break;
		keys[i] = (struct history_key){ history_path_json(s.path, s.path_len), s.case_name,
						s.name, s.labels_json, 0, 0, 0, 0 };
		if (!keys[i].path)
			ret = ksftm_oom();
	}
	return ret;
}

/* @r's series' identities and ids (0: not in the history), one look-up
 * for the run; the paths are the caller's to free. */
int history_window_lookup_keys(struct db *db, const struct ksft_metric_report *r,
		       struct history_key **out)
{
	int ret = history_window_keys(r, SIZE_MAX, out);

	return ret ? ret : history_series_lookup(db, *out, NULL, ksft_metric_report_series_count(r));
}

int history_window_open(struct history_window *w, struct db *db,
			const struct ksft_metric_report *r, const struct hgate_opts *o,
			const struct history_key *keys)
{
	int ret;

	memset(w, 0, sizeof(*w));
	w->db = db;
	w->r = r;
	w->o = o;
	w->keys = keys;
	snprintf(w->window_q, sizeof(w->window_q), o->order ? HISTORY_WINDOW_BEFORE_SQL :
		 window_sql, history_window_rule_size(o->window));
	/* A scalar series reads its window's values only: the summary texts
	 * were most of what a window query copied. Same WHERE. */
	snprintf(w->scalar_q, sizeof(w->scalar_q), o->order ? HISTORY_WINDOW_VALUES_BEFORE_SQL :
		 HISTORY_WINDOW_VALUES_SQL, history_window_rule_size(o->window));
	snprintf(w->window_plain_q, sizeof(w->window_plain_q), HISTORY_WINDOW_PLAIN_SQL,
		 history_window_rule_size(o->window));
	snprintf(w->scalar_plain_q, sizeof(w->scalar_plain_q), HISTORY_WINDOW_VALUES_PLAIN_SQL,
		 history_window_rule_size(o->window));
	snprintf(w->probe_q, sizeof(w->probe_q), o->order ? HISTORY_WINDOW_VALUES_BEFORE_SQL :
		 HISTORY_WINDOW_VALUES_SQL, (size_t)1);
	snprintf(w->probe_plain_q, sizeof(w->probe_plain_q), HISTORY_WINDOW_VALUES_PLAIN_SQL,
		 (size_t)1);
	if ((ret = latest_pinned(w, &w->pinned)))
		return ret;
	return load_levels(w);
}

void history_window_close(struct history_window *w)
{
	size_t i;

	free(w->win);
	free(w->shift);
	free(w->any);
	for (i = 0; i < w->n_batches; i++)
		db_rows_free(w->batches[i]);
	free(w->batches);
	free(w->pinned);
	free(w->levels);
	db_rows_free(w->level_rows);
}

int history_window_has_any(struct history_window *w, size_t i, int *any)
{
	if (w->any) {
		*any = w->any[i].n > 0;
		return 0;
	}
	return has_any(w->db, w->keys[i].id, w->o->comparable, w->o->order, any);
}

int history_window_prefetch_recent(struct history_window *w, const size_t *idx, size_t m)
{
	const char *p[2] = { w->o->comparable, w->o->order };
	size_t n_series = ksft_metric_report_series_count(w->r);

	w->shift = calloc(n_series ? n_series : 1, sizeof(*w->shift));
	if (!w->shift)
		return ksftm_oom();
	return fetch_batched(w, BATCH_SHIFT_SQL, p, 2, idx, m, w->shift);
}

/*
 * The series' recent runs (measurements, on comparable machines, from its
 * accepted level on), whatever the gate said of each: the CUSUM runs over
 * them, and their noise is the series' noise (history_gate.c).
 */
int history_window_recent(struct history_window *w, size_t i, long long id,
			  struct history_window_span *out)
{
	struct db_value p[4] = { db_int(id), db_text(w->o->comparable), db_text(w->o->order),
				 db_text(history_window_level(w, id)) };
	int ret;

	if (w->shift) {
		*out = w->shift[i];
		return 0;
	}
	memset(out, 0, sizeof(*out));
	if ((ret = db_query_values(w->db, db_dialect(w->db) == DB_SQLITE ? shift_merged_sql :
				   shift_sql, p, 4, &out->rows)))
		return ret;
	out->n = db_rows_count(out->rows);
	out->owned = 1;
	return 0;
}

int history_window_before_level(struct history_window *w, long long id,
				struct history_window_span *out)
{
	struct db_value p[4] = { db_int(id), db_text(w->o->comparable),
				 db_text(history_window_level(w, id)), db_text(NULL) };
	int ret;

	memset(out, 0, sizeof(*out));
	if (p[2].type == DB_NULL)
		return 0;
	if ((ret = db_query_values(w->db, db_dialect(w->db) == DB_SQLITE ? shift_merged_sql :
				   shift_sql, p, 4, &out->rows)))
		return ret;
	out->n = db_rows_count(out->rows);
	out->owned = 1;
	return 0;
}

/* Series the recent comparable runs have (the run's are told apart by the
 * gate). */
int history_window_missing(struct history_window *w, struct db_rows **rows)
{
	char sql[sizeof(missing_sql) + 24];
	const char *p[3] = { w->o->comparable, w->o->order, w->pinned };
	int ret;

	snprintf(sql, sizeof(sql), missing_sql, history_window_rule_size(w->o->window));
	if ((ret = db_query(w->db, sql, p, 3, rows)))
		return ret;
	if ((ret = db_rows_check(w->db, *rows, "ksftm_results.series_id ?ksftm_results.better",
				 0, NULL))) {
		db_rows_free(*rows);
		*rows = NULL;
	}
	return ret;
}

int history_window_series(struct history_window *w, long long id, struct db_rows **rows,
			  struct json_t **path, const char ***parts, size_t *m)
{
	struct db_value p[1] = { db_int(id) };
	char where[64];
	int ret;

	snprintf(where, sizeof(where), "ksftm_series.id = %lld", id);
	if ((ret = db_query_values(w->db, "SELECT path, case_name, metric, labels FROM ksftm_series"
				   " WHERE id = $1", p, 1, rows)))
		return ret;
	if (!db_rows_count(*rows)) {
		db_rows_free(*rows);
		*rows = NULL;
		return ksftm_fail(EBADMSG, "history database %s: no ksftm_series row with %s",
				  db_name(w->db), where);
	}
	if ((ret = db_rows_check(w->db, *rows, "ksftm_series.path ksftm_series.case_name"
				 " ksftm_series.metric ksftm_series.labels", -1, where)) ||
	    (ret = history_path_parts(w->db, db_rows_get(*rows, 0, 0), where, path, parts, m))) {
		db_rows_free(*rows);
		*rows = NULL;
	}
	return ret;
}
