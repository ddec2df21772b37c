/*
 * The html page's profile diff (html --profile-a A --profile-b B): the
 * table profile-diff prints, beside the verdicts, in the numbers every
 * profile output uses (profile_diff_value_text()).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "html_profile_diff.h"

static void cell_num(struct svg *out, const char *text)
{
	html_printf(out, "<td class=\"num\">");
	html_escape(out, text);
	html_printf(out, "</td>");
}

/* A table of @n rows: name (function and module, or module), change,
 * share of @total, A, B. More instructions read as a regression. */
static void rows_table(struct svg *out, const char *what, const struct profile_diff_row *rows,
		       size_t n, double total, int per_unit, int functions)
{
	char ch[48], sh[24], a[48], b[48];

	html_printf(out, "<table class=\"profile\">\n<tr><th>%s</th><th>change</th><th>share</th>"
		    "<th>A</th><th>B</th></tr>\n", what);
	for (size_t i = 0; i < n; i++) {
		const struct profile_diff_row *r = &rows[i];
		double c = r->b - r->a;

		profile_diff_value_text(ch, sizeof(ch), c, per_unit, 1);
		profile_diff_share_text(sh, sizeof(sh), c, total);
		profile_diff_value_text(a, sizeof(a), r->a, per_unit, 0);
		profile_diff_value_text(b, sizeof(b), r->b, per_unit, 0);
		html_printf(out, "<tr class=\"%s\"><td class=\"series\"><code>",
			    c > 0 ? "regression" : "improvement");
		html_escape(out, functions ? r->fn : r->file);
		html_printf(out, "</code>");
		if (functions) {
			html_printf(out, " ");
			html_escape(out, r->file);
		}
		html_printf(out, "</td><td class=\"num verdict\">");
		html_escape(out, ch);
		html_printf(out, "</td>");
		cell_num(out, sh);
		cell_num(out, a);
		cell_num(out, b);
		html_printf(out, "</tr>\n");
	}
	html_printf(out, "</table>\n");
}

int html_profile_diff(struct html_page *pg, const char *path_a, const char *path_b,
		      const struct profile_diff *d)
{
	struct svg *out = &pg->out;
	int per_unit = d->unit != NULL;
	double total = d->total_b - d->total_a;
	size_t top = d->changed < HTML_PROFILE_TOP ? d->changed : HTML_PROFILE_TOP;
	char a[48], b[48], ch[48], sh[24];

	html_printf(out, "<section id=\"profile\">\n<h2>Where the instructions went</h2>\n"
		    "<p class=\"meta\">Profile diff: A <code>");
	html_escape(out, path_a);
	html_printf(out, "</code>, B <code>");
	html_escape(out, path_b);
	html_printf(out, "</code>; %s", profile_diff_event_name(d->event));
	if (per_unit) {
		html_printf(out, " per ");
		html_escape(out, d->unit);
	} else {
		html_printf(out, ", raw counts (the profiles say no work)");
	}
	html_printf(out, "; share: of the total change.</p>\n");
	profile_diff_value_text(a, sizeof(a), d->total_a, per_unit, 0);
	profile_diff_value_text(b, sizeof(b), d->total_b, per_unit, 0);
	profile_diff_value_text(ch, sizeof(ch), total, per_unit, 1);
	html_printf(out, "<p id=\"profile-total\">Total: A %s, B %s, change ", a, b);
	html_printf(out, "<span class=\"%s\">%s", total > 0 ? "regression" : total < 0 ?
		    "improvement" : "meta", ch);
	if (d->total_a != 0 && total != 0)
		html_printf(out, " (%+.2f %%)", 100 * total / d->total_a);
	html_printf(out, "</span>");
	if (!d->changed) {
		html_printf(out, ": no change, every function counts the same in A and B "
			    "(%zu functions).</p>\n</section>\n", d->n);
		return out->oom ? -1 : 0;
	}
	profile_diff_share_text(sh, sizeof(sh), profile_diff_top_change(d, 10), total);
	html_printf(out, "; the top %zu of %zu changed functions explain %s of it.</p>\n",
		    d->changed < 10 ? d->changed : 10, d->changed, sh);
	if (profile_diff_cancels(d))
		html_printf(out, "<p class=\"note\">Gains and losses cancel: the total moved "
			    "less than a tenth of the functions' changes summed, so shares of it "
			    "are large.</p>\n");
	html_printf(out, "<h3>Top %zu functions by change</h3>\n", top);
	rows_table(out, "function [module]", d->rows, top, total, per_unit, 1);
	html_printf(out, "<h3>By module</h3>\n");
	rows_table(out, "module", d->mods, d->mods_changed, total, per_unit, 0);
	html_printf(out, "</section>\n");
	return out->oom ? -1 : 0;
}
