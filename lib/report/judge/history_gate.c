/*
 * The history gate (history.h): each series of a run against the last N
 * usable, comparable runs of the same series, judged together by gate.c.
 * The rows come from the history through store/history_window.c; this
 * file judges them.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "gate.h"
#include "grow.h"
#include "history.h"
#include "history_sql.h"
#include "history_window.h"
#include "history_window_rule.h"
#include "rp_compare.h"

/* The run's false-alarm budget, all of it to the one detector (gate.h);
 * regressions and improvements are controlled apart, each at this rate. */
#define DEFAULT_FDR 0.01

/* What the gate needs of one row beyond cmp_row. */
struct pending {
	size_t row;		/* index in the comparison */
	double *window;		/* its window's values */
	size_t n_window;
	double rel_tol, abs_tol;
	long long id;		/* the series' id */
	char *group;		/* its case: path and case name */
	double *recent;		/* every measured run since the level, oldest first */
	size_t *repeats;	/* each one's repeats */
	double *within;		/* each one's variance of its repeats */
	size_t n_recent;
	size_t cur_repeats;	/* the current run's */
	double cur_within;
};

struct judge {
	struct history_window w;	/* the rows, read from the history */
	const struct ksft_metric_report *r;
	const struct hgate_opts *o;
	struct ksft_metric_report_comparison *c;
	struct pending *p;
	size_t n_p, cap_p;
	long long *seen;	/* series ids of the current run */
	size_t n_seen, cap_seen;
	const struct history_key *keys;	/* series i's identity and id (0: none) */
};

static int better_of(const char *b)
{
	return !b ? 0 : !strcmp(b, "higher") ? 1 : !strcmp(b, "lower") ? -1 : 0;
}

static int push_pending(struct judge *j, const struct pending *p)
{
	int ret = ksftm_grow((void **)&j->p, &j->cap_p, j->n_p + 1, sizeof(*j->p), 64);

	if (ret)
		return ksftm_fail(-ret, "out of memory");
	j->p[j->n_p++] = *p;
	return 0;
}

static int push_seen(struct judge *j, long long id)
{
	int ret = ksftm_grow((void **)&j->seen, &j->cap_seen, j->n_seen + 1, sizeof(*j->seen), 64);

	if (ret)
		return ksftm_fail(-ret, "out of memory");
	j->seen[j->n_seen++] = id;
	return 0;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/* The window's values of element @e (-1: the scalar value column, as
 * statistic @op), oldest first. *@again: a scalar window holds values
 * of another statistic and its summaries were not read. */
static double *window_values(const struct history_window_span *rows, const char *op, long e, size_t *n,
			     int *again)
{
	size_t k, m = rows->n;
	double *v = malloc((m ? m : 1) * sizeof(*v));

	*n = 0;
	*again = 0;
	if (!v)
		return NULL;
	for (k = m; k-- > 0;) {
		const char *val = history_window_span_get(rows, k, 0);

		if (e < 0) {
			int got = history_value_as(val, history_window_span_get(rows, k, 2),
						   history_window_span_get(rows, k, 1), op, &v[*n]);

			if (got < 0) {
				*again = 1;
				return v;
			}
			*n += (size_t)got;
		} else {
			json_t *sum = json_loads(history_window_span_get(rows, k, 1), 0, NULL);
			json_t *all = json_object_get(sum, op);
			/* A one-element array is stored as its single value. */
			json_t *x = json_is_array(all) ? json_array_get(all, (size_t)e) :
				    e == 0 ? all : NULL;

			if (json_is_number(x))
				v[(*n)++] = json_number_value(x);
			json_decref(sum);
		}
	}
	return v;
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
	struct ksft_metric_report_series s = { .sz = sizeof(s) };
	struct ksft_metric_report_values vals = { 0 };
	struct history_window_span rows = { 0 };
	double one, *cur = &one, rel_tol, abs_tol;
	const char *op, *path;
	long long id = j->keys[i].id;
	int ret, n, better, any = 0, failed, again;
	long e;

	if ((ret = ksft_metric_report_series_get(r, i, &s)))
		return ret;
	op = s.compare ? s.compare : "p50";
	better = better_of(s.better);
	rel_tol = s.relative_tolerance;
	abs_tol = s.absolute_tolerance;
	if (!s.compare) {	/* zperf/twister: as compare --baseline gates them */
		int dop;

		if (rp_default_gate(rp_source_parse(s.source), &dop, &better, &rel_tol)) {
			op = rp_op_name(dop);
			abs_tol = NAN;
		}
	}
	path = j->keys[i].path;
	/* A tracked series of a failed case (an untracked one stays so). */
	failed = better && rp_status_failed(r->series[i]->status);
	if (id && (ret = push_seen(j, id)))
		goto out;
	n = ksft_metric_report_series_summary(r, i, op, &one, 1);
	if (n < 0) {
		ret = n;
		goto out;
	}
	if (n > 1) {
		cur = malloc((size_t)n * sizeof(*cur));
		if (!cur) {
			ret = ksftm_oom();
			goto out;
		}
		ksft_metric_report_series_summary(r, i, op, cur, (size_t)n);
	}
	if ((ret = ksft_metric_report_series_values(r, i, KSFT_METRIC_REPORT_PROCESSED, &vals)))
		goto out;
	if (id && !j->o->incomparable && !failed) {
		if ((ret = history_window_of(&j->w, i, !s.is_array, &rows)))
			goto out;
		if (!rows.n && (ret = history_window_has_any(&j->w, i, &any)))
			goto out;
	}
	for (e = s.is_array ? 0 : -1; e < (s.is_array ? n : 0); e++) {
		struct cmp_row *row = cmp_row_new(j->c, (char *const *)s.path, s.path_len,
						  s.case_name, s.name, s.labels_json, e);
		struct pending pd = { 0, NULL, 0, rel_tol, abs_tol, id, NULL, NULL, NULL, NULL, 0,
				      vals.n, NAN };

		if (!row || cmp_spread_at(&row->cur_spread, &vals, e)) {	/* (for the text) */
			ret = ksftm_oom();
			goto out;
		}
		row->series = (long)i;
		row->has_current = 1;
		/* Shown in the policy's display units (aggregated series are
		 * compared in busy cores: none). */
		if (!s.aggregation) {
			row->disp_scale = s.display_scale;
			if (s.display_label && !(row->disp_label = strdup(s.display_label))) {
				ret = ksftm_oom();
				goto out;
			}
		}
		row->compare = rp_op_parse(op, 0);
		row->better = better;
		row->current = cur[e < 0 ? 0 : e];
		row->n_current = vals.n;
		if (j->o->incomparable || (!failed && !rows.n && any)) {
			row->verdict = KSFTM_VERDICT_NOT_COMPARABLE;
			if (!j->o->incomparable)
				row->why = history_window_pin(&j->w, id) ?
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
		if (!rows.rows || !rows.n) {
			row->verdict = KSFTM_VERDICT_NEW;
			continue;
		}
		pd.row = j->c->n - 1;
		pd.window = window_values(&rows, op, e, &pd.n_window, &again);
		if (pd.window && again) {
			/* Stored under another statistic: read again with the
			 * summaries (a policy change; rare, so not every time). */
			free(pd.window);
			history_window_span_release(&rows);
			if ((ret = history_window_of(&j->w, i, 0, &rows)))
				goto out;
			pd.window = window_values(&rows, op, e, &pd.n_window, &again);
		}
		if (vals.width == 1 && e < 0)
			pd.cur_within = variance_of(vals.v, vals.n);
		pd.group = group_of(path, s.case_name);
		if (!pd.window || !pd.group ||	/* the text's spread of the level's runs */
		    cmp_spread_of(&row->base_spread, pd.window, pd.n_window, 1) ||
		    push_pending(j, &pd)) {
			free(pd.window);
			free(pd.group);
			ret = ksftm_oom();
			goto out;
		}
	}
out:
	ksft_metric_report_values_release(&vals);
	history_window_span_release(&rows);
	if (cur != &one)
		free(cur);
	return ret;
}

/* One missing series @id's row, direction @better. */
static int missing_row(struct judge *j, long long id, const char *better)
{
	struct db_rows *rows;
	struct cmp_row *row;
	const char **parts;
	json_t *path;
	size_t m;
	int ret, failed;

	if ((ret = history_window_series(&j->w, id, &rows, &path, &parts, &m)))
		return ret;
	row = cmp_row_new(j->c, (char *const *)parts, m, db_rows_get(rows, 0, 1),
			  db_rows_get(rows, 0, 2), db_rows_get(rows, 0, 3), -1);
	/* Missing because its case failed in this run: that, not a lost series. */
	failed = row && better_of(better) &&
		 rp_case_failed(j->r, parts, m, db_rows_get(rows, 0, 1));
	free(parts);
	json_decref(path);
	db_rows_free(rows);
	if (!row)
		return ksftm_oom();
	row->better = better_of(better);
	row->verdict = failed ? KSFTM_VERDICT_CASE_FAILED : KSFTM_VERDICT_MISSING;
	row->fails = row->better && !j->o->allow_missing;
	return 0;
}

/* Series the recent comparable runs have and this run lacks. */
static int missing_series(struct judge *j)
{
	struct db_rows *rows;
	size_t k;
	int ret;

	if ((ret = history_window_missing(&j->w, &rows)))
		return ret;
	if (j->n_seen)
		qsort(j->seen, j->n_seen, sizeof(*j->seen), cmp_ll);
	for (k = 0; k < db_rows_count(rows) && !ret; k++) {
		long long id = strtoll(db_rows_get(rows, k, 0), NULL, 10);

		if (j->n_seen && bsearch(&id, j->seen, j->n_seen, sizeof(*j->seen), cmp_ll))
			continue;	/* in this run (or listed already) */
		if ((ret = missing_row(j, id, db_rows_get(rows, k, 1))))
			break;
		/* The same series twice (its direction changed): one row. The
		 * ids stay sorted: inserted in place, not sorted again. */
		if (!(ret = push_seen(j, id))) {
			size_t at = j->n_seen - 1;

			while (at && j->seen[at - 1] > id) {
				j->seen[at] = j->seen[at - 1];
				at--;
			}
			j->seen[at] = id;
		}
	}
	db_rows_free(rows);
	return ret;
}

/* An interference series (doc/producers.rst): how disturbed the machine
 * was, not what the test measures. */
static int is_interference(const struct cmp_row *row)
{
	return !strncmp(row->name, "interference.", 13) && !row->better;
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
		const struct cmp_row *row = &j->c->rows[pd->row];

		g[m].window = pd->window;
		g[m].n_window = pd->n_window;
		g[m].recent = pd->recent;
		g[m].n_recent = pd->n_recent;
		g[m].recent_repeats = pd->repeats;
		g[m].recent_within = pd->within;
		g[m].repeats = pd->cur_repeats;
		g[m].within = pd->cur_within;
		g[m].group = pd->group;
		g[m].fresh = history_window_pin(&j->w, pd->id) != NULL;
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
		struct cmp_row *row = &j->c->rows[j->p[idx[m]].row];

		row->baseline = g[m].baseline;
		row->change_pct = g[m].change * 100.0;
		row->allowance = g[m].allowance;
		row->n_baseline = row->baseline_runs = g[m].n_window;
		if (interference) {
			row->verdict = gate_verdict_name(GATE_UNTRACKED);
			if (g[m].verdict == GATE_REGRESSION ||
			    (g[m].z_local >= GATE_DISTURBED_Z &&
			     g[m].change >= GATE_DISTURBED_MIN_CHANGE)) {
				disturbed[(*n_disturbed)++] = j->p[idx[m]].group;
				/* it tripped (NaN is "not": an unknown z is Inf) */
				row->disturb_z = isnan(g[m].z_local) ? INFINITY : g[m].z_local;
			}
			continue;
		}
		row->p_value = g[m].q_value;
		row->verdict = gate_verdict_name(g[m].verdict);
		row->fails = g[m].verdict == GATE_REGRESSION;
		row->noise_pct = g[m].sigma * 100.0;
		row->smallest_pct = g[m].smallest * 100.0;
		row->need_runs = g[m].need_runs;
		row->need_repeats = g[m].need_repeats;
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
		const struct cmp_row *row = &j->c->rows[j->p[intf[k]].row];

		if (isnan(row->disturb_z) || strcmp(j->p[intf[k]].group, group))
			continue;
		if (best < 0 || row->change_pct > j->c->rows[best].change_pct)
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
 * GATE_DISTURBED_Z and GATE_DISTURBED_MIN_CHANGE) is "disturbed", to
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
		if (is_interference(&j->c->rows[j->p[k].row]))
			intf[n_i++] = k;
		else
			gated[n_g++] = k;
	}
	if ((ret = judge_batch(j, intf, n_i, 1, disturbed, &n_d)) ||
	    (ret = judge_batch(j, gated, n_g, 0, disturbed, &n_d)))
		goto out;
	for (k = 0; k < n_g && n_d; k++) {
		struct cmp_row *row = &j->c->rows[j->p[gated[k]].row];

		if (!row->fails)
			continue;
		for (d = 0; d < n_d; d++)
			if (!strcmp(disturbed[d], j->p[gated[k]].group)) {
				row->verdict = KSFTM_VERDICT_DISTURBED;
				row->fails = 0;
				row->disturbed_by = tripped_by(j, intf, n_i, j->p[gated[k]].group);
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

/*
 * The series' recent runs (measurements, on comparable machines, from its
 * accepted level on), whatever the gate said of each: the CUSUM runs over
 * them, and their noise is the series' noise. Flagged runs stay out of the
 * level until accepted, but a flagged run followed by
 * HISTORY_TRANSIENT_AFTER runs back at the old level was a transient: it
 * is back in the level's window (store/history_window_rule.h, the rule the
 * chart band follows too).
 */

/* Does the gate want pending row @pd's recent runs (recent_all())? */
static int wants_recent(const struct judge *j, const struct pending *pd)
{
	const struct cmp_row *row = &j->c->rows[pd->row];

	/* A pinned baseline: none, the window alone is the reference. */
	return row->element < 0 && row->better && isfinite(row->current) &&
	       !history_window_pin(&j->w, pd->id);
}

static int recent_of(struct judge *j, struct pending *pd, size_t i)
{
	const char *op = rp_op_name(j->c->rows[pd->row].compare);
	size_t n, k, m, w = history_window_rule_size(j->o->window);
	struct history_window_rule_scan scan = { 0 };
	struct history_window_span rows = { 0 };
	double *grown;
	int ret;

	if ((ret = history_window_recent(&j->w, i, pd->id, &rows)))
		return ret;
	n = rows.n;
	pd->recent = malloc((n ? n : 1) * sizeof(*pd->recent));
	pd->repeats = malloc((n ? n : 1) * sizeof(*pd->repeats));
	pd->within = malloc((n ? n : 1) * sizeof(*pd->within));
	grown = realloc(pd->window, (pd->n_window + n + 1) * sizeof(*grown));
	if (grown)
		pd->window = grown;
	if (!pd->recent || !pd->repeats || !pd->within || !grown) {
		history_window_span_release(&rows);
		return ksftm_oom();
	}
	/* Newest first: count the runs back at the old level after each
	 * flagged one (history_window_rule_transient()). */
	for (k = m = 0; k < n; k++) {
		const char *verdict = history_window_span_get(&rows, k, 2), *acc = history_window_span_get(&rows, k, 3);
		const char *code = verdict ? ksftm_verdict_code(verdict) : NULL;
		int flagged = code && !strcmp(code, KSFTM_VERDICT_REGRESSION) &&
			      (!acc || !strcmp(acc, "0"));

		/* As the statistic judged now (a policy may have changed it);
		 * a run without that number is left out. Newest first here. */
		if (history_value_as(history_window_span_get(&rows, k, 0), history_window_span_get(&rows, k, 5),
				     history_window_span_get(&rows, k, 6), op, &pd->recent[m]) != 1)
			continue;
		history_window_rule_repeats(history_window_span_get(&rows, k, 1), &pd->repeats[m],
					    &pd->within[m]);
		m++;
		if (history_window_rule_transient(&scan, k, w, code, flagged))
			pd->window[pd->n_window++] = pd->recent[m - 1];
	}
	history_window_rule_oldest_first(pd->recent, pd->within, pd->repeats, m);
	pd->n_recent = m;
	history_window_span_release(&rows);
	return 0;
}

/* PostgreSQL: the recent runs of every series recent_all() reads, batched. */
static int prefetch_recent(struct judge *j)
{
	size_t *idx = malloc((j->n_p ? j->n_p : 1) * sizeof(*idx)), k, m = 0;
	int ret;

	if (!idx)
		return ksftm_oom();
	for (k = 0; k < j->n_p; k++)
		if (wants_recent(j, &j->p[k]))
			idx[m++] = (size_t)j->c->rows[j->p[k].row].series;
	ret = history_window_prefetch_recent(&j->w, idx, m);
	free(idx);
	return ret;
}

/* The recent runs of every scalar series the gate judges (wants_recent()). */
static int recent_all(struct judge *j)
{
	size_t k;
	int ret = 0;

	if (db_dialect(j->w.db) == DB_POSTGRESQL && (ret = prefetch_recent(j)))
		return ret;
	for (k = 0; k < j->n_p && !ret; k++)
		if (wants_recent(j, &j->p[k]))
			ret = recent_of(j, &j->p[k], (size_t)j->c->rows[j->p[k].row].series);
	return ret;
}

int hgate_compare(struct db *db, const struct ksft_metric_report *r,
		  const struct hgate_opts *o, struct ksft_metric_report_comparison **out)
{
	struct history_key *keys = NULL;
	size_t i, n = ksft_metric_report_series_count(r);
	int ret = history_window_lookup_keys(db, r, &keys);

	*out = NULL;
	if (!ret)
		ret = hgate_compare_keys(db, r, o, keys, out);
	for (i = 0; i < n && keys; i++)
		free((char *)keys[i].path);
	free(keys);
	return ret;
}

int hgate_compare_keys(struct db *db, const struct ksft_metric_report *r,
		       const struct hgate_opts *o, const struct history_key *keys,
		       struct ksft_metric_report_comparison **out)
{
	struct judge j = { .r = r, .o = o, .keys = keys };
	size_t i, n = ksft_metric_report_series_count(r);
	int ret;

	*out = NULL;
	j.c = calloc(1, sizeof(*j.c));
	if (!j.c)
		return ksftm_oom();
	if ((ret = history_window_open(&j.w, db, r, o, keys)) ||
	    (ret = history_window_prefetch(&j.w, n)))
		goto out;
	for (i = 0; i < n && !ret; i++)
		ret = judge_series(&j, r, i);
	if (!ret && !o->incomparable)
		ret = missing_series(&j);
	if (!ret)
		ret = recent_all(&j);
	if (!ret)
		ret = judge_all(&j);
	if (!ret) {
		for (i = 0; i < j.c->n; i++) {
			j.c->failing += j.c->rows[i].fails != 0;
			j.c->failed_cases += j.c->rows[i].fails &&
					     !strcmp(j.c->rows[i].verdict, KSFTM_VERDICT_CASE_FAILED);
		}
		ret = (int)j.c->failing;
		*out = j.c;
		j.c = NULL;
	}
out:
	for (i = 0; i < j.n_p; i++) {
		free(j.p[i].window);
		free(j.p[i].group);
		free(j.p[i].recent);
		free(j.p[i].repeats);
		free(j.p[i].within);
	}
	free(j.p);
	free(j.seen);
	history_window_close(&j.w);
	ksft_metric_report_comparison_free(j.c);
	return ret;
}
