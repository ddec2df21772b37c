/* Warnings and the strings the report keeps (warn.c). */
#ifndef KSFTM_WARN_H
#define KSFTM_WARN_H

#include <ksftmetric/report.h>
#include <stddef.h>

struct rp_warning_store {
	struct ksft_metric_report_warning *v;
	size_t n, cap, total;
};

void warn_add(struct ksft_metric_report *r, const char *file,
	      unsigned long line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
const char *warn_keep_string(struct ksft_metric_report *r, const char *s);
/* model/warn.c: a "ktap-metric-warning-json" payload [@p, @end) as a warning. */
void warn_reject_line(struct ksft_metric_report *r, const char *file,
		      unsigned long line, const char *p, const char *end);

#endif
