/*
 * How a run was measured (measuring_context.c): the context keys that are
 * the instrument, not the kernel. compare --baseline refuses to judge a
 * run against a baseline measured otherwise (issue 42).
 */
#ifndef KSFTM_MEASURING_CONTEXT_H
#define KSFTM_MEASURING_CONTEXT_H

#include <ksftmetric/report.h>

struct strbuf;

/*
 * Append "KEY A vs B" (separated by "; ") for each measuring key whose
 * value differs between the context JSON texts @a (the baseline's) and @b
 * (the run's); a key absent on one side reads "none". A context that is
 * NULL, "{}" or not an object is unknown: no difference. @return the
 * number of keys that differ, or -ENOMEM.
 */
int measuring_context_diff(const char *a, const char *b, struct strbuf *sb);

/*
 * @cur against each run of @base that says its context: 0 when every one
 * was measured as @cur was; else, with @allow, 0 and *@diff the
 * difference (malloc'd, "baseline run N (its sources): KEY A vs B; ..."),
 * without it -EXDEV and that difference in the error message. -ENOMEM.
 */
int measuring_context_check(const struct ksft_metric_report *cur,
			    const struct ksft_metric_report_baseline *base, int allow,
			    char **diff);

#endif
