/*
 * ksft-metric report output: one row per series with the summary its
 * policy asks for, as a text table, JSON, CSV or OpenMetrics text.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "rp_baseline.h"
#include "rp_table.h"

/* The summaries shown for a series, in display order. */
static size_t summary_ops(const struct rp_policy *p, size_t processed, int *ops)
{
	if (p->summarize != RP_OP_DISTRIBUTION) {
		ops[0] = p->summarize;
		return 1;
	}
	if (processed == 1) {
		ops[0] = RP_OP_LAST;
		return 1;
	}
	ops[0] = RP_OP_P50;
	ops[1] = RP_OP_P90;
	ops[2] = RP_OP_P99;
	ops[3] = RP_OP_MAX;
	return 4;
}

/* Everything one series row needs. */
struct srow {
	const struct rp_series *s;
	const struct rp_policy *p;
	struct rp_policy scratch;
	struct rp_vals pv;
	size_t width;		/* 0 for scalars */
	int ops[4];
	size_t nops;
	struct rp_summary *sums;	/* one per element (one for scalars) */
};

static void srow_free(struct srow *row)
{
	rp_vals_free(&row->pv);
	free(row->sums);
}

static int srow_init(struct srow *row, const struct rp_series *s)
{
	size_t e, n;

	memset(row, 0, sizeof(*row));
	row->s = s;
	row->p = rp_series_policy(s, &row->scratch);
	if (rp_process(&s->raw, row->p, KSFT_METRIC_REPORT_PROCESSED, &row->pv))
		return -ENOMEM;
	row->width = rp_vals_is_array(&row->pv) ? row->pv.width : 0;
	row->nops = summary_ops(row->p, row->pv.n, row->ops);
	n = row->width ? row->width : 1;
	row->sums = calloc(n, sizeof(*row->sums));
	if (!row->sums)
		goto oom;
	for (e = 0; e < n; e++)
		if (rp_summarize(&row->pv, e, &row->sums[e]))
			goto oom;
	return 0;
oom:
	srow_free(row);
	return -ENOMEM;
}

/* ---- text ----------------------------------------------------------- */

static void text_summary(struct strbuf *sb, const struct srow *row)
{
	size_t e, k, n = row->width ? row->width : 1;
	char buf[32];

	if (!row->pv.n) {
		strbuf_adds(sb, "-");
		return;
	}
	for (e = 0; e < n; e++) {
		if (e)
			strbuf_addc(sb, ' ');
		if (row->width) {
			snprintf(buf, sizeof(buf), "[%zu] ", e);
			strbuf_adds(sb, buf);
		}
		if (!row->sums[e].n) {
			strbuf_adds(sb, "-");
			continue;
		}
		for (k = 0; k < row->nops; k++) {
			if (k)
				strbuf_addc(sb, ' ');
			strbuf_adds(sb, rp_op_name(row->ops[k]));
			strbuf_addc(sb, '=');
			rp_text_number(sb, rp_summary_op(&row->sums[e], row->ops[k]));
		}
	}
}

static void case_text(struct strbuf *sb, const struct rp_series *s)
{
	size_t i;

	for (i = 0; i < s->path_len; i++) {
		strbuf_adds(sb, s->path[i]);
		strbuf_adds(sb, " / ");
	}
	strbuf_adds(sb, s->case_name);
}

static int format_text(const struct ksft_metric_report *r, struct strbuf *out)
{
	static const char *const head[] = {
		"CASE", "METRIC", "LABELS", "STATUS", "POINTS", "SUMMARY",
	};
	static const int right[] = { 0, 0, 0, 0, 1, 0 };
	struct strbuf sb = STRBUF_INIT;
	struct table t;
	size_t i, k;
	char buf[32];
	int ret = 0;

	if (table_init(&t, 6))
		return -ENOMEM;
	for (k = 0; k < 6; k++)
		ret |= table_cell(&t, head[k]);
	for (i = 0; !ret && i < r->n_series; i++) {
		const struct rp_series *s = r->series[i];
		struct srow row;

		if (srow_init(&row, s)) {
			ret = -1;
			break;
		}
		sb.len = 0;
		case_text(&sb, s);
		ret |= table_cell(&t, sb.data);
		ret |= table_cell(&t, s->name);
		sb.len = 0;
		rp_labels_text(&sb, s->labels);
		ret |= table_cell(&t, sb.len ? sb.data : "-");
		ret |= table_cell(&t, rp_status_name(s->status));
		snprintf(buf, sizeof(buf), "%zu", s->raw.n);
		ret |= table_cell(&t, buf);
		sb.len = 0;
		text_summary(&sb, &row);
		ret |= table_cell(&t, sb.data);
		srow_free(&row);
		if (sb.oom)
			ret = -1;
	}
	if (!ret)
		table_render(&t, out, right);
	table_free(&t);
	strbuf_free(&sb);
	return ret ? -ENOMEM : 0;
}

/* ---- JSON ----------------------------------------------------------- */

static void json_summary_obj(struct strbuf *sb, const struct srow *row,
			     const struct rp_summary *sum)
{
	size_t k;

	if (!sum->n) {
		strbuf_adds(sb, "null");
		return;
	}
	strbuf_addc(sb, '{');
	for (k = 0; k < row->nops; k++) {
		if (k)
			strbuf_addc(sb, ',');
		strbuf_addc(sb, '"');
		strbuf_adds(sb, rp_op_name(row->ops[k]));
		strbuf_adds(sb, "\":");
		rp_json_double(sb, rp_summary_op(sum, row->ops[k]));
	}
	strbuf_addc(sb, '}');
}

static void json_series(struct strbuf *sb, const struct srow *row)
{
	const struct rp_series *s = row->s;
	size_t e;
	char buf[32];

	strbuf_addc(sb, '{');
	rp_emit_identity(sb, s->path, s->path_len, s->case_name, s->name,
			 s->labels);
	strbuf_adds(sb, ",\"shape\":");
	rp_json_str(sb, s->shape);
	strbuf_adds(sb, ",\"status\":\"");
	strbuf_adds(sb, rp_status_name(s->status));
	strbuf_addc(sb, '"');
	if (s->reason) {
		strbuf_adds(sb, ",\"reason\":");
		rp_json_str(sb, s->reason);
	}
	if (s->abort) {
		strbuf_adds(sb, ",\"abort\":");
		rp_json_str(sb, s->abort);
	}
	strbuf_adds(sb, ",\"source\":\"");
	strbuf_adds(sb, rp_source_name(s->source));
	snprintf(buf, sizeof(buf), "\",\"points\":%zu", s->raw.n);
	strbuf_adds(sb, buf);
	snprintf(buf, sizeof(buf), ",\"processed\":%zu", row->pv.n);
	strbuf_adds(sb, buf);
	strbuf_adds(sb, ",\"policy\":");
	strbuf_adds(sb, s->has_policy ? s->policy.json : "null");
	strbuf_adds(sb, ",\"summarize\":\"");
	strbuf_adds(sb, rp_op_name(row->p->summarize));
	strbuf_adds(sb, "\",\"summary\":");
	if (!row->pv.n) {
		strbuf_adds(sb, "null");
	} else if (!row->width) {
		json_summary_obj(sb, row, &row->sums[0]);
	} else {
		strbuf_addc(sb, '[');
		for (e = 0; e < row->width; e++) {
			if (e)
				strbuf_addc(sb, ',');
			json_summary_obj(sb, row, &row->sums[e]);
		}
		strbuf_addc(sb, ']');
	}
	strbuf_addc(sb, '}');
}

static int format_json(const struct ksft_metric_report *r, struct strbuf *sb)
{
	const struct ksft_metric_report_warning *w = r->warn.v;
	size_t i;
	char buf[64];

	strbuf_adds(sb, "{\"series\":[");
	for (i = 0; i < r->n_series; i++) {
		struct srow row;

		if (srow_init(&row, r->series[i]))
			return -ENOMEM;
		strbuf_adds(sb, i ? ",\n" : "\n");
		json_series(sb, &row);
		srow_free(&row);
	}
	strbuf_adds(sb, "],\n\"warnings\":[");
	for (i = 0; i < r->warn.n; i++) {
		strbuf_adds(sb, i ? ",\n{\"file\":" : "\n{\"file\":");
		rp_json_str(sb, w[i].file);
		snprintf(buf, sizeof(buf), ",\"line\":%lu,\"reason\":", w[i].line);
		strbuf_adds(sb, buf);
		rp_json_str(sb, w[i].reason);
		strbuf_addc(sb, '}');
	}
	snprintf(buf, sizeof(buf), "],\n\"warnings_total\":%zu}\n", r->warn.total);
	strbuf_adds(sb, buf);
	return sb->oom ? -ENOMEM : 0;
}

/* ---- CSV ------------------------------------------------------------ */

static const int csv_ops[] = {
	RP_OP_LAST, RP_OP_TOTAL, RP_OP_MAX, RP_OP_P50, RP_OP_P90, RP_OP_P99,
};
#define N_CSV_OPS (sizeof(csv_ops) / sizeof(csv_ops[0]))

static void path_json(struct strbuf *sb, char *const *path, size_t n)
{
	size_t i;

	strbuf_addc(sb, '[');
	for (i = 0; i < n; i++) {
		if (i)
			strbuf_addc(sb, ',');
		rp_json_str(sb, path[i]);
	}
	strbuf_addc(sb, ']');
}

static int format_csv(const struct ksft_metric_report *r, struct strbuf *sb)
{
	struct strbuf tmp = STRBUF_INIT;
	size_t i, e, k, j;
	char buf[32];

	strbuf_adds(sb, "case,path,name,labels,status,points,element,last,total,max,p50,p90,p99\r\n");
	for (i = 0; i < r->n_series; i++) {
		const struct rp_series *s = r->series[i];
		struct srow row;
		size_t n;

		if (srow_init(&row, s)) {
			strbuf_free(&tmp);
			return -ENOMEM;
		}
		n = row.width ? row.width : 1;
		for (e = 0; e < n; e++) {
			csv_field(sb, s->case_name);
			strbuf_addc(sb, ',');
			tmp.len = 0;
			path_json(&tmp, s->path, s->path_len);
			csv_field(sb, tmp.data ? tmp.data : "[]");
			strbuf_addc(sb, ',');
			csv_field(sb, s->name);
			strbuf_addc(sb, ',');
			csv_field(sb, s->labels);
			snprintf(buf, sizeof(buf), ",%s,%zu,", rp_status_name(s->status),
				 s->raw.n);
			strbuf_adds(sb, buf);
			if (row.width) {
				snprintf(buf, sizeof(buf), "%zu", e);
				strbuf_adds(sb, buf);
			}
			for (k = 0; k < N_CSV_OPS; k++) {
				int shown = 0;

				for (j = 0; j < row.nops; j++)
					shown |= row.ops[j] == csv_ops[k];
				strbuf_addc(sb, ',');
				if (shown && row.sums[e].n)
					rp_json_double(sb, rp_summary_op(&row.sums[e], csv_ops[k]));
			}
			strbuf_adds(sb, "\r\n");
		}
		srow_free(&row);
	}
	strbuf_free(&tmp);
	return sb->oom ? -ENOMEM : 0;
}

/* ---- OpenMetrics ---------------------------------------------------- */

static void om_name(struct strbuf *sb, const char *s, int metric)
{
	const char *p;

	if (!metric && *s >= '0' && *s <= '9')
		strbuf_addc(sb, '_');	/* families have our prefix already */
	for (p = s; *p; p++) {
		char c = *p;
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '_' || (metric && c == ':');

		strbuf_addc(sb, ok ? c : '_');
	}
}

static void om_value(struct strbuf *sb, const char *s)
{
	strbuf_addc(sb, '"');
	for (; *s; s++) {
		if (*s == '\\')
			strbuf_adds(sb, "\\\\");
		else if (*s == '"')
			strbuf_adds(sb, "\\\"");
		else if (*s == '\n')
			strbuf_adds(sb, "\\n");
		else
			strbuf_addc(sb, *s);
	}
	strbuf_addc(sb, '"');
}

static const char *const om_reserved[] = {
	"case", "path", "metric", "summary", "element",
};

static int om_labels(struct strbuf *sb, const struct rp_series *s)
{
	json_t *j = json_loads(s->labels, 0, NULL), *v;
	struct strbuf name = STRBUF_INIT, val = STRBUF_INIT;
	const char *k;
	size_t i;

	if (!j)
		return 0;
	json_object_foreach(j, k, v) {
		name.len = 0;
		om_name(&name, k, 0);
		for (i = 0; i < sizeof(om_reserved) / sizeof(om_reserved[0]); i++)
			if (name.data && !strcmp(name.data, om_reserved[i]))
				break;
		if ((name.data && !strncmp(name.data, "__", 2)) ||
		    i < sizeof(om_reserved) / sizeof(om_reserved[0])) {
			struct strbuf renamed = STRBUF_INIT;

			strbuf_adds(&renamed, "label_");
			strbuf_adds(&renamed, name.data);
			strbuf_free(&name);
			name = renamed;
		}
		val.len = 0;
		if (json_is_string(v))
			strbuf_adds(&val, json_string_value(v));
		else
			rp_json_emit(&val, v);
		strbuf_addc(sb, ',');
		strbuf_adds(sb, name.data ? name.data : "_");
		strbuf_addc(sb, '=');
		om_value(sb, val.data ? val.data : "");
	}
	json_decref(j);
	strbuf_free(&name);
	strbuf_free(&val);
	return 0;
}

static void om_sample(struct strbuf *sb, const char *family,
		      const struct rp_series *s, const char *summary,
		      long elem, double v)
{
	struct strbuf path = STRBUF_INIT;
	size_t i;
	char buf[32];

	strbuf_adds(sb, family);
	strbuf_adds(sb, "{case=");
	om_value(sb, s->case_name);
	for (i = 0; i < s->path_len; i++) {
		if (i)
			strbuf_adds(&path, " / ");
		strbuf_adds(&path, s->path[i]);
	}
	strbuf_adds(sb, ",path=");
	om_value(sb, path.data ? path.data : "");
	strbuf_free(&path);
	strbuf_adds(sb, ",metric=");
	om_value(sb, s->name);
	om_labels(sb, s);
	strbuf_adds(sb, ",summary=\"");
	strbuf_adds(sb, summary);
	strbuf_addc(sb, '"');
	if (elem >= 0) {
		snprintf(buf, sizeof(buf), ",element=\"%ld\"", elem);
		strbuf_adds(sb, buf);
	}
	strbuf_adds(sb, "} ");
	rp_json_double(sb, v);
	strbuf_addc(sb, '\n');
}

static int format_openmetrics(const struct ksft_metric_report *r,
			      struct strbuf *sb)
{
	char **family = calloc(r->n_series + 1, sizeof(char *));
	char *done = calloc(r->n_series + 1, 1);
	size_t i, j, e, k;
	int ret = 0;

	if (!family || !done) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < r->n_series; i++) {
		struct strbuf f = STRBUF_INIT;

		strbuf_adds(&f, "ksft_metric_");
		om_name(&f, r->series[i]->name, 1);
		family[i] = strbuf_detach(&f, NULL);
		if (!family[i]) {
			ret = -ENOMEM;
			goto out;
		}
	}
	/* Samples of one family must be contiguous: group by family. */
	for (i = 0; i < r->n_series; i++) {
		if (done[i])
			continue;
		strbuf_adds(sb, "# TYPE ");
		strbuf_adds(sb, family[i]);
		strbuf_adds(sb, " gauge\n");
		for (j = i; j < r->n_series; j++) {
			struct srow row;
			size_t n;

			if (done[j] || strcmp(family[i], family[j]))
				continue;
			done[j] = 1;
			if (srow_init(&row, r->series[j])) {
				ret = -ENOMEM;
				goto out;
			}
			n = row.width ? row.width : 1;
			for (e = 0; e < n; e++) {
				if (!row.sums[e].n)
					continue;
				for (k = 0; k < row.nops; k++)
					om_sample(sb, family[i], r->series[j],
						  rp_op_name(row.ops[k]),
						  row.width ? (long)e : -1,
						  rp_summary_op(&row.sums[e], row.ops[k]));
			}
			srow_free(&row);
		}
	}
	strbuf_adds(sb, "# EOF\n");
out:
	for (i = 0; family && i < r->n_series; i++)
		free(family[i]);
	free(family);
	free(done);
	return ret ? ret : sb->oom ? -ENOMEM : 0;
}

KSFT_METRIC_API int ksft_metric_report_format(const struct ksft_metric_report *r,
					      int fmt, char **out, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	if (!r || !out)
		return ksftm_fail(EINVAL, "ksft_metric_report_format: NULL argument");
	switch (fmt) {
	case KSFT_METRIC_REPORT_TEXT:
		ret = format_text(r, &sb);
		break;
	case KSFT_METRIC_REPORT_JSON:
		ret = format_json(r, &sb);
		break;
	case KSFT_METRIC_REPORT_CSV:
		ret = format_csv(r, &sb);
		break;
	case KSFT_METRIC_REPORT_OPENMETRICS:
		ret = format_openmetrics(r, &sb);
		break;
	default:
		return ksftm_fail(EINVAL, "unknown report format %d", fmt);
	}
	if (ret || sb.oom) {
		strbuf_free(&sb);
		return ksftm_fail(ENOMEM, "out of memory");
	}
	*out = strbuf_detach(&sb, len);
	return *out ? 0 : ksftm_fail(ENOMEM, "out of memory");
}
