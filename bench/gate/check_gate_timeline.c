/*
 * The history gate on the time-ordered replay through the product path
 * (bench/gate/gate_product.c: compare --db, then ingest, run by run, on a
 * temporary SQLite file) of the committed corpus excerpt
 * bench/corpus/small.jsonl (the first 60 rounds of the first iperf3
 * recording: 120 unchanged measurements, 60 each with 60/120/250
 * nftables rules), as bench/gate_timeline replays the whole corpora.
 * Deterministic: recorded values in recorded order, no draws, no time.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "check_main.h"
#include "gate_product.h"
#include "gate_single.h"
#include "gate_stats.h"
#include "otava_port.h"

#ifndef GATE_CORPUS
#error "GATE_CORPUS: the path of bench/corpus/small.jsonl"
#endif

static struct prod_corpus corpus;

static void load(void)
{
	ck_assert_int_eq(prod_corpus_load(GATE_CORPUS, &corpus), 0);
	ck_assert_uint_eq(corpus.n, 4);
	ck_assert_str_eq(corpus.s[0].name, "rules=0");
	ck_assert_uint_eq(corpus.s[0].n, 120);
	ck_assert_str_eq(corpus.s[3].name, "rules=250");
	ck_assert_uint_eq(corpus.s[3].n, 60);
}

/* Unchanged runs of the 4 configurations (8 gated series a run), one
 * repeat each: the CI runs that fail from the 6th on. */
START_TEST(test_false_alarms)
{
	size_t idx[4] = { 0, 1, 2, 3 }, j, k = 0, n = 0;
	struct prod_plan p = { idx, 4, 1, SIZE_MAX, SIZE_MAX, NULL, 1, NULL, 0, 0 };
	struct prod_result r;
	double lo, hi;

	load();
	ck_assert_int_eq(prod_replay(&corpus, &p, &r), 0);
	ck_assert_uint_eq(r.runs, 60);
	ck_assert_uint_eq(r.gated_series, 8);
	size_t per[PM_COUNT] = { 0 }, s;
	int m;

	for (j = 5; j < r.runs; j++) {
		k += r.failed[j] != 0;
		n++;
		for (s = 0; s < 4; s++)
			for (m = 0; m < PM_COUNT; m++)
				per[m] += prod_flagged(&r, j, s, m);
	}
	printf("flagged rows: throughput %zu, cpu.cost %zu\n", per[PM_GBPS], per[PM_COST_HOST]);
	stats_clopper_pearson(k, n, &lo, &hi);
	printf("product path, r=1: %zu of %zu unchanged runs failed [%.1f, %.1f %%], "
	       "disturbed %zu, too noisy %zu of %zu rows\n", k, n, 100 * lo, 100 * hi,
	       r.disturbed, r.noise, r.judged_rows);
	/*
	 * Measured with h22gate's gate at 5339f87 (CUSUM with drift terms
	 * and a guard band): 0 of 55; with the residuals' heavy tail
	 * (GATE_TAIL_DF = 6, h22gate2): 0 of 55. Issue 22's 1 % allows 0-1 here. (The
	 * window test before it failed 2 of 55; the CUSUM without the drift
	 * terms, 1bf73fe, 11 of 55.)
	 */
	ck_assert_uint_le(k, 1);
	prod_result_free(&r);
	prod_corpus_free(&corpus);
}
END_TEST

/* The unchanged configuration's runs from run 30 on taken from the 250
 * rules recording of the same rounds (a lasting 29 % drop): compare --db
 * fails the throughput of that case within 10 runs of it. */
START_TEST(test_lasting_drop)
{
	size_t idx[4] = { 0, 1, 2, 3 }, j, first = SIZE_MAX;
	struct prod_plan p = { idx, 4, 1, 0, 30, NULL, 1, NULL, 0, 0 };
	struct prod_result r;

	load();
	p.after = &corpus.s[3];
	ck_assert_int_eq(prod_replay(&corpus, &p, &r), 0);
	for (j = 0; j < 30; j++)
		ck_assert(!prod_flagged(&r, j, 0, PM_GBPS) || j < 5);
	for (j = 30; j < r.runs && first == SIZE_MAX; j++)
		if (prod_flagged(&r, j, 0, PM_GBPS))
			first = j - 30 + 1;
	printf("product path, r=1: the 29%% drop failed %zu runs after it\n", first);
	ck_assert_uint_le(first, 10);	/* measured 7 (5339f87), 9 (GATE_TAIL_DF = 6) */
	prod_result_free(&r);
	prod_corpus_free(&corpus);
}
END_TEST

START_TEST(test_clopper_pearson)
{
	double lo, hi;

	stats_clopper_pearson(1, 100, &lo, &hi);	/* R: binom.test(1, 100) */
	ck_assert_double_eq_tol(lo, 0.000253, 0.000002);
	ck_assert_double_eq_tol(hi, 0.054460, 0.00001);
	stats_clopper_pearson(0, 183, &lo, &hi);
	ck_assert_double_eq_tol(lo, 0, 1e-12);
	ck_assert(hi < 0.02);
	stats_clopper_pearson(0, 182, &lo, &hi);
	ck_assert(hi >= 0.02);
	ck_assert_uint_eq(stats_runs_for_upper(0, 10, 0.02), 183);
	ck_assert_uint_eq(stats_runs_for_upper(5, 100, 0.02), SIZE_MAX);
}
END_TEST

/* The Otava port: a clear step (20 values at 10, 40 at 7, alternating
 * +-0.5) is one drop at index 20; a flat alternating series has none. */
START_TEST(test_otava_port)
{
	double x[60];
	struct otava_cp cp[8];
	int i, n;

	for (i = 0; i < 60; i++)
		x[i] = (i < 20 ? 10 : 7) + (i % 2 ? 0.5 : -0.5);
	n = otava_change_points(x, 60, cp, 8);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(cp[0].index, 20);
	ck_assert(cp[0].mean_after < cp[0].mean_before);
	ck_assert(cp[0].p < 0.001);
	/* The drop is worse for a higher-is-better series only, near 20 only,
	 * and not judged on a history shorter than Otava's window. */
	ck_assert_int_eq(otava_worse_near(x, 60, 20, 1), 1);
	ck_assert_int_eq(otava_worse_near(x, 60, 17, 1), 1);
	ck_assert_int_eq(otava_worse_near(x, 60, 30, 1), 0);
	ck_assert_int_eq(otava_worse_near(x, 60, SIZE_MAX, 1), 1);
	ck_assert_int_eq(otava_worse_near(x, 60, 20, -1), 0);
	ck_assert_int_eq(otava_worse_near(x, OTAVA_MIN_RUNS - 1, 20, 1), 0);
	for (i = 0; i < 60; i++)
		x[i] = 10 + (i % 2 ? 0.5 : -0.5);
	ck_assert_int_eq(otava_change_points(x, 60, cp, 8), 0);
	ck_assert_int_eq(otava_worse_near(x, 60, SIZE_MAX, 1), 0);
}
END_TEST

/*
 * Issue 31 item 17: one run's power after a steady history. Real iperf3
 * runs (bench/record/record_tbf.sh: 40 unchanged, then single runs capped by tbf
 * at 90 % and 95 % of their median), window 10, through compare --db and
 * ingest in time order: the gate finds capped runs about as a plain t
 * prediction interval on the same window does at the same false alarms
 * (4 and 1 of 12 against 5 and 1; before the run alone was judged against
 * the whole window's level too, 0 and 0), and raises no more alarms than
 * one in the 30 unchanged runs. Twice: the same counts.
 */
START_TEST(test_single_run_power)
{
	struct prod_corpus tbf;
	struct single_power sp, again;

	ck_assert_int_eq(prod_corpus_load(GATE_TBF_CORPUS, &tbf), 0);
	ck_assert_int_eq(single_run_power(&tbf, 10, PM_GBPS, &sp), 0);
	ck_assert_int_eq(single_run_power(&tbf, 10, PM_GBPS, &again), 0);
	ck_assert_mem_eq(&sp, &again, sizeof(sp));
	printf("single runs, window 10: gate FA %zu/%zu, caps 90%% %zu/%zu, 95%% %zu/%zu; "
	       "t interval at that FA %zu, %zu\n", sp.fa, sp.judged, sp.found[0], sp.n_cap[0],
	       sp.found[1], sp.n_cap[1], sp.t_found[0], sp.t_found[1]);
	ck_assert_uint_eq(sp.judged, 30);
	ck_assert_uint_le(sp.fa, 1);
	ck_assert_uint_ge(sp.found[0] + 1, sp.t_found[0]);	/* within one of 12 */
	ck_assert_uint_ge(sp.found[1], sp.t_found[1]);
	ck_assert_uint_ge(sp.found[0], 3);
	ck_assert_uint_ge(sp.found[1], 1);
	prod_corpus_free(&tbf);
}
END_TEST

/*
 * The same comparison at a false-alarm rate measured on 810 unchanged
 * runs instead of 30 (issue 31 item 17; bench/gate_single --calibrate):
 * the t threshold that gives exactly the gate's alarms there finds no
 * more capped runs than the gate, on either metric, while the threshold
 * fitted to the tbf recording's 30 runs fails several times the gate's
 * alarms on the 810. Twice: the same counts.
 */
START_TEST(test_single_run_power_calibrated)
{
	struct prod_corpus tbf, netns;
	int m;

	ck_assert_int_eq(prod_corpus_load(GATE_TBF_CORPUS, &tbf), 0);
	ck_assert_int_eq(prod_corpus_load(GATE_NETNS_CORPUS, &netns), 0);
	for (m = PM_GBPS; m <= PM_COST_HOST; m++) {
		struct single_power sp;
		struct single_calib sc, again;
		size_t t90, t95;

		ck_assert_int_eq(single_run_power(&tbf, 10, m, &sp), 0);
		ck_assert_int_eq(single_run_calibrate(&netns, 1, 10, m, sp.thr, &sc), 0);
		ck_assert_int_eq(single_run_calibrate(&netns, 1, 10, m, sp.thr, &again), 0);
		ck_assert_mem_eq(&sc, &again, sizeof(sc));
		t90 = single_t_found(&tbf, 10, m, 90, sc.thr);
		t95 = single_t_found(&tbf, 10, m, 95, sc.thr);
		printf("metric %d, calibrated on %zu runs: gate FA %zu, t > %.2f; caps 90%% gate %zu "
		       "t %zu, 95%% gate %zu t %zu; t fitted to 30 runs: FA %zu\n", m, sc.n, sc.fa,
		       sc.thr, sp.found[0], t90, sp.found[1], t95, sc.fa_fitted);
		ck_assert_uint_ge(sc.n, 800);
		ck_assert_uint_le(sc.fa, sc.n / 100);		/* the gate at most 1 % */
		ck_assert_uint_ge(sp.found[0], t90);
		ck_assert_uint_ge(sp.found[1], t95);
		ck_assert_uint_ge(sc.fa_fitted, 3 * (sc.fa + 1));
	}
	prod_corpus_free(&netns);
	prod_corpus_free(&tbf);
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("gate_timeline");
	TCase *c = tcase_create("gate_timeline");

	tcase_add_test(c, test_clopper_pearson);
	tcase_add_test(c, test_otava_port);
	tcase_add_test(c, test_false_alarms);
	tcase_add_test(c, test_lasting_drop);
	tcase_add_test(c, test_single_run_power);
	tcase_add_test(c, test_single_run_power_calibrated);
	suite_add_tcase(s, c);
	return s;
}
