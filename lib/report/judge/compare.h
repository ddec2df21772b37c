/* What the judges ask of compare.c besides the comparison table (comparison.h). */
#ifndef KSFTM_COMPARE_H
#define KSFTM_COMPARE_H

#include <ksftmetric/report.h>
#include <stddef.h>

#include "comparison.h"

/* Did case @case_name under @path fail in @r (canon_status_failed(), with or
 * without series: the report keeps every failed case), or never run: @r
 * was cut short (a case died before its result line, whose own name is
 * then unknown, or a plan was left unfinished; issue 40)? 1 or 0. */
int compare_case_failed(const struct ksft_metric_report *r, const char *const *path,
			size_t path_len, const char *case_name);

/*
 * One comparison as it is made (compare.c), for ksft_metric_report_compare()
 * and the baseline read as a stream (compare_stream.c):
 * compare_start() checks the arguments and the measuring contexts of
 * @base's runs (all its runs must be there; their series need not be) and
 * holds @cur: 0, or a negative errno with its message. compare_step()
 * judges @s against @b, its key's only series (0 or -ENOMEM).
 * compare_finish() frees what it holds; with @ret 0 and @out it hands the
 * comparison out and returns its failing rows, else frees the comparison
 * and returns 0 (@ret 0) or the out-of-memory error.
 */
struct compare_run;
struct bl_series;
struct rp_series;

int compare_start(const struct ksft_metric_report *cur,
		  const struct ksft_metric_report_baseline *base,
		  const struct ksft_metric_report_compare_opts *opts, struct compare_run **run);
int compare_step(struct compare_run *run, const struct rp_series *s,
		 const struct bl_series *b);
int compare_finish(struct compare_run *run, int ret,
		   struct ksft_metric_report_comparison **out);

#endif
