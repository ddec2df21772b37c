/* A series' summaries from the report handle (read/report.c), for ingest. */
#ifndef KSFTM_REPORT_SUMMARIES_H
#define KSFTM_REPORT_SUMMARIES_H

#include <stddef.h>

struct ksft_metric_report;
struct rp_summary;

/*
 * The summaries of series @i's processed values, one per element, from one
 * pass over them (ingest stores six of each): *@sums (free()) has the
 * returned width (>= 0) of them; -errno. @sums NULL: only the width.
 */
int report_series_summaries(const struct ksft_metric_report *r, size_t i, struct rp_summary **sums);

#endif
