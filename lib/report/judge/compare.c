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
#include "baseline_index.h"
#include "canon.h"
#include "changepoint.h"
#include "compare.h"
#include "compare_measure.h"
#include "compare_seeds.h"
#include "errmsg.h"
#include "measuring_context.h"
#include "opts_size.h"
#include "order_stats.h"
#include "pipeline.h"
#include "report.h"
#include "rp.h"
#include "rp_policy.h"
#include "series.h"
#include "strbuf.h"
#include "stats.h"
#include "vals.h"

/* The row's values are shown in the policy's display units: 0 or -ENOMEM. */
static int row_display(struct ksft_metric_report_comparison *c, struct cmp_row *row,
		       const struct rp_policy *p)
{
	int err;

	row->aggregated = p->aggregation != RP_AGG_NONE;
	if (row->aggregated)
		return 0;	/* compared in busy cores, not display units */
	row->disp = compare_display(c, p->disp_scale, p->disp_label, &err);
	return err;
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

/* max(rel |base|, abs), at most --max-tolerance percent of |base|. */
static double allowance_at(const struct gate *g,
			   const struct ksft_metric_report_compare_opts *o, double base)
{
	double allow = 0;

	if (!isnan(g->rel))
		allow = g->rel * fabs(base);
	if (!isnan(g->abs) && g->abs > allow)
		allow = g->abs;
	/* --max-tolerance tightens every series, a policy's too (issue 42). */
	if (o->max_tolerance_pct > 0 && allow > o->max_tolerance_pct / 100.0 * fabs(base))
		allow = o->max_tolerance_pct / 100.0 * fabs(base);
	return allow;
}

static void verdict(struct cmp_row *row, const struct gate *g,
		    const struct ksft_metric_report_compare_opts *o)
{
	double base = row->baseline, cur = row->current, allow, min_p;
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
	allow = row->allowance = allowance_at(g, o, base);
	worse = g->better > 0 ? cur < base - allow : cur > base + allow;
	better = g->better > 0 ? cur > base + allow : cur < base - allow;
	/*
	 * Where no ordering of so few samples reaches alpha (2 or 3 a side),
	 * the samples' most extreme ordering, every current sample beyond
	 * every baseline one, is all the evidence there can be: then the
	 * tolerance decides, as with one sample a side (issue 40 item 11).
	 * Overlapping samples stay TOO NOISY (doc/decisions.rst).
	 */
	min_p = stats_mann_whitney_min_p(row->n_current, row->n_baseline);
	significant = !(o->alpha > 0) || isnan(row->p_value) || row->p_value < o->alpha ||
		      (min_p >= o->alpha && row->p_value <= min_p * (1 + 1e-9));
	row->beyond_floor = significant && cur != base;
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

/* Judging seeds: each run's seed on both sides, the run's seeds by key. */
struct seeds_ctx {
	int on;
	char **base, **cur;
	struct baseline_index ix;
};


/* Seeds are judged when both sides name some (@cur: the run's boots). */
static int seeds_setup(struct seeds_ctx *sx, const struct ksft_metric_report_baseline *base,
		       const struct ksft_metric_report_baseline *cur)
{
	size_t r;
	int err, a = 0, b = 0;

	if (!cur)
		return 0;
	sx->base = compare_seeds_of(base, &err);
	if (err || !(sx->cur = compare_seeds_of(cur, &err)) || err)
		return -ENOMEM;
	for (r = 0; r < base->n_runs; r++)
		a |= !!sx->base[r];
	for (r = 0; r < cur->n_runs; r++)
		b |= !!sx->cur[r];
	sx->on = a && b;
	return sx->on ? baseline_index_build(&sx->ix, cur) : 0;
}

/*
 * Judge @row seed by seed when both sides hold seeds of key @k (several on
 * one side at least): 1 judged, 0 not (the caller judges the samples),
 * -ENOMEM.
 */
static int seed_verdict(struct cmp_row *row, const struct baseline_index *ix,
			const struct baseline_key *k,
			const struct gate *g, const struct ksft_metric_report_compare_opts *o,
			const struct seeds_ctx *sx)
{
	const struct baseline_key *ck;
	struct seed_value *a = NULL, *b = NULL;
	long na, nb;
	double *tmp;
	int ret = 0;

	if (!sx->on || !g->gated || !g->better ||
	    !(ck = baseline_index_find(&sx->ix, k->first->path, k->first->path_len,
					k->first->case_name, k->first->name,
					k->first->labels, k->hash)))
		return 0;
	a = malloc((k->n + 1) * sizeof(*a));
	b = malloc((ck->n + 1) * sizeof(*b));
	tmp = malloc((k->n + 1) * sizeof(*tmp));
	if (!a || !b || !tmp)
		goto oom;
	na = compare_seeds_values(ix, k, sx->base, g->op, a);
	nb = compare_seeds_values(&sx->ix, ck, sx->cur, g->op, b);
	if (na < 0 || nb < 0)
		goto oom;
	if (na && nb && (na > 1 || nb > 1)) {
		long i;

		for (i = 0; i < na; i++)
			tmp[i] = a[i].v;
		row->compare = g->op;
		ret = compare_seeds_verdict(row, a, (size_t)na, b, (size_t)nb, g->better,
					    allowance_at(g, o, ksftm_median(tmp, (size_t)na)),
					    o->alpha);
		ret = ret ? ret : 1;
	}
	free(a);
	free(b);
	free(tmp);
	return ret;
oom:
	free(a);
	free(b);
	free(tmp);
	return -ENOMEM;
}

static int compare_series(struct ksft_metric_report_comparison *c,
			  const struct rp_series *s, struct baseline_key *k,
			  const struct ksft_metric_report_compare_opts *o,
			  struct scratch *sc)
{
	struct rp_policy scratch;
	const struct rp_policy *p = series_policy(s, &scratch);
	struct rp_vals pv, view;
	struct rp_cols cur_c = { 0, NULL, NULL }, **run_c = NULL;
	struct gate g;
	struct cmp_row *row;
	size_t width, e, r;
	int ret = 0, shape_change = 0;
	/* Without a rate or an aggregation the processed points are the raw
	 * ones: read in place, not copied (issue 45). */
	int own = p->transform == RP_TR_RATE || p->aggregation == RP_AGG_BCE;

	gate_for(p, s->source, o, &g);
	if (canon_status_failed(s->status) && g.gated && g.better) {
		/* A failed case's values are no measurement: not judged, and
		 * said so (never a regression, never silently passed). */
		row = compare_row_new_held(c, s, -1);
		if (!row || row_display(c, row, p))
			return -ENOMEM;
		row->has_current = 1;
		row->better = g.better;
		row->compare = g.op;
		row->verdict = KSFTM_VERDICT_CASE_FAILED;
		row->fails = !o->allow_missing;
		return 0;
	}
	if (!own)
		pv = *series_raw(s, &view);
	else if (pipeline_apply(series_raw(s, &view), p, KSFT_METRIC_REPORT_PROCESSED, &pv))
		return -ENOMEM;
	width = vals_is_array(&pv) ? pv.width : 0;
	for (r = 0; k && r < k->n; r++) {
		const struct rp_vals bv = bl_vals(baseline_key_series(sc->ix, k, r));
		const struct rp_vals *b = &bv;

		if (vals_is_array(b) != vals_is_array(&pv))
			shape_change = 1;
		else if (vals_is_array(b) && b->width > width)
			width = b->width;
	}
	if (!k || shape_change || !vals_is_array(&pv)) {
		row = compare_row_new_held(c, s, -1);
		if (!row) {
			ret = -ENOMEM;
			goto out;
		}
		row->has_current = 1;
		if (row_display(c, row, p)) {
			ret = -ENOMEM;
			goto out;
		}
		if (!vals_is_array(&pv) &&
		    compare_measure(row, &pv, shape_change ? NULL : k, (size_t)-1, g.op, sc)) {
			ret = -ENOMEM;
			goto out;
		}
		row->better = g.better;
		row->compare = g.op;
		if (!k) {
			row->verdict = KSFTM_VERDICT_NEW;
		} else if (shape_change) {
			row->verdict = KSFTM_VERDICT_NOT_COMPARABLE;
		} else if (vals_is_array(&pv) ||
			   !(ret = seed_verdict(row, sc->ix, k, &g, o, sc->seeds))) {
			verdict(row, &g, o);
		} else if (ret < 0) {
			goto out;
		} else {
			ret = 0;
		}
		goto out;
	}
	run_c = calloc(k->n + 1, sizeof(*run_c));
	if (!run_c || pipeline_cols_build(&pv, &cur_c)) {
		ret = -ENOMEM;
		goto out;
	}
	for (r = 0; r < k->n; r++) {
		const struct rp_vals bv = bl_vals(baseline_key_series(sc->ix, k, r));
		const struct rp_vals *b = &bv;

		if (!vals_is_array(b))
			continue;
		run_c[r] = malloc(sizeof(**run_c));
		if (!run_c[r] || pipeline_cols_build(b, run_c[r])) {
			free(run_c[r]);
			run_c[r] = NULL;
			ret = -ENOMEM;
			goto out;
		}
	}
	for (e = 0; e < width; e++) {
		row = compare_row_new_held(c, s, (long)e);
		if (!row || row_display(c, row, p) ||
		    compare_measure_elem(row, &cur_c, run_c, k->n, e, g.op, sc)) {
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
	if (own)
		vals_free(&pv);
	return ret;
}

static int missing_series(struct ksft_metric_report_comparison *c,
			  const struct ksft_metric_report *cur, const struct baseline_key *k,
			  const struct ksft_metric_report_compare_opts *o,
			  struct scratch *sc)
{
	const struct bl_series *s = k->first;
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
	for (r = 0; r < k->n; r++) {
		const struct rp_policy *own = baseline_key_series(sc->ix, k, r)->policy;

		if (own) {
			p = own;
			break;
		}
	}
	gate_for(p, s->source, o, &g);
	row = compare_row_new(c, s->path, s->path_len, s->case_name, s->name, s->labels, -1);
	if (!row || row_display(c, row, p))
		return -ENOMEM;
	if (!s->is_array && compare_measure(row, NULL, k, (size_t)-1, g.op, sc))
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

/* Here, above the reader: the report its rows held goes with it. */
KSFT_METRIC_REPORT_API void
ksft_metric_report_comparison_free(struct ksft_metric_report_comparison *c)
{
	struct ksft_metric_report *held = c ? c->held : NULL;

	comparison_free(c);
	ksft_metric_report_free(held);	/* the comparison's hold on it */
}

/* One comparison as it is made: ksft_metric_report_compare() and the
 * streamed one (compare_stream.c) both. */
struct compare_run {
	struct ksft_metric_report_compare_opts o;
	struct ksft_metric_report_comparison *c;
	const struct ksft_metric_report_baseline *base;
	struct scratch sc;
	struct baseline_index ix;
	struct seeds_ctx sx;
	struct baseline_key step;	/* compare_step()'s: one run's series */
};

int compare_start(const struct ksft_metric_report *cur,
		  const struct ksft_metric_report_baseline *base,
		  const struct ksft_metric_report_compare_opts *opts, struct compare_run **out)
{
	struct compare_run *run;
	struct ksft_metric_report_comparison *c;
	size_t i;
	int ret;

	if (!cur || !base || !out)
		return ksftm_fail(EINVAL, "ksft_metric_report_compare: NULL argument");
	*out = NULL;
	run = calloc(1, sizeof(*run));
	if (!run)
		return ksftm_oom();
	run->o = (struct ksft_metric_report_compare_opts)KSFT_METRIC_REPORT_COMPARE_OPTS_INIT;
	if (ksftm_opts_take(&run->o, sizeof(run->o), opts, "ksft_metric_report_compare_opts")) {
		free(run);
		return -EINVAL;
	}
	if (isnan(run->o.tolerance_pct) || isnan(run->o.max_tolerance_pct) ||
	    isnan(run->o.alpha) || run->o.alpha < 0 || run->o.alpha > 1) {
		free(run);
		return ksftm_fail(EINVAL, "tolerances must be numbers; alpha within [0, 1]");
	}
	run->base = base;
	run->step.n = 1;	/* step.at 0: its run */
	run->step.used = 1;
	run->sc.seeds = &run->sx;
	run->sc.ix = &run->ix;
	c = run->c = calloc(1, sizeof(*c));
	if (!c) {
		free(run);
		return ksftm_oom();
	}
	/* Its rows, once judged, are never changed: kept compactly (issue 45). */
	c->compact = 1;
	ret = measuring_context_check(cur, base, run->o.allow_context_mismatch, &c->context_diff);
	if (ret) {
		free(c);
		free(run);
		return ret;
	}
	/* Both sides' contexts, for the reply summary to name them. */
	for (i = 0; i < base->n_runs && !base->runs[i].context; i++)
		;
	if ((i < base->n_runs && !(c->context_a = strdup(base->runs[i].context))) ||
	    (cur->context_json && !(c->context_b = strdup(cur->context_json)))) {
		compare_finish(run, -ENOMEM, NULL);
		return ksftm_oom();
	}
	/* The rows of its series point at its names: it stays while they do. */
	c->held = report_hold(cur);
	/* A row a series at least: room for them at once, not by doubling. */
	if (compare_rows_reserve(c, cur->n_series) || seeds_setup(&run->sx, base, run->o.seeds)) {
		compare_finish(run, -ENOMEM, NULL);
		return ksftm_oom();
	}
	*out = run;
	return 0;
}

int compare_step(struct compare_run *run, const struct rp_series *s,
		 const struct bl_series *b)
{
	run->step.first = b;
	return compare_series(run->c, s, &run->step, &run->o, &run->sc);
}

int compare_finish(struct compare_run *run, int ret,
		   struct ksft_metric_report_comparison **out)
{
	struct ksft_metric_report_comparison *c = run->c;
	size_t i;

	baseline_index_free(&run->ix);
	baseline_index_free(&run->sx.ix);
	compare_seeds_free(run->sx.base, run->base->n_runs);
	compare_seeds_free(run->sx.cur, run->o.seeds ? run->o.seeds->n_runs : 0);
	free(run->sc.cur);
	free(run->sc.pool);
	free(run->sc.runvals);
	free(run);
	if (ret || !out) {
		ksft_metric_report_comparison_free(c);
		return ret ? ksftm_oom() : 0;
	}
	compare_rows_seal(c);
	for (i = 0; i < c->n; i++) {
		c->failing += cmp_row_fails_at(c, i);
		c->failed_cases += cmp_row_fails_at(c, i) &&
				   !strcmp(cmp_row_verdict_at(c, i), KSFTM_VERDICT_CASE_FAILED);
	}
	*out = c;
	return (int)c->failing;
}

/*
 * How many series of @cur, from the first, are @base's one run's, one for
 * one and in order (a log against its own saved run, the common case,
 * issue 45): each one's key is then its run's series, and no index is
 * needed for them. The report's series are unique by identity (its table
 * by key), so no identity comes twice among them.
 */
static size_t in_step_prefix(const struct ksft_metric_report *cur,
			     const struct ksft_metric_report_baseline *base)
{
	const struct bl_series *b;
	size_t i;

	if (base->n_runs != 1)
		return 0;
	b = base->runs[0].series;
	for (i = 0; i < cur->n_series && i < base->runs[0].n; i++) {
		const struct rp_series *s = cur->series[i];

		if (!series_same_identity(b[i].path, b[i].path_len, b[i].case_name, b[i].name,
					  b[i].labels, series_path(s), series_path_len(s),
					  series_case_name(s), series_name(s), series_labels(s)))
			break;
	}
	return i;
}

KSFT_METRIC_REPORT_API int
ksft_metric_report_compare(const struct ksft_metric_report *cur,
			   const struct ksft_metric_report_baseline *base,
			   const struct ksft_metric_report_compare_opts *opts,
			   struct ksft_metric_report_comparison **out)
{
	struct compare_run *run;
	struct baseline_index *ix;
	char *const *last_path = NULL;
	uint64_t path_hash = 0;
	size_t i, next, lead = 0;
	int ret, in_step = 1;

	if (!out)
		return ksftm_fail(EINVAL, "ksft_metric_report_compare: NULL argument");
	*out = NULL;
again:
	ret = compare_start(cur, base, opts, &run);
	if (ret)
		return ret;
	ix = &run->ix;
	/* The run's series in step with the report's: each one's own key, no
	 * index; it is built at the first that is not (or for what is left). */
	if (!run->sx.on && in_step)
		lead = in_step_prefix(cur, base);
	for (i = 0; !ret && i < lead; i++)
		ret = compare_step(run, cur->series[i], &base->runs[0].series[i]);
	if (ret || (lead == cur->n_series && base->n_runs == 1 && lead == base->runs[0].n))
		return compare_finish(run, ret, out);
	if (baseline_index_build(ix, base))
		return compare_finish(run, -ENOMEM, out);
	/* The keys of those judged already: the first @lead, in first-seen
	 * order. Where the run holds one of them again further on (a file
	 * made by hand), that key has two series: judge everything again by
	 * the index alone. */
	for (i = 0; i < lead; i++) {
		if (ix->keys[i].n != 1) {
			compare_finish(run, 0, NULL);
			in_step = 0;
			lead = 0;
			goto again;
		}
		ix->keys[i].used = 1;
	}
	next = lead;
	for (i = lead; !ret && i < cur->n_series; i++) {
		const struct rp_series *s = cur->series[i];
		struct baseline_key *k = next < ix->n ? &ix->keys[next] : NULL;

		/* A run in its baseline's order (a log against its own saved
		 * runs): the key after the last one found, confirmed, no hash. */
		if (!k || !series_same_identity(k->first->path, k->first->path_len,
						k->first->case_name, k->first->name,
						k->first->labels, series_path(s), series_path_len(s),
						series_case_name(s), series_name(s), series_labels(s))) {
			char **path = series_path(s);

			if (path != last_path || !last_path) {	/* a test's series share it */
				last_path = path;
				path_hash = baseline_index_hash_path(path, series_path_len(s));
			}
			k = baseline_index_find(ix, path, series_path_len(s), series_case_name(s),
						series_name(s), series_labels(s),
						baseline_index_hash(path_hash, series_case_name(s),
								    series_name(s), series_labels(s)));
		}
		if (k)
			next = (size_t)(k - ix->keys) + 1;
		if (k)
			k->used = 1;
		ret = compare_series(run->c, s, k, &run->o, &run->sc);
	}
	for (i = 0; !ret && i < ix->n; i++)
		if (!ix->keys[i].used)
			ret = missing_series(run->c, cur, &ix->keys[i], &run->o, &run->sc);
	return compare_finish(run, ret, out);
}
