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

void ksftm_sort_doubles(double *x, size_t n)
{
	if (n > 2) {
		qsort(x, n, sizeof(*x), ksftm_cmp_double);
	} else if (n == 2 && ksftm_cmp_double(&x[0], &x[1]) > 0) {
		double t = x[0];	/* as glibc's merge sort: swapped only if greater */

		x[0] = x[1];
		x[1] = t;
	}
}

double ksftm_median(double *x, size_t n)
{
	ksftm_sort_doubles(x, n);
	return ksftm_quantile_sorted(x, n, 0.5);
}
