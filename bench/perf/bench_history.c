// SPDX-License-Identifier: GPL-2.0
/*
 * Run history benchmark (issue 13, "Scale"), over the public API: one
 * backend (a SQLite file or a PostgreSQL URL) per invocation.
 *
 *  1. ingest: RUNS runs of a 40-series log (3 repeats per series, names and
 *     labels like the main job's), each timed, beside what `save` does with
 *     the same report in the same run (ksft_metric_report_baseline_add_report
 *     + _baseline_format into a one-run baseline): medians and their ratio,
 *     early (first 1,000 runs) and late (last 1,000);
 *  2. `history` of one series (text, JSON; --last 1000 = the default, and
 *     --last 10000) when the history holds 1,000 and RUNS runs of it;
 *  3. `compare --db` of a 1,000-series run against a 30-run window, beside
 *     ksft_metric_report_compare() of the same run against an in-memory
 *     baseline of the same 30 runs, then with 10x more runs in the history;
 *  4. bytes per run (SQLite: the file once closed, i.e. checkpointed, plus
 *     any -wal; PostgreSQL: pg_total_relation_size of the ksftm_ tables,
 *     read through the library's internal db layer, which is not timed).
 *
 * Synthetic logs are KTAP text built in memory and read with
 * ksft_metric_report_read_buffer(). Prints medians; never passes or fails
 * on a time. bench/perf/bench_history.sh runs it against both backends.
 *
 * usage: bench-history DB [RUNS] [BIG_RUNS] [REPS] [FILL_SERIES]
 *        (defaults 10000, 300, 7, 4; DB: a fresh SQLite path or postgresql://)
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <ksftmetric/report.h>

#include "bench_log.h"
#include "bench_util.h"
#include "report/store/db.h"

#define SMALL_SERIES 40
#define BIG_SERIES 1000
#define WINDOW 30

static void die(const char *what, int ret)
{
	fprintf(stderr, "%s: %d: %s\n", what, ret, ksft_metric_report_errmsg());
	exit(1);
}

struct hist {
	const char *url;
	struct ksft_metric_report_history *h;
	int pg;
};

/* CI order: one sequence over both phases, so the newest runs are last. */
static size_t order_seq;

static void ingest(struct hist *hs, const struct ksft_metric_report *r, const char *tag,
		   size_t run, size_t n_series)
{
	struct ksft_metric_report_ingest_opts o;
	char id[64], order[64];
	int ret;

	snprintf(id, sizeof(id), "%s-%06zu", tag, run);
	snprintf(order, sizeof(order), "2026-12-01T%08zu", order_seq++);
	bench_run_opts(&o, id, order);
	ret = ksft_metric_report_history_ingest(hs->h, r, &o, NULL);
	if (ret != (int)n_series)
		die("ingest", ret);
}

/* What `save` does with a run: a baseline of it, as file text. */
static void save_like(const struct ksft_metric_report *r)
{
	struct ksft_metric_report_baseline *b = ksft_metric_report_baseline_new();
	const char *src[1] = { "run.log" };
	char *text = NULL;
	size_t len;

	if (!b || ksft_metric_report_baseline_add_report(b, r, src, 1) != 1 ||
	    ksft_metric_report_baseline_format(b, &text, &len))
		die("baseline", -1);
	ksft_metric_report_text_free(text);
	ksft_metric_report_baseline_free(b);
}

/* The database's size (bytes): closed and reopened for SQLite, so that
 * the WAL is checkpointed into the file. */
static double db_bytes(struct hist *hs)
{
	double total = 0;

	if (!hs->pg) {
		char wal[4200];
		struct stat st;
		int ret;

		ksft_metric_report_history_close(hs->h);
		if (stat(hs->url, &st))
			die("stat", -1);
		total = (double)st.st_size;
		snprintf(wal, sizeof(wal), "%s-wal", hs->url);
		if (!stat(wal, &st))
			total += (double)st.st_size;
		if ((ret = ksft_metric_report_history_open(hs->url, &hs->h)))
			die("open", ret);
	} else {
		struct db *db;
		struct db_rows *rows;

		if (db_open(hs->url, &db) ||
		    db_query(db, "SELECT SUM(pg_total_relation_size(c.oid)) FROM pg_class c"
			     " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind = 'r'"
			     " AND c.relname LIKE 'ksftm\\_%' AND n.nspname = current_schema()",
			     NULL, 0, &rows))
			die("size query", -1);
		total = strtod(db_rows_get(rows, 0, 0), NULL);
		db_rows_free(rows);
		db_close(db);
	}
	return total;
}

/* The fastest of the repetitions last timed (bench_median sorts): on a
 * shared machine, the cost with the least interference, beside the median. */
static double last_min;

/* Median latency (s) of `history` of one series at the history's size. */
static double time_history(struct hist *hs, const char *series, size_t last, int fmt, int reps,
			   size_t *points)
{
	struct ksft_metric_report_history_opts o = KSFT_METRIC_REPORT_HISTORY_OPTS_INIT;
	double *t = calloc((size_t)reps, sizeof(*t)), m;
	int i, ret;

	o.series = series;
	o.last = last;
	for (i = 0; i < reps; i++) {
		char *out = NULL;
		size_t len;
		double t0 = bench_mono_ns();

		ret = ksft_metric_report_history_format(hs->h, &o, fmt, &out, &len);
		t[i] = (bench_mono_ns() - t0) / 1e9;
		if (ret)
			die("history", ret);
		if (fmt == KSFT_METRIC_REPORT_JSON) {
			/* One series (one "changes" key), its points ("run" keys). */
			const char *p = out;
			size_t n_series = 0;

			*points = 0;
			while ((p = strstr(p, "\"run\": ")))
				(*points)++, p++;
			for (p = out; (p = strstr(p, "\"changes\": ")); p++)
				n_series++;
			if (n_series != 1) {
				fprintf(stderr, "history filter %s matches %zu series\n", series, n_series);
				exit(1);
			}
		}
		ksft_metric_report_text_free(out);
	}
	m = bench_median(t, reps);
	last_min = t[0];
	free(t);
	return m;
}

static void history_figures(struct hist *hs, size_t runs, int reps)
{
	/* One series: the first case's CPU utilization (gated). */
	static const char series[] = "small.forward.tcp000 cpu.utilization";
	static const size_t last[3] = { 100, 0, 10000 };	/* 0: the default, 1000 */
	size_t pts[3] = { 0 }, dummy;
	double m[6], mn[6];
	int k;

	for (k = 0; k < 6; k++) {
		m[k] = time_history(hs, series, last[k / 2],
				    k % 2 ? KSFT_METRIC_REPORT_JSON : KSFT_METRIC_REPORT_TEXT, reps,
				    k % 2 ? &pts[k / 2] : &dummy);
		mn[k] = last_min;
	}
	printf("history of one series, %6zu runs in the history (median (min) of %d):\n", runs, reps);
	for (k = 0; k < 3; k++)
		printf("  --last %-5zu%10s %5zu points  text %7.2f (%6.2f) ms  json %7.2f (%6.2f) ms\n",
		       last[k] ? last[k] : 1000, last[k] ? "" : "(default)", pts[k], m[2 * k] * 1e3,
		       mn[2 * k] * 1e3, m[2 * k + 1] * 1e3, mn[2 * k + 1] * 1e3);
}

/* Median latency (s) of compare --db and of the file-baseline compare. */
static void compare_figures(struct hist *hs, const struct ksft_metric_report *cur,
			    struct ksft_metric_report_baseline *base, const char *base_text,
			    size_t base_len, size_t runs, int reps)
{
	struct ksft_metric_report_gate_opts go = KSFT_METRIC_REPORT_GATE_OPTS_INIT;
	double *tdb = calloc((size_t)reps, sizeof(double));
	double *tfile = calloc((size_t)reps, sizeof(double));
	double *tload = calloc((size_t)reps, sizeof(double));
	size_t rows_db = 0, rows_file = 0;
	int i, ret;

	go.window = WINDOW;
	go.context = ctx;
	go.n_context = sizeof(ctx) / sizeof(ctx[0]);
	for (i = 0; i < reps; i++) {
		struct ksft_metric_report_comparison *c = NULL;
		struct ksft_metric_report_baseline *loaded;
		double t0 = bench_mono_ns();

		ret = ksft_metric_report_history_compare(hs->h, cur, &go, &c);
		tdb[i] = (bench_mono_ns() - t0) / 1e9;
		if (ret < 0)
			die("history compare", ret);
		rows_db = ksft_metric_report_comparison_rows(c);
		ksft_metric_report_comparison_free(c);

		t0 = bench_mono_ns();
		ret = ksft_metric_report_compare(cur, base, NULL, &c);
		tfile[i] = (bench_mono_ns() - t0) / 1e9;
		if (ret < 0)
			die("compare", ret);
		rows_file = ksft_metric_report_comparison_rows(c);
		ksft_metric_report_comparison_free(c);

		/* compare --baseline FILE also loads the file. */
		loaded = ksft_metric_report_baseline_new();
		t0 = bench_mono_ns();
		ret = ksft_metric_report_baseline_load(loaded, base_text, base_len, "base.json");
		c = NULL;
		if (ret == WINDOW)
			ret = ksft_metric_report_compare(cur, loaded, NULL, &c);
		else
			ret = -1;
		tload[i] = (bench_mono_ns() - t0) / 1e9;
		if (ret < 0)
			die("load + compare", ret);
		ksft_metric_report_comparison_free(c);
		ksft_metric_report_baseline_free(loaded);
	}
	{
		double d = bench_median(tdb, reps), f = bench_median(tfile, reps);
		double l = bench_median(tload, reps);

		printf("compare of a %d-series run, window %d, %zu runs in the history (median of %d):\n",
		       BIG_SERIES, WINDOW, runs, reps);
		printf("  compare --db (history_compare)       %8.1f ms  (%zu rows; min %.1f ms)\n",
		       d * 1e3, rows_db, tdb[0] * 1e3);
		printf("  file compare, baseline in memory     %8.1f ms  (%zu rows)  ratio db/file %.1f\n",
		       f * 1e3, rows_file, d / f);
		printf("  file compare incl. baseline_load     %8.1f ms  ratio db/(load+compare) %.2f\n",
		       l * 1e3, d / l);
	}
	free(tdb);
	free(tfile);
	free(tload);
}

static double median_of(const double *v, size_t from, size_t to)
{
	size_t n = to - from;
	double *c = malloc(n * sizeof(*c)), m;

	memcpy(c, v + from, n * sizeof(*c));
	m = bench_median(c, (int)n);
	free(c);
	return m;
}

int main(int argc, char **argv)
{
	struct hist hs = { 0 };
	size_t runs = argc > 2 ? strtoul(argv[2], NULL, 10) : 10000;
	size_t big_runs = argc > 3 ? strtoul(argv[3], NULL, 10) : 300;
	int reps = argc > 4 ? atoi(argv[4]) : 7, ret;
	size_t fill = argc > 5 ? strtoul(argv[5], NULL, 10) : 4;
	size_t i, early = runs < 1000 ? runs : 1000;
	size_t late = runs - early < 100 ? runs - early : 100;
	double *t_ingest, *t_save = NULL, *t_read, bytes0, bytes1, bytes2;
	size_t n_save = 0;
	struct buf b = { 0 };

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2 || runs < 1 || big_runs < WINDOW || reps < 1 || fill < 4 ||
	    fill > SMALL_SERIES) {
		fprintf(stderr, "usage: bench-history DB [RUNS] [BIG_RUNS>=%d] [REPS] [FILL_SERIES]\n",
			WINDOW);
		return 2;
	}
	hs.url = argv[1];
	hs.pg = !strncmp(hs.url, "postgres", 8);
	if ((ret = ksft_metric_report_history_open(hs.url, &hs.h)))
		die("open", ret);
	bytes0 = bytes1 = db_bytes(&hs);
	t_ingest = calloc(runs, sizeof(double));
	t_read = calloc(runs, sizeof(double));
	t_save = calloc(runs, sizeof(double));
	if (!t_ingest || !t_read || !t_save)
		return 1;
	printf("backend: %s\n", hs.pg ? "PostgreSQL" : "SQLite");

	/*
	 * 1 + 2: the first 1,000 and the last 100 runs are of the 40-series
	 * log; the runs between, which only lengthen the history, are of its
	 * first FILL_SERIES series (default 4: its first case, the same
	 * identities), so that the history of the series `history` shows
	 * reaches RUNS runs in a time a shared VM can afford. `history` at
	 * 1,000 and RUNS runs. With fewer series per run, a series' rows sit
	 * closer together on disk: --last 100 reads runs of one kind (the last
	 * 100, all 40-series) at both sizes; FILL_SERIES 40 makes all alike.
	 */
	for (i = 0; i < runs; i++) {
		int full = i < early || i >= runs - late;
		size_t n = full ? SMALL_SERIES : fill;
		struct ksft_metric_report *r;
		double t0;

		make_log(&b, n, "small");
		t0 = bench_mono_ns();
		r = read_log(&b, n);
		t_read[i] = (bench_mono_ns() - t0) / 1e9;
		/* The baseline beside it, in the same stretch of the run. */
		if (full) {
			t0 = bench_mono_ns();
			save_like(r);
			t_save[n_save++] = (bench_mono_ns() - t0) / 1e9;
		}
		t0 = bench_mono_ns();
		ingest(&hs, r, "small", i, n);
		t_ingest[i] = (bench_mono_ns() - t0) / 1e9;
		ksft_metric_report_free(r);
		if (i + 1 == early) {
			bytes1 = db_bytes(&hs);
			printf("bytes per %d-series run: %.0f (%.1f MB for %zu runs)\n", SMALL_SERIES,
			       (bytes1 - bytes0) / early, (bytes1 - bytes0) / 1e6, early);
			if (early < runs)
				history_figures(&hs, i + 1, reps);
		}
	}
	{
		double e = median_of(t_ingest, 0, early);
		double l = late ? median_of(t_ingest, runs - late, runs) : NAN;
		double f = runs - late > early ? median_of(t_ingest, early, runs - late) : NAN;
		double save = median_of(t_save, 0, n_save), read = median_of(t_read, 0, early);
		double pts = SMALL_SERIES * REPEATS;

		printf("ingest of a %d-series run (%d points):\n", SMALL_SERIES, SMALL_SERIES * REPEATS);
		printf("  runs %5zu-%-5zu  median %6.2f ms  %8.0f points/s  %6.1f runs/s\n",
		       (size_t)1, early, e * 1e3, pts / e, 1 / e);
		if (late)
			printf("  runs %5zu-%-5zu  median %6.2f ms  %8.0f points/s  %6.1f runs/s\n",
			       runs - late + 1, runs, l * 1e3, pts / l, 1 / l);
		if (!isnan(f))
			printf("  (runs %zu-%zu, %zu series each: median %.2f ms, %.0f points/s)\n",
			       early + 1, runs - late, fill, f * 1e3, (double)(fill * REPEATS) / f);
		printf("  baseline: save of the same report (baseline_add_report + _format) "
		       "median %.3f ms; read_buffer of its log %.3f ms\n", save * 1e3, read * 1e3);
		printf("  ratio ingest / save: %.0f (first runs), %.0f (last runs)\n", e / save,
		       l / save);
	}
	history_figures(&hs, runs, reps);
	bytes1 = db_bytes(&hs);

	/* 3: a 1,000-series run against a 30-run window, then 10x more runs. */
	{
		struct ksft_metric_report_baseline *base = ksft_metric_report_baseline_new();
		struct ksft_metric_report *cur;
		double *t_big = calloc(big_runs, sizeof(double));
		char *base_text = NULL;
		size_t base_len = 0;
		const char *src[1] = { "run.log" };

		for (i = 0; i < big_runs; i++) {
			struct ksft_metric_report *r;
			double t0;

			make_log(&b, BIG_SERIES, "big");
			r = read_log(&b, BIG_SERIES);
			t0 = bench_mono_ns();
			ingest(&hs, r, "big", i, BIG_SERIES);
			t_big[i] = (bench_mono_ns() - t0) / 1e9;
			if ((i < WINDOW || i >= big_runs - WINDOW) &&
			    ksft_metric_report_baseline_add_report(base, r, src, 1) < 0)
				die("baseline", -1);
			ksft_metric_report_free(r);
			if (i + 1 == WINDOW) {
				if (ksft_metric_report_baseline_format(base, &base_text, &base_len))
					die("baseline format", -1);
				make_log(&b, BIG_SERIES, "big");
				cur = read_log(&b, BIG_SERIES);
				compare_figures(&hs, cur, base, base_text, base_len, i + 1, reps);
				ksft_metric_report_free(cur);
				ksft_metric_report_text_free(base_text);
				ksft_metric_report_baseline_free(base);
				base = ksft_metric_report_baseline_new();
			}
		}
		if (big_runs >= 2 * WINDOW) {
			if (ksft_metric_report_baseline_format(base, &base_text, &base_len))
				die("baseline format", -1);
			make_log(&b, BIG_SERIES, "big");
			cur = read_log(&b, BIG_SERIES);
			compare_figures(&hs, cur, base, base_text, base_len, big_runs, reps);
			ksft_metric_report_free(cur);
			ksft_metric_report_text_free(base_text);
		}
		ksft_metric_report_baseline_free(base);
		printf("ingest of a %d-series run: median %.1f ms, %.0f points/s\n", BIG_SERIES,
		       median_of(t_big, 0, big_runs) * 1e3,
		       BIG_SERIES * REPEATS / median_of(t_big, 0, big_runs));
		free(t_big);
	}
	bytes2 = db_bytes(&hs);
	printf("bytes per %d-series run: %.0f\n", BIG_SERIES, (bytes2 - bytes1) / big_runs);
	ksft_metric_report_history_close(hs.h);
	free(t_ingest);
	free(t_read);
	free(t_save);
	free(b.p);
	return 0;
}
