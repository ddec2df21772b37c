/*
 * The history gate (history.h): each series of a run against the last N
 * usable, comparable runs of the same series, judged together by gate.c.
 * It judges the plain values store/history_window_read.c read for the
 * run (struct history_window_set) and reads nothing itself.
 */
#include <errno.h>
#include <jansson.h>
#include <ksftmetric/report.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon.h"
#include "compare.h"
#include "errmsg.h"
#include "gate.h"
#include "grow.h"
#include "history.h"
#include "history_judge.h"
#include "policy_vocab.h"
#include "report.h"
#include "rp_policy.h"
#include "series.h"

/* The run's false-alarm budget, all of it to the one detector (gate.h);
 * regressions and improvements are controlled apart, each at this rate. */
#define DEFAULT_FDR 0.01

/* What the gate needs of one row beyond cmp_row. */
struct pending {
	size_t row;		/* index in the comparison */
	const double *window;	/* its window's values (the set's) */
	size_t n_window;
	double rel_tol, abs_tol;
	long long id;		/* the series' id */
	char *group;		/* its case: path and case name */
	const double *recent;	/* every measured run since the level, oldest first */
	const size_t *repeats;	/* each one's repeats */
	const double *within;	/* each one's variance of its repeats */
	const unsigned char *held;	/* each one out of the window (1) or not */
	size_t n_recent;
	const struct history_window_in *in;	/* (its prior runs, a young level's) */
	int pinned;		/* its window ends at a pinned run */
	size_t cur_repeats;	/* the current run's */
	double cur_within;
};

struct judge {
	const struct history_window_set *set;	/* the plain values, read from the history */
	const struct ksft_metric_report *r;
	const struct hgate_opts *o;
	struct ksft_metric_report_comparison *c;
	struct pending *p;
	size_t n_p, cap_p;
	const struct history_key *keys;	/* series i's identity and id (0: none) */
};

static int push_pending(struct judge *j, const struct pending *p)
{
	int ret = ksftm_grow((void **)&j->p, &j->cap_p, j->n_p + 1, sizeof(*j->p), 64);

	if (ret)
		return ksftm_fail(-ret, "out of memory");
	j->p[j->n_p++] = *p;
	return 0;
}

/* Sample variance of x[0..n) (NaN below 2). */
static double variance_of(const double *x, size_t n)
{
	double m = 0, ss = 0;
	size_t i;

	if (n < 2)
		return NAN;
	for (i = 0; i < n; i++)
		m += x[i];
	m /= (double)n;
	for (i = 0; i < n; i++)
		ss += (x[i] - m) * (x[i] - m);
	return ss / (double)(n - 1);
}

/* A case's group key: its path and case name (gate_control.h). */
static char *group_of(const char *path, const char *case_name)
{
	size_t a = strlen(path), b = strlen(case_name);
	char *g = malloc(a + b + 2);

	if (g) {
		memcpy(g, path, a);
		g[a] = '\x1f';
		memcpy(g + a + 1, case_name, b + 1);
	}
	return g;
}

static int judge_series(struct judge *j, const struct ksft_metric_report *r, size_t i)
{
	const struct history_window_in *in = &j->set->in[i];
	struct ksft_metric_report_series s = { .sz = sizeof(s) };
	struct ksft_metric_report_values vals = { 0 };
	double one, *cur = &one, rel_tol, abs_tol;
	const char *op, *path;
	long long id = j->keys[i].id;
	int ret, n, better, failed;
	long e;

	if ((ret = ksft_metric_report_series_get(r, i, &s)))
		return ret;
	rp_policy_gate_of(&s, &op, &better, &rel_tol, &abs_tol);
	path = j->keys[i].path;
	/* A tracked series of a failed case (an untracked one stays so). */
	failed = better && canon_status_failed(r->series[i]->status);
	if (in->read) {	/* the window's reader has it (history_window.h) */
		n = in->width;
		one = in->first;
	} else {
		n = ksft_metric_report_series_summary(r, i, op, &one, 1);
	}
	if (n < 0)
		return n;
	if (n > 1) {
		cur = malloc((size_t)n * sizeof(*cur));
		if (!cur)
			return ksftm_oom();
		ksft_metric_report_series_summary(r, i, op, cur, (size_t)n);
	}
	if ((ret = ksft_metric_report_series_values(r, i, KSFT_METRIC_REPORT_PROCESSED, &vals)))
		goto out;
	for (e = s.is_array ? 0 : -1; e < (s.is_array ? n : 0); e++) {
		struct cmp_row *row = compare_row_new(j->c, (char *const *)s.path, s.path_len,
						      s.case_name, s.name, s.labels_json, e);
		struct pending pd = { .rel_tol = rel_tol, .abs_tol = abs_tol, .id = id,
				      .pinned = in->pinned, .cur_repeats = vals.n,
				      .cur_within = NAN };
		const struct history_window_elem *el;

		if (!row || compare_row_spread_at(row, CMP_CUR, &vals, e)) {	/* (for the text) */
			ret = ksftm_oom();
			goto out;
		}
		row->series = (long)i;
		row->has_current = 1;
		/* Shown in the policy's display units (aggregated series are
		 * compared in busy cores: none). */
		if (!s.aggregation) {
			row->disp = compare_display(j->c, s.display_scale, s.display_label, &ret);
			if (ret) {
				ret = ksftm_oom();
				goto out;
			}
		}
		row->compare = canon_op_parse(op, 0);
		row->better = better;
		row->current = cur[e < 0 ? 0 : e];
		row->n_current = vals.n;
		if (j->o->incomparable || (!failed && !in->n_rows && in->any)) {
			row->verdict = KSFTM_VERDICT_NOT_COMPARABLE;
			if (!j->o->incomparable && !cmp_side_get(row)) {
				ret = ksftm_oom();
				goto out;
			}
			if (!j->o->incomparable)
				row->side->why = in->pinned ?
					"no usable run up to the pinned run, which freezes its"
					" window (pin --unpin, or accept a run after the pin)" :
					"no usable stored run on these machines: each failed, was"
					" disturbed or is a regression not accepted (accept RUN)";
			continue;
		}
		if (failed) {	/* no measurement: not judged, said so */
			row->verdict = KSFTM_VERDICT_CASE_FAILED;
			row->fails = !j->o->allow_missing;
			continue;
		}
		if (!in->read || !in->n_rows || (size_t)(e < 0 ? 0 : e) >= in->n_elem) {
			row->verdict = KSFTM_VERDICT_NEW;
			continue;
		}
		el = &in->elem[e < 0 ? 0 : e];
		pd.row = j->c->n - 1;
		pd.window = el->window;
		pd.n_window = el->n_window;
		if (e < 0 && in->wants_recent) {
			pd.recent = in->recent;
			pd.repeats = in->repeats;
			pd.within = in->within;
			pd.held = in->held;
			pd.n_recent = in->n_recent;
			pd.in = in;
		}
		if (vals.width == 1 && e < 0)
			pd.cur_within = variance_of(vals.v, vals.n);
		pd.group = group_of(path, s.case_name);
		if (!pd.group ||	/* the text's spread of the level's runs */
		    compare_row_spread_of(row, CMP_BASE, el->window, el->n_level, 1) ||
		    push_pending(j, &pd)) {
			free(pd.group);
			ret = ksftm_oom();
			goto out;
		}
	}
out:
	ksft_metric_report_values_release(&vals);
	if (cur != &one)
		free(cur);
	return ret;
}

/* Series @g, which the run lacks: its row. */
static int missing_row(struct judge *j, const struct history_window_gone *g)
{
	struct cmp_row *row = compare_row_new(j->c, g->parts, g->n_parts, g->case_name, g->metric,
					      g->labels, -1);

	if (!row)
		return ksftm_oom();
	row->better = g->better;
	/* Missing because its case failed in this run: that, not a lost series. */
	row->verdict = g->better && compare_case_failed(j->r, (const char *const *)g->parts,
							g->n_parts, g->case_name) ?
			       KSFTM_VERDICT_CASE_FAILED : KSFTM_VERDICT_MISSING;
	row->fails = row->better && !j->o->allow_missing;
	return 0;
}

/* An interference series (doc/producers.rst): how disturbed the machine
 * was, not what the test measures. */
static int is_interference(const struct cmp_row *row)
{
	return !strncmp(cmp_row_name(row), KSFTM_INTERFERENCE_PREFIX,
			strlen(KSFTM_INTERFERENCE_PREFIX)) && !row->better;
}

/*
 * One that can excuse a regression (issue 40): what the test cannot cause
 * itself, others' CPU time on its CPUs and steal. Its own involuntary
 * switches and its run-queue wait are not: the change under test moves
 * them (a qdisc, smaller buffers), so they would excuse the very
 * regression they come with.
 */
static int is_excuse(const struct cmp_row *row)
{
	return is_interference(row) && (!strcmp(cmp_row_name(row), "interference.others_cpu") ||
					 !strcmp(cmp_row_name(row), "interference.steal"));
}

/*
 * How far interference alone moved each kind of gated series in our
 * recordings, toward worse, in runs whose others' CPU time rose by 0.1 CPU
 * or more (bench/analyse/interference_bound.py, bench/results/
 * interference_bound-2026-12-07.txt, 966 runs): the test's own CPU cost
 * per byte +100 %, the whole host's +1689 %, throughput -92 %. A series of
 * another name takes the largest of its direction.
 */
static const struct {
	const char *prefix;
	double worst;		/* relative change toward worse */
} interference_bounds[] = {
	{ "cpu.cost.test", GATE_DISTURBED_MAX_RISE_TEST },
	{ "cpu.cost", GATE_DISTURBED_MAX_RISE },
};

/* Is a regressed row's change within what interference alone was seen to
 * do to such a series? */
static int interference_explains(const struct cmp_row *row)
{
	double ch = row->change_pct / 100.0, worst = GATE_DISTURBED_MAX_RISE;
	size_t k;

	if (!isfinite(ch))
		return 0;
	if (row->better > 0)
		return ch >= -GATE_DISTURBED_MAX_DROP;
	for (k = 0; k < sizeof(interference_bounds) / sizeof(interference_bounds[0]); k++)
		if (!strncmp(cmp_row_name(row), interference_bounds[k].prefix,
			     strlen(interference_bounds[k].prefix))) {
			worst = interference_bounds[k].worst;
			break;
		}
	return ch <= worst;
}

/*
 * Has an excusing series risen far enough above its level to matter?
 * Others' CPU time and steal are CPU seconds per second: a rise of
 * GATE_DISTURBED_MIN_CPU CPUs, the rise from which our recordings bound
 * what interference does (bench/analyse/interference_bound.py), whatever the
 * level. A relative floor alone missed a busy neighbour's spell on top of
 * a level already near the CPUs' count (1.7 -> 1.9 CPUs, +12 %, throughput
 * -70 %), and excused a rise of a few thousandths of a CPU on a quiet one.
 */
static int rose_enough(const struct cmp_row *row, const struct gate_series *g)
{
	return row->current - g->baseline >= GATE_DISTURBED_MIN_CPU;
}

/*
 * Pending rows @idx[0..n) through one gate_judge() call (@interference:
 * judged upward, higher is more disturbed, only to tell a disturbed run;
 * their rows stay untracked). @disturbed gets the groups whose
 * interference is measurably above the history's.
 */
static int judge_batch(struct judge *j, const size_t *idx, size_t n, int interference,
		       const char **disturbed, size_t *n_disturbed)
{
	struct gate_opts go = GATE_OPTS_DEFAULT;
	struct gate_series *g = calloc(n ? n : 1, sizeof(*g));
	size_t m;

	if (!g)
		return ksftm_oom();
	go.fdr = j->o->fdr > 0 ? j->o->fdr : DEFAULT_FDR;
	for (m = 0; m < n; m++) {
		const struct pending *pd = &j->p[idx[m]];
		const struct cmp_row *row = cmp_row_mut(j->c, pd->row);

		g[m].window = pd->window;
		g[m].n_window = pd->n_window;
		g[m].recent = pd->recent;
		g[m].n_recent = pd->n_recent;
		g[m].recent_repeats = pd->repeats;
		g[m].recent_within = pd->within;
		g[m].recent_held = pd->held;
		if (pd->in && pd->in->prior) {
			g[m].prior = pd->in->prior;
			g[m].n_prior = pd->in->n_prior;
			g[m].prior_repeats = pd->in->prior_repeats;
			g[m].prior_within = pd->in->prior_within;
		}
		g[m].repeats = pd->cur_repeats;
		g[m].within = pd->cur_within;
		g[m].group = pd->group;
		g[m].fresh = pd->pinned;
		g[m].current = row->current;
		g[m].better = interference ? -1 : row->better;
		g[m].rel_tol = interference ? NAN : pd->rel_tol;
		g[m].abs_tol = interference ? NAN : pd->abs_tol;
	}
	if (gate_judge(g, n, &go)) {
		free(g);
		return ksftm_oom();
	}
	for (m = 0; m < n; m++) {
		struct cmp_row *row = cmp_row_mut(j->c, j->p[idx[m]].row);
		/* The gate's figures go to the row's side record (issue 45). */
		struct cmp_side *sd = cmp_side_get(row);

		if (!sd) {
			free(g);
			return ksftm_oom();
		}
		row->baseline = g[m].baseline;
		row->change_pct = g[m].change * 100.0;
		row->allowance = g[m].allowance;
		row->n_baseline = row->baseline_runs = g[m].n_window;
		if (interference) {
			row->verdict = gate_verdict_name(GATE_UNTRACKED);
			if ((g[m].verdict == GATE_REGRESSION || g[m].z_local >= GATE_DISTURBED_Z) &&
			    rose_enough(row, &g[m])) {
				disturbed[(*n_disturbed)++] = j->p[idx[m]].group;
				/* it tripped (NaN is "not": an unknown z is Inf) */
				sd->disturb_z = isnan(g[m].z_local) ? INFINITY : g[m].z_local;
			}
			continue;
		}
		row->p_value = g[m].q_value;
		row->verdict = gate_verdict_name(g[m].verdict);
		row->fails = g[m].verdict == GATE_REGRESSION;
		sd->noise_pct = g[m].sigma * 100.0;
		sd->smallest_pct = g[m].smallest * 100.0;
		sd->need_runs = g[m].need_runs;
		sd->need_repeats = g[m].need_repeats;
		row->blind = g[m].blind && !row->fails;
	}
	free(g);
	return 0;
}

/* The interference row of @group that tripped it, the one furthest above
 * its history if several did (what DISTURBED names); -1: none. */
static long tripped_by(const struct judge *j, const size_t *intf, size_t n_i,
		       const char *group)
{
	long best = -1;
	size_t k;

	for (k = 0; k < n_i; k++) {
		const struct cmp_row *row = cmp_row_mut(j->c, j->p[intf[k]].row);

		if (isnan(cmp_side_of(row)->disturb_z) || strcmp(j->p[intf[k]].group, group))
			continue;
		if (best < 0 || row->change_pct > cmp_row_mut(j->c, (size_t)best)->change_pct)
			best = (long)j->p[intf[k]].row;
	}
	return best;
}

/*
 * All pending rows of the run through gate_judge() at once (the
 * interference series apart: they must not spend the gated series'
 * budget). Disturbed is not regressed: a regression in a case whose
 * interference is measurably above its history's (the interference
 * series' own upward test at the run's q, or its run alone beyond
 * GATE_DISTURBED_Z, and GATE_DISTURBED_MIN_CPU above its level) is "disturbed", to
 * rerun, and does not fail the run.
 */
static int judge_all(struct judge *j)
{
	size_t *gated = malloc((j->n_p ? j->n_p : 1) * sizeof(*gated));
	size_t *intf = malloc((j->n_p ? j->n_p : 1) * sizeof(*intf));
	const char **disturbed = malloc((j->n_p ? j->n_p : 1) * sizeof(*disturbed));
	size_t k, d, n_g = 0, n_i = 0, n_d = 0;
	int ret;

	if (!gated || !intf || !disturbed) {
		ret = ksftm_oom();
		goto out;
	}
	for (k = 0; k < j->n_p; k++) {
		if (is_excuse(cmp_row_mut(j->c, j->p[k].row)))
			intf[n_i++] = k;
		else if (!is_interference(cmp_row_mut(j->c, j->p[k].row)))
			gated[n_g++] = k;
		else	/* (the test's own: shown, untracked, judged by none) */
			cmp_row_mut(j->c, j->p[k].row)->verdict = gate_verdict_name(GATE_UNTRACKED);
	}
	if ((ret = judge_batch(j, intf, n_i, 1, disturbed, &n_d)) ||
	    (ret = judge_batch(j, gated, n_g, 0, disturbed, &n_d)))
		goto out;
	for (k = 0; k < n_g && n_d; k++) {
		struct cmp_row *row = cmp_row_mut(j->c, j->p[gated[k]].row);

		/* Only as far as interference was seen to go: beyond it, the
		 * regression stands. */
		if (!row->fails || !interference_explains(row))
			continue;
		for (d = 0; d < n_d; d++)
			if (!strcmp(disturbed[d], j->p[gated[k]].group)) {
				if (!cmp_side_get(row)) {
					ret = ksftm_oom();
					goto out;
				}
				row->verdict = KSFTM_VERDICT_DISTURBED;
				row->fails = 0;
				row->side->disturbed_by = tripped_by(j, intf, n_i,
								     j->p[gated[k]].group);
				j->c->disturbed++;
				break;
			}
	}
out:
	free(gated);
	free(intf);
	free(disturbed);
	return ret;
}

int history_gate_judge(const struct ksft_metric_report *r, const struct hgate_opts *o,
		const struct history_key *keys, const struct history_window_set *set,
		struct ksft_metric_report_comparison **out)
{
	struct judge j = { .set = set, .r = r, .o = o, .keys = keys };
	size_t i, n = ksft_metric_report_series_count(r);
	int ret = 0;

	*out = NULL;
	j.c = calloc(1, sizeof(*j.c));
	if (!j.c)
		return ksftm_oom();
	for (i = 0; i < n && !ret; i++)
		ret = judge_series(&j, r, i);
	for (i = 0; i < set->n_gone && !ret; i++)
		ret = missing_row(&j, &set->gone[i]);
	if (!ret)
		ret = judge_all(&j);
	if (!ret) {
		for (i = 0; i < j.c->n; i++) {	/* (its rows kept whole: c->compact 0) */
			const struct cmp_row *row = cmp_row_mut(j.c, i);

			j.c->failing += row->fails != 0;
			j.c->failed_cases += row->fails &&
					     !strcmp(row->verdict, KSFTM_VERDICT_CASE_FAILED);
		}
		ret = (int)j.c->failing;
		*out = j.c;
		j.c = NULL;
	}
	for (i = 0; i < j.n_p; i++)
		free(j.p[i].group);
	free(j.p);
	ksft_metric_report_comparison_free(j.c);
	return ret;
}
