/*
 * ingest (report.h): a run stored and judged in one write transaction.
 * The store prepares the run and reads what the gate needs, the gate
 * judges (history_compare.c), the store keeps the run with its verdicts;
 * then the later runs of its machines, which were judged without it, are
 * read back and judged again, so that no verdict depends on the order
 * runs were ingested in (store/history_replay.h).
 */
#include <errno.h>
#include <ksftmetric/report.h>
#include <stdlib.h>

#include "comparison.h"
#include "errmsg.h"
#include "history.h"
#include "history_ingest.h"
#include "history_judge.h"
#include "history_replay.h"
#include "opts_size.h"
#include "report.h"

/* @r judged by the gate: each series' verdict name (*@verdicts, malloc'd). */
static int judge_names(struct db *db, const struct ksft_metric_report *r,
		       const struct hgate_opts *o, const struct history_key *keys,
		       const char ***verdicts)
{
	struct ksft_metric_report_comparison *judged = NULL;
	int ret = history_compare_run(db, r, o, keys, &judged);

	*verdicts = NULL;
	if (ret >= 0) {
		*verdicts = history_compare_verdicts(judged, ksft_metric_report_series_count(r));
		ret = *verdicts ? 0 : ksftm_oom();
	}
	ksft_metric_report_comparison_free(judged);
	return ret;
}

/* The later runs of @in's machines judged again, oldest first. */
static int rejudge_later(struct history_ingest *in)
{
	struct history_replay *rp;
	const struct ksft_metric_report *r;
	const struct history_key *keys;
	const struct hgate_opts *o;
	const char **verdicts;
	int ret = history_replay_open(in->db, in->cmp, in->sort, in->run, in->series, in->n, &rp);

	while (!ret && rp && (ret = history_replay_next(rp, &r, &keys, &o)) == 1) {
		if (!(ret = judge_names(in->db, r, o, keys, &verdicts)))
			ret = history_replay_store(rp, verdicts);
		free(verdicts);
	}
	history_replay_close(rp);
	return ret;
}

int history_record(struct history *h, const struct ksft_metric_report *r,
		   const struct history_run *run, char **run_key_out)
{
	struct history_ingest in;
	const char **verdicts = NULL;
	int ret;

	if (run_key_out)
		*run_key_out = NULL;
	if ((ret = history_ingest_prepare(&in, h, r, run)))
		goto out;
	/* Judged against the runs before it, as compare would: a regression
	 * is kept but stays out of later windows until accepted. A run of
	 * the same content stored already is -EALREADY, its id given back. */
	if ((ret = history_ingest_begin(&in)) == -EALREADY && run_key_out) {
		*run_key_out = in.dup_key;
		in.dup_key = NULL;
		goto out;
	}
	if (ret ||
	    (ret = judge_names(in.db, r, &in.gate, in.series, &verdicts)) ||
	    (ret = history_ingest_store(&in, verdicts)) ||
	    (ret = rejudge_later(&in)))
		goto out;
	ret = history_ingest_commit(&in, run_key_out);
out:
	free(verdicts);
	history_ingest_end(&in);
	return ret;
}

KSFT_METRIC_REPORT_API int
ksft_metric_report_history_ingest(struct ksft_metric_report_history *kh,
				  const struct ksft_metric_report *r,
				  const struct ksft_metric_report_ingest_opts *opts,
				  char **run_id_out)
{
	struct ksft_metric_report_ingest_opts o = KSFT_METRIC_REPORT_INGEST_OPTS_INIT;
	struct history_run run;
	int ret;

	if (!kh || !r)
		return ksftm_fail(EINVAL, "ksft_metric_report_history_ingest: NULL argument");
	if ((ret = ksftm_opts_take(&o, sizeof(o), opts, "ksft_metric_report_ingest_opts")) ||
	    (ret = history_compare_check_fdr(o.fdr)))
		return ret;
	run = (struct history_run){ o.run_id, o.order, o.context, o.n_context, o.window, o.fdr };
	return history_record(history_of(kh), r, &run, run_id_out);
}
