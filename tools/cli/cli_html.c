/*
 * ksft-metric html: one self-contained HTML page to look at a run: the
 * verdicts first, then per case its numbers with units and its charts.
 * Inline CSS and SVG only: no script, nothing fetched, opens from disk
 * and prints.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "errmsg.h"
#include "html.h"
#include "html_profile_diff.h"

static const char html_usage[] =
	"usage: ksft-metric html -o OUT.html [--baseline B.json ... [--tolerance PCT] [--alpha A]\n"
	"                        | --db DB [--context K=V ...]] [--title TEXT]\n"
	"                        [--profile-a A.prof --profile-b B.prof]\n"
	"                        [--base-dir DIR] FILE...\n"
	"\n"
	"One self-contained page (inline CSS and SVG, no network): regressions and\n"
	"improvements first (with --baseline), each with value, baseline, change\n"
	"and unit; then per case its headline numbers and its charts, series that\n"
	"stay 0 as one line of text. Every series has an anchor (#s-...). With\n"
	"--db: each verdict's sparkline and per series its trend over the runs,\n"
	"change points and the gate's band marked (verdicts from the history gate\n"
	"without --baseline).\n"
	"\n"
	"  -o, --output OUT     the HTML file (required; '-' for stdout)\n"
	"  -b, --baseline FILE  baseline file(s) for the verdicts\n"
	"  -D, --db DB          run history (SQLite file or postgresql://...)\n"
	"  -x, --context K=V    the current run's context, for the history gate;\n"
	"                       the trends show the runs comparable with it\n"
	"      --first-run      as for compare --db: the history starts here\n"
	"  -t, --tolerance PCT  as for compare\n"
	"  -a, --alpha A        as for compare\n"
	"      --allow-context-mismatch  as for compare\n"
	"  -T, --title TEXT     title (default: the first input's name)\n"
	"      --profile-a A, --profile-b B\n"
	"                       two instruction profiles (ksft-vm --profile): the\n"
	"                       diff beside the verdicts, as profile-diff prints it\n"
	"  -C, --base-dir DIR   every file read or written must resolve under DIR\n"
	"  -q, --quiet          do not print input warnings\n"
	"  -h, --help           this help\n";

static const char css[] =
	"body{font:14px/1.4 sans-serif;margin:0 auto;max-width:1000px;padding:0 12px 24px;color:#222;background:#fff}\n"
	"h1{font-size:20px;margin:14px 0 4px}h2{font-size:17px;border-bottom:1px solid #ccc;margin:18px 0 6px}\n"
	"h3{font-size:15px;margin:18px 0 4px}h3 a{color:inherit;text-decoration:none}\n"
	"table{border-collapse:collapse;margin:4px 0}\n"
	"th,td{padding:2px 8px;text-align:left;border-bottom:1px solid #eee;vertical-align:top}\n"
	"th{font-weight:600;border-bottom:1px solid #bbb}\n"
	"td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
	/* Series names wrap between words, broken only when one word is wider
	 * than the column (issue 34: names were broken mid-word). */
	"td.series{min-width:14em;max-width:520px;overflow-wrap:break-word}\n"
	"tr.regression td.verdict{color:#b00020;font-weight:bold}\n"
	"tr.improvement td.verdict{color:#1b7f2a;font-weight:bold}\n"
	"td.verdict{white-space:nowrap}\n"
	/* The explanation row under its series' row, the table wide. */
	"tr:has(+ tr.explain) td{border-bottom:none}\n"
	"td.explain{color:#555;font-size:13px;padding:0 8px 4px 24px;max-width:900px}\n"
	"td.explain div.needs.blind,p.blind{color:#b00020;font-weight:bold}\n"
	"span.regression{color:#b00020;font-weight:bold}span.improvement{color:#1b7f2a;font-weight:bold}\n"
	".grid{display:flex;flex-wrap:wrap;align-items:flex-start;gap:8px;margin:6px 0}\n"
	"figure.chart{margin:0;border:1px solid #ddd;background:#fff}\n"
	"figure.chart svg{display:block}\n"
	".note,.zero,.meta{color:#555}.good{color:#1b7f2a}\n"
	"td.spark{padding:0 4px}h4{font-size:14px;margin:10px 0 2px}\n"
	":target{outline:2px solid #f0a000}\n"
	"@media print{body{max-width:none}figure.chart,tr,section.case h3{break-inside:avoid}"
	"a{color:inherit;text-decoration:none}}\n";

/* --profile-a and --profile-b: no letter. */
#define OPT_PROFILE_A 0x1100
#define OPT_PROFILE_B 0x1101

static int profile_option(void *ctx, int ch, char *arg)
{
	const char **paths = ctx;

	if (ch != OPT_PROFILE_A && ch != OPT_PROFILE_B)
		return 0;
	paths[ch - OPT_PROFILE_A] = arg;
	return CLI_OPT_NEXT;
}

/* "key=value ..." of the run context, as report shows it. */
static void context_line(struct svg *out, const struct ksft_metric_report *r)
{
	json_t *ctx = json_loads(ksft_metric_report_context_json(r), 0, NULL), *v;
	const char *key;
	int first = 1;

	if (!ctx || !json_object_size(ctx)) {
		json_decref(ctx);
		return;
	}
	html_printf(out, "<p class=\"meta\">Run context:");
	json_object_foreach(ctx, key, v) {
		char *text = json_is_string(v) ? NULL : json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);

		html_printf(out, "%s ", first ? "" : ",");
		html_escape(out, key);
		html_printf(out, "=");
		html_escape(out, json_is_string(v) ? json_string_value(v) : text ? text : "?");
		free(text);
		first = 0;
	}
	html_printf(out, "</p>\n");
	json_decref(ctx);
}

static char *page(struct html_page *pg, const char *title, char *const *files,
		  int n, size_t *len)
{
	struct svg doc = { 0 };
	size_t warnings = 0;
	int i;

	ksft_metric_report_warnings(pg->r, NULL, &warnings);
	html_printf(&doc, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		    "style-src 'unsafe-inline'; img-src data:\">\n<title>");
	html_escape(&doc, title);
	html_printf(&doc, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<header>\n<h1>", css);
	html_escape(&doc, title);
	html_printf(&doc, "</h1>\n<p class=\"meta\">Inputs:");
	for (i = 0; i < n; i++) {
		html_printf(&doc, " ");
		html_escape(&doc, files[i]);
	}
	html_printf(&doc, " &middot; %zu series in %zu cases", ksft_metric_report_series_count(pg->r),
		    pg->cases);
	if (warnings)
		html_printf(&doc, " &middot; %zu input warnings (see <code>ksft-metric report</code>)",
			    warnings);
	html_printf(&doc, "</p>\n");
	context_line(&doc, pg->r);
	/* Say what was summarised rather than drawn, before anything else. */
	html_printf(&doc, "<p class=\"meta\" id=\"summary\" data-charts=\"%zu\" data-charts-wanted=\"%zu\">"
		    "Drew %zu of %zu charts", pg->charts, pg->charts_wanted,
		    pg->charts, pg->charts_wanted);
	if (pg->charts < pg->charts_wanted)
		html_printf(&doc, " (at most %d, most important first)", HTML_MAX_CHARTS);
	html_printf(&doc, "; %zu of %zu cases shown", pg->cases_shown, pg->cases);
	if (pg->rows_left_out)
		html_printf(&doc, "; %zu series rows left out of long cases (at most %d a case)",
			    pg->rows_left_out, HTML_MAX_ROWS);
	if (pg->lines_left_out)
		html_printf(&doc, "; %zu series left out of crowded charts (at most %d lines)",
			    pg->lines_left_out, CHART_MAX_LINES);
	if (pg->history)
		html_printf(&doc, "; %zu history charts%s", pg->trends,
			    pg->trends_left_out ? "" : " (every series with history)");
	if (pg->trends_left_out)
		html_printf(&doc, ", %zu more series with history not drawn (at most %d)",
			    pg->trends_left_out, HTML_MAX_TRENDS);
	html_printf(&doc, ".</p>\n</header>\n");
	/* The body as is (it may be larger than one printf). */
	{
		size_t need = doc.len + pg->out.len + 64;
		char *p = doc.oom ? NULL : realloc(doc.data, need > doc.cap ? need : doc.cap);

		if (!p) {
			svg_free(&doc);
			return NULL;
		}
		doc.data = p;
		doc.cap = need > doc.cap ? need : doc.cap;
		memcpy(doc.data + doc.len, pg->out.data, pg->out.len);
		doc.len += pg->out.len;
		doc.data[doc.len] = '\0';
	}
	html_printf(&doc, "<footer><p class=\"meta\">ksft-metric " KSFT_METRIC_VERSION
		    "</p></footer>\n</body>\n</html>\n");
	if (doc.oom || pg->out.oom) {
		svg_free(&doc);
		return NULL;
	}
	*len = doc.len;
	return doc.data;
}

int cmd_html(int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_OPTION_OUTPUT,
		CLI_OPTION_BASELINE,
		CLI_OPTION_ALLOW_CONTEXT,
		CLI_OPTION_DB,
		CLI_OPTION_CONTEXT,
		CLI_OPTION_TOLERANCE,
		CLI_OPTION_ALPHA,
		{ "title", required_argument, NULL, 'T' },
		{ "profile-a", required_argument, NULL, OPT_PROFILE_A },
		{ "profile-b", required_argument, NULL, OPT_PROFILE_B },
		CLI_OPTION_BASE_DIR,
		CLI_OPTION_QUIET,
		CLI_OPTION_HELP,
		CLI_OPTION_FIRST_RUN,
		{ NULL, 0, NULL, 0 },
	};
	struct ksft_metric_report_gate_opts go = KSFT_METRIC_REPORT_GATE_OPTS_INIT;
	struct ksft_metric_report_comparison *cmp = NULL;
	struct ksft_metric_report_history *h = NULL;
	struct profile_diff_opts popts = { 0 };
	struct profile_diff prof = { 0 };
	const char *profiles[2] = { NULL, NULL };
	struct html_page pg;
	struct cli_common cc;
	char *doc;
	size_t len = 0;
	int ret;

	memset(&pg, 0, sizeof(pg));
	ret = cli_load_picture(&cc, "html", html_usage, argc, argv, "o:b:D:x:t:a:T:C:qh", opts, 1,
			       "-o OUT.html", profile_option, profiles);
	if (ret != EXIT_OK || !cc.r)	/* an error, or --help done */
		goto out;
	ret = EXIT_USAGE;
	pg.r = cc.r;
	if (!profiles[0] != !profiles[1]) {
		cli_error("html: --profile-a and --profile-b go together");
		goto out;
	}
	if (profiles[0] && profile_diff_load(&cc.c, profiles[0], profiles[1], &popts, &prof))
		goto out;	/* said why */
	/* Judged against the history --db or the --baseline files. */
	if (cli_judge(&cc, &go, &h, &cmp) != EXIT_OK)
		goto out;
	if (h && html_history_load(&pg, h, (const char *const *)cc.context, cc.n_context)) {
		cli_error("%s: %s", cc.db_shown, ksft_metric_report_errmsg());
		goto out;
	}
	pg.cmp = cmp;
	if (html_verdicts(&pg) ||
	    (profiles[0] && html_profile_diff(&pg, profiles[0], profiles[1], &prof)) ||
	    html_history_section(&pg) || html_cases(&pg)) {
		cli_error("cannot write the page: %s", pg.out.oom ? KSFTM_OOM_TEXT :
			  ksft_metric_report_errmsg());
		goto out;
	}
	if (pg.charts < pg.charts_wanted)
		fprintf(stderr, "ksft-metric: html: drew %zu of %zu charts (at most %d per page)\n",
			pg.charts, pg.charts_wanted, HTML_MAX_CHARTS);
	if (pg.cases_shown < pg.cases)
		fprintf(stderr, "ksft-metric: html: showed %zu of %zu cases (at most %d per page)\n",
			pg.cases_shown, pg.cases, HTML_MAX_CASES);
	doc = page(&pg, cc.title ? cc.title : argv[optind], argv + optind, argc - optind, &len);
	ret = cli_emit_doc(&cc, doc, len);
out:
	svg_free(&pg.out);
	rank_map_free(&pg.ranks);
	rank_map_free(&pg.hist_idx);
	series_anchors_reset();
	profile_diff_free(&prof);
	json_decref(pg.history);
	ksft_metric_report_history_close(h);
	ksft_metric_report_comparison_free(cmp);
	cli_common_free(&cc);
	return ret;
}
