/* SPDX-License-Identifier: GPL-2.0 */
/* Small statistics the gate benchmarks share (gate_stats.h). */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gate_stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double stats_median(const double *v, size_t n)
{
	double t[64];

	if (!n)
		return NAN;
	if (n > 64)
		n = 64;
	memcpy(t, v, n * sizeof(*t));
	qsort(t, n, sizeof(*t), cmp_double);
	return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

/* P(X <= k) for X ~ Binomial(n, p), the terms by their ratio in logs. */
static double binom_cdf(size_t k, size_t n, double p)
{
	double s = 0, lt, lr;
	size_t i;

	if (p <= 0)
		return 1;
	if (p >= 1)
		return k >= n ? 1 : 0;
	lt = (double)n * log1p(-p);
	lr = log(p) - log1p(-p);
	for (i = 0; i <= k && i <= n; i++) {
		s += exp(lt);
		lt += log((double)(n - i) / (double)(i + 1)) + lr;
	}
	return fmin(1, s);
}

/* The p at which P(X <= k) (upper: decreasing in p) equals @target. */
static double solve(size_t k, size_t n, double target)
{
	double lo = 0, hi = 1;
	int i;

	for (i = 0; i < 60; i++) {
		double mid = (lo + hi) / 2;

		if (binom_cdf(k, n, mid) > target)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

void stats_clopper_pearson(size_t k, size_t n, double *lo, double *hi)
{
	if (!n) {
		*lo = 0;
		*hi = 1;
		return;
	}
	*hi = k >= n ? 1 : solve(k, n, 0.025);
	/* lower end: P(X >= k) = 0.025, i.e. P(X <= k - 1) = 0.975 */
	*lo = k == 0 ? 0 : solve(k - 1, n, 0.975);
}

size_t stats_runs_for_upper(size_t k, size_t n, double target)
{
	double rate = n ? (double)k / (double)n : 0;
	size_t lo = 1, hi = 1000000, mid;
	double l, h;

	if (rate >= target)
		return SIZE_MAX;
	hi = 100000;
	stats_clopper_pearson((size_t)(rate * (double)hi + 0.5), hi, &l, &h);
	if (h >= target)
		return SIZE_MAX;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		stats_clopper_pearson((size_t)(rate * (double)mid + 0.5), mid, &l, &h);
		if (h < target)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

int stats_parse_repeats(const char *arg, unsigned *reps, size_t max, size_t *n)
{
	const char *p = arg;
	char *end;

	*n = 0;
	while (*p && *n < max) {
		unsigned long v = strtoul(p, &end, 10);

		if (end == p || v < 1 || v > 15) {
			fprintf(stderr, "--repeats %s: numbers 1..15, comma separated\n", arg);
			return -1;
		}
		reps[(*n)++] = (unsigned)v;
		p = *end == ',' ? end + 1 : end;
	}
	return *n ? 0 : -1;
}
