/*
 * The run history's read queries whose plans matter at scale (history_window.c,
 * history_query.c), here so that tests/report/test_history_plan.c can check
 * that each is an index range scan (EXPLAIN), never a scan that grows with
 * the whole history. "%zu" is the window/--last, filled in by snprintf.
 */
#ifndef KSFTM_HISTORY_SQL_H
#define KSFTM_HISTORY_SQL_H

#include "window_rule.h"
#include "verdict_vocab.h"

/*
 * The statuses whose results are measurements, the only ones that feed
 * baselines (history_status_measured() in C): a case that passed, and a
 * result without a test status ("none": a zperf console result line or a
 * twister recording whose suite names no status; a KTAP series always has
 * one, "incomplete" when its case never ended). Failed, skipped, timed-out
 * and incomplete cases are not.
 */
#define HISTORY_MEASURED_STATUSES "('pass', 'none')"

/* One series' window ($1 series id, $2 comparability key, $3 the current
 * run's order or NULL, $4 the latest pinned run's order or NULL, $5 the
 * order where the series' accepted level starts or NULL): windows end at
 * the current run's order and at the latest pinned run, and start where
 * the level does. The level is a parameter (HISTORY_LEVELS_SQL, read once
 * per run), not a subquery: PostgreSQL plans with the parameters' values,
 * and an unknown lower bound beside the upper one made it estimate two
 * rows and sort all of the series' results instead of reading the last N
 * backwards through an index (a window that grew with the history). */
#define HISTORY_WINDOW_SQL "SELECT res.value, res.summary, res.compare_op, res.run_order" \
	HISTORY_WINDOW_FROM

/* The same for a scalar series, its values only: answered from the index
 * ksftm_results_window_op alone (history_schema.c), no table row per value. The
 * compare statistic each value is (NULL: p50) tells a window stored under
 * another policy, read again with its summaries (history_gate.c). */
#define HISTORY_WINDOW_VALUES_SQL "SELECT res.value, NULL, res.compare_op, res.run_order" \
	HISTORY_WINDOW_FROM

#define HISTORY_WINDOW_FROM \
	" FROM ksftm_results res" \
	" WHERE res.series_id = $1 AND res.comparable = $2 AND res.usable = 1" \
	" AND (CAST($3 AS TEXT) IS NULL OR res.run_order < $3)" \
	HISTORY_WINDOW_FROM_REST

#define HISTORY_WINDOW_FROM_REST \
	" AND (CAST($4 AS TEXT) IS NULL OR res.run_order <= $4)" \
	" AND res.run_order >= COALESCE(CAST($5 AS TEXT), '')" \
	" ORDER BY res.run_order DESC LIMIT %zu"

/* The same two for a run with an order ($3 not NULL: ingest's, always):
 * the order bounds the index range instead of filtering each entry in
 * it (issue 45: a fifth of SQLite's cost of a window query). */
#define HISTORY_WINDOW_BEFORE_SQL "SELECT res.value, res.summary, res.compare_op, res.run_order" \
	HISTORY_WINDOW_BEFORE_FROM
#define HISTORY_WINDOW_VALUES_BEFORE_SQL "SELECT res.value, NULL, res.compare_op, res.run_order" \
	HISTORY_WINDOW_BEFORE_FROM
/* The same two for a series without a pinned run or a level ($4 and $5
 * NULL: no bound but the order, the same rows), three parameters. The
 * conditions on $4 and $5 were evaluated for each index entry, their
 * parameters bound for each series (issue 45). */
#define HISTORY_WINDOW_PLAIN_SQL "SELECT res.value, res.summary, res.compare_op, res.run_order" \
	HISTORY_WINDOW_PLAIN_FROM
#define HISTORY_WINDOW_VALUES_PLAIN_SQL "SELECT res.value, NULL, res.compare_op, res.run_order" \
	HISTORY_WINDOW_PLAIN_FROM
#define HISTORY_WINDOW_PLAIN_FROM \
	" FROM ksftm_results res" \
	" WHERE res.series_id = $1 AND res.comparable = $2 AND res.usable = 1" \
	" AND res.run_order < $3 ORDER BY res.run_order DESC LIMIT %zu"
#define HISTORY_WINDOW_BEFORE_FROM \
	" FROM ksftm_results res" \
	" WHERE res.series_id = $1 AND res.comparable = $2 AND res.usable = 1" \
	" AND res.run_order < $3" \
	HISTORY_WINDOW_FROM_REST

/* The accepted levels on machines $1: series id, the order it starts at. */
#define HISTORY_LEVELS_SQL \
	"SELECT series_id, run_order FROM ksftm_levels WHERE comparable = $1"

/* HISTORY_RECENT_RUNS, how many recent runs HISTORY_SHIFT_SQL reads:
 * window_rule.h. */

/* The gate's recent runs of series $1 on machines $2 (cases measured,
 * whatever the gate said of each: the CUSUM's sequence and the noise)
 * before order $3 (or all), from its accepted level $4 (HISTORY_LEVELS_SQL,
 * or NULL) on, newest first; a parameter for the level, as in the window.
 * The repeats (samples) give the within-run variance; the verdict, which
 * flagged runs were transients. Not comparable runs are left out, under
 * either spelling (histories before issue 23 hold the old one). On SQLite
 * the usable results and the others (usable is 1 or 0) are two ranges of
 * ksftm_results_window_op, each newest first, merged: the first
 * HISTORY_RECENT_RUNS of the series' results on these machines, without
 * an index by (series, order) (issue 45, history_schema.c). */
#define HISTORY_SHIFT_COLUMNS \
	"SELECT res.value, res.samples, res.verdict, res.accepted, res.run_order," \
	" res.compare_op, res.summary FROM ksftm_results res"
#define HISTORY_SHIFT_FILTER \
	" AND res.status IN " HISTORY_MEASURED_STATUSES \
	" AND COALESCE(res.verdict, '') NOT IN ('" KSFTM_VERDICT_NOT_COMPARABLE "', '" \
	KSFTM_VERDICT_OLD_NOT_COMPARABLE "') AND res.value IS NOT NULL"
#define HISTORY_SHIFT_ARM(usable) \
	HISTORY_SHIFT_COLUMNS \
	" WHERE res.series_id = $1 AND res.comparable = $2 AND res.usable = " usable \
	HISTORY_SHIFT_FILTER \
	" AND (CAST($3 AS TEXT) IS NULL OR res.run_order < $3)" \
	" AND res.run_order >= COALESCE(CAST($4 AS TEXT), '')"
#define HISTORY_SHIFT_MERGED_SQL \
	HISTORY_SHIFT_ARM("1") " UNION ALL " HISTORY_SHIFT_ARM("0") \
	" ORDER BY run_order DESC LIMIT " HISTORY_RECENT_RUNS_SQL

/* The same on PostgreSQL, which keeps ksftm_results_series and reads the
 * series' results through it, newest first (its planner sorts the merged
 * ranges: an Append and a Sort). */
#define HISTORY_SHIFT_SQL \
	HISTORY_SHIFT_COLUMNS \
	" WHERE res.series_id = $1 AND res.comparable = $2" \
	HISTORY_SHIFT_FILTER \
	" AND (CAST($3 AS TEXT) IS NULL OR res.run_order < $3)" \
	" AND res.run_order >= COALESCE(CAST($4 AS TEXT), '')" \
	" ORDER BY res.run_order DESC LIMIT " HISTORY_RECENT_RUNS_SQL

/* Series of the last %zu comparable runs ($1 comparability key, $2 order,
 * $3 pinned order, as above): their ids only, the identities of the few
 * the current run lacks read after (a run's thousand series, not the
 * recent runs' thirty thousand result rows, each joined to its series). */
#define HISTORY_MISSING_SQL \
	"SELECT DISTINCT res.series_id, res.better" \
	" FROM ksftm_results res" \
	" WHERE res.usable = 1 AND res.run_id IN (SELECT id FROM ksftm_runs" \
	"  WHERE comparable = $1 AND (CAST($2 AS TEXT) IS NULL OR run_order < $2)" \
	"  AND (CAST($3 AS TEXT) IS NULL OR run_order <= $3)" \
	"  ORDER BY run_order DESC LIMIT %zu)"

/* Has the history any result of series $1 on machines $2 before order $3
 * (or at all)? Runs after the current one say nothing of it: a backfill
 * ingested newest first finds the later runs stored already. */
#define HISTORY_HAS_ANY_SQL \
	"SELECT 1 FROM ksftm_results WHERE series_id = $1 AND comparable = $2" \
	" AND (CAST($3 AS TEXT) IS NULL OR run_order < $3) LIMIT 1"

/* The latest pinned run's order ($1 comparability key, $2 order). */
#define HISTORY_LATEST_PINNED_SQL \
	"SELECT MAX(run_order) FROM ksftm_runs WHERE comparable = $1" \
	" AND pinned = 1 AND (CAST($2 AS TEXT) IS NULL OR run_order < $2)"

/* The runs of machines $1 ordered after $2, oldest first (the runs an
 * ingest before them judges again, history_replay.c); the newest run's
 * order of machines $1 (a run without an order goes after it). */
#define HISTORY_LATER_RUNS_SQL \
	"SELECT id, run_order, context FROM ksftm_runs WHERE comparable = $1" \
	" AND run_order > $2 ORDER BY run_order"
#define HISTORY_NEWEST_ORDER_SQL \
	"SELECT MAX(run_order) FROM ksftm_runs WHERE comparable = $1"

/* `history`: one series' last %zu results, newest first ($1 series id,
 * $2 NULL for every status, else measurements only); the last column says
 * whether an accepted level of the series starts at the result's run. */
#define HISTORY_POINTS_SQL \
	"SELECT r.run_key, res.run_order, r.context, res.value, res.status, res.verdict," \
	" res.accepted, res.compare_op, res.better, r.pinned, res.policy, res.samples," \
	" (SELECT COUNT(*) FROM ksftm_levels l WHERE l.series_id = res.series_id" \
	"  AND l.comparable = res.comparable AND l.run_order = res.run_order)" \
	" FROM ksftm_results res" \
	" JOIN ksftm_runs r ON r.id = res.run_id WHERE res.series_id = $1" \
	" AND (CAST($2 AS TEXT) IS NULL OR res.status IN " HISTORY_MEASURED_STATUSES ")" \
	" ORDER BY res.run_order DESC LIMIT %zu"

#endif
