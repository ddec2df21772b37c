/*
 * One comparison row's numbers (compare.c): the baseline runs' values
 * summarised run by run and their median, the current value, both sides'
 * sample counts and spreads, and the Mann-Whitney p-value.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "baseline_index.h"
#include "compare_measure.h"
#include "order_stats.h"
#include "pipeline.h"
#include "stats.h"
#include "vals.h"

/* The p-value and both spreads of @row, from the baseline's values in
 * sc->pool and the current ones in sc->cur: 0 or -ENOMEM. */
static int row_test(struct cmp_row *row, const struct scratch *sc)
{
	if (row->n_current >= 2 && row->n_baseline >= 2)
		row->p_value = stats_mann_whitney(sc->cur, row->n_current, sc->pool,
						  row->n_baseline);
	if (compare_row_spread_of(row, CMP_BASE, sc->pool, row->n_baseline, 1) ||
	    compare_row_spread_of(row, CMP_CUR, sc->cur, row->n_current, 1))
		return -ENOMEM;
	return 0;
}

int compare_reserve(double **p, size_t *cap, size_t n)
{
	double *q;

	if (n <= *cap)
		return 0;
	q = realloc(*p, n * sizeof(double));
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

/* Fill baseline, current, n and p of one element. */
int compare_measure(struct cmp_row *row, const struct rp_vals *cur,
		   const struct baseline_key *k, size_t elem, int op, struct scratch *sc)
{
	size_t r, nruns = 0, npool = 0, total = 0, most = 0, n;
	struct rp_summary sum;

	for (r = 0; k && r < k->n; r++) {
		size_t m = baseline_key_series(sc->ix, k, r)->samples.n;

		total += m;
		if (m > most)
			most = m;
	}
	/* The current run's room also holds a baseline run's values while
	 * they are summarised (sorted), before the current ones come. */
	if (compare_reserve(&sc->pool, &sc->cap_pool, total + (cur ? cur->n : 0) + 1) ||
	    compare_reserve(&sc->runvals, &sc->cap_runs, (k ? k->n : 0) + 1) ||
	    compare_reserve(&sc->cur, &sc->cap_cur, (cur && cur->n > most ? cur->n : most) + 1))
		return -ENOMEM;
	for (r = 0; k && r < k->n; r++) {
		const struct rp_vals bv = bl_vals(baseline_key_series(sc->ix, k, r));
		const struct rp_vals *s = &bv;

		if (vals_is_array(s) != (elem != (size_t)-1))
			continue;
		/* The run's values once, into the pool; summarised from a copy
		 * (pipeline_summarize() would read them a second time). */
		n = pipeline_element_values(s, elem == (size_t)-1 ? 0 : elem, sc->pool + npool);
		memcpy(sc->cur, sc->pool + npool, n * sizeof(double));
		pipeline_summarize_values(sc->cur, n, &sum);
		if (sum.n)
			sc->runvals[nruns++] = pipeline_summary_op(&sum, op);
		npool += n;
	}
	row->baseline_runs = nruns;
	row->n_baseline = npool;
	row->baseline = nruns ? ksftm_median(sc->runvals, nruns) : NAN;
	if (cur) {
		size_t e = elem == (size_t)-1 ? 0 : elem;

		/* Read once; summarised from a copy behind the pool's values. */
		row->n_current = pipeline_element_values(cur, e, sc->cur);
		memcpy(sc->pool + npool, sc->cur, row->n_current * sizeof(double));
		pipeline_summarize_values(sc->pool + npool, row->n_current, &sum);
		row->current = sum.n ? pipeline_summary_op(&sum, op) : NAN;
	}
	return row_test(row, sc);
}

/*
 * measure() for element @e of an array series, from values grouped by
 * element once per series (@cur_c, and @run_c per baseline run, NULL for
 * a run that is not an array): the cost of all elements together is
 * linear in the entries, not points x width.
 */
int compare_measure_elem(struct cmp_row *row, const struct rp_cols *cur_c,
			struct rp_cols *const *run_c, size_t nrun, size_t e,
			int op, struct scratch *sc)
{
	size_t r, nruns = 0, npool = 0, n;
	struct rp_summary sum;
	double *x;

	for (r = 0; r < nrun; r++)
		if (run_c[r])
			npool += pipeline_cols_get(run_c[r], e, &x);
	if (compare_reserve(&sc->pool, &sc->cap_pool, npool + 1) ||
	    compare_reserve(&sc->runvals, &sc->cap_runs, nrun + 1) ||
	    compare_reserve(&sc->cur, &sc->cap_cur, pipeline_cols_get(cur_c, e, &x) + 1))
		return -ENOMEM;
	npool = 0;
	for (r = 0; r < nrun; r++) {
		if (!run_c[r])
			continue;
		n = pipeline_cols_get(run_c[r], e, &x);
		memcpy(sc->pool + npool, x, n * sizeof(double));
		/* Sorts that part of the pool: order does not matter there. */
		pipeline_summarize_values(sc->pool + npool, n, &sum);
		if (n)
			sc->runvals[nruns++] = pipeline_summary_op(&sum, op);
		npool += n;
	}
	row->baseline_runs = nruns;
	row->n_baseline = npool;
	row->baseline = nruns ? ksftm_median(sc->runvals, nruns) : NAN;
	n = pipeline_cols_get(cur_c, e, &x);
	memcpy(sc->cur, x, n * sizeof(double));
	pipeline_summarize_values(sc->cur, n, &sum);
	row->current = n ? pipeline_summary_op(&sum, op) : NAN;
	row->n_current = n;
	return row_test(row, sc);
}

