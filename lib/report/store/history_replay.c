/*
 * A run ingested before runs already stored (a backfill newest first, a
 * late collector): the later runs of its machines were judged without it,
 * and their stored verdicts (which feed later windows: a regression stays
 * out of the level, the recent runs skip the not comparable) are judged
 * again, oldest first, from what the history keeps of each (history.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "grow.h"
#include "history.h"
#include "history_sql.h"
#include "rp.h"
#include "verdict_vocab.h"

/* How far back the gate reads a series' recent runs, and its default
 * window (history_gate.c). */
#define RECENT_REACH HISTORY_RECENT_RUNS
#define DEFAULT_WINDOW 30

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

struct replay {
	struct dirty *d;
	size_t n, cap;
	size_t window;
	int pinned_after;	/* a pin ends later windows early: no shortcut */
};

static struct dirty *dirty_find(struct replay *rp, long long id)
{
	size_t k;

	for (k = 0; k < rp->n; k++)
		if (rp->d[k].id == id)
			return &rp->d[k];
	return NULL;
}

static int dirty_mark(struct replay *rp, long long id)
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
static int settled(const struct replay *rp)
{
	size_t k;

	if (rp->pinned_after)
		return 0;
	for (k = 0; k < rp->n; k++)
		if (rp->d[k].usable < rp->window || rp->d[k].measured < RECENT_REACH)
			return 0;
	return 1;
}

/* The stored results of a run, with their series' identities. */
#define RESULTS_SQL \
	"SELECT res.series_id, s.path, s.case_name, s.metric, s.labels, res.status," \
	" res.shape, res.policy, res.compare_op, res.better, res.samples, res.verdict," \
	" res.accepted, res.usable, res.value FROM ksftm_results res" \
	" JOIN ksftm_series s ON s.id = res.series_id WHERE res.run_id = $1"

static int status_code(const char *name)
{
	int st;

	for (st = RP_ST_NONE; st <= RP_ST_INCOMPLETE; st++)
		if (name && !strcmp(rp_status_name(st), name))
			return st;
	return RP_ST_NONE;
}

/* A stored sample: a number, or null (a missing value, NaN). */
static double sample(json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/*
 * Row @k of @rows as a series of @r: its identity, status and policy as
 * stored, its processed samples as its points (the policy's transform and
 * aggregation are done already, so dropped), which gives the summaries and
 * the compare value ingest stored.
 */
static int stored_series(struct db *db, struct ksft_metric_report *r, struct db_rows *rows,
			 size_t k, const char *where)
{
	struct rp_series *s = calloc(1, sizeof(*s));
	const char *policy = db_rows_get(rows, k, 7), *better = db_rows_get(rows, k, 9);
	json_t *path = NULL, *samples = NULL, *pol = NULL, *v;
	const char **parts = NULL;
	size_t m, i, e;
	double *buf = NULL;
	int ret, is_array = 0;

	if (!s)
		return ksftm_oom();
	if ((ret = history_path_parts(db, db_rows_get(rows, k, 1), where, &path, &parts, &m)) ||
	    (ret = history_json(db, db_rows_get(rows, k, 10), "ksftm_results.samples", where,
				&samples)))
		goto out;
	ret = -ENOMEM;
	s->path = rp_strpool_path(r->pool, (char *const *)parts, m, NULL, 0);
	s->path_len = m;
	s->case_name = (char *)rp_strpool_intern(r->pool, db_rows_get(rows, k, 2),
						 strlen(db_rows_get(rows, k, 2)));
	s->name = (char *)rp_strpool_intern(r->pool, db_rows_get(rows, k, 3),
					    strlen(db_rows_get(rows, k, 3)));
	s->labels_len = strlen(db_rows_get(rows, k, 4));
	s->labels = (char *)rp_strpool_intern(r->pool, db_rows_get(rows, k, 4), s->labels_len);
	s->shape = (char *)rp_strpool_intern(r->pool, db_rows_get(rows, k, 6),
					     strlen(db_rows_get(rows, k, 6)));
	if (!s->path || !s->case_name || !s->name || !s->labels || !s->shape)
		goto out;
	s->status = status_code(db_rows_get(rows, k, 5));
	/* Without a policy, a zperf or twister result is gated by default
	 * (higher is better), a KTAP one is not: what ingest stored says which. */
	s->source = !policy && better && !strcmp(better, "higher") ? RP_SRC_ZPERF : RP_SRC_KTAP;
	json_array_foreach(samples, i, v)
		is_array |= json_is_array(v);
	s->is_array = is_array;
	json_array_foreach(samples, i, v) {
		size_t n = json_is_array(v) ? json_array_size(v) : 1;
		double *grown = realloc(buf, (n ? n : 1) * sizeof(*buf));

		if (!grown)
			goto out;
		buf = grown;
		for (e = 0; e < n; e++)
			buf[e] = sample(is_array ? json_array_get(v, e) : v);
		if (rp_series_add_point(s, NAN, buf, n, is_array))
			goto out;
	}
	if (policy) {
		char why[KSFTM_ERRMSG_SIZE], *unknown = NULL;

		if ((ret = history_json(db, policy, "ksftm_results.policy", where, &pol)))
			goto out;
		ret = rp_policy_from_json(pol, &s->policy, &unknown);
		free(unknown);
		if (ret && ret != -ENOMEM) {
			snprintf(why, sizeof(why), "%s", ksftm_errmsg());	/* the reason */
			ret = ksftm_fail(EBADMSG, "history database %s: ksftm_results.policy in the"
					 " row with %s: %s", db_name(db), where, why);
		}
		if (ret)
			goto out;
		s->policy.transform = RP_TR_NONE;
		s->policy.aggregation = RP_AGG_NONE;
		s->has_policy = 1;
	}
	ret = -ENOMEM;
	if (!(s->key = rp_make_key(s->path, s->path_len, s->case_name, s->name, s->labels)))
		goto out;
	ret = rp_report_adopt(r, s);
	s = NULL;
out:
	if (ret == -ENOMEM)
		ret = ksftm_oom();
	rp_series_free(s);
	free(buf);
	free(parts);
	json_decref(path);
	json_decref(samples);
	json_decref(pol);
	return ret;
}

/* Judge stored run @run_id (order @order) again, and store what changed. */
static int rejudge_run(struct db *db, const char *run_id, const char *order, const char *cmp,
		       const struct history_run *run, struct replay *rp)
{
	const char *p[1] = { run_id };
	struct ksft_metric_report *r = NULL;
	struct ksft_metric_report_comparison *judged = NULL;
	struct history_key *keys = NULL;
	struct db_rows *rows = NULL;
	unsigned char *verdicts = NULL;
	size_t n, k;
	char where[96];
	int ret = db_query(db, RESULTS_SQL, p, 1, &rows);

	snprintf(where, sizeof(where), "ksftm_results.run_id = %.40s", run_id);
	if (!ret)
		ret = db_rows_check(db, rows, "ksftm_results.series_id ksftm_series.path"
				    " ksftm_series.case_name ksftm_series.metric ksftm_series.labels"
				    " ksftm_results.status ksftm_results.shape ?ksftm_results.policy"
				    " ?ksftm_results.compare_op ?ksftm_results.better"
				    " ksftm_results.samples ?ksftm_results.verdict"
				    " ?ksftm_results.accepted ?ksftm_results.usable ?ksftm_results.value",
				    0, where);
	if (ret)
		goto out;
	n = db_rows_count(rows);
	r = ksft_metric_report_new(NULL);
	keys = calloc(n ? n : 1, sizeof(*keys));
	if (!r || !keys) {
		ret = ksftm_oom();
		goto out;
	}
	for (k = 0; k < n && !ret; k++) {
		ret = stored_series(db, r, rows, k, where);
		keys[k] = (struct history_key){ db_rows_get(rows, k, 1), db_rows_get(rows, k, 2),
						db_rows_get(rows, k, 3), db_rows_get(rows, k, 4),
						strtoll(db_rows_get(rows, k, 0), NULL, 10) };
	}
	if (ret)
		goto out;
	if (ksft_metric_report_series_count(r) != n) {
		ret = ksftm_fail(EBADMSG, "history database %s: run %s holds one series twice",
				 db_name(db), where);
		goto out;
	}
	{
		struct hgate_opts o = { cmp, order, 0, run->window, run->fdr, 1 };

		ret = hgate_compare_keys(db, r, &o, keys, &judged);
		if (ret < 0)
			goto out;
		ret = 0;
	}
	if (!(verdicts = history_series_verdicts(judged, n))) {
		ret = ksftm_oom();
		goto out;
	}
	for (k = 0; k < n && !ret; k++) {
		const char *verdict = history_verdict_name(verdicts[k]);
		const char *old = db_rows_get(rows, k, 11), *acc = db_rows_get(rows, k, 12);
		const char *was_usable = db_rows_get(rows, k, 13);
		int accepted = acc && strcmp(acc, "0") && strcmp(acc, "f");
		int usable = history_status_measured(db_rows_get(rows, k, 5)) &&
			     (accepted || (strcmp(verdict, KSFTM_VERDICT_REGRESSION) &&
					   strcmp(verdict, KSFTM_VERDICT_DISTURBED)));
		const char *q[4] = { verdict, usable ? "1" : "0", run_id, db_rows_get(rows, k, 0) };
		struct dirty *d;

		/* (A code from before issue 23 is read as today's.) */
		if (old && !strcmp(ksftm_verdict_code(old), verdict) && was_usable &&
		    !strcmp(was_usable, q[1])) {
			/* Unchanged: one more result between the change and what follows. */
			if ((d = dirty_find(rp, keys[k].id))) {
				d->usable += usable && db_rows_get(rows, k, 14);
				d->measured += history_status_measured(db_rows_get(rows, k, 5)) &&
					       strcmp(verdict, KSFTM_VERDICT_NOT_COMPARABLE) &&
					       db_rows_get(rows, k, 14);
			}
			continue;
		}
		if (!(ret = dirty_mark(rp, keys[k].id)))
			ret = db_query(db, "UPDATE ksftm_results SET verdict = $1, usable = $2"
				       " WHERE run_id = $3 AND series_id = $4", q, 4, NULL);
	}
out:
	free(verdicts);
	ksft_metric_report_comparison_free(judged);
	free(keys);
	ksft_metric_report_free(r);
	db_rows_free(rows);
	return ret;
}

int history_rejudge_later(struct db *db, const char *cmp, const char *order,
			  const struct history_run *run, const struct history_key *keys, size_t n)
{
	const char *p[2] = { cmp, order };
	struct replay rp = { .window = run->window ? run->window : DEFAULT_WINDOW };
	struct db_rows *rows, *pins;
	size_t k;
	int ret = db_query(db, HISTORY_LATER_RUNS_SQL, p, 2, &rows);

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
	rp.pinned_after = db_rows_count(pins) > 0;
	db_rows_free(pins);
	for (k = 0; k < n && !ret; k++)
		ret = dirty_mark(&rp, keys[k].id);
	/* Oldest first, until no later run can see what changed. */
	for (k = 0; k < db_rows_count(rows) && !ret && !settled(&rp); k++) {
		char where[64];
		json_t *ctx;

		snprintf(where, sizeof(where), "ksftm_runs.id = %.40s", db_rows_get(rows, k, 0));
		if ((ret = history_json(db, db_rows_get(rows, k, 2), "ksftm_runs.context", where,
					&ctx)))
			break;
		/* A debug kernel's run was judged against nothing: still so. */
		if (!history_context_incomparable(ctx))
			ret = rejudge_run(db, db_rows_get(rows, k, 0), db_rows_get(rows, k, 1), cmp,
					  run, &rp);
		json_decref(ctx);
	}
	db_rows_free(rows);
	free(rp.d);
	return ret;
}
