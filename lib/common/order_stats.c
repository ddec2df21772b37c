/* Sorting doubles and their quantiles (order_stats.h). */
#include <math.h>
#include <stdlib.h>

#include "order_stats.h"

int ksftm_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double ksftm_quantile_sorted(const double *x, size_t n, double q)
{
	double h, frac;
	size_t lo;

	if (n <= 1)
		return n ? x[0] : NAN;	/* what the rest gives one value */
	h = (double)(n - 1) * q;
	lo = (size_t)h;		/* h >= 0: floor(h), without the call */
	if (lo >= n - 1)
		return x[n - 1];
	frac = h - (double)lo;
	/* numpy's _lerp, to the last bit: from the nearer end. */
	if (frac >= 0.5)
		return x[lo + 1] - (x[lo + 1] - x[lo]) * (1 - frac);
	return x[lo] + (x[lo + 1] - x[lo]) * frac;
}

/*
 * Insertion sort below this many values: a window (6 to 30 values) sorted
 * without qsort()'s calls through a pointer (issue 45).
 */
#define SORT_INSERTION_MAX 32

void ksftm_sort_doubles(double *x, size_t n)
{
	size_t i, j;

	if (n > SORT_INSERTION_MAX) {
		qsort(x, n, sizeof(*x), ksftm_cmp_double);
		return;
	}
	/*
	 * A NaN compares equal to all, so the order is the sort's own: leave
	 * it to qsort(). Else the insertion sort is stable, as glibc's merge
	 * sort: equal values (0 and -0) keep their order, bit for bit the
	 * same array.
	 */
	for (i = 0; i < n; i++)
		if (isnan(x[i])) {
			qsort(x, n, sizeof(*x), ksftm_cmp_double);
			return;
		}
	for (i = 1; i < n; i++) {
		double v = x[i];

		for (j = i; j > 0 && x[j - 1] > v; j--)
			x[j] = x[j - 1];
		x[j] = v;
	}
}

double ksftm_median(double *x, size_t n)
{
	ksftm_sort_doubles(x, n);
	return ksftm_quantile_sorted(x, n, 0.5);
}
