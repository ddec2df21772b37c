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

static void needs_text(struct strbuf *out, const struct ksft_metric_report_comparison *c);
static void needs_json(struct strbuf *sb, const struct cmp_row *row);

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

static void upper(struct strbuf *sb, const char *s)
{
	for (; *s; s++)
		strbuf_addc(sb, *s >= 'a' && *s <= 'z' ? (char)(*s - 32) : *s);
}

static int format_text(const struct ksft_metric_report_comparison *c,
		       struct strbuf *out)
{
	static const char *const head[] = {
		"SERIES", "COMPARE", "BASELINE", "CURRENT", "CHANGE", "ALLOWED",
		"N(BASE)", "N(CUR)", "P", "VERDICT",
	};
	static const int right[] = { 0, 0, 1, 1, 1, 1, 1, 1, 1, 0 };
	size_t counts[8] = { 0 }, i, k;
	static const char *const kinds[] = {
		"regression", "improvement", "noise", "ok", "new", "missing",
		"untracked", "incomparable",
	};
	struct strbuf sb = STRBUF_INIT;
	struct table t;
	char buf[64];
	int ret = 0;

	if (table_init(&t, 10))
		return -ENOMEM;
	for (k = 0; k < 10; k++)
		ret |= table_cell(&t, head[k]);
	for (i = 0; i < c->n; i++) {
		const struct cmp_row *row = &c->rows[i];

		for (k = 0; k < 8; k++)
			counts[k] += !strcmp(row->verdict, kinds[k]);
		sb.len = 0;
		rp_series_title(&sb, row->path, row->path_len, row->case_name,
				row->name, row->labels, row->element);
		ret |= table_cell(&t, sb.data);
		snprintf(buf, sizeof(buf), "%s%s", rp_op_name(row->compare) ?
			 rp_op_name(row->compare) : "-",
			 row->better > 0 ? " ^" : row->better < 0 ? " v" : "");
		ret |= table_cell(&t, buf);
		sb.len = 0;
		rp_text_display(&sb, row->baseline, row->disp_scale, row->disp_label);
		ret |= table_cell(&t, sb.data);
		sb.len = 0;
		rp_text_display(&sb, row->current, row->disp_scale, row->disp_label);
		ret |= table_cell(&t, sb.data);
		sb.len = 0;
		pct_text(&sb, row->change_pct);
		ret |= table_cell(&t, sb.data);
		sb.len = 0;
		rp_text_display(&sb, row->allowance, row->disp_scale, row->disp_label);
		ret |= table_cell(&t, sb.data);
		snprintf(buf, sizeof(buf), "%zu", row->n_baseline);
		ret |= table_cell(&t, buf);
		snprintf(buf, sizeof(buf), "%zu", row->n_current);
		ret |= table_cell(&t, buf);
		sb.len = 0;
		p_text(&sb, row->p_value);
		ret |= table_cell(&t, sb.data);
		sb.len = 0;
		upper(&sb, rp_verdict_words(row->verdict));
		ret |= table_cell(&t, sb.data);
		if (sb.oom)
			ret = -1;
	}
	if (!ret) {
		table_render(&t, out, right);
		needs_text(out, c);
		snprintf(buf, sizeof(buf), "\n%zu rows:", c->n);
		strbuf_adds(out, buf);
		for (k = 0; k < 8; k++) {
			if (!counts[k])
				continue;
			snprintf(buf, sizeof(buf), " %zu %s", counts[k], rp_verdict_words(kinds[k]));
			strbuf_adds(out, buf);
		}
		strbuf_adds(out, c->failing ? "\nRESULT: REGRESSION\n" :
					      "\nRESULT: OK\n");
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
	size_t i;
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
		needs_json(sb, row);
		snprintf(buf, sizeof(buf),
			 ",\"n_baseline\":%zu,\"n_current\":%zu,\"baseline_runs\":%zu,\"verdict\":\"%s\",\"fails\":%s}",
			 row->n_baseline, row->n_current, row->baseline_runs,
			 row->verdict, row->fails ? "true" : "false");
		strbuf_adds(sb, buf);
	}
	snprintf(buf, sizeof(buf), "],\n\"failing\":%zu,\"result\":\"%s\"}\n",
		 c->failing, c->failing ? "regression" : "ok");
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
	switch (fmt) {
	case KSFT_METRIC_REPORT_TEXT:
		ret = format_text(c, &sb);
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
 * What a series the history gate cannot judge would need (issue 22): its
 * run-to-run noise, the smallest change this run could have shown, and
 * the runs (or repeats in one run) a change of the policy's tolerance
 * takes to show. Text: one line per such series after the table.
 */
static int has_needs(const struct cmp_row *row)
{
	return !strcmp(row->verdict, "noise") && (isfinite(row->noise_pct) ||
						 isfinite(row->need_runs));
}

static void needs_count(struct strbuf *sb, double v, const char *what)
{
	char buf[64];

	if (isfinite(v))
		snprintf(buf, sizeof(buf), "%.0f %s", v, what);
	else
		snprintf(buf, sizeof(buf), "no number of %s", what);
	strbuf_adds(sb, buf);
}

static void needs_text(struct strbuf *out, const struct ksft_metric_report_comparison *c)
{
	struct strbuf title = STRBUF_INIT;
	char buf[160];
	size_t i;

	for (i = 0; i < c->n; i++) {
		const struct cmp_row *row = &c->rows[i];

		if (!has_needs(row))
			continue;
		title.len = 0;
		rp_series_title(&title, row->path, row->path_len, row->case_name, row->name,
				row->labels, row->element);
		strbuf_adds(out, "TOO NOISY: ");
		strbuf_adds(out, title.data ? title.data : "");
		if (!isfinite(row->noise_pct)) {
			snprintf(buf, sizeof(buf), ": the history is too short, %.0f more runs\n",
				 row->need_runs);
			strbuf_adds(out, buf);
			continue;
		}
		snprintf(buf, sizeof(buf), ": noise %.1f%% a run, this run could show %.1f%%;"
			 " a lasting change of the tolerance needs ", row->noise_pct,
			 row->smallest_pct);
		strbuf_adds(out, buf);
		needs_count(out, row->need_runs, "runs");
		strbuf_adds(out, ", or one run of ");
		needs_count(out, row->need_repeats, "repeats");
		strbuf_addc(out, '\n');
	}
	strbuf_free(&title);
}

static void needs_json(struct strbuf *sb, const struct cmp_row *row)
{
	if (!has_needs(row))
		return;
	strbuf_adds(sb, ",\"needs\":{\"noise_pct\":");
	rp_json_double(sb, row->noise_pct);
	json_num_field(sb, "smallest_change_pct", row->smallest_pct);
	json_num_field(sb, "runs", row->need_runs);
	json_num_field(sb, "repeats", row->need_repeats);
	strbuf_addc(sb, '}');
}
