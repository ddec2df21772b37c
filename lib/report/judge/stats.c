/*
 * Two-sided Mann-Whitney U test, as scipy.stats.mannwhitneyu computes it
 * with method="auto": the exact null distribution when there are no ties
 * and the smaller sample has at most 8 values, else the normal
 * approximation with tie correction and continuity correction.
 */
#include <math.h>
#include <stdlib.h>

#include "stats.h"

#define EXACT_MAX_SMALL 8
#define EXACT_MAX_CELLS 2000000

struct ranked {
	double x;
	int side;
};

static int cmp_ranked(const void *a, const void *b)
{
	double x = ((const struct ranked *)a)->x, y = ((const struct ranked *)b)->x;

	return x < y ? -1 : x > y;
}

/*
 * P(U <= u) under H0 for sample sizes m (small) and n: the counts are the
 * coefficients of the Gaussian binomial [m+n choose m](q), built as
 * prod_i (1 - q^(n+i)) / (1 - q^i).
 */
static double exact_cdf(size_t m, size_t n, size_t u)
{
	size_t deg = 0, i, k, top = m * n;
	double *c = calloc(top + 1, sizeof(double)), below = 0, total = 0;

	if (!c)
		return NAN;
	c[0] = 1;
	for (i = 1; i <= m; i++) {
		size_t step = n + i, new_deg = deg + n;

		/* Terms above new_deg cancel in the division: skip them. */
		for (k = new_deg; k >= step; k--)
			c[k] -= c[k - step];
		for (k = i; k <= new_deg; k++)
			c[k] += c[k - i];
		deg = new_deg;
	}
	for (k = 0; k <= top; k++) {
		total += c[k];
		if (k <= u)
			below += c[k];
	}
	free(c);
	return below / total;
}

double stats_mann_whitney(const double *x, size_t nx, const double *y, size_t ny)
{
	size_t n = nx + ny, i, j;
	struct ranked *v;
	double r1 = 0, ties = 0, u1, u2, umax, p;
	int tied = 0;

	if (!nx || !ny)
		return NAN;
	v = malloc(n * sizeof(*v));
	if (!v)
		return NAN;
	for (i = 0; i < nx; i++)
		v[i] = (struct ranked){ x[i], 0 };
	for (i = 0; i < ny; i++)
		v[nx + i] = (struct ranked){ y[i], 1 };
	qsort(v, n, sizeof(*v), cmp_ranked);
	for (i = 0; i < n; i = j) {
		double rank, t;

		for (j = i + 1; j < n && v[j].x == v[i].x; j++)
			;
		rank = (double)(i + 1 + j) / 2.0;	/* average of i+1 .. j */
		t = (double)(j - i);
		if (j - i > 1) {
			tied = 1;
			ties += t * t * t - t;
		}
		for (size_t k = i; k < j; k++)
			if (v[k].side == 0)
				r1 += rank;
	}
	free(v);
	u1 = r1 - (double)nx * (double)(nx + 1) / 2.0;
	u2 = (double)nx * (double)ny - u1;
	umax = u1 > u2 ? u1 : u2;
	if (!tied && (nx <= EXACT_MAX_SMALL || ny <= EXACT_MAX_SMALL) &&
	    nx * ny <= EXACT_MAX_CELLS) {
		size_t small = nx < ny ? nx : ny, big = nx < ny ? ny : nx;
		double umin = u1 < u2 ? u1 : u2;

		p = 2.0 * exact_cdf(small, big, (size_t)umin);
	} else {
		double nn = (double)n, mu = (double)nx * (double)ny / 2.0;
		double var = (double)nx * (double)ny / 12.0 *
			     ((nn + 1) - ties / (nn * (nn - 1)));
		double z;

		if (!(var > 0))
			return 1.0;
		z = (umax - mu - 0.5) / sqrt(var);
		p = erfc(z / sqrt(2.0));
	}
	return p > 1.0 ? 1.0 : p;
}
