/* Statistical tests over plain values (stats.c). */
#ifndef KSFTM_STATS_H
#define KSFTM_STATS_H

#include <stddef.h>

/* Two-sided Mann-Whitney U p-value; NaN if either side has < 1 value (or
 * out of memory). Exact (ties counted with mid-ranks) at small sizes. */
double stats_mann_whitney(const double *x, size_t nx, const double *y, size_t ny);

/* The smallest two-sided p stats_mann_whitney() can give for samples of
 * @nx and @ny values (every value of one side above the other's): 2 /
 * C(nx + ny, min) where the test is exact, 0 where it is not (large
 * samples), 1 when a side is empty. */
double stats_mann_whitney_min_p(size_t nx, size_t ny);

/*
 * Bauer's interval for a shift between two samples of @m and @n values:
 * with the m n differences y_j - x_i sorted, [d_(k), d_(mn + 1 - k)]
 * (1-based) holds the shift with confidence at least 1 - @alpha. @return
 * k, the largest with P(U <= k - 1) <= alpha / 2 under H0 (exact where
 * stats_mann_whitney() is, normal otherwise); 0 when no k is (too few
 * values: the interval is unbounded).
 */
size_t stats_shift_ci_rank(size_t m, size_t n, double alpha);

/*
 * The paired counterpart: with the n (n + 1) / 2 Walsh averages of n
 * differences sorted, [w_(k), w_(M + 1 - k)] holds the shift with
 * confidence at least 1 - @alpha. @return k, the largest with
 * P(W+ <= k - 1) <= alpha / 2 (exact, n up to 60), 0: unbounded.
 */
size_t stats_walsh_ci_rank(size_t n, double alpha);

/* Two-sided Wilcoxon signed-rank p of the differences @d (zeros dropped;
 * exact without ties up to 60, else normal); NaN: out of memory. */
double stats_signed_rank_p(const double *d, size_t n);

#endif
