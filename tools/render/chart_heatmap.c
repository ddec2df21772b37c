/*
 * CPU x time heatmaps: columns bin the points, rows bin the array's
 * elements, a cell is the mean of its finite values. Row height and CPU
 * labels are chosen per width so that 2 and 512 CPUs both stay legible;
 * the colour legend is tall enough that its numbers never touch.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"

#define LEVELS 16
#define LEGEND_W 96.0		/* bar, gap and its numbers */
#define LEGEND_MIN_H 48.0	/* room for three numbers one above another */
#define LABEL_GAP 13.0		/* pixels between CPU labels (10 px font) */

static void heat_color(double f, char *buf, size_t n)
{
	static const double stops[3][3] = {
		{ 247, 251, 255 }, { 107, 174, 214 }, { 8, 48, 107 },
	};
	double rgb[3];
	int k, seg = f < 0.5 ? 0 : 1;
	double g = f < 0.5 ? f * 2 : (f - 0.5) * 2;

	for (k = 0; k < 3; k++)
		rgb[k] = stops[seg][k] + g * (stops[seg + 1][k] - stops[seg][k]);
	snprintf(buf, n, "#%02x%02x%02x", (int)rgb[0], (int)rgb[1], (int)rgb[2]);
}

static int heat_level(double x, double lo, double hi)
{
	double f;

	if (!isfinite(x))
		return -1;
	f = hi > lo ? (x - lo) / (hi - lo) : 0;
	f = f < 0 ? 0 : f > 1 ? 1 : f;
	return (int)(f * (LEVELS - 1) + 0.5);
}

/* CPU numbers down the left, every @step-th, never closer than LABEL_GAP. */
static void cpu_labels(struct svg *s, const struct chart *c, size_t width)
{
	double per = c->h / (double)width;
	size_t step = 1, e;
	char buf[32];

	while ((double)step * per < LABEL_GAP)
		step *= 2;
	for (e = 0; e < width; e += step) {
		double py = c->y + c->h - ((double)e + 0.5) * per;

		snprintf(buf, sizeof(buf), "%zu", e);
		svg_text(s, c->x - 6, py + 3.5, "end", 10, "#333333", buf);
	}
}

/* The colour scale: a bar of LEVELS steps, lo at the bottom, hi on top. */
static void legend(struct svg *s, double x, double y, double h, double lo,
		   double hi)
{
	char color[16], buf[32];
	int i;

	for (i = 0; i < LEVELS; i++) {
		heat_color((double)i / (LEVELS - 1), color, sizeof(color));
		svg_rect(s, x, y + h - (double)(i + 1) * h / LEVELS, 12, h / LEVELS, color);
	}
	svg_printf(s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"%.1f\" fill=\"none\" stroke=\"#888888\"/>\n",
		   x, y, h);
	snprintf(buf, sizeof(buf), "%.3g", hi);
	svg_text(s, x + 16, y + 9, "start", 10, "#333333", buf);
	snprintf(buf, sizeof(buf), "%.3g", (lo + hi) / 2);
	svg_text(s, x + 16, y + h / 2 + 3.5, "start", 10, "#333333", buf);
	snprintf(buf, sizeof(buf), "%.3g", lo);
	svg_text(s, x + 16, y + h - 1, "start", 10, "#333333", buf);
}

double chart_heatmap(struct svg *s, const struct ksft_metric_report *r,
		     size_t idx, double x, double y, double w, const char *title)
{
	struct ksft_metric_report_series si = { .sz = sizeof(si) };
	struct ksft_metric_report_points v;
	double lo = INFINITY, hi = -INFINITY, scale, *cell = NULL;
	double rowh, tmin = INFINITY, tmax = -INFINITY, ret = -1, lh;
	size_t *cnt = NULL, cols, rows, c, j, i, width;
	struct chart ch;
	char color[16], *text = NULL;
	int timed = 1;

	if (ksft_metric_report_series_get(r, idx, &si) ||
	    ksft_metric_report_series_points(r, idx, KSFT_METRIC_REPORT_TRANSFORMED, &v))
		return -1;
	if (!v.n || !v.width) {
		ksft_metric_report_points_release(&v);
		return 0;
	}
	scale = scale_of(&si);
	width = v.width;
	cols = v.n < CHART_MAX_COLUMNS ? v.n : CHART_MAX_COLUMNS;
	rows = width < CHART_MAX_ROWS ? width : CHART_MAX_ROWS;
	cell = calloc(cols * rows, sizeof(double));
	cnt = calloc(cols * rows, sizeof(size_t));
	if (!cell || !cnt)
		goto out;
	for (i = 0; i < v.n; i++)
		timed &= isfinite(v.t[i]);
	/* One pass over the stored values: costs the log's size. */
	for (i = 0; i < v.n; i++) {
		size_t col = i * cols / v.n;
		double t = timed ? v.t[i] : (double)i;

		tmin = t < tmin ? t : tmin;
		tmax = t > tmax ? t : tmax;
		for (j = 0; j < v.off[i + 1] - v.off[i]; j++) {
			double val = v.v[v.off[i] + j];
			size_t k = col * rows + j * rows / width;

			if (isfinite(val)) {
				cell[k] += val * scale;
				cnt[k]++;
			}
		}
	}
	for (i = 0; i < cols * rows; i++) {
		cell[i] = cnt[i] ? cell[i] / (double)cnt[i] : NAN;
		if (cnt[i] && cell[i] < lo)
			lo = cell[i];
		if (cnt[i] && cell[i] > hi)
			hi = cell[i];
	}
	if (isfinite(si.display_min))
		lo = si.display_min;
	if (isfinite(si.display_max))
		hi = si.display_max;
	if (!isfinite(lo) || !isfinite(hi)) {
		lo = 0;
		hi = 1;
	}
	/* Whole pixels per row (no seams), 200 px for most widths, and never
	 * so thin that two CPUs share a pixel below 256 rows. */
	rowh = floor(200.0 / (double)rows);
	rowh = rowh < 1 ? 1 : rowh > 24 ? 24 : rowh;
	ch = (struct chart){ x + CHART_LEFT, y + CHART_TOP, w - CHART_LEFT - LEGEND_W,
			     rowh * (double)rows, tmin, tmax > tmin ? tmax : tmin + 1,
			     0, (double)width };
	lh = ch.h > LEGEND_MIN_H ? ch.h : LEGEND_MIN_H;
	svg_printf(s, "<g shape-rendering=\"crispEdges\">\n");
	for (j = 0; j < rows; j++) {
		double py = ch.y + ch.h - rowh * (double)(j + 1);

		for (c = 0; c < cols;) {
			int level = heat_level(cell[c * rows + j], lo, hi);
			size_t run = c + 1;

			while (run < cols && heat_level(cell[run * rows + j], lo, hi) == level)
				run++;
			if (level < 0)
				snprintf(color, sizeof(color), "#dddddd");
			else
				heat_color((double)level / (LEVELS - 1), color, sizeof(color));
			svg_rect(s, ch.x + ch.w * (double)c / (double)cols, py,
				 ch.w * (double)(run - c) / (double)cols, rowh, color);
			c = run;
		}
	}
	svg_printf(s, "</g>\n");
	svg_printf(s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#888888\"/>\n",
		   ch.x, ch.y, ch.w, ch.h);
	chart_xaxis(s, &ch, timed ? "time (s)" : "sample");
	cpu_labels(s, &ch, width);
	svg_printf(s, "<g transform=\"translate(%.1f %.1f) rotate(-90)\">",
		   ch.x - 60, ch.y + ch.h / 2);
	svg_text(s, 0, 0, "middle", 11, "#333333",
		 ch.h < 40 ? "CPU" : rows < width ? "CPU (binned)" : "CPU");
	svg_printf(s, "</g>\n");
	legend(s, ch.x + ch.w + 12, ch.y, lh, lo, hi);
	if (asprintf(&text, "%s%s%s%s", title, si.display_label ? " (" : "",
		     si.display_label ? si.display_label : "",
		     si.display_label ? ")" : "") < 0) {
		text = NULL;
		goto out;
	}
	svg_text(s, x + 4, y + 16, "start", 13, "#000000", fit_text(text, w - 8, 13));
	free(text);
	ret = CHART_TOP + (ch.h > lh ? ch.h : lh) + CHART_BOTTOM;
out:
	free(cell);
	free(cnt);
	ksft_metric_report_points_release(&v);
	return ret;
}
