/*
 * The later runs of a run's machines, read back to be judged again
 * (history_replay.c), inside the caller's write transaction: open, then
 * for each run history_replay_next() gives, the gate's verdicts stored by
 * history_replay_store(), until it gives none (no later run can see a
 * change: every changed series has a full window and recent reach of
 * unchanged results since). judge/history_record.c drives it.
 */
#ifndef KSFTM_HISTORY_REPLAY_H
#define KSFTM_HISTORY_REPLAY_H

#include <stddef.h>

#include "history.h"

struct history_replay;

/* The runs of machines @cmp ordered after @order (stored order), with
 * @run's window and rate; the run's series @keys[0..n) are what changed.
 * *@out NULL when there is none (the usual case: the newest run). */
int history_replay_open(struct db *db, const char *cmp, const char *order,
			const struct history_run *run, const struct history_key *keys, size_t n,
			struct history_replay **out);
/* The next run to judge again, as a report with its series' @keys and the
 * gate's options (valid until the next call): @return 1, 0 when done, or
 * a negative errno. */
int history_replay_next(struct history_replay *rp, const struct ksft_metric_report **r,
			const struct history_key **keys, const struct hgate_opts **o);
/* Series i's verdict name for the run history_replay_next() gave: the
 * changed ones stored. */
int history_replay_store(struct history_replay *rp, const char *const *verdicts);
void history_replay_close(struct history_replay *rp);

#endif
