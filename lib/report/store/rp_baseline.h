/* Baseline runs as held in memory (baseline.c) and read by compare.c. */
#ifndef KSFTM_RP_BASELINE_H
#define KSFTM_RP_BASELINE_H

#include "rp.h"

struct bl_series {
	char *key;
	char **path;
	size_t path_len;
	char *case_name;
	char *name;
	char *labels;
	char *shape;
	int source;
	int is_array;
	int has_policy;
	struct rp_policy policy;
	struct rp_vals samples;	/* processed points; t is NaN */
};

struct bl_run {
	char **sources;
	size_t n_sources;
	struct bl_series *series;
	size_t n;
};

struct ksft_metric_report_baseline {
	struct bl_run *runs;
	size_t n_runs, cap_runs;
};

/* "case":..,"path":[..],"name":..,"labels":{..} (no braces). */
void rp_emit_identity(struct strbuf *sb, char *const *path, size_t path_len,
		      const char *case_name, const char *name,
		      const char *labels);

#endif
