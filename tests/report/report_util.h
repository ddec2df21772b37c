/*
 * Helpers for the consumer suites: build a report from text, find a series
 * by identity, read summaries and warnings, compare numbers exactly.
 */
#ifndef KSFTM_REPORT_UTIL_H
#define KSFTM_REPORT_UTIL_H

#include <check.h>
#include <math.h>
#include <stddef.h>

#include <ksftmetric/report.h>

/* A report of @text read as one input named @name (max_line 0 = default). */
struct ksft_metric_report *ru_read_opts(const char *name, const char *text,
					size_t len, size_t max_line);
#define ru_read(name, text) ru_read_opts((name), (text), strlen(text), 0)

/* Index of the series (@case_name, @metric, @labels_json); fails if absent. */
size_t ru_find(const struct ksft_metric_report *r, const char *case_name,
	       const char *metric, const char *labels_json);
/* -1 when absent. */
long ru_lookup(const struct ksft_metric_report *r, const char *case_name,
	       const char *metric, const char *labels_json);

/* Summary @op of scalar series @i. */
double ru_summary(const struct ksft_metric_report *r, size_t i, const char *op);

/* Number of kept warnings whose reason contains @needle at @line (0: any). */
size_t ru_warnings_with(const struct ksft_metric_report *r, unsigned long line,
			const char *needle);

/* Exact equality of doubles (NaN == NaN), with a helpful message. */
#define ru_assert_num(got, want) do {						\
	double ru_g_ = (got), ru_w_ = (want);					\
	ck_assert_msg((isnan(ru_g_) && isnan(ru_w_)) || ru_g_ == ru_w_,		\
		      "%s = %.17g, want %.17g", #got, ru_g_, ru_w_);		\
} while (0)

/* Equality within a relative tolerance. */
#define ru_assert_close(got, want, rel) do {					\
	double ru_g_ = (got), ru_w_ = (want);					\
	ck_assert_msg(fabs(ru_g_ - ru_w_) <= (rel) * fabs(ru_w_),		\
		      "%s = %.17g, want %.17g", #got, ru_g_, ru_w_);		\
} while (0)

/* Text of the report in @fmt (free with free()). */
char *ru_format(const struct ksft_metric_report *r, int fmt);

#endif
