/* Far outside the window (gate_far.h). */
#include <math.h>

#include "gate_far.h"

double gate_far_p(size_t n, double c)
{
	double dn = (double)n;

	if (n < 2 || !(c > 0))
		return 1;
	if (isinf(c))
		return 0;
	return exp(lgamma(dn + 1) + lgamma(2 + c) - log(dn + 1) - lgamma(dn + 1 + c));
}

double gate_far_margin(size_t n, double alpha)
{
	double lo = 0, hi = 1;
	int i;

	if (n < 2 || !(alpha > 0))
		return INFINITY;
	if (gate_far_p(n, 0) <= alpha)
		return 0;
	while (gate_far_p(n, hi) > alpha)
		if ((hi *= 2) > 1e6)
			return INFINITY;
	for (i = 0; i < 60; i++) {
		double mid = (lo + hi) / 2;

		if (gate_far_p(n, mid) > alpha)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

double gate_far_excess(const double *w, size_t n, double x, int better, double *worst,
		       double *range)
{
	double lo = INFINITY, hi = -INFINITY;
	size_t i;

	for (i = 0; i < n; i++) {
		lo = w[i] < lo ? w[i] : lo;
		hi = w[i] > hi ? w[i] : hi;
	}
	*range = hi - lo;
	*worst = better > 0 ? lo : hi;
	if (!n || !(*range > 0) || !isfinite(*range) || !isfinite(x))
		return NAN;
	return (better > 0 ? lo - x : x - hi) / *range;
}
