/* Helpers for the consumer suites (see report_util.h). */
#include <stdlib.h>
#include <string.h>

#include "report_util.h"

struct ksft_metric_report *ru_read_opts(const char *name, const char *text,
					size_t len, size_t max_line)
{
	struct ksft_metric_report_opts o = KSFT_METRIC_REPORT_OPTS_INIT;
	struct ksft_metric_report *r;
	int ret;

	o.max_line = max_line;
	r = ksft_metric_report_new(&o);
	ck_assert_ptr_nonnull(r);
	ret = ksft_metric_report_read_buffer(r, text, len, name);
	ck_assert_msg(ret >= 0, "read_buffer: %d (%s)", ret, ksft_metric_report_errmsg());
	return r;
}

long ru_lookup(const struct ksft_metric_report *r, const char *case_name,
	       const char *metric, const char *labels_json)
{
	size_t i, n = ksft_metric_report_series_count(r);

	for (i = 0; i < n; i++) {
		struct ksft_metric_report_series s = { .sz = sizeof(s) };

		ck_assert_int_eq(ksft_metric_report_series_get(r, i, &s), 0);
		if (!strcmp(s.case_name, case_name) && !strcmp(s.name, metric) &&
		    !strcmp(s.labels_json, labels_json))
			return (long)i;
	}
	return -1;
}

size_t ru_find(const struct ksft_metric_report *r, const char *case_name,
	       const char *metric, const char *labels_json)
{
	long i = ru_lookup(r, case_name, metric, labels_json);

	ck_assert_msg(i >= 0, "no series %s %s %s", case_name, metric, labels_json);
	return (size_t)i;
}

double ru_summary(const struct ksft_metric_report *r, size_t i, const char *op)
{
	double v = NAN;
	int n = ksft_metric_report_series_summary(r, i, op, &v, 1);

	ck_assert_msg(n == 1, "summary %s of series %zu: %d (%s)", op, i, n,
		      ksft_metric_report_errmsg());
	return v;
}

size_t ru_warnings_with(const struct ksft_metric_report *r, unsigned long line,
			const char *needle)
{
	const struct ksft_metric_report_warning *w;
	size_t n = ksft_metric_report_warnings(r, &w, NULL), i, hits = 0;

	for (i = 0; i < n; i++)
		if ((!line || w[i].line == line) && strstr(w[i].reason, needle))
			hits++;
	return hits;
}

char *ru_format(const struct ksft_metric_report *r, int fmt)
{
	char *text = NULL;
	size_t len;

	ck_assert_int_eq(ksft_metric_report_format(r, fmt, &text, &len), 0);
	ck_assert_uint_eq(strlen(text), len);
	return text;
}
