/*
 * The run history on the page (--db): a sparkline beside each verdict and
 * per series a trend over the runs, change points marked; every point's
 * hover text says its run, order, context and value.
 */
#define _GNU_SOURCE
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
 * (issue 19). The gate beside it reads at most its window (30 runs) and
 * the level-shift rule's 63 per series (doc/regression-gate.rst).
 */
int html_history_load(struct html_page *pg, struct ksft_metric_report_history *h)
{
	struct ksft_metric_report_history_opts o = KSFT_METRIC_REPORT_HISTORY_OPTS_INIT;
	json_error_t err;
	json_t *series, *s;
	char *text = NULL;
	size_t len, i;

	o.last = HISTORY_RUNS;
	o.report = pg->r;
	if (ksft_metric_report_history_format(h, &o, KSFT_METRIC_REPORT_JSON, &text, &len))
		return -1;
	pg->history = json_loadb(text, len, 0, &err);
	ksft_metric_report_text_free(text);
	series = json_object_get(pg->history, "series");
	if (!json_is_array(series))
		return -1;
	json_array_foreach(series, i, s) {
		json_t *path = json_object_get(s, "path"), *p;
		const char **parts = calloc(json_array_size(path) + 1, sizeof(char *));
		char *labels = json_dumps(json_object_get(s, "labels"),
					  JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
		char *anchor = NULL;
		size_t k;
		int ret = -1;

		if (parts && labels && json_is_string(json_object_get(s, "case")) &&
		    json_is_string(json_object_get(s, "metric"))) {
			json_array_foreach(path, k, p)
				parts[k] = json_string_value(p) ? json_string_value(p) : "";
			anchor = series_anchor(parts, json_array_size(path),
					       json_string_value(json_object_get(s, "case")),
					       json_string_value(json_object_get(s, "metric")),
					       labels);
			/* The index + 1, so that 0 still means "none". */
			ret = anchor ? rank_map_put(&pg->hist_idx, anchor, (int)i + 1) : -1;
		}
		free(parts);
		free(labels);
		free(anchor);
		if (ret)
			return -1;
	}
	return 0;
}

static json_t *history_of(const struct html_page *pg, const char *anchor)
{
	int i = pg->history ? rank_map_get(&pg->hist_idx, anchor) : 0;

	return i ? json_array_get(json_object_get(pg->history, "series"), (size_t)i - 1) : NULL;
}

/* "run r21 (2026-...) ci_order=5: 20.1 Gbit/s, regression" for a <title>. */
static void point_title(struct svg *s, json_t *pt, double scale, const char *unit)
{
	json_t *ctx = json_object_get(pt, "context"), *v;
	const char *key, *state = json_string_value(json_object_get(pt, "state"));
	char buf[128];

	svg_printf(s, "<title>run ");
	svg_escape(s, json_string_value(json_object_get(pt, "run")) ?
		   json_string_value(json_object_get(pt, "run")) : "?");
	if (json_string_value(json_object_get(pt, "order"))) {
		svg_printf(s, " (");
		svg_escape(s, json_string_value(json_object_get(pt, "order")));
		svg_printf(s, ")");
	}
	json_object_foreach(ctx, key, v) {
		char *t = json_is_string(v) ? NULL : json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);

		svg_printf(s, " ");
		svg_escape(s, key);
		svg_printf(s, "=");
		svg_escape(s, json_is_string(v) ? json_string_value(v) : t ? t : "?");
		free(t);
	}
	value_text(buf, sizeof(buf), json_number_value(json_object_get(pt, "value")),
		   scale, unit);
	svg_printf(s, ": ");
	svg_escape(s, buf);
	if (state) {
		svg_printf(s, ", ");
		svg_escape(s, state);
	}
	svg_printf(s, "</title>");
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

static void change_title(struct svg *s, json_t *c, double scale, const char *unit)
{
	char before[96], after[96];

	value_text(before, sizeof(before), json_number_value(json_object_get(c, "before")),
		   scale, unit);
	value_text(after, sizeof(after), json_number_value(json_object_get(c, "after")),
		   scale, unit);
	svg_printf(s, "<title>change point at run ");
	svg_escape(s, json_string_value(json_object_get(c, "run")) ?
		   json_string_value(json_object_get(c, "run")) : "?");
	svg_printf(s, ": ");
	svg_escape(s, before);
	svg_printf(s, " to ");
	svg_escape(s, after);
	if (json_is_number(json_object_get(c, "change_pct")))
		svg_printf(s, " (%+.1f%%)", json_number_value(json_object_get(c, "change_pct")));
	svg_printf(s, "</title>");
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
	return n ? 0 : -1;
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
			change_title(&pg->out, c, scale, unit);
		else
			point_title(&pg->out, pt, scale, unit);
		html_printf(&pg->out, "</circle>");
	}
	html_printf(&pg->out, "</svg></td>");
}

int html_trend(struct html_page *pg, const char *anchor, const char *title,
	       double scale, const char *unit)
{
	json_t *s = history_of(pg, anchor), *points, *changes, *pt, *c;
	double lo, hi, sc = isfinite(scale) ? scale : 1.0, h = HTML_CHART_H;
	double w = HTML_CHART_W - CHART_LEFT - CHART_RIGHT, total;
	struct svg body = { 0 };
	struct chart ch;
	size_t i, n;
	char *text;

	if (!s || value_range(points = json_object_get(s, "points"), sc, &lo, &hi))
		return 0;
	if (lo == 0 && hi == 0)
		return 0;	/* never left 0: the case's "Always 0" line says it */
	if (pg->trends >= HTML_MAX_TRENDS) {
		pg->trends_left_out++;
		return 0;
	}
	changes = json_object_get(s, "changes");
	n = json_array_size(points);
	nice_range(&lo, &hi);
	ch = (struct chart){ CHART_LEFT, CHART_TOP, w, h, -0.5, (double)n - 0.5, lo, hi };
	chart_axes(&body, &ch, NULL, "run (oldest to newest)", unit ? unit : "value");
	text = strdup(title);
	if (!text)
		return -1;
	svg_text(&body, 4, 16, "start", 13, "#000000", fit_text(text, CHART_LEFT + w - 8, 13));
	free(text);
	json_array_foreach(changes, i, c) {
		double x = chart_px(&ch, (double)json_integer_value(json_object_get(c, "index")) - 0.5);

		svg_printf(&body, "<line class=\"change\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			   "stroke=\"#d62728\" stroke-width=\"2\" stroke-dasharray=\"4 3\">",
			   x, ch.y, x, ch.y + ch.h);
		change_title(&body, c, scale, unit);
		svg_printf(&body, "</line>\n");
	}
	svg_printf(&body, "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1.5\" points=\"");
	json_array_foreach(points, i, pt)
		if (json_is_number(json_object_get(pt, "value")))
			svg_printf(&body, "%.1f,%.1f ", chart_px(&ch, (double)i),
				   chart_py(&ch, json_number_value(json_object_get(pt, "value")) * sc));
	svg_printf(&body, "\"/>\n");
	json_array_foreach(points, i, pt) {
		const char *state = json_string_value(json_object_get(pt, "state"));

		if (!json_is_number(json_object_get(pt, "value")))
			continue;
		svg_printf(&body, "<circle class=\"point\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\">",
			   chart_px(&ch, (double)i),
			   chart_py(&ch, json_number_value(json_object_get(pt, "value")) * sc),
			   state && !strcmp(state, "regression") ? "#d62728" :
			   state && !strcmp(state, "improvement") ? "#2ca02c" : "#1f77b4");
		point_title(&body, pt, scale, unit);
		svg_printf(&body, "</circle>\n");
	}
	total = CHART_TOP + h + CHART_BOTTOM;
	anchor = anchor + 1;	/* "t-...": the trend beside the row "s-..." */
	html_printf(&pg->out, "<figure class=\"chart trend\" id=\"t%s\">"
		    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		    "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" role=\"img\"><title>",
		    anchor, HTML_CHART_W, total, HTML_CHART_W, total);
	html_escape(&pg->out, title);
	html_printf(&pg->out, "</title>\n%.*s</svg></figure>\n", (int)body.len,
		    body.data ? body.data : "");
	svg_free(&body);
	pg->trends++;
	return 0;
}
