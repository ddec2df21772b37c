/*
 * One series' trend over the runs of its history (the JSON of
 * ksft_metric_report_history_format()), with what the gate saw: the x
 * axis names each run (id, date, commit or kernel), the current run is
 * marked, the gate's own band shaded (the history JSON's "gate": its level
 * and the lines a run beyond which alarms on its own), the policy's
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

static double num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/*
 * The gate's band of the series (the history JSON's "gate": gate_band.h),
 * scaled by @sc: the level and the lines a run beyond which alarms on its
 * own, toward worse and toward better. Returns 1 when the gate judged the
 * run the chart ends with (@next: the current run beside the history,
 * html --db; else the latest stored run, site), 0 when not (then *why
 * says why, or is NULL when the series has no gate object).
 */
static int gate_band(json_t *series, int next, double sc, double *level, double *worse,
		     double *better, const char **why)
{
	json_t *g = json_object_get(series, "gate");
	const char *run = json_string_value(json_object_get(g, "applies_to"));

	*why = NULL;
	*level = *worse = *better = NAN;
	if (!json_is_object(g))
		return 0;
	if (!json_is_true(json_object_get(g, "judged")) || !run ||
	    strcmp(run, next ? "next" : "latest")) {
		*why = json_string_value(json_object_get(g, "reason"));
		if (!*why)
			*why = "the gate's band is of another run than this chart's";
		return 0;
	}
	*level = num(g, "level") * sc;
	*worse = num(g, "alarm_worse") * sc;
	*better = num(g, "alarm_better") * sc;
	if (!isfinite(*level)) {
		*why = "the gate gave no level";
		return 0;
	}
	return 1;
}

/* "1.2 %" or, below 0.1 %, "0.034 %" (a noise sigma). */
static void pct_text(char *buf, size_t size, double pct)
{
	if (!isfinite(pct))
		snprintf(buf, size, "unknown");
	else
		snprintf(buf, size, fabs(pct) >= 0.1 ? "%.2f %%" : "%.2g %%", pct);
}

/* The band's hover text: what the gate does with it, in its numbers. */
static void gate_title(struct svg *s, json_t *g, double sc, const char *unit, int next)
{
	char a[96], b[96], sg[32], sb[32], sw[32];
	double worse = num(g, "alarm_worse"), better = num(g, "alarm_better");

	pct_text(sg, sizeof(sg), num(g, "sigma_pct"));
	pct_text(sb, sizeof(sb), num(g, "sigma_between_pct"));
	pct_text(sw, sizeof(sw), num(g, "sigma_within_pct"));
	svg_printf(s, "<title>gate: a run beyond this line alarms on its own; noise sigma = ");
	svg_escape(s, sg);
	svg_printf(s, " (between runs ");
	svg_escape(s, sb);
	svg_printf(s, ", within ");
	svg_escape(s, sw);
	svg_printf(s, "). Level ");
	ksft_metric_report_value_text(a, sizeof(a), num(g, "level"), sc, unit);
	svg_escape(s, a);
	svg_printf(s, " (median of %lld runs); %s: worse than ",
		   (long long)json_integer_value(json_object_get(g, "runs")),
		   next ? "this run" : "the latest run");
	ksft_metric_report_value_text(a, sizeof(a), worse, sc, unit);
	ksft_metric_report_value_text(b, sizeof(b), better, sc, unit);
	svg_escape(s, isfinite(worse) ? a : "(none)");
	svg_printf(s, " a regression, better than ");
	svg_escape(s, isfinite(better) ? b : "(none)");
	svg_printf(s, " an improvement, if also beyond the tolerance (run-alone threshold "
		   "z = %.2f at the series' budget %.2g of the run's q). The CUSUM catches "
		   "smaller lasting changes: %.2f before this run",
		   num(g, "z_alarm"), num(g, "budget"), num(g, "cusum_before"));
	if (isfinite(num(g, "cusum")))
		svg_printf(s, ", %.2f after it", num(g, "cusum"));
	svg_printf(s, ", alarm at h = %.2f%s</title>", num(g, "h"),
		   json_is_true(json_object_get(g, "fresh")) ? " (restarted at the pinned run)" : "");
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
	ksft_metric_report_value_text(buf, sizeof(buf),
				      json_number_value(json_object_get(pt, "value")), scale, unit);
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

	ksft_metric_report_value_text(before, sizeof(before),
				      json_number_value(json_object_get(c, "before")), scale, unit);
	ksft_metric_report_value_text(after, sizeof(after),
				      json_number_value(json_object_get(c, "after")), scale, unit);
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

/* A swatch of a mark (@cls: current, band, gatefar (the gate's level, no
 * alarm line in view), noband, tolerance, change, level, pin), its name and a hover text (@title, NULL: none). */
static void legend_item(struct legend *l, const char *cls, const char *text, const char *title)
{
	static const char *const line[][2] = {
		{ "tolerance", "stroke=\"#7f7f7f\" stroke-dasharray=\"2 3\"" },
		{ "change", "stroke=\"#d62728\" stroke-width=\"2\" stroke-dasharray=\"4 3\"" },
		{ "level", "stroke=\"#2ca02c\" stroke-width=\"2.5\"" },
		{ "pin", "stroke=\"#9467bd\" stroke-width=\"2\"" },
		{ "gatefar", "stroke=\"#1f77b4\" stroke-opacity=\"0.5\"" },
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
			   "fill=\"#1f77b4\" fill-opacity=\"0.25\"/><line x1=\"%.1f\" y1=\"%.1f\" "
			   "x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ff7f0e\" stroke-width=\"1.5\"/>",
			   l->x, y - 4, l->x, y + 4, l->x + 14, y + 4);
	else if (!strcmp(cls, "noband"))
		svg_printf(l->s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"8\" "
			   "fill=\"none\" stroke=\"#1f77b4\" stroke-dasharray=\"2 2\"/>",
			   l->x, y - 4);
	for (i = 0; i < sizeof(line) / sizeof(line[0]); i++)
		if (!strcmp(cls, line[i][0]))
			svg_printf(l->s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" %s/>",
				   l->x, y, l->x + 14, y, line[i][1]);
	svg_text(l->s, l->x + 18, l->y, "start", 9, "#333333", text);
	if (title) {
		svg_printf(l->s, "<title>gate: no band: ");
		svg_escape(l->s, title);
		svg_printf(l->s, "</title>");
	}
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
	double tlo = NAN, thi = NAN, glevel, gworse, gbetter, step, total;
	size_t n = json_array_size(points), slots, i, from = 0, every, shown = 0;
	json_t *gate = json_object_get(series, "gate");
	int band, band_in_view = 0, pins = 0, levels = 0;
	const char *why;
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
	/* The gate's band for the run the chart ends with: the current run
	 * beside the history (html --db), else the latest stored run (site).
	 * A side without a line (nothing there alarms alone) is left open. */
	band = gate_band(series, mk->row != NULL, sc, &glevel, &gworse, &gbetter, &why);
	if (band) {
		blo = fmin(gworse, gbetter);
		bhi = fmax(gworse, gbetter);
		from = (size_t)json_integer_value(json_object_get(gate, "from"));
		from = from < n ? from : n ? n - 1 : 0;
	}
	if (mk->row && isfinite(mk->row->baseline) && isfinite(mk->row->allowance) &&
	    mk->row->allowance > 0) {
		tlo = (mk->row->baseline - mk->row->allowance) * sc;
		thi = (mk->row->baseline + mk->row->allowance) * sc;
	}
	if (isfinite(cur)) {
		lo = cur < lo ? cur : lo;
		hi = cur > hi ? cur : hi;
	}
	/* An alarm line near the points is brought into view, one far from
	 * them is not: the points keep at least half the plot. */
	if (band) {
		double span = hi > lo ? hi - lo : fabs(hi) + 1;

		lo = fmin(lo, fmax(isfinite(blo) ? blo : lo, lo - span / 2));
		hi = fmax(hi, fmin(isfinite(bhi) ? bhi : hi, hi + span / 2));
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
	/* The gate's band behind everything: from its window's first run to
	 * the run judged, from the level to each line where a run alone
	 * alarms that is in view. Shaded only where it says something (issue
	 * 34): never out to the plot's edge for a line beyond it or absent;
	 * with no line in view, the level alone (the legend says so). */
	if (band) {
		double x0 = chart_px(&ch, (double)from - 0.5), x1 = chart_px(&ch, (double)slots - 0.5);
		int up = isfinite(bhi) && bhi > glevel && bhi <= hi;
		int down = isfinite(blo) && blo < glevel && blo >= lo;
		double top = up ? bhi : glevel, bottom = down ? blo : glevel;

		band_in_view = up || down;
		if (band_in_view) {
			svg_printf(out, "<rect class=\"band\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
				   "height=\"%.1f\" fill=\"#1f77b4\" fill-opacity=\"0.13\" "
				   "data-level=\"%.17g\" data-worse=\"%.17g\" data-better=\"%.17g\">",
				   x0, chart_py(&ch, top), x1 - x0,
				   chart_py(&ch, bottom) - chart_py(&ch, top), glevel, gworse, gbetter);
			gate_title(out, gate, mk->scale, mk->unit, mk->row != NULL);
			svg_printf(out, "</rect>\n");
		}
		svg_printf(out, "<line class=\"gate-level\" x1=\"%.1f\" y1=\"%.1f\" "
			   "x2=\"%.1f\" y2=\"%.1f\" stroke=\"#1f77b4\" stroke-width=\"1\" "
			   "stroke-opacity=\"0.5\" data-level=\"%.17g\" data-worse=\"%.17g\" "
			   "data-better=\"%.17g\">", x0, chart_py(&ch, glevel), x1,
			   chart_py(&ch, glevel), glevel, gworse, gbetter);
		if (!band_in_view) {	/* the band's hover on the line that is left */
			gate_title(out, gate, mk->scale, mk->unit, mk->row != NULL);
			svg_printf(out, "</line>\n");
		} else {
			char a[96];

			ksft_metric_report_value_text(a, sizeof(a), num(gate, "level"), mk->scale,
						      mk->unit);
			svg_printf(out, "<title>gate: the level the run is judged against, ");
			svg_escape(out, a);
			svg_printf(out, " (median of its window)</title></line>\n");
		}
		if (isfinite(gworse) && gworse >= lo && gworse <= hi) {
			double y = chart_py(&ch, gworse);

			svg_printf(out, "<line class=\"alarm\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
				   "y2=\"%.1f\" stroke=\"#ff7f0e\" stroke-width=\"1.5\">", x0, y, x1, y);
			gate_title(out, gate, mk->scale, mk->unit, mk->row != NULL);
			svg_printf(out, "</line>\n");
		}
	}
	if (isfinite(tlo)) {
		char a[96];

		ksft_metric_report_value_text(a, sizeof(a), mk->row->allowance, sc, mk->unit);
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

			ksft_metric_report_value_text(a, sizeof(a), lv, 1.0, mk->unit);
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

		ksft_metric_report_value_text(a, sizeof(a), mk->row->current, sc, mk->unit);
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
	legend_item(&lg, "current", isfinite(cur) ? "this run" : "latest run", NULL);
	if (band) {
		char t[96], p[32];

		pct_text(p, sizeof(p), num(gate, "sigma_pct"));
		if (band_in_view) {
			snprintf(t, sizeof(t), "gate: a run beyond alarms alone (noise sigma = %s)", p);
			legend_item(&lg, "band", t, NULL);
		} else {
			snprintf(t, sizeof(t), "gate: no run in view alarms alone (noise sigma = %s)", p);
			legend_item(&lg, "gatefar", t, NULL);
		}
	} else if (why) {
		legend_item(&lg, "noband", "no gate band", why);
	}
	if (isfinite(tlo))
		legend_item(&lg, "tolerance", "tolerance", NULL);
	if (json_array_size(changes))
		legend_item(&lg, "change", "change point", NULL);
	if (levels)
		legend_item(&lg, "level", "accepted level", NULL);
	if (pins)
		legend_item(&lg, "pin", "pinned baseline", NULL);
	svg_printf(out, "</svg>");
	total = CHART_TOP + height + TREND_BOTTOM;
	return out->oom ? -1 : total;
}
