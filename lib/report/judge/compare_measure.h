/* One row's values measured for compare.c (compare_measure.c). */
#ifndef KSFTM_COMPARE_MEASURE_H
#define KSFTM_COMPARE_MEASURE_H

#include <stddef.h>

#include "comparison.h"
#include "pipeline.h"
#include "vals.h"

struct baseline_index;
struct baseline_key;
struct seeds_ctx;

/* A comparison's working room, reused from row to row. */
struct scratch {
	double *cur, *pool, *runvals;
	size_t cap_cur, cap_pool, cap_runs;
	struct seeds_ctx *seeds;
	const struct baseline_index *ix;	/* the baseline's */
};

/* *@p room for @n doubles (it grows, never shrinks): 0 or -ENOMEM. */
int compare_reserve(double **p, size_t *cap, size_t n);

/* Fill baseline, current, n and p of one element (@elem, (size_t)-1 for a
 * scalar) of @k's runs and @cur (NULL: none); 0 or -ENOMEM. */
int compare_measure(struct cmp_row *row, const struct rp_vals *cur,
		    const struct baseline_key *k, size_t elem, int op, struct scratch *sc);

/*
 * compare_measure() for element @e of an array series, from values grouped
 * by element once per series (@cur_c, and @run_c per baseline run, NULL for
 * a run that is not an array): the cost of all elements together is
 * linear in the entries, not points x width.
 */
int compare_measure_elem(struct cmp_row *row, const struct rp_cols *cur_c,
			 struct rp_cols *const *run_c, size_t nrun, size_t e,
			 int op, struct scratch *sc);

#endif
