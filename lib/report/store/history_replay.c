/*
 * A run ingested before runs already stored (a backfill newest first, a
 * late collector): the later runs of its machines were judged without it,
 * and their stored verdicts (which feed later windows: a regression stays
 * out of the level, the recent runs skip the not comparable) are judged
 * again, oldest first, from what the history keeps of each. This file
 * reads each such run back and stores what the gate said of it
 * (history_replay.h); judge/history_record.c has the gate judge it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <ksftmetric/report.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "grow.h"
#include "history.h"
#include "history_context.h"
#include "history_replay.h"
#include "history_run_read.h"
#include "history_sql.h"
#include "window_rule.h"
#include "report.h"
#include "verdict_vocab.h"


/*
 * A series whose stored state before some run changed (the inserted run's
 * series, and any whose verdict was judged again to something else), and
 * how many of its results came since: once @usable of them feed windows
 * (a full window) and @measured are among the recent runs the gate reads,
 * no later run can see the change.
 */
struct dirty {
	long long id;
	size_t usable, measured;
};

struct history_replay {
	struct dirty *d;
	size_t n, cap;
	size_t window;
	int pinned_after;	/* a pin ends later windows early: no shortcut */
	struct db *db;
	const char *cmp;
	const struct history_run *run;
	struct db_rows *later;	/* the later runs: id, order, context */
	size_t next;		/* the next of them to look at */
	/* The run history_replay_next() gave: */
	const char *run_id;
	struct db_rows *rows;	/* its results (history_run_read()) */
	struct ksft_metric_report *r;
	struct history_key *keys;
	struct hgate_opts o;
};

static struct dirty *dirty_find(struct history_replay *rp, long long id)
{
	size_t k;

	for (k = 0; k < rp->n; k++)
		if (rp->d[k].id == id)
			return &rp->d[k];
	return NULL;
}

static int dirty_mark(struct history_replay *rp, long long id)
{
	struct dirty *d = dirty_find(rp, id);

	if (!d) {
		if (ksftm_grow((void **)&rp->d, &rp->cap, rp->n + 1, sizeof(*rp->d), 64))
			return ksftm_oom();
		d = &rp->d[rp->n++];
		d->id = id;
	}
	d->usable = d->measured = 0;
	return 0;
}

/* Can no run from here on see any change? */
static int settled(const struct history_replay *rp)
{
	size_t k;

	if (rp->pinned_after)
		return 0;
	for (k = 0; k < rp->n; k++)
		if (rp->d[k].usable < rp->window || rp->d[k].measured < HISTORY_RECENT_RUNS)
			return 0;
	return 1;
}

/* The run that history_replay_next() gave, let go. */
static void current_free(struct history_replay *rp)
{
	free(rp->keys);
	ksft_metric_report_free(rp->r);
	db_rows_free(rp->rows);
	rp->keys = NULL;
	rp->r = NULL;
	rp->rows = NULL;
	rp->run_id = NULL;
}

/* Stored run @run_id (order @order) as a report to judge again. */
static int load_run(struct history_replay *rp, const char *run_id, const char *order)
{
	int ret = history_run_read(rp->db, run_id, NULL, 0, &rp->rows, &rp->r, &rp->keys);

	rp->run_id = run_id;
	rp->o = (struct hgate_opts){ .comparable = rp->cmp, .order = order,
				     .window = rp->run->window, .fdr = rp->run->fdr,
				     .allow_missing = 1, .windows_only = 1,
				     .verdicts_only = 1 };
	return ret;
}

int history_replay_store(struct history_replay *rp, const char *const *verdicts)
{
	struct db *db = rp->db;
	struct db_rows *rows = rp->rows;
	size_t k, n = db_rows_count(rows);
	int ret = 0;

	for (k = 0; k < n && !ret; k++) {
		const char *verdict = verdicts[k];
		const char *old = db_rows_get(rows, k, 11), *acc = db_rows_get(rows, k, 12);
		const char *was_usable = db_rows_get(rows, k, 13);
		int accepted = acc && strcmp(acc, "0") && strcmp(acc, "f");
		int usable = history_status_measured(db_rows_get(rows, k, 5)) &&
			     (accepted || (strcmp(verdict, KSFTM_VERDICT_REGRESSION) &&
					   strcmp(verdict, KSFTM_VERDICT_DISTURBED)));
		const char *q[4] = { verdict, usable ? "1" : "0", rp->run_id, db_rows_get(rows, k, 0) };
		struct dirty *d;

		/* (A code from before issue 23 is read as today's.) */
		if (old && !strcmp(ksftm_verdict_code(old), verdict) && was_usable &&
		    !strcmp(was_usable, q[1])) {
			/* Unchanged: one more result between the change and what follows. */
			if ((d = dirty_find(rp, rp->keys[k].id))) {
				d->usable += usable && db_rows_get(rows, k, 14);
				d->measured += history_status_measured(db_rows_get(rows, k, 5)) &&
					       strcmp(verdict, KSFTM_VERDICT_NOT_COMPARABLE) &&
					       db_rows_get(rows, k, 14);
			}
			continue;
		}
		if (!(ret = dirty_mark(rp, rp->keys[k].id)))
			ret = db_query(db, "UPDATE ksftm_results SET verdict = $1, usable = $2"
				       " WHERE run_id = $3 AND series_id = $4", q, 4, NULL);
	}
	current_free(rp);
	return ret;
}

int history_replay_open(struct db *db, const char *cmp, const char *order,
			const struct history_run *run, const struct history_key *keys, size_t n,
			struct history_replay **out)
{
	const char *p[2] = { cmp, order };
	struct history_replay *rp;
	struct db_rows *rows, *pins;
	size_t k;
	int ret = db_query(db, HISTORY_LATER_RUNS_SQL, p, 2, &rows);

	*out = NULL;
	if (ret || (ret = db_rows_check(db, rows, "ksftm_runs.id ksftm_runs.run_order"
					" ksftm_runs.context", 0, NULL))) {
		db_rows_free(rows);
		return ret;
	}
	if (!db_rows_count(rows)) {	/* the usual case: the newest run */
		db_rows_free(rows);
		return 0;
	}
	if ((ret = db_query(db, "SELECT 1 FROM ksftm_runs WHERE comparable = $1 AND pinned = 1"
			    " AND run_order > $2 LIMIT 1", p, 2, &pins))) {
		db_rows_free(rows);
		return ret;
	}
	rp = calloc(1, sizeof(*rp));
	if (!rp) {
		db_rows_free(pins);
		db_rows_free(rows);
		return ksftm_oom();
	}
	*rp = (struct history_replay){ .window = history_window_rule_size(run->window),
				       .db = db, .cmp = cmp, .run = run, .later = rows };
	rp->pinned_after = db_rows_count(pins) > 0;
	db_rows_free(pins);
	for (k = 0; k < n && !ret; k++)
		ret = dirty_mark(rp, keys[k].id);
	if (ret) {
		history_replay_close(rp);
		return ret;
	}
	*out = rp;
	return 0;
}

int history_replay_next(struct history_replay *rp, const struct ksft_metric_report **r,
			const struct history_key **keys, const struct hgate_opts **o)
{
	int ret = 0;

	current_free(rp);
	/* Oldest first, until no later run can see what changed. */
	while (rp->next < db_rows_count(rp->later) && !settled(rp)) {
		size_t k = rp->next++;
		char where[64];
		json_t *ctx;
		int skip;

		snprintf(where, sizeof(where), "ksftm_runs.id = %.40s", db_rows_get(rp->later, k, 0));
		if ((ret = history_json(rp->db, db_rows_get(rp->later, k, 2), "ksftm_runs.context",
					where, &ctx)))
			return ret;
		/* A debug kernel's run was judged against nothing: still so. */
		skip = history_context_incomparable(ctx);
		json_decref(ctx);
		if (skip)
			continue;
		if ((ret = load_run(rp, db_rows_get(rp->later, k, 0), db_rows_get(rp->later, k, 1))))
			return ret;
		*r = rp->r;
		*keys = rp->keys;
		*o = &rp->o;
		return 1;
	}
	return 0;
}

void history_replay_close(struct history_replay *rp)
{
	if (!rp)
		return;
	current_free(rp);
	db_rows_free(rp->later);
	free(rp->d);
	free(rp);
}
