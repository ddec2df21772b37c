/*
 * The gate's band of each series in the history document ("gate", what
 * html --db and site draw): the gate's own inputs, read for the judged
 * run by the gate's reader, judged by gate_band.c (history_judge.h).
 */
#include <errno.h>
#include <jansson.h>
#include <ksftmetric/report.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "gate_band.h"
#include "history_judge.h"
#include "history_run_read.h"
#include "window_rule.h"
#include "report.h"
#include "verdict_vocab.h"

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/*
 * The gate's band (gate_band.h) on each series of the history document,
 * as "gate": for the latest point (judged against the runs before it, as
 * at its ingest) or, with a report, for the next run (html --db's). The
 * gate's inputs are the gate's own: the window set
 * store/history_window_read.c reads for the run judged (the stored run
 * read back as a report, store/history_run_read.h, or the report), so the
 * band cannot drift from the gate. The points say only which run is
 * judged, its value and repeats, and where the window starts on the
 * chart. Series whose judged run is the same are judged together (their
 * budgets share the run's q, as at ingest).
 */

/* The window set of one run judged: a stored run, or the report's. */
struct band_src {
	const char *ord;	/* the stored run's order; NULL: the report */
	struct db_rows *rows;
	struct ksft_metric_report *stored;
	const struct ksft_metric_report *r;
	struct history_key *keys;
	size_t n;
	char *cmp;
	struct history_window_set set;
	int have_set;
};

struct band_in {
	char *group;
	const char *ord;	/* the judged point's stored order (latest) */
	long long sid;		/* the series' id */
	size_t from;		/* the window's first point */
	size_t end;		/* the judged point (latest), or past the last */
	const struct band_src *src;
	size_t k;		/* the series in src's report */
};

static int is_state(json_t *pt, const char *st)
{
	const char *v = json_string_value(json_object_get(pt, "state"));

	return v && !strcmp(v, st);
}

/* The repeats of point @pt and their variance (0, NaN: unknown). */
static void rep_of(json_t *pt, size_t *r, double *var)
{
	json_t *rep = json_object_get(pt, "_rep");

	*r = (size_t)json_integer_value(json_array_get(rep, 0));
	*var = json_number_value(json_array_get(rep, 1));
	if (!json_is_array(rep) || *var < 0)
		*var = NAN;
}

/* Is point @pt of the machines the band is drawn for (@cmp: their
 * comparability key; NULL: any)? */
static int of_machines(json_t *pt, const char *cmp)
{
	const char *c = json_string_value(json_object_get(pt, "_cmp"));

	return !cmp || (c && !strcmp(c, cmp));
}

/*
 * What the points of series @series say: the run judged (the newest
 * comparable point, its machines the band's; @next: the run after them
 * all, on the report's machines @next_cmp), its value and repeats.
 */
static int band_point(json_t *series, int next, const char *next_cmp, struct gate_series *g,
		      struct band_in *in)
{
	json_t *points = json_object_get(series, "points"), *pt;
	size_t n = json_array_size(points);
	const char *b = json_string_value(json_object_get(series, "better"));
	char *path = json_dumps(json_object_get(series, "path"), JSON_COMPACT | JSON_ENCODE_ANY);
	const char *cs = json_string_value(json_object_get(series, "case"));
	const char *cmp = next_cmp, *sid = json_string_value(json_object_get(series, "_sid"));

	memset(g, 0, sizeof(*g));
	g->current = NAN;
	g->rel_tol = g->abs_tol = g->within = NAN;
	g->better = b && !strcmp(b, "higher") ? 1 : b && !strcmp(b, "lower") ? -1 : 0;
	in->sid = sid ? strtoll(sid, NULL, 10) : 0;
	in->group = malloc((path ? strlen(path) : 0) + (cs ? strlen(cs) : 0) + 2);
	if (!in->group || !path) {
		free(path);
		return -ENOMEM;
	}
	sprintf(in->group, "%s\n%s", path, cs ? cs : "");
	free(path);
	/* Runs from a debug kernel are no measurement: the latest judged run is
	 * the newest comparable one, and its machines are the band's. */
	while (n && is_state(json_array_get(points, n - 1), KSFTM_VERDICT_NOT_COMPARABLE))
		n--;
	if (!next && n)
		cmp = json_string_value(json_object_get(json_array_get(points, n - 1), "_cmp"));
	while (n && (is_state(json_array_get(points, n - 1), KSFTM_VERDICT_NOT_COMPARABLE) ||
		     !of_machines(json_array_get(points, n - 1), cmp)))
		n--;
	in->end = in->from = next ? n : n ? n - 1 : 0;
	if (next || !n)
		return 0;
	pt = json_array_get(points, n - 1);
	in->ord = json_string_value(json_object_get(pt, "_ord"));
	if (!json_is_number(json_object_get(pt, "value")))
		return 0;	/* no value judged: no band */
	g->current = json_number_value(json_object_get(pt, "value"));
	rep_of(pt, &g->repeats, &g->within);
	return 0;
}

/* The window set of the run judged at stored order @src->ord, of the
 * series @in[0..n) draw from it (or the report's, on machines @src->cmp),
 * as the gate reads it. */
static int band_read(struct db *db, struct band_src *src, const struct band_in *in, size_t n)
{
	struct hgate_opts o = { 0 };
	char *run_id = NULL;
	long long *only;
	size_t i, m = 0;
	int ret;

	if (src->ord) {
		if ((ret = history_run_read_at(db, src->ord, &run_id, &src->cmp)))
			return ret;
		if (!run_id)
			return 0;	/* (a run the history lost since it was read) */
		/* Only the series drawn: a run of a thousand series is read for
		 * the one a chart shows. */
		only = malloc((n ? n : 1) * sizeof(*only));
		for (i = 0; only && i < n; i++)
			if (in[i].src == src)
				only[m++] = in[i].sid;
		if (only)
			qsort(only, m, sizeof(*only), history_series_id_cmp);
		ret = only ? history_run_read(db, run_id, only, m, &src->rows, &src->stored,
					      &src->keys) : -ENOMEM;
		free(only);
		free(run_id);
		if (ret)
			return ret;
		src->r = src->stored;
		src->n = ksft_metric_report_series_count(src->r);
	} else {
		src->n = ksft_metric_report_series_count(src->r);	/* (keys freed by it) */
		if ((ret = history_window_lookup_keys(db, src->r, &src->keys)))
			return ret;
	}
	o = (struct hgate_opts){ .comparable = src->cmp, .order = src->ord,
				 .allow_missing = 1, .windows_only = 1 };
	if ((ret = history_window_read(db, src->r, &o, src->keys, &src->set)))
		return ret;
	src->have_set = 1;
	return 0;
}

/* Series @in's inputs from its run's window set (none: no window). */
static void band_inputs(json_t *series, struct gate_series *g, struct band_in *in)
{
	json_t *points = json_object_get(series, "points"), *pt;
	const struct history_window_in *w;
	size_t k, i;

	if (!in->src || !in->src->have_set)
		return;
	for (k = 0; k < in->src->n && in->src->keys[k].id != in->sid; k++)
		;
	if (!in->sid || k == in->src->n)
		return;
	w = &in->src->set.in[k];
	if (!w->read || !w->n_rows || w->n_elem != 1 || in->src->r->series[k]->is_array)
		return;
	g->window = w->elem[0].window;
	g->n_window = w->elem[0].n_window;
	g->fresh = w->pinned;
	if (w->wants_recent) {
		g->recent = w->recent;
		g->n_recent = w->n_recent;
		g->recent_repeats = w->repeats;
		g->recent_within = w->within;
	}
	/* Where the level's window starts on the chart (its oldest run). */
	json_array_foreach(points, i, pt) {
		const char *ord = json_string_value(json_object_get(pt, "_ord"));

		if (w->elem[0].oldest && ord && !strcmp(ord, w->elem[0].oldest)) {
			in->from = i;
			break;
		}
	}
}

static json_t *band_json(const struct gate_band *b, const struct gate_series *g,
			 const struct band_in *in, int next)
{
	json_t *o;

	if (!b->judged) {
		char why[160];

		if (!g->better)
			snprintf(why, sizeof(why), "the policy gives no direction (untracked)");
		else if (!next && !isfinite(g->current))
			snprintf(why, sizeof(why), "the latest run has no value");
		else
			snprintf(why, sizeof(why), "%zu runs in the gate's window; it judges from %zu on",
				 g->n_window, (size_t)5);
		return json_pack("{s:b,s:s,s:I,s:s}", "judged", 0,
				 "applies_to", next ? "next" : "latest",
				 "runs", (json_int_t)g->n_window, "reason", why);
	}
	o = json_pack("{s:b,s:s,s:I,s:I,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}",
		      "judged", 1, "applies_to", next ? "next" : "latest",
		      "runs", (json_int_t)g->n_window, "from", (json_int_t)in->from,
		      "level", num_or_null(b->level),
		      "alarm_worse", num_or_null(b->worse), "alarm_better", num_or_null(b->better),
		      "z_alarm", num_or_null(b->z_alarm), "budget", num_or_null(b->budget),
		      "sigma_pct", num_or_null(b->sigma * 100.0),
		      "sigma_between_pct", num_or_null(b->sigma_between * 100.0),
		      "sigma_within_pct", num_or_null(b->sigma_within * 100.0),
		      "h", num_or_null(b->h), "cusum_before", num_or_null(b->cusum_before),
		      "cusum", num_or_null(b->cusum), "z", num_or_null(b->z),
		      "fresh", g->fresh ? json_true() : json_false());
	return o;
}

int history_band_add(struct history *h, json_t *all, const struct ksft_metric_report *report,
		      const char *next_cmp)
{
	size_t n = json_array_size(all), i, j, m, n_src = 0;
	int next = report != NULL;
	struct gate_series *g = calloc(n ? n : 1, sizeof(*g)), *run = NULL;
	struct band_in *in = calloc(n ? n : 1, sizeof(*in));
	struct band_src *src = calloc(n + 1, sizeof(*src));
	struct gate_band *b = calloc(n ? n : 1, sizeof(*b));
	size_t *idx = malloc((n ? n : 1) * sizeof(*idx));
	unsigned char *done = calloc(n ? n : 1, 1);
	int ret = 0;

	if (!g || !in || !src || !b || !idx || !done) {
		ret = -ENOMEM;
		goto out;
	}
	run = calloc(n ? n : 1, sizeof(*run));
	if (!run) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n && !ret; i++)
		ret = band_point(json_array_get(all, i), next, next_cmp, &g[i], &in[i]);
	/* The window sets: the report's, or each judged stored run's, once. */
	if (!ret && next) {
		src[n_src].r = report;
		if (!(src[n_src++].cmp = strdup(next_cmp ? next_cmp : "")))
			ret = -ENOMEM;
		for (i = 0; i < n; i++)
			in[i].src = &src[0];
	}
	for (i = 0; i < n && !ret && !next; i++) {
		if (!in[i].ord)
			continue;
		for (j = 0; j < n_src && strcmp(src[j].ord, in[i].ord); j++)
			;
		if (j == n_src)
			src[n_src++].ord = in[i].ord;
		in[i].src = &src[j];
	}
	for (j = 0; j < n_src && !ret; j++)
		ret = band_read(history_db(h), &src[j], in, n);
	for (i = 0; i < n && !ret; i++)
		band_inputs(json_array_get(all, i), &g[i], &in[i]);
	/* The series judged in one run, together. */
	for (i = 0; i < n && !ret; i++) {
		struct gate_band *rb = b;

		if (done[i])
			continue;
		for (j = i, m = 0; j < n; j++)
			if (!done[j] && (next || in[j].src == in[i].src)) {
				done[j] = 1;
				idx[m] = j;
				run[m++] = g[j];
			}
		if (gate_band_judge(run, m, NULL, rb)) {
			ret = -ENOMEM;
			break;
		}
		for (j = 0; j < m; j++) {
			json_t *o = band_json(&rb[j], &run[j], &in[idx[j]], next);

			if (!o || json_object_set_new(json_array_get(all, idx[j]), "gate", o)) {
				ret = -ENOMEM;
				break;
			}
		}
	}
out:
	for (j = 0; src && j < n_src; j++) {
		if (src[j].have_set)
			history_window_set_free(&src[j].set);
		/* The report's keys own their paths; a stored run's point into
		 * its rows. */
		for (i = 0; !src[j].ord && src[j].keys && i < src[j].n; i++)
			free((char *)src[j].keys[i].path);
		free(src[j].keys);
		ksft_metric_report_free(src[j].stored);
		db_rows_free(src[j].rows);
		free(src[j].cmp);
	}
	for (i = 0; in && i < n; i++)
		free(in[i].group);
	free(g);
	free(run);
	free(in);
	free(src);
	free(b);
	free(idx);
	free(done);
	return ret == -ENOMEM ? ksftm_oom() : ret;
}
