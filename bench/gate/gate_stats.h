/* SPDX-License-Identifier: GPL-2.0 */
/* Small statistics the gate benchmarks share, and their --repeats list
 * (gate_stats.c). */
#ifndef KSFTM_BENCH_GATE_STATS_H
#define KSFTM_BENCH_GATE_STATS_H

#include <stddef.h>

/* Median of v[0..n) (sorts a copy of at most 64; +inf sorts last). */
double stats_median(const double *v, size_t n);

/* Clopper-Pearson (exact binomial) 95 % interval of k successes in n. */
void stats_clopper_pearson(size_t k, size_t n, double *lo, double *hi);

/* The fewest trials at the observed rate k/n (at least 0 successes) whose
 * 95 % Clopper-Pearson upper end is below @target (SIZE_MAX: none up to
 * 10^5, or the rate itself is not below it). */
size_t stats_runs_for_upper(size_t k, size_t n, double target);

/* "1,3,5" into @reps (at most @max, each 1..15); 0, or -1 with a message. */
int stats_parse_repeats(const char *arg, unsigned *reps, size_t max, size_t *n);

#endif
