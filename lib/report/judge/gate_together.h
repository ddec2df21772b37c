/*
 * The recent runs together (issue 40, gate.h GATE_TOGETHER_MAX_K): the
 * mean of the current run and the k - 1 runs before it against the mean
 * of the window's runs before them, k = 2..6 and the current run with
 * every held run before it, Bonferroni over the blocks; a lasting change
 * gains evidence with every run. gate.c takes its p-value
 * as a third statistic beside the run alone and the CUSUM.
 */
#ifndef KSFTM_GATE_TOGETHER_H
#define KSFTM_GATE_TOGETHER_H

#include <stddef.h>

#include "gate.h"

/* Can @s be tested together at all (whatever its current value)? Runs of
 * GATE_GUARD_ADAPT_REPEATS repeats or more, recent runs, @min_runs window
 * runs before the block, not pinned. */
int gate_together_ready(const struct gate_series *s, size_t min_runs);

/*
 * The test toward worse (@sign +1) or better (-1) on the test's scale
 * (@logs), with one run's variance @var_run, the drift's long-run factor
 * @inflate ((1 + rho) / (1 - rho)) and the noise estimate's degrees of
 * freedom @df_est. @return the Bonferroni p (NaN: not tested); *@at the k
 * it was smallest at.
 */
double gate_together_p(const struct gate_series *s, int logs, double var_run, double inflate,
		       double df_est, int sign, size_t min_runs, size_t *at);

#endif
