/* The run history's public calls that only store (report.h) over history.h:
 * open, close, accept, pin, prune; compare and ingest judge too (judge/history_compare.c,
 * judge/history_record.c), format draws (judge/history_document.c). */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "history.h"
#include "opts_size.h"

struct ksft_metric_report_history {
	struct history *h;
};

struct history *history_of(struct ksft_metric_report_history *k)
{
	return k->h;
}

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

KSFT_METRIC_REPORT_API int
ksft_metric_report_history_prune(struct ksft_metric_report_history *h, size_t keep,
				 size_t window, unsigned flags, unsigned long long *results)
{
	unsigned long long rows;
	size_t runs;
	int ret;

	if (!h)
		return ksftm_fail(EINVAL, "ksft_metric_report_history_prune: NULL argument");
	if (flags & ~KSFT_METRIC_REPORT_PRUNE_DRY_RUN)
		return ksftm_fail(EINVAL, "ksft_metric_report_history_prune: unknown flags %#x",
				  flags);
	ret = history_prune(h->h, keep, window, !!(flags & KSFT_METRIC_REPORT_PRUNE_DRY_RUN),
			    &runs, &rows);
	if (results)
		*results = ret ? 0 : rows;
	if (ret)
		return ret;
	return runs > INT_MAX ? INT_MAX : (int)runs;
}

KSFT_METRIC_REPORT_API const char *
ksft_metric_report_history_redact(const char *url, char *buf, size_t size)
{
	return buf ? db_redact(url, buf, size) : NULL;
}
