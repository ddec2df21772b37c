/* Baseline runs as held in memory (baseline.c) and read by compare.c. */
#ifndef KSFTM_RP_BASELINE_H
#define KSFTM_RP_BASELINE_H

#include "rp.h"

/* A baseline series; every string but key is the baseline's pool's. */
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
	struct rp_strpool *pool;	/* the series' identity strings */
	struct bl_run *runs;
	size_t n_runs, cap_runs;
};

/*
 * One pass over a baseline file as `save` writes it (baseline_scan.c), no
 * jansson document. bl_scan_begin(): 0 at the runs array, -ENOENT not
 * that layout. bl_scan_run(): 1 a run's sources read (into @run, zeroed
 * by the caller) and its series array entered, 0 the file's end, -ENOENT
 * not the layout. bl_scan_series(): 1 @s decoded, 2 @s (partly filled:
 * clear it) must be decoded by jansson from [@span, @span + @span_len), 0
 * the run's end, -ENOENT not the layout. Either may also return -ENOMEM.
 * None sets a message: after any error read the whole file with jansson,
 * which gives the file's error.
 */
struct bl_scan {
	const char *p, *end;
	struct rp_strpool *pool;
	char **prev_path;	/* the last series' (shared when equal) */
	size_t prev_len;
};

int bl_scan_begin(struct bl_scan *sc, const char *buf, size_t len,
		  struct rp_strpool *pool);
int bl_scan_run(struct bl_scan *sc, struct bl_run *run, size_t ri);
int bl_scan_series(struct bl_scan *sc, struct bl_series *s, size_t i,
		   const char **span, size_t *span_len);

#endif
