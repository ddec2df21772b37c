/* Baseline runs as held in memory (baseline.c) and read by compare.c. */
#ifndef KSFTM_BASELINE_H
#define KSFTM_BASELINE_H

#include <ksftmetric/report.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

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
	/* Processed points: their values (arrays: n + 1 offsets into v),
	 * no times (issue 45: 8 bytes a sample and 16 a series never read);
	 * bl_vals() reads them as an rp_vals. */
	struct bl_samples {
		double *v;
		size_t *off;		/* arrays, else NULL */
		uint32_t n, width;	/* width: the widest point (1 for scalars) */
	} samples;
	unsigned path_len;
	signed char source;	/* RP_SRC_* */
	signed char is_array;
	unsigned char samples_pooled;	/* @samples' blocks are the baseline's pool's */
};

/* @s's samples as an rp_vals (t NULL: never read), to read, not to free. */
static inline struct rp_vals bl_vals(const struct bl_series *s)
{
	struct rp_vals v = { s->samples.n, NULL, s->samples.v, s->samples.off,
			     s->samples.width };

	return v;
}

/* @pv's points taken into @s (its times freed: a baseline keeps none). */
static inline void bl_take_vals(struct bl_series *s, struct rp_vals *pv)
{
	s->samples.v = pv->v;
	s->samples.off = pv->off;
	s->samples.n = (uint32_t)pv->n;
	s->samples.width = (uint32_t)pv->width;
	if (pv->t) {
		free(pv->t);
		pv->t = NULL;
	}
}

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
