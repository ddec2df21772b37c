/* The policy pipeline (pipeline.c): rate, aggregation, summaries. */
#ifndef KSFTM_PIPELINE_H
#define KSFTM_PIPELINE_H

#include <stddef.h>

struct rp_policy;
struct rp_vals;

/* Transform (stage >= 1) then aggregation (stage 2) into a fresh @out. */
int pipeline_apply(const struct rp_vals *raw, const struct rp_policy *pol,
		   int stage, struct rp_vals *out);

/* Every summary of one element (elem ignored for scalars). */
struct rp_summary {
	size_t n;	/* finite values */
	double last, total, max, p50, p90, p99;
};
/*
 * Values visited by the per-element passes (this thread): lets a test
 * check that summaries cost the entries, not points x widest array.
 */
extern _Thread_local unsigned long long pipeline_work;
int pipeline_summarize(const struct rp_vals *pv, size_t elem, struct rp_summary *s);
void pipeline_summarize_values(double *x, size_t n, struct rp_summary *s);
/* Finite values by element: element e is x[start[e] .. start[e + 1]). */
struct rp_cols {
	size_t width;	/* 1 for scalars */
	size_t *start;
	double *x;
};
int pipeline_cols_build(const struct rp_vals *pv, struct rp_cols *c);
void pipeline_cols_free(struct rp_cols *c);
size_t pipeline_cols_get(const struct rp_cols *c, size_t e, double **x);
void pipeline_cols_summarize(struct rp_cols *c, struct rp_summary *s);
double pipeline_summary_op(const struct rp_summary *s, int op);
/*
 * The finite processed values of every element pooled (pipeline_apply()
 * at the processed stage, then pipeline_cols_build()'s order) into
 * *@buf, grown as needed and kept by the caller for the next series;
 * their count in *@n. A scalar series that no rate or aggregation
 * changes is copied without building either. 0 or -ENOMEM.
 */
int pipeline_pooled(const struct rp_vals *raw, const struct rp_policy *pol,
		    double **buf, size_t *cap, size_t *n);
/* Finite values of element @elem, in point order; returns count. */
size_t pipeline_element_values(const struct rp_vals *pv, size_t elem, double *out);

#endif
