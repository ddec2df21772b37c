/* The history suites' database per test (history_fixture.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>
#include <ksftmetric/report.h>

#include "check_case.h"
#include "history_fixture.h"
#include "report/store/db.h"

char hist_url[512];
static char sqlite_path[] = "/tmp/ksftm-history-XXXXXX";

/* Each test gets an empty database. */
void hist_fresh_db(void)
{
	const char *env = getenv("KSFTM_HISTORY_URL");

	if (env && *env) {
		struct db *db;

		snprintf(hist_url, sizeof(hist_url), "%s", env);
		ck_assert_int_eq(db_open(hist_url, &db), 0);
		db_exec(db, "DROP TABLE IF EXISTS ksftm_results; DROP TABLE IF EXISTS ksftm_levels;"
			    " DROP TABLE IF EXISTS ksftm_runs;"
			    " DROP TABLE IF EXISTS ksftm_series; DROP TABLE IF EXISTS ksftm_meta");
		db_close(db);
	} else {
		int fd;

		strcpy(sqlite_path + strlen(sqlite_path) - 6, "XXXXXX");
		fd = mkstemp(sqlite_path);
		ck_assert_int_ge(fd, 0);
		close(fd);
		snprintf(hist_url, sizeof(hist_url), "%s", sqlite_path);
	}
}

void hist_drop_db(void)
{
	char side[600];

	if (!getenv("KSFTM_HISTORY_URL")) {
		unlink(sqlite_path);
		snprintf(side, sizeof(side), "%s-wal", sqlite_path);
		unlink(side);
		snprintf(side, sizeof(side), "%s-shm", sqlite_path);
		unlink(side);
	}
}


TCase *hist_tcase(const char *name, const TTest *t)
{
	return ck_tcase(name, t, hist_fresh_db, hist_drop_db);
}

struct ksft_metric_report_history *hist_open(void)
{
	struct ksft_metric_report_history *h;

	ck_assert_msg(ksft_metric_report_history_open(hist_url, &h) == 0, "%s",
		      ksft_metric_report_errmsg());
	return h;
}
