/*
 * ksft-metric html: one self-contained page (inline CSS and SVG, no
 * script, nothing fetched) built in parts: verdicts first, then a section
 * per case with its numbers and charts.
 */
#ifndef KSFT_METRIC_HTML_H
#define KSFT_METRIC_HTML_H

#include <stddef.h>

#include <jansson.h>
#include <ksftmetric/report.h>

#include "chart.h"

/*
 * What a page shows at most, so that its cost and size stay bounded
 * whatever the log: the rest is counted and the page says so.
 */
#define HTML_MAX_CHARTS 120	/* the most important first */
#define HTML_MAX_CASES 400	/* case sections */
#define HTML_MAX_ROWS 60	/* numbers rows per case */
#define HTML_MAX_VERDICTS 5000	/* regressions and improvements listed */
#define HTML_MAX_TRENDS 120	/* history charts (--db) */
#define HTML_CHART_W 470.0	/* one small multiple */
#define HTML_CHART_H 130.0
#define HTML_TREND_W 640.0	/* one history chart: room for the runs' names */

/* A set of anchor ids with a rank: how much a series matters. */
struct rank_map {
	char **keys;
	int *rank;
	size_t cap, n;
};

int rank_map_put(struct rank_map *m, const char *key, int rank);
int rank_map_get(const struct rank_map *m, const char *key);	/* 0: absent */
void rank_map_free(struct rank_map *m);

/*
 * The id of a series' anchor: readable ("s-" and the case, metric and
 * labels squeezed to [a-z0-9-]) and unique (64 bits of a hash of the
 * identity behind it, path included; checked against every anchor given
 * to another identity in this process, a taken one gets "-2", "-3"...),
 * the same in every page made from the same series.
 */
char *series_anchor(const char *const *path, size_t path_len,
		    const char *case_name, const char *name,
		    const char *labels_json);
/* Forget the anchors handed out (the next page or site starts afresh). */
void series_anchors_reset(void);

struct html_page {
	struct svg out;
	const struct ksft_metric_report *r;
	const struct ksft_metric_report_comparison *cmp;	/* NULL: no baseline */
	struct rank_map ranks;	/* anchors of series with a verdict worth a look */
	/* What was left out, for the summary at the top. */
	size_t charts, charts_wanted, cases, cases_shown, rows_left_out;
	size_t verdicts_left_out, lines_left_out;
	/* --db: the history document and its series by anchor (index + 1). */
	json_t *history;
	struct rank_map hist_idx;
	size_t trends, trends_left_out;
};

/* Append @text escaped for HTML (same rules as SVG text). */
#define html_escape svg_escape
#define html_printf svg_printf

/* The verdict table and counts; fills ranks. Returns -1 on failure. */
int html_verdicts(struct html_page *pg);
/* The case sections; returns -1 on failure. */
int html_cases(struct html_page *pg);
/* Read the history of @h (--db) into @pg: the runs comparable with the
 * page's run (its context with the @context items over it, as the gate
 * judged it); -1 on failure (errmsg says). */
int html_history_load(struct html_page *pg, struct ksft_metric_report_history *h,
		      const char *const *context, size_t n_context);
/* The anchor of a series of the history JSON (malloc'd; NULL: OOM or bad). */
char *history_anchor(json_t *s);
/* Index pg->history's series by anchor (after loading it); -1 on failure. */
int html_history_index(struct html_page *pg);
/* A <td> with the sparkline of the series at @anchor (empty without). */
void html_sparkline(struct html_page *pg, const char *anchor, double scale,
		    const char *unit);
/*
 * The History section (--db), above the cases: per series its trend over
 * the runs, the gated series first in the verdict table's order, each
 * with the current run and the gate's band, tolerance and marks.
 */
int html_history_section(struct html_page *pg);

/* What a trend chart marks beside the stored points (chart_trend.c). */
struct trend_marks {
	const char *title;
	double scale;		/* display scale, NaN: none */
	const char *unit;	/* NULL: "value" */
	const struct ksft_metric_report_row *row;	/* the current run's verdict
				   row (current value, baseline, tolerance);
				   NULL: the newest stored run is the latest */
};

/*
 * An <svg> of one history series (an element of the "series" array of
 * ksft_metric_report_history_format()'s JSON) @width wide with a plot
 * @height tall: runs named on the x axis, the current (or newest) run
 * marked, the gate's band (the JSON's "gate"), tolerance, change points, accepted
 * levels and pinned runs drawn, a legend of them. Returns the height
 * used, 0 when the series has no value, -1 on failure.
 */
double trend_chart(struct svg *out, json_t *series, const struct trend_marks *mk,
		   double width, double height);
/* Hover texts of a point and of a change point. */
void trend_point_title(struct svg *s, json_t *pt, double scale, const char *unit);
void trend_change_title(struct svg *s, json_t *c, double scale, const char *unit);

#endif
