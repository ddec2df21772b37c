/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The time-ordered replay through the product path: recorded runs, in
 * their recorded order, through the very public calls `ksft-metric
 * compare --db` and `ksft-metric ingest` make (tools/cli/cli_compare.c,
 * cli_ingest.c): ksft_metric_report_read_buffer() of a KTAP log holding
 * the run, ksft_metric_report_history_compare() with the CLI's default
 * gate options (window, q), then ksft_metric_report_history_ingest()
 * (which stores the ingest verdict and so the window rules), on a fresh
 * SQLite file. Nothing is resampled and nothing is timed.
 *
 * A corpus (bench/record/record_corpus.sh, record_interference.py,
 * measure_doses.py output) becomes one stream per configuration: its
 * repeats in time order. A CI run of r repeats takes the next r repeats of
 * every stream; each stream is one case of the run's log with the series
 * the producers print for it (throughput, p50, higher, 5 %; cpu.cost of
 * the host, p50, lower, 10 %; cpu.cost.test.best, the best repeat, lower,
 * 10 %; the interference series, shown), so the run's series move together
 * as the recorded ones did (one machine, one drift).
 */
#ifndef KSFTM_BENCH_GATE_PRODUCT_H
#define KSFTM_BENCH_GATE_PRODUCT_H

#include <stddef.h>

/* One repeat; NaN where the recording has no such field. */
struct prod_rep {
	double gbps, cost_host, cost_test, runq_local, runq_remote, others, steal, t;
};

/* The repeats of one configuration, in time order. */
struct prod_stream {
	char name[48];		/* "rules=60", "nb=1 cpus=0/0 dose=0" */
	int dose;		/* rules or dose level, 0: unchanged */
	int neighbours;
	struct prod_rep *rep;
	size_t n;
};

struct prod_corpus {
	struct prod_stream *s;
	size_t n;
};

/* 0, or -1 with a message (file, line, reason) on stderr. */
int prod_corpus_load(const char *path, struct prod_corpus *c);
void prod_corpus_free(struct prod_corpus *c);

/* The gated series of a stream's case, for flags[]. */
enum { PM_GBPS, PM_COST_HOST, PM_COST_TEST, PM_COUNT };

/*
 * What to replay: @n_streams streams (indices into the corpus), @repeats
 * repeats per run. From run @shift_at on (SIZE_MAX: never) stream
 * @target's runs are taken from @after (a recorded dose; NULL: its own),
 * and its cost_test and cost_host are multiplied by @cost_scale and its
 * throughput divided by it (an injected slowdown of a known size; 1: none).
 */
struct prod_plan {
	const size_t *streams;
	size_t n_streams;
	unsigned repeats;
	size_t target, shift_at;
	const struct prod_stream *after;
	double cost_scale;
	const char *db_dir;	/* where the temporary SQLite file goes
				   (NULL: /dev/shm, else /tmp) */
	size_t window;		/* compare's and ingest's --window (0: the CLI's 30) */
	int judge_only_last;	/* 1: the last run is judged (compare --db), not ingested */
};

struct prod_result {
	size_t runs;			/* CI runs replayed */
	int *failed;			/* per run: compare --db's failing rows > 0 */
	/* per run, stream and gated metric: that row failed (a regression) */
	unsigned char *flag;		/* [run][stream][PM_COUNT] */
	size_t disturbed, noise, regressions, judged_rows;
	size_t gated_series;		/* gated series per CI run (present in the corpus) */
	size_t stride;			/* flag[] entries per run: streams x PM_COUNT */
};

/* 0, -ENOMEM, -EIO (message on stderr). Free with prod_result_free(). */
int prod_replay(const struct prod_corpus *c, const struct prod_plan *p, struct prod_result *out);
void prod_result_free(struct prod_result *r);

/* Whether stream @k's metric @m failed in run @j. */
int prod_flagged(const struct prod_result *r, size_t j, size_t k, int m);

#endif
