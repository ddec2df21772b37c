/* SPDX-License-Identifier: GPL-2.0 */
/* Timing helpers shared by the C benchmarks (header only). */
#ifndef KSFTM_BENCH_UTIL_H
#define KSFTM_BENCH_UTIL_H

#include <stdlib.h>
#include <time.h>

/* The time of @clk in nanoseconds. */
static inline double bench_clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static inline double bench_mono_ns(void)
{
	return bench_clock_ns(CLOCK_MONOTONIC);
}

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of @v[0..@n) (sorts @v). */
static inline double bench_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), bench_cmp_double);
	return v[n / 2];
}

#endif
