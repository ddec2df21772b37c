/*
 * LD_PRELOAD shim for the report_cli and cli_history tests: counts how
 * often ksft-metric asks libksftmetric-report for a series, how many values
 * it fetches and how many rows it reads from a history database (SQLite
 * steps that return a row, PostgreSQL results' tuples), and writes the
 * counts to $KSFT_COUNT_OUT at exit. A count, unlike a time,
 * shows a quadratic loop deterministically on any machine.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include <ksftmetric/report.h>

static unsigned long long n_get, n_cells, n_rows;

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

/* The database clients' calls, declared here so that the shim needs
 * neither's headers (nor links either: RTLD_NEXT finds them if loaded). */
int sqlite3_step(void *stmt);
void *PQexecParams(void *conn, const char *command, int n, const unsigned int *types,
		   const char *const *values, const int *lengths, const int *formats,
		   int result_format);

int sqlite3_step(void *stmt)
{
	int rc;

	REAL(sqlite3_step);
	rc = real ? real(stmt) : 1;	/* SQLITE_ERROR */
	n_rows += rc == 100;		/* SQLITE_ROW */
	return rc;
}

void *PQexecParams(void *conn, const char *command, int n, const unsigned int *types,
		   const char *const *values, const int *lengths, const int *formats,
		   int result_format)
{
	static int (*ntuples)(const void *);
	void *res;

	REAL(PQexecParams);
	res = real ? real(conn, command, n, types, values, lengths, formats, result_format)
		   : NULL;
	if (!ntuples)
		*(void **)&ntuples = dlsym(RTLD_NEXT, "PQntuples");
	if (res && ntuples)
		n_rows += (unsigned long long)ntuples(res);
	return res;
}

__attribute__((destructor)) static void report_counts(void)
{
	const char *path = getenv("KSFT_COUNT_OUT");
	FILE *f;

	if (!path || !(f = fopen(path, "w")))
		return;
	fprintf(f, "series_get %llu\nvalues %llu\ndb_rows %llu\n", n_get, n_cells, n_rows);
	fclose(f);
}
