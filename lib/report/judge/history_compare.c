/*
 * compare --db (report.h): a run judged against the history without
 * storing it. The run's context and comparability key and its window set
 * are read from the store, then judged (history_gate.c); the store never
 * calls back.
 */
#include <errno.h>
#include <jansson.h>
#include <ksftmetric/report.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "comparison.h"
#include "errmsg.h"
#include "history.h"
#include "history_judge.h"
#include "history_content_key.h"
#include "history_context.h"
#include "opts_size.h"
#include "pipeline.h"
#include "report.h"
#include "verdict_vocab.h"

int history_compare_check_fdr(double fdr)
{
	return isnan(fdr) || fdr < 0 || fdr >= 1
		       ? ksftm_fail(EINVAL, "the false-alarm rate must be within [0, 1)")
		       : 0;
}

static const char *const worst_first[] = {
	KSFTM_VERDICT_REGRESSION, KSFTM_VERDICT_CASE_FAILED, KSFTM_VERDICT_DISTURBED,
	KSFTM_VERDICT_TOO_NOISY,
	KSFTM_VERDICT_IMPROVEMENT, KSFTM_VERDICT_NOT_COMPARABLE, KSFTM_VERDICT_NEW,
	KSFTM_VERDICT_UNTRACKED, KSFTM_VERDICT_NO_CHANGE,
};
#define N_VERDICTS (sizeof(worst_first) / sizeof(worst_first[0]))

/*
 * Each series' verdict from the comparison's rows (the worst of an array's
 * elements), as names: one pass over the rows, not one per series (pipeline_work
 * counts the rows visited). NULL: out of memory.
 */
const char **history_compare_verdicts(const struct ksft_metric_report_comparison *c, size_t n)
{
	unsigned char *best = malloc(n ? n : 1);
	const char **names = malloc((n ? n : 1) * sizeof(*names));
	size_t k, j;

	if (!best || !names) {
		free(best);
		free(names);
		return NULL;
	}
	memset(best, N_VERDICTS - 1, n);
	for (k = 0; k < c->n; k++) {
		struct cmp_row tmp;
		const struct cmp_row *row = cmp_row_at(c, k, &tmp);
		long i = row->series;

		pipeline_work++;
		if (i < 0 || (size_t)i >= n)
			continue;	/* a missing series: not in this run */
		for (j = 0; j < best[i]; j++)
			if (!strcmp(row->verdict, worst_first[j]))
				best[i] = (unsigned char)j;
	}
	for (k = 0; k < n; k++)
		names[k] = worst_first[best[k]];
	free(best);
	return names;
}

int history_compare_run(struct db *db, const struct ksft_metric_report *r,
			const struct hgate_opts *o, const struct history_key *keys,
			struct ksft_metric_report_comparison **out)
{
	struct history_window_set set;
	int ret;

	*out = NULL;
	if ((ret = history_window_read(db, r, o, keys, &set)))
		return ret;
	ret = history_gate_judge(r, o, keys, &set, out);
	history_window_set_free(&set);
	return ret;
}

int history_compare_lookup(struct db *db, const struct ksft_metric_report *r,
			  const struct hgate_opts *o, struct ksft_metric_report_comparison **out)
{
	struct history_key *keys = NULL;
	size_t i, n = ksft_metric_report_series_count(r);
	int ret = history_window_lookup_keys(db, r, &keys);

	*out = NULL;
	if (!ret)
		ret = history_compare_run(db, r, o, keys, out);
	for (i = 0; i < n && keys; i++)
		free((char *)keys[i].path);
	free(keys);
	return ret;
}

KSFT_METRIC_REPORT_API int
ksft_metric_report_history_compare(struct ksft_metric_report_history *kh,
				   const struct ksft_metric_report *cur,
				   const struct ksft_metric_report_gate_opts *opts,
				   struct ksft_metric_report_comparison **out)
{
	struct ksft_metric_report_gate_opts o = KSFT_METRIC_REPORT_GATE_OPTS_INIT;
	struct history_run run = { 0 };
	struct history *h;
	struct hgate_opts g;
	char *keys = NULL, *cmp = NULL, *order = NULL, *text = NULL, *sort = NULL;
	char content[HISTORY_CONTENT_KEY_LEN + 1];
	json_t *ctx = NULL;
	int ret;

	if (!kh || !cur || !out)
		return ksftm_fail(EINVAL, "ksft_metric_report_history_compare: NULL argument");
	*out = NULL;
	h = history_of(kh);
	if ((ret = ksftm_opts_take(&o, sizeof(o), opts, "ksft_metric_report_gate_opts")) ||
	    (ret = history_compare_check_fdr(o.fdr)))
		return ret;
	run.context = o.context;
	run.n_context = o.n_context;
	if ((ret = history_readable(h)) || (ret = history_run_context(cur, &run, &ctx)) ||
	    (ret = history_comparable_keys(h, &keys)))
		goto out;
	cmp = history_comparable(ctx, keys);
	if (!cmp) {
		ret = ksftm_oom();
		goto out;
	}
	/* The run's content key, as ingest keys it: stored already, it is
	 * judged against the runs before it, never against itself (issue 40:
	 * report -f kcidb --db after ingest); at an order, against the runs
	 * before it as ingest would order it (ISO date-times in UTC, ties
	 * broken by its content key). */
	text = json_dumps(ctx, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII |
			       JSON_ENCODE_ANY | JSON_REAL_PRECISION(17));
	if (!text) {
		ret = ksftm_oom();
		goto out;
	}
	if ((ret = history_content_key_of(cur, text, content)) ||
	    (o.order && (ret = run_order_normalise("order", o.order, &order))) ||
	    (ret = history_stored_order(history_db(h), content, cmp, &sort)))
		goto out;
	/* Stored: at its own place, whatever --order says (its id may sort
	 * before the content key at that order, which would let it in). */
	if (!sort && order && !(sort = run_order_key(order, content))) {
		ret = ksftm_oom();
		goto out;
	}
	g = (struct hgate_opts){ .comparable = cmp, .order = sort,
				 .incomparable = history_context_incomparable(ctx),
				 .window = o.window, .fdr = o.fdr,
				 .allow_missing = o.allow_missing };
	ret = history_compare_lookup(history_db(h), cur, &g, out);
out:
	json_decref(ctx);
	free(keys);
	free(cmp);
	free(order);
	free(text);
	free(sort);
	return ret;
}
