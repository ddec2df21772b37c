/*
 * The history suites run against the backend named by $KSFTM_HISTORY_URL
 * (a PostgreSQL server history_pg.sh starts), else a fresh SQLite file:
 * each test gets an empty database at hist_url.
 */
#ifndef KSFTM_HISTORY_FIXTURE_H
#define KSFTM_HISTORY_FIXTURE_H

#include <check.h>

extern char hist_url[512];

/* Check fixtures: an empty database before, removed after. */
void hist_fresh_db(void);
void hist_drop_db(void);

/* A test case running @t with those fixtures. */
TCase *hist_tcase(const char *name, const TTest *t);

struct ksft_metric_report_history;

/* The history at hist_url, opened; the test fails when it cannot be. */
struct ksft_metric_report_history *hist_open(void);

#endif
