/*
 * LD_PRELOAD shim for the report_cli test: counts how often ksft-metric
 * asks libksftmetric-report for a series and how many values it fetches, and
 * writes the counts to $KSFT_COUNT_OUT at exit. A count, unlike a time,
 * shows a quadratic loop deterministically on any machine.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include <ksftmetric/report.h>

static unsigned long long n_get, n_cells;

#define REAL(name) \
	static __typeof__(name) *real; \
	if (!real) \
		*(void **)&real = dlsym(RTLD_NEXT, #name)	/* POSIX way */

int ksft_metric_report_series_get(const struct ksft_metric_report *r, size_t i,
				  struct ksft_metric_report_series *out)
{
	REAL(ksft_metric_report_series_get);
	n_get++;
	return real ? real(r, i, out) : -38;
}

int ksft_metric_report_series_values(const struct ksft_metric_report *r,
				     size_t i, int stage,
				     struct ksft_metric_report_values *out)
{
	int ret;

	REAL(ksft_metric_report_series_values);
	ret = real ? real(r, i, stage, out) : -38;
	if (!ret)
		n_cells += out->n * out->width;	/* padded: what was allocated */
	return ret;
}

int ksft_metric_report_series_points(const struct ksft_metric_report *r,
				     size_t i, int stage,
				     struct ksft_metric_report_points *out)
{
	int ret;

	REAL(ksft_metric_report_series_points);
	ret = real ? real(r, i, stage, out) : -38;
	if (!ret)
		n_cells += out->off[out->n];
	return ret;
}

__attribute__((destructor)) static void report_counts(void)
{
	const char *path = getenv("KSFT_COUNT_OUT");
	FILE *f;

	if (!path || !(f = fopen(path, "w")))
		return;
	fprintf(f, "series_get %llu\nvalues %llu\n", n_get, n_cells);
	fclose(f);
}
