/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Single-run detection after a steady history (issue 31 item 17), through
 * the product path (bench/gate_product.c: compare --db, then ingest, run
 * by run, in recorded time order), beside a plain one-sided t prediction
 * interval on the same window at the same false-alarm rate.
 *
 * The corpus (bench/record_tbf.sh) holds U unchanged runs ("cap":0) and
 * single runs capped by tbf ("cap":90, "cap":95: percent of the unchanged
 * median). False alarms: the unchanged runs ingested in order, each judged
 * first, from run W + 1 on (W the window). Detection: each capped run
 * judged as run U + 1 after the U unchanged ones (not ingested: every
 * capped run meets the same steady history). The t interval: the mean and
 * sd of the W runs before the judged one (its window), t = (mean - x) /
 * (sd sqrt(1 + 1/W)) toward worse; its threshold is set to give the
 * gate's false-alarm count on the same unchanged runs (the smallest
 * threshold with no more alarms), and at the count the issue measured
 * (1 of 30) too.
 *
 *   build/bench/gate_single [--window W] bench/corpus/iperf3-tbf-2026-12-03.jsonl
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gate_single.h"

int main(int argc, char **argv)
{
	struct prod_corpus c = { 0 };
	size_t window = 10, a = 1;
	int m;

	if (argc > 2 && !strcmp(argv[1], "--window")) {
		window = strtoul(argv[2], NULL, 10);
		a = 3;
	}
	if (argc != (int)a + 1 || window < 5) {
		fprintf(stderr, "usage: gate_single [--window W] CORPUS.jsonl\n");
		return 2;
	}
	if (prod_corpus_load(argv[a], &c))
		return 2;
	printf("Single-run detection after a steady history (%s), window %zu,\n"
	       "through compare --db then ingest in time order (r = 1); a plain one-sided t\n"
	       "prediction interval on the same window beside it.\n\n", argv[a], window);
	for (m = PM_GBPS; m <= PM_COST_HOST; m++) {
		struct single_power sp;

		if (single_run_power(&c, window, m, &sp))
			return 1;
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
	}
	prod_corpus_free(&c);
	return 0;
}
