/*
 * `ksft-metric history` (report.h): the history document read by the
 * store (store/history_query.c), its change points (history_changes.c)
 * and the gate's band (history_band.c) added here, then written as JSON,
 * or drawn as text or CSV by export/history_text.c and history_csv.c.
 */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>

#include "errmsg.h"
#include "history.h"
#include "history_csv.h"
#include "history_document.h"
#include "history_judge.h"
#include "history_text.h"
#include "opts_size.h"
#include "strbuf.h"

/* The document, with the band when it is wanted (JSON: html --db, site). */
static int document(struct history *h, const struct ksft_metric_report_history_opts *o,
		    int bands, json_t **out)
{
	json_t *all = NULL;
	char *keys = NULL, *run_cmp = NULL;
	int ret = history_query_series(h, o, bands, &all, &keys, &run_cmp);

	if (!ret)
		ret = history_changes_add(all);
	if (!ret && bands)
		ret = history_band_add(h, all, o->report, run_cmp);
	if (!ret)
		ret = history_query_document(all, keys, out);
	json_decref(all);
	free(keys);
	free(run_cmp);
	return ret;
}

int history_document_format(struct history *h, const struct ksft_metric_report_history_opts *o,
			    int fmt, char **out, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *doc = NULL;
	int ret, is_text;

	if ((ret = history_query_check(h, o)))
		return ret;
	is_text = (fmt & ~(KSFT_METRIC_REPORT_TEXT_NARROW | KSFT_METRIC_REPORT_TEXT_VERBOSE)) ==
		  KSFT_METRIC_REPORT_TEXT;
	if (!is_text && fmt != KSFT_METRIC_REPORT_JSON && fmt != KSFT_METRIC_REPORT_CSV)
		return ksftm_fail(EINVAL, "history format %d is not supported", fmt);
	if ((ret = document(h, o, fmt == KSFT_METRIC_REPORT_JSON, &doc)))
		return ret;
	if (fmt == KSFT_METRIC_REPORT_JSON) {
		char *text = json_dumps(doc, JSON_INDENT(1) | JSON_REAL_PRECISION(17));

		strbuf_adds(&sb, text ? text : "");
		strbuf_addc(&sb, '\n');
		ret = text ? 0 : -ENOMEM;
		free(text);
	} else {
		ret = is_text ? history_text_render(doc, fmt, &sb) : history_csv_render(doc, &sb);
	}
	json_decref(doc);
	if (ret || sb.oom) {
		strbuf_free(&sb);
		return ksftm_oom();
	}
	*out = strbuf_detach(&sb, len);
	return *out ? 0 : ksftm_oom();
}

KSFT_METRIC_REPORT_API int
ksft_metric_report_history_format(struct ksft_metric_report_history *kh,
				  const struct ksft_metric_report_history_opts *opts,
				  int fmt, char **out, size_t *len)
{
	struct ksft_metric_report_history_opts o = KSFT_METRIC_REPORT_HISTORY_OPTS_INIT;
	int ret;

	if (!kh || !out)
		return ksftm_fail(EINVAL, "ksft_metric_report_history_format: NULL argument");
	if ((ret = ksftm_opts_take(&o, sizeof(o), opts, "ksft_metric_report_history_opts")))
		return ret;
	return history_document_format(history_of(kh), &o, fmt, out, len);
}
