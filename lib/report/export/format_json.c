/*
 * report --format json: one object per series (identity, status, points,
 * policy, the summaries its policy asks for, the display unit), the run
 * context and the warnings.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <ksftmetric/report.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon.h"
#include "errmsg.h"
#include "report.h"
#include "rp_export.h"
#include "rp_policy.h"
#include "series.h"
#include "sink.h"
#include "strbuf.h"
#include "units.h"
#include "vals.h"
#include "warn.h"

static void json_series(struct strbuf *sb, const struct rp_series *s,
			const struct export_sums *row)
{
	struct rp_display d;
	char buf[32];

	strbuf_addc(sb, '{');
	canon_emit_identity(sb, series_path(s), series_path_len(s), series_case_name(s),
			    series_name(s), series_labels(s));
	strbuf_adds(sb, ",\"shape\":");
	canon_json_str(sb, series_shape(s));
	strbuf_adds(sb, ",\"status\":\"");
	strbuf_adds(sb, canon_status_name(s->status));
	strbuf_addc(sb, '"');
	if (series_reason(s)) {
		strbuf_adds(sb, ",\"reason\":");
		canon_json_str(sb, series_reason(s));
	}
	if (series_abort(s)) {
		strbuf_adds(sb, ",\"abort\":");
		canon_json_str(sb, series_abort(s));
	}
	strbuf_adds(sb, ",\"source\":\"");
	strbuf_adds(sb, canon_source_name(s->source));
	snprintf(buf, sizeof(buf), "\",\"points\":%zu", series_n_points(s));
	strbuf_adds(sb, buf);
	snprintf(buf, sizeof(buf), ",\"processed\":%zu", row->pv.n);
	strbuf_adds(sb, buf);
	strbuf_adds(sb, ",\"policy\":");
	strbuf_adds(sb, series_own_policy(s) ? series_own_policy(s)->json : "null");
	strbuf_adds(sb, ",\"summarize\":\"");
	strbuf_adds(sb, canon_op_name(row->p->summarize));
	strbuf_adds(sb, "\",\"summary\":");
	export_sums_json_all(sb, row);
	/* The display unit every output shows: summaries times scale. */
	units_display_of(row->p, &d);
	strbuf_addc(sb, ',');
	units_display_json(sb, &d);
	strbuf_addc(sb, '}');
}

int format_json_write(const struct ksft_metric_report *r, struct strbuf *sb,
		      struct export_sink *ks)
{
	const struct ksft_metric_report_warning *w = r->warn.v;
	size_t i;
	char buf[64];

	strbuf_addc(sb, '{');
	if (r->context_json) {	/* only when the logs had a context line */
		strbuf_adds(sb, "\"context\":");
		strbuf_adds(sb, r->context_json);
		strbuf_adds(sb, ",\n");
	}
	strbuf_adds(sb, "\"series\":[");
	for (i = 0; i < r->n_series; i++) {
		struct export_sums row;

		if (export_sums_init(&row, r->series[i]))
			return -ENOMEM;
		strbuf_adds(sb, i ? ",\n" : "\n");
		json_series(sb, r->series[i], &row);
		export_sums_free(&row);
		export_sink_flush(ks, sb, 0);
	}
	strbuf_adds(sb, "],\n\"warnings\":[");
	for (i = 0; i < r->warn.n; i++) {
		strbuf_adds(sb, i ? ",\n{\"file\":" : "\n{\"file\":");
		canon_json_str(sb, w[i].file);
		snprintf(buf, sizeof(buf), ",\"line\":%lu,\"reason\":", w[i].line);
		strbuf_adds(sb, buf);
		canon_json_str(sb, w[i].reason);
		strbuf_addc(sb, '}');
	}
	snprintf(buf, sizeof(buf), "],\n\"warnings_total\":%zu}\n", r->warn.total);
	strbuf_adds(sb, buf);
	return sb->oom ? -ENOMEM : 0;
}
