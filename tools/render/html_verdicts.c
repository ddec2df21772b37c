/*
 * The page's first screen: the verdict of every gated series (regressions,
 * improvements, missing, too noisy to tell, no change, new, not
 * comparable, in that order), each with its value, baseline, change and
 * unit, linked to its series; then how many rows had each verdict.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>

#include "html.h"

static const char *const kinds[] = {
	"regression", "improvement", "noise", "ok", "new", "missing",
	"untracked", "incomparable",
};
#define N_KINDS (sizeof(kinds) / sizeof(kinds[0]))
/* The verdict table's order. */
static const char *const listed_kinds[] = {
	"regression", "improvement", "missing", "noise", "ok", "new", "incomparable",
};
#define N_LISTED (sizeof(listed_kinds) / sizeof(listed_kinds[0]))

/* What compare's text table calls them (one vocabulary: doc/consumer.rst). */
static const char *const words[N_KINDS] = {
	"regression", "improvement", "too noisy", "no change", "new", "missing",
	"untracked", "not comparable",
};

static const char *verdict_words(const char *verdict)
{
	size_t k;

	for (k = 0; k < N_KINDS; k++)
		if (!strcmp(verdict, kinds[k]))
			return words[k];
	return verdict;
}

static void row_cells(struct html_page *pg, const struct ksft_metric_report_row *row,
		      const char *anchor)
{
	struct ksft_metric_report_series fake = { .sz = sizeof(fake) };
	char buf[128], *title;
	size_t k;

	fake.case_name = row->case_name;
	fake.path = row->path;
	fake.path_len = row->path_len;
	fake.name = row->name;
	fake.labels_json = row->labels_json;
	title = series_title(&fake, T_FULL);
	html_printf(&pg->out, "<tr class=\"%s\" id=\"v-%s", row->verdict, anchor);
	if (row->element >= 0)
		html_printf(&pg->out, "-e%ld", row->element);
	html_printf(&pg->out, "\"><td class=\"series\"><a href=\"#%s\">", anchor);
	html_escape(&pg->out, title ? title : row->name);
	if (row->element >= 0)
		html_printf(&pg->out, " [%ld]", row->element);
	free(title);
	snprintf(buf, sizeof(buf), "%s", verdict_words(row->verdict));
	for (k = 0; buf[k]; k++)	/* as compare's table shows it */
		buf[k] = (char)toupper((unsigned char)buf[k]);
	html_printf(&pg->out, "</a></td><td class=\"verdict\">%s</td>", buf);
	value_text(buf, sizeof(buf), row->current, row->display_scale, row->display_label);
	html_printf(&pg->out, "<td class=\"num\">%s</td>", buf);
	value_text(buf, sizeof(buf), row->baseline, row->display_scale, row->display_label);
	html_printf(&pg->out, "<td class=\"num\">%s</td>", buf);
	if (isfinite(row->change_pct))
		html_printf(&pg->out, "<td class=\"num\">%+.2f%%</td>", row->change_pct);
	else
		html_printf(&pg->out, "<td class=\"num\">-</td>");
	html_printf(&pg->out, "<td class=\"unit\">");
	html_escape(&pg->out, row->display_label ? row->display_label : "");
	html_printf(&pg->out, "</td><td class=\"op\">%s%s</td>",
		    row->compare ? row->compare : "-",
		    !row->better ? "" : !strcmp(row->better, "higher") ?
		    " (higher is better)" : " (lower is better)");
	if (pg->history)
		html_sparkline(pg, anchor, row->display_scale, row->display_label);
	html_printf(&pg->out, "</tr>\n");
}

/*
 * Rows of the history gate carry no display settings: take them from the
 * current series (by anchor), unless it aggregates (busy cores).
 */
static int series_index(struct html_page *pg, struct rank_map *idx)
{
	size_t n = ksft_metric_report_series_count(pg->r), i;

	for (i = 0; i < n; i++) {
		struct ksft_metric_report_series si = { .sz = sizeof(si) };
		char *a;
		int ret;

		if (ksft_metric_report_series_get(pg->r, i, &si))
			return -1;
		if (!si.display_label || si.aggregation)
			continue;
		a = series_anchor(si.path, si.path_len, si.case_name, si.name, si.labels_json);
		ret = a ? rank_map_put(idx, a, (int)i + 1) : -1;
		free(a);
		if (ret)
			return -1;
	}
	return 0;
}

static void fill_display(struct html_page *pg, const struct rank_map *idx,
			 struct ksft_metric_report_row *row, const char *anchor)
{
	struct ksft_metric_report_series si = { .sz = sizeof(si) };
	int i;

	if (row->display_label || !(i = rank_map_get(idx, anchor)) ||
	    ksft_metric_report_series_get(pg->r, (size_t)i - 1, &si))
		return;
	row->display_label = si.display_label;
	row->display_scale = si.display_scale;
}

static int rank_of(const char *verdict)
{
	if (!strcmp(verdict, "regression") || !strcmp(verdict, "improvement"))
		return 3;
	if (!strcmp(verdict, "noise") || !strcmp(verdict, "missing"))
		return 2;
	return !strcmp(verdict, "ok") ? 1 : 0;
}

int html_verdicts(struct html_page *pg)
{
	size_t n, i, k, counts[N_KINDS] = { 0 }, listed = 0;
	struct rank_map display = { 0 };
	int pass;

	html_printf(&pg->out, "<section id=\"verdicts\">\n<h2>Verdicts</h2>\n");
	if (!pg->cmp) {
		html_printf(&pg->out, "<p class=\"note\">No baseline given (--baseline or "
			    "--db): no verdicts, the numbers and charts of this run only.</p>\n</section>\n");
		return 0;
	}
	n = ksft_metric_report_comparison_rows(pg->cmp);
	if (series_index(pg, &display)) {
		rank_map_free(&display);
		return -1;
	}
	html_printf(&pg->out, "<table class=\"verdicts\">\n<thead><tr><th>Series</th>"
		    "<th>Verdict</th><th>Value</th><th>Baseline</th><th>Change</th>"
		    "<th>Unit</th><th>Compared</th>%s</tr></thead>\n<tbody>\n",
		    pg->history ? "<th>History</th>" : "");
	/* Every gated row, the worst first, each verdict in report order;
	 * untracked series (no direction) only in the counts. */
	for (pass = 0; pass < (int)N_LISTED; pass++) {
		for (i = 0; i < n; i++) {
			struct ksft_metric_report_row row = { .sz = sizeof(row) };
			char *anchor;

			if (ksft_metric_report_comparison_row(pg->cmp, i, &row)) {
				rank_map_free(&display);
				return -1;
			}
			if (strcmp(row.verdict, listed_kinds[pass]))
				continue;
			if (listed == HTML_MAX_VERDICTS) {
				pg->verdicts_left_out++;
				continue;
			}
			anchor = series_anchor(row.path, row.path_len, row.case_name,
					       row.name, row.labels_json);
			if (!anchor) {
				rank_map_free(&display);
				return -1;
			}
			fill_display(pg, &display, &row, anchor);
			row_cells(pg, &row, anchor);
			free(anchor);
			listed++;
		}
	}
	rank_map_free(&display);
	html_printf(&pg->out, "</tbody>\n</table>\n");
	for (i = 0; i < n; i++) {
		struct ksft_metric_report_row row = { .sz = sizeof(row) };
		char *anchor;
		int rank;

		if (ksft_metric_report_comparison_row(pg->cmp, i, &row))
			return -1;
		for (k = 0; k < N_KINDS; k++)
			counts[k] += !strcmp(row.verdict, kinds[k]);
		rank = rank_of(row.verdict);
		if (!rank)
			continue;
		anchor = series_anchor(row.path, row.path_len, row.case_name,
				       row.name, row.labels_json);
		if (!anchor || rank_map_put(&pg->ranks, anchor, rank)) {
			free(anchor);
			return -1;
		}
		free(anchor);
	}
	if (!counts[0] && !counts[1])
		html_printf(&pg->out, "<p class=\"good\">No regression and no improvement%s.</p>\n",
			    listed ? " (every gated series above)" : "");
	if (pg->verdicts_left_out)
		html_printf(&pg->out, "<p class=\"note\">%zu more not listed (at most %d); "
			    "<code>ksft-metric compare</code> lists every row.</p>\n",
			    pg->verdicts_left_out, HTML_MAX_VERDICTS);
	html_printf(&pg->out, "<p class=\"counts\">%zu rows:", n);
	for (k = 0; k < N_KINDS; k++)
		if (counts[k])
			html_printf(&pg->out, " <span class=\"%s\">%zu %s</span>",
				    kinds[k], counts[k], words[k]);
	html_printf(&pg->out, "</p>\n</section>\n");
	return 0;
}
