/*
 * The two public format calls: ksft_metric_report_format() (the plain
 * formats: text, JSON, CSV, OpenMetrics) and ksft_metric_report_format_ext()
 * (options, the KCIDB and NIPA writers, --name-style). Only this file
 * picks a writer (format_*.c, one per format), so the writers never call
 * back into each other.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ksftmetric/report.h>
#include <stdlib.h>

#include "errmsg.h"
#include "opts_size.h"
#include "report.h"
#include "rp_export.h"
#include "strbuf.h"

/*
 * The four plain formats into sb: 0, -EINVAL (unknown format, message set)
 * or -ENOMEM.
 */
static int format_plain(const struct ksft_metric_report *r, int fmt, struct strbuf *sb)
{
	int ret;

	/* Only the text takes the width and verbosity flags. */
	if ((fmt & ~(KSFT_METRIC_REPORT_TEXT_NARROW | KSFT_METRIC_REPORT_TEXT_VERBOSE)) ==
	    KSFT_METRIC_REPORT_TEXT)
		return format_text_write(r, fmt, sb);
	switch (fmt) {
	case KSFT_METRIC_REPORT_JSON:
		ret = format_json_write(r, sb);
		break;
	case KSFT_METRIC_REPORT_CSV:
		ret = format_csv_write(r, sb);
		break;
	case KSFT_METRIC_REPORT_OPENMETRICS:
		ret = format_openmetrics_write(r, sb);
		break;
	default:
		return ksftm_fail(EINVAL, "unknown report format %d", fmt);
	}
	return ret || sb->oom ? -ENOMEM : 0;
}

KSFT_METRIC_REPORT_API int ksft_metric_report_format(const struct ksft_metric_report *r,
					      int fmt, char **out, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	if (!r || !out)
		return ksftm_fail(EINVAL, "ksft_metric_report_format: NULL argument");
	if (fmt == KSFT_METRIC_REPORT_KCIDB || fmt == KSFT_METRIC_REPORT_NIPA)
		return ksft_metric_report_format_ext(r, fmt, NULL, out, len);
	ret = format_plain(r, fmt, &sb);
	if (ret) {
		strbuf_free(&sb);
		return ret == -EINVAL ? ret : ksftm_oom();
	}
	*out = strbuf_detach(&sb, len);
	return *out ? 0 : ksftm_oom();
}

KSFT_METRIC_REPORT_API int
ksft_metric_report_format_ext(const struct ksft_metric_report *r, int fmt,
			      const struct ksft_metric_report_format_opts *opts,
			      char **out, size_t *len)
{
	struct ksft_metric_report_format_opts o = KSFT_METRIC_REPORT_FORMAT_OPTS_INIT;
	struct strbuf sb = STRBUF_INIT;
	struct export_view view;
	int ret, viewed = 0;

	if (!r || !out)
		return ksftm_fail(EINVAL, "ksft_metric_report_format_ext: NULL argument");
	ret = ksftm_opts_take(&o, sizeof(o), opts, "ksft_metric_report_format_opts");
	if (ret)
		return ret;
	if (o.name_style != KSFT_METRIC_REPORT_NAMES_KTAP &&
	    o.name_style != KSFT_METRIC_REPORT_NAMES_NIPA)
		return ksftm_fail(EINVAL, "ksft_metric_report_format_opts.name_style %d is unknown",
				  o.name_style);
	if (o.n_context && !o.context)
		return ksftm_fail(EINVAL, "ksft_metric_report_format_opts.context is NULL with n_context %zu",
				  o.n_context);
	/* NIPA's own writer names every result NIPA's way already. */
	if (o.name_style == KSFT_METRIC_REPORT_NAMES_NIPA &&
	    fmt != KSFT_METRIC_REPORT_NIPA) {
		if (export_view_nipa(r, &view))
			return ksftm_oom();
		r = &view.rep;
		viewed = 1;
	}
	switch (fmt) {
	case KSFT_METRIC_REPORT_KCIDB:
		ret = format_kcidb_write(r, &o, &sb);
		break;
	case KSFT_METRIC_REPORT_NIPA:
		ret = format_nipa_write(r, &o, &sb);
		break;
	default:
		strbuf_free(&sb);
		ret = ksft_metric_report_format(r, fmt, out, len);
		if (viewed)
			export_view_free(&view);
		return ret;
	}
	if (viewed)
		export_view_free(&view);
	if (ret || sb.oom) {
		strbuf_free(&sb);
		/* The writer set the message of its own errors. */
		return ret && ret != -ENOMEM ? ret : ksftm_oom();
	}
	*out = strbuf_detach(&sb, len);
	return *out ? 0 : ksftm_oom();
}
