/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Apache Otava's change-point detection with its defaults, our own port
 * (read from otava/analysis.py compute_change_points(), split(), merge(),
 * TTestSignificanceTester, and change_point_divisive/detector.py and
 * calculator.py; no code copied): E-divisive means (Matteson and James)
 * in sliding windows of 50 values, step 25, weak change points at
 * p <= 0.01, then merged bottom-up until every one has p < 0.001
 * (min_magnitude 0). The significance test is Otava's default: Student's
 * two-sample t-test with pooled variance, fed the population (ddof 0)
 * standard deviations, as otava passes numpy's np.std to scipy's
 * ttest_ind_from_stats.
 */
#ifndef KSFTM_BENCH_OTAVA_PORT_H
#define KSFTM_BENCH_OTAVA_PORT_H

#include <stddef.h>

struct otava_cp {
	size_t index;		/* first value of the new segment */
	double mean_before, mean_after, p;
};

/* Change points of x[0..n), at most @max in @out. Returns the count, or
 * -ENOMEM. */
int otava_change_points(const double *x, size_t n, struct otava_cp *out, size_t max);

/* Its max_pvalue, 0.001 by default: lower it to compare at a lower
 * false-alarm rate (gate_timeline --otava-p). */
extern double otava_max_p;

/* Histories shorter than Otava's window (50 values) are not judged. */
#define OTAVA_MIN_RUNS 50

/*
 * Does Otava find a change for the worse (@better > 0: a lower mean after,
 * < 0: a higher one) in x[0..n) at an index within 3 of @at, or anywhere
 * when @at is SIZE_MAX? 0 on histories shorter than OTAVA_MIN_RUNS.
 * Returns 1, 0 or -ENOMEM.
 */
int otava_worse_near(const double *x, size_t n, size_t at, int better);

#endif
