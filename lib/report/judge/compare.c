/*
 * The regression gate: for each series (or array element), the current
 * value of the policy's compare operation against the median of the
 * baseline runs' values, an allowance of max(relative * |baseline|,
 * absolute), and a Mann-Whitney U p-value when both sides hold several
 * samples.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ksftmetric/report.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "canon.h"
#include "changepoint.h"
#include "compare.h"
#include "errmsg.h"
#include "opts_size.h"
#include "order_stats.h"
#include "pipeline.h"
#include "report.h"
#include "rp.h"
#include "rp_policy.h"
#include "series.h"
#include "stats.h"
#include "strpool.h"
#include "vals.h"

/* Baseline series grouped by key, in first-seen order. */
struct bkey {
	const char *key;
	uint64_t hash;
	const struct bl_series **v;
	size_t n, cap;
	int used;
	struct bkey *next;
};

struct bindex {
	struct bkey **order;
	size_t n, cap;
	struct bkey **b;
	size_t mask;
};

static void bindex_free(struct bindex *ix)
{
	size_t i;

	for (i = 0; i < ix->n; i++) {
		free(ix->order[i]->v);
		free(ix->order[i]);
	}
	free(ix->order);
	free(ix->b);
}

static struct bkey *bindex_find(const struct bindex *ix, const char *key)
{
	uint64_t h = series_key_hash(key, strlen(key));
	struct bkey *k;

	for (k = ix->b[h & ix->mask]; k; k = k->next)
		if (k->hash == h && !strcmp(k->key, key))
			return k;
	return NULL;
}

static int bindex_build(struct bindex *ix, const struct ksft_metric_report_baseline *b)
{
	size_t total = 0, r, i;

	memset(ix, 0, sizeof(*ix));
	for (r = 0; r < b->n_runs; r++)
		total += b->runs[r].n;
	ix->mask = 63;
	while (ix->mask < total * 2)
		ix->mask = ix->mask * 2 + 1;
	ix->b = calloc(ix->mask + 1, sizeof(*ix->b));
	ix->order = calloc(total ? total : 1, sizeof(*ix->order));
	if (!ix->b || !ix->order)
		return -ENOMEM;
	for (r = 0; r < b->n_runs; r++) {
		for (i = 0; i < b->runs[r].n; i++) {
			const struct bl_series *s = &b->runs[r].series[i];
			struct bkey *k = bindex_find(ix, s->key);

			if (!k) {
				k = calloc(1, sizeof(*k));
				if (!k)
					return -ENOMEM;
				k->key = s->key;
				k->hash = series_key_hash(s->key, strlen(s->key));
				k->next = ix->b[k->hash & ix->mask];
				ix->b[k->hash & ix->mask] = k;
				ix->order[ix->n++] = k;
			}
			if (k->n == k->cap) {
				size_t cap = k->cap ? k->cap * 2 : 4;
				const struct bl_series **v = realloc(k->v, cap * sizeof(*v));

				if (!v)
					return -ENOMEM;
				k->v = v;
				k->cap = cap;
			}
			k->v[k->n++] = s;
		}
	}
	return 0;
}

/* ---- rows ----------------------------------------------------------- */

struct cmp_row *compare_row_new(struct ksft_metric_report_comparison *c,
				char *const *path, size_t path_len,
				const char *case_name, const char *name,
				const char *labels, long element)
{
	struct cmp_row *row;

	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		struct cmp_row *v = realloc(c->rows, cap * sizeof(*v));

		if (!v)
			return NULL;
		c->rows = v;
		c->cap = cap;
	}
	if (!c->pool && !(c->pool = strpool_new()))
		return NULL;
	row = &c->rows[c->n];
	memset(row, 0, sizeof(*row));
	/* Identity strings are the comparison's pool's; a test's rows share a path. */
	row->path = strpool_path(c->pool, path, path_len,
				 c->n ? c->rows[c->n - 1].path : NULL,
				 c->n ? c->rows[c->n - 1].path_len : 0);
	if (!row->path)
		return NULL;
	c->n++;		/* from here on freed with the comparison */
	row->path_len = path_len;
	row->case_name = (char *)strpool_intern(c->pool, case_name, strlen(case_name));
	row->name = (char *)strpool_intern(c->pool, name, strlen(name));
	row->labels = (char *)strpool_intern(c->pool, labels, strlen(labels));
	if (!row->case_name || !row->name || !row->labels)
		return NULL;
	row->element = element;
	row->disp_scale = NAN;
	row->series = -1;
	row->disturbed_by = -1;
	row->disturb_z = NAN;
	row->baseline = row->current = row->change_pct = NAN;
	row->allowance = row->p_value = NAN;
	row->noise_pct = row->smallest_pct = row->need_runs = row->need_repeats = NAN;
	return row;
}

int compare_spread_of(struct cmp_spread *s, const double *x, size_t n, size_t stride)
{
	size_t i, m = 0;
	double *v, *dev;

	memset(s, 0, sizeof(*s));
	s->lo = s->hi = s->mid = s->sd = NAN;
	if (!n)
		return 0;
	v = malloc(2 * n * sizeof(*v));		/* the values, then their deviations */
	if (!v)
		return -ENOMEM;
	dev = v + n;
	for (i = 0; i < n; i++)		/* a value that is not a number is no point */
		if (isfinite(x[i * stride]))
			v[m++] = x[i * stride];
	if (m) {
		s->mid = ksftm_median(v, m);	/* sorts */
		s->n = m;
		s->lo = v[0];
		s->hi = v[m - 1];
		for (i = 0; i < m; i++)
			dev[i] = fabs(v[i] - s->mid);
		s->sd = 1.4826 * ksftm_median(dev, m);
	}
	free(v);
	return 0;
}

int compare_spread_at(struct cmp_spread *s, const struct ksft_metric_report_values *v, long e)
{
	size_t k = e < 0 ? 0 : (size_t)e;

	if (!v->n || k >= v->width)
		return compare_spread_of(s, NULL, 0, 1);
	return compare_spread_of(s, v->v + k, v->n, v->width);
}

/* The row's values are shown in the policy's display units: 0 or -ENOMEM. */
static int row_display(struct cmp_row *row, const struct rp_policy *p)
{
	if (p->aggregation != RP_AGG_NONE)
		return 0;	/* compared in busy cores, not display units */
	row->disp_scale = p->disp_scale;
	if (p->disp_label && !(row->disp_label = strdup(p->disp_label)))
		return -ENOMEM;
	return 0;
}

static int single_op(int summarize)
{
	return summarize >= RP_OP_LAST && summarize <= RP_OP_P99 ? summarize : RP_OP_P50;
}

int compare_case_failed(const struct ksft_metric_report *r, const char *const *path,
			size_t path_len, const char *case_name)
{
	size_t i, k;

	if (r->cut_short)
		return 1;	/* killed or crashed: what it lacks never ran (issue 40) */
	for (i = 0; i < r->n_failed; i++) {
		const struct rp_failed_case *f = &r->failed[i];

		if (f->path_len != path_len || strcmp(f->name, case_name))
			continue;
		for (k = 0; k < path_len && !strcmp(f->path[k], path[k]); k++)
			;
		if (k == path_len)
			return 1;
	}
	return 0;
}

struct gate {
	int op, better, gated;
	double rel, abs;
};

static void gate_for(const struct rp_policy *p, int source,
		     const struct ksft_metric_report_compare_opts *o,
		     struct gate *g)
{
	g->rel = g->abs = NAN;
	g->gated = 1;
	if (p->compare) {
		g->op = p->compare;
		g->better = p->better;
		g->rel = p->rel_tol;
		g->abs = p->abs_tol;
		return;
	}
	g->op = single_op(p->summarize);
	g->better = p->better ? p->better : 1;
	if (o->tolerance_pct >= 0) {
		g->rel = o->tolerance_pct / 100.0;
	} else if (!rp_policy_default_gate(source, &g->op, &g->better, &g->rel)) {
		g->gated = 0;
		g->better = p->better;
	}
}

static void verdict(struct cmp_row *row, const struct gate *g,
		    const struct ksft_metric_report_compare_opts *o)
{
	double base = row->baseline, cur = row->current, allow;
	int worse, better, significant;

	row->better = g->better;
	row->compare = g->op;
	row->change_pct = rel_change(cur, base) * 100.0;
	if (!isfinite(base) || !isfinite(cur)) {
		row->verdict = KSFTM_VERDICT_NOT_COMPARABLE;
		return;
	}
	if (!g->gated || !g->better) {
		row->verdict = KSFTM_VERDICT_UNTRACKED;
		return;
	}
	allow = 0;
	if (!isnan(g->rel))
		allow = g->rel * fabs(base);
	if (!isnan(g->abs) && g->abs > allow)
		allow = g->abs;
	row->allowance = allow;
	worse = g->better > 0 ? cur < base - allow : cur > base + allow;
	better = g->better > 0 ? cur > base + allow : cur < base - allow;
	significant = !(o->alpha > 0) || isnan(row->p_value) || row->p_value < o->alpha;
	if (worse && significant) {
		row->verdict = KSFTM_VERDICT_REGRESSION;
		row->fails = 1;
	} else if (better && significant) {
		row->verdict = KSFTM_VERDICT_IMPROVEMENT;
	} else if (worse || better) {
		row->verdict = KSFTM_VERDICT_TOO_NOISY;
	} else {
		row->verdict = KSFTM_VERDICT_NO_CHANGE;
	}
}

struct scratch {
	double *cur, *pool, *runvals;
	size_t cap_cur, cap_pool, cap_runs;
};

static int reserve(double **p, size_t *cap, size_t n)
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
static int measure(struct cmp_row *row, const struct rp_vals *cur,
		   const struct bkey *k, size_t elem, int op, struct scratch *sc)
{
	size_t r, nruns = 0, npool = 0, total = 0;
	struct rp_summary sum;

	for (r = 0; k && r < k->n; r++)
		total += k->v[r]->samples.n;
	if (reserve(&sc->pool, &sc->cap_pool, total + 1) ||
	    reserve(&sc->runvals, &sc->cap_runs, (k ? k->n : 0) + 1) ||
	    reserve(&sc->cur, &sc->cap_cur, (cur ? cur->n : 0) + 1))
		return -ENOMEM;
	for (r = 0; k && r < k->n; r++) {
		const struct rp_vals *s = &k->v[r]->samples;

		if (vals_is_array(s) != (elem != (size_t)-1))
			continue;
		if (pipeline_summarize(s, elem == (size_t)-1 ? 0 : elem, &sum))
			return -ENOMEM;
		if (sum.n)
			sc->runvals[nruns++] = pipeline_summary_op(&sum, op);
		npool += pipeline_element_values(s, elem == (size_t)-1 ? 0 : elem,
						 sc->pool + npool);
	}
	row->baseline_runs = nruns;
	row->n_baseline = npool;
	row->baseline = nruns ? ksftm_median(sc->runvals, nruns) : NAN;
	if (cur) {
		size_t e = elem == (size_t)-1 ? 0 : elem;

		if (pipeline_summarize(cur, e, &sum))
			return -ENOMEM;
		row->current = sum.n ? pipeline_summary_op(&sum, op) : NAN;
		row->n_current = pipeline_element_values(cur, e, sc->cur);
	}
	if (row->n_current >= 2 && row->n_baseline >= 2)
		row->p_value = stats_mann_whitney(sc->cur, row->n_current, sc->pool,
						  row->n_baseline);
	if (compare_spread_of(&row->base_spread, sc->pool, row->n_baseline, 1) ||
	    compare_spread_of(&row->cur_spread, sc->cur, row->n_current, 1))
		return -ENOMEM;
	return 0;
}

/*
 * measure() for element @e of an array series, from values grouped by
 * element once per series (@cur_c, and @run_c per baseline run, NULL for
 * a run that is not an array): the cost of all elements together is
 * linear in the entries, not points x width.
 */
static int measure_elem(struct cmp_row *row, const struct rp_cols *cur_c,
			struct rp_cols *const *run_c, size_t nrun, size_t e,
			int op, struct scratch *sc)
{
	size_t r, nruns = 0, npool = 0, n;
	struct rp_summary sum;
	double *x;

	for (r = 0; r < nrun; r++)
		if (run_c[r])
			npool += pipeline_cols_get(run_c[r], e, &x);
	if (reserve(&sc->pool, &sc->cap_pool, npool + 1) ||
	    reserve(&sc->runvals, &sc->cap_runs, nrun + 1) ||
	    reserve(&sc->cur, &sc->cap_cur, pipeline_cols_get(cur_c, e, &x) + 1))
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
	if (row->n_current >= 2 && row->n_baseline >= 2)
		row->p_value = stats_mann_whitney(sc->cur, row->n_current, sc->pool,
						  row->n_baseline);
	if (compare_spread_of(&row->base_spread, sc->pool, row->n_baseline, 1) ||
	    compare_spread_of(&row->cur_spread, sc->cur, row->n_current, 1))
		return -ENOMEM;
	return 0;
}

static int compare_series(struct ksft_metric_report_comparison *c,
			  const struct rp_series *s, struct bkey *k,
			  const struct ksft_metric_report_compare_opts *o,
			  struct scratch *sc)
{
	struct rp_policy scratch;
	const struct rp_policy *p = series_policy(s, &scratch);
	struct rp_vals pv;
	struct rp_cols cur_c = { 0, NULL, NULL }, **run_c = NULL;
	struct gate g;
	struct cmp_row *row;
	size_t width, e, r;
	int ret = 0, shape_change = 0;

	gate_for(p, s->source, o, &g);
	if (canon_status_failed(s->status) && g.gated && g.better) {
		/* A failed case's values are no measurement: not judged, and
		 * said so (never a regression, never silently passed). */
		row = compare_row_new(c, s->path, s->path_len, s->case_name, s->name, s->labels, -1);
		if (!row || row_display(row, p))
			return -ENOMEM;
		row->has_current = 1;
		row->better = g.better;
		row->compare = g.op;
		row->verdict = KSFTM_VERDICT_CASE_FAILED;
		row->fails = !o->allow_missing;
		return 0;
	}
	if (pipeline_apply(&s->raw, p, KSFT_METRIC_REPORT_PROCESSED, &pv))
		return -ENOMEM;
	width = vals_is_array(&pv) ? pv.width : 0;
	for (r = 0; k && r < k->n; r++) {
		const struct rp_vals *b = &k->v[r]->samples;

		if (vals_is_array(b) != vals_is_array(&pv))
			shape_change = 1;
		else if (vals_is_array(b) && b->width > width)
			width = b->width;
	}
	if (!k || shape_change || !vals_is_array(&pv)) {
		row = compare_row_new(c, s->path, s->path_len, s->case_name, s->name,
			      s->labels, -1);
		if (!row) {
			ret = -ENOMEM;
			goto out;
		}
		row->has_current = 1;
		if (row_display(row, p)) {
			ret = -ENOMEM;
			goto out;
		}
		if (!vals_is_array(&pv) &&
		    measure(row, &pv, shape_change ? NULL : k, (size_t)-1, g.op, sc)) {
			ret = -ENOMEM;
			goto out;
		}
		row->better = g.better;
		row->compare = g.op;
		if (!k) {
			row->verdict = KSFTM_VERDICT_NEW;
		} else if (shape_change) {
			row->verdict = KSFTM_VERDICT_NOT_COMPARABLE;
		} else {
			verdict(row, &g, o);
		}
		goto out;
	}
	run_c = calloc(k->n + 1, sizeof(*run_c));
	if (!run_c || pipeline_cols_build(&pv, &cur_c)) {
		ret = -ENOMEM;
		goto out;
	}
	for (r = 0; r < k->n; r++) {
		if (!vals_is_array(&k->v[r]->samples))
			continue;
		run_c[r] = malloc(sizeof(**run_c));
		if (!run_c[r] || pipeline_cols_build(&k->v[r]->samples, run_c[r])) {
			free(run_c[r]);
			run_c[r] = NULL;
			ret = -ENOMEM;
			goto out;
		}
	}
	for (e = 0; e < width; e++) {
		row = compare_row_new(c, s->path, s->path_len, s->case_name, s->name,
			      s->labels, (long)e);
		if (!row || row_display(row, p) ||
		    measure_elem(row, &cur_c, run_c, k->n, e, g.op, sc)) {
			ret = -ENOMEM;
			goto out;
		}
		row->has_current = 1;
		verdict(row, &g, o);
	}
out:
	for (r = 0; run_c && r < k->n; r++)
		if (run_c[r]) {
			pipeline_cols_free(run_c[r]);
			free(run_c[r]);
		}
	free(run_c);
	pipeline_cols_free(&cur_c);
	vals_free(&pv);
	return ret;
}

static int missing_series(struct ksft_metric_report_comparison *c,
			  const struct ksft_metric_report *cur, const struct bkey *k,
			  const struct ksft_metric_report_compare_opts *o,
			  struct scratch *sc)
{
	const struct bl_series *s = k->v[0];
	struct rp_policy scratch;
	const struct rp_policy *p;
	struct cmp_row *row;
	struct gate g;
	size_t r;

	memset(&scratch, 0, sizeof(scratch));
	scratch.summarize = RP_OP_DISTRIBUTION;
	scratch.better = s->source == RP_SRC_KTAP ? 0 : 1;
	scratch.rel_tol = scratch.abs_tol = NAN;
	p = &scratch;
	for (r = 0; r < k->n; r++)
		if (k->v[r]->has_policy) {
			p = &k->v[r]->policy;
			break;
		}
	gate_for(p, s->source, o, &g);
	row = compare_row_new(c, s->path, s->path_len, s->case_name, s->name, s->labels, -1);
	if (!row || row_display(row, p))
		return -ENOMEM;
	if (!s->is_array && measure(row, NULL, k, (size_t)-1, g.op, sc))
		return -ENOMEM;
	row->better = g.better;
	row->compare = g.op;
	/* Missing because its case failed: that, not a lost series. */
	if (g.gated && g.better &&
	    compare_case_failed(cur, (const char *const *)s->path, s->path_len, s->case_name)) {
		row->verdict = KSFTM_VERDICT_CASE_FAILED;
		row->fails = !o->allow_missing;
		return 0;
	}
	row->verdict = KSFTM_VERDICT_MISSING;
	row->fails = g.gated && g.better && !o->allow_missing;
	return 0;
}

KSFT_METRIC_REPORT_API void
ksft_metric_report_comparison_free(struct ksft_metric_report_comparison *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++)
		free(c->rows[i].disp_label);	/* the rest: the pool's */
	free(c->rows);
	strpool_free(c->pool);
	free(c);
}

KSFT_METRIC_REPORT_API int
ksft_metric_report_compare(const struct ksft_metric_report *cur,
			   const struct ksft_metric_report_baseline *base,
			   const struct ksft_metric_report_compare_opts *opts,
			   struct ksft_metric_report_comparison **out)
{
	struct ksft_metric_report_compare_opts o = KSFT_METRIC_REPORT_COMPARE_OPTS_INIT;
	struct ksft_metric_report_comparison *c;
	struct scratch sc;
	struct bindex ix;
	size_t i;
	int ret = 0;

	if (!cur || !base || !out)
		return ksftm_fail(EINVAL, "ksft_metric_report_compare: NULL argument");
	if (ksftm_opts_take(&o, sizeof(o), opts, "ksft_metric_report_compare_opts"))
		return -EINVAL;
	if (isnan(o.tolerance_pct) || isnan(o.alpha) || o.alpha < 0 || o.alpha > 1)
		return ksftm_fail(EINVAL, "tolerance must be a number; alpha within [0, 1]");
	*out = NULL;
	c = calloc(1, sizeof(*c));
	memset(&sc, 0, sizeof(sc));
	memset(&ix, 0, sizeof(ix));
	if (!c || bindex_build(&ix, base)) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; !ret && i < cur->n_series; i++) {
		const struct rp_series *s = cur->series[i];
		struct bkey *k = bindex_find(&ix, s->key);

		if (k)
			k->used = 1;
		ret = compare_series(c, s, k, &o, &sc);
	}
	for (i = 0; !ret && i < ix.n; i++)
		if (!ix.order[i]->used)
			ret = missing_series(c, cur, ix.order[i], &o, &sc);
out:
	bindex_free(&ix);
	free(sc.cur);
	free(sc.pool);
	free(sc.runvals);
	if (ret) {
		ksft_metric_report_comparison_free(c);
		return ksftm_oom();
	}
	for (i = 0; i < c->n; i++) {
		c->failing += c->rows[i].fails;
		c->failed_cases += c->rows[i].fails &&
				   !strcmp(c->rows[i].verdict, KSFTM_VERDICT_CASE_FAILED);
	}
	*out = c;
	return (int)c->failing;
}

KSFT_METRIC_REPORT_API size_t
ksft_metric_report_comparison_rows(const struct ksft_metric_report_comparison *c)
{
	return c ? c->n : 0;
}

KSFT_METRIC_REPORT_API int
ksft_metric_report_comparison_row(const struct ksft_metric_report_comparison *c,
				  size_t i, struct ksft_metric_report_row *dst)
{
	struct ksft_metric_report_row full, *out = &full;
	const struct cmp_row *row;
	size_t sz;

	if (!c || !dst || dst->sz < sizeof(size_t))
		return ksftm_fail(EINVAL, "NULL comparison or row, or row.sz not set");
	if (i >= c->n)
		return ksftm_fail(ERANGE, "row %zu out of range (%zu rows)", i, c->n);
	/* An older caller's smaller struct gets the fields it knows. */
	sz = dst->sz < sizeof(full) ? dst->sz : sizeof(full);
	row = &c->rows[i];
	out->case_name = row->case_name;
	out->path = (const char *const *)row->path;
	out->path_len = row->path_len;
	out->name = row->name;
	out->labels_json = row->labels;
	out->element = row->element;
	out->compare = canon_op_name(row->compare);
	out->better = canon_better_name(row->better);
	out->baseline = row->baseline;
	out->current = row->current;
	out->change_pct = row->change_pct;
	out->allowance = row->allowance;
	out->p_value = row->p_value;
	out->n_baseline = row->n_baseline;
	out->n_current = row->n_current;
	out->baseline_runs = row->baseline_runs;
	out->verdict = row->verdict;
	out->fails = row->fails;
	out->display_scale = row->disp_scale;
	out->display_label = row->disp_label;
	memcpy((char *)dst + sizeof(size_t), (char *)&full + sizeof(size_t),
	       sz - sizeof(size_t));
	return 0;
}
