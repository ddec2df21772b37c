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

#endif
