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
#define LEVELS 16
#define MAX_BARS 200

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

/* Same case (path + description) and metric name. */
static int same_group(const struct ksft_metric_report_series *a,
		      const struct ksft_metric_report_series *b)
{
	size_t i;

	if (strcmp(a->name, b->name) || strcmp(a->case_name, b->case_name) ||
	    a->path_len != b->path_len || a->is_array != b->is_array)
		return 0;
	for (i = 0; i < a->path_len; i++)
		if (strcmp(a->path[i], b->path[i]))
			return 0;
	return 1;
}

static double scale_of(const struct ksft_metric_report_series *si)
{
	return isfinite(si->display_scale) ? si->display_scale : 1.0;
}

/* Time of point i, or its index when the input had no times. */
static const double *times(const struct ksft_metric_report_values *v,
			   double *scratch)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		if (!isfinite(v->t[i]))
			break;
	if (i == v->n)
		return v->t;
	for (i = 0; i < v->n; i++)
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

/* CPU x time, columns binned to at most MAX_COLUMNS, runs merged. */
static int heatmap(struct plot *p, size_t idx,
		   const struct ksft_metric_report_series *si)
{
	struct ksft_metric_report_values v;
	double lo = INFINITY, hi = -INFINITY, scale = scale_of(si), *tx = NULL;
	double *cell = NULL, rowh, tmin = INFINITY, tmax = -INFINITY;
	size_t cols, c, j, i, w;
	struct chart ch;
	char *title = NULL, color[16];
	const double *t;

	if (ksft_metric_report_series_values(p->r, idx, KSFT_METRIC_REPORT_TRANSFORMED, &v))
		return -1;
	if (!v.n || !v.width) {
		ksft_metric_report_values_release(&v);
		return 0;
	}
	w = v.width;
	cols = v.n < MAX_COLUMNS ? v.n : MAX_COLUMNS;
	tx = malloc(v.n * sizeof(double));
	cell = malloc(cols * w * sizeof(double));
	if (!tx || !cell)
		goto fail;
	t = times(&v, tx);
	for (i = 0; i < v.n; i++) {
		if (t[i] < tmin)
			tmin = t[i];
		if (t[i] > tmax)
			tmax = t[i];
	}
	for (c = 0; c < cols; c++) {
		size_t from = c * v.n / cols, to = (c + 1) * v.n / cols;

		for (j = 0; j < w; j++) {
			double sum = 0;
			size_t cnt = 0;

			for (i = from; i < to; i++) {
				double x = v.v[i * w + j];

				if (isfinite(x)) {
					sum += x * scale;
					cnt++;
				}
			}
			cell[c * w + j] = cnt ? sum / (double)cnt : NAN;
			if (cnt && cell[c * w + j] < lo)
				lo = cell[c * w + j];
			if (cnt && cell[c * w + j] > hi)
				hi = cell[c * w + j];
		}
	}
	if (isfinite(si->display_min))
		lo = si->display_min;
	if (isfinite(si->display_max))
		hi = si->display_max;
	if (!isfinite(lo) || !isfinite(hi)) {
		lo = 0;
		hi = 1;
	}
	rowh = w <= 64 ? 4 : w <= 256 ? 2 : 1;
	ch = (struct chart){ LEFT, p->y + 30, PLOT_W - 60, rowh * (double)w,
			     tmin, tmax > tmin ? tmax : tmin + 1, 0, (double)w };
	title = series_title(si, T_FULL);
	chart_axes(&p->s, &ch, title, "time (s)", "CPU");
	for (j = 0; j < w; j++) {
		double y = ch.y + ch.h - rowh * (double)(j + 1);

		for (c = 0; c < cols;) {
			double x = cell[c * w + j];
			int level = -1;
			size_t run = c + 1;

			if (isfinite(x)) {
				double f = hi > lo ? (x - lo) / (hi - lo) : 0;

				f = f < 0 ? 0 : f > 1 ? 1 : f;
				level = (int)(f * (LEVELS - 1) + 0.5);
			}
			while (run < cols) {
				double y2 = cell[run * w + j];
				int l2 = -1;

				if (isfinite(y2)) {
					double f = hi > lo ? (y2 - lo) / (hi - lo) : 0;

					f = f < 0 ? 0 : f > 1 ? 1 : f;
					l2 = (int)(f * (LEVELS - 1) + 0.5);
				}
				if (l2 != level)
					break;
				run++;
			}
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
	ksft_metric_report_values_release(&v);
	return 0;
fail:
	free(tx);
	free(cell);
	ksft_metric_report_values_release(&v);
	return -1;
}

/*
 * A line chart of the group's series at @stage: individual series (scaled,
 * within display_range) or aggregated totals (unscaled, uncapped).
 */
static int lines(struct plot *p, const size_t *members, size_t n, int stage,
		 const char *title, const char *ylabel, int individual)
{
	struct ksft_metric_report_values *v = calloc(n, sizeof(*v));
	double **tx = calloc(n, sizeof(double *));
	double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
	struct ksft_metric_report_series si = { .sz = sizeof(si) };
	struct chart ch;
	size_t i, k, shown = 0;
	int ret = -1;

	if (!v || !tx)
		goto out;
	ksft_metric_report_series_get(p->r, members[0], &si);
	for (i = 0; i < n; i++) {
		struct ksft_metric_report_series sj = { .sz = sizeof(sj) };
		const double *t;
		double scale;

		if (ksft_metric_report_series_get(p->r, members[i], &sj) ||
		    ksft_metric_report_series_values(p->r, members[i], stage, &v[i]))
			goto out;
		scale = individual ? scale_of(&sj) : 1.0;
		tx[i] = malloc((v[i].n ? v[i].n : 1) * sizeof(double));
		if (!tx[i])
			goto out;
		t = times(&v[i], tx[i]);
		if (t == v[i].t)
			memcpy(tx[i], t, v[i].n * sizeof(double));
		for (k = 0; k < v[i].n * v[i].width; k++)
			v[i].v[k] *= scale;
		for (k = 0; k < v[i].n; k++) {
			double y = v[i].v[k * v[i].width];

			if (!isfinite(y))
				continue;
			shown++;
			xmin = tx[i][k] < xmin ? tx[i][k] : xmin;
			xmax = tx[i][k] > xmax ? tx[i][k] : xmax;
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
	for (i = 0; i < n; i++)
		chart_series(&p->s, &ch, tx[i], v[i].v, v[i].n, v[i].width,
			     palette(i));
	p->y = ch.y + ch.h + 40;
	for (i = 0; i < n; i++) {
		struct ksft_metric_report_series sj = { .sz = sizeof(sj) };
		char *label;

		if (ksft_metric_report_series_get(p->r, members[i], &sj))
			continue;
		label = series_title(&sj, T_LABELS);
		svg_rect(&p->s, LEFT + (double)(i % 4) * 215, p->y - 9, 10, 10, palette(i));
		svg_text(&p->s, LEFT + (double)(i % 4) * 215 + 14, p->y, "start", 10,
			 "#333333", label ? label : "?");
		free(label);
		if (i % 4 == 3 || i == n - 1)
			p->y += 16;
	}
	p->y += 10;
	ret = 0;
out:
	for (i = 0; v && i < n; i++)
		ksft_metric_report_values_release(&v[i]);
	for (i = 0; tx && i < n; i++)
		free(tx[i]);
	free(v);
	free(tx);
	return ret;
}

static int draw_groups(struct plot *p)
{
	size_t n = ksft_metric_report_series_count(p->r), i, j, m;
	size_t *members = calloc(n + 1, sizeof(size_t));
	char *done = calloc(n + 1, 1);
	int ret = 0;

	if (!members || !done) {
		ret = -1;
		goto out;
	}
	for (i = 0; !ret && i < n; i++) {
		struct ksft_metric_report_series si = { .sz = sizeof(si) };
		char *title, ylabel[256];

		if (done[i] || ksft_metric_report_series_get(p->r, i, &si))
			continue;
		m = 0;
		for (j = i; j < n; j++) {
			struct ksft_metric_report_series sj = { .sz = sizeof(sj) };

			if (!done[j] && !ksft_metric_report_series_get(p->r, j, &sj) &&
			    same_group(&si, &sj)) {
				done[j] = 1;
				members[m++] = j;
			}
		}
		title = series_title(&si, T_SERIES);	/* the legend has labels */
		if (!title) {
			ret = -1;
			break;
		}
		snprintf(ylabel, sizeof(ylabel), "%s", si.display_label ?
			 si.display_label : si.name);
		if (si.is_array) {
			for (j = 0; !ret && j < m; j++) {
				struct ksft_metric_report_series sj = { .sz = sizeof(sj) };

				if (!ksft_metric_report_series_get(p->r, members[j], &sj))
					ret = heatmap(p, members[j], &sj);
			}
		} else {
			ret = lines(p, members, m, KSFT_METRIC_REPORT_TRANSFORMED,
				    title, ylabel, 1);
		}
		if (!ret && si.aggregation) {
			char t2[512];

			snprintf(t2, sizeof(t2), "%s (%s, total)", title, si.aggregation);
			ret = lines(p, members, m, KSFT_METRIC_REPORT_PROCESSED, t2,
				    "busy cores", 0);
		}
		free(title);
	}
out:
	free(members);
	free(done);
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
		{ "output", required_argument, NULL, 'o' },
		{ "baseline", required_argument, NULL, 'b' },
		{ "tolerance", required_argument, NULL, 't' },
		{ "alpha", required_argument, NULL, 'a' },
		{ "title", required_argument, NULL, 'T' },
		{ "base-dir", required_argument, NULL, 'C' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ksft_metric_report_compare_opts copts = KSFT_METRIC_REPORT_COMPARE_OPTS_INIT;
	struct ksft_metric_report_comparison *cmp = NULL;
	struct ksft_metric_report_baseline *b = NULL;
	struct plot p;
	struct confine c = { NULL };
	const char *out = NULL, *base = NULL, *title = NULL;
	char **baselines = calloc((size_t)argc + 1, sizeof(char *)), *doc;
	size_t n_baselines = 0, len;
	int quiet = 0, ch, ret = EXIT_USAGE;

	memset(&p, 0, sizeof(p));
	if (!baselines)
		return EXIT_USAGE;
	while ((ch = getopt_long(argc, argv, "o:b:t:a:T:C:qh", opts, NULL)) != -1) {
		switch (ch) {
		case 'o':
			out = optarg;
			break;
		case 'b':
			baselines[n_baselines++] = optarg;
			break;
		case 't':
			if (cli_parse_double("--tolerance", optarg, 0, 1e9,
					     &copts.tolerance_pct))
				goto out;
			break;
		case 'a':
			if (cli_parse_double("--alpha", optarg, 0, 1, &copts.alpha))
				goto out;
			break;
		case 'T':
			title = optarg;
			break;
		case 'C':
			base = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			fputs(plot_usage, stdout);
			ret = EXIT_OK;
			goto out;
		default:
			fputs(plot_usage, stderr);
			goto out;
		}
	}
	if (!out) {
		cli_error("plot needs -o OUT.svg");
		fputs(plot_usage, stderr);
		goto out;
	}
	if (confine_init(&c, base) || confine_check_write(&c, out))
		goto out;
	p.r = ksft_metric_report_new(NULL);
	b = ksft_metric_report_baseline_new();
	if (!p.r || !b) {
		cli_error("%s", ksft_metric_report_errmsg());
		goto out;
	}
	ret = cli_read_baselines(&c, b, baselines, n_baselines);
	if (ret == EXIT_OK)
		ret = cli_read_inputs(&c, (struct ksft_metric_report *)p.r,
				      argv + optind, argc - optind, quiet);
	if (ret != EXIT_OK)
		goto out;
	ret = EXIT_USAGE;
	if (!title)
		title = argv[optind];
	svg_text(&p.s, 10, 24, "start", 16, "#000000", title);
	p.y = 40;
	if (n_baselines) {
		if (ksft_metric_report_compare(p.r, b, &copts, &cmp) < 0 ||
		    draw_bars(&p, cmp)) {
			cli_error("%s", ksft_metric_report_errmsg());
			goto out;
		}
	}
	if (draw_groups(&p)) {
		cli_error("cannot draw: %s", ksft_metric_report_errmsg());
		goto out;
	}
	doc = svg_document(&p.s, WIDTH, p.y + 10, title, &len);
	if (!doc) {
		cli_error("out of memory");
		goto out;
	}
	if (!confine_write(&c, out, doc, len))
		ret = EXIT_OK;
	free(doc);
out:
	svg_free(&p.s);
	ksft_metric_report_comparison_free(cmp);
	ksft_metric_report_baseline_free(b);
	ksft_metric_report_free((struct ksft_metric_report *)p.r);
	confine_free(&c);
	free(baselines);
	return ret;
}
