/*
 * Triage of the run history (history.h): accepting a level and pinning a
 * baseline. Where both apply to a series, the accepted level wins: a pin
 * older than the series' level does not end its window (history_window.c,
 * doc/run-history.rst), so no combination of the two leaves a series
 * without a window.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon.h"
#include "errmsg.h"
#include "history.h"
#include "history_sql.h"
#include "strbuf.h"

static int run_row(struct db *db, const char *run_key, char **id, char **order, char **cmp)
{
	const char *p[1] = { run_key };
	struct db_rows *rows;
	int ret = db_query(db, "SELECT id, run_order, comparable FROM ksftm_runs WHERE run_key = $1",
			   p, 1, &rows);

	if (ret)
		return ret;
	if (!db_rows_count(rows)) {
		db_rows_free(rows);
		return ksftm_fail(ENOENT, "run %s is not in the history", run_key);
	}
	if ((ret = db_rows_check(db, rows, "ksftm_runs.id ksftm_runs.run_order ksftm_runs.comparable",
				 0, "the run_key of the run"))) {
		db_rows_free(rows);
		return ret;
	}
	*id = strdup(db_rows_get(rows, 0, 0));
	*order = strdup(db_rows_get(rows, 0, 1));
	*cmp = strdup(db_rows_get(rows, 0, 2));
	db_rows_free(rows);
	return *id && *order && *cmp ? 0 : ksftm_oom();
}

/* Does series @path/@case_name/@metric/@labels (of the row @row) match a
 * title filter? 1, 0 or a negative errno. */
static int title_matches(struct db *db, const char *path_json, const char *case_name,
			 const char *metric, const char *labels, const char *filter,
			 const char *row)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *path;
	const char **parts;
	size_t m;
	int match;

	if (!filter)
		return 1;
	if ((match = history_path_parts(db, path_json, row, &path, &parts, &m)))
		return match;
	canon_series_title(&sb, (char *const *)parts, m, case_name, metric, labels, -1);
	match = sb.oom ? ksftm_oom() : strstr(sb.data, filter) != NULL;
	strbuf_free(&sb);
	free(parts);
	json_decref(path);
	return match;
}

/*
 * Accepting a regression accepts the level it started: the run's
 * regressions, and those later runs of the same series were judged to have
 * against the old level, feed baselines again, and the series' window
 * starts at this run (past an older pinned run: the level wins). A series
 * named by @series is re-levelled even without a regression verdict
 * (accepting a change point history found). Returns the number of series
 * re-levelled: what changed, whatever their results' verdicts were.
 */
int history_accept(struct history *h, const char *run_key, const char *series)
{
	struct db *db = history_db(h);
	struct db_rows *rows = NULL;
	char *id = NULL, *order = NULL, *cmp = NULL;
	size_t k;
	int ret, levelled = 0;

	if ((ret = history_writable(h)) || (ret = history_check_text("run id", run_key)) ||
	    (ret = db_begin_write(db)))
		return ret;
	if ((ret = run_row(db, run_key, &id, &order, &cmp)))
		goto fail;
	{
		const char *p[1] = { id };

		ret = db_query(db, "SELECT res.series_id, s.path, s.case_name, s.metric, s.labels,"
			       " res.verdict FROM ksftm_results res JOIN ksftm_series s ON"
			       " s.id = res.series_id WHERE res.run_id = $1", p, 1, &rows);
		if (!ret)
			ret = db_rows_check(db, rows, "ksftm_results.series_id ksftm_series.path"
					    " ksftm_series.case_name ksftm_series.metric"
					    " ksftm_series.labels ?ksftm_results.verdict", 0, NULL);
	}
	for (k = 0; !ret && k < db_rows_count(rows); k++) {
		const char *verdict = db_rows_get(rows, k, 5);
		const char *p[3] = { db_rows_get(rows, k, 0), cmp, order };
		char row[64];
		int m;

		snprintf(row, sizeof(row), "ksftm_series.id = %.40s", p[0]);
		m = title_matches(db, db_rows_get(rows, k, 1), db_rows_get(rows, k, 2),
				  db_rows_get(rows, k, 3), db_rows_get(rows, k, 4), series, row);
		if (m < 0) {
			ret = m;
			break;
		}
		if (!m || (!series && (!verdict || strcmp(verdict, KSFTM_VERDICT_REGRESSION))))
			continue;
		ret = db_query(db, "UPDATE ksftm_results SET accepted = 1, usable ="
			       " CASE WHEN status IN " HISTORY_MEASURED_STATUSES " THEN 1 ELSE 0 END"
			       " WHERE series_id = $1"
			       " AND comparable = $2 AND run_order >= $3 AND verdict = 'regression'"
			       " AND accepted = 0", p, 3, NULL);
		if (!ret)
			ret = db_query(db, "INSERT INTO ksftm_levels (series_id, comparable, run_order)"
				       " VALUES ($1, $2, $3) ON CONFLICT (series_id, comparable)"
				       " DO UPDATE SET run_order = excluded.run_order", p, 3, NULL);
		levelled += !ret;
	}
	if (ret)
		goto fail;
	db_rows_free(rows);
	rows = NULL;
	if ((ret = db_commit(db)))
		goto fail;
	ret = levelled;
	goto out;
fail:
	db_rollback(db);
out:
	db_rows_free(rows);
	free(id);
	free(order);
	free(cmp);
	return ret;
}

/*
 * Pin (or unpin) a run. Returns the number of series on its machines
 * whose accepted level starts after it: the level wins, their windows do
 * not end at this pin (0 when unpinning).
 */
int history_pin(struct history *h, const char *run_key, int pinned)
{
	const char *p[2] = { pinned ? "1" : "0", run_key };
	struct db_rows *rows;
	int ret = history_writable(h), after = 0;

	if (!ret)
		ret = history_check_text("run id", run_key);

	if (ret || (ret = db_query(history_db(h), "UPDATE ksftm_runs SET pinned = $1"
				   " WHERE run_key = $2 RETURNING id", p, 2, &rows)))
		return ret;
	ret = db_rows_count(rows) ? 0 : ksftm_fail(ENOENT, "run %s is not in the history", run_key);
	db_rows_free(rows);
	if (ret || !pinned)
		return ret;
	ret = db_query(history_db(h), "SELECT COUNT(*) FROM ksftm_levels l JOIN ksftm_runs r"
		       " ON r.comparable = l.comparable WHERE r.run_key = $1"
		       " AND l.run_order > r.run_order", p + 1, 1, &rows);
	if (ret)
		return ret;
	if (db_rows_count(rows) && db_rows_get(rows, 0, 0))
		after = atoi(db_rows_get(rows, 0, 0));
	db_rows_free(rows);
	return after;
}
