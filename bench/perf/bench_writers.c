// SPDX-License-Identifier: GPL-2.0
/*
 * Many writers into one history (issue 25): WRITERS processes at once, each
 * ingesting RUNS runs of a SERIES-series log into the same database (a
 * PostgreSQL URL, or a SQLite file). Then counts what the history holds:
 * every run, every result row, each series once. Exit 1 if anything was
 * lost or doubled; prints the throughput (result rows per second of wall
 * time, all writers together), which passes or fails nothing.
 *
 * usage: bench-writers [URL] [WRITERS] [RUNS] [SERIES]
 *        (URL default $KSFTM_HISTORY_URL; defaults 16, 1, 1000)
 *   the test many_writers_postgresql runs it on a throwaway server;
 *   bench/perf/bench_history.sh build/bench/bench-writers for a figure.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ksftmetric/report.h>

#include "bench_log.h"
#include "bench_util.h"
#include "report/store/db.h"

/* One writer: RUNS ingests; 0 or 1. */
static int writer(const char *url, int w, int runs, size_t n)
{
	struct ksft_metric_report_history *h;
	struct buf b = { 0 };
	int i, ret;

	if ((ret = ksft_metric_report_history_open(url, &h))) {
		fprintf(stderr, "writer %d: open: %s\n", w, ksft_metric_report_errmsg());
		return 1;
	}
	for (i = 0; i < runs; i++) {
		struct ksft_metric_report_ingest_opts o;
		struct ksft_metric_report *r;
		char id[64], order[64];

		make_log(&b, n, "many");
		r = read_log(&b, n);
		snprintf(id, sizeof(id), "writer%02d-run%04d", w, i);
		snprintf(order, sizeof(order), "2026-12-01T%04d-%02d", i, w);
		bench_run_opts(&o, id, order);
		ret = ksft_metric_report_history_ingest(h, r, &o, NULL);
		ksft_metric_report_free(r);
		if (ret != (int)n) {
			fprintf(stderr, "writer %d run %d: ingest %d: %s\n", w, i, ret,
				ksft_metric_report_errmsg());
			ksft_metric_report_history_close(h);
			free(b.p);
			return 1;
		}
	}
	ksft_metric_report_history_close(h);
	free(b.p);
	return 0;
}

static long count(struct db *db, const char *sql)
{
	struct db_rows *rows;
	long v;

	if (db_query(db, sql, NULL, 0, &rows) || !db_rows_get(rows, 0, 0)) {
		fprintf(stderr, "%s: %s\n", sql, ksft_metric_report_errmsg());
		exit(1);
	}
	v = strtol(db_rows_get(rows, 0, 0), NULL, 10);
	db_rows_free(rows);
	return v;
}

int main(int argc, char **argv)
{
	const char *url = argc > 1 && *argv[1] ? argv[1] : getenv("KSFTM_HISTORY_URL");
	int writers = argc > 2 ? atoi(argv[2]) : 16, runs = argc > 3 ? atoi(argv[3]) : 1;
	size_t n = argc > 4 ? strtoul(argv[4], NULL, 10) : 1000;
	long want_runs, got_runs, got_results, got_series, got_distinct;
	struct ksft_metric_report_history *h;
	pid_t *pids;
	int w, bad = 0, ret;
	struct db *db;
	double t0, t;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!url || writers < 1 || runs < 1 || n < 1) {
		fprintf(stderr, "usage: bench-writers [URL] [WRITERS] [RUNS] [SERIES]\n");
		return 2;
	}
	/* The schema first, so the writers start on an existing history. */
	if ((ret = ksft_metric_report_history_open(url, &h))) {
		fprintf(stderr, "open: %s\n", ksft_metric_report_errmsg());
		return 1;
	}
	ksft_metric_report_history_close(h);
	pids = calloc((size_t)writers, sizeof(*pids));
	if (!pids)
		return 1;
	t0 = bench_mono_ns();
	for (w = 0; w < writers; w++) {
		pids[w] = fork();
		if (pids[w] < 0) {
			perror("fork");
			return 1;
		}
		if (!pids[w])
			_exit(writer(url, w, runs, n));
	}
	for (w = 0; w < writers; w++) {
		int st;

		if (waitpid(pids[w], &st, 0) != pids[w] || !WIFEXITED(st) || WEXITSTATUS(st))
			bad++;
	}
	t = (bench_mono_ns() - t0) / 1e9;
	free(pids);
	if (db_open(url, &db)) {
		fprintf(stderr, "count: %s\n", ksft_metric_report_errmsg());
		return 1;
	}
	want_runs = (long)writers * runs;
	got_runs = count(db, "SELECT COUNT(*) FROM ksftm_runs WHERE run_key LIKE 'writer%'");
	got_results = count(db, "SELECT COUNT(*) FROM ksftm_results res JOIN ksftm_runs r"
			    " ON r.id = res.run_id WHERE r.run_key LIKE 'writer%'");
	got_series = count(db, "SELECT COUNT(*) FROM ksftm_series WHERE case_name LIKE 'many.%'");
	got_distinct = count(db, "SELECT COUNT(DISTINCT series_id) FROM ksftm_results res JOIN"
			     " ksftm_runs r ON r.id = res.run_id WHERE r.run_key LIKE 'writer%'");
	db_close(db);
	printf("%d writers x %d runs of %zu series: %.1f s wall, %.0f result rows/s, %.2f runs/s\n",
	       writers, runs, n, t, (double)want_runs * (double)n / t, (double)want_runs / t);
	printf("runs %ld/%ld, results %ld/%ld, series %ld/%zu (%ld with results), writers failed %d\n",
	       got_runs, want_runs, got_results, want_runs * (long)n, got_series, n, got_distinct,
	       bad);
	return bad || got_runs != want_runs || got_results != want_runs * (long)n ||
	       got_series != (long)n || got_distinct != (long)n;
}
