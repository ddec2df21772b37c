/*
 * A section per case: its headline numbers (with units), its charts as
 * small multiples (inline SVG), series that stay at 0 in one line of text.
 * Cases with a verdict worth a look come first, so that when the page
 * draws only the most important charts, those are the ones.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "strbuf.h"
#include "text_fit.h"

/* A case: a run of consecutive groups of one (path, case). */
struct hcase {
	size_t g0, g1;		/* its groups [g0, g1) */
	int rank;
};

/* The summary a series is best known by: its gate's, else its own. */
static const char *headline_op(const struct ksft_metric_report_series *si)
{
	static const char *const ops[] = { "last", "total", "max", "p50", "p90", "p99" };
	const char *want = si->compare ? si->compare : si->summarize;
	size_t i;

	for (i = 0; want && i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(want, ops[i]))
			return ops[i];
	return "p50";
}

/*
 * @v as the text tables print it (text_fit.c, one rule for both): 3-4
 * digits, then the spread of the series' processed values (an array's
 * elements pooled), then the unit; "-" when not finite.
 */
static int headline_text(struct html_page *pg, size_t idx, double v, double scale,
			 const char *label)
{
	struct text_unit u = { isfinite(scale) ? scale : 1.0, label ? label : "" };
	struct ksft_metric_report_points p;
	struct strbuf sb = STRBUF_INIT;
	size_t n = 0;

	memset(&p, 0, sizeof(p));
	if (ksft_metric_report_series_points(pg->r, idx, KSFT_METRIC_REPORT_PROCESSED, &p) == 0)
		n = p.off ? p.off[p.n] : 0;
	text_fit_value_spread(&sb, &u, v, p.v, n);
	if (label && isfinite(v)) {
		strbuf_addc(&sb, ' ');
		strbuf_adds(&sb, label);
	}
	ksft_metric_report_points_release(&p);
	if (sb.oom) {
		strbuf_free(&sb);
		return -ENOMEM;
	}
	html_escape(&pg->out, sb.data ? sb.data : "-");
	strbuf_free(&sb);
	return 0;
}

static int number_row(struct html_page *pg, size_t idx,
		      const struct ksft_metric_report_series *si, const char *anchor,
		      const char *chart)
{
	const char *op = headline_op(si);
	char *labels = series_title(si, T_LABELS);
	double v[1];
	int n = ksft_metric_report_series_summary(pg->r, idx, op, v, 1);
	/* Aggregated summaries are busy cores, not the display unit. */
	int plain = si->aggregation != NULL;

	if (!labels)
		return -ENOMEM;
	html_printf(&pg->out, "<tr id=\"%s\"><td class=\"metric\">", anchor);
	html_escape(&pg->out, si->name);
	html_printf(&pg->out, "</td><td class=\"labels\">");
	html_escape(&pg->out, strcmp(si->labels_json, "{}") ? labels : "");
	free(labels);
	html_printf(&pg->out, "</td><td class=\"op\">");
	html_escape(&pg->out, op);
	html_printf(&pg->out, "%s</td><td class=\"num\">", n > 1 ? " (max of elements)" : "");
	if (n > 1) {
		double *all = malloc((size_t)n * sizeof(double)), best = NAN;
		int k;

		if (!all)
			return -ENOMEM;
		ksft_metric_report_series_summary(pg->r, idx, op, all, (size_t)n);
		for (k = 0; k < n; k++)
			if (isfinite(all[k]) && !(best >= all[k]))
				best = all[k];
		free(all);
		v[0] = best;
	}
	/* The value carries the policy's display_label (text from the log),
	 * scaled as people read it: the unit once, no Unit column beside it
	 * (issue 34: "Gbps" stood beside "4.70 Gbit/s"). */
	if (headline_text(pg, idx, n >= 1 ? v[0] : NAN, plain ? NAN : si->display_scale,
			  plain ? NULL : si->display_label))
		return -ENOMEM;
	if (plain && si->aggregation)
		html_printf(&pg->out, " busy cores");
	html_printf(&pg->out, "</td><td class=\"num\">%zu</td><td class=\"status ", si->points);
	html_escape(&pg->out, si->status);
	html_printf(&pg->out, "\">");
	html_escape(&pg->out, si->status);
	html_printf(&pg->out, "</td><td>");
	if (chart)
		html_printf(&pg->out, "<a href=\"#%s\">chart</a>", chart);
	html_printf(&pg->out, "</td></tr>\n");
	return 0;
}

/* A chart drawn by @draw into its own <svg>, inside a <figure>. */
static int figure(struct html_page *pg, const char *id, const char *caption,
		  struct svg *body, double h)
{
	if (h < 0 || body->oom)
		return body->oom ? -ENOMEM : -EIO;	/* the points could not be read */
	if (h == 0)
		return 0;
	html_printf(&pg->out, "<figure class=\"chart\" id=\"%s\">"
		    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		    "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" role=\"img\"><title>",
		    id, HTML_CHART_W, h, HTML_CHART_W, h);
	html_escape(&pg->out, caption);
	html_printf(&pg->out, "</title>\n");
	html_printf(&pg->out, "%.*s</svg></figure>\n", (int)body->len, body->data ? body->data : "");
	pg->charts++;
	return 0;
}

/* The charts of one group (a metric of the case). */
static int group_charts(struct html_page *pg, const size_t *members, size_t m)
{
	struct ksft_metric_report_series si = { .sz = sizeof(si) };
	size_t *line = malloc((m ? m : 1) * sizeof(size_t)), nl = 0, j;
	int stage, ret = -1;

	if (!line || ksft_metric_report_series_get(pg->r, members[0], &si))
		goto out;
	for (stage = KSFT_METRIC_REPORT_TRANSFORMED; stage <= KSFT_METRIC_REPORT_PROCESSED; stage++) {
		int individual = stage == KSFT_METRIC_REPORT_TRANSFORMED;
		char title[512];

		if (!individual && !si.aggregation)
			break;
		nl = 0;
		for (j = 0; j < m; j++) {
			struct ksft_metric_report_series sj = { .sz = sizeof(sj) };
			int kind = series_kind(pg->r, members[j], stage, NULL);
			struct svg body = { 0 };
			char *name, *anchor;
			double h;

			if (kind < 0 || ksft_metric_report_series_get(pg->r, members[j], &sj))
				goto out;
			if (kind == KIND_LINES)
				line[nl++] = members[j];
			if (kind != KIND_HEATMAP)
				continue;
			if (pg->charts >= HTML_MAX_CHARTS) {
				pg->charts_wanted++;
				continue;
			}
			pg->charts_wanted++;
			name = series_short_name(&sj);
			anchor = series_anchor(sj.path, sj.path_len, sj.case_name, sj.name,
					       sj.labels_json);
			if (!name || !anchor) {
				free(name);
				free(anchor);
				goto out;
			}
			h = chart_heatmap(&body, pg->r, members[j], 0, 0, HTML_CHART_W, name);
			anchor[0] = 'h';	/* the heatmap beside its row's "s-..." */
			ret = figure(pg, anchor, name, &body, h);
			svg_free(&body);
			free(name);
			free(anchor);
			if (ret)
				goto out;
			ret = -1;
		}
		if (!nl)
			continue;
		pg->charts_wanted++;
		if (pg->charts >= HTML_MAX_CHARTS)
			continue;
		{
			struct svg body = { 0 };
			double h;
			char *anchor = series_anchor(si.path, si.path_len, si.case_name,
						     si.name, individual ? "" : "{total}");

			if (!anchor)
				goto out;
			snprintf(title, sizeof(title), individual ? "%s" : "%s (%s, total)",
				 si.name, si.aggregation ? si.aggregation : "");
			h = chart_lines(&body, pg->r, line, nl, stage, individual, 0, 0,
					HTML_CHART_W - CHART_LEFT - CHART_RIGHT, HTML_CHART_H,
					title, individual ? (si.display_label ? si.display_label :
					si.name) : "busy cores", &pg->lines_left_out);
			/* "g-...": the chart of a group, beside its series' "s-..." rows. */
			anchor[0] = 'g';
			ret = figure(pg, anchor, title, &body, h);
			svg_free(&body);
			free(anchor);
			if (ret)
				goto out;
			ret = -1;
		}
	}
	ret = 0;
out:
	free(line);
	return ret;
}

static int case_section(struct html_page *pg, const struct groups *gr,
			const struct hcase *c)
{
	struct ksft_metric_report_series si = { .sz = sizeof(si) };
	struct svg zero = { 0 };
	size_t g, j, rows = 0, nzero = 0;
	char *heading, *anchor;
	int ret = -1, pass;

	pass = ksft_metric_report_series_get(pg->r, gr->order[gr->start[c->g0]], &si);
	if (pass)
		return pass;
	heading = series_case_heading(&si);
	anchor = series_anchor(si.path, si.path_len, si.case_name, "", "{}");
	if (!heading || !anchor)
		goto out;
	anchor[0] = 'c';
	html_printf(&pg->out, "<section class=\"case\" id=\"%s\">\n<h3><a href=\"#%s\">",
		    anchor, anchor);
	html_escape(&pg->out, heading);
	html_printf(&pg->out, "</a></h3>\n<table class=\"numbers\"><thead><tr><th>Metric</th>"
		    "<th>Labels</th><th>Summary</th><th>Value</th><th>Points</th>"
		    "<th>Status</th><th></th></tr></thead><tbody>\n");
	/* Gated series (the headline) first, then the rest; series that
	 * stay at 0 only in the line of text below, with their anchors. */
	for (pass = 0; pass < 2; pass++)
		for (g = c->g0; g < c->g1; g++) {
			const size_t *members = gr->order + gr->start[g];
			size_t m = gr->start[g + 1] - gr->start[g];

			for (j = 0; j < m; j++) {
				struct ksft_metric_report_series sj = { .sz = sizeof(sj) };
				char *a, *chart = NULL;
				int kind;

				if (ksft_metric_report_series_get(pg->r, members[j], &sj))
					goto out;
				if (!!sj.compare != !pass)
					continue;
				kind = series_kind(pg->r, members[j],
						   KSFT_METRIC_REPORT_TRANSFORMED, NULL);
				if (kind < 0)
					goto out;
				if (kind != KIND_ZERO && rows == HTML_MAX_ROWS) {
					pg->rows_left_out++;
					continue;
				}
				a = series_anchor(sj.path, sj.path_len, sj.case_name, sj.name,
						  sj.labels_json);
				chart = series_anchor(sj.path, sj.path_len, sj.case_name, sj.name,
						      sj.is_array ? sj.labels_json : "");
				if (!a || !chart) {
					free(a);
					free(chart);
					goto out;
				}
				chart[0] = sj.is_array ? 'h' : 'g';
				if (kind == KIND_ZERO) {
					char *name = series_short_name(&sj);

					html_printf(&zero, "%s<span id=\"%s\">", nzero++ ? ", " : "", a);
					html_escape(&zero, name ? name : sj.name);
					html_printf(&zero, "</span>");
					free(name);
					ret = 0;
				} else {
					ret = number_row(pg, members[j], &sj, a,
							 kind == KIND_LINES || kind == KIND_HEATMAP ?
							 chart : NULL);
					rows++;
				}
				free(chart);
				free(a);
				if (ret)
					goto out;
				ret = -1;
			}
		}
	html_printf(&pg->out, "</tbody></table>\n<div class=\"grid\">\n");
	/* Charts in the same order: the gated metrics' first. */
	for (pass = 0; pass < 2; pass++)
		for (g = c->g0; g < c->g1; g++) {
			struct ksft_metric_report_series sg = { .sz = sizeof(sg) };

			if (ksft_metric_report_series_get(pg->r, gr->order[gr->start[g]], &sg))
				goto out;
			if (!!sg.compare == !pass &&
			    group_charts(pg, gr->order + gr->start[g],
					 gr->start[g + 1] - gr->start[g]))
				goto out;
		}
	html_printf(&pg->out, "</div>\n");
	if (nzero)
		html_printf(&pg->out, "<p class=\"zero\">Always 0: %.*s</p>\n",
			    (int)zero.len, zero.data);
	html_printf(&pg->out, "</section>\n");
	ret = zero.oom ? -ENOMEM : 0;
out:
	svg_free(&zero);
	free(heading);
	free(anchor);
	return ret;
}

int html_cases(struct html_page *pg)
{
	struct groups gr;
	struct hcase *cases = NULL;
	size_t nc = 0, g, i, *order = NULL, fill[5] = { 0 };
	char *prev = NULL;
	int ret = -1, rank;

	rank = groups_build(pg->r, &gr);
	if (rank)
		return rank;
	cases = calloc(gr.n + 1, sizeof(*cases));
	order = calloc(gr.n + 1, sizeof(size_t));
	if (!cases || !order)
		goto out;
	for (g = 0; g < gr.n; g++) {
		struct ksft_metric_report_series si = { .sz = sizeof(si) };
		const size_t *members = gr.order + gr.start[g];
		size_t m = gr.start[g + 1] - gr.start[g], j;
		char *h;

		if (ksft_metric_report_series_get(pg->r, members[0], &si) ||
		    !(h = series_case_heading(&si)))
			goto out;
		if (!prev || strcmp(prev, h)) {
			cases[nc].g0 = g;
			cases[nc++].rank = 0;
			free(prev);
			prev = h;
		} else {
			free(h);
		}
		cases[nc - 1].g1 = g + 1;
		for (j = 0; j < m; j++) {
			struct ksft_metric_report_series sj = { .sz = sizeof(sj) };
			char *a;

			if (ksft_metric_report_series_get(pg->r, members[j], &sj))
				goto out;
			rank = sj.compare ? 1 : 0;
			if (pg->ranks.n) {
				if (!(a = series_anchor(sj.path, sj.path_len, sj.case_name,
							sj.name, sj.labels_json)))
					goto out;
				if (rank_map_get(&pg->ranks, a) > rank)
					rank = rank_map_get(&pg->ranks, a);
				free(a);
			}
			if (rank > cases[nc - 1].rank)
				cases[nc - 1].rank = rank;
		}
	}
	/* Most important cases first, log order within a rank (counting sort). */
	for (i = 0; i < nc; i++)
		fill[4 - cases[i].rank]++;
	for (i = 4; i > 0; i--)
		fill[i] = fill[i - 1];
	fill[0] = 0;
	for (i = 1; i < 5; i++)
		fill[i] += fill[i - 1];
	for (i = 0; i < nc; i++)
		order[fill[4 - cases[i].rank]++] = i;
	pg->cases = nc;
	html_printf(&pg->out, "<section id=\"cases\">\n<h2>Cases</h2>\n");
	for (i = 0; i < nc && i < HTML_MAX_CASES; i++) {
		if (case_section(pg, &gr, &cases[order[i]]))
			goto out;
		pg->cases_shown++;
	}
	if (nc > pg->cases_shown)
		html_printf(&pg->out, "<p class=\"note\" id=\"more-cases\">%zu more cases not shown "
			    "(at most %d; most important first): <code>ksft-metric report</code> "
			    "lists them all.</p>\n", nc - pg->cases_shown, HTML_MAX_CASES);
	html_printf(&pg->out, "</section>\n");
	ret = 0;
out:
	free(prev);
	free(cases);
	free(order);
	groups_free(&gr);
	return ret;
}
