/* Comparison rows as held by compare.c and rendered by compare_format.c. */
#ifndef KSFTM_RP_COMPARE_H
#define KSFTM_RP_COMPARE_H

#include "rp.h"

struct cmp_row {
	char **path;
	size_t path_len;
	char *case_name, *name, *labels;
	long element;
	int compare;		/* RP_OP_* */
	int better;		/* +1, -1, 0 */
	double baseline, current, change_pct, allowance, p_value;
	size_t n_baseline, n_current, baseline_runs;
	const char *verdict;
	int fails;
	int has_current;
	long series;		/* index in the current report; -1: none */
};

/* Append a row (identity copied; numbers NaN); NULL: out of memory. */
struct cmp_row *cmp_row_new(struct ksft_metric_report_comparison *c,
			    char *const *path, size_t path_len,
			    const char *case_name, const char *name,
			    const char *labels, long element);

struct ksft_metric_report_comparison {
	struct cmp_row *rows;
	size_t n, cap;
	size_t failing;
};

#endif
