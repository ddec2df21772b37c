/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Single-run detection after a steady history (issue 31 item 17) through
 * the product path, beside a plain one-sided t prediction interval on the
 * same window at the same false-alarm count (bench/gate/gate_single.c prints
 * it; bench/gate/check_gate_timeline.c asserts it).
 */
#ifndef KSFTM_BENCH_GATE_SINGLE_H
#define KSFTM_BENCH_GATE_SINGLE_H

#include "gate_product.h"

struct single_power {
	size_t judged, fa;		/* unchanged runs judged, the gate's alarms */
	size_t n_cap[2], found[2];	/* capped runs (90 %, 95 %), the gate's finds */
	size_t t_found[2];		/* the t interval's at the gate's alarm count */
	size_t t1_found[2];		/* and at one alarm */
	double thr, thr1;		/* its thresholds */
};

/*
 * @c: record_tbf.sh's corpus (cap=0, cap=90, cap=95); @window: compare's
 * and ingest's --window; @m: PM_GBPS or PM_COST_HOST. 0, or -1 with a
 * message on stderr.
 */
int single_run_power(const struct prod_corpus *c, size_t window, int m,
		     struct single_power *out);

/* The gate's alarms on metric @m of every stream of @cs[0..n_cs), each a
 * job of one case in time order, from run @window + 1 on, and the t
 * interval's threshold at the same count on the same runs
 * (gate_single_calib.c). */
struct single_calib {
	size_t n, fa;			/* runs judged, the gate's alarms */
	double thr;			/* the t interval's threshold at @fa */
	size_t fa_fitted;		/* the t interval's alarms above @fitted */
};

/* @fitted: a threshold fitted elsewhere (the 30 runs'), counted too. */
int single_run_calibrate(const struct prod_corpus *cs, size_t n_cs, size_t window, int m,
			 double fitted, struct single_calib *out);

/* The t statistic of @x toward worse against w[0..n) (@better +1: higher
 * is better), and a run's value of metric @m. */
double single_t_worse(const double *w, size_t n, double x, int better);
double single_value(const struct prod_rep *r, int m);

/* How many runs of cap @cap (90, 95) of @c the t interval finds above @thr. */
size_t single_t_found(const struct prod_corpus *c, size_t window, int m, int cap, double thr);

#endif
