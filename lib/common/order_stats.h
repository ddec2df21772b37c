/* Sorting doubles and the order statistics both libraries take of them. */
#ifndef KSFTM_ORDER_STATS_H
#define KSFTM_ORDER_STATS_H

#include <stddef.h>

/* qsort() comparison of two doubles, ascending (NaN compares equal to all). */
int ksftm_cmp_double(const void *a, const void *b);
/*
 * Quantile @q (0..1) of @n sorted values, linear between neighbours as
 * numpy's default method, to the last bit (numpy's _lerp). NaN if n == 0.
 */
double ksftm_quantile_sorted(const double *x, size_t n, double q);
/*
 * qsort(@x, @n, ..., ksftm_cmp_double) with glibc's stable merge sort,
 * the same array bit for bit; up to 32 values (no NaN) by an insertion
 * sort, without the calls.
 */
void ksftm_sort_doubles(double *x, size_t n);
/* Median of @n values; sorts @x in place. NaN if n == 0. */
double ksftm_median(double *x, size_t n);

#endif
