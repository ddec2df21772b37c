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

	if (!n)
		return NAN;
	h = (double)(n - 1) * q;
	lo = (size_t)floor(h);
	if (lo >= n - 1)
		return x[n - 1];
	frac = h - (double)lo;
	/* numpy's _lerp, to the last bit: from the nearer end. */
	if (frac >= 0.5)
		return x[lo + 1] - (x[lo + 1] - x[lo]) * (1 - frac);
	return x[lo] + (x[lo + 1] - x[lo]) * frac;
}

double ksftm_median(double *x, size_t n)
{
	if (n)
		qsort(x, n, sizeof(*x), ksftm_cmp_double);
	return ksftm_quantile_sorted(x, n, 0.5);
}
