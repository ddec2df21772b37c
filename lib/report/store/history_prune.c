/*
 * Retention (ksft-metric prune): delete the runs no judgement of a next
 * run can read, and refuse to keep fewer runs than the gate reads.
 *
 * Every query of the gate (history_sql.h, history_window.c) reads, per
 * series and machines (comparable), the newest N results of one class of
 * results (usable ones for the window, measured ones for the recent runs)
 * from a level on (a suffix in time) and, while a run is pinned, up to
 * the pin (a prefix); the missing-series check reads the newest runs of
 * the machines. A run is kept when it is among the newest @keep of its
 * machines, or up to a pinned run, or pinned, or holds one of the newest
 * @keep results of its series in any class (newest N of a union of
 * classes are among the newest N of each), also up to each pinned run.
 * With @keep at least the window and HISTORY_RECENT_RUNS, what a next
 * run's judgement reads is kept row for row: its verdicts do not change
 * (tests/cli/test_cli_prune.py checks them before and after).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "errmsg.h"
#include "history.h"
#include "history_sql.h"
#include "strbuf.h"

/* The class of a result for the gate's queries: usable (the window), and
 * measured with a value and a comparable verdict (the recent runs). */
#define PRUNE_CLASS \
	"res.usable, CASE WHEN res.status IN " HISTORY_MEASURED_STATUSES \
	" AND COALESCE(res.verdict, '') NOT IN ('" KSFTM_VERDICT_NOT_COMPARABLE "', '" \
	KSFTM_VERDICT_OLD_NOT_COMPARABLE "') AND res.value IS NOT NULL THEN 1 ELSE 0 END"

/* The runs to delete, oldest first ($1: how many to keep). */
#define PRUNE_SQL \
	"SELECT r.id FROM ksftm_runs r WHERE r.pinned = 0" \
	" AND r.id NOT IN (SELECT a.id FROM (SELECT id, ROW_NUMBER() OVER" \
	"  (PARTITION BY comparable ORDER BY run_order DESC) AS k FROM ksftm_runs) a" \
	"  WHERE a.k <= CAST($1 AS INTEGER))" \
	" AND r.id NOT IN (SELECT b.id FROM (SELECT q.id, ROW_NUMBER() OVER" \
	"  (PARTITION BY p.id ORDER BY q.run_order DESC) AS k FROM ksftm_runs p" \
	"  JOIN ksftm_runs q ON p.pinned = 1 AND q.comparable = p.comparable" \
	"  AND q.run_order <= p.run_order) b WHERE b.k <= CAST($1 AS INTEGER))" \
	" AND r.id NOT IN (SELECT c.run_id FROM (SELECT res.run_id, ROW_NUMBER() OVER" \
	"  (PARTITION BY res.series_id, res.comparable, " PRUNE_CLASS \
	"  ORDER BY res.run_order DESC) AS k FROM ksftm_results res) c" \
	"  WHERE c.k <= CAST($1 AS INTEGER))" \
	" AND r.id NOT IN (SELECT d.run_id FROM (SELECT res.run_id, ROW_NUMBER() OVER" \
	"  (PARTITION BY p.id, res.series_id, " PRUNE_CLASS \
	"  ORDER BY res.run_order DESC) AS k FROM ksftm_runs p JOIN ksftm_results res" \
	"  ON p.pinned = 1 AND res.comparable = p.comparable" \
	"  AND res.run_order <= p.run_order) d WHERE d.k <= CAST($1 AS INTEGER))" \
	" ORDER BY r.run_order"

/* Runs deleted per statement (a list of ids as parameters). */
#define PRUNE_BATCH 256

/* Count the results of runs @from..@from + @n of @rows, then (unless
 * @dry_run) delete them and the runs. */
static int delete_batch(struct db *db, const struct db_rows *rows, size_t from, size_t n,
			int dry_run, unsigned long long *results)
{
	static const char *const sql[] = {
		"SELECT COUNT(*) FROM ksftm_results WHERE run_id IN (",
		"DELETE FROM ksftm_results WHERE run_id IN (",
		"DELETE FROM ksftm_runs WHERE id IN (",
	};
	const char *p[PRUNE_BATCH];
	struct strbuf sb = STRBUF_INIT;
	struct db_rows *count = NULL;
	size_t i, s;
	int ret = 0;

	for (i = 0; i < n; i++)
		p[i] = db_rows_get(rows, from + i, 0);
	for (s = 0; !ret && s < (dry_run ? 1 : sizeof(sql) / sizeof(sql[0])); s++) {
		sb.len = 0;
		strbuf_adds(&sb, sql[s]);
		for (i = 0; i < n; i++) {
			char num[48];	/* ", CAST($" a size_t " AS BIGINT)" */

			snprintf(num, sizeof(num), "%sCAST($%zu AS BIGINT)", i ? ", " : "", i + 1);
			strbuf_adds(&sb, num);
		}
		strbuf_addc(&sb, ')');
		if (sb.oom) {
			ret = ksftm_oom();
			break;
		}
		ret = db_query(db, sb.data, p, (int)n, s ? NULL : &count);
		if (!ret && !s) {
			if (db_rows_count(count) && db_rows_get(count, 0, 0))
				*results += strtoull(db_rows_get(count, 0, 0), NULL, 10);
			db_rows_free(count);
		}
	}
	strbuf_free(&sb);
	return ret;
}

int history_prune(struct history *h, size_t keep, size_t window, int dry_run,
		  size_t *runs, unsigned long long *results)
{
	size_t need = history_window_rule_size(window), i, n;
	struct db *db = history_db(h);
	struct db_rows *rows = NULL;
	char kbuf[32];
	const char *p[1] = { kbuf };
	int ret;

	*runs = 0;
	*results = 0;
	if (need < HISTORY_RECENT_RUNS)
		need = HISTORY_RECENT_RUNS;
	if (keep < need)
		return ksftm_fail(EINVAL, "keeping %zu runs would prune runs the kept window"
				  " needs: the gate reads %zu (a window of %zu runs, and the last"
				  " %d of each series for its level shifts); keep at least %zu",
				  keep, need, history_window_rule_size(window),
				  HISTORY_RECENT_RUNS, need);
	if ((ret = history_writable(h)))
		return ret;
	snprintf(kbuf, sizeof(kbuf), "%zu", keep);
	if (!dry_run && (ret = db_begin_write(db)))
		return ret;
	ret = db_query(db, PRUNE_SQL, p, 1, &rows);
	n = ret ? 0 : db_rows_count(rows);
	if (!ret && (ret = db_rows_check(db, rows, "ksftm_runs.id", -1, "ksftm_runs")))
		n = 0;
	for (i = 0; !ret && i < n; i += PRUNE_BATCH) {
		size_t k = n - i < PRUNE_BATCH ? n - i : PRUNE_BATCH;

		ret = delete_batch(db, rows, i, k, dry_run, results);
		if (!ret)
			*runs += k;
	}
	db_rows_free(rows);
	if (!dry_run) {
		if (!ret)
			ret = db_commit(db);
		if (ret)
			db_rollback(db);
	}
	if (ret) {
		*runs = 0;
		*results = 0;
	}
	return ret;
}
