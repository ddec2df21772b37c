/*
 * Judging a run against the history (judge/): the gate over the plain
 * values store/history_window_read.c reads (history_gate.c), and the
 * calls that read then judge: compare --db (history_compare.c) and
 * ingest with its replay of later runs (history_record.c).
 */
#ifndef KSFTM_HISTORY_JUDGE_H
#define KSFTM_HISTORY_JUDGE_H

#include "history.h"
#include "history_window.h"

struct ksft_metric_report_comparison;

/*
 * Judge @r (series i's identity and id in @keys[i]) with the values @set
 * read for it: one row per series (per element of an array series;
 * cmp_row.series is the series' index in @r), then one per series @set
 * says @r lacks. @return the failing rows, or a negative errno.
 */
int history_gate_judge(const struct ksft_metric_report *r, const struct hgate_opts *o,
		const struct history_key *keys, const struct history_window_set *set,
		struct ksft_metric_report_comparison **out);

/* Read @r's window set from @db, then judge it (history_gate_judge()); @keys:
 * its series' identities and ids, looked up already (ingest, replay). */
int history_compare_run(struct db *db, const struct ksft_metric_report *r,
			const struct hgate_opts *o, const struct history_key *keys,
			struct ksft_metric_report_comparison **out);

/* The same, @r's series looked up first (compare --db). */
int history_compare_lookup(struct db *db, const struct ksft_metric_report *r,
			   const struct hgate_opts *o, struct ksft_metric_report_comparison **out);

/*
 * Store @r as one run and judge it, in one transaction (nothing is
 * written if anything fails; history_record.c). @run_key_out (may be
 * NULL) receives the key used (malloc'd). @return the number of series
 * stored; -EEXIST (run key already there), -EINVAL (bad context item),
 * -EIO, -EBUSY, -ENOMEM.
 */
int history_record(struct history *h, const struct ksft_metric_report *r,
		   const struct history_run *run, char **run_key_out);

/* Each series' verdict from @c's rows (the worst of an array's elements),
 * names from verdict_vocab.h (malloc'd array; NULL: out of memory). */
const char **history_compare_verdicts(const struct ksft_metric_report_comparison *c, size_t n);

/* The history document's series @all (a JSON array) annotated: each
 * one's change points as "changes" (history_changes.c); the gate's band
 * as "gate" (history_band.c), the gate's own inputs read from @h: for the
 * latest point, or with @report for the next run, on machines @next_cmp.
 * @return 0 or a negative errno. */
int history_changes_add(struct json_t *all);
int history_band_add(struct history *h, struct json_t *all,
		      const struct ksft_metric_report *report, const char *next_cmp);

/* A false-alarm rate the public calls take: within [0, 1) (0: the default). */
int history_compare_check_fdr(double fdr);

#endif
