/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Single-run detection after a steady history (issue 31 item 17), through
 * the product path (bench/gate/gate_product.c: compare --db, then ingest, run
 * by run, in recorded time order), beside a plain one-sided t prediction
 * interval on the same window at the same false-alarm rate.
 *
 * The corpus (bench/record/record_tbf.sh) holds U unchanged runs ("cap":0) and
 * single runs capped by tbf ("cap":90, "cap":95: percent of the unchanged
 * median). False alarms: the unchanged runs ingested in order, each judged
 * first, from run W + 1 on (W the window). Detection: each capped run
 * judged as run U + 1 after the U unchanged ones (not ingested: every
 * capped run meets the same steady history). The t interval: the mean and
 * sd of the W runs before the judged one (its window), t = (mean - x) /
 * (sd sqrt(1 + 1/W)) toward worse; its threshold is set to give the
 * gate's false-alarm count on the same unchanged runs (the smallest
 * threshold with no more alarms), and at the count the issue measured
 * (1 of 30) too. With --calibrate, the rate is also measured on every
 * stream of the corpora that follow (gate_single_calib.c), and the t
 * threshold set to the gate's count there.
 *
 *   build/bench/gate_single [--window W] bench/corpus/iperf3-tbf-2026-12-03.jsonl \
 *       [--calibrate CORPUS...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gate_single.h"
#include "gate_stats.h"

static void calibrated(const struct prod_corpus *c, const struct prod_corpus *cal, size_t n_cal,
		       size_t window, int m, double fitted)
{
	struct single_calib sc;
	double lo, hi;

	if (single_run_calibrate(cal, n_cal, window, m, fitted, &sc)) {
		fprintf(stderr, "gate_single: calibration failed\n");
		return;
	}
	stats_clopper_pearson(sc.fa, sc.n, &lo, &hi);
	printf("  %-44s  FA %zu/%zu = %.1f%% [%.1f, %.1f] on the --calibrate corpora\n",
	       "the gate, same window, every stream a job", sc.fa, sc.n,
	       100.0 * (double)sc.fa / (double)sc.n, 100 * lo, 100 * hi);
	printf("  %-44s  FA %zu/%zu    cap 90%%: %2zu/12   cap 95%%: %2zu/12   (t > %.2f)\n",
	       "t prediction interval at that rate", sc.fa, sc.n,
	       single_t_found(c, window, m, 90, sc.thr), single_t_found(c, window, m, 95, sc.thr),
	       sc.thr);
	stats_clopper_pearson(sc.fa_fitted, sc.n, &lo, &hi);
	printf("  %-44s  FA %zu/%zu = %.1f%% [%.1f, %.1f] on the same runs\n\n",
	       "(the t interval at t > its 30 runs' fit)", sc.fa_fitted, sc.n,
	       100.0 * (double)sc.fa_fitted / (double)sc.n, 100 * lo, 100 * hi);
}

int main(int argc, char **argv)
{
	struct prod_corpus c = { 0 }, *cal = NULL;
	size_t window = 10, a = 1, n_cal = 0, i;
	int m, rc = 1;

	if (argc > 2 && !strcmp(argv[1], "--window")) {
		window = strtoul(argv[2], NULL, 10);
		a = 3;
	}
	if (argc < (int)a + 1 || window < 5 || window > 64 ||
	    (argc > (int)a + 1 && (strcmp(argv[a + 1], "--calibrate") || argc < (int)a + 3))) {
		fprintf(stderr, "usage: gate_single [--window W] CORPUS.jsonl [--calibrate CORPUS...]\n");
		return 2;
	}
	if (prod_corpus_load(argv[a], &c))
		return 2;
	if (argc > (int)a + 2) {
		cal = calloc((size_t)argc, sizeof(*cal));
		if (!cal)
			goto out;
		for (i = a + 2; i < (size_t)argc; i++)
			if (prod_corpus_load(argv[i], &cal[n_cal++]))
				goto out;
	}
	printf("Single-run detection after a steady history (%s), window %zu,\n"
	       "through compare --db then ingest in time order (r = 1); a plain one-sided t\n"
	       "prediction interval on the same window beside it.\n\n", argv[a], window);
	for (m = PM_GBPS; m <= PM_COST_HOST; m++) {
		struct single_power sp;

		if (single_run_power(&c, window, m, &sp))
			goto out;
		printf("%s (%s is worse):\n", m == PM_GBPS ? "throughput" : "cpu.cost (host)",
		       m == PM_GBPS ? "lower" : "higher");
		printf("  %-44s  FA %2zu/%zu   cap 90%%: %2zu/%zu   cap 95%%: %2zu/%zu\n",
		       "the gate (compare --db, ingest)", sp.fa, sp.judged, sp.found[0],
		       sp.n_cap[0], sp.found[1], sp.n_cap[1]);
		printf("  %-44s  FA %2zu/%zu   cap 90%%: %2zu/%zu   cap 95%%: %2zu/%zu   (t > %.2f)\n",
		       "t prediction interval at the gate's FA", sp.fa, sp.judged, sp.t_found[0],
		       sp.n_cap[0], sp.t_found[1], sp.n_cap[1], sp.thr);
		printf("  %-44s  FA %2d/%zu   cap 90%%: %2zu/%zu   cap 95%%: %2zu/%zu   (t > %.2f)\n\n",
		       "t prediction interval at 1 false alarm", 1, sp.judged, sp.t1_found[0],
		       sp.n_cap[0], sp.t1_found[1], sp.n_cap[1], sp.thr1);
		if (n_cal)
			calibrated(&c, cal, n_cal, window, m, sp.thr);
	}
	rc = 0;
out:
	for (i = 0; i < n_cal; i++)
		prod_corpus_free(&cal[i]);
	free(cal);
	prod_corpus_free(&c);
	return rc;
}
