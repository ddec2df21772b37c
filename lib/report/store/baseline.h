/* Baseline runs as held in memory (baseline.c) and read by compare.c. */
#ifndef KSFTM_BASELINE_H
#define KSFTM_BASELINE_H

#include <ksftmetric/report.h>
#include <stddef.h>

#include "rp_policy.h"
#include "vals.h"

struct rp_strpool;
struct strbuf;

/* A baseline series; every string is the baseline's pool's, and it keeps
 * no key (series_key_into() makes one; baseline_index.c its hash). */
struct bl_series {
	char **path;
	char *case_name;
	char *name;
	char *labels;
	char *shape;
	struct rp_policy *policy;	/* its own (malloc'd), else NULL */
	/* Processed points; t is never read: NaN, or NULL where the scan
	 * pooled a scalar's values (issue 45: 8 bytes a sample). */
	struct rp_vals samples;
	unsigned path_len;
	signed char source;	/* RP_SRC_* */
	signed char is_array;
	unsigned char samples_pooled;	/* @samples' blocks are the baseline's pool's */
};

struct bl_run {
	char **sources;
	size_t n_sources;
	char *context;		/* the run's context as JSON text; NULL: none known */
	struct bl_series *series;
	size_t n;
};

struct ksft_metric_report_baseline {
	struct rp_strpool *pool;	/* the series' identity strings */
	struct bl_run *runs;
	size_t n_runs, cap_runs;
};

#endif
