/*
 * `ksft-metric history`, the reading: each series' compare value run by
 * run (history.h; the change points and the gate's band are added by
 * judge/, the text and CSV drawn by export/). One series' history is one
 * index range (ksftm_results_window_op) sorted newest first, limited; with
 * opts->report only that report's series are looked up (html --db).
 */
#include <errno.h>
#include <jansson.h>
#include <ksftmetric/report.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon.h"
#include "errmsg.h"
#include "history.h"
#include "history_sql.h"
#include "window_rule.h"
#include "policy_vocab.h"
#include "strbuf.h"
#include "units.h"

#define DEFAULT_LAST 1000
#define FILTERED_LIMIT 1000000000

static const char points_sql[] = HISTORY_POINTS_SQL;

/* A context value as text: strings as they are, others as JSON. */
static int value_is(json_t *v, const char *want)
{
	char *text;
	int same;

	if (!v)
		return 0;
	if (json_is_string(v))
		return !strcmp(json_string_value(v), want);
	text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
	same = text && !strcmp(text, want);
	free(text);
	return same;
}

static int context_matches(json_t *ctx, const struct ksft_metric_report_history_opts *o)
{
	size_t i;

	for (i = 0; i < o->n_context; i++) {
		const char *item = o->context[i], *eq = strchr(item, '=');
		char key[256];

		if ((size_t)(eq - item) >= sizeof(key))
			return 0;
		memcpy(key, item, (size_t)(eq - item));
		key[eq - item] = '\0';
		if (!value_is(json_object_get(ctx, key), eq + 1))
			return 0;
	}
	return 1;
}

/* The state of a result: its verdict at ingest (a code from before issue
 * 23 read as today's), or accepted. */
static const char *state_of(const char *verdict, const char *accepted)
{
	if (accepted && strcmp(accepted, "0"))
		return KSFTM_VERDICT_ACCEPTED;
	return verdict ? ksftm_verdict_code(verdict) : KSFTM_VERDICT_NO_CHANGE;
}

static char *shown_text(const char *s)
{
	return s ? canon_text_dup(s, strlen(s)) : NULL;
}

/*
 * The newest policy's display units on @series ("display_label",
 * "display_scale"), as compare's rows show them: none when the policy
 * aggregates (those values are busy cores, not the label's unit); and
 * the display unit every output shows ("unit", "scale": a value times
 * scale is in unit; model/units.c decides).
 */
static int display_units(struct db *db, const char *policy, const char *row, json_t *series)
{
	json_t *pol = NULL, *label, *scale;
	struct rp_display d;
	int ret;

	if (policy && (ret = history_json(db, policy, "ksftm_results.policy", row, &pol)))
		return ret;
	label = json_object_get(pol, KSFTM_PK_DISPLAY_LABEL);
	scale = json_object_get(pol, KSFTM_PK_DISPLAY_SCALE);
	if (json_is_object(pol) && !json_object_get(pol, KSFTM_PK_AGGREGATION)) {
		if (json_is_string(label) && json_string_length(label))
			json_object_set(series, "display_label", label);
		if (json_is_number(scale) && json_number_value(scale) > 0)
			json_object_set(series, "display_scale", scale);
	}
	units_display_choose(json_is_number(scale) ? json_number_value(scale) : NAN,
			     json_string_value(label),
			     json_object_get(pol, KSFTM_PK_AGGREGATION) != NULL, &d);
	ret = json_object_set_new(series, "unit", d.unit ? json_string(d.unit) : json_null());
	ret |= json_object_set_new(series, "scale", json_real(d.scale));
	json_decref(pol);
	return ret ? -ENOMEM : 0;
}

/* A run's repeats (its stored samples: count and variance, as the gate
 * counts them: history_window_rule_repeats()) on @pt as "_rep", for the
 * gate's band (removed before the JSON is shown; -1: no variance). */
static int repeats_json(const char *samples, json_t *pt)
{
	size_t n;
	double var;

	history_window_rule_repeats(samples, &n, &var);
	if (!n)
		return 0;
	return json_object_set_new(pt, "_rep", json_pack("[I,f]", (json_int_t)n,
							 n > 1 ? var : -1.0));
}

/* Is a run of context @ctx comparable with the report's run (@like: the
 * history's comparable keys and the run's comparable text)? */
static int comparable_with(json_t *ctx, const char *const *like)
{
	char *c = history_comparable(ctx, like[0]);
	int same = c && !strcmp(c, like[1]);

	free(c);
	return same;
}

/* One series' points, oldest first (@like: only the runs comparable with
 * the report's, else those o->context matches); NULL points when none match. */
static int series_points(struct db *db, const char *sql, const char *sid,
			 const struct ksft_metric_report_history_opts *o, const char *const *like,
			 const char *keys, json_t *series)
{
	const char *p[2] = { sid, o->all_status ? NULL : "measured" };
	json_t *points = json_array(), **ctxs = NULL;
	struct db_rows *rows;
	size_t k, n, newest, kept, last = o->last ? o->last : DEFAULT_LAST;
	char where[80];
	int ret = db_query(db, sql, p, 2, &rows);

	snprintf(where, sizeof(where), "ksftm_results.series_id = %.40s", sid);
	if (!ret)
		ret = db_rows_check(db, rows, "ksftm_runs.run_key ksftm_results.run_order"
				    " ksftm_runs.context ?ksftm_results.value ksftm_results.status"
				    " ?ksftm_results.verdict ?ksftm_results.accepted"
				    " ?ksftm_results.compare_op ?ksftm_results.better ?ksftm_runs.pinned"
				    " ?ksftm_results.policy ?ksftm_results.samples ?ksftm_levels.run_order",
				    0, where);
	if (ret) {
		db_rows_free(rows);
		json_decref(points);
		return ret;
	}
	/* Newest first, the runs the filters keep, up to the last @last of
	 * them (issue 40: --last counts the runs shown, not the runs read). */
	n = db_rows_count(rows);
	ctxs = calloc(n ? n : 1, sizeof(*ctxs));
	if (!ctxs)
		ret = ksftm_oom();
	for (k = kept = 0; !ret && k < n && kept < last; k++) {
		char row[96];

		snprintf(row, sizeof(row), "ksftm_runs.run_key = %.60s", db_rows_get(rows, k, 0));
		if ((ret = history_json(db, db_rows_get(rows, k, 2), "ksftm_runs.context", row,
					&ctxs[k])))
			break;
		if (!json_is_object(ctxs[k]) ||
		    (like ? !comparable_with(ctxs[k], like) : !context_matches(ctxs[k], o))) {
			json_decref(ctxs[k]);
			ctxs[k] = NULL;
			continue;
		}
		kept++;
	}
	n = newest = ret ? 0 : k;
	for (k = n; k-- > 0;) {
		const char *v = db_rows_get(rows, k, 3);
		char *run, *order;
		json_t *ctx = ctxs[k];

		if (!ctx)
			continue;
		ctxs[k] = NULL;
		/* Ingest refuses ids and orders that are not text a terminal shows
		 * as is; histories others wrote are shown neutralised. */
		run = shown_text(db_rows_get(rows, k, 0));
		/* The CI's order, without the run id that breaks its ties. */
		order = canon_text_dup(db_rows_get(rows, k, 1),
				       run_order_shown_len(db_rows_get(rows, k, 1)));
		json_array_append_new(points, json_pack("{s:s,s:s,s:o,s:s,s:s,s:o}",
			"run", run ? run : "?", "order", order ? order : "?",
			"value", v ? json_real(strtod(v, NULL)) : json_null(),
			"status", db_rows_get(rows, k, 4),
			"state", state_of(db_rows_get(rows, k, 5), db_rows_get(rows, k, 6)),
			"context", ctx));
		free(run);
		free(order);
		/* Its machines and stored order, for the gate's band (removed
		 * before the JSON is shown; the order as stored, bytes another
		 * tool wrote too: only compared, never shown). */
		{
			char *cmp = history_comparable(ctx, keys);
			json_t *pt = json_array_get(points, json_array_size(points) - 1);

			if (!cmp || json_object_set_new(pt, "_cmp", json_string(cmp)) ||
			    json_object_set_new(pt, "_ord", json_string_nocheck(db_rows_get(rows, k, 1)))) {
				free(cmp);
				ret = ksftm_oom();
				break;
			}
			free(cmp);
		}
		if (repeats_json(db_rows_get(rows, k, 11),
				 json_array_get(points, json_array_size(points) - 1))) {
			ret = ksftm_oom();
			break;
		}
		if (db_rows_get(rows, k, 9) && strcmp(db_rows_get(rows, k, 9), "0") &&
		    strcmp(db_rows_get(rows, k, 9), "f"))
			json_object_set_new(json_array_get(points, json_array_size(points) - 1),
					    "pinned", json_true());
		/* An accepted level starts here (accept RUN [SERIES]). */
		if (db_rows_get(rows, k, 12) && strcmp(db_rows_get(rows, k, 12), "0"))
			json_object_set_new(json_array_get(points, json_array_size(points) - 1),
					    "level", json_true());
		newest = k;
	}
	/* The newest result shown names the series' policy. */
	if (!ret && newest < n) {
		const char *op = db_rows_get(rows, newest, 7), *b = db_rows_get(rows, newest, 8);
		char row[96];

		snprintf(row, sizeof(row), "ksftm_runs.run_key = %.60s",
			 db_rows_get(rows, newest, 0));
		json_object_set_new(series, "compare", json_string(op ? op : "p50"));
		json_object_set_new(series, "better", b ? json_string(b) : json_null());
		ret = display_units(db, db_rows_get(rows, newest, 10), row, series);
	}
	for (k = 0; ctxs && k < db_rows_count(rows); k++)
		json_decref(ctxs[k]);
	free(ctxs);
	db_rows_free(rows);
	json_object_set_new(series, "points", points);
	return ret;
}

/* Row @k of @rows (id, path, case_name, metric, labels of ksftm_series)
 * with its points appended to @all, unless the title filter or the
 * points' filters leave nothing of it. */
static int add_series(struct db *db, const char *sql,
		      const struct ksft_metric_report_history_opts *o, const char *const *like,
		      const char *keys, struct db_rows *rows, size_t k, struct strbuf *title,
		      json_t *all)
{
	json_t *path, *labels, *series;
	const char **parts;
	char row[64];
	size_t m;
	int ret;

	snprintf(row, sizeof(row), "ksftm_series.id = %.40s", db_rows_get(rows, k, 0));
	if ((ret = history_path_parts(db, db_rows_get(rows, k, 1), row, &path, &parts, &m)))
		return ret;
	if ((ret = history_json(db, db_rows_get(rows, k, 4), "ksftm_series.labels", row,
				&labels))) {
		free(parts);
		json_decref(path);
		return ret;
	}
	title->len = 0;
	canon_series_title(title, (char *const *)parts, m, db_rows_get(rows, k, 2),
			   db_rows_get(rows, k, 3), db_rows_get(rows, k, 4), -1);
	free(parts);
	if (title->oom || (o->series && !strstr(title->data, o->series))) {
		json_decref(path);
		json_decref(labels);
		return title->oom ? ksftm_oom() : 0;
	}
	series = json_pack("{s:s,s:s,s:o,s:s,s:o}", "series", title->data,
			   "case", db_rows_get(rows, k, 2), "path", path,
			   "metric", db_rows_get(rows, k, 3), "labels", labels);
	/* Its id, for the gate's band (removed before the JSON is shown). */
	if (series && json_object_set_new(series, "_sid", json_string(db_rows_get(rows, k, 0)))) {
		json_decref(series);
		series = NULL;
	}
	ret = series ? series_points(db, sql, db_rows_get(rows, k, 0), o, like, keys, series)
		     : ksftm_oom();
	if (!ret && json_array_size(json_object_get(series, "points")))
		ret = json_array_append(all, series) ? ksftm_oom() : 0;
	json_decref(series);
	return ret;
}

#define SERIES_COLUMNS "ksftm_series.id ksftm_series.path ksftm_series.case_name" \
	" ksftm_series.metric ksftm_series.labels"

/* Every series of the history, in id order. */
static int every_series(struct db *db, const char *sql,
			const struct ksft_metric_report_history_opts *o, const char *keys,
			struct strbuf *title, json_t *all)
{
	struct db_rows *rows = NULL;
	size_t k;
	int ret;

	if (!(ret = db_query(db, "SELECT id, path, case_name, metric, labels FROM ksftm_series"
			     " ORDER BY id", NULL, 0, &rows)))
		ret = db_rows_check(db, rows, SERIES_COLUMNS, 0, NULL);
	for (k = 0; !ret && k < db_rows_count(rows); k++)
		ret = add_series(db, sql, o, NULL, keys, rows, k, title, all);
	db_rows_free(rows);
	return ret;
}

/* Only the series of o->report, each by its identity (the UNIQUE index),
 * in the report's order: the work follows the report, never the history
 * (html --db, doc/regression-gate.rst). With o->context, only the runs
 * comparable with the report's run (its context with o->context over it),
 * as the gate's; without, every run (history_check.c names the contexts
 * found). */
static int report_series(struct history *h, const char *sql,
			 const struct ksft_metric_report_history_opts *o, const char *all_keys,
			 struct strbuf *title, json_t *all)
{
	struct history_run run = { 0 };
	struct db *db = history_db(h);
	size_t n = ksft_metric_report_series_count(o->report), i;
	char *keys = NULL, *cmp = NULL;
	const char *like[2];
	json_t *ctx = NULL;
	int ret = 0;

	run.context = o->context;
	run.n_context = o->n_context;
	if (!o->n_context) {
		like[0] = like[1] = NULL;
	} else if ((ret = history_run_context(o->report, &run, &ctx)) ||
	    (ret = history_comparable_keys(h, &keys))) {
		json_decref(ctx);
		return ret;
	}
	if (o->n_context) {
		cmp = history_comparable(ctx, keys);
		json_decref(ctx);
		if (!cmp) {
			free(keys);
			return ksftm_oom();
		}
		like[0] = keys;
		like[1] = cmp;
	}
	for (i = 0; !ret && i < n; i++) {
		struct ksft_metric_report_series s = { .sz = sizeof(s) };
		struct db_rows *rows = NULL;
		const char *p[4];
		char *path;

		if ((ret = ksft_metric_report_series_get(o->report, i, &s)))
			break;
		path = history_path_json(s.path, s.path_len);
		if (!path) {
			ret = ksftm_oom();
			break;
		}
		p[0] = path;
		p[1] = s.case_name;
		p[2] = s.name;
		p[3] = s.labels_json;
		if (!(ret = db_query(db, "SELECT id, path, case_name, metric, labels FROM ksftm_series"
				     " WHERE path = $1 AND case_name = $2 AND metric = $3"
				     " AND labels = $4", p, 4, &rows)))
			ret = db_rows_check(db, rows, SERIES_COLUMNS, 0, NULL);
		if (!ret && db_rows_count(rows))
			ret = add_series(db, sql, o, like[0] ? like : NULL, all_keys, rows, 0, title,
					 all);
		db_rows_free(rows);
		free(path);
	}
	free(keys);
	free(cmp);
	return ret;
}

int history_query_check(struct history *h, const struct ksft_metric_report_history_opts *o)
{
	size_t i;
	int ret;

	if ((ret = history_readable(h)))
		return ret;
	for (i = 0; i < o->n_context; i++)
		if (!o->context[i] || !strchr(o->context[i], '=') || o->context[i][0] == '=')
			return ksftm_fail(EINVAL, "context filter \"%s\" is not KEY=VALUE",
					  o->context[i] ? o->context[i] : "(null)");
	return 0;
}

int history_query_series(struct history *h, const struct ksft_metric_report_history_opts *o,
			 int bands, json_t **all_out, char **keys_out, char **run_cmp_out)
{
	struct db *db = history_db(h);
	char sql[sizeof(points_sql) + 24];
	struct strbuf title = STRBUF_INIT;
	json_t *all;
	char *keys = NULL, *run_cmp = NULL;
	int ret;

	*all_out = NULL;
	*keys_out = *run_cmp_out = NULL;
	if (!(all = json_array()))
		return ksftm_oom();
	/* With a context filter the SQL cannot tell which rows it keeps: every
	 * run of the series is read, and series_points() keeps the last. */
	snprintf(sql, sizeof(sql), points_sql, o->n_context ? (size_t)FILTERED_LIMIT :
		 o->last ? o->last : DEFAULT_LAST);
	ret = history_comparable_keys(h, &keys);
	if (!ret)
		ret = o->report ? report_series(h, sql, o, keys, &title, all)
				: every_series(db, sql, o, keys, &title, all);
	strbuf_free(&title);
	/* html --db: the band of the run judged is drawn from the runs its
	 * gate reads, those comparable with it (its context, --context over
	 * it), whatever runs the chart shows. */
	if (!ret && bands && o->report) {
		struct history_run run = { 0 };
		json_t *ctx = NULL;

		run.context = o->context;
		run.n_context = o->n_context;
		if (!(ret = history_run_context(o->report, &run, &ctx))) {
			run_cmp = history_comparable(ctx, keys);
			json_decref(ctx);
			if (!run_cmp)
				ret = ksftm_oom();
		}
	}
	if (ret) {
		json_decref(all);
		free(keys);
		free(run_cmp);
		return ret;
	}
	*all_out = all;
	*keys_out = keys;
	*run_cmp_out = run_cmp;
	return 0;
}

/*
 * The machines (comparability keys) that series of @all pool in one trend
 * (issue 40: history and site without --context mixed two runners without
 * saying so): each as an object of its keys, those of every series that
 * holds runs of more than one, in the order first met; an empty array when none
 * does. NULL: out of memory.
 */
static json_t *pooled_contexts(json_t *all)
{
	json_t *seen = json_object(), *mine = json_object(), *list = json_array(), *se, *pt, *v;
	const char *key;
	size_t i, k;

	if (!seen || !mine || !list)
		goto fail;
	json_array_foreach(all, i, se) {
		json_object_clear(mine);
		json_array_foreach(json_object_get(se, "points"), k, pt) {
			const char *cmp = json_string_value(json_object_get(pt, "_cmp"));

			if (cmp && json_object_set_new(mine, cmp, json_true()))
				goto fail;
		}
		if (json_object_size(mine) > 1 && json_object_update(seen, mine))
			goto fail;
	}
	json_object_foreach(seen, key, v) {
		json_t *obj = json_loads(key, 0, NULL);

		if (!obj || json_array_append_new(list, obj))
			goto fail;
	}
	json_decref(seen);
	json_decref(mine);
	return list;
fail:
	json_decref(seen);
	json_decref(mine);
	json_decref(list);
	return NULL;
}

int history_query_document(json_t *all, const char *keys, json_t **out)
{
	/* The keys that make runs comparable: what a context is told by. */
	json_t *keys_json = keys ? json_loads(keys, 0, NULL) : NULL, *se, *pt, *doc;
	json_t *pooled = pooled_contexts(all);
	size_t i, k;

	*out = NULL;
	if (!pooled) {
		json_decref(keys_json);
		return ksftm_oom();
	}
	json_array_foreach(all, i, se) {
		json_object_del(se, "_sid");
		json_array_foreach(json_object_get(se, "points"), k, pt) {
			json_object_del(pt, "_rep");
			json_object_del(pt, "_cmp");
			json_object_del(pt, "_ord");
		}
	}
	doc = json_pack("{s:s,s:i,s:o,s:O,s:o}", "format", "ksft-metric-history", "version", 1,
			"comparable_keys", keys_json ? keys_json : json_array(), "series", all,
			"pooled_contexts", pooled);
	if (!doc)
		return ksftm_oom();
	*out = doc;
	return 0;
}
