/*
 * The history suites run against the backend named by $KSFTM_HISTORY_URL
 * (a PostgreSQL server history_pg.sh starts), else a fresh SQLite file:
 * each test gets an empty database at hist_url.
 */
#ifndef KSFTM_HISTORY_FIXTURE_H
#define KSFTM_HISTORY_FIXTURE_H

extern char hist_url[512];

/* Check fixtures: an empty database before, removed after. */
void hist_fresh_db(void);
void hist_drop_db(void);

#endif
