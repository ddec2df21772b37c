/*
 * The public format calls: ksft_metric_report_format() (the plain
 * formats: text, JSON, CSV, OpenMetrics), ksft_metric_report_format_ext()
 * (options, the KCIDB and NIPA writers, --name-style) and
 * ksft_metric_report_write() (either, to a FILE * as it is made). Only
 * this file picks a writer (format_*.c, one per format), so the writers
 * never call back into each other.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ksftmetric/report.h>
#include <stdlib.h>

#include "errmsg.h"
#include "opts_size.h"
#include "report.h"
#include "rp_export.h"
#include "sink.h"
#include "strbuf.h"

/*
 * The four plain formats into sb: 0, -EINVAL (unknown format, message set)
 * or -ENOMEM. Text, JSON and CSV go to @k as they are made.
 */
static int format_plain(const struct ksft_metric_report *r, int fmt, struct strbuf *sb,
			struct export_sink *k)
{
	int ret;

	/* Only the text takes the width and verbosity flags. */
	if ((fmt & ~(KSFT_METRIC_REPORT_TEXT_NARROW | KSFT_METRIC_REPORT_TEXT_VERBOSE)) ==
	    KSFT_METRIC_REPORT_TEXT)
		return format_text_write(r, fmt, sb, k);
	switch (fmt) {
	case KSFT_METRIC_REPORT_JSON:
		ret = format_json_write(r, sb, k);
		break;
	case KSFT_METRIC_REPORT_CSV:
		ret = format_csv_write(r, sb, k);
		break;
	case KSFT_METRIC_REPORT_OPENMETRICS:
		ret = format_openmetrics_write(r, sb);
		break;
	default:
		return ksftm_fail(EINVAL, "unknown report format %d", fmt);
	}
	return ret || sb->oom ? -ENOMEM : 0;
}

/*
 * @r in format @fmt with @opts (NULL: the defaults) into @sb, or through
 * it to @k (NULL: all of it kept in @sb): 0 or a negative errno, its
 * message set.
 */
static int format_any(const struct ksft_metric_report *r, int fmt,
		      const struct ksft_metric_report_format_opts *opts, struct strbuf *sb,
		      struct export_sink *k)
{
	struct ksft_metric_report_format_opts o = KSFT_METRIC_REPORT_FORMAT_OPTS_INIT;
	struct export_view view;
	int ret, viewed = 0;

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
		ret = format_kcidb_write(r, &o, sb);
		break;
	case KSFT_METRIC_REPORT_NIPA:
		ret = format_nipa_write(r, &o, sb);
		break;
	default:
		ret = format_plain(r, fmt, sb, k);
		if (ret == -EINVAL)
			goto out;	/* the message says which format */
	}
	/* The writer set the message of its own errors. */
	if (ret || sb->oom)
		ret = ret && ret != -ENOMEM ? ret : ksftm_oom();
out:
	if (viewed)
		export_view_free(&view);
	return ret;
}

/* The text of format_any() handed over as one string. */
static int format_string(const struct ksft_metric_report *r, int fmt,
			 const struct ksft_metric_report_format_opts *opts,
			 char **out, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = format_any(r, fmt, opts, &sb, NULL);

	if (ret) {
		strbuf_free(&sb);
		return ret;
	}
	*out = strbuf_detach(&sb, len);
	return *out ? 0 : ksftm_oom();
}

KSFT_METRIC_REPORT_API int ksft_metric_report_format(const struct ksft_metric_report *r,
					      int fmt, char **out, size_t *len)
{
	if (!r || !out)
		return ksftm_fail(EINVAL, "ksft_metric_report_format: NULL argument");
	return format_string(r, fmt, NULL, out, len);
}

KSFT_METRIC_REPORT_API int
ksft_metric_report_format_ext(const struct ksft_metric_report *r, int fmt,
			      const struct ksft_metric_report_format_opts *opts,
			      char **out, size_t *len)
{
	if (!r || !out)
		return ksftm_fail(EINVAL, "ksft_metric_report_format_ext: NULL argument");
	return format_string(r, fmt, opts, out, len);
}

KSFT_METRIC_REPORT_API int
ksft_metric_report_write(const struct ksft_metric_report *r, int fmt,
			 const struct ksft_metric_report_format_opts *opts, FILE *f)
{
	struct export_sink k = { f, 0 };
	struct strbuf sb = STRBUF_INIT;
	int ret;

	if (!r || !f)
		return ksftm_fail(EINVAL, "ksft_metric_report_write: NULL argument");
	ret = format_any(r, fmt, opts, &sb, &k);
	if (!ret)
		ret = export_sink_end(&k, &sb);
	strbuf_free(&sb);
	return ret == -ENOMEM ? ksftm_oom() : ret;
}
