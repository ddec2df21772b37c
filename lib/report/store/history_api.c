/* The run history's public calls (report.h) over history.h. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "history.h"
#include "opts_size.h"

struct ksft_metric_report_history {
	struct history *h;
};

KSFT_METRIC_REPORT_API int
ksft_metric_report_history_open(const char *url, struct ksft_metric_report_history **out)
{
	struct ksft_metric_report_history *k;
	int ret;

	if (!url || !out)
		return ksftm_fail(EINVAL, "ksft_metric_report_history_open: NULL argument");
	*out = NULL;
	k = calloc(1, sizeof(*k));
	if (!k)
		return ksftm_oom();
	ret = history_open(url, &k->h);
	if (ret) {
		free(k);
		return ret;
	}
	*out = k;
	return 0;
}

KSFT_METRIC_REPORT_API void
ksft_metric_report_history_close(struct ksft_metric_report_history *h)
{
	if (!h)
		return;
	history_close(h->h);
	free(h);
}

static int check_fdr(double fdr)
{
	return isnan(fdr) || fdr < 0 || fdr >= 1
		       ? ksftm_fail(EINVAL, "the false-alarm rate must be within [0, 1)")
		       : 0;
}

KSFT_METRIC_REPORT_API int
ksft_metric_report_history_ingest(struct ksft_metric_report_history *h,
				  const struct ksft_metric_report *r,
				  const struct ksft_metric_report_ingest_opts *opts,
				  char **run_id_out)
{
	struct ksft_metric_report_ingest_opts o = KSFT_METRIC_REPORT_INGEST_OPTS_INIT;
	struct history_run run;
	int ret;

	if (!h || !r)
		return ksftm_fail(EINVAL, "ksft_metric_report_history_ingest: NULL argument");
	if ((ret = ksftm_opts_take(&o, sizeof(o), opts, "ksft_metric_report_ingest_opts")) ||
	    (ret = check_fdr(o.fdr)))
		return ret;
	run = (struct history_run){ o.run_id, o.order, o.context, o.n_context, o.window, o.fdr };
	return history_ingest(h->h, r, &run, run_id_out);
}

KSFT_METRIC_REPORT_API int
ksft_metric_report_history_format(struct ksft_metric_report_history *h,
				  const struct ksft_metric_report_history_opts *opts,
				  int fmt, char **out, size_t *len)
{
	struct ksft_metric_report_history_opts o = KSFT_METRIC_REPORT_HISTORY_OPTS_INIT;
	int ret;

	if (!h || !out)
		return ksftm_fail(EINVAL, "ksft_metric_report_history_format: NULL argument");
	if ((ret = ksftm_opts_take(&o, sizeof(o), opts, "ksft_metric_report_history_opts")))
		return ret;
	return history_format(h->h, &o, fmt, out, len);
}

KSFT_METRIC_REPORT_API int
ksft_metric_report_history_compare(struct ksft_metric_report_history *h,
				   const struct ksft_metric_report *cur,
				   const struct ksft_metric_report_gate_opts *opts,
				   struct ksft_metric_report_comparison **out)
{
	struct ksft_metric_report_gate_opts o = KSFT_METRIC_REPORT_GATE_OPTS_INIT;
	struct history_run run = { 0 };
	struct hgate_opts g;
	char *keys = NULL, *cmp = NULL, *order = NULL, *id = NULL, *sort = NULL;
	json_t *ctx = NULL;
	int ret;

	if (!h || !cur || !out)
		return ksftm_fail(EINVAL, "ksft_metric_report_history_compare: NULL argument");
	*out = NULL;
	if ((ret = ksftm_opts_take(&o, sizeof(o), opts, "ksft_metric_report_gate_opts")) ||
	    (ret = check_fdr(o.fdr)))
		return ret;
	run.context = o.context;
	run.n_context = o.n_context;
	if ((ret = history_readable(h->h)) || (ret = history_run_context(cur, &run, &ctx)) ||
	    (ret = history_comparable_keys(h->h, &keys)))
		goto out;
	cmp = history_comparable(ctx, keys);
	if (!cmp) {
		ret = ksftm_oom();
		goto out;
	}
	/* At an order: the runs before it as ingest would order this run
	 * (ISO date-times in UTC, ties broken by its run id). */
	if (o.order) {
		char *text = json_dumps(ctx, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII |
					     JSON_ENCODE_ANY | JSON_REAL_PRECISION(17));

		if ((ret = history_order_normalise("order", o.order, &order)))
			goto out;
		id = text ? history_content_key(cur, text, order) : NULL;
		free(text);
		if (!id || !(sort = history_order_key(order, id))) {
			ret = ksftm_oom();
			goto out;
		}
	}
	g = (struct hgate_opts){ cmp, sort, history_context_incomparable(ctx), o.window,
				 o.fdr, o.allow_missing };
	ret = hgate_compare(history_db(h->h), cur, &g, out);
out:
	json_decref(ctx);
	free(keys);
	free(cmp);
	free(order);
	free(id);
	free(sort);
	return ret;
}

KSFT_METRIC_REPORT_API int
ksft_metric_report_history_accept(struct ksft_metric_report_history *h, const char *run_id,
				  const char *series)
{
	if (!h || !run_id)
		return ksftm_fail(EINVAL, "ksft_metric_report_history_accept: NULL argument");
	return history_accept(h->h, run_id, series);
}

KSFT_METRIC_REPORT_API int
ksft_metric_report_history_pin(struct ksft_metric_report_history *h, const char *run_id,
			       int pinned)
{
	if (!h || !run_id)
		return ksftm_fail(EINVAL, "ksft_metric_report_history_pin: NULL argument");
	return history_pin(h->h, run_id, pinned != 0);
}

KSFT_METRIC_REPORT_API const char *
ksft_metric_report_history_redact(const char *url, char *buf, size_t size)
{
	return buf ? db_redact(url, buf, size) : NULL;
}
