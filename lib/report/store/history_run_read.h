/*
 * A stored run read back as a report (history_run_read.c).
 */
#ifndef KSFTM_HISTORY_RUN_READ_H
#define KSFTM_HISTORY_RUN_READ_H

#include "history.h"

/*
 * Run @run_id (ksftm_runs.id) as report *@r, series k with its identity
 * and id in (*@keys)[k], which point into *@rows (the run's result rows:
 * RESULTS_SQL's columns; without @only, series k is row k). With @only
 * (sorted, @n_only ids), only those series. Free *@keys,
 * ksft_metric_report_free() *@r and db_rows_free() *@rows in any case.
 * @return 0 or a negative errno (-EBADMSG: a row the history should not
 * hold).
 */
int history_run_read(struct db *db, const char *run_id, const long long *only, size_t n_only,
		     struct db_rows **rows, struct ksft_metric_report **r,
		     struct history_key **keys);

/* The run stored at @order (its stored order, unique): *@run_id and its
 * comparability key *@cmp (malloc'd; both NULL: none). */
int history_run_read_at(struct db *db, const char *order, char **run_id, char **cmp);

#endif
