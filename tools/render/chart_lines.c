/* Line charts of a group of series, decimated to a bounded vertex count. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"

/* Times of @p's points, or their indices when the input had none. */
static const double *times(const struct ksft_metric_report_points *p,
			   double *scratch)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (!isfinite(p->t[i]))
			break;
	if (i == p->n)
		return p->t;
	for (i = 0; i < p->n; i++)
		scratch[i] = (double)i;
	return scratch;
}

/*
 * A repeated case (@repeats instances joined, each restarting its times):
 * each point's x is its repeat's number, the points of one repeat spread
 * over +-0.3 around it in their order. Where a repeat starts: where the
 * time goes back; when that does not find @repeats of them, one point per
 * repeat (@n == @repeats, tcp_mmap's connections) or equal shares.
 */
static void by_repeat(const struct ksft_metric_report_points *p, size_t repeats, double *x)
{
	size_t i, k, found = 1, *start = calloc(repeats + 1, sizeof(size_t));

	if (!start) {	/* no room to place them: one repeat per point */
		for (i = 0; i < p->n; i++)
			x[i] = (double)(i % repeats) + 1;
		return;
	}
	for (i = 1; i < p->n; i++)
		if (isfinite(p->t[i]) && isfinite(p->t[i - 1]) && p->t[i] < p->t[i - 1]) {
			if (found < repeats)
				start[found] = i;
			found++;
		}
	if (found != repeats)
		for (k = 0; k < repeats; k++)
			start[k] = k * p->n / repeats;
	start[repeats] = p->n;
	for (k = 0; k < repeats; k++) {
		size_t m = start[k + 1] - start[k];

		for (i = start[k]; i < start[k + 1]; i++)
			x[i] = (double)k + 1 + (m > 1 ? 0.6 * (double)(i - start[k]) /
						(double)(m - 1) - 0.3 : 0);
	}
	free(start);
}

/*
 * At most CHART_MAX_VERTICES of a series' finite points (x, first value):
 * every point when there are few, else per index bucket its min and max
 * in point order. Returns the count written to @x / @y.
 */
static size_t decimate(const double *t, const struct ksft_metric_report_points *v,
		       double scale, double *x, double *y)
{
	size_t i, n = 0, buckets = CHART_MAX_VERTICES / 2;

	if (v->n <= CHART_MAX_VERTICES) {
		for (i = 0; i < v->n; i++) {
			if (v->off[i + 1] == v->off[i])
				continue;
			x[n] = t[i];
			y[n++] = v->v[v->off[i]] * scale;
		}
		return n;
	}
	for (i = 0; i < buckets; i++) {
		size_t from = i * v->n / buckets, to = (i + 1) * v->n / buckets, k;
		size_t lo = (size_t)-1, hi = (size_t)-1;

		for (k = from; k < to; k++) {
			double val;

			if (v->off[k + 1] == v->off[k])
				continue;
			val = v->v[v->off[k]];
			if (!isfinite(val) || !isfinite(t[k]))
				continue;
			if (lo == (size_t)-1 || val < v->v[v->off[lo]])
				lo = k;
			if (hi == (size_t)-1 || val > v->v[v->off[hi]])
				hi = k;
		}
		if (lo == (size_t)-1)
			continue;
		if (hi < lo) {
			size_t tmp = lo;

			lo = hi;
			hi = tmp;
		}
		x[n] = t[lo];
		y[n++] = v->v[v->off[lo]] * scale;
		if (hi != lo) {
			x[n] = t[hi];
			y[n++] = v->v[v->off[hi]] * scale;
		}
	}
	return n;
}

/* The first earlier line with the same vertices as line @i, or -1. */
static size_t same_as(double *const *xs, double *const *ys, const size_t *cnt, size_t i)
{
	size_t j;

	for (j = 0; j < i; j++)
		if (cnt[j] == cnt[i] && cnt[i] &&
		    !memcmp(xs[j], xs[i], cnt[i] * sizeof(double)) &&
		    !memcmp(ys[j], ys[i], cnt[i] * sizeof(double)))
			return j;
	return (size_t)-1;
}

double chart_lines(struct svg *s, const struct ksft_metric_report *r,
		   const size_t *members, size_t n, int stage, int individual,
		   double x, double y, double w, double h, const char *title,
		   const char *ylabel, size_t *left_out)
{
	size_t drawn = n < CHART_MAX_LINES ? n : CHART_MAX_LINES;
	double **xs = calloc(drawn, sizeof(double *));
	double **ys = calloc(drawn, sizeof(double *));
	size_t *cnt = calloc(drawn, sizeof(size_t));
	double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
	double ret = -1, colw, ly;
	struct ksft_metric_report_series si = { .sz = sizeof(si) };
	struct chart ch;
	size_t i, k, shown = 0, per_row;
	int repeated = 0;
	char *text;

	if (!xs || !ys || !cnt || ksft_metric_report_series_get(r, members[0], &si))
		goto out;
	/* A case repeated in the log: its in-case times say nothing across
	 * repeats, so every line of the chart is drawn by repeat, as points
	 * (issue 34: lines joined them into a zigzag). */
	for (i = 0; i < drawn; i++) {
		struct ksft_metric_report_series sj = { .sz = sizeof(sj) };

		if (ksft_metric_report_series_get(r, members[i], &sj))
			goto out;
		repeated |= sj.repeats > 1;
	}
	for (i = 0; i < drawn; i++) {
		struct ksft_metric_report_series sj = { .sz = sizeof(sj) };
		struct ksft_metric_report_points v;
		double *scratch;
		size_t room;

		if (ksft_metric_report_series_get(r, members[i], &sj) ||
		    ksft_metric_report_series_points(r, members[i], stage, &v))
			goto out;
		room = v.n < CHART_MAX_VERTICES ? v.n : CHART_MAX_VERTICES;
		scratch = malloc((v.n ? v.n : 1) * sizeof(double));
		xs[i] = malloc((room ? room : 1) * sizeof(double));
		ys[i] = malloc((room ? room : 1) * sizeof(double));
		if (!scratch || !xs[i] || !ys[i]) {
			free(scratch);
			ksft_metric_report_points_release(&v);
			goto out;
		}
		if (repeated)
			by_repeat(&v, sj.repeats ? sj.repeats : 1, scratch);
		cnt[i] = decimate(repeated ? scratch : times(&v, scratch), &v,
				  individual ? scale_of(&sj) : 1.0, xs[i], ys[i]);
		free(scratch);
		ksft_metric_report_points_release(&v);
		for (k = 0; k < cnt[i]; k++) {
			double px = xs[i][k], py = ys[i][k];

			if (!isfinite(py) || !isfinite(px))
				continue;
			shown++;
			xmin = px < xmin ? px : xmin;
			xmax = px > xmax ? px : xmax;
			ymin = py < ymin ? py : ymin;
			ymax = py > ymax ? py : ymax;
		}
	}
	if (!shown) {
		ret = 0;
		goto out;
	}
	nice_range(&ymin, &ymax);
	if (individual && isfinite(si.display_min))
		ymin = si.display_min;
	if (individual && isfinite(si.display_max))
		ymax = si.display_max;
	if (!(ymax > ymin))
		ymax = ymin + 1;
	if (repeated) {
		xmin = 0.5;	/* repeats 1..R, each in its slot */
		xmax = fmax(xmax, 1) + 0.5;
		xmax = floor(xmax - 0.5) + 0.5;
	} else if (!(xmax > xmin)) {
		xmin -= 0.5;	/* one instant: a second around it */
		xmax += 0.5;
	}
	ch = (struct chart){ x + CHART_LEFT, y + CHART_TOP, w, h, xmin, xmax, ymin, ymax };
	text = strdup(ylabel ? ylabel : "");
	if (!text)
		goto out;
	chart_axes(s, &ch, NULL, repeated ? "repeat (the case's instances in the log)" :
		   "time (s)", fit_text(text, h, 11));
	free(text);
	text = strdup(title);
	if (!text)
		goto out;
	svg_text(s, x + 4, y + 16, "start", 13, "#000000",
		 fit_text(text, CHART_LEFT + w - 8, 13));
	free(text);
	for (i = 0; i < drawn; i++) {
		size_t d = same_as(xs, ys, cnt, i);

		/* A line on top of an earlier identical one: dashed, so that
		 * both colours show (the legend says which it repeats). */
		if (d != (size_t)-1)
			svg_printf(s, "<g class=\"same\" stroke-dasharray=\"6 5\">");
		if (repeated)
			chart_points(s, &ch, xs[i], ys[i], cnt[i], palette(i));
		else
			chart_series(s, &ch, xs[i], ys[i], cnt[i], 1, palette(i));
		if (d != (size_t)-1)
			svg_printf(s, "</g>\n");
	}
	ly = y + CHART_TOP + h + CHART_BOTTOM;
	/* The legend: only when it tells lines apart or names the labels. */
	colw = 220;
	per_row = (size_t)((CHART_LEFT + w) / colw);
	per_row = per_row ? per_row : 1;
	for (i = 0; i < drawn; i++) {
		struct ksft_metric_report_series sj = { .sz = sizeof(sj) };
		double lx = x + 8 + (double)(i % per_row) * colw;
		char *label;

		if (n == 1 && !strcmp(si.labels_json, "{}"))
			break;
		if (ksft_metric_report_series_get(r, members[i], &sj))
			continue;
		label = series_title(&sj, T_LABELS);
		if (!label)
			goto out;
		if (same_as(xs, ys, cnt, i) != (size_t)-1) {
			char *more = NULL;

			if (asprintf(&more, "= line %zu, dashed: %s",
				     same_as(xs, ys, cnt, i) + 1, label) < 0) {
				free(label);
				goto out;
			}
			free(label);
			label = more;
		}
		svg_rect(s, lx, ly + 4, 10, 10, palette(i));
		svg_text(s, lx + 14, ly + 13, "start", 10, "#333333",
			 fit_text(label, colw - 24, 10));
		free(label);
		if (i % per_row == per_row - 1 || i == drawn - 1)
			ly += 16;
	}
	if (drawn < n) {
		char buf[96];

		snprintf(buf, sizeof(buf), "drew %zu of %zu series", drawn, n);
		svg_text(s, x + 8, ly + 13, "start", 10, "#555555", buf);
		ly += 16;
		if (left_out)
			*left_out += n - drawn;
	}
	ret = ly + 6 - y;
out:
	for (i = 0; i < drawn; i++) {
		free(xs ? xs[i] : NULL);
		free(ys ? ys[i] : NULL);
	}
	free(xs);
	free(ys);
	free(cnt);
	return ret;
}
