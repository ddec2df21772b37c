/*
 * ksft-metric plot: one self-contained SVG. Per metric a time series of
 * the individual series (after the transform, times display_scale, within
 * display_range, labelled display_label) and of the aggregated total; a
 * CPU x time heatmap for array (per-cpu) metrics; baseline-vs-current bars
 * when baselines are given.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "chart.h"
#include "verdict_vocab.h"

#define WIDTH 1000.0
#define CELL_W 485.0		/* two charts side by side */
#define CHART_H 150.0
#define GAP 10.0
#define MAX_BARS 200
#define MAX_LISTED 60		/* names in one "always 0" / values line */
/*
 * Charts per document: the cost and size of a plot stay linear in its
 * input whatever the log. What is left out is said in the picture and on
 * stderr.
 */
#define MAX_CHARTS 100

static const char plot_usage[] =
	"usage: ksft-metric plot -o OUT.svg [--baseline B.json ...] [--tolerance PCT]\n"
	"                        [--alpha A] [--title TEXT] [--base-dir DIR] FILE...\n"
	"\n"
	"Draw every metric as a time series (display_range, display_scale and\n"
	"display_label honoured; the aggregated total too), per-cpu metrics as a\n"
	"CPU x time heatmap, two charts a row, case by case; series that stay 0\n"
	"and single values as text. With --baseline grouped baseline/current bars.\n"
	"\n"
	"  -o, --output OUT     the SVG file (required; '-' for stdout)\n"
	"  -b, --baseline FILE  baseline file(s) for the bars\n"
	"  -t, --tolerance PCT  as for compare (colours the bars)\n"
	"  -a, --alpha A        as for compare\n"
	"      --allow-context-mismatch  as for compare\n"
	"  -T, --title TEXT     title (default: the first input's name)\n"
	"  -C, --base-dir DIR   every file read or written must resolve under DIR\n"
	"  -q, --quiet          do not print input warnings\n"
	"  -h, --help           this help\n";

struct plot {
	struct svg s;
	double y;		/* top of the current row of charts */
	double row_h;		/* tallest chart in it so far */
	int col;		/* charts placed in it */
	const struct ksft_metric_report *r;
	size_t charts, charts_wanted;
	size_t lines_left_out;	/* series not drawn in charts that were */
};

/* End the current row of charts. */
static void row_flush(struct plot *p)
{
	if (p->col) {
		p->y += p->row_h + GAP;
		p->col = 0;
		p->row_h = 0;
	}
}

/* The next chart's box; draw(), then place() with its height. */
static double cell_x(const struct plot *p)
{
	return 10 + (double)p->col * (CELL_W + GAP);
}

static void place(struct plot *p, double h)
{
	svg_printf(&p->s, "</g>\n");
	if (h <= 0)
		return;
	p->charts++;
	p->row_h = h > p->row_h ? h : p->row_h;
	if (++p->col == 2)
		row_flush(p);
}

static void chart_open(struct plot *p)
{
	svg_printf(&p->s, "<g class=\"chart\">\n");
}

/*
 * A list of names as wrapped lines of text under @head ("always 0:"):
 * at most MAX_LISTED names, then how many more.
 */
struct text_list {
	char **items;
	size_t n, cap, more;
};

static int list_add(struct text_list *l, char *item)
{
	if (!item)
		return -ENOMEM;
	if (l->n == MAX_LISTED) {
		l->more++;
		free(item);
		return 0;
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 8;
		char **v = realloc(l->items, cap * sizeof(*v));

		if (!v) {
			free(item);
			return -ENOMEM;
		}
		l->items = v;
		l->cap = cap;
	}
	l->items[l->n++] = item;
	return 0;
}

static void list_draw(struct plot *p, struct text_list *l, const char *head)
{
	double x, width = WIDTH - 20;
	size_t i;

	if (!l->n)
		goto out;
	row_flush(p);
	svg_printf(&p->s, "<g class=\"chart text-list\">\n");
	svg_text(&p->s, 10, p->y + 12, "start", 11, "#000000", head);
	x = 10 + text_width(head, 11) + 8;
	for (i = 0; i <= l->n; i++) {
		char more[64], *t = more;
		double tw;

		if (i == l->n) {
			if (!l->more)
				break;
			snprintf(more, sizeof(more), "and %zu more", l->more);
		} else {
			t = fit_text(l->items[i], width - 40, 11);
		}
		tw = text_width(t, 11);
		if (x + tw > width && x > 40) {
			p->y += 16;
			x = 30;
		}
		svg_text(&p->s, x, p->y + 12, "start", 11, "#333333", t);
		x += tw + 14;
	}
	svg_printf(&p->s, "</g>\n");
	p->y += 22;
out:
	for (i = 0; i < l->n; i++)
		free(l->items[i]);
	free(l->items);
	memset(l, 0, sizeof(*l));
}

/* One value with its unit: "throughput host=local = 32.5 Gbit/s". */
static char *value_item(const struct ksft_metric_report_series *si, double v,
			int individual)
{
	char *name = series_short_name(si), *out, buf[96];

	if (!name)
		return NULL;
	ksft_metric_report_value_text(buf, sizeof(buf), v, individual ? si->display_scale : NAN,
				      individual ? si->display_label : NULL);
	if (asprintf(&out, "%s = %s", name, buf) < 0)
		out = NULL;
	free(name);
	return out;
}

/*
 * One group (a metric of a case) at @stage: series that stay at 0 go to
 * @zero, single values to @single, the rest into one line chart.
 */
static int group_lines(struct plot *p, const size_t *members, size_t m,
		       int stage, int individual, const char *title,
		       const char *ylabel, struct text_list *zero,
		       struct text_list *single)
{
	size_t *drawn = malloc((m ? m : 1) * sizeof(size_t)), nd = 0, j;
	int ret = -1;

	if (!drawn)
		return -ENOMEM;
	for (j = 0; j < m; j++) {
		struct ksft_metric_report_series sj = { .sz = sizeof(sj) };
		double v = NAN;
		int kind = series_kind(p->r, members[j], stage, &v);

		if (kind < 0 || ksft_metric_report_series_get(p->r, members[j], &sj))
			goto out;
		if (kind == KIND_ZERO && list_add(zero, series_short_name(&sj)))
			goto out;
		if (kind == KIND_SINGLE && list_add(single, value_item(&sj, v, individual)))
			goto out;
		if (kind == KIND_LINES)
			drawn[nd++] = members[j];
	}
	if (nd) {
		double h;

		chart_open(p);
		h = chart_lines(&p->s, p->r, drawn, nd, stage, individual, cell_x(p),
				p->y, CELL_W - CHART_LEFT - CHART_RIGHT, CHART_H,
				title, ylabel, &p->lines_left_out);
		place(p, h);
		if (h < 0)
			goto out;
	}
	ret = 0;
out:
	free(drawn);
	return ret;
}

/*
 * The groups in drawing order: case by case as in the log, within a case
 * the gated metrics (a regression policy: the headline) first.
 */
static size_t *gated_first(const struct ksft_metric_report *r, const struct groups *gr)
{
	size_t *out = malloc((gr->n + 1) * sizeof(size_t)), g0 = 0, g, k = 0;
	char *h0 = NULL;
	int pass;

	if (!out)
		return NULL;
	for (g = 0; g <= gr->n; g++) {
		struct ksft_metric_report_series si = { .sz = sizeof(si) };
		char *h = NULL;

		if (g < gr->n) {
			if (ksft_metric_report_series_get(r, gr->order[gr->start[g]], &si) ||
			    !(h = series_case_heading(&si)))
				goto fail;
			if (h0 && !strcmp(h, h0)) {
				free(h);
				continue;
			}
		}
		/* A case ends at g: its groups [g0, g), gated ones first. */
		for (pass = 0; h0 && pass < 2; pass++) {
			size_t j;

			for (j = g0; j < g; j++) {
				struct ksft_metric_report_series sj = { .sz = sizeof(sj) };

				if (ksft_metric_report_series_get(r, gr->order[gr->start[j]], &sj)) {
					free(h);
					goto fail;
				}
				if (!!sj.compare == !pass)
					out[k++] = j;
			}
		}
		free(h0);
		h0 = h;
		g0 = g;
	}
	free(h0);
	return out;
fail:
	free(h0);
	free(out);
	return NULL;
}

static int draw_groups(struct plot *p)
{
	struct text_list zero = { 0 }, single = { 0 };
	struct groups gr;
	char *heading = NULL;
	size_t k, j = 0, c0, *gorder;
	int ret = 0;

	ret = groups_build(p->r, &gr);
	if (ret)
		return ret;
	gorder = gated_first(p->r, &gr);
	if (!gorder) {
		groups_free(&gr);
		return -ENOMEM;
	}
	for (k = 0; !ret && k < gr.n; k++) {
		struct ksft_metric_report_series si = { .sz = sizeof(si) };
		size_t g = gorder[k];
		const size_t *members = gr.order + gr.start[g];
		size_t m = gr.start[g + 1] - gr.start[g];
		char *h, title[512];

		ret = ksft_metric_report_series_get(p->r, members[0], &si);
		if (ret)
			break;
		if (p->charts >= MAX_CHARTS) {
			/* Only counted, as charts (some might have become text). */
			p->charts_wanted += (si.is_array ? m : 1) + (si.aggregation ? 1 : 0);
			continue;
		}
		c0 = p->charts;
		h = series_case_heading(&si);
		if (!h) {
			ret = -ENOMEM;
			break;
		}
		if (!heading || strcmp(heading, h)) {
			/* A new case: close the last one's rows and lists. */
			list_draw(p, &single, "values:");
			list_draw(p, &zero, "always 0:");
			row_flush(p);
			svg_text(&p->s, 10, p->y + 16, "start", 14, "#000000",
				 fit_text(h, WIDTH - 20, 14));
			p->y += 26;
			free(heading);
			heading = h;
		} else {
			free(h);
		}
		j = 0;
		if (si.is_array) {
			for (j = 0; !ret && j < m && p->charts < MAX_CHARTS; j++) {
				struct ksft_metric_report_series sj = { .sz = sizeof(sj) };
				int kind = series_kind(p->r, members[j],
						       KSFT_METRIC_REPORT_TRANSFORMED, NULL);
				char *t;
				double ht;

				ret = kind < 0 ? kind : ksft_metric_report_series_get(p->r, members[j], &sj);
				if (ret)
					break;
				if (kind == KIND_ZERO || kind == KIND_EMPTY) {
					ret = kind == KIND_ZERO ? list_add(&zero, series_short_name(&sj)) : 0;
					continue;
				}
				t = series_short_name(&sj);
				if (!t) {
					ret = -ENOMEM;
					break;
				}
				chart_open(p);
				ht = chart_heatmap(&p->s, p->r, members[j], cell_x(p), p->y,
						   CELL_W, t);
				place(p, ht);
				free(t);
				/* chart_heatmap() says only -1: out of memory, or the points unreadable */
				ret = ht < 0 ? -ENOMEM : 0;
			}
		} else {
			ret = group_lines(p, members, m, KSFT_METRIC_REPORT_TRANSFORMED, 1,
					  si.name, si.display_label ? si.display_label : si.name,
					  &zero, &single);
		}
		if (!ret && si.aggregation && p->charts < MAX_CHARTS) {
			snprintf(title, sizeof(title), "%s (%s, total)", si.name, si.aggregation);
			ret = group_lines(p, members, m, KSFT_METRIC_REPORT_PROCESSED, 0,
					  title, "busy cores", &zero, &single);
		} else if (si.aggregation) {
			p->charts_wanted++;
		}
		p->charts_wanted += p->charts - c0 + (si.is_array ? m - j : 0);
	}
	list_draw(p, &single, "values:");
	list_draw(p, &zero, "always 0:");
	row_flush(p);
	free(heading);
	free(gorder);
	groups_free(&gr);
	if (!ret && p->charts < p->charts_wanted) {
		char buf[128];

		snprintf(buf, sizeof(buf), "drew %zu of %zu charts (at most %d per plot)",
			 p->charts, p->charts_wanted, MAX_CHARTS);
		svg_text(&p->s, 10, p->y + 12, "start", 12, "#555555", buf);
		p->y += 24;
	}
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
	char buf[128];

	svg_text(&p->s, 10, p->y + 20, "start", 14, "#000000",
		 "Baseline (grey) vs current");
	p->y += 35;
	for (i = 0; i < n && drawn < MAX_BARS; i++) {
		struct ksft_metric_report_row row = { .sz = sizeof(row) };
		struct ksft_metric_report_series fake = { .sz = sizeof(fake) };
		double big, bw = 300, x0 = 470;
		const char *color;
		char *label, *full;

		int err = ksft_metric_report_comparison_row(cmp, i, &row);

		if (err)
			return err;
		fake.case_name = row.case_name;
		fake.path = row.path;
		fake.path_len = row.path_len;
		fake.name = row.name;
		fake.labels_json = row.labels_json;
		label = series_title(&fake, T_FULL);
		if (!label)
			return -ENOMEM;
		if (row.element >= 0 && asprintf(&full, "%s [%ld]", label, row.element) >= 0) {
			free(label);
			label = full;
		}
		big = fmax(fabs(isfinite(row.baseline) ? row.baseline : 0),
			   fabs(isfinite(row.current) ? row.current : 0));
		color = !strcmp(row.verdict, KSFTM_VERDICT_REGRESSION) ? "#d62728" :
			!strcmp(row.verdict, KSFTM_VERDICT_IMPROVEMENT) ? "#2ca02c" : "#1f77b4";
		svg_text(&p->s, x0 - 10, p->y + 12, "end", 10, "#000000", tail(label, 70));
		free(label);
		if (isfinite(row.baseline) && big > 0)
			svg_rect(&p->s, x0, p->y, bw * fabs(row.baseline) / big, 8, "#9e9e9e");
		if (isfinite(row.current) && big > 0)
			svg_rect(&p->s, x0, p->y + 9, bw * fabs(row.current) / big, 8, color);
		/* Values with their unit; bars span both, the verdict after. */
		ksft_metric_report_value_text(buf, sizeof(buf), row.baseline, row.display_scale,
					      row.display_label);
		svg_text(&p->s, x0 + bw + 8, p->y + 7, "start", 9, "#555555",
			 fit_text(buf, 90, 9));
		ksft_metric_report_value_text(buf, sizeof(buf), row.current, row.display_scale,
					      row.display_label);
		svg_text(&p->s, x0 + bw + 8, p->y + 19, "start", 9, "#000000",
			 fit_text(buf, 90, 9));
		svg_text(&p->s, x0 + bw + 104, p->y + 13, "start", 10, color,
			 ksftm_verdict_name(row.verdict));
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
		CLI_OPTION_ALLOW_CONTEXT,
		CLI_OPTION_DB,		/* refused with a clear message */
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
	char *doc;
	size_t len = 0;
	int ret;

	memset(&p, 0, sizeof(p));
	ret = cli_load_picture(&cc, "plot", plot_usage, argc, argv, "o:b:D:t:a:T:C:qh", opts, 0,
			       "-o OUT.svg", NULL, NULL);
	if (ret != EXIT_OK || !cc.r)	/* an error, or --help done */
		goto out;
	p.r = cc.r;
	ret = EXIT_USAGE;
	if (!cc.title)
		cc.title = argv[optind];
	svg_text(&p.s, 10, 24, "start", 16, "#000000", cc.title);
	p.y = 40;
	if (cli_judge(&cc, NULL, NULL, &cmp) != EXIT_OK)	/* --baseline files only */
		goto out;
	if (cmp && draw_bars(&p, cmp)) {
		cli_error("%s", ksft_metric_report_errmsg());
		goto out;
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
			p.lines_left_out, CHART_MAX_LINES);
	doc = svg_document(&p.s, WIDTH, p.y + 10, cc.title, &len);
	ret = cli_emit_doc(&cc, doc, len);
out:
	svg_free(&p.s);
	ksft_metric_report_comparison_free(cmp);
	cli_common_free(&cc);
	return ret;
}
