/*
 * The run history on the page (--db): a sparkline beside each verdict and,
 * above the cases, per series a trend over the runs (chart_trend.c), the
 * gated series first; every point's hover text says its run, order,
 * context and value.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"

#define HISTORY_RUNS 200	/* the last runs shown per series */

/*
 * Only the series on the page (the run's), each by its identity, each its
 * last HISTORY_RUNS results: the work follows the page, not the history
 * (issue 19). The gate beside it reads at most its window and its recent
 * runs per series (the library's window rule, lib/report/model/window_rule.h:
 * the noise and the CUSUM; doc/regression-gate.rst).
 */
int html_history_load(struct html_page *pg, struct ksft_metric_report_history *h,
		      const char *const *context, size_t n_context)
{
	struct ksft_metric_report_history_opts o = KSFT_METRIC_REPORT_HISTORY_OPTS_INIT;
	json_error_t err;
	int ret;
	char *text = NULL;
	size_t len;

	o.last = HISTORY_RUNS;
	o.report = pg->r;
	o.context = context;	/* the run's, as the gate's: its comparable runs */
	o.n_context = n_context;
	ret = ksft_metric_report_history_format(h, &o, KSFT_METRIC_REPORT_JSON, &text, &len);
	if (ret)
		return ret;
	pg->history = json_loadb(text, len, 0, &err);
	ksft_metric_report_text_free(text);
	return html_history_index(pg);
}

char *history_anchor(json_t *s)
{
	json_t *path = json_object_get(s, "path"), *p;
	const char **parts = calloc(json_array_size(path) + 1, sizeof(char *));
	char *labels = json_dumps(json_object_get(s, "labels"),
				  JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
	char *anchor = NULL;
	size_t k;

	if (parts && labels && json_is_string(json_object_get(s, "case")) &&
	    json_is_string(json_object_get(s, "metric"))) {
		json_array_foreach(path, k, p)
			parts[k] = json_string_value(p) ? json_string_value(p) : "";
		anchor = series_anchor(parts, json_array_size(path),
				       json_string_value(json_object_get(s, "case")),
				       json_string_value(json_object_get(s, "metric")), labels);
	}
	free(parts);
	free(labels);
	return anchor;
}

int html_history_index(struct html_page *pg)
{
	json_t *series, *s;
	size_t i;

	series = json_object_get(pg->history, "series");
	if (!json_is_array(series))
		return -EINVAL;	/* not the library's history document */
	json_array_foreach(series, i, s) {
		char *anchor = history_anchor(s);
		/* The index + 1, so that 0 still means "none". */
		int ret = anchor ? rank_map_put(&pg->hist_idx, anchor, (int)i + 1) : -ENOMEM;

		free(anchor);
		if (ret)
			return ret;
	}
	return 0;
}

static json_t *history_of(const struct html_page *pg, const char *anchor)
{
	int i = pg->history ? rank_map_get(&pg->hist_idx, anchor) : 0;

	return i ? json_array_get(json_object_get(pg->history, "series"), (size_t)i - 1) : NULL;
}

static int is_change(json_t *changes, size_t i, json_t **which)
{
	json_t *c;
	size_t k;

	json_array_foreach(changes, k, c)
		if (json_integer_value(json_object_get(c, "index")) == (json_int_t)i) {
			*which = c;
			return 1;
		}
	return 0;
}

/* Value range of the finite points, scaled. */
static int value_range(json_t *points, double scale, double *lo, double *hi)
{
	json_t *pt;
	size_t i, n = 0;

	*lo = INFINITY;
	*hi = -INFINITY;
	json_array_foreach(points, i, pt) {
		double v = json_number_value(json_object_get(pt, "value")) * scale;

		if (!json_is_number(json_object_get(pt, "value")) || !isfinite(v))
			continue;
		*lo = v < *lo ? v : *lo;
		*hi = v > *hi ? v : *hi;
		n++;
	}
	return n ? 0 : -ENOENT;	/* no finite value */
}

void html_sparkline(struct html_page *pg, const char *anchor, double scale,
		    const char *unit)
{
	json_t *s = history_of(pg, anchor), *points, *changes, *pt, *c;
	struct chart ch = { 2, 3, 116, 20, 0, 1, 0, 1 };
	double lo, hi, sc = isfinite(scale) ? scale : 1.0;
	size_t i, n;

	if (!s || value_range(points = json_object_get(s, "points"), sc, &lo, &hi)) {
		html_printf(&pg->out, "<td class=\"spark\"></td>");
		return;
	}
	changes = json_object_get(s, "changes");
	n = json_array_size(points);
	ch.xmax = n > 1 ? (double)(n - 1) : 1;
	ch.ymin = lo;
	ch.ymax = hi > lo ? hi : lo + 1;
	html_printf(&pg->out, "<td class=\"spark\"><svg xmlns=\"http://www.w3.org/2000/svg\" "
		    "width=\"120\" height=\"26\" viewBox=\"0 0 120 26\" role=\"img\">"
		    "<title>%zu runs, %zu change points</title><polyline fill=\"none\" "
		    "stroke=\"#555555\" stroke-width=\"1\" points=\"", n, json_array_size(changes));
	json_array_foreach(points, i, pt)
		if (json_is_number(json_object_get(pt, "value")))
			html_printf(&pg->out, "%.1f,%.1f ", chart_px(&ch, (double)i),
				    chart_py(&ch, json_number_value(json_object_get(pt, "value")) * sc));
	html_printf(&pg->out, "\"/>");
	json_array_foreach(points, i, pt) {
		int cp = is_change(changes, i, &c);

		if (!json_is_number(json_object_get(pt, "value")) || (!cp && i + 1 != n))
			continue;
		html_printf(&pg->out, "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\">",
			    cp ? "change" : "last", chart_px(&ch, (double)i),
			    chart_py(&ch, json_number_value(json_object_get(pt, "value")) * sc),
			    cp ? "#d62728" : "#1f77b4");
		if (cp)
			trend_change_title(&pg->out, c, scale, unit);
		else
			trend_point_title(&pg->out, pt, scale, unit);
		html_printf(&pg->out, "</circle>");
	}
	html_printf(&pg->out, "</svg></td>");
}


/* Verdict rows by anchor (index + 1), whole series only. */
static int row_index(struct html_page *pg, struct rank_map *rows)
{
	size_t n = pg->cmp ? ksft_metric_report_comparison_rows(pg->cmp) : 0, i;

	for (i = 0; i < n; i++) {
		struct ksft_metric_report_row row = { .sz = sizeof(row) };
		char *a;
		int ret;

		ret = ksft_metric_report_comparison_row(pg->cmp, i, &row);
		if (ret)
			return ret;
		if (row.element >= 0)
			continue;
		a = series_anchor(row.path, row.path_len, row.case_name, row.name,
				  row.labels_json);
		ret = a ? rank_map_put(rows, a, (int)i + 1) : -ENOMEM;
		free(a);
		if (ret)
			return ret;
	}
	return 0;
}

static int one_trend(struct html_page *pg, const struct rank_map *rows,
		     const struct ksft_metric_report_series *sj, const char *a)
{
	struct ksft_metric_report_row row = { .sz = sizeof(row) };
	json_t *s = history_of(pg, a);
	struct trend_marks mk = { 0 };
	struct svg body = { 0 };
	char *name = series_title(sj, T_FULL);
	double lo, hi, got;
	int ri = rank_map_get(rows, a);

	if (!name)
		return -ENOMEM;
	mk.title = name;
	mk.scale = sj->aggregation ? NAN : sj->display_scale;
	mk.unit = sj->aggregation ? "busy cores" : sj->display_label;
	if (ri && !ksft_metric_report_comparison_row(pg->cmp, (size_t)ri - 1, &row))
		mk.row = &row;
	if (value_range(json_object_get(s, "points"), isfinite(mk.scale) ? mk.scale : 1.0,
			&lo, &hi) || (lo == 0 && hi == 0)) {
		free(name);	/* never left 0: the case's "Always 0" line says it */
		return 0;
	}
	if (pg->trends >= HTML_MAX_TRENDS) {
		pg->trends_left_out++;
		free(name);
		return 0;
	}
	got = trend_chart(&body, s, &mk, HTML_TREND_W, HTML_CHART_H);
	free(name);
	if (got < 0 || body.oom) {
		svg_free(&body);
		return -ENOMEM;	/* trend_chart() fails only out of memory */
	}
	/* "t-...": the trend of the series whose row is "s-..." */
	html_printf(&pg->out, "<figure class=\"chart trend\" id=\"t%s\">%.*s</figure>\n",
		    a + 1, (int)body.len, body.data ? body.data : "");
	svg_free(&body);
	pg->trends++;
	return 0;
}

int html_history_section(struct html_page *pg)
{
	size_t n = ksft_metric_report_series_count(pg->r), i;
	struct rank_map rows = { 0 };
	int rank, ret = -1;

	if (!pg->history)
		return 0;
	if (row_index(pg, &rows))
		goto out;
	html_printf(&pg->out, "<section id=\"history\">\n<h2>History</h2>\n<p class=\"note\">"
		    "Each series over the stored runs (oldest left) and this run; shaded: the "
		    "gate's band (a run beyond its orange line alarms on its own; the CUSUM "
		    "also catches smaller lasting changes), dashed grey: the tolerance around "
		    "its baseline, dashed red: change points, green: accepted levels, purple: "
		    "pinned baselines. Hover a mark for its run, context and value.</p>\n"
		    "<div class=\"grid trends\">\n");
	/* Regressions and improvements, then noise and missing, then no change, then the rest. */
	for (rank = 3; rank >= 0; rank--)
		for (i = 0; i < n; i++) {
			struct ksft_metric_report_series sj = { .sz = sizeof(sj) };
			char *a;
			int r;

			if (ksft_metric_report_series_get(pg->r, i, &sj))
				goto out;
			a = series_anchor(sj.path, sj.path_len, sj.case_name, sj.name,
					  sj.labels_json);
			if (!a)
				goto out;
			r = rank_map_get(&pg->ranks, a) == rank && history_of(pg, a) ?
			    one_trend(pg, &rows, &sj, a) : 0;
			free(a);
			if (r)
				goto out;
		}
	html_printf(&pg->out, "</div>\n");
	if (!pg->trends)
		html_printf(&pg->out, "<p class=\"note\">No series of this run is in the history yet.</p>\n");
	html_printf(&pg->out, "</section>\n");
	ret = 0;
out:
	rank_map_free(&rows);
	return ret;
}
