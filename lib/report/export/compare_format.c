/* ksft-metric compare output: a verdict table, JSON or CSV. */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <ksftmetric/report.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "canon.h"
#include "comparison.h"
#include "format_text.h"
#include "strbuf.h"
#include "rp_export.h"
#include "sink.h"
#include "table.h"
#include "text_fit.h"
#include "compare_needs.h"
#include "units.h"

static void needs_text(struct strbuf *out, const struct ksft_metric_report_comparison *c,
		       size_t width, struct export_sink *ks);

/*
 * Rows judged seed by seed (issue 42): one line saying so, and for each
 * TOO NOISY one what its seeds could not tell: too few of them, or an
 * interval that holds both no change and one beyond the tolerance.
 */
static void seeds_text(struct strbuf *out, const struct ksft_metric_report_comparison *c,
		       size_t width, struct export_sink *ks)
{
	struct strbuf title = STRBUF_INIT, line = STRBUF_INIT;
	size_t i, n = 0;
	char buf[256];

	for (i = 0; i < c->n; i++)
		n += cmp_row_side_at(c, i)->seeds_a > 0;
	if (!n)
		return;
	snprintf(buf, sizeof(buf), "%zu series judged seed by seed: one value a boot (its"
		 " repeats share a layout), the exact rank test over seeds, the shift"
		 " (Hodges-Lehmann) and its interval against the tolerance.", n);
	text_fit_wrap_hang(out, buf, width, 0, 2);
	for (i = 0; i < c->n; i++) {
		const struct cmp_side *sd = cmp_row_side_at(c, i);
		struct cmp_row tmp;
		const struct cmp_row *row;

		if (!sd->seeds_a)
			continue;	/* most rows: not expanded */
		row = cmp_row_at(c, i, &tmp);
		if (strcmp(row->verdict, KSFTM_VERDICT_TOO_NOISY))
			continue;
		title.len = 0;
		canon_series_title(&title, cmp_row_path(row), cmp_row_path_len(row), cmp_row_case(row), cmp_row_name(row),
				   cmp_row_labels(row), row->element);
		line.len = 0;
		strbuf_adds(&line, "TOO NOISY: ");
		strbuf_adds(&line, title.data ? title.data : "");
		if (isnan(sd->shift_lo_pct) && isnan(sd->seeds_resolution_pct))
			snprintf(buf, sizeof(buf), ": %zu against %zu seeds cannot bound the shift"
				 " at --alpha: at least %zu seeds a side", sd->seeds_a,
				 sd->seeds_b, sd->seeds_needed);
		else
			snprintf(buf, sizeof(buf), ": the shift's interval %+.3g%% to %+.3g%% holds"
				 " both no change and one beyond the tolerance; %zu against %zu"
				 " seeds show changes beyond about %.2g%%", sd->shift_lo_pct,
				 sd->shift_hi_pct, sd->seeds_a, sd->seeds_b,
				 sd->seeds_resolution_pct);
		strbuf_adds(&line, buf);
		if (!line.oom)
			text_fit_wrap_hang(out, line.data, width, 0, 2);
		export_sink_flush(ks, out, 0);
	}
	strbuf_free(&title);
	strbuf_free(&line);
}

/* A line for each row the history gate had no window for, saying why. */
static void why_text(struct strbuf *out, const struct ksft_metric_report_comparison *c,
		     size_t width, struct export_sink *ks)
{
	struct strbuf title = STRBUF_INIT, line = STRBUF_INIT;
	size_t i;

	for (i = 0; i < c->n; i++) {
		const struct cmp_side *sd = cmp_row_side_at(c, i);
		struct cmp_row tmp;
		const struct cmp_row *row;

		if (!sd->why)
			continue;	/* most rows: not expanded */
		row = cmp_row_at(c, i, &tmp);
		title.len = 0;
		canon_series_title(&title, cmp_row_path(row), cmp_row_path_len(row), cmp_row_case(row), cmp_row_name(row),
				   cmp_row_labels(row), row->element);
		line.len = 0;
		strbuf_adds(&line, ksftm_verdict_name(row->verdict));
		strbuf_adds(&line, ": ");
		strbuf_adds(&line, title.data ? title.data : "");
		strbuf_adds(&line, ": ");
		strbuf_adds(&line, sd->why);
		if (!line.oom)
			text_fit_wrap_hang(out, line.data, width, 0, 2);
		export_sink_flush(ks, out, 0);
	}
	strbuf_free(&title);
	strbuf_free(&line);
}

/* A change in percent: "~" for no change (as benchstat prints it), 3
 * significant digits. */
static void change_text(struct strbuf *sb, const struct cmp_row *row)
{
	char buf[32];

	int no_change = !strcmp(row->verdict, KSFTM_VERDICT_NO_CHANGE);

	if (no_change && !row->beyond_floor) {
		strbuf_addc(sb, '~');
		return;
	}
	if (!isfinite(row->change_pct)) {
		strbuf_addc(sb, no_change ? '~' : '-');
		return;
	}
	snprintf(buf, sizeof(buf), fabs(row->change_pct) < 10 ? "%+.2f%%" :
		 fabs(row->change_pct) < 100 ? "%+.1f%%" : "%+.0f%%", row->change_pct);
	strbuf_adds(sb, buf);
	/* A change the samples show, within the tolerance: its size and what
	 * is allowed (issue 42: +3.4 % under a 5 % policy was "~"). */
	if (no_change && isfinite(row->allowance) && isfinite(row->baseline) &&
	    row->baseline != 0) {
		snprintf(buf, sizeof(buf), " (%.3g%% allowed)",
			 100 * row->allowance / fabs(row->baseline));
		strbuf_adds(sb, buf);
	}
}

static void p_text(struct strbuf *sb, double p)
{
	char buf[32];

	if (isnan(p)) {
		strbuf_addc(sb, '-');
		return;
	}
	snprintf(buf, sizeof(buf), "%.2g", p);
	strbuf_adds(sb, buf);
}

/*
 * A value with the spread of the values behind it, as report shows a
 * series (text_fit_spread()) but around the statistic judged: "v" for one
 * value, "v (min…max)" for fewer than TEXT_FEW, else "v ± p%" (1.4826 MAD
 * in percent of their median; in the unit when the median is 0).
 */
static void spread_text(struct strbuf *sb, const struct text_unit *u, double v,
			const struct cmp_spread *s)
{
	char buf[48];

	text_fit_value(sb, u, v);
	if (!isfinite(v) || s->n < 2 || s->lo == s->hi)
		return;
	if (s->n < TEXT_FEW) {
		strbuf_adds(sb, " (");
		text_fit_value(sb, u, s->lo);
		strbuf_adds(sb, "\xe2\x80\xa6");	/* U+2026 */
		text_fit_value(sb, u, s->hi);
		strbuf_addc(sb, ')');
		return;
	}
	strbuf_adds(sb, " \xc2\xb1 ");		/* U+00B1 */
	if (s->mid != 0.0 && isfinite(s->sd)) {
		double pct = 100.0 * s->sd / fabs(s->mid);

		snprintf(buf, sizeof(buf), pct == 0.0 || pct >= 1.0 ? "%.0f%%" : "%.1f%%", pct);
		strbuf_adds(sb, buf);
	} else {
		text_fit_value(sb, u, s->sd);
	}
}

#define TEXT_COLS 10

/* One row's cells: the metric whole, every number in the row's one unit;
 * 0 or -ENOMEM. */
static int row_cells(struct table *t, const struct cmp_row *row, struct strbuf *sb)
{
	struct text_unit u = { 1.0, "" };
	struct cmp_spread spread;
	char buf[64];
	size_t k;
	int ret = 0;

	sb->len = 0;
	canon_series_title(sb, NULL, 0, "", cmp_row_name(row), cmp_row_labels(row), row->element);
	ret |= sb->len ? table_cell_n(t, sb->data + 1, sb->len - 1) : table_cell(t, "");
	/* Words and counts put together, not through snprintf() (issue 45:
	 * three calls a row were 40 % of the table's cost). */
	sb->len = 0;
	strbuf_adds(sb, canon_op_name(row->compare) ? canon_op_name(row->compare) : "-");
	strbuf_adds(sb, row->better > 0 ? " ^" : row->better < 0 ? " v" : "");
	ret |= table_cell_sb(t, sb);
	if (cmp_row_disp_label(row) || isfinite(cmp_row_disp_scale(row)))
		format_text_unit_pick(&u, isfinite(row->baseline) ? row->baseline : row->current,
				      cmp_row_disp_scale(row), cmp_row_disp_label(row));
	sb->len = 0;
	compare_row_spread(row, CMP_BASE, &spread);
	spread_text(sb, &u, row->baseline, &spread);
	ret |= table_cell_sb(t, sb);
	sb->len = 0;
	compare_row_spread(row, CMP_CUR, &spread);
	spread_text(sb, &u, row->current, &spread);
	ret |= table_cell_sb(t, sb);
	sb->len = 0;
	change_text(sb, row);
	ret |= table_cell_sb(t, sb);
	sb->len = 0;
	text_fit_value(sb, &u, row->allowance);
	ret |= table_cell_sb(t, sb);
	k = text_fit_utoa(buf, row->n_baseline);
	buf[k++] = '/';
	k += text_fit_utoa(buf + k, row->n_current);
	ret |= table_cell_n(t, buf, k);
	sb->len = 0;
	p_text(sb, row->p_value);
	ret |= table_cell_sb(t, sb);
	ret |= table_cell(t, ksftm_verdict_name(row->verdict));
	ret |= table_cell(t, u.sym);
	return ret || sb->oom ? -ENOMEM : 0;
}

/* Row @i shown (a compact row read without expanding it). */
static int shown_at(const struct ksft_metric_report_comparison *c, size_t i, int all)
{
	return all || strcmp(cmp_row_verdict_at(c, i), KSFTM_VERDICT_UNTRACKED);
}

static int same_case(const struct cmp_row *a, const struct cmp_row *b)
{
	size_t k;

	if (cmp_row_path_len(a) != cmp_row_path_len(b) || strcmp(cmp_row_case(a), cmp_row_case(b)))
		return 0;
	for (k = 0; k < cmp_row_path_len(a); k++)
		if (strcmp(cmp_row_path(a)[k], cmp_row_path(b)[k]))
			return 0;
	return 1;
}

/* The rows shown (tracked ones, or all with @all), under their case: the
 * number of tables, or -ENOMEM. */
static int tables_text(const struct ksft_metric_report_comparison *c, int all, size_t width,
		       struct strbuf *out, struct export_sink *ks)
{
	static const char *const head[TEXT_COLS] = {
		"METRIC", "COMPARE", "BASELINE", "CURRENT", "CHANGE", "ALLOWED",
		"N", "P", "VERDICT", "UNIT",
	};
	static const int right[TEXT_COLS] = { 0, 0, 1, 1, 1, 1, 1, 1, 0, 0 };
	struct strbuf sb = STRBUF_INIT;
	size_t i = 0, j, k, tables = 0;
	struct table t;
	int ret = 0, made = 0;

	while (!ret && i < c->n) {
		struct cmp_row tmp_first, tmp;
		const struct cmp_row *first = cmp_row_at(c, i, &tmp_first);

		for (j = i + 1; j < c->n && same_case(cmp_row_at(c, j, &tmp), first); j++)
			;
		for (k = i; k < j && !shown_at(c, k, all); k++)
			;
		if (k == j) {
			i = j;
			continue;
		}
		if (tables++)
			strbuf_addc(out, '\n');
		sb.len = 0;
		canon_series_title(&sb, cmp_row_path(first), cmp_row_path_len(first), cmp_row_case(first), "", "{}", -1);
		if (sb.len)	/* "case " without the empty metric */
			sb.data[--sb.len] = '\0';
		if (!sb.oom)
			text_fit_wrap(out, sb.data, width, 0);
		/* One table, its heads written once, emptied down to them for
		 * each case (issue 45: a table a case was a fifth of the text's
		 * cost). -ENOMEM: never a table cut short above a RESULT line. */
		if (tables == 1) {
			if ((ret = table_init(&t, TEXT_COLS)))
				break;
			made = 1;
			for (k = 0; k < TEXT_COLS; k++)
				ret |= table_cell(&t, head[k]);
		} else {
			table_reset_keep_heads(&t);
		}
		for (; !ret && i < j; i++)
			if (shown_at(c, i, all))
				ret |= row_cells(&t, cmp_row_at(c, i, &tmp), &sb);
		if (!ret)
			text_fit_render(&t, out, right, width, 2);
		export_sink_flush(ks, out, 0);	/* after a line's end */
	}
	if (made)
		table_free(&t);
	strbuf_free(&sb);
	return ret ? -ENOMEM : (int)tables;
}

_Static_assert(TEXT_FEW == 10, "the legend says 10");
static const char legend[] =
	"COMPARE: the statistic judged (p50 the median) and its better direction (^ higher,"
	" v lower); BASELINE, CURRENT: that statistic, with the range (min\xe2\x80\xa6max) of"
	" fewer than 10 values or \xc2\xb1 their robust spread (% of the median): the"
	" baseline's samples (with --db its runs), this run's samples; CHANGE: current against baseline (~: no change the samples show; a change within the tolerance says what is allowed); ALLOWED: the change the"
	" policy tolerates, in the row's unit; N: samples baseline/current; P: the p-value"
	" (with --db, adjusted across the run); name[n]: element n of an array metric."
	" doc/consumer.rst explains each verdict.";

/*
 * What the text's parts need to know of the rows, in one pass (issue 45:
 * a whole run's untracked rows were walked eight times to print three
 * lines): the count of each verdict, the rows the tables show, and
 * whether any row has a needs, disturbed, seeds or why line.
 */
struct text_scan {
	size_t counts[KSFTM_N_VERDICTS], untracked, shown, blind;
	int needs, lines, seeds, why;
};

static void text_scan(const struct ksft_metric_report_comparison *c, int all,
		      struct text_scan *sc)
{
	/* UNTRACKED and DISTURBED have one spelling, so their index is their
	 * strcmp(); TOO NOISY's index (old spelling too) only narrows down the
	 * rows compare_needs_has() is asked about. */
	int untracked = ksftm_verdict_index(KSFTM_VERDICT_UNTRACKED);
	int noisy = ksftm_verdict_index(KSFTM_VERDICT_TOO_NOISY);
	int disturbed = ksftm_verdict_index(KSFTM_VERDICT_DISTURBED);
	const char *last = NULL;	/* most rows share their verdict's string */
	int v = -1;
	size_t i;

	memset(sc, 0, sizeof(*sc));
	for (i = 0; i < c->n; i++) {
		/* Most rows compact: read without expanding them. */
		const struct cmp_side *sd = cmp_row_side_at(c, i);
		const char *verdict = cmp_row_verdict_at(c, i);
		int blind = cmp_row_blind_at(c, i), needs = 0;
		struct cmp_row tmp;

		if (!last || verdict != last)
			v = ksftm_verdict_index(last = verdict);
		if (v >= 0)
			sc->counts[v]++;
		sc->untracked += v == untracked;
		sc->shown += all || v != untracked;
		sc->blind += blind;
		if (blind || v == noisy)
			needs = compare_needs_has(cmp_row_at(c, i, &tmp));
		sc->needs |= needs;
		sc->lines |= needs || (v == disturbed &&
				       compare_needs_has_disturbed(c, cmp_row_at(c, i, &tmp)));
		sc->seeds |= sd->seeds_a > 0;
		sc->why |= sd->why != NULL;
	}
}

static int format_text(const struct ksft_metric_report_comparison *c, int fmt,
		       struct strbuf *out, struct export_sink *ks)
{
	size_t width = text_fit_width(fmt), k;
	int all = !!(fmt & KSFT_METRIC_REPORT_COMPARE_ALL);
	struct text_scan sc;
	char buf[96];
	int tables = 0;

	text_scan(c, all, &sc);
	if (sc.shown)
		tables = tables_text(c, all, width, out, ks);
	if (tables < 0)
		return -ENOMEM;
	if (tables) {
		strbuf_addc(out, '\n');
		text_fit_wrap(out, legend, width, 0);
	}
	if (tables && (c->n && (sc.needs || sc.why || sc.seeds)))
		strbuf_addc(out, '\n');
	if (sc.lines)
		needs_text(out, c, width, ks);
	if (sc.seeds)
		seeds_text(out, c, width, ks);
	if (sc.why)
		why_text(out, c, width, ks);
	snprintf(buf, sizeof(buf), "\n%zu rows:", c->n);
	strbuf_adds(out, buf);
	for (k = 0; k < KSFTM_N_VERDICTS; k++) {
		if (!sc.counts[k])
			continue;
		char low[32];

		snprintf(buf, sizeof(buf), " %zu %s", sc.counts[k],
			 ksftm_verdict_lower(ksftm_verdicts[k].code, low, sizeof(low)));
		strbuf_adds(out, buf);
	}
	if (sc.untracked && !all) {
		snprintf(buf, sizeof(buf), "\n%zu untracked series (no regression policy) not"
			 " shown: --all shows them", sc.untracked);
		strbuf_adds(out, buf);
	}
	if (c->context_diff) {	/* judged anyway: said where the verdict is read */
		struct strbuf line = STRBUF_INIT;

		strbuf_adds(&line, "MEASURED OTHERWISE (--allow-context-mismatch): ");
		strbuf_adds(&line, c->context_diff);
		strbuf_addc(out, '\n');
		if (!line.oom)
			text_fit_wrap_hang(out, line.data, width, 0, 2);
		out->oom |= line.oom;
		strbuf_free(&line);
	}
	/* A failed case is not a performance regression: said apart. */
	if (c->failing)
		strbuf_adds(out, c->failing > c->failed_cases ? "\nRESULT: REGRESSION\n" :
			    "\nRESULT: CASE FAILED (its series not judged; no regression)\n");
	else if (sc.blind) {
		snprintf(buf, sizeof(buf), "\nRESULT: OK, BUT %zu", sc.blind);
		strbuf_adds(out, buf);
		/* Fits 80 columns: the lines above say why. */
		strbuf_adds(out, " SERIES CANNOT BE GATED HERE (no run could fail them)\n");
	} else
		strbuf_adds(out, "\nRESULT: OK\n");
	return out->oom ? -ENOMEM : 0;
}

static void json_num_field(struct strbuf *sb, const char *key, double v)
{
	strbuf_addc(sb, ',');
	canon_json_str(sb, key);
	strbuf_addc(sb, ':');
	canon_json_double(sb, v);
}

static int format_json(const struct ksft_metric_report_comparison *c,
		       struct strbuf *sb, struct export_sink *ks)
{
	struct rp_display d;
	size_t i, blind;
	char buf[160];

	strbuf_adds(sb, "{\"rows\":[");
	for (i = 0, blind = 0; i < c->n; i++) {
		struct cmp_row tmp;
		const struct cmp_row *row = cmp_row_at(c, i, &tmp);
		const struct cmp_side *sd = cmp_side_of(row);
		const char *b = canon_better_name(row->better);

		blind += row->blind;
		strbuf_adds(sb, i ? ",\n{" : "\n{");
		canon_emit_identity(sb, cmp_row_path(row), cmp_row_path_len(row), cmp_row_case(row),
				       cmp_row_name(row), cmp_row_labels(row));
		if (row->element >= 0)
			snprintf(buf, sizeof(buf), ",\"element\":%ld", (long)row->element);
		else
			snprintf(buf, sizeof(buf), ",\"element\":null");
		strbuf_adds(sb, buf);
		strbuf_adds(sb, ",\"compare\":");
		if (canon_op_name(row->compare))
			canon_json_str(sb, canon_op_name(row->compare));
		else
			strbuf_adds(sb, "null");
		strbuf_adds(sb, ",\"better\":");
		if (b)
			canon_json_str(sb, b);
		else
			strbuf_adds(sb, "null");
		/* The unit the numbers are in, times scale (units.c's one rule). */
		units_display_choose(cmp_row_disp_scale(row), cmp_row_disp_label(row), row->aggregated, &d);
		strbuf_addc(sb, ',');
		units_display_json(sb, &d);
		json_num_field(sb, "baseline", row->baseline);
		json_num_field(sb, "current", row->current);
		json_num_field(sb, "change_pct", row->change_pct);
		json_num_field(sb, "allowance", row->allowance);
		json_num_field(sb, "p_value", row->p_value);
		if (sd->seeds_a) {	/* judged seed by seed (compare_seeds.c) */
			snprintf(buf, sizeof(buf), ",\"seeds\":{\"baseline\":%zu,\"current\":%zu,"
				 "\"needed\":%zu,\"paired\":%zu", sd->seeds_a, sd->seeds_b,
				 sd->seeds_needed, sd->seeds_paired);
			strbuf_adds(sb, buf);
			json_num_field(sb, "shift_lo_pct", sd->shift_lo_pct);
			json_num_field(sb, "shift_hi_pct", sd->shift_hi_pct);
			json_num_field(sb, "resolution_pct", sd->seeds_resolution_pct);
			strbuf_addc(sb, '}');
		}
		compare_needs_json(sb, row);
		compare_needs_disturbed_json(sb, c, row);
		if (sd->why) {
			strbuf_adds(sb, ",\"why\":");
			canon_json_str(sb, sd->why);
		}
		snprintf(buf, sizeof(buf),
			 ",\"n_baseline\":%zu,\"n_current\":%zu,\"baseline_runs\":%zu,\"beyond_floor\":%s,"
			 "\"verdict\":\"%s\",\"fails\":%s}",
			 (size_t)row->n_baseline, (size_t)row->n_current,
			 (size_t)row->baseline_runs, row->beyond_floor ? "true" : "false", row->verdict,
			 row->fails ? "true" : "false");
		strbuf_adds(sb, buf);
		export_sink_flush(ks, sb, 0);
	}
	strbuf_adds(sb, "],\n\"context_mismatch\":");
	if (c->context_diff)
		canon_json_str(sb, c->context_diff);
	else
		strbuf_adds(sb, "null");
	/* "cannot_gate": series no run could fail (their needs say "blind"). */
	snprintf(buf, sizeof(buf), ",\"failing\":%zu,\"cannot_gate\":%zu,\"result\":\"%s\"}\n",
		 c->failing, blind, !c->failing ? "ok" : c->failing > c->failed_cases ?
		 "regression" : KSFTM_VERDICT_CASE_FAILED);
	strbuf_adds(sb, buf);
	return sb->oom ? -ENOMEM : 0;
}

static void csv_num(struct strbuf *sb, double v)
{
	strbuf_addc(sb, ',');
	if (isfinite(v))
		canon_json_double(sb, v);
}

static int format_csv(const struct ksft_metric_report_comparison *c,
		      struct strbuf *sb, struct export_sink *ks)
{
	struct strbuf tmp = STRBUF_INIT;
	size_t i, k;
	char buf[128];

	strbuf_adds(sb, "case,path,name,labels,element,compare,better,baseline,current,change_pct,allowance,p_value,n_baseline,n_current,baseline_runs,verdict,fails\r\n");
	for (i = 0; i < c->n; i++) {
		struct cmp_row trow;
		const struct cmp_row *row = cmp_row_at(c, i, &trow);
		const char *b = canon_better_name(row->better);

		table_csv_field(sb, cmp_row_case(row));
		strbuf_addc(sb, ',');
		tmp.len = 0;
		strbuf_addc(&tmp, '[');
		for (k = 0; k < cmp_row_path_len(row); k++) {
			if (k)
				strbuf_addc(&tmp, ',');
			canon_json_str(&tmp, cmp_row_path(row)[k]);
		}
		strbuf_addc(&tmp, ']');
		table_csv_field(sb, tmp.data ? tmp.data : "[]");
		strbuf_addc(sb, ',');
		table_csv_field(sb, cmp_row_name(row));
		strbuf_addc(sb, ',');
		table_csv_field(sb, cmp_row_labels(row));
		strbuf_addc(sb, ',');
		if (row->element >= 0) {
			snprintf(buf, sizeof(buf), "%ld", (long)row->element);
			strbuf_adds(sb, buf);
		}
		snprintf(buf, sizeof(buf), ",%s,%s",
			 canon_op_name(row->compare) ? canon_op_name(row->compare) : "",
			 b ? b : "");
		strbuf_adds(sb, buf);
		csv_num(sb, row->baseline);
		csv_num(sb, row->current);
		csv_num(sb, row->change_pct);
		csv_num(sb, row->allowance);
		csv_num(sb, row->p_value);
		snprintf(buf, sizeof(buf), ",%zu,%zu,%zu,%s,%d\r\n", (size_t)row->n_baseline,
			 (size_t)row->n_current, (size_t)row->baseline_runs, row->verdict,
			 row->fails);
		strbuf_adds(sb, buf);
		export_sink_flush(ks, sb, 0);
	}
	strbuf_free(&tmp);
	return sb->oom ? -ENOMEM : 0;
}

/* @c in format @fmt into @sb, or through it to @ks (NULL: all of it kept
 * in @sb): 0 or a negative errno, its message set. */
static int format_any(const struct ksft_metric_report_comparison *c, int fmt,
		      struct strbuf *sb, struct export_sink *ks)
{
	int ret;

	switch (fmt & ~(KSFT_METRIC_REPORT_COMPARE_ALL | KSFT_METRIC_REPORT_TEXT_NARROW |
		       KSFT_METRIC_REPORT_TEXT_VERBOSE)) {
	case KSFT_METRIC_REPORT_TEXT:
		ret = format_text(c, fmt, sb, ks);
		break;
	case KSFT_METRIC_REPORT_JSON:
		ret = format_json(c, sb, ks);
		break;
	case KSFT_METRIC_REPORT_CSV:
		ret = format_csv(c, sb, ks);
		break;
	case KSFT_METRIC_REPORT_REPLY:
		ret = compare_reply_write(c, sb);
		break;
	default:
		return ksftm_fail(EINVAL, "comparison format %d is not supported", fmt);
	}
	return ret || sb->oom ? ksftm_oom() : 0;
}

KSFT_METRIC_REPORT_API int
ksft_metric_report_comparison_format(const struct ksft_metric_report_comparison *c,
				     int fmt, char **out, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	if (!c || !out)
		return ksftm_fail(EINVAL, "ksft_metric_report_comparison_format: NULL argument");
	ret = format_any(c, fmt, &sb, NULL);
	if (ret) {
		strbuf_free(&sb);
		return ret;
	}
	*out = strbuf_detach(&sb, len);
	return *out ? 0 : ksftm_oom();
}

KSFT_METRIC_REPORT_API int
ksft_metric_report_comparison_write(const struct ksft_metric_report_comparison *c,
				    int fmt, FILE *f)
{
	struct export_sink ks = { f, 0 };
	struct strbuf sb = STRBUF_INIT;
	int ret;

	if (!c || !f)
		return ksftm_fail(EINVAL, "ksft_metric_report_comparison_write: NULL argument");
	ret = format_any(c, fmt, &sb, &ks);
	if (!ret)
		ret = export_sink_end(&ks, &sb);
	strbuf_free(&sb);
	return ret == -ENOMEM ? ksftm_oom() : ret;
}

/*
 * What a series the history gate cannot judge would need: one line per
 * such series after the table (compare_needs.c says it); a series no run
 * could fail is CANNOT BE GATED, so that it is never read as passing.
 */
static void needs_text(struct strbuf *out, const struct ksft_metric_report_comparison *c,
		       size_t width, struct export_sink *ks)
{
	struct strbuf title = STRBUF_INIT, line = STRBUF_INIT;
	size_t i;

	for (i = 0; i < c->n; i++) {
		struct cmp_row tmp;
		const struct cmp_row *row = cmp_row_at(c, i, &tmp);

		if (!compare_needs_has(row) && !compare_needs_has_disturbed(c, row))
			continue;
		title.len = 0;
		canon_series_title(&title, cmp_row_path(row), cmp_row_path_len(row), cmp_row_case(row), cmp_row_name(row),
				   cmp_row_labels(row), row->element);
		line.len = 0;
		strbuf_adds(&line, row->blind ? "CANNOT BE GATED" :
			    ksftm_verdict_name(row->verdict));
		strbuf_adds(&line, ": ");
		strbuf_adds(&line, title.data ? title.data : "");
		strbuf_adds(&line, ": ");
		if (compare_needs_has(row))
			compare_needs_sentence(&line, row);
		else
			compare_needs_disturbed_sentence(&line, c, row);
		if (!line.oom)
			text_fit_wrap_hang(out, line.data, width, 0, 2);
		export_sink_flush(ks, out, 0);
	}
	strbuf_free(&title);
	strbuf_free(&line);
}
