/*
 * A stored run read back as a report (history_run_read.h): each result
 * row of the run as a series with its identity, status, policy and
 * processed samples. The replay judges such a run again
 * (history_replay.c); the chart band reads the gate's window for it
 * (judge/history_band.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <ksftmetric/report.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon.h"
#include "errmsg.h"
#include "history.h"
#include "history_run_read.h"
#include "report.h"
#include "rp.h"
#include "rp_policy.h"
#include "series.h"
#include "strpool.h"

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
		if (name && !strcmp(canon_status_name(st), name))
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
	if (series_set_identity(r, s, (char *const *)parts, m, db_rows_get(rows, k, 2),
				db_rows_get(rows, k, 3), db_rows_get(rows, k, 4),
				db_rows_get(rows, k, 6), status_code(db_rows_get(rows, k, 5))))
		goto out;
	/* Without a policy, a zperf or twister result is gated by default
	 * (higher is better), a KTAP one is not: what ingest stored says which. */
	s->source = !policy && better && !strcmp(better, "higher") ? RP_SRC_ZPERF : RP_SRC_KTAP;
	json_array_foreach(samples, i, v)
		is_array |= json_is_array(v);
	s->is_array = is_array ? 1 : 0;
	json_array_foreach(samples, i, v) {
		size_t n = json_is_array(v) ? json_array_size(v) : 1;
		double *grown = realloc(buf, (n ? n : 1) * sizeof(*buf));

		if (!grown)
			goto out;
		buf = grown;
		for (e = 0; e < n; e++)
			buf[e] = sample(is_array ? json_array_get(v, e) : v);
		if (series_add_point(s, NAN, buf, n, is_array))
			goto out;
	}
	if (policy) {
		char why[KSFTM_ERRMSG_SIZE], *unknown = NULL;
		struct rp_policy *own;

		if ((ret = history_json(db, policy, "ksftm_results.policy", where, &pol)))
			goto out;
		ret = -ENOMEM;
		if (!(own = calloc(1, sizeof(*own))) || series_take_policy(s, own)) {
			free(own);
			goto out;
		}
		ret = rp_policy_from_json(pol, own, &unknown);
		free(unknown);
		if (ret && ret != -ENOMEM) {
			snprintf(why, sizeof(why), "%s", ksftm_errmsg());	/* the reason */
			ret = ksftm_fail(EBADMSG, "history database %s: ksftm_results.policy in the"
					 " row with %s: %s", db_name(db), where, why);
		}
		if (ret)
			goto out;
		own->transform = RP_TR_NONE;
		own->aggregation = RP_AGG_NONE;
	}
	ret = series_adopt(r, s);
	s = NULL;
out:
	if (ret == -ENOMEM)
		ret = ksftm_oom();
	series_free(s);
	free(buf);
	free(parts);
	json_decref(path);
	json_decref(samples);
	json_decref(pol);
	return ret;
}

int history_run_read(struct db *db, const char *run_id, const long long *only, size_t n_only,
		     struct db_rows **rows, struct ksft_metric_report **r,
		     struct history_key **keys)
{
	const char *p[1] = { run_id };
	size_t n, k, m;
	char where[96];
	int ret = db_query(db, RESULTS_SQL, p, 1, rows);

	*r = NULL;
	*keys = NULL;
	snprintf(where, sizeof(where), "ksftm_results.run_id = %.40s", run_id);
	if (!ret)
		ret = db_rows_check(db, *rows, "ksftm_results.series_id ksftm_series.path"
				    " ksftm_series.case_name ksftm_series.metric ksftm_series.labels"
				    " ksftm_results.status ksftm_results.shape ?ksftm_results.policy"
				    " ?ksftm_results.compare_op ?ksftm_results.better"
				    " ksftm_results.samples ?ksftm_results.verdict"
				    " ?ksftm_results.accepted ?ksftm_results.usable ?ksftm_results.value",
				    0, where);
	if (ret)
		return ret;
	n = db_rows_count(*rows);
	*r = ksft_metric_report_new(NULL);
	*keys = calloc(n ? n : 1, sizeof(**keys));
	if (!*r || !*keys)
		return ksftm_oom();
	for (k = m = 0; k < n && !ret; k++) {
		long long id = strtoll(db_rows_get(*rows, k, 0), NULL, 10);

		if (only && !bsearch(&id, only, n_only, sizeof(*only), history_series_id_cmp))
			continue;
		ret = stored_series(db, *r, *rows, k, where);
		(*keys)[m++] = (struct history_key){ db_rows_get(*rows, k, 1),
						     db_rows_get(*rows, k, 2),
						     db_rows_get(*rows, k, 3),
						     db_rows_get(*rows, k, 4), id, 0, 0, 0 };
	}
	if (ret)
		return ret;
	if (ksft_metric_report_series_count(*r) != m)
		return ksftm_fail(EBADMSG, "history database %s: run %s holds one series twice",
				  db_name(db), where);
	return 0;
}

int history_run_read_at(struct db *db, const char *order, char **run_id, char **cmp)
{
	const char *p[1] = { order };
	struct db_rows *rows;
	int ret = db_query(db, "SELECT id, comparable FROM ksftm_runs WHERE run_order = $1",
			   p, 1, &rows);

	*run_id = *cmp = NULL;
	if (ret)
		return ret;
	if (db_rows_count(rows) && !(ret = db_rows_check(db, rows, "ksftm_runs.id"
							  " ksftm_runs.comparable", 0, NULL))) {
		*run_id = strdup(db_rows_get(rows, 0, 0));
		*cmp = strdup(db_rows_get(rows, 0, 1));
		if (!*run_id || !*cmp)
			ret = ksftm_oom();
	}
	db_rows_free(rows);
	return ret;
}
