/*
 * report --format csv: RFC 4180, one row per series (per element for
 * arrays) with the fixed summary columns its policy shows, in the
 * series' display unit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon.h"
#include "errmsg.h"
#include "pipeline.h"
#include "report.h"
#include "rp.h"
#include "rp_export.h"
#include "series.h"
#include "sink.h"
#include "strbuf.h"
#include "table.h"
#include "units.h"
#include "vals.h"

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
		canon_json_str(sb, path[i]);
	}
	strbuf_addc(sb, ']');
}

int format_csv_write(const struct ksft_metric_report *r, struct strbuf *sb,
		     struct export_sink *ks)
{
	struct strbuf tmp = STRBUF_INIT;
	struct rp_display d;
	size_t i, e, k, j;
	char buf[32];

	strbuf_adds(sb, "case,path,name,labels,status,points,element,last,total,max,p50,p90,p99,unit,scale\r\n");
	for (i = 0; i < r->n_series; i++) {
		const struct rp_series *s = r->series[i];
		struct export_sums row;
		size_t n;

		if (export_sums_init(&row, s)) {
			strbuf_free(&tmp);
			return -ENOMEM;
		}
		n = row.width ? row.width : 1;
		units_display_of(row.p, &d);
		for (e = 0; e < n; e++) {
			table_csv_field(sb, series_case_name(s));
			strbuf_addc(sb, ',');
			tmp.len = 0;
			path_json(&tmp, series_path(s), series_path_len(s));
			table_csv_field(sb, tmp.data ? tmp.data : "[]");
			strbuf_addc(sb, ',');
			table_csv_field(sb, series_name(s));
			strbuf_addc(sb, ',');
			table_csv_field(sb, series_labels(s));
			snprintf(buf, sizeof(buf), ",%s,%zu,", canon_status_name(s->status),
				 series_n_points(s));
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
					canon_json_double(sb, pipeline_summary_op(&row.sums[e], csv_ops[k]));
			}
			/* The display unit: the summaries times scale are in it. */
			strbuf_addc(sb, ',');
			if (d.unit)
				table_csv_field(sb, d.unit);
			strbuf_addc(sb, ',');
			canon_json_double(sb, d.scale);
			strbuf_adds(sb, "\r\n");
		}
		export_sums_free(&row);
		export_sink_flush(ks, sb, 0);
	}
	strbuf_free(&tmp);
	return sb->oom ? -ENOMEM : 0;
}
