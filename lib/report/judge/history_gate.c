/*
 * The history gate (history.h): each series of a run against the last N
 * usable, comparable runs of the same series, judged together by gate.c.
 * Every window is one index range scan (ksftm_results_window), so the cost
 * follows the run's size and N, not the history's length.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "gate.h"
#include "grow.h"
#include "history.h"
#include "history_sql.h"
#include "rp_compare.h"

#define DEFAULT_WINDOW 30
/* The run's false-alarm budget, all of it to the one detector (gate.h);
 * regressions and improvements are controlled apart, each at this rate. */
#define DEFAULT_FDR 0.01
/* A flagged run followed by this many runs back at the old level (judged
 * no change or better) is a transient: back in the level's window
 * (doc/run-history.rst). */
#define TRANSIENT_AFTER 2

static const char window_sql[] = HISTORY_WINDOW_SQL;
static const char missing_sql[] = HISTORY_MISSING_SQL;

/* Where a series' accepted level starts. */
struct level {
	long long id;
	const char *order;
};

/* What the gate needs of one row beyond cmp_row. */
struct pending {
	size_t row;		/* index in the comparison */
	double *window;		/* its window's values */
	size_t n_window;
	double rel_tol, abs_tol;
	long long id;		/* the series' id */
	char *group;		/* its case: path and case name */
	double *recent;		/* every measured run since the level, oldest first */
	size_t *repeats;	/* each one's repeats */
	double *within;		/* each one's variance of its repeats */
	size_t n_recent;
	size_t cur_repeats;	/* the current run's */
	double cur_within;
};

struct judge {
	struct db *db;
	const struct ksft_metric_report *r;
	const struct hgate_opts *o;
	struct ksft_metric_report_comparison *c;
	const char *pinned;	/* latest pinned run's order, or NULL */
	struct level *levels;	/* accepted levels on these machines, by id */
	size_t n_levels;
	struct db_rows *level_rows;	/* their storage */
	char window_q[sizeof(window_sql) + 24];
	char scalar_q[sizeof(window_sql) + 24];	/* the same without the summaries */
	struct pending *p;
	size_t n_p, cap_p;
	long long *seen;	/* series ids of the current run */
	size_t n_seen, cap_seen;
	const struct history_key *keys;	/* series i's identity and id (0: none) */
	struct span *win;	/* PostgreSQL: every series' window, fetched at once */
	struct span *shift;	/* and its recent runs (recent_of()) */
	struct span *any;	/* a row if an empty window's series has any result */
	struct db_rows **batches;	/* their storage */
	size_t n_batches, cap_batches;
};

/*
 * Rows @from..@from+@n of @rows, columns from @col: one series' window or
 * recent runs, a query of its own (SQLite: an index range scan prepared
 * once) or a slice of one batched query for many series (PostgreSQL: one
 * round trip per BATCH series, not one per series).
 */
struct span {
	struct db_rows *rows;
	size_t from, n;
	int col;
	int owned;	/* @rows is this span's alone */
};

#define BATCH 256

static const char *span_get(const struct span *sp, size_t k, int c)
{
	return db_rows_get(sp->rows, sp->from + k, sp->col + c);
}

static void span_release(struct span *sp)
{
	if (sp->owned)
		db_rows_free(sp->rows);
	memset(sp, 0, sizeof(*sp));
}

static int better_of(const char *b)
{
	return !b ? 0 : !strcmp(b, "higher") ? 1 : !strcmp(b, "lower") ? -1 : 0;
}

static int push_pending(struct judge *j, const struct pending *p)
{
	int ret = ksftm_grow((void **)&j->p, &j->cap_p, j->n_p + 1, sizeof(*j->p), 64);

	if (ret)
		return ksftm_fail(-ret, "out of memory");
	j->p[j->n_p++] = *p;
	return 0;
}

static int push_seen(struct judge *j, long long id)
{
	int ret = ksftm_grow((void **)&j->seen, &j->cap_seen, j->n_seen + 1, sizeof(*j->seen), 64);

	if (ret)
		return ksftm_fail(-ret, "out of memory");
	j->seen[j->n_seen++] = id;
	return 0;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

static int cmp_level(const void *a, const void *b)
{
	const struct level *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* The order where series @id's accepted level starts, or NULL. */
static const char *level_of(const struct judge *j, long long id)
{
	struct level key = { id, NULL }, *lv;

	if (!j->n_levels)
		return NULL;
	lv = bsearch(&key, j->levels, j->n_levels, sizeof(*lv), cmp_level);
	return lv ? lv->order : NULL;
}

/* The pinned order that ends series @id's window, or NULL: a level
 * accepted after the latest pinned run wins over it (history_triage.c),
 * so pin and accept never leave a series with an empty window. */
static const char *pin_of(const struct judge *j, long long id)
{
	const char *lvl = level_of(j, id);

	return j->pinned && lvl && strcmp(lvl, j->pinned) > 0 ? NULL : j->pinned;
}

/* The window's values of element @e (-1: the scalar value column, as
 * statistic @op), oldest first. *@again: a scalar window holds values
 * of another statistic and its summaries were not read. */
static double *window_values(const struct span *rows, const char *op, long e, size_t *n,
			     int *again)
{
	size_t k, m = rows->n;
	double *v = malloc((m ? m : 1) * sizeof(*v));

	*n = 0;
	*again = 0;
	if (!v)
		return NULL;
	for (k = m; k-- > 0;) {
		const char *val = span_get(rows, k, 0);

		if (e < 0) {
			int got = history_value_as(val, span_get(rows, k, 2),
						   span_get(rows, k, 1), op, &v[*n]);

			if (got < 0) {
				*again = 1;
				return v;
			}
			*n += (size_t)got;
		} else {
			json_t *sum = json_loads(span_get(rows, k, 1), 0, NULL);
			json_t *all = json_object_get(sum, op);
			/* A one-element array is stored as its single value. */
			json_t *x = json_is_array(all) ? json_array_get(all, (size_t)e) :
				    e == 0 ? all : NULL;

			if (json_is_number(x))
				v[(*n)++] = json_number_value(x);
			json_decref(sum);
		}
	}
	return v;
}

/* Has the history any result of the series on such machines before the run? */
static int has_any(struct db *db, const char *sid, const char *cmp, const char *order, int *any)
{
	const char *p[3] = { sid, cmp, order };
	struct db_rows *rows;
	int ret = db_query(db, HISTORY_HAS_ANY_SQL, p, 3, &rows);

	if (!ret) {
		*any = db_rows_count(rows) > 0;
		db_rows_free(rows);
	}
	return ret;
}

/* Sample variance of x[0..n) (NaN below 2). */
static double variance_of(const double *x, size_t n)
{
	double m = 0, ss = 0;
	size_t i;

	if (n < 2)
		return NAN;
	for (i = 0; i < n; i++)
		m += x[i];
	m /= (double)n;
	for (i = 0; i < n; i++)
		ss += (x[i] - m) * (x[i] - m);
	return ss / (double)(n - 1);
}

/* A case's group key: its path and case name (gate_control.h). */
static char *group_of(const char *path, const char *case_name)
{
	size_t a = strlen(path), b = strlen(case_name);
	char *g = malloc(a + b + 2);

	if (g) {
		memcpy(g, path, a);
		g[a] = '\x1f';
		memcpy(g + a + 1, case_name, b + 1);
	}
	return g;
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

static int keep_batch(struct judge *j, struct db_rows *rows)
{
	int ret = ksftm_grow((void **)&j->batches, &j->cap_batches, j->n_batches + 1,
			     sizeof(*j->batches), 8);

	if (ret) {
		db_rows_free(rows);
		return ksftm_fail(-ret, "out of memory");
	}
	j->batches[j->n_batches++] = rows;
	return 0;
}

/*
 * PostgreSQL: the rows of @sel (run per series with "v.sid" and "v.lvl"
 * for the series' id and level, $1..$@n_params being @params) for the
 * series @idx[0..n), into @out[idx[k]], BATCH series per round trip.
 */
static int fetch_batched(struct judge *j, const char *sel, const char *const *params,
			 int n_params, const size_t *idx, size_t n, struct span *out)
{
	const char **p = calloc((size_t)n_params + 3 * BATCH, sizeof(*p));
	char (*num)[48] = calloc(BATCH, sizeof(*num));
	size_t from, m, k, r;
	int ret = 0;

	if (!p || !num)
		ret = ksftm_fail(ENOMEM, "out of memory");
	for (from = 0; from < n && !ret; from += m) {
		struct db_rows *rows = NULL;
		char *sql;

		m = n - from < BATCH ? n - from : BATCH;
		memcpy(p, params, (size_t)n_params * sizeof(*p));
		for (k = 0; k < m; k++) {
			size_t i = idx[from + k];

			snprintf(num[k], 24, "%zu", i);
			snprintf(num[k] + 24, 24, "%lld", j->keys[i].id);
			p[n_params + 3 * k] = num[k];
			p[n_params + 3 * k + 1] = num[k] + 24;
			p[n_params + 3 * k + 2] = level_of(j, j->keys[i].id);
		}
		sql = batch_sql(sel, m, n_params);
		ret = sql ? db_query(j->db, sql, p, n_params + 3 * (int)m, &rows) :
			    ksftm_fail(ENOMEM, "out of memory");
		free(sql);
		if (ret || (ret = keep_batch(j, rows)))
			break;
		for (r = 0; r < db_rows_count(rows);) {
			const char *at = db_rows_get(rows, r, 0);
			size_t i = at ? strtoul(at, NULL, 10) : SIZE_MAX, e = r;

			while (e < db_rows_count(rows) && db_rows_get(rows, e, 0) && at &&
			       !strcmp(db_rows_get(rows, e, 0), at))
				e++;
			if (e == r)
				e++;
			else if (i < ksft_metric_report_series_count(j->r))
				out[i] = (struct span){ rows, r, e - r, 1, 0 };
			r = e;
		}
	}
	free(p);
	free(num);
	return ret;
}

/* The window of series @i (one query; on PostgreSQL the batch fetched it);
 * @scalar: its values only, not the summaries an array's elements need. */
static int window_of(struct judge *j, size_t i, int scalar, struct span *out)
{
	const char *p[5] = { NULL, j->o->comparable, j->o->order, pin_of(j, j->keys[i].id),
			     level_of(j, j->keys[i].id) };
	char sid[32];
	int ret;

	if (j->win) {
		*out = j->win[i];
		return 0;
	}
	memset(out, 0, sizeof(*out));
	snprintf(sid, sizeof(sid), "%lld", j->keys[i].id);
	p[0] = sid;
	ret = db_query(j->db, scalar ? j->scalar_q : j->window_q, p, 5, &out->rows);
	out->n = db_rows_count(out->rows);
	out->owned = 1;
	return ret;
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
	"SELECT res.value, res.samples, res.verdict, res.accepted, res.run_order," \
	" res.compare_op, res.summary" \
	" FROM ksftm_results res" \
	" WHERE res.series_id = v.sid AND res.comparable = $1" \
	" AND res.status IN " HISTORY_MEASURED_STATUSES \
	" AND COALESCE(res.verdict, '') NOT IN ('" KSFTM_VERDICT_NOT_COMPARABLE "', '" \
	KSFTM_VERDICT_OLD_NOT_COMPARABLE "') AND res.value IS NOT NULL" \
	" AND (CAST($2 AS TEXT) IS NULL OR res.run_order < $2)" \
	" AND res.run_order >= COALESCE(v.lvl, '')" \
	" ORDER BY res.run_order DESC LIMIT 63"

/* The batched HISTORY_HAS_ANY_SQL ($1 comparability key, $2 order): a row if any. */
#define BATCH_HAS_ANY_SQL \
	"SELECT 1 AS one, '' AS run_order FROM ksftm_results res" \
	" WHERE res.series_id = v.sid AND res.comparable = $1" \
	" AND (CAST($2 AS TEXT) IS NULL OR res.run_order < $2) LIMIT 1"

/* PostgreSQL: every known series' window, BATCH series a round trip. */
static int prefetch_windows(struct judge *j, size_t n)
{
	const char *p[3] = { j->o->comparable, j->o->order, j->pinned };
	char sel[sizeof(BATCH_WINDOW_SQL) + 24];
	size_t *idx, i, m = 0;
	int ret;

	if (db_dialect(j->db) != DB_POSTGRESQL || j->o->incomparable)
		return 0;
	j->win = calloc(n ? n : 1, sizeof(*j->win));
	idx = calloc(n ? n : 1, sizeof(*idx));
	if (!j->win || !idx) {
		free(idx);
		return ksftm_fail(ENOMEM, "out of memory");
	}
	snprintf(sel, sizeof(sel), BATCH_WINDOW_SQL, j->o->window ? j->o->window : DEFAULT_WINDOW);
	/* Those the pin ends, then those whose later level wins over it. */
	for (i = 0; i < n; i++)
		if (j->keys[i].id && pin_of(j, j->keys[i].id))
			idx[m++] = i;
	ret = m ? fetch_batched(j, sel, p, 3, idx, m, j->win) : 0;
	for (i = m = 0; i < n; i++)
		if (j->keys[i].id && !pin_of(j, j->keys[i].id))
			idx[m++] = i;
	p[2] = NULL;
	if (!ret && m)
		ret = fetch_batched(j, sel, p, 3, idx, m, j->win);
	/* has_any() of the series whose window is empty, batched alike. */
	for (i = m = 0; !ret && i < n; i++)
		if (j->keys[i].id && !j->win[i].n)
			idx[m++] = i;
	if (!ret && !(j->any = calloc(n ? n : 1, sizeof(*j->any))))
		ret = ksftm_fail(ENOMEM, "out of memory");
	if (!ret && m)
		ret = fetch_batched(j, BATCH_HAS_ANY_SQL, p, 2, idx, m, j->any);
	free(idx);
	return ret;
}

static int judge_series(struct judge *j, const struct ksft_metric_report *r, size_t i)
{
	struct ksft_metric_report_series s = { .sz = sizeof(s) };
	struct ksft_metric_report_values vals = { 0 };
	struct span rows = { 0 };
	double one, *cur = &one, rel_tol, abs_tol;
	char sid[32];
	const char *op, *path;
	long long id = j->keys[i].id;
	int ret, n, better, any = 0, failed, again;
	long e;

	if ((ret = ksft_metric_report_series_get(r, i, &s)))
		return ret;
	op = s.compare ? s.compare : "p50";
	better = better_of(s.better);
	rel_tol = s.relative_tolerance;
	abs_tol = s.absolute_tolerance;
	if (!s.compare) {	/* zperf/twister: as compare --baseline gates them */
		int dop;

		if (rp_default_gate(rp_source_parse(s.source), &dop, &better, &rel_tol)) {
			op = rp_op_name(dop);
			abs_tol = NAN;
		}
	}
	path = j->keys[i].path;
	/* A tracked series of a failed case (an untracked one stays so). */
	failed = better && rp_status_failed(r->series[i]->status);
	if (id && (ret = push_seen(j, id)))
		goto out;
	n = ksft_metric_report_series_summary(r, i, op, &one, 1);
	if (n < 0) {
		ret = n;
		goto out;
	}
	if (n > 1) {
		cur = malloc((size_t)n * sizeof(*cur));
		if (!cur) {
			ret = ksftm_fail(ENOMEM, "out of memory");
			goto out;
		}
		ksft_metric_report_series_summary(r, i, op, cur, (size_t)n);
	}
	if ((ret = ksft_metric_report_series_values(r, i, KSFT_METRIC_REPORT_PROCESSED, &vals)))
		goto out;
	snprintf(sid, sizeof(sid), "%lld", id);
	if (id && !j->o->incomparable && !failed) {
		if ((ret = window_of(j, i, !s.is_array, &rows)))
			goto out;
		if (!rows.n && j->any)
			any = j->any[i].n > 0;
		else if (!rows.n && (ret = has_any(j->db, sid, j->o->comparable, j->o->order, &any)))
			goto out;
	}
	for (e = s.is_array ? 0 : -1; e < (s.is_array ? n : 0); e++) {
		struct cmp_row *row = cmp_row_new(j->c, (char *const *)s.path, s.path_len,
						  s.case_name, s.name, s.labels_json, e);
		struct pending pd = { 0, NULL, 0, rel_tol, abs_tol, id, NULL, NULL, NULL, NULL, 0,
				      vals.n, NAN };

		if (!row) {
			ret = ksftm_fail(ENOMEM, "out of memory");
			goto out;
		}
		row->series = (long)i;
		row->has_current = 1;
		/* Shown in the policy's display units (aggregated series are
		 * compared in busy cores: none). */
		if (!s.aggregation) {
			row->disp_scale = s.display_scale;
			if (s.display_label && !(row->disp_label = strdup(s.display_label))) {
				ret = ksftm_fail(ENOMEM, "out of memory");
				goto out;
			}
		}
		row->compare = rp_op_parse(op, 0);
		row->better = better;
		row->current = cur[e < 0 ? 0 : e];
		row->n_current = vals.n;
		if (j->o->incomparable || (!failed && !rows.n && any)) {
			row->verdict = KSFTM_VERDICT_NOT_COMPARABLE;
			if (!j->o->incomparable)
				row->why = pin_of(j, id) ?
					"no usable run up to the pinned run, which freezes its"
					" window (pin --unpin, or accept a run after the pin)" :
					"no usable stored run on these machines: each failed, was"
					" disturbed or is a regression not accepted (accept RUN)";
			continue;
		}
		if (failed) {	/* no measurement: not judged, said so */
			row->verdict = KSFTM_VERDICT_CASE_FAILED;
			row->fails = !j->o->allow_missing;
			continue;
		}
		if (!rows.rows || !rows.n) {
			row->verdict = KSFTM_VERDICT_NEW;
			continue;
		}
		pd.row = j->c->n - 1;
		pd.window = window_values(&rows, op, e, &pd.n_window, &again);
		if (pd.window && again) {
			/* Stored under another statistic: read again with the
			 * summaries (a policy change; rare, so not every time). */
			free(pd.window);
			span_release(&rows);
			if ((ret = window_of(j, i, 0, &rows)))
				goto out;
			pd.window = window_values(&rows, op, e, &pd.n_window, &again);
		}
		if (vals.width == 1 && e < 0)
			pd.cur_within = variance_of(vals.v, vals.n);
		pd.group = group_of(path, s.case_name);
		if (!pd.window || !pd.group || push_pending(j, &pd)) {
			free(pd.window);
			free(pd.group);
			ret = ksftm_fail(ENOMEM, "out of memory");
			goto out;
		}
	}
out:
	ksft_metric_report_values_release(&vals);
	span_release(&rows);
	if (cur != &one)
		free(cur);
	return ret;
}

/* One missing series @id's row, direction @better. */
static int missing_row(struct judge *j, long long id, const char *better)
{
	char sid[32], where[64];
	const char *p[1] = { sid };
	struct db_rows *rows;
	struct cmp_row *row;
	const char **parts;
	json_t *path;
	size_t m;
	int ret, failed;

	snprintf(sid, sizeof(sid), "%lld", id);
	snprintf(where, sizeof(where), "ksftm_series.id = %lld", id);
	if ((ret = db_query(j->db, "SELECT path, case_name, metric, labels FROM ksftm_series"
			    " WHERE id = $1", p, 1, &rows)))
		return ret;
	if (!db_rows_count(rows)) {
		db_rows_free(rows);
		return ksftm_fail(EBADMSG, "history database %s: no ksftm_series row with %s",
				  db_name(j->db), where);
	}
	if ((ret = db_rows_check(j->db, rows, "ksftm_series.path ksftm_series.case_name"
				 " ksftm_series.metric ksftm_series.labels", -1, where)) ||
	    (ret = history_path_parts(j->db, db_rows_get(rows, 0, 0), where, &path, &parts, &m))) {
		db_rows_free(rows);
		return ret;
	}
	row = cmp_row_new(j->c, (char *const *)parts, m, db_rows_get(rows, 0, 1),
			  db_rows_get(rows, 0, 2), db_rows_get(rows, 0, 3), -1);
	/* Missing because its case failed in this run: that, not a lost series. */
	failed = row && better_of(better) &&
		 rp_case_failed(j->r, parts, m, db_rows_get(rows, 0, 1));
	free(parts);
	json_decref(path);
	db_rows_free(rows);
	if (!row)
		return ksftm_fail(ENOMEM, "out of memory");
	row->better = better_of(better);
	row->verdict = failed ? KSFTM_VERDICT_CASE_FAILED : KSFTM_VERDICT_MISSING;
	row->fails = row->better && !j->o->allow_missing;
	return 0;
}

/* Series the recent comparable runs have and this run lacks. */
static int missing_series(struct judge *j)
{
	char sql[sizeof(missing_sql) + 24];
	const char *p[3] = { j->o->comparable, j->o->order, j->pinned };
	struct db_rows *rows;
	size_t k;
	int ret;

	snprintf(sql, sizeof(sql), missing_sql, j->o->window ? j->o->window : DEFAULT_WINDOW);
	if ((ret = db_query(j->db, sql, p, 3, &rows)))
		return ret;
	if ((ret = db_rows_check(j->db, rows, "ksftm_results.series_id ?ksftm_results.better",
				 0, NULL))) {
		db_rows_free(rows);
		return ret;
	}
	if (j->n_seen)
		qsort(j->seen, j->n_seen, sizeof(*j->seen), cmp_ll);
	for (k = 0; k < db_rows_count(rows) && !ret; k++) {
		long long id = strtoll(db_rows_get(rows, k, 0), NULL, 10);

		if (j->n_seen && bsearch(&id, j->seen, j->n_seen, sizeof(*j->seen), cmp_ll))
			continue;	/* in this run (or listed already) */
		if ((ret = missing_row(j, id, db_rows_get(rows, k, 1))))
			break;
		/* The same series twice (its direction changed): one row. The
		 * ids stay sorted: inserted in place, not sorted again. */
		if (!(ret = push_seen(j, id))) {
			size_t at = j->n_seen - 1;

			while (at && j->seen[at - 1] > id) {
				j->seen[at] = j->seen[at - 1];
				at--;
			}
			j->seen[at] = id;
		}
	}
	db_rows_free(rows);
	return ret;
}

/* The accepted levels on the run's machines, once (not once per series). */
static int load_levels(struct judge *j)
{
	const char *p[1] = { j->o->comparable };
	size_t k, n;
	int ret = db_query(j->db, HISTORY_LEVELS_SQL, p, 1, &j->level_rows);

	if (ret || (ret = db_rows_check(j->db, j->level_rows, "ksftm_levels.series_id"
					" ksftm_levels.run_order", 0, NULL)))
		return ret;
	n = db_rows_count(j->level_rows);
	j->levels = calloc(n ? n : 1, sizeof(*j->levels));
	if (!j->levels)
		return ksftm_fail(ENOMEM, "out of memory");
	for (k = 0; k < n; k++) {
		j->levels[k].id = strtoll(db_rows_get(j->level_rows, k, 0), NULL, 10);
		j->levels[k].order = db_rows_get(j->level_rows, k, 1);
	}
	j->n_levels = n;
	if (n)
		qsort(j->levels, n, sizeof(*j->levels), cmp_level);
	return 0;
}

static int latest_pinned(struct judge *j, char **out)
{
	const char *p[2] = { j->o->comparable, j->o->order };
	struct db_rows *rows;
	int ret = db_query(j->db, HISTORY_LATEST_PINNED_SQL, p, 2, &rows);

	*out = NULL;
	if (ret)
		return ret;
	if (db_rows_count(rows) && db_rows_get(rows, 0, 0) &&
	    !(*out = strdup(db_rows_get(rows, 0, 0))))
		ret = ksftm_fail(ENOMEM, "out of memory");
	db_rows_free(rows);
	return ret;
}

/* An interference series (doc/producers.rst): how disturbed the machine
 * was, not what the test measures. */
static int is_interference(const struct cmp_row *row)
{
	return !strncmp(row->name, "interference.", 13) && !row->better;
}

/*
 * Pending rows @idx[0..n) through one gate_judge() call (@interference:
 * judged upward, higher is more disturbed, only to tell a disturbed run;
 * their rows stay untracked). @disturbed gets the groups whose
 * interference is measurably above the history's.
 */
static int judge_batch(struct judge *j, const size_t *idx, size_t n, int interference,
		       const char **disturbed, size_t *n_disturbed)
{
	struct gate_opts go = GATE_OPTS_DEFAULT;
	struct gate_series *g = calloc(n ? n : 1, sizeof(*g));
	size_t m;

	if (!g)
		return ksftm_fail(ENOMEM, "out of memory");
	go.fdr = j->o->fdr > 0 ? j->o->fdr : DEFAULT_FDR;
	for (m = 0; m < n; m++) {
		const struct pending *pd = &j->p[idx[m]];
		const struct cmp_row *row = &j->c->rows[pd->row];

		g[m].window = pd->window;
		g[m].n_window = pd->n_window;
		g[m].recent = pd->recent;
		g[m].n_recent = pd->n_recent;
		g[m].recent_repeats = pd->repeats;
		g[m].recent_within = pd->within;
		g[m].repeats = pd->cur_repeats;
		g[m].within = pd->cur_within;
		g[m].group = pd->group;
		g[m].fresh = pin_of(j, pd->id) != NULL;
		g[m].current = row->current;
		g[m].better = interference ? -1 : row->better;
		g[m].rel_tol = interference ? NAN : pd->rel_tol;
		g[m].abs_tol = interference ? NAN : pd->abs_tol;
	}
	if (gate_judge(g, n, &go)) {
		free(g);
		return ksftm_fail(ENOMEM, "out of memory");
	}
	for (m = 0; m < n; m++) {
		struct cmp_row *row = &j->c->rows[j->p[idx[m]].row];

		row->baseline = g[m].baseline;
		row->change_pct = g[m].change * 100.0;
		row->allowance = g[m].allowance;
		row->n_baseline = row->baseline_runs = g[m].n_window;
		if (interference) {
			row->verdict = gate_verdict_name(GATE_UNTRACKED);
			if (g[m].verdict == GATE_REGRESSION ||
			    (g[m].z_local >= GATE_DISTURBED_Z &&
			     g[m].change >= GATE_DISTURBED_MIN_CHANGE)) {
				disturbed[(*n_disturbed)++] = j->p[idx[m]].group;
				/* it tripped (NaN is "not": an unknown z is Inf) */
				row->disturb_z = isnan(g[m].z_local) ? INFINITY : g[m].z_local;
			}
			continue;
		}
		row->p_value = g[m].q_value;
		row->verdict = gate_verdict_name(g[m].verdict);
		row->fails = g[m].verdict == GATE_REGRESSION;
		row->noise_pct = g[m].sigma * 100.0;
		row->smallest_pct = g[m].smallest * 100.0;
		row->need_runs = g[m].need_runs;
		row->need_repeats = g[m].need_repeats;
		row->blind = g[m].blind && !row->fails;
	}
	free(g);
	return 0;
}

/* The interference row of @group that tripped it, the one furthest above
 * its history if several did (what DISTURBED names); -1: none. */
static long tripped_by(const struct judge *j, const size_t *intf, size_t n_i,
		       const char *group)
{
	long best = -1;
	size_t k;

	for (k = 0; k < n_i; k++) {
		const struct cmp_row *row = &j->c->rows[j->p[intf[k]].row];

		if (isnan(row->disturb_z) || strcmp(j->p[intf[k]].group, group))
			continue;
		if (best < 0 || row->change_pct > j->c->rows[best].change_pct)
			best = (long)j->p[intf[k]].row;
	}
	return best;
}

/*
 * All pending rows of the run through gate_judge() at once (the
 * interference series apart: they must not spend the gated series'
 * budget). Disturbed is not regressed: a regression in a case whose
 * interference is measurably above its history's (the interference
 * series' own upward test at the run's q, or its run alone beyond
 * GATE_DISTURBED_Z and GATE_DISTURBED_MIN_CHANGE) is "disturbed", to
 * rerun, and does not fail the run.
 */
static int judge_all(struct judge *j)
{
	size_t *gated = malloc((j->n_p ? j->n_p : 1) * sizeof(*gated));
	size_t *intf = malloc((j->n_p ? j->n_p : 1) * sizeof(*intf));
	const char **disturbed = malloc((j->n_p ? j->n_p : 1) * sizeof(*disturbed));
	size_t k, d, n_g = 0, n_i = 0, n_d = 0;
	int ret;

	if (!gated || !intf || !disturbed) {
		ret = ksftm_fail(ENOMEM, "out of memory");
		goto out;
	}
	for (k = 0; k < j->n_p; k++) {
		if (is_interference(&j->c->rows[j->p[k].row]))
			intf[n_i++] = k;
		else
			gated[n_g++] = k;
	}
	if ((ret = judge_batch(j, intf, n_i, 1, disturbed, &n_d)) ||
	    (ret = judge_batch(j, gated, n_g, 0, disturbed, &n_d)))
		goto out;
	for (k = 0; k < n_g && n_d; k++) {
		struct cmp_row *row = &j->c->rows[j->p[gated[k]].row];

		if (!row->fails)
			continue;
		for (d = 0; d < n_d; d++)
			if (!strcmp(disturbed[d], j->p[gated[k]].group)) {
				row->verdict = KSFTM_VERDICT_DISTURBED;
				row->fails = 0;
				row->disturbed_by = tripped_by(j, intf, n_i, j->p[gated[k]].group);
				j->c->disturbed++;
				break;
			}
	}
out:
	free(gated);
	free(intf);
	free(disturbed);
	return ret;
}

/*
 * The series' recent runs (measurements, on comparable machines, from its
 * accepted level on), whatever the gate said of each: the CUSUM runs over
 * them, and their noise is the series' noise. Flagged runs stay out of the
 * level until accepted, but a flagged run followed by TRANSIENT_AFTER runs
 * back at the old level was a transient: it is back in the level's window.
 */
static const char shift_sql[] = HISTORY_SHIFT_SQL;

/* Count and variance of a run's stored repeats (a JSON array of numbers). */
static void repeats_of(const char *samples, size_t *r, double *var)
{
	json_t *a = samples ? json_loads(samples, 0, NULL) : NULL;
	double m = 0, ss = 0, x;
	size_t k, n = 0;

	*r = 0;
	*var = NAN;
	if (!json_is_array(a)) {
		json_decref(a);
		return;
	}
	for (k = 0; k < json_array_size(a); k++)
		if (json_is_number(json_array_get(a, k))) {
			m += json_number_value(json_array_get(a, k));
			n++;
		}
	if (n && n == json_array_size(a)) {
		m /= (double)n;
		for (k = 0; k < n; k++) {
			x = json_number_value(json_array_get(a, k)) - m;
			ss += x * x;
		}
		*r = n;
		*var = n > 1 ? ss / (double)(n - 1) : NAN;
	}
	json_decref(a);
}

/* Does the gate want pending row @pd's recent runs (recent_all())? */
static int wants_recent(const struct judge *j, const struct pending *pd)
{
	const struct cmp_row *row = &j->c->rows[pd->row];

	/* A pinned baseline: none, the window alone is the reference. */
	return row->element < 0 && row->better && isfinite(row->current) && !pin_of(j, pd->id);
}

static int recent_of(struct judge *j, struct pending *pd, size_t i)
{
	const char *p[4] = { NULL, j->o->comparable, j->o->order, level_of(j, pd->id) };
	const char *op = rp_op_name(j->c->rows[pd->row].compare);
	size_t n, k, m, clean = 0, w = j->o->window ? j->o->window : DEFAULT_WINDOW;
	struct span rows = { 0 };
	double *grown;
	char sid[32];
	int ret;

	if (j->shift) {
		rows = j->shift[i];
	} else {
		snprintf(sid, sizeof(sid), "%lld", pd->id);
		p[0] = sid;
		if ((ret = db_query(j->db, shift_sql, p, 4, &rows.rows)))
			return ret;
		rows.n = db_rows_count(rows.rows);
		rows.owned = 1;
	}
	n = rows.n;
	pd->recent = malloc((n ? n : 1) * sizeof(*pd->recent));
	pd->repeats = malloc((n ? n : 1) * sizeof(*pd->repeats));
	pd->within = malloc((n ? n : 1) * sizeof(*pd->within));
	grown = realloc(pd->window, (pd->n_window + n + 1) * sizeof(*grown));
	if (grown)
		pd->window = grown;
	if (!pd->recent || !pd->repeats || !pd->within || !grown) {
		span_release(&rows);
		return ksftm_fail(ENOMEM, "out of memory");
	}
	/* Newest first: count the runs back at the old level after each
	 * flagged one. A too-noisy run is not: it may be the change going on
	 * unproven, and counting it would let a lasting change the CUSUM has
	 * not yet proven into the level. */
	for (k = m = 0; k < n; k++) {
		const char *verdict = span_get(&rows, k, 2), *acc = span_get(&rows, k, 3);
		const char *code = verdict ? ksftm_verdict_code(verdict) : NULL;
		int flagged = code && !strcmp(code, KSFTM_VERDICT_REGRESSION) &&
			      (!acc || !strcmp(acc, "0"));

		/* As the statistic judged now (a policy may have changed it);
		 * a run without that number is left out. Newest first here. */
		if (history_value_as(span_get(&rows, k, 0), span_get(&rows, k, 5),
				     span_get(&rows, k, 6), op, &pd->recent[m]) != 1)
			continue;
		repeats_of(span_get(&rows, k, 1), &pd->repeats[m], &pd->within[m]);
		m++;
		if (!flagged) {
			clean += ksftm_verdict_at_level(code);
			continue;
		}
		if (clean >= TRANSIENT_AFTER && k < w) {
			pd->window[pd->n_window++] = pd->recent[m - 1];
		}
	}
	/* Oldest first. */
	for (k = 0; k < m / 2; k++) {
		size_t o = m - 1 - k, r = pd->repeats[k];
		double x = pd->recent[k], v = pd->within[k];

		pd->recent[k] = pd->recent[o];
		pd->recent[o] = x;
		pd->within[k] = pd->within[o];
		pd->within[o] = v;
		pd->repeats[k] = pd->repeats[o];
		pd->repeats[o] = r;
	}
	pd->n_recent = m;
	span_release(&rows);
	return 0;
}

/* PostgreSQL: the recent runs of every series recent_all() reads, batched. */
static int prefetch_recent(struct judge *j, size_t n_series)
{
	const char *p[2] = { j->o->comparable, j->o->order };
	size_t *idx = malloc((j->n_p ? j->n_p : 1) * sizeof(*idx)), k, m = 0;
	int ret;

	j->shift = calloc(n_series ? n_series : 1, sizeof(*j->shift));
	if (!idx || !j->shift) {
		free(idx);
		return ksftm_fail(ENOMEM, "out of memory");
	}
	for (k = 0; k < j->n_p; k++)
		if (wants_recent(j, &j->p[k]))
			idx[m++] = (size_t)j->c->rows[j->p[k].row].series;
	ret = fetch_batched(j, BATCH_SHIFT_SQL, p, 2, idx, m, j->shift);
	free(idx);
	return ret;
}

/* The recent runs of every scalar series the gate judges (wants_recent()). */
static int recent_all(struct judge *j)
{
	size_t k;
	int ret = 0;

	if (db_dialect(j->db) == DB_POSTGRESQL &&
	    (ret = prefetch_recent(j, ksft_metric_report_series_count(j->r))))
		return ret;
	for (k = 0; k < j->n_p && !ret; k++)
		if (wants_recent(j, &j->p[k]))
			ret = recent_of(j, &j->p[k], (size_t)j->c->rows[j->p[k].row].series);
	return ret;
}

/* @r's series' identities and ids (0: not in the history), one look-up
 * for the run; the paths are the caller's to free. */
static int lookup_keys(struct db *db, const struct ksft_metric_report *r,
		       struct history_key **out)
{
	size_t i, n = ksft_metric_report_series_count(r);
	struct history_key *keys = calloc(n ? n : 1, sizeof(*keys));
	int ret = 0;

	*out = keys;
	if (!keys)
		return ksftm_fail(ENOMEM, "out of memory");
	for (i = 0; i < n && !ret; i++) {
		struct ksft_metric_report_series s = { .sz = sizeof(s) };

		if ((ret = ksft_metric_report_series_get(r, i, &s)))
			break;
		keys[i] = (struct history_key){ history_path_json(s.path, s.path_len), s.case_name,
						s.name, s.labels_json, 0 };
		if (!keys[i].path)
			ret = ksftm_fail(ENOMEM, "out of memory");
	}
	return ret ? ret : history_series_lookup(db, keys, NULL, n);
}

int hgate_compare(struct db *db, const struct ksft_metric_report *r,
		  const struct hgate_opts *o, struct ksft_metric_report_comparison **out)
{
	struct history_key *keys = NULL;
	size_t i, n = ksft_metric_report_series_count(r);
	int ret = lookup_keys(db, r, &keys);

	*out = NULL;
	if (!ret)
		ret = hgate_compare_keys(db, r, o, keys, out);
	for (i = 0; i < n && keys; i++)
		free((char *)keys[i].path);
	free(keys);
	return ret;
}

int hgate_compare_keys(struct db *db, const struct ksft_metric_report *r,
		       const struct hgate_opts *o, const struct history_key *keys,
		       struct ksft_metric_report_comparison **out)
{
	struct judge j = { .db = db, .r = r, .o = o, .keys = keys };
	char *pinned = NULL;
	size_t i, n = ksft_metric_report_series_count(r);
	int ret;

	*out = NULL;
	j.c = calloc(1, sizeof(*j.c));
	if (!j.c)
		return ksftm_fail(ENOMEM, "out of memory");
	snprintf(j.window_q, sizeof(j.window_q), window_sql, o->window ? o->window : DEFAULT_WINDOW);
	/* A scalar series reads its window's values only: the summary texts
	 * were most of what a window query copied. Same WHERE. */
	snprintf(j.scalar_q, sizeof(j.scalar_q), HISTORY_WINDOW_VALUES_SQL,
		 o->window ? o->window : DEFAULT_WINDOW);
	if ((ret = latest_pinned(&j, &pinned)) || (ret = load_levels(&j)))
		goto out;
	j.pinned = pinned;
	if ((ret = prefetch_windows(&j, n)))
		goto out;
	for (i = 0; i < n && !ret; i++)
		ret = judge_series(&j, r, i);
	if (!ret && !o->incomparable)
		ret = missing_series(&j);
	if (!ret)
		ret = recent_all(&j);
	if (!ret)
		ret = judge_all(&j);
	if (!ret) {
		for (i = 0; i < j.c->n; i++) {
			j.c->failing += j.c->rows[i].fails != 0;
			j.c->failed_cases += j.c->rows[i].fails &&
					     !strcmp(j.c->rows[i].verdict, KSFTM_VERDICT_CASE_FAILED);
		}
		ret = (int)j.c->failing;
		*out = j.c;
		j.c = NULL;
	}
out:
	for (i = 0; i < j.n_p; i++) {
		free(j.p[i].window);
		free(j.p[i].group);
		free(j.p[i].recent);
		free(j.p[i].repeats);
		free(j.p[i].within);
	}
	free(j.p);
	free(j.seen);
	free(j.win);
	free(j.shift);
	free(j.any);
	for (i = 0; i < j.n_batches; i++)
		db_rows_free(j.batches[i]);
	free(j.batches);
	free(pinned);
	free(j.levels);
	db_rows_free(j.level_rows);
	ksft_metric_report_comparison_free(j.c);
	return ret;
}
