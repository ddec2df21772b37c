/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Replaying recorded iperf3 measurements through regression gates: ours
 * (lib/report/judge/gate.c, the library's own gate_judge(), and
 * changepoint_find()) and the methods users would pick instead, each
 * re-implemented from its project's source (see gate_replay.c).
 *
 * Shared by bench/gate_accuracy (the table in doc/gate-record.rst)
 * and bench/gate/check_gate_accuracy.c (the same replay on a small
 * committed corpus). Deterministic: every draw comes from a seeded
 * xorshift64* generator; nothing is timed.
 *
 * Runs are built from real measurements: a run of r repeats is r
 * measurements of one configuration drawn with replacement, its value
 * their median (the throughput policy's compare op, p50). The corpus
 * holds one real series, so each of a CI run's 40 series is resampled
 * independently from it: this keeps the real distribution of the noise
 * (its skew, its tails) but not its drift in time or any correlation
 * between series.
 */
#ifndef KSFTM_BENCH_GATE_REPLAY_H
#define KSFTM_BENCH_GATE_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#define REPLAY_MAX_LEVELS 8

/* The q compare --db and ingest use (DEFAULT_FDR, lib/report/judge/history_gate.c). */
#define REPLAY_CLI_Q 0.01

/* The measurements of one configuration (one nftables rule count). */
struct replay_level {
	int rules;
	double *gbps;
	size_t n;
	double mean, cv;
	double drop;		/* 1 - mean / mean of rules 0 (same recording) */
};

/* One recording; lv[0] is always rules 0, the others by rule count. */
struct replay_corpus {
	struct replay_level lv[REPLAY_MAX_LEVELS];
	size_t n_lv;
};

/* 0, or -1 with a message on stderr. */
int replay_corpus_load(const char *path, struct replay_corpus *c);
void replay_corpus_free(struct replay_corpus *c);

enum replay_method {
	RM_GATE,		/* ours: gate_judge(), BH at the CLI's q over the run */
	RM_FIXED5,		/* 5% below the previous run (zperf, compare) */
	RM_LKP,			/* lkp-tests: ranges separated */
	RM_CONBENCH,		/* conbench: lookback z-score */
	RM_ASV,			/* asv compare: factor 1.1 and is_different */
	RM_TTEST,		/* Bencher t_test, lower boundary 0.99 */
	RM_COUNT
};

const char *replay_method_name(int m);
/* Whether a method has a threshold that can be tuned. */
int replay_method_tunable(int m);
/* A method's threshold in its own units, for printing (q, %, z, ...). */
double replay_threshold_display(int m, double thr);
/* The default threshold on the method's score (alarm: score >= thr). */
double replay_default_threshold(int m);

struct replay_opts {
	unsigned repeats;	/* measurements per run (1, 3, 5) */
	size_t series;		/* series per CI run (40) */
	size_t window;		/* comparable runs in the history (30) */
	size_t fa_runs;		/* run-level decisions without change, per half */
	size_t det_runs;	/* run-level decisions per slowdown */
	uint64_t seed;
};

struct replay_rates {
	size_t fa_runs;			/* decisions in each half */
	size_t fa[RM_COUNT];		/* runs failed, default threshold */
	double tuned[RM_COUNT];		/* threshold with FA <= 1% on half A */
	size_t fa_tuned[RM_COUNT];	/* runs failed on half B at it */
	size_t det_runs;
	/* The slowed series flagged, per level (index into the corpus). */
	size_t det[REPLAY_MAX_LEVELS][RM_COUNT];
	size_t det_tuned[REPLAY_MAX_LEVELS][RM_COUNT];
};

/* False alarms and detection of each method at r repeats. 0 or -ENOMEM. */
int replay_rates(const struct replay_corpus *c, const struct replay_opts *o,
		 struct replay_rates *out);

/* Change points: RM_COUNT per-run methods, then these. */
enum {
	RL_CHANGEPOINTS = RM_COUNT, RL_PERFHERDER, RL_GATE_DEFAULT, RL_GATE_2ROW,
	RL_OTAVA,	/* Apache Otava's defaults (otava_port.c), histories >= 50 runs */
	RL_GATE_FULL,	/* compare --db as the history holds runs: gate_judge() at
			   the CLI's q over the last 64 runs (its CUSUM), runs it
			   flagged out of later windows, as ingest keeps them */
	RL_COUNT
};

/* RL_GATE_FULL's gate_level_shift() max_p (default GATE_SHIFT_P). */
extern double replay_shift_p;

struct replay_latency_opts {
	unsigned repeats;
	size_t series, window;
	size_t before;		/* unchanged runs before the shift (60) */
	size_t after;		/* slowed runs watched (30) */
	size_t trials;		/* histories per slowdown */
	size_t fa_histories;	/* 40-series histories without change */
	const double *tuned;	/* RM_COUNT thresholds (NaN or NULL: the
				   default); RL_GATE_DEFAULT is always the CLI's q */
	uint64_t seed;
	double persist;		/* RL_GATE_2ROW: -q flagged in two runs in a
				   row (replay_persistence); >= 0: not run */
};

struct replay_latency {
	size_t trials;
	/* Runs after the shift until the first alert (1 = the first slowed
	 * run), per level and method; SIZE_MAX: not within opts.after. */
	size_t *first[REPLAY_MAX_LEVELS][RL_COUNT];
	size_t fa_histories;
	size_t fa_cp, fa_perfherder, fa_otava;	/* histories with any false alert */
	/* CI runs (the last opts.after of each unchanged history) that
	 * gate_level_shift() fails in any of the 40 series. */
	size_t fa_shift, shift_runs;
};

/* Latency after a shift. 0 or -ENOMEM; free with replay_latency_free(). */
int replay_latency_run(const struct replay_corpus *c, const struct replay_latency_opts *o,
		       struct replay_latency *out);
void replay_latency_free(struct replay_latency *l);

/*
 * A persistence rule on top of our gate: a series fails when gate_judge()
 * flags it (q_value <= q2) in the current run and the one before. Tunes
 * q2 (returned as the score threshold -q2) so that at most 1% of runs of
 * unchanged 40-series histories fail, on @histories histories of
 * @judged runs each, and counts the failing runs on as many fresh ones.
 * 0 or -ENOMEM.
 */
int replay_persistence(const struct replay_corpus *c, const struct replay_latency_opts *o,
		       size_t histories, size_t judged, double *thr, size_t *fa, size_t *runs);

/* Wilson score interval (95%) of k successes in n. */
void replay_wilson(size_t k, size_t n, double *lo, double *hi);

/* The p-quantile (0..1) of v[0..n) (sorts v), SIZE_MAX counts as +inf. */
double replay_median_latency(size_t *v, size_t n);

#endif
