/*
 * ksft-metric plot: one self-contained SVG. Per metric a time series of
 * the individual series (after the transform, times display_scale, within
 * display_range, labelled display_label) and of the aggregated total; a
 * CPU x time heatmap for array (per-cpu) metrics; baseline-vs-current bars
 * when baselines are given.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "svg.h"

#define WIDTH 1000.0
#define LEFT 90.0
#define PLOT_W 860.0
#define CHART_H 180.0
#define MAX_COLUMNS 300
#define MAX_ROWS 256		/* heatmap rows: wider arrays are binned */
#define LEVELS 16
#define MAX_BARS 200
/*
 * Caps that keep a plot's cost and size linear in its input, whatever
 * the log: charts per document, lines per chart, vertices per line
 * (bucketed by index, each bucket's min and max kept so peaks show).
 * What is left out is said in the picture and on stderr.
 */
#define MAX_CHARTS 100
#define MAX_LINES 20
#define MAX_VERTICES 2000

static const char plot_usage[] =
	"usage: ksft-metric plot -o OUT.svg [--baseline B.json ...] [--tolerance PCT]\n"
	"                        [--alpha A] [--title TEXT] [--base-dir DIR] FILE...\n"
	"\n"
	"Draw every metric as a time series (display_range, display_scale and\n"
	"display_label honoured; the aggregated total too), per-cpu metrics as a\n"
	"CPU x time heatmap, and with --baseline grouped baseline/current bars.\n"
	"\n"
	"  -o, --output OUT     the SVG file (required; '-' for stdout)\n"
	"  -b, --baseline FILE  baseline file(s) for the bars\n"
	"  -t, --tolerance PCT  as for compare (colours the bars)\n"
	"  -a, --alpha A        as for compare\n"
	"  -T, --title TEXT     title (default: the first input's name)\n"
	"  -C, --base-dir DIR   every file read or written must resolve under DIR\n"
	"  -q, --quiet          do not print input warnings\n"
	"  -h, --help           this help\n";

struct plot {
	struct svg s;
	double y;		/* next free pixel row */
	const struct ksft_metric_report *r;
	size_t charts, charts_wanted;
	size_t lines_left_out;	/* series not drawn in charts that were */
};

/* What to put in a title. */
enum { T_LABELS, T_FULL, T_SERIES };

static char *series_title(const struct ksft_metric_report_series *si, int what)
{
	json_t *labels = json_loads(si->labels_json, 0, NULL), *v;
	size_t cap = 256, len = 0, i;
	char *out = malloc(cap);
	const char *k;

	if (!out) {
		json_decref(labels);
		return NULL;
	}
	out[0] = '\0';
#define APPEND(str) do {						\
		const char *a_ = (str);					\
		size_t n_ = strlen(a_);					\
		if (len + n_ + 1 > cap) {				\
			char *q_;					\
			while (len + n_ + 1 > cap)			\
				cap *= 2;				\
			q_ = realloc(out, cap);				\
			if (!q_)					\
				goto oom;				\
			out = q_;					\
		}							\
		memcpy(out + len, a_, n_ + 1);				\
		len += n_;						\
	} while (0)
	if (what != T_LABELS) {
		for (i = 0; i < si->path_len; i++) {
			APPEND(si->path[i]);
			APPEND(" / ");
		}
		APPEND(si->case_name);
		APPEND(": ");
		APPEND(si->name);
		if (what == T_SERIES)
			goto done;
		APPEND(" ");
	}
	i = 0;
	json_object_foreach(labels, k, v) {
		char *text = json_is_string(v) ? NULL : json_dumps(v, JSON_ENCODE_ANY);

		APPEND(i++ ? "," : "");
		APPEND(k);
		APPEND("=");
		APPEND(text ? text : json_string_value(v) ? json_string_value(v) : "");
		free(text);
	}
	if (!i && what == T_LABELS)
		APPEND("(no labels)");
done:
#undef APPEND
	json_decref(labels);
	return out;
oom:
	json_decref(labels);
	free(out);
	return NULL;
}

static double scale_of(const struct ksft_metric_report_series *si)
{
	return isfinite(si->display_scale) ? si->display_scale : 1.0;
}

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

/*
 * CPU x time: columns bin the points (at most MAX_COLUMNS), rows bin the
 * elements (at most MAX_ROWS); a cell is the mean of its finite values.
 * One pass over the stored values, so a log with one very wide array
 * costs its size, not points x width. Runs of one colour are merged.
 */
static int heatmap(struct plot *p, size_t idx,
		   const struct ksft_metric_report_series *si)
{
	struct ksft_metric_report_points v;
	double lo = INFINITY, hi = -INFINITY, scale = scale_of(si), *tx = NULL;
	double *cell = NULL, rowh, tmin = INFINITY, tmax = -INFINITY;
	size_t *cnt = NULL, cols, rows, c, j, i, w;
	struct chart ch;
	char *title = NULL, color[16];
	const double *t;

	if (ksft_metric_report_series_points(p->r, idx, KSFT_METRIC_REPORT_TRANSFORMED, &v))
		return -1;
	if (!v.n || !v.width) {
		ksft_metric_report_points_release(&v);
		return 0;
	}
	w = v.width;
	cols = v.n < MAX_COLUMNS ? v.n : MAX_COLUMNS;
	rows = w < MAX_ROWS ? w : MAX_ROWS;
	tx = malloc(v.n * sizeof(double));
	cell = calloc(cols * rows, sizeof(double));
	cnt = calloc(cols * rows, sizeof(size_t));
	if (!tx || !cell || !cnt)
		goto fail;
	t = times(&v, tx);
	for (i = 0; i < v.n; i++) {
		size_t col = i * cols / v.n;

		if (t[i] < tmin)
			tmin = t[i];
		if (t[i] > tmax)
			tmax = t[i];
		for (j = 0; j < v.off[i + 1] - v.off[i]; j++) {
			double x = v.v[v.off[i] + j];
			size_t k = col * rows + j * rows / w;

			if (isfinite(x)) {
				cell[k] += x * scale;
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
	if (isfinite(si->display_min))
		lo = si->display_min;
	if (isfinite(si->display_max))
		hi = si->display_max;
	if (!isfinite(lo) || !isfinite(hi)) {
		lo = 0;
		hi = 1;
	}
	rowh = rows <= 64 ? 4 : rows <= 128 ? 2 : 1.5;
	ch = (struct chart){ LEFT, p->y + 30, PLOT_W - 60, rowh * (double)rows,
			     tmin, tmax > tmin ? tmax : tmin + 1, 0, (double)w };
	title = series_title(si, T_FULL);
	chart_axes(&p->s, &ch, title, "time (s)", rows < w ? "CPU (binned)" : "CPU");
	for (j = 0; j < rows; j++) {
		double y = ch.y + ch.h - rowh * (double)(j + 1);

		for (c = 0; c < cols;) {
			int level = heat_level(cell[c * rows + j], lo, hi);
			size_t run = c + 1;

			while (run < cols && heat_level(cell[run * rows + j], lo, hi) == level)
				run++;
			if (level < 0)
				snprintf(color, sizeof(color), "#dddddd");
			else
				heat_color((double)level / (LEVELS - 1), color, sizeof(color));
			svg_rect(&p->s, ch.x + ch.w * (double)c / (double)cols, y,
				 ch.w * (double)(run - c) / (double)cols, rowh, color);
			c = run;
		}
	}
	/* Colour scale. */
	for (i = 0; i < LEVELS; i++) {
		heat_color((double)i / (LEVELS - 1), color, sizeof(color));
		svg_rect(&p->s, ch.x + ch.w + 15, ch.y + ch.h - (double)(i + 1) * ch.h / LEVELS,
			 12, ch.h / LEVELS, color);
	}
	{
		char buf[64];

		snprintf(buf, sizeof(buf), "%g", hi);
		svg_text(&p->s, ch.x + ch.w + 30, ch.y + 8, "start", 10, "#333333", buf);
		snprintf(buf, sizeof(buf), "%g", lo);
		svg_text(&p->s, ch.x + ch.w + 30, ch.y + ch.h, "start", 10, "#333333", buf);
		if (si->display_label)
			svg_text(&p->s, ch.x + ch.w + 15, ch.y - 8, "start", 10,
				 "#333333", si->display_label);
	}
	p->y = ch.y + ch.h + 45;
	free(title);
	free(tx);
	free(cell);
	free(cnt);
	ksft_metric_report_points_release(&v);
	return 0;
fail:
	free(tx);
	free(cell);
	free(cnt);
	ksft_metric_report_points_release(&v);
	return -1;
}

/*
 * At most MAX_VERTICES of a series' finite points (x, first value):
 * every point when there are few, else per index bucket its min and max
 * in point order. Returns the count written to @x / @y.
 */
static size_t decimate(const double *t, const struct ksft_metric_report_points *v,
		       double scale, double *x, double *y)
{
	size_t i, n = 0, buckets = MAX_VERTICES / 2;

	if (v->n <= MAX_VERTICES) {
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

/*
 * A line chart of the group's series at @stage: individual series (scaled,
 * within display_range) or aggregated totals (unscaled, uncapped). At
 * most MAX_LINES series, each at most MAX_VERTICES vertices.
 */
static int lines(struct plot *p, const size_t *members, size_t n, int stage,
		 const char *title, const char *ylabel, int individual)
{
	size_t drawn = n < MAX_LINES ? n : MAX_LINES;
	double **xs = calloc(drawn, sizeof(double *));
	double **ys = calloc(drawn, sizeof(double *));
	size_t *cnt = calloc(drawn, sizeof(size_t));
	double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
	struct ksft_metric_report_series si = { .sz = sizeof(si) };
	struct chart ch;
	size_t i, k, shown = 0;
	int ret = -1;

	if (!xs || !ys || !cnt)
		goto out;
	ksft_metric_report_series_get(p->r, members[0], &si);
	for (i = 0; i < drawn; i++) {
		struct ksft_metric_report_series sj = { .sz = sizeof(sj) };
		struct ksft_metric_report_points v;
		double *scratch;
		size_t room;

		if (ksft_metric_report_series_get(p->r, members[i], &sj) ||
		    ksft_metric_report_series_points(p->r, members[i], stage, &v))
			goto out;
		room = v.n < MAX_VERTICES ? v.n : MAX_VERTICES;
		scratch = malloc((v.n ? v.n : 1) * sizeof(double));
		xs[i] = malloc((room ? room : 1) * sizeof(double));
		ys[i] = malloc((room ? room : 1) * sizeof(double));
		if (!scratch || !xs[i] || !ys[i]) {
			free(scratch);
			ksft_metric_report_points_release(&v);
			goto out;
		}
		cnt[i] = decimate(times(&v, scratch), &v,
				  individual ? scale_of(&sj) : 1.0, xs[i], ys[i]);
		free(scratch);
		ksft_metric_report_points_release(&v);
		for (k = 0; k < cnt[i]; k++) {
			double x = xs[i][k], y = ys[i][k];

			if (!isfinite(y) || !isfinite(x))
				continue;
			shown++;
			xmin = x < xmin ? x : xmin;
			xmax = x > xmax ? x : xmax;
			ymin = y < ymin ? y : ymin;
			ymax = y > ymax ? y : ymax;
		}
	}
	if (!shown) {
		ret = 0;
		goto out;
	}
	if (individual && isfinite(si.display_min))
		ymin = si.display_min;
	if (individual && isfinite(si.display_max))
		ymax = si.display_max;
	else
		nice_range(&ymin, &ymax);
	if (individual && isfinite(si.display_min))
		ymin = si.display_min;
	if (!(xmax > xmin)) {
		xmin -= 0.5;	/* one instant: a second around it */
		xmax += 0.5;
	}
	ch = (struct chart){ LEFT, p->y + 30, PLOT_W, CHART_H, xmin, xmax, ymin, ymax };
	chart_axes(&p->s, &ch, title, "time (s)", ylabel);
	for (i = 0; i < drawn; i++)
		chart_series(&p->s, &ch, xs[i], ys[i], cnt[i], 1, palette(i));
	p->y = ch.y + ch.h + 40;
	for (i = 0; i < drawn; i++) {
		struct ksft_metric_report_series sj = { .sz = sizeof(sj) };
		char *label;

		if (ksft_metric_report_series_get(p->r, members[i], &sj))
			continue;
		label = series_title(&sj, T_LABELS);
		svg_rect(&p->s, LEFT + (double)(i % 4) * 215, p->y - 9, 10, 10, palette(i));
		svg_text(&p->s, LEFT + (double)(i % 4) * 215 + 14, p->y, "start", 10,
			 "#333333", label ? label : "?");
		free(label);
		if (i % 4 == 3 || i == drawn - 1)
			p->y += 16;
	}
	if (drawn < n) {
		char buf[96];

		snprintf(buf, sizeof(buf), "drew %zu of %zu series", drawn, n);
		svg_text(&p->s, LEFT, p->y, "start", 10, "#555555", buf);
		p->y += 16;
		p->lines_left_out += n - drawn;
	}
	p->y += 10;
	ret = 0;
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

/* Group key: same case (path + description), metric name and kind. */
static char *group_key(const struct ksft_metric_report_series *si)
{
	size_t len = strlen(si->case_name) + strlen(si->name) + 8, i;
	char *k, *q;

	for (i = 0; i < si->path_len; i++)
		len += strlen(si->path[i]) + 1;
	k = malloc(len);
	if (!k)
		return NULL;
	q = k;
	/* \x01 cannot occur: names are kept without control characters. */
	for (i = 0; i < si->path_len; i++)
		q += sprintf(q, "%s\x01", si->path[i]);
	sprintf(q, "%s\x02%s\x02%d", si->case_name, si->name, si->is_array);
	return k;
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	return h;
}

/*
 * Series grouped by group_key() through a hash table, groups in order of
 * first appearance and members in report order (a counting sort): linear
 * in the series, where comparing every pair was quadratic.
 */
static int group_series(const struct ksft_metric_report *r, size_t n,
			size_t *order, size_t *gstart, size_t *ngroups)
{
	size_t cap = 16, i, ng = 0;
	char **keys = NULL;
	size_t *slot_gid = NULL, *gid = calloc(n + 1, sizeof(size_t));
	int ret = -1;

	while (cap < 2 * n)
		cap *= 2;
	keys = calloc(cap, sizeof(char *));
	slot_gid = calloc(cap, sizeof(size_t));
	if (!keys || !slot_gid || !gid)
		goto out;
	for (i = 0; i < n; i++) {
		struct ksft_metric_report_series si = { .sz = sizeof(si) };
		char *k;
		size_t h;

		if (ksft_metric_report_series_get(r, i, &si))
			goto out;
		k = group_key(&si);
		if (!k)
			goto out;
		for (h = hash_str(k) & (cap - 1); keys[h]; h = (h + 1) & (cap - 1))
			if (!strcmp(keys[h], k))
				break;
		if (keys[h]) {
			free(k);
		} else {
			keys[h] = k;
			slot_gid[h] = ng++;
		}
		gid[i] = slot_gid[h];
	}
	memset(gstart, 0, (ng + 1) * sizeof(size_t));
	for (i = 0; i < n; i++)
		gstart[gid[i] + 1]++;
	for (i = 0; i < ng; i++)
		gstart[i + 1] += gstart[i];
	{
		size_t *fill = calloc(ng + 1, sizeof(size_t));

		if (!fill)
			goto out;
		memcpy(fill, gstart, (ng + 1) * sizeof(size_t));
		for (i = 0; i < n; i++)
			order[fill[gid[i]]++] = i;
		free(fill);
	}
	*ngroups = ng;
	ret = 0;
out:
	for (i = 0; keys && i < cap; i++)
		free(keys[i]);
	free(keys);
	free(slot_gid);
	free(gid);
	return ret;
}

static int draw_groups(struct plot *p)
{
	size_t n = ksft_metric_report_series_count(p->r), g, j, ng = 0;
	size_t *order = calloc(n + 1, sizeof(size_t));
	size_t *gstart = calloc(n + 2, sizeof(size_t));
	int ret = 0;

	if (!order || !gstart || group_series(p->r, n, order, gstart, &ng)) {
		ret = -1;
		goto out;
	}
	for (g = 0; !ret && g < ng; g++) {
		struct ksft_metric_report_series si = { .sz = sizeof(si) };
		const size_t *members = order + gstart[g];
		size_t m = gstart[g + 1] - gstart[g];
		char *title, ylabel[256];

		if (ksft_metric_report_series_get(p->r, members[0], &si))
			continue;
		p->charts_wanted += (si.is_array ? m : 1) + (si.aggregation ? 1 : 0);
		if (p->charts >= MAX_CHARTS)
			continue;	/* only counted */
		title = series_title(&si, T_SERIES);	/* the legend has labels */
		if (!title) {
			ret = -1;
			break;
		}
		snprintf(ylabel, sizeof(ylabel), "%s", si.display_label ?
			 si.display_label : si.name);
		if (si.is_array) {
			for (j = 0; !ret && j < m && p->charts < MAX_CHARTS; j++) {
				struct ksft_metric_report_series sj = { .sz = sizeof(sj) };

				if (!ksft_metric_report_series_get(p->r, members[j], &sj)) {
					ret = heatmap(p, members[j], &sj);
					p->charts++;
				}
			}
		} else {
			ret = lines(p, members, m, KSFT_METRIC_REPORT_TRANSFORMED,
				    title, ylabel, 1);
			p->charts++;
		}
		if (!ret && si.aggregation && p->charts < MAX_CHARTS) {
			char t2[512];

			snprintf(t2, sizeof(t2), "%s (%s, total)", title, si.aggregation);
			ret = lines(p, members, m, KSFT_METRIC_REPORT_PROCESSED, t2,
				    "busy cores", 0);
			p->charts++;
		}
		free(title);
	}
	if (!ret && p->charts < p->charts_wanted) {
		char buf[128];

		snprintf(buf, sizeof(buf), "drew %zu of %zu charts (at most %d per plot)",
			 p->charts, p->charts_wanted, MAX_CHARTS);
		svg_text(&p->s, 10, p->y + 12, "start", 12, "#555555", buf);
		p->y += 24;
	}
out:
	free(order);
	free(gstart);
	return ret;
}

/* The last @max characters of @s (UTF-8 aware) behind an ellipsis; in @s. */
static const char *tail(char *s, size_t max)
{
	size_t n = 0;
	char *p;

	for (p = s; *p; p++)
		n += ((unsigned char)*p & 0xc0) != 0x80;
	if (n <= max)
		return s;
	/* Drop leading characters: at least 3 bytes, room for U+2026. */
	for (p = s; *p && (n > max - 1 || p - s < 3); p++)
		n -= ((unsigned char)*p & 0xc0) != 0x80;
	while (((unsigned char)*p & 0xc0) == 0x80)
		p++;
	memcpy(p - 3, "\xe2\x80\xa6", 3);
	return p - 3;
}

static int draw_bars(struct plot *p, const struct ksft_metric_report_comparison *cmp)
{
	size_t n = ksft_metric_report_comparison_rows(cmp), i, drawn = 0;
	char buf[64];

	svg_text(&p->s, 10, p->y + 20, "start", 14, "#000000",
		 "Baseline (grey) vs current");
	p->y += 35;
	for (i = 0; i < n && drawn < MAX_BARS; i++) {
		struct ksft_metric_report_row row = { .sz = sizeof(row) };
		struct ksft_metric_report_series fake = { .sz = sizeof(fake) };
		double big, bw = 330, x0 = 470;
		const char *color;
		char *label, *full;

		if (ksft_metric_report_comparison_row(cmp, i, &row))
			return -1;
		fake.case_name = row.case_name;
		fake.path = row.path;
		fake.path_len = row.path_len;
		fake.name = row.name;
		fake.labels_json = row.labels_json;
		label = series_title(&fake, T_FULL);
		if (!label)
			return -1;
		if (row.element >= 0 && asprintf(&full, "%s [%ld]", label, row.element) >= 0) {
			free(label);
			label = full;
		}
		big = fmax(fabs(isfinite(row.baseline) ? row.baseline : 0),
			   fabs(isfinite(row.current) ? row.current : 0));
		color = !strcmp(row.verdict, "regression") ? "#d62728" :
			!strcmp(row.verdict, "improvement") ? "#2ca02c" : "#1f77b4";
		svg_text(&p->s, x0 - 10, p->y + 12, "end", 10, "#000000", tail(label, 78));
		free(label);
		if (isfinite(row.baseline) && big > 0)
			svg_rect(&p->s, x0, p->y, bw * fabs(row.baseline) / big, 8, "#9e9e9e");
		if (isfinite(row.current) && big > 0)
			svg_rect(&p->s, x0, p->y + 9, bw * fabs(row.current) / big, 8, color);
		snprintf(buf, sizeof(buf), "%.4g", row.baseline);
		svg_text(&p->s, x0 + bw + 8, p->y + 8, "start", 9, "#555555",
			 isfinite(row.baseline) ? buf : "-");
		snprintf(buf, sizeof(buf), "%.4g", row.current);
		svg_text(&p->s, x0 + bw + 8, p->y + 17, "start", 9, "#000000",
			 isfinite(row.current) ? buf : "-");
		svg_text(&p->s, x0 + bw + 70, p->y + 13, "start", 10, color, row.verdict);
		p->y += 24;
		drawn++;
	}
	if (drawn < n) {
		snprintf(buf, sizeof(buf), "%zu more rows not drawn", n - drawn);
		svg_text(&p->s, 10, p->y + 12, "start", 10, "#555555", buf);
		p->y += 20;
	}
	p->y += 10;
	return 0;
}

int cmd_plot(int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_OPTION_OUTPUT,
		CLI_OPTION_BASELINE,
		CLI_OPTION_TOLERANCE,
		CLI_OPTION_ALPHA,
		{ "title", required_argument, NULL, 'T' },
		CLI_OPTION_BASE_DIR,
		CLI_OPTION_QUIET,
		CLI_OPTION_HELP,
		{ NULL, 0, NULL, 0 },
	};
	struct ksft_metric_report_comparison *cmp = NULL;
	struct cli_common cc;
	struct plot p;
	const char *title = NULL;
	char *doc;
	size_t len;
	int ch, ret;

	memset(&p, 0, sizeof(p));
	ret = cli_common_init(&cc, "plot", plot_usage, 0, argc);
	if (ret != EXIT_OK)
		return ret;
	while ((ch = getopt_long(argc, argv, "o:b:t:a:T:C:qh", opts, NULL)) != -1) {
		if (ch == 'T') {
			title = optarg;
			continue;
		}
		ret = cli_common_option(&cc, ch, optarg);
		if (ret != CLI_OPT_NEXT)
			goto out;
	}
	if (!cc.out) {
		ret = cli_needs(&cc, "-o OUT.svg");
		goto out;
	}
	ret = cli_load(&cc, argv + optind, argc - optind, NULL);
	if (ret != EXIT_OK)
		goto out;
	p.r = cc.r;
	ret = EXIT_USAGE;
	if (!title)
		title = argv[optind];
	svg_text(&p.s, 10, 24, "start", 16, "#000000", title);
	p.y = 40;
	if (cc.n_baselines) {
		if (ksft_metric_report_compare(p.r, cc.b, &cc.copts, &cmp) < 0 ||
		    draw_bars(&p, cmp)) {
			cli_error("%s", ksft_metric_report_errmsg());
			goto out;
		}
	}
	if (draw_groups(&p)) {
		cli_error("cannot draw: %s", ksft_metric_report_errmsg());
		goto out;
	}
	if (p.charts < p.charts_wanted)
		fprintf(stderr, "ksft-metric: plot: drew %zu of %zu charts (at most %d per plot)\n",
			p.charts, p.charts_wanted, MAX_CHARTS);
	if (p.lines_left_out)
		fprintf(stderr, "ksft-metric: plot: %zu series left out of crowded charts (at most %d lines per chart)\n",
			p.lines_left_out, MAX_LINES);
	doc = svg_document(&p.s, WIDTH, p.y + 10, title, &len);
	if (!doc) {
		cli_error("out of memory");
		goto out;
	}
	if (!confine_write(&cc.c, cc.out, doc, len))
		ret = EXIT_OK;
	free(doc);
out:
	svg_free(&p.s);
	ksft_metric_report_comparison_free(cmp);
	cli_common_free(&cc);
	return ret;
}
