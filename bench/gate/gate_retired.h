/*
 * The gate's retired methods, kept beside the benchmarks that compare the
 * gate with them (gate_replay.c) and checked by check_gate_retired.c;
 * compare --db uses neither: the CUSUM replaced both (gate.h).
 */
#ifndef KSFTM_BENCH_GATE_RETIRED_H
#define KSFTM_BENCH_GATE_RETIRED_H

#include <stddef.h>

/* The prediction-interval p-value of @x against @w[0..n) (n >= 2), on
 * logarithms or values, whichever is more symmetric in @w; NaN when
 * undefined. The gate before the CUSUM. */
double gate_prediction_p(const double *w, size_t n, double x);

/*
 * The former level-shift rule: the latest change point in @x[0..n)
 * (oldest first, the current value last) going the wrong way by more than
 * the tolerance, with the current value still beyond it, and its Welch
 * p-value at most @max_p: @return 1 and fill @before and @p_value; 0 when
 * not; -ENOMEM.
 */
int gate_level_shift(const double *x, size_t n, int better, double rel_tol, double abs_tol,
		     double max_p, double *before, double *p_value);

/* gate_level_shift()'s max_p as compare --db used it. */
#define GATE_SHIFT_P 1e-5

#endif
