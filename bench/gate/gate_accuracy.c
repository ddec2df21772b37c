/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How accurate is the history gate? Replays recorded iperf3 corpora
 * (bench/record/record_corpus.sh) through our gate and the methods users would
 * pick instead, and prints, per method and number of repeats: run-level
 * false alarms (95% Clopper-Pearson interval), detection per recorded slowdown at
 * the method's default threshold and at the threshold tuned to <= 1%
 * run-level false alarms, the smallest slowdown detected in >= 50% of
 * runs at <= 1% false alarms, and how many runs after a shift each one
 * first alerts. Each recording is judged against its own unchanged runs.
 *
 *   build/bench/gate_accuracy bench/corpus/iperf3-netns-*.jsonl
 *
 * Options: --runs N (run-level decisions per half, default 4000),
 * --det N (per slowdown, 2000), --trials N (latency histories per
 * slowdown, 100), --window N (runs in the history, 30), --seed S,
 * --repeats LIST (e.g. 1,3,5). See
 * bench/gate/gate_replay.h for how runs are built and what that leaves out.
 * This is the resampled replay; bench/gate_timeline is the time-ordered
 * one through the product path.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gate_replay.h"
#include "gate_stats.h"

#define SERIES 40
static size_t window_runs = 30;
#define WINDOW window_runs

static void print_corpus(const char *path, const struct replay_corpus *c)
{
	size_t i;

	printf("\n== %s ==\n", path);
	printf("  rules      n   Gbit/s     CV    drop (vs rules 0 of this recording)\n");
	for (i = 0; i < c->n_lv; i++)
		printf("  %5d  %5zu  %7.2f  %5.1f%%  %5.1f%%\n", c->lv[i].rules, c->lv[i].n,
		       c->lv[i].mean, 100 * c->lv[i].cv, 100 * c->lv[i].drop);
}

static void pct_ci(size_t k, size_t n, char *buf, size_t len)
{
	double lo, hi;

	stats_clopper_pearson(k, n, &lo, &hi);
	snprintf(buf, len, "%5.1f%% [%4.1f,%5.1f]", 100.0 * (double)k / (double)n, 100 * lo,
		 100 * hi);
}

static void thr_text(int m, double thr, int tuned, char *buf, size_t len)
{
	if (isnan(thr)) {
		snprintf(buf, len, "%s", m == RM_TTEST ? "B=0.99" : "-");
		return;
	}
	switch (m) {
	case RM_GATE:
		snprintf(buf, len, "q=%.3g", replay_threshold_display(m, thr));
		break;
	case RM_FIXED5:
		snprintf(buf, len, "%.1f%%", replay_threshold_display(m, thr));
		break;
	case RM_CONBENCH:
		snprintf(buf, len, "z=%.2f", thr);
		break;
	case RM_ASV:
		/* Score 0: the 99% intervals overlap, as they always do
		 * with one sample a side; tuning then finds nothing. */
		if (thr <= 1e-300)
			snprintf(buf, len, "never");
		else
			snprintf(buf, len, "x%.3f", thr);
		break;
	case RM_TTEST:
		snprintf(buf, len, "t=%.2f", thr);
		break;
	default:
		snprintf(buf, len, "%s", tuned ? "-" : "default");
	}
}

/* The smallest slowdown detected in >= 50% of runs at an operating point
 * with <= 1% run-level false alarms (default if it qualifies, else tuned). */
static void smallest(const struct replay_corpus *c, const struct replay_rates *r, int m,
		     char *buf, size_t len)
{
	double fa_def = (double)r->fa[m] / (double)r->fa_runs;
	double fa_tun = (double)r->fa_tuned[m] / (double)r->fa_runs;
	int use_def = fa_def <= 0.01, use_tun = !isnan(r->tuned[m]) && fa_tun <= 0.01;
	size_t lv;

	for (lv = 1; lv < c->n_lv; lv++) {
		double d = use_def ? (double)r->det[lv][m] / (double)r->det_runs : 0;
		double t = use_tun ? (double)r->det_tuned[lv][m] / (double)r->det_runs : 0;

		if (d >= 0.5 || t >= 0.5) {
			snprintf(buf, len, "%.1f%%", 100 * c->lv[lv].drop);
			return;
		}
	}
	snprintf(buf, len, "%s", use_def || use_tun ? "none" : "n/a (FA>1%)");
}

static int run_corpus(const char *path, const unsigned *reps, size_t n_reps, size_t runs,
		      size_t det, size_t trials, uint64_t seed)
{
	struct replay_corpus c;
	size_t ri, lv;
	int m;

	if (replay_corpus_load(path, &c))
		return 1;
	print_corpus(path, &c);
	if (c.n_lv < 2) {
		printf("  (no slowed runs: nothing to detect)\n");
		replay_corpus_free(&c);
		return 0;
	}
	for (ri = 0; ri < n_reps; ri++) {
		struct replay_opts o = { reps[ri], SERIES, WINDOW, runs, det, seed + reps[ri] };
		struct replay_latency_opts lo = { reps[ri], SERIES, WINDOW,
						  WINDOW >= 60 ? WINDOW + 1 : 60, 30, trials,
						  trials * 2, NULL, seed + 100 + reps[ri], 0 };
		struct replay_latency lat;
		struct replay_rates r;
		char buf[64], buf2[64];
		double p_thr = 0;
		size_t p_fa = 0, p_runs = 0;

		if (replay_rates(&c, &o, &r)) {
			fprintf(stderr, "out of memory\n");
			replay_corpus_free(&c);
			return 1;
		}
		printf("\n-- r = %u repeat%s per run (run value: median), %d series per CI run, "
		       "window %zu runs --\n", reps[ri], reps[ri] > 1 ? "s" : "", SERIES, WINDOW);
		printf("  run-level false alarms: %zu runs per row; detection: %zu runs per "
		       "slowdown, the slowed series flagged\n", r.fa_runs, r.det_runs);
		printf("  %-22s %-8s %-22s", "method", "thresh", "run-level FA [95% CI]");
		for (lv = 1; lv < c.n_lv; lv++)
			printf("  det@%4.1f%%", 100 * c.lv[lv].drop);
		printf("  smallest@FA<=1%%\n");
		for (m = 0; m < RM_COUNT; m++) {
			thr_text(m, m == RM_TTEST ? NAN : replay_default_threshold(m), 0, buf,
				 sizeof(buf));
			pct_ci(r.fa[m], r.fa_runs, buf2, sizeof(buf2));
			printf("  %-22s %-8s %-22s", replay_method_name(m), buf, buf2);
			for (lv = 1; lv < c.n_lv; lv++)
				printf("  %8.1f%%", 100.0 * (double)r.det[lv][m] / (double)r.det_runs);
			smallest(&c, &r, m, buf, sizeof(buf));
			printf("  %s\n", buf);
			if (isnan(r.tuned[m]))
				continue;
			thr_text(m, r.tuned[m], 1, buf, sizeof(buf));
			pct_ci(r.fa_tuned[m], r.fa_runs, buf2, sizeof(buf2));
			printf("  %-22s %-8s %-22s", "  tuned to FA<=1%", buf, buf2);
			for (lv = 1; lv < c.n_lv; lv++)
				printf("  %8.1f%%",
				       100.0 * (double)r.det_tuned[lv][m] / (double)r.det_runs);
			printf("\n");
		}
		if (!trials)
			continue;
		lo.tuned = r.tuned;
		if (replay_persistence(&c, &lo, 100, 40, &p_thr, &p_fa, &p_runs)) {
			fprintf(stderr, "out of memory\n");
			replay_corpus_free(&c);
			return 1;
		}
		lo.persist = p_thr;
		pct_ci(p_fa, p_runs, buf2, sizeof(buf2));
		printf("  ours, 2 runs in a row (a series flagged at q2 in this run and the previous): "
		       "q2=%.3g\n  tuned on %zu unchanged runs, false alarms on %zu fresh ones: %s\n",
		       -p_thr, p_runs, p_runs, buf2);
		if (replay_latency_run(&c, &lo, &lat)) {
			fprintf(stderr, "out of memory\n");
			replay_corpus_free(&c);
			return 1;
		}
		printf("  latency: %zu histories of %zu unchanged runs, then 30 slowed; runs after "
		       "the shift to the first alert\n", lat.trials, lo.before);
		printf("  (median, and share found within 30); per-run methods at their tuned "
		       "(FA<=1%%) threshold\n");
		printf("  %-38s", "method (run-level FA)");
		for (lv = 1; lv < c.n_lv; lv++)
			printf("  @%4.1f%%: median found", 100 * c.lv[lv].drop);
		printf("\n");
		for (m = 0; m < RL_COUNT; m++) {
			size_t fa = m == RL_GATE_DEFAULT ? r.fa[RM_GATE] :
				m >= RM_COUNT ? 0 : isnan(r.tuned[m]) ? r.fa[m] : r.fa_tuned[m];

			if (m == RL_GATE_2ROW)
				snprintf(buf, sizeof(buf), "%s (FA %.1f%%)", replay_method_name(m),
					 100.0 * (double)p_fa / (double)p_runs);
			else if (m < RM_COUNT || m == RL_GATE_DEFAULT)
				snprintf(buf, sizeof(buf), "%s (FA %.1f%%)", replay_method_name(m),
					 100.0 * (double)fa / (double)r.fa_runs);
			else
				snprintf(buf, sizeof(buf), "%s", replay_method_name(m));
			printf("  %-38s", buf);
			for (lv = 1; lv < c.n_lv; lv++) {
				size_t k, found = 0;
				double med;

				for (k = 0; k < lat.trials; k++)
					found += lat.first[lv][m][k] != SIZE_MAX;
				med = replay_median_latency(lat.first[lv][m], lat.trials);
				if (isinf(med))
					printf("  %14s %4.0f%%", ">30", 100.0 * (double)found / (double)lat.trials);
				else
					printf("  %14.0f %4.0f%%", med, 100.0 * (double)found / (double)lat.trials);
			}
			printf("\n");
		}
		pct_ci(lat.fa_cp, lat.fa_histories, buf, sizeof(buf));
		pct_ci(lat.fa_perfherder, lat.fa_histories, buf2, sizeof(buf2));
		printf("  false alerts on %zu unchanged 40-series histories of %zu runs: "
		       "changepoints_find %s, Perfherder %s", lat.fa_histories, lo.before + 30,
		       buf, buf2);
		pct_ci(lat.fa_otava, lat.fa_histories, buf, sizeof(buf));
		printf(", Otava %s\n", buf);
		pct_ci(lat.fa_shift, lat.shift_runs, buf, sizeof(buf));
		printf("  CI runs (the last 30 of each) failed by the level-shift rule of compare --db "
		       "(gate_level_shift): %s of %zu\n", buf, lat.shift_runs);
		replay_latency_free(&lat);
	}
	replay_corpus_free(&c);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned reps[8] = { 1, 3, 5 };
	size_t n_reps = 3, runs = 4000, det = 2000, trials = 100;
	uint64_t seed = 20261201;
	int i, rc = 0, files = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
			runs = strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--det") && i + 1 < argc) {
			det = strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--trials") && i + 1 < argc) {
			trials = strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--window") && i + 1 < argc) {
			window_runs = strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--shift-p") && i + 1 < argc) {
			replay_shift_p = strtod(argv[++i], NULL);
		} else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
			seed = strtoull(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--repeats") && i + 1 < argc) {
			if (stats_parse_repeats(argv[++i], reps, 8, &n_reps))
				return 2;
		} else if (argv[i][0] == '-') {
			fprintf(stderr, "usage: gate_accuracy [--runs N] [--det N] [--trials N] "
				"[--window N] [--seed S] [--repeats 1,3,5] CORPUS.jsonl...\n");
			return 2;
		} else {
			files++;
		}
	}
	if (!files || runs < 100 || !det || window_runs < 5) {
		fprintf(stderr, "usage: gate_accuracy [--runs N>=100] [--det N] [--trials N] "
			"[--window N>=5] [--seed S] [--repeats 1,3,5] CORPUS.jsonl...\n");
		return 2;
	}
	for (i = 1; i < argc; i++) {
		if (argv[i][0] == '-') {
			i++;
			continue;
		}
		rc |= run_corpus(argv[i], reps, n_reps, runs, det, trials, seed);
	}
	return rc;
}
