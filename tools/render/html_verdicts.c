/*
 * The page's first screen: the verdict of every gated series (in the
 * vocabulary's order, verdict_vocab.h), each with its value, baseline,
 * change and unit, linked to its series, and for a series too noisy to
 * judge what it would need; then how many rows had each verdict.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>
#include <jansson.h>

#include "html.h"
#include "verdict_vocab.h"

/* Listed in the table: every verdict but untracked (only counted). */
static int listed(int kind)
{
	return strcmp(ksftm_verdicts[kind].code, KSFTM_VERDICT_UNTRACKED) != 0;
}

/*
 * Why a row has its verdict, from the comparison's JSON row (as compare
 * --format json writes it, its sentences compare's text: lib/report/
 * export/compare_needs.c): what a too-noisy series would need or that no
 * run could fail it ("needs"), the interference series that made it
 * DISTURBED ("disturbed_by"), why the gate had no window ("why"). In a
 * row of its own under the series' row, spanning the table, so that a
 * sentence is never squeezed into a narrow column (issue 34).
 */
static void explain_row(struct html_page *pg, json_t *jrow, const char *verdict, int cols)
{
	json_t *needs = json_object_get(jrow, "needs");
	const char *text = json_string_value(json_object_get(needs, "text"));
	const char *dist = json_string_value(json_object_get(json_object_get(jrow, "disturbed_by"),
							     "text"));
	const char *why = json_string_value(json_object_get(jrow, "why"));

	if (!text && !dist && !why)
		return;
	html_printf(&pg->out, "<tr class=\"explain ");
	html_escape(&pg->out, verdict);
	html_printf(&pg->out, "\"><td class=\"explain\" colspan=\"%d\">", cols);
	if (text) {
		if (json_is_true(json_object_get(needs, "blind")))
			html_printf(&pg->out, "<div class=\"needs blind\">CANNOT BE GATED: ");
		else
			html_printf(&pg->out, "<div class=\"needs\">");
		html_escape(&pg->out, text);
		html_printf(&pg->out, "</div>");
	}
	if (dist) {
		html_printf(&pg->out, "<div class=\"disturbed\">");
		html_escape(&pg->out, dist);
		html_printf(&pg->out, "</div>");
	}
	if (why) {
		html_printf(&pg->out, "<div class=\"why\">");
		html_escape(&pg->out, why);
		html_printf(&pg->out, "</div>");
	}
	html_printf(&pg->out, "</td></tr>\n");
}

/* The verdict table's columns (the sparkline's with --db). */
#define VERDICT_COLS 8

/* Rows no run could fail (their JSON "needs" says "blind"). */
static size_t blind_rows(json_t *rows)
{
	size_t i, n = 0;

	for (i = 0; i < json_array_size(rows); i++)
		n += json_is_true(json_object_get(json_object_get(json_array_get(rows, i),
								  "needs"), "blind"));
	return n;
}

static void row_cells(struct html_page *pg, const struct ksft_metric_report_row *row,
		      const char *anchor, json_t *jrow)
{
	struct ksft_metric_report_series fake = { .sz = sizeof(fake) };
	char buf[128], *title;

	fake.case_name = row->case_name;
	fake.path = row->path;
	fake.path_len = row->path_len;
	fake.name = row->name;
	fake.labels_json = row->labels_json;
	title = series_title(&fake, T_FULL);
	html_printf(&pg->out, "<tr class=\"");
	html_escape(&pg->out, row->verdict);
	html_printf(&pg->out, "\" id=\"v-%s", anchor);
	if (row->element >= 0)
		html_printf(&pg->out, "-e%ld", row->element);
	html_printf(&pg->out, "\"><td class=\"series\"><a href=\"#%s\">", anchor);
	html_escape(&pg->out, title ? title : row->name);
	if (row->element >= 0)
		html_printf(&pg->out, " [%ld]", row->element);
	free(title);
	html_printf(&pg->out, "</a></td><td class=\"verdict\">");
	html_escape(&pg->out, ksftm_verdict_name(row->verdict));
	html_printf(&pg->out, "</td>");
	/* Values carry the policy's display_label: text from the log. */
	ksft_metric_report_value_text(buf, sizeof(buf), row->current, row->display_scale,
				      row->display_label);
	html_printf(&pg->out, "<td class=\"num\">");
	html_escape(&pg->out, buf);
	ksft_metric_report_value_text(buf, sizeof(buf), row->baseline, row->display_scale,
				      row->display_label);
	html_printf(&pg->out, "</td><td class=\"num\">");
	html_escape(&pg->out, buf);
	html_printf(&pg->out, "</td>");
	if (isfinite(row->change_pct))
		html_printf(&pg->out, "<td class=\"num\">%+.2f%%</td>", row->change_pct);
	else
		html_printf(&pg->out, "<td class=\"num\">-</td>");
	/* The unit is in the values (no Unit column: issue 34, the unit once). */
	html_printf(&pg->out, "<td class=\"num n\">%zu/%zu</td>", row->n_baseline,
		    row->n_current);
	if (isnan(row->p_value))
		html_printf(&pg->out, "<td class=\"num p\">-</td>");
	else
		html_printf(&pg->out, row->p_value < 0.0001 ? "<td class=\"num p\">%.1e</td>" :
			    "<td class=\"num p\">%.4f</td>", row->p_value);
	html_printf(&pg->out, "<td class=\"op\">");
	html_escape(&pg->out, row->compare ? row->compare : "-");
	html_printf(&pg->out, "%s</td>",
		    !row->better ? "" : !strcmp(row->better, "higher") ?
		    " (higher is better)" : " (lower is better)");
	if (pg->history)
		html_sparkline(pg, anchor, row->display_scale, row->display_label);
	html_printf(&pg->out, "</tr>\n");
	explain_row(pg, jrow, row->verdict, VERDICT_COLS + !!pg->history);
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

		ret = ksft_metric_report_series_get(pg->r, i, &si);
		if (ret)
			return ret;
		if (!si.display_label || si.aggregation)
			continue;
		a = series_anchor(si.path, si.path_len, si.case_name, si.name, si.labels_json);
		ret = a ? rank_map_put(idx, a, (int)i + 1) : -ENOMEM;
		free(a);
		if (ret)
			return ret;
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
	if (!strcmp(verdict, KSFTM_VERDICT_REGRESSION) ||
	    !strcmp(verdict, KSFTM_VERDICT_IMPROVEMENT))
		return 3;
	if (!strcmp(verdict, KSFTM_VERDICT_TOO_NOISY) || !strcmp(verdict, KSFTM_VERDICT_MISSING) ||
	    !strcmp(verdict, KSFTM_VERDICT_CASE_FAILED) ||
	    !strcmp(verdict, KSFTM_VERDICT_DISTURBED))
		return 2;
	return !strcmp(verdict, KSFTM_VERDICT_NO_CHANGE) ? 1 : 0;
}

/* The comparison's rows as compare --format json writes them (for
 * "needs"); NULL when that fails (the table is shown without them). */
static json_t *json_rows(const struct ksft_metric_report_comparison *cmp)
{
	char *text = NULL;
	size_t len;
	json_t *doc;

	if (ksft_metric_report_comparison_format(cmp, KSFT_METRIC_REPORT_JSON, &text, &len))
		return NULL;
	doc = json_loadb(text, len, 0, NULL);
	free(text);
	return doc;
}

int html_verdicts(struct html_page *pg)
{
	size_t n, i, k, counts[KSFTM_N_VERDICTS] = { 0 }, n_listed = 0, blind;
	struct rank_map display = { 0 };
	json_t *doc, *rows;
	char low[32];
	int pass, err;

	html_printf(&pg->out, "<section id=\"verdicts\">\n<h2>Verdicts</h2>\n");
	if (!pg->cmp) {
		html_printf(&pg->out, "<p class=\"note\">No baseline given (--baseline or "
			    "--db): no verdicts, the numbers and charts of this run only.</p>\n</section>\n");
		return 0;
	}
	n = ksft_metric_report_comparison_rows(pg->cmp);
	err = series_index(pg, &display);
	if (err) {
		rank_map_free(&display);
		return err;
	}
	doc = json_rows(pg->cmp);
	rows = json_object_get(doc, "rows");
	html_printf(&pg->out, "<table class=\"verdicts\">\n<thead><tr><th>Series</th>"
		    "<th>Verdict</th><th>Value</th><th>Baseline</th><th>Change</th>"
		    "<th title=\"samples: baseline/this run (--db: the baseline's runs)\">N</th>"
		    "<th title=\"p-value (--db: adjusted across the run)\">P</th>"
		    "<th>Compared</th>%s</tr></thead>\n<tbody>\n",
		    pg->history ? "<th>History</th>" : "");
	/* Every gated row, the worst first, each verdict in report order;
	 * untracked series (no direction) only in the counts. */
	for (pass = 0; pass < KSFTM_N_VERDICTS; pass++) {
		if (!listed(pass))
			continue;
		for (i = 0; i < n; i++) {
			struct ksft_metric_report_row row = { .sz = sizeof(row) };
			char *anchor;

			err = ksft_metric_report_comparison_row(pg->cmp, i, &row);
			if (err) {
				rank_map_free(&display);
				json_decref(doc);
				return err;
			}
			if (strcmp(row.verdict, ksftm_verdicts[pass].code))
				continue;
			if (n_listed == HTML_MAX_VERDICTS) {
				pg->verdicts_left_out++;
				continue;
			}
			anchor = series_anchor(row.path, row.path_len, row.case_name,
					       row.name, row.labels_json);
			if (!anchor) {
				rank_map_free(&display);
				json_decref(doc);
				return -ENOMEM;
			}
			fill_display(pg, &display, &row, anchor);
			row_cells(pg, &row, anchor, json_array_get(rows, i));
			free(anchor);
			n_listed++;
		}
	}
	rank_map_free(&display);
	blind = blind_rows(rows);
	json_decref(doc);
	html_printf(&pg->out, "</tbody>\n</table>\n");
	if (blind)
		html_printf(&pg->out, "<p class=\"blind\">%zu series cannot be gated here: no run "
			    "could fail %s (CANNOT BE GATED above). This page does not say they "
			    "did not regress.</p>\n", blind, blind == 1 ? "it" : "them");
	for (i = 0; i < n; i++) {
		struct ksft_metric_report_row row = { .sz = sizeof(row) };
		char *anchor;
		int rank;

		err = ksft_metric_report_comparison_row(pg->cmp, i, &row);
		if (err)
			return err;
		for (k = 0; k < KSFTM_N_VERDICTS; k++)
			counts[k] += !strcmp(row.verdict, ksftm_verdicts[k].code);
		rank = rank_of(row.verdict);
		if (!rank)
			continue;
		anchor = series_anchor(row.path, row.path_len, row.case_name,
				       row.name, row.labels_json);
		if (!anchor || rank_map_put(&pg->ranks, anchor, rank)) {
			free(anchor);
			return -ENOMEM;
		}
		free(anchor);
	}
	if (!counts[0] && !counts[1] && !blind)
		html_printf(&pg->out, "<p class=\"good\">No regression and no improvement%s.</p>\n",
			    n_listed ? " (every gated series above)" : "");
	if (pg->verdicts_left_out)
		html_printf(&pg->out, "<p class=\"note\">%zu more not listed (at most %d); "
			    "<code>ksft-metric compare</code> lists every row.</p>\n",
			    pg->verdicts_left_out, HTML_MAX_VERDICTS);
	html_printf(&pg->out, "<p class=\"counts\">%zu rows:", n);
	for (k = 0; k < KSFTM_N_VERDICTS; k++)
		if (counts[k])
			html_printf(&pg->out, " <span class=\"%s\">%zu %s</span>",
				    ksftm_verdicts[k].code, counts[k],
				    ksftm_verdict_lower(ksftm_verdicts[k].code, low, sizeof(low)));
	html_printf(&pg->out, "</p>\n</section>\n");
	return 0;
}
