/* ksft-metric compare output: a verdict table, JSON or CSV. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "rp_baseline.h"
#include "rp_compare.h"
#include "rp_table.h"
#include "compare_needs.h"

static void needs_text(struct strbuf *out, const struct ksft_metric_report_comparison *c);

/* A line for each row the history gate had no window for, saying why. */
static void why_text(struct strbuf *out, const struct ksft_metric_report_comparison *c)
{
	struct strbuf title = STRBUF_INIT;
	size_t i;

	for (i = 0; i < c->n; i++) {
		const struct cmp_row *row = &c->rows[i];

		if (!row->why)
			continue;
		title.len = 0;
		rp_series_title(&title, row->path, row->path_len, row->case_name, row->name,
				row->labels, row->element);
		strbuf_adds(out, ksftm_verdict_name(row->verdict));
		strbuf_adds(out, ": ");
		strbuf_adds(out, title.data ? title.data : "");
		strbuf_adds(out, ": ");
		strbuf_adds(out, row->why);
		strbuf_addc(out, '\n');
	}
	strbuf_free(&title);
}

static void pct_text(struct strbuf *sb, double v)
{
	char buf[32];

	if (!isfinite(v)) {
		strbuf_addc(sb, '-');
		return;
	}
	snprintf(buf, sizeof(buf), "%+.2f%%", v);
	strbuf_adds(sb, buf);
}

static void p_text(struct strbuf *sb, double p)
{
	char buf[32];

	if (isnan(p)) {
		strbuf_addc(sb, '-');
		return;
	}
	snprintf(buf, sizeof(buf), p < 0.0001 ? "%.1e" : "%.4f", p);
	strbuf_adds(sb, buf);
}

/* The text table's width: a terminal's 120 columns (issue 23). */
#define TEXT_WIDTH 120
#define TEXT_COLS 9

static size_t display_width(const char *s)
{
	size_t n = 0;

	for (; s && *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* @s cut to @max display columns, its middle replaced by "...". */
static void cut_middle(struct strbuf *sb, const char *s, size_t max)
{
	size_t n = 0, head, tail, i, w = 0;
	const char *p;

	for (p = s; *p; p++)
		n += ((unsigned char)*p & 0xc0) != 0x80;
	if (n <= max || max < 8) {
		strbuf_adds(sb, s);
		return;
	}
	head = (max - 3) / 3;		/* the case's start */
	tail = max - 3 - head;		/* the metric and its labels */
	for (p = s; *p && w < head; p++) {
		strbuf_addc(sb, *p);
		w += ((unsigned char)p[1] & 0xc0) != 0x80;
	}
	strbuf_adds(sb, "...");
	for (p = s, i = 0; *p; p++)
		if (((unsigned char)*p & 0xc0) != 0x80 && i++ == n - tail)
			break;
	strbuf_adds(sb, p);
}

/* The leading path components every row shares (shown once, above the table). */
static size_t common_path(const struct ksft_metric_report_comparison *c)
{
	size_t i, k, n = c->n ? c->rows[0].path_len : 0;

	for (i = 1; i < c->n; i++) {
		if (c->rows[i].path_len < n)
			n = c->rows[i].path_len;
		for (k = 0; k < n; k++)
			if (strcmp(c->rows[i].path[k], c->rows[0].path[k]))
				n = k;
	}
	return n;
}

/*
 * One row's cells: the series title without the @skip shared path
 * components, cut to @series_max columns (0: whole).
 */
static int row_cells(struct table *t, const struct cmp_row *row, size_t skip,
		     size_t series_max, struct strbuf *sb)
{
	char buf[64];
	int ret = 0;

	sb->len = 0;
	rp_series_title(sb, row->path + skip, row->path_len - skip, row->case_name, row->name,
			row->labels, row->element);
	if (series_max && !sb->oom && display_width(sb->data) > series_max) {
		/* The path gives way first: the case, metric and labels stay whole. */
		char *whole = strdup(sb->data), *tail;
		size_t tw;

		sb->len = 0;
		rp_series_title(sb, NULL, 0, row->case_name, row->name, row->labels, row->element);
		tail = sb->oom ? NULL : strdup(sb->data);
		tw = tail ? display_width(tail) : 0;
		sb->len = 0;
		if (whole && tail && row->path_len > skip && tw + 4 <= series_max) {
			/* "path / " cut at its end: "sel... / case metric{labels}" */
			size_t keep = series_max - tw >= 8 ? series_max - tw - 6 : 0, w = 0;
			const char *p;

			for (p = whole; *p && w < keep; p++) {
				strbuf_addc(sb, *p);
				w += ((unsigned char)p[1] & 0xc0) != 0x80;
			}
			strbuf_adds(sb, keep ? "... / " : "... ");
			strbuf_adds(sb, tail);
		} else if (whole) {
			cut_middle(sb, whole, series_max);
		}
		free(whole);
		free(tail);
	}
	ret |= table_cell(t, sb->data ? sb->data : "");
	snprintf(buf, sizeof(buf), "%s%s", rp_op_name(row->compare) ?
		 rp_op_name(row->compare) : "-",
		 row->better > 0 ? " ^" : row->better < 0 ? " v" : "");
	ret |= table_cell(t, buf);
	sb->len = 0;
	rp_text_display(sb, row->baseline, row->disp_scale, row->disp_label);
	ret |= table_cell(t, sb->data);
	sb->len = 0;
	rp_text_display(sb, row->current, row->disp_scale, row->disp_label);
	ret |= table_cell(t, sb->data);
	sb->len = 0;
	pct_text(sb, row->change_pct);
	ret |= table_cell(t, sb->data);
	sb->len = 0;
	rp_text_display(sb, row->allowance, row->disp_scale, row->disp_label);
	ret |= table_cell(t, sb->data);
	snprintf(buf, sizeof(buf), "%zu/%zu", row->n_baseline, row->n_current);
	ret |= table_cell(t, buf);
	sb->len = 0;
	p_text(sb, row->p_value);
	ret |= table_cell(t, sb->data);
	sb->len = 0;
	strbuf_adds(sb, ksftm_verdict_name(row->verdict));
	ret |= table_cell(t, sb->data);
	return ret || sb->oom ? -1 : 0;
}

/* The rows shown: tracked ones (a direction), or all with @all. */
static int build_table(const struct ksft_metric_report_comparison *c, int all,
		       size_t skip, size_t series_max, struct table *t, struct strbuf *sb)
{
	static const char *const head[TEXT_COLS] = {
		"SERIES", "COMPARE", "BASELINE", "CURRENT", "CHANGE", "ALLOWED",
		"N", "P", "VERDICT",
	};
	size_t i, k;
	int ret = 0;

	if (table_init(t, TEXT_COLS))
		return -1;
	for (k = 0; k < TEXT_COLS; k++)
		ret |= table_cell(t, head[k]);
	for (i = 0; i < c->n && !ret; i++)
		if (all || strcmp(c->rows[i].verdict, KSFTM_VERDICT_UNTRACKED))
			ret |= row_cells(t, &c->rows[i], skip, series_max, sb);
	return ret;
}

static const char legend[] =
	"COMPARE: the statistic judged (p50 the median) and its better direction (^ higher, v lower);\n"
	"CHANGE: current against baseline; ALLOWED: the change the policy tolerates, in the metric's\n"
	"units; N: samples baseline/current; P: the p-value (with --db, adjusted across the run);\n"
	"name[n]: element n of an array metric. doc/consumer.rst explains each verdict.\n";

static int format_text(const struct ksft_metric_report_comparison *c, int all,
		       struct strbuf *out)
{
	size_t counts[KSFTM_N_VERDICTS] = { 0 }, i, k, others, untracked = 0, skip, blind;
	static const int right[] = { 0, 0, 1, 1, 1, 1, 1, 1, 0 };
	struct strbuf sb = STRBUF_INIT;
	struct table t;
	char buf[96];
	int ret;

	for (i = 0; i < c->n; i++) {
		int v = ksftm_verdict_index(c->rows[i].verdict);

		if (v >= 0)
			counts[v]++;
		untracked += !strcmp(c->rows[i].verdict, KSFTM_VERDICT_UNTRACKED);
	}
	skip = common_path(c);
	ret = build_table(c, all, skip, 0, &t, &sb);
	/* Wider than a terminal: the series titles give way, cut in the middle. */
	for (k = 1, others = 0; !ret && k < TEXT_COLS; k++)
		others += t.width[k] + 2;
	if (!ret && t.width[0] + others > TEXT_WIDTH) {
		table_free(&t);
		ret = build_table(c, all, skip, others + 24 < TEXT_WIDTH ? TEXT_WIDTH - others : 24,
				  &t, &sb);
	}
	if (!ret) {
		if (t.n > TEXT_COLS && skip) {
			strbuf_adds(out, "In ");
			for (k = 0; k < skip; k++) {
				strbuf_adds(out, k ? " / " : "");
				strbuf_adds(out, c->rows[0].path[k]);
			}
			strbuf_adds(out, ":\n");
		}
		if (t.n > TEXT_COLS) {
			table_render(&t, out, right);
			strbuf_adds(out, legend);
		}
		needs_text(out, c);
		why_text(out, c);
		snprintf(buf, sizeof(buf), "\n%zu rows:", c->n);
		strbuf_adds(out, buf);
		for (k = 0; k < KSFTM_N_VERDICTS; k++) {
			if (!counts[k])
				continue;
			char low[32];

			snprintf(buf, sizeof(buf), " %zu %s", counts[k],
				 ksftm_verdict_lower(ksftm_verdicts[k].code, low, sizeof(low)));
			strbuf_adds(out, buf);
		}
		if (untracked && !all) {
			snprintf(buf, sizeof(buf), "\n%zu untracked series (no regression policy) not"
				 " shown: --all shows them", untracked);
			strbuf_adds(out, buf);
		}
		for (k = 0, blind = 0; k < c->n; k++)
			blind += c->rows[k].blind;
		/* A failed case is not a performance regression: said apart. */
		if (c->failing)
			strbuf_adds(out, c->failing > c->failed_cases ? "\nRESULT: REGRESSION\n" :
				    "\nRESULT: CASE FAILED (its series not judged; no regression)\n");
		else if (blind) {
			snprintf(buf, sizeof(buf), "\nRESULT: OK, BUT %zu", blind);
			strbuf_adds(out, buf);
			strbuf_adds(out, " SERIES CANNOT BE GATED HERE (no run could fail them;"
				    " see above)\n");
		} else
			strbuf_adds(out, "\nRESULT: OK\n");
	}
	table_free(&t);
	strbuf_free(&sb);
	return ret ? -ENOMEM : 0;
}

static void json_num_field(struct strbuf *sb, const char *key, double v)
{
	strbuf_addc(sb, ',');
	rp_json_str(sb, key);
	strbuf_addc(sb, ':');
	rp_json_double(sb, v);
}

static int format_json(const struct ksft_metric_report_comparison *c,
		       struct strbuf *sb)
{
	size_t i, blind;
	char buf[160];

	strbuf_adds(sb, "{\"rows\":[");
	for (i = 0; i < c->n; i++) {
		const struct cmp_row *row = &c->rows[i];
		const char *b = rp_better_name(row->better);

		strbuf_adds(sb, i ? ",\n{" : "\n{");
		rp_emit_identity(sb, row->path, row->path_len, row->case_name,
				 row->name, row->labels);
		if (row->element >= 0)
			snprintf(buf, sizeof(buf), ",\"element\":%ld", row->element);
		else
			snprintf(buf, sizeof(buf), ",\"element\":null");
		strbuf_adds(sb, buf);
		strbuf_adds(sb, ",\"compare\":");
		if (rp_op_name(row->compare))
			rp_json_str(sb, rp_op_name(row->compare));
		else
			strbuf_adds(sb, "null");
		strbuf_adds(sb, ",\"better\":");
		if (b)
			rp_json_str(sb, b);
		else
			strbuf_adds(sb, "null");
		json_num_field(sb, "baseline", row->baseline);
		json_num_field(sb, "current", row->current);
		json_num_field(sb, "change_pct", row->change_pct);
		json_num_field(sb, "allowance", row->allowance);
		json_num_field(sb, "p_value", row->p_value);
		cmp_needs_json(sb, row);
		cmp_disturbed_json(sb, c, row);
		if (row->why) {
			strbuf_adds(sb, ",\"why\":");
			rp_json_str(sb, row->why);
		}
		snprintf(buf, sizeof(buf),
			 ",\"n_baseline\":%zu,\"n_current\":%zu,\"baseline_runs\":%zu,\"verdict\":\"%s\",\"fails\":%s}",
			 row->n_baseline, row->n_current, row->baseline_runs,
			 row->verdict, row->fails ? "true" : "false");
		strbuf_adds(sb, buf);
	}
	for (i = 0, blind = 0; i < c->n; i++)
		blind += c->rows[i].blind;
	/* "cannot_gate": series no run could fail (their needs say "blind"). */
	snprintf(buf, sizeof(buf), "],\n\"failing\":%zu,\"cannot_gate\":%zu,\"result\":\"%s\"}\n",
		 c->failing, blind, !c->failing ? "ok" : c->failing > c->failed_cases ?
		 "regression" : KSFTM_VERDICT_CASE_FAILED);
	strbuf_adds(sb, buf);
	return sb->oom ? -ENOMEM : 0;
}

static void csv_num(struct strbuf *sb, double v)
{
	strbuf_addc(sb, ',');
	if (isfinite(v))
		rp_json_double(sb, v);
}

static int format_csv(const struct ksft_metric_report_comparison *c,
		      struct strbuf *sb)
{
	struct strbuf tmp = STRBUF_INIT;
	size_t i, k;
	char buf[128];

	strbuf_adds(sb, "case,path,name,labels,element,compare,better,baseline,current,change_pct,allowance,p_value,n_baseline,n_current,baseline_runs,verdict,fails\r\n");
	for (i = 0; i < c->n; i++) {
		const struct cmp_row *row = &c->rows[i];
		const char *b = rp_better_name(row->better);

		csv_field(sb, row->case_name);
		strbuf_addc(sb, ',');
		tmp.len = 0;
		strbuf_addc(&tmp, '[');
		for (k = 0; k < row->path_len; k++) {
			if (k)
				strbuf_addc(&tmp, ',');
			rp_json_str(&tmp, row->path[k]);
		}
		strbuf_addc(&tmp, ']');
		csv_field(sb, tmp.data ? tmp.data : "[]");
		strbuf_addc(sb, ',');
		csv_field(sb, row->name);
		strbuf_addc(sb, ',');
		csv_field(sb, row->labels);
		strbuf_addc(sb, ',');
		if (row->element >= 0) {
			snprintf(buf, sizeof(buf), "%ld", row->element);
			strbuf_adds(sb, buf);
		}
		snprintf(buf, sizeof(buf), ",%s,%s",
			 rp_op_name(row->compare) ? rp_op_name(row->compare) : "",
			 b ? b : "");
		strbuf_adds(sb, buf);
		csv_num(sb, row->baseline);
		csv_num(sb, row->current);
		csv_num(sb, row->change_pct);
		csv_num(sb, row->allowance);
		csv_num(sb, row->p_value);
		snprintf(buf, sizeof(buf), ",%zu,%zu,%zu,%s,%d\r\n", row->n_baseline,
			 row->n_current, row->baseline_runs, row->verdict, row->fails);
		strbuf_adds(sb, buf);
	}
	strbuf_free(&tmp);
	return sb->oom ? -ENOMEM : 0;
}

KSFT_METRIC_REPORT_API int
ksft_metric_report_comparison_format(const struct ksft_metric_report_comparison *c,
				     int fmt, char **out, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	if (!c || !out)
		return ksftm_fail(EINVAL, "ksft_metric_report_comparison_format: NULL argument");
	switch (fmt & ~KSFT_METRIC_REPORT_COMPARE_ALL) {
	case KSFT_METRIC_REPORT_TEXT:
		ret = format_text(c, !!(fmt & KSFT_METRIC_REPORT_COMPARE_ALL), &sb);
		break;
	case KSFT_METRIC_REPORT_JSON:
		ret = format_json(c, &sb);
		break;
	case KSFT_METRIC_REPORT_CSV:
		ret = format_csv(c, &sb);
		break;
	default:
		return ksftm_fail(EINVAL, "comparison format %d is not supported", fmt);
	}
	if (ret || sb.oom) {
		strbuf_free(&sb);
		return ksftm_fail(ENOMEM, "out of memory");
	}
	*out = strbuf_detach(&sb, len);
	return *out ? 0 : ksftm_fail(ENOMEM, "out of memory");
}

/*
 * What a series the history gate cannot judge would need: one line per
 * such series after the table (compare_needs.c says it); a series no run
 * could fail is CANNOT BE GATED, so that it is never read as passing.
 */
static void needs_text(struct strbuf *out, const struct ksft_metric_report_comparison *c)
{
	struct strbuf title = STRBUF_INIT;
	size_t i;

	for (i = 0; i < c->n; i++) {
		const struct cmp_row *row = &c->rows[i];

		if (!cmp_has_needs(row) && !cmp_has_disturbed(c, row))
			continue;
		title.len = 0;
		rp_series_title(&title, row->path, row->path_len, row->case_name, row->name,
				row->labels, row->element);
		strbuf_adds(out, row->blind ? "CANNOT BE GATED" :
			    ksftm_verdict_name(row->verdict));
		strbuf_adds(out, ": ");
		strbuf_adds(out, title.data ? title.data : "");
		strbuf_adds(out, ": ");
		if (cmp_has_needs(row))
			cmp_needs_sentence(out, row);
		else
			cmp_disturbed_sentence(out, c, row);
		strbuf_addc(out, '\n');
	}
	strbuf_free(&title);
}
