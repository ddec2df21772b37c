/*
 * Charts shared by ksft-metric plot (one SVG) and html (one SVG per chart):
 * which series to draw and how, line charts, CPU x time heatmaps. Each
 * chart draws into a box at (x, y) of a given width and says how tall it
 * came out, so callers lay charts out as small multiples.
 */
#ifndef KSFT_METRIC_CHART_H
#define KSFT_METRIC_CHART_H

#include <stddef.h>

#include <ksftmetric/report.h>

#include "svg.h"

/* Caps that keep a chart's cost and size linear in its input. */
#define CHART_MAX_LINES 20	/* lines per chart */
#define CHART_MAX_VERTICES 2000	/* vertices per line (min/max buckets) */
#define CHART_MAX_COLUMNS 300	/* heatmap time columns */
#define CHART_MAX_ROWS 256	/* heatmap rows: wider arrays are binned */

/* What to put in a series' name. */
enum { T_LABELS, T_FULL, T_SERIES };

/* "path / case: metric labels" (as @what asks); malloc'd, NULL on OOM. */
char *series_title(const struct ksft_metric_report_series *si, int what);
/* "metric labels": what a list names within the case's section (malloc'd). */
char *series_short_name(const struct ksft_metric_report_series *si);
/* "path / case": the case a series belongs to, as plot's and html's section
 * heading (malloc'd, NULL on OOM). */
char *series_case_heading(const struct ksft_metric_report_series *si);
double scale_of(const struct ksft_metric_report_series *si);
/*
 * Cut @s (in place) to what fits in @px pixels at @font px, an ellipsis
 * marking the cut; returns @s. Widths are estimated generously so that
 * labels do not run into each other in any sans-serif font.
 */
char *fit_text(char *s, double px, double font);
/* Estimated width of @s at @font px. */
double text_width(const char *s, double font);

/* How a series is best shown. */
enum series_kind {
	KIND_EMPTY,	/* no finite value */
	KIND_ZERO,	/* every value is 0: one line of text */
	KIND_SINGLE,	/* one point of one value: a number */
	KIND_LINES,	/* a line chart */
	KIND_HEATMAP,	/* an array over time */
};

/*
 * The kind of series @idx at @stage; with KIND_SINGLE *@value is the
 * (unscaled) value. Returns -1 if the points cannot be read.
 */
int series_kind(const struct ksft_metric_report *r, size_t idx, int stage,
		double *value);

/*
 * Series grouped by (path, case, metric, array or not): groups in order
 * of first appearance, members in report order; linear in the series.
 */
struct groups {
	size_t n;
	size_t *order;		/* series indices, group after group */
	size_t *start;		/* group g is order[start[g] .. start[g + 1]) */
};

int groups_build(const struct ksft_metric_report *r, struct groups *g);
void groups_free(struct groups *g);

/*
 * A line chart of @n series (@members) at @stage, individual (times
 * display_scale, within display_range) or aggregated totals, drawn at
 * (@x, @y) in @w x @h pixels of plot area plus its margins, a legend of
 * the labels below. At most CHART_MAX_LINES lines; *@left_out (may be
 * NULL) is increased by those not drawn. Returns the height used, 0 when
 * nothing could be drawn, -1 on failure.
 */
double chart_lines(struct svg *s, const struct ksft_metric_report *r,
		   const size_t *members, size_t n, int stage, int individual,
		   double x, double y, double w, double h, const char *title,
		   const char *ylabel, size_t *left_out);

/*
 * A CPU x time heatmap of array series @idx at (@x, @y), @w wide: row
 * height and CPU labels chosen so that 2 to 512 CPUs stay legible, a
 * colour legend beside it. Returns the height used, 0 for nothing, -1.
 */
double chart_heatmap(struct svg *s, const struct ksft_metric_report *r,
		     size_t idx, double x, double y, double w, const char *title);

/* Margins around a plot area: the box is (LEFT + w + RIGHT) wide. */
#define CHART_LEFT 72.0
#define CHART_RIGHT 16.0
#define CHART_TOP 28.0
#define CHART_BOTTOM 40.0

#endif
