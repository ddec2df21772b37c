/*
 * One series' trend over the runs of its history (the JSON of
 * ksft_metric_report_history_format()), with what the gate saw: the x
 * axis names each run (id, date, commit or kernel), the current run is
 * marked, the noise band of the gate's window shaded, the policy's
 * tolerance around the baseline dashed, change points, accepted levels
 * and pinned baselines drawn; every mark's hover text says what it is.
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "verdict_vocab.h"

#define TREND_WINDOW 30		/* the gate's default window (runs) */
#define TREND_MIN_RUNS 5	/* fewer: the gate says "too noisy to tell" */
#define TREND_Q 0.007		/* the band's two-sided rate (a picture of the
				   window's spread, not the gate's CUSUM) */
#define TREND_LABEL_W 66.0	/* pixels per x axis label */
#define TREND_BOTTOM 64.0	/* three label lines and the legend */

static const char *str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static int has_value(json_t *pt, double sc, double *v)
{
	json_t *j = json_object_get(pt, "value");

	if (!json_is_number(j) || !isfinite(json_number_value(j) * sc))
		return 0;
	*v = json_number_value(j) * sc;
	return 1;
}

/* The standard normal quantile (Acklam's rational approximation). */
static double normal_quantile(double p)
{
	static const double a[] = { -39.69683028665376, 220.9460984245205, -275.9285104469687,
				    138.3577518672690, -30.66479806614716, 2.506628277459239 };
	static const double b[] = { -54.47609879822406, 161.5858368580409, -155.6989798598866,
				    66.80131188771972, -13.28068155288572 };
	static const double c[] = { -0.007784894002430293, -0.3223964580411365, -2.400758277161838,
				    -2.549732539343734, 4.374664141464968, 2.938163982698783 };
	static const double d[] = { 0.007784695709041462, 0.3224671290700398, 2.445134137142996,
				    3.754408661907416 };
	double q, r;

	if (p < 0.02425) {
		q = sqrt(-2 * log(p));
		return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		       ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	}
	if (p > 1 - 0.02425)
		return -normal_quantile(1 - p);
	q = p - 0.5;
	r = q * q;
	return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
	       (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

/* Student's t quantile with @df degrees of freedom (Cornish-Fisher from the
 * normal one; within 1 % from 4 degrees of freedom on: a picture's band). */
static double t_quantile(double p, double df)
{
	double z = normal_quantile(p), z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z;

	return z + (z3 + z) / (4 * df) + (5 * z5 + 16 * z3 + 3 * z) / (96 * df * df) +
	       (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * df * df * df);
}

static double skewness(const double *w, size_t n, int logs)
{
	double m = 0, m2 = 0, m3 = 0;
	size_t i;

	for (i = 0; i < n; i++)
		m += logs ? log(w[i]) : w[i];
	m /= (double)n;
	for (i = 0; i < n; i++) {
		double v = (logs ? log(w[i]) : w[i]) - m;

		m2 += v * v;
		m3 += v * v * v;
	}
	m2 /= (double)n;
	return m2 > 0 ? m3 / (double)n / pow(m2, 1.5) : 0;
}

/*
 * The gate's window before point @end: the last TREND_WINDOW measured
 * points that are not unaccepted regressions, from the latest accepted
 * level on; its prediction interval at TREND_Q (two-sided, on logarithms
 * or values, whichever is more symmetric: lib/report/judge/gate.h) in
 * [*lo, *hi], its first point's index in *from. Returns 0, or -1 when
 * the window has fewer than TREND_MIN_RUNS runs (the gate cannot tell).
 */
int trend_band(json_t *points, size_t end, double sc, double *lo, double *hi, size_t *from)
{
	double w[TREND_WINDOW], m = 0, ss = 0, t, half;
	size_t n = 0, i, start = 0;
	int logs = 1;

	/* While a run is pinned, windows end at the latest pinned one. */
	for (i = end; i-- > 0;)
		if (json_is_true(json_object_get(json_array_get(points, i), "pinned"))) {
			end = i + 1;
			break;
		}
	for (i = 0; i < end; i++) {
		const char *st = str(json_array_get(points, i), "state");

		if (st && !strcmp(st, "accepted") &&
		    (!i || !str(json_array_get(points, i - 1), "state") ||
		     strcmp(str(json_array_get(points, i - 1), "state"), "accepted")))
			start = i;
	}
	for (i = end; i-- > start && n < TREND_WINDOW;) {
		json_t *pt = json_array_get(points, i);
		const char *st = str(pt, "state");
		double v;

		if ((st && !strcmp(st, "regression")) || !has_value(pt, sc, &v))
			continue;
		w[n++] = v;
		*from = i;
		logs &= v > 0;
	}
	if (n < TREND_MIN_RUNS)
		return -1;
	if (logs && fabs(skewness(w, n, 1)) > fabs(skewness(w, n, 0)))
		logs = 0;
	for (i = 0; i < n; i++)
		m += logs ? log(w[i]) : w[i];
	m /= (double)n;
	for (i = 0; i < n; i++)
		ss += ((logs ? log(w[i]) : w[i]) - m) * ((logs ? log(w[i]) : w[i]) - m);
	t = t_quantile(1 - TREND_Q / 2, (double)(n - 1));
	half = t * sqrt(ss / (double)(n - 1)) * sqrt(1.0 + 1.0 / (double)n);
	*lo = logs ? exp(m - half) : m - half;
	*hi = logs ? exp(m + half) : m + half;
	return 0;
}

/* What names a run on the axis: a commit, else the kernel. */
static const char *commit_of(json_t *ctx)
{
	static const char *const keys[] = { "commit", "git_commit", "git_sha", "sha",
					    "revision", "kernel", "kernel_release" };
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (json_is_string(json_object_get(ctx, keys[i])))
			return json_string_value(json_object_get(ctx, keys[i]));
	return NULL;
}

/* One axis label line, cut to fit its column. */
static void label_line(struct svg *s, double x, double y, const char *text, int bold)
{
	char *t = strdup(text ? text : "");

	if (!t)
		return;
	fit_text(t, TREND_LABEL_W - 6, 9);
	svg_printf(s, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"9\" "
		   "fill=\"%s\"%s>", x, y, bold ? "#000000" : "#444444",
		   bold ? " font-weight=\"bold\"" : "");
	svg_escape(s, t);
	svg_printf(s, "</text>\n");
	free(t);
}

/* "run r21 (2026-...) ci_order=5: 20.1 Gbit/s, regression" for a <title>. */
void trend_point_title(struct svg *s, json_t *pt, double scale, const char *unit)
{
	json_t *ctx = json_object_get(pt, "context"), *v;
	const char *key, *state = str(pt, "state");
	char buf[128];

	svg_printf(s, "<title>run ");
	svg_escape(s, str(pt, "run") ? str(pt, "run") : "?");
	if (str(pt, "order")) {
		svg_printf(s, " (");
		svg_escape(s, str(pt, "order"));
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
		svg_escape(s, ksftm_verdict_name(state));
	}
	if (json_is_true(json_object_get(pt, "pinned")))
		svg_printf(s, ", pinned baseline");
	svg_printf(s, "</title>");
}

void trend_change_title(struct svg *s, json_t *c, double scale, const char *unit)
{
	char before[96], after[96];

	value_text(before, sizeof(before), json_number_value(json_object_get(c, "before")),
		   scale, unit);
	value_text(after, sizeof(after), json_number_value(json_object_get(c, "after")),
		   scale, unit);
	svg_printf(s, "<title>change point at run ");
	svg_escape(s, str(c, "run") ? str(c, "run") : "?");
	svg_printf(s, ": ");
	svg_escape(s, before);
	svg_printf(s, " to ");
	svg_escape(s, after);
	if (json_is_number(json_object_get(c, "change_pct")))
		svg_printf(s, " (%+.1f%%)", json_number_value(json_object_get(c, "change_pct")));
	svg_printf(s, "</title>");
}

/* The legend: the marks this chart has, left to right. */
struct legend {
	struct svg *s;
	double x, y, right;
};

/* A swatch of a mark (@cls: current, band, tolerance, change, level, pin)
 * and its name. */
static void legend_item(struct legend *l, const char *cls, const char *text)
{
	static const char *const line[][2] = {
		{ "tolerance", "stroke=\"#7f7f7f\" stroke-dasharray=\"2 3\"" },
		{ "change", "stroke=\"#d62728\" stroke-width=\"2\" stroke-dasharray=\"4 3\"" },
		{ "level", "stroke=\"#2ca02c\" stroke-width=\"2.5\"" },
		{ "pin", "stroke=\"#9467bd\" stroke-width=\"2\"" },
	};
	double w = text_width(text, 9) + 26, y = l->y - 3;
	size_t i;

	if (l->x + w > l->right)
		return;	/* no room: the marks' hover texts still say it */
	svg_printf(l->s, "<g class=\"key %s\">", cls);
	if (!strcmp(cls, "current"))
		svg_printf(l->s, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"#ffffff\" "
			   "stroke=\"#000000\" stroke-width=\"2\"/>", l->x + 6, y);
	else if (!strcmp(cls, "band"))
		svg_printf(l->s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"8\" "
			   "fill=\"#1f77b4\" fill-opacity=\"0.25\"/>", l->x, y - 4);
	for (i = 0; i < sizeof(line) / sizeof(line[0]); i++)
		if (!strcmp(cls, line[i][0]))
			svg_printf(l->s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" %s/>",
				   l->x, y, l->x + 14, y, line[i][1]);
	svg_text(l->s, l->x + 18, l->y, "start", 9, "#333333", text);
	svg_printf(l->s, "</g>\n");
	l->x += w;
}

/* The median of the values of points [from, to), scaled. */
static double level_of(json_t *points, size_t from, size_t to, double sc)
{
	double *v = malloc((to - from + 1) * sizeof(*v)), out = NAN;
	size_t n = 0, i, j;

	if (!v)
		return NAN;
	for (i = from; i < to; i++)
		if (has_value(json_array_get(points, i), sc, &v[n]))
			n++;
	for (i = 1; i < n; i++)	/* insertion sort: a level is a few runs */
		for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	if (n)
		out = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	free(v);
	return out;
}

double trend_chart(struct svg *out, json_t *series, const struct trend_marks *mk,
		   double width, double height)
{
	json_t *points = json_object_get(series, "points"), *changes, *pt, *c;
	double sc = isfinite(mk->scale) ? mk->scale : 1.0, lo = INFINITY, hi = -INFINITY;
	double w = width - CHART_LEFT - CHART_RIGHT, v, blo = NAN, bhi = NAN, cur = NAN;
	double tlo = NAN, thi = NAN, step, total;
	size_t n = json_array_size(points), slots, i, from = 0, every, shown = 0;
	int band, pins = 0, levels = 0;
	struct legend lg;
	struct chart ch;
	char *text;

	json_array_foreach(points, i, pt)
		if (has_value(pt, sc, &v)) {
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
			shown++;
		}
	if (!shown)
		return 0;
	if (mk->row && isfinite(mk->row->current * sc))
		cur = mk->row->current * sc;
	/* The band is the window before the current run: the whole history
	 * with a current run beside it, else the points before the latest. */
	band = !trend_band(points, isfinite(cur) ? n : n - 1, sc, &blo, &bhi, &from);
	if (mk->row && isfinite(mk->row->baseline) && isfinite(mk->row->allowance) &&
	    mk->row->allowance > 0) {
		tlo = (mk->row->baseline - mk->row->allowance) * sc;
		thi = (mk->row->baseline + mk->row->allowance) * sc;
	}
	if (isfinite(cur)) {
		lo = cur < lo ? cur : lo;
		hi = cur > hi ? cur : hi;
	}
	/* The band may be wide; show it, but not at the cost of the points. */
	if (band) {
		double span = hi > lo ? hi - lo : fabs(hi) + 1;

		lo = fmin(lo, fmax(blo, lo - span));
		hi = fmax(hi, fmin(bhi, hi + span));
	}
	if (isfinite(tlo)) {
		lo = fmin(lo, tlo);
		hi = fmax(hi, thi);
	}
	nice_range(&lo, &hi);
	slots = n + (isfinite(cur) ? 1 : 0);
	ch = (struct chart){ CHART_LEFT, CHART_TOP, w, height, -0.5, (double)slots - 0.5, lo, hi };
	svg_printf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		   "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" role=\"img\"><title>",
		   width, CHART_TOP + height + TREND_BOTTOM, width, CHART_TOP + height + TREND_BOTTOM);
	svg_escape(out, mk->title);
	svg_printf(out, "</title>\n");
	chart_yaxis(out, &ch, mk->unit ? mk->unit : "value");
	text = strdup(mk->title);
	if (!text)
		return -1;
	svg_text(out, 4, 16, "start", 13, "#000000", fit_text(text, width - 8, 13));
	free(text);
	/* The band behind everything. */
	if (band) {
		char a[96], b[96];
		double y0 = chart_py(&ch, fmin(bhi, hi)), y1 = chart_py(&ch, fmax(blo, lo));

		value_text(a, sizeof(a), blo, 1.0, mk->unit);
		value_text(b, sizeof(b), bhi, 1.0, mk->unit);
		svg_printf(out, "<rect class=\"band\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			   "fill=\"#1f77b4\" fill-opacity=\"0.13\"><title>spread of the gate's "
			   "window (from run %zu on): ", chart_px(&ch, (double)from - 0.5), y0,
			   chart_px(&ch, (double)slots - 0.5) - chart_px(&ch, (double)from - 0.5),
			   y1 - y0, from + 1);
		svg_escape(out, a);
		svg_printf(out, " to ");
		svg_escape(out, b);
		svg_printf(out, " (the window's prediction interval at q = %g; the gate "
			   "itself runs a CUSUM on the run-to-run noise of these runs)</title>"
			   "</rect>\n", TREND_Q);
	}
	if (isfinite(tlo)) {
		char a[96];

		value_text(a, sizeof(a), mk->row->allowance, sc, mk->unit);
		for (i = 0; i < 2; i++) {
			double y = chart_py(&ch, i ? thi : tlo);

			svg_printf(out, "<line class=\"tolerance\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
				   "y2=\"%.1f\" stroke=\"#7f7f7f\" stroke-width=\"1\" "
				   "stroke-dasharray=\"2 3\"><title>tolerance: baseline &#177; ",
				   ch.x, y, ch.x + ch.w, y);
			svg_escape(out, a);
			svg_printf(out, "</title></line>\n");
		}
	}
	/* Accepted levels: from each first accepted run to the next one. */
	for (i = 0; i < n; i++) {
		const char *st = str(json_array_get(points, i), "state");
		size_t j;
		double lv, y;

		if (!st || strcmp(st, "accepted") ||
		    (i && str(json_array_get(points, i - 1), "state") &&
		     !strcmp(str(json_array_get(points, i - 1), "state"), "accepted")))
			continue;
		for (j = i + 1; j < n; j++) {
			const char *sj = str(json_array_get(points, j), "state");

			if (sj && !strcmp(sj, "accepted") &&
			    strcmp(str(json_array_get(points, j - 1), "state") ?
				   str(json_array_get(points, j - 1), "state") : "", "accepted"))
				break;
		}
		lv = level_of(points, i, j, 1.0) * sc;
		if (!isfinite(lv))
			continue;
		y = chart_py(&ch, lv);
		svg_printf(out, "<line class=\"level\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			   "stroke=\"#2ca02c\" stroke-width=\"2.5\" stroke-opacity=\"0.8\">"
			   "<title>accepted level from run ", chart_px(&ch, (double)i - 0.4), y,
			   chart_px(&ch, (double)(j < n ? j : slots) - 0.6), y);
		svg_escape(out, str(json_array_get(points, i), "run") ?
			   str(json_array_get(points, i), "run") : "?");
		{
			char a[96];

			value_text(a, sizeof(a), lv, 1.0, mk->unit);
			svg_printf(out, ": ");
			svg_escape(out, a);
		}
		svg_printf(out, "</title></line>\n");
		levels++;
	}
	/* Pinned baselines: the windows end there. */
	json_array_foreach(points, i, pt) {
		double x = chart_px(&ch, (double)i);

		if (!json_is_true(json_object_get(pt, "pinned")))
			continue;
		svg_printf(out, "<g class=\"pin\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			   "stroke=\"#9467bd\" stroke-width=\"2\"/><path d=\"M%.1f %.1fl-4 -6h8z\" "
			   "fill=\"#9467bd\"/><title>pinned baseline: run ", x, ch.y, x, ch.y + ch.h,
			   x, ch.y);
		svg_escape(out, str(pt, "run") ? str(pt, "run") : "?");
		svg_printf(out, " (windows end here)</title></g>\n");
		pins++;
	}
	changes = json_object_get(series, "changes");
	json_array_foreach(changes, i, c) {
		double x = chart_px(&ch, (double)json_integer_value(json_object_get(c, "index")) - 0.5);

		svg_printf(out, "<line class=\"change\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			   "stroke=\"#d62728\" stroke-width=\"2\" stroke-dasharray=\"4 3\">",
			   x, ch.y, x, ch.y + ch.h);
		trend_change_title(out, c, mk->scale, mk->unit);
		svg_printf(out, "</line>\n");
	}
	svg_printf(out, "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1.5\" points=\"");
	json_array_foreach(points, i, pt)
		if (has_value(pt, sc, &v))
			svg_printf(out, "%.1f,%.1f ", chart_px(&ch, (double)i), chart_py(&ch, v));
	svg_printf(out, "\"/>\n");
	json_array_foreach(points, i, pt) {
		const char *state = str(pt, "state");
		int latest = !isfinite(cur) && i + 1 == n;

		if (!has_value(pt, sc, &v))
			continue;
		svg_printf(out, "<circle class=\"point%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\"%s>",
			   latest ? " current" : "", chart_px(&ch, (double)i), chart_py(&ch, v),
			   latest ? "5" : "3",
			   state && !strcmp(state, KSFTM_VERDICT_REGRESSION) ? "#d62728" :
			   state && !strcmp(state, KSFTM_VERDICT_IMPROVEMENT) ? "#2ca02c" : "#1f77b4",
			   latest ? " stroke=\"#000000\" stroke-width=\"2\"" : "");
		trend_point_title(out, pt, mk->scale, mk->unit);
		svg_printf(out, "</circle>\n");
	}
	if (isfinite(cur)) {
		char a[96];

		value_text(a, sizeof(a), mk->row->current, sc, mk->unit);
		svg_printf(out, "<circle class=\"current\" cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\" "
			   "stroke=\"#000000\" stroke-width=\"2\"><title>this run: ",
			   chart_px(&ch, (double)n), chart_py(&ch, cur),
			   !strcmp(mk->row->verdict, KSFTM_VERDICT_REGRESSION) ? "#d62728" :
			   !strcmp(mk->row->verdict, KSFTM_VERDICT_IMPROVEMENT) ? "#2ca02c" : "#ffffff");
		svg_escape(out, a);
		svg_printf(out, ", ");
		svg_escape(out, ksftm_verdict_name(mk->row->verdict));
		svg_printf(out, "</title></circle>\n");
	}
	/* The x axis: a label column every few runs, the newest always. */
	step = ch.w / (double)slots;
	every = (size_t)ceil(TREND_LABEL_W / step);
	every = every ? every : 1;
	for (i = slots; i-- > 0;) {
		double x = chart_px(&ch, (double)i), y = ch.y + ch.h;
		json_t *p = i < n ? json_array_get(points, i) : NULL;
		const char *order;
		char date[11];

		svg_line(out, x, y, x, y + 3, "#888888", 1);
		if ((slots - 1 - i) % every)
			continue;
		if (!p) {
			label_line(out, x, y + 13, "this run", 1);
			continue;
		}
		order = str(p, "order") ? str(p, "order") : "";
		snprintf(date, sizeof(date), "%s", order);
		label_line(out, x, y + 13, str(p, "run"), i + 1 == n && !isfinite(cur));
		label_line(out, x, y + 23, date, 0);
		if (commit_of(json_object_get(p, "context")))
			label_line(out, x, y + 33, commit_of(json_object_get(p, "context")), 0);
	}
	/* The legend of the marks drawn. */
	lg = (struct legend){ out, ch.x, ch.y + ch.h + 52, ch.x + ch.w };
	legend_item(&lg, "current", isfinite(cur) ? "this run" : "latest run");
	if (band)
		legend_item(&lg, "band", "noise band");
	if (isfinite(tlo))
		legend_item(&lg, "tolerance", "tolerance");
	if (json_array_size(changes))
		legend_item(&lg, "change", "change point");
	if (levels)
		legend_item(&lg, "level", "accepted level");
	if (pins)
		legend_item(&lg, "pin", "pinned baseline");
	svg_printf(out, "</svg>");
	total = CHART_TOP + height + TREND_BOTTOM;
	return out->oom ? -1 : total;
}
