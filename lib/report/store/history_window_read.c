/*
 * The history gate's inputs for one run, read from the history as plain
 * values (history_window.h): each series' window per element, its recent
 * runs, and the series the run lacks. judge/history_gate.c judges them
 * and reads nothing itself, so the route from a log line to its verdict
 * goes through the store once, then the judge.
 */
#include <errno.h>
#include <jansson.h>
#include <ksftmetric/report.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon.h"
#include "errmsg.h"
#include "grow.h"
#include "history.h"
#include "history_window.h"
#include "window_rule.h"
#include "order_stats.h"
#include "policy_vocab.h"
#include "report.h"
#include "rp_policy.h"
#include "series.h"
#include "verdict_vocab.h"

/* The window's values of element @e (-1: the scalar value column, as
 * statistic @op), oldest first; *@oldest, the oldest one's run order.
 * *@again: a scalar window holds values of another statistic and its
 * summaries were not read. */
static double *window_values(const struct history_window_span *rows, const char *op, long e,
			     size_t *n, const char **oldest, int *again, const char **orders)
{
	size_t k, m = rows->n;
	double *v = malloc((m ? m : 1) * sizeof(*v));

	*n = 0;
	*again = 0;
	*oldest = NULL;
	if (!v)
		return NULL;
	for (k = m; k-- > 0;) {
		if (e < 0) {
			double val = 0;
			int has = history_window_span_double(rows, k, 0, &val);
			int got = history_value_as(has, val, history_window_span_get(rows, k, 2),
						   history_window_span_get(rows, k, 1), op, &v[*n]);

			if (got < 0) {
				*again = 1;
				return v;
			}
			if (got && !*oldest)
				*oldest = history_window_span_get(rows, k, 3);
			if (got && orders)
				orders[*n] = history_window_span_get(rows, k, 3);
			*n += (size_t)got;
		} else {
			json_t *sum = json_loads(history_window_span_get(rows, k, 1), 0, NULL);
			json_t *all = json_object_get(sum, op);
			/* A one-element array is stored as its single value. */
			json_t *x = json_is_array(all) ? json_array_get(all, (size_t)e) :
				    e == 0 ? all : NULL;

			if (json_is_number(x)) {
				if (!*n)
					*oldest = history_window_span_get(rows, k, 3);
				v[(*n)++] = json_number_value(x);
			}
			json_decref(sum);
		}
	}
	return v;
}

/* Element @e's window from @rows, read again with the summaries when the
 * values are of another statistic (a policy change; rare). */
static int element_window(struct history_window *w, size_t i, struct history_window_span *rows,
			  const char *op, long e, int tracked, struct history_window_elem *out)
{
	const char *oldest, **orders = NULL;
	size_t k = 0;
	int again, ret;

	/* A scalar tracked series keeps its runs' orders: read_recent() holds
	 * runs out by them. */
	if (e < 0 && tracked && !(orders = calloc(rows->n ? rows->n : 1, sizeof(*orders))))
		return ksftm_oom();
	out->window = window_values(rows, op, e, &out->n_window, &oldest, &again, orders);
	if (out->window && again) {
		free(out->window);
		free(orders);
		orders = NULL;
		history_window_span_release(rows);
		if ((ret = history_window_of(w, i, 0, rows)))
			return ret;
		out->window = window_values(rows, op, e, &out->n_window, &oldest, &again, NULL);
	}
	out->n_level = out->n_window;
	if (orders && out->window && (out->orders = calloc(out->n_window + 1, sizeof(char *))))
		for (k = 0; k < out->n_window; k++)
			if (!(out->orders[k] = strdup(orders[k] ? orders[k] : "")))
				break;
	ret = orders && (!out->orders || k < out->n_window);
	free(orders);
	if (ret || !out->window || (oldest && !(out->oldest = strdup(oldest))))
		return ksftm_oom();
	return 0;
}

/*
 * Series @i: the statistic it is judged by, its window per element, and
 * whether its recent runs are wanted (a scalar tracked series with a
 * finite current value whose window is not frozen by a pin).
 */
static int read_series(struct history_window *w, const struct ksft_metric_report *r, size_t i,
		       struct history_window_in *in)
{
	struct ksft_metric_report_series s = { .sz = sizeof(s) };
	struct history_window_span rows = { 0 };
	double one = NAN, rel_tol, abs_tol;
	const char *op;
	long long id = w->keys[i].id;
	int ret, n, better, failed;
	long e;

	if ((ret = ksft_metric_report_series_get(r, i, &s)))
		return ret;
	rp_policy_gate_of(&s, &op, &better, &rel_tol, &abs_tol);
	in->op = op;
	failed = better && canon_status_failed(r->series[i]->status);
	in->pinned = id && history_window_pin(w, id) != NULL;
	if (!id || w->o->incomparable || failed)
		return 0;
	if (w->keys[i].has_first) {	/* ingest summarised it (history.h) */
		n = w->keys[i].width;
		one = w->keys[i].first;
	} else {
		n = ksft_metric_report_series_summary(r, i, op, &one, 1);
	}
	if (n < 0)
		return 0;	/* judge/history_gate.c says why */
	in->read = 1;
	in->width = n;
	in->first = one;
	/* Verdicts only (history.h): an untracked scalar series needs to
	 * know whether its window is empty, not what it holds. */
	if (w->o->verdicts_only && !better && !s.is_array &&
	    strncmp(s.name, KSFTM_INTERFERENCE_PREFIX, strlen(KSFTM_INTERFERENCE_PREFIX)))
		ret = history_window_probe(w, i, &rows);
	else
		ret = history_window_of(w, i, !s.is_array, &rows);
	if (ret)
		return ret;
	in->n_rows = rows.n;
	if (!rows.n) {
		ret = history_window_has_any(w, i, &in->any);
		history_window_span_release(&rows);
		return ret;
	}
	in->n_elem = s.is_array ? (size_t)n : 1;
	in->elem = calloc(in->n_elem ? in->n_elem : 1, sizeof(*in->elem));
	if (!in->elem) {
		history_window_span_release(&rows);
		return ksftm_oom();
	}
	in->wants_recent = !s.is_array && better && isfinite(one) && !in->pinned;
	in->better = better;
	for (e = s.is_array ? 0 : -1; e < (s.is_array ? n : 0) && !ret; e++)
		ret = element_window(w, i, &rows, op, e, in->wants_recent,
				     &in->elem[e < 0 ? 0 : e]);
	history_window_span_release(&rows);
	in->wants_recent = in->wants_recent && !ret;
	return ret;
}

/* Series @id, which the run lacks, as plain values. */
static int read_gone(struct history_window *w, long long id, const char *better,
		     struct history_window_gone *g)
{
	struct db_rows *rows;
	const char **parts;
	json_t *path;
	size_t m, k;
	int ret;

	if ((ret = history_window_series(w, id, &rows, &path, &parts, &m)))
		return ret;
	g->id = id;
	g->better = rp_policy_better(better);
	g->parts = calloc(m ? m : 1, sizeof(*g->parts));
	g->n_parts = m;
	for (k = 0; g->parts && k < m; k++)
		if (!(g->parts[k] = strdup(parts[k])))
			break;
	g->case_name = strdup(db_rows_get(rows, 0, 1));
	g->metric = strdup(db_rows_get(rows, 0, 2));
	g->labels = strdup(db_rows_get(rows, 0, 3));
	ret = !g->parts || k < m || !g->case_name || !g->metric || !g->labels ? ksftm_oom() : 0;
	free(parts);
	json_decref(path);
	db_rows_free(rows);
	return ret;
}

/* Series the recent comparable runs have and this run lacks, each once. */
static int read_missing(struct history_window *w, size_t n, struct history_window_set *set)
{
	long long *seen = malloc((n ? n : 1) * sizeof(*seen));
	size_t n_seen = 0, cap_seen = n ? n : 1, cap = 0, i, k;
	struct db_rows *rows = NULL;
	int ret = seen ? history_window_missing(w, &rows) : ksftm_oom();

	for (i = 0; seen && i < n; i++)
		if (w->keys[i].id)
			seen[n_seen++] = w->keys[i].id;
	if (n_seen)
		qsort(seen, n_seen, sizeof(*seen), history_series_id_cmp);
	for (k = 0; !ret && k < db_rows_count(rows); k++) {
		long long id = 0;
		size_t at;

		db_rows_int64(rows, k, 0, &id);
		if (n_seen && bsearch(&id, seen, n_seen, sizeof(*seen), history_series_id_cmp))
			continue;	/* in this run (or listed already) */
		if ((ret = ksftm_grow((void **)&set->gone, &cap, set->n_gone + 1,
				      sizeof(*set->gone), 16)) ||
		    (ret = ksftm_grow((void **)&seen, &cap_seen, n_seen + 1, sizeof(*seen), 64))) {
			ret = ksftm_oom();
			break;
		}
		memset(&set->gone[set->n_gone], 0, sizeof(*set->gone));
		ret = read_gone(w, id, db_rows_get(rows, k, 1), &set->gone[set->n_gone++]);
		/* The same series twice (its direction changed): one row. The
		 * ids stay sorted: inserted in place, not sorted again. */
		for (at = n_seen++; at && seen[at - 1] > id; at--)
			seen[at] = seen[at - 1];
		seen[at] = id;
	}
	db_rows_free(rows);
	free(seen);
	return ret;
}

/* The median of @v[0..n) (@scratch: n doubles). */
static double median_of(const double *v, size_t n, double *scratch)
{
	memcpy(scratch, v, n * sizeof(*v));
	qsort(scratch, n, sizeof(*scratch), ksftm_cmp_double);
	return n % 2 ? scratch[n / 2] : (scratch[n / 2 - 1] + scratch[n / 2]) / 2;
}

/*
 * Which recent runs are held out (window_rule.h), decided in time
 * order, each run against what came before it: too noisy, and beyond the
 * lenient line worse than the level of the runs before it that the window
 * kept (neither held nor flagged: the newest @win of them), the line's
 * noise theirs too. A lasting change thus stays held run after run: judged
 * all at once against the whole window, its runs, once they were most of
 * the window, made the level they were judged against and went back in
 * (issue 40: a recorded -37 % two-runner drop, never flagged).
 * @tn[k], @flag[k]: run k (newest first) was too noisy, flagged.
 */
static void hold_out(struct history_window_in *in, const unsigned char *tn,
		     const unsigned char *flag, unsigned char *held, size_t n, size_t win,
		     double *scratch)
{
	double *ref = scratch, *tmp = scratch + n, level, line;
	size_t k, j, m;

	for (k = n; k-- > 0;) {
		if (!tn[k] || in->repeats[k] < HISTORY_HOLD_MIN_REPEATS)
			continue;
		for (j = k + 1, m = 0; j < n && m < win; j++)
			if (!held[j] && !flag[j])
				ref[m++] = in->recent[j];
		if (m < 4)
			continue;
		level = median_of(ref, m, tmp);
		line = history_window_rule_hold_line(ref, m, level, in->better, tmp);
		if (!isnan(line) && (in->better > 0 ? in->recent[k] < line : in->recent[k] > line))
			held[k] = 2;
	}
}

/* The level's window of @in without its held runs (held[k] 2: held and
 * read by the window query), by their orders. */
static void drop_held(struct history_window_in *in, const unsigned char *held,
		      const char *const *orders, size_t n)
{
	struct history_window_elem *el = &in->elem[0];
	size_t j, k, m = 0;

	for (j = 0; j < el->n_level; j++) {
		for (k = 0; k < n; k++)
			if (held[k] == 2 && !strcmp(orders[k], el->orders[j]))
				break;
		if (k < n) {
			free(el->orders[j]);
			continue;
		}
		el->orders[m] = el->orders[j];
		el->window[m++] = el->window[j];
	}
	/* The transients back after the level's runs move down with them. */
	for (j = el->n_level; j < el->n_window; j++)
		el->window[m + j - el->n_level] = el->window[j];
	el->n_window = m + el->n_window - el->n_level;
	el->n_level = m;
}

/*
 * The series' recent runs (measurements, on comparable machines, from its
 * accepted level on), whatever the gate said of each: the CUSUM runs over
 * them, and their noise is the series' noise. Flagged runs stay out of the
 * level until accepted, and so do held runs (too noisy, worse than the
 * level beyond the lenient line: window_rule.h); but a flagged or
 * held run followed by HISTORY_TRANSIENT_AFTER runs back at the old level
 * was a transient: it is back in the level's window (window_rule.h,
 * the rule the chart band follows too).
 */
static int read_recent(struct history_window *w, size_t i, struct history_window_in *in)
{
	struct history_window_elem *el = &in->elem[0];
	size_t n, k, m, win = history_window_rule_size(w->o->window);
	struct history_window_rule_scan scan = { 0 };
	struct history_window_span rows = { 0 };
	unsigned char *flag = NULL, *tn = NULL;
	const char **orders = NULL, **codes = NULL;
	double *grown, *scratch = NULL;
	int ret;

	if ((ret = history_window_recent(w, i, w->keys[i].id, &rows)))
		return ret;
	n = rows.n;
	in->recent = malloc((n ? n : 1) * sizeof(*in->recent));
	in->repeats = malloc((n ? n : 1) * sizeof(*in->repeats));
	in->within = malloc((n ? n : 1) * sizeof(*in->within));
	in->held = calloc(n ? n : 1, sizeof(*in->held));
	flag = calloc(n ? n : 1, 1);
	tn = calloc(n ? n : 1, 1);
	orders = calloc(n ? n : 1, sizeof(*orders));
	codes = calloc(n ? n : 1, sizeof(*codes));
	scratch = malloc((3 * n + 2 * el->n_window + 2) * sizeof(*scratch));
	grown = realloc(el->window, (el->n_window + n + 1) * sizeof(*grown));
	if (grown)
		el->window = grown;
	if (!in->recent || !in->repeats || !in->within || !in->held || !flag || !tn ||
	    !orders || !codes || !scratch || !grown) {
		ret = ksftm_oom();
		goto out;
	}
	/* Newest first: the values, and which runs are flagged or too noisy. */
	for (k = m = 0; k < n; k++) {
		const char *verdict = history_window_span_get(&rows, k, 2);
		const char *acc = history_window_span_get(&rows, k, 3);
		const char *code = verdict ? ksftm_verdict_code(verdict) : NULL;
		double val = 0;
		int has = history_window_span_double(&rows, k, 0, &val);

		/* As the statistic judged now (a policy may have changed it);
		 * a run without that number is left out. Newest first here. */
		if (history_value_as(has, val, history_window_span_get(&rows, k, 5),
				     history_window_span_get(&rows, k, 6), in->op, &in->recent[m]) != 1)
			continue;
		history_window_rule_repeats(history_window_span_get(&rows, k, 1), &in->repeats[m],
					    &in->within[m]);
		flag[m] = code && !strcmp(code, KSFTM_VERDICT_REGRESSION) && (!acc || !strcmp(acc, "0"));
		tn[m] = code && !strcmp(code, KSFTM_VERDICT_TOO_NOISY);
		orders[m] = history_window_span_get(&rows, k, 4);
		orders[m] = orders[m] ? orders[m] : "";
		codes[m] = code;
		m++;
	}
	if (el->orders)
		hold_out(in, tn, flag, in->held, m, win, scratch);
	/* Newest first: count the runs back at the old level after each
	 * flagged or held one (history_window_rule_transient()). */
	for (k = 0; k < m; k++) {
		/* A too-noisy run inside the lenient line is back at the level:
		 * the series returned (window_rule.h). */
		/* (A held run is in the window query's reach whatever its
		 * place: it is usable, only held.) */
		int back = history_window_rule_transient(&scan, flag[k] ? k : 0, win,
							 tn[k] && !in->held[k] ?
							 KSFTM_VERDICT_NO_CHANGE : codes[k],
							 flag[k] || in->held[k]);

		if (flag[k] && back)
			el->window[el->n_window++] = in->recent[k];
		if (back)
			in->held[k] = 0;	/* a transient: in the window */
		else if (flag[k])
			in->held[k] = 1;
	}
	if (el->orders)
		drop_held(in, in->held, orders, m);
	for (k = 0; k < m; k++)
		in->held[k] = in->held[k] != 0;
	history_window_rule_oldest_first(in->recent, in->within, in->repeats, in->held, m);
	in->n_recent = m;
out:
	history_window_span_release(&rows);
	free(flag);
	free(tn);
	free(orders);
	free(codes);
	free(scratch);
	return ret;
}

/*
 * A young accepted level (fewer runs since it than the rule's
 * HISTORY_PRIOR_UNDER): the runs before it, oldest first, whose noise the
 * gate takes while the new level has too few runs to show its own (issue
 * 40: after accept the gate was blind for five runs).
 */
static int read_prior(struct history_window *w, size_t i, struct history_window_in *in)
{
	struct history_window_span rows = { 0 };
	size_t n, k, m = 0;
	int ret;

	if (in->elem[0].n_window >= HISTORY_PRIOR_UNDER)
		return 0;
	if ((ret = history_window_before_level(w, w->keys[i].id, &rows)))
		return ret;
	n = rows.n;
	in->prior = malloc((n ? n : 1) * sizeof(*in->prior));
	in->prior_repeats = malloc((n ? n : 1) * sizeof(*in->prior_repeats));
	in->prior_within = malloc((n ? n : 1) * sizeof(*in->prior_within));
	if (!in->prior || !in->prior_repeats || !in->prior_within) {
		history_window_span_release(&rows);
		return ksftm_oom();
	}
	for (k = 0; k < n; k++) {
		double val = 0;
		int has = history_window_span_double(&rows, k, 0, &val);

		if (history_value_as(has, val, history_window_span_get(&rows, k, 5),
				     history_window_span_get(&rows, k, 6), in->op, &in->prior[m]) != 1)
			continue;
		history_window_rule_repeats(history_window_span_get(&rows, k, 1),
					    &in->prior_repeats[m], &in->prior_within[m]);
		m++;
	}
	history_window_rule_oldest_first(in->prior, in->prior_within, in->prior_repeats, NULL, m);
	in->n_prior = m;
	history_window_span_release(&rows);
	return 0;
}

/* The recent runs of every series that wants them, on PostgreSQL batched. */
static int read_recent_all(struct history_window *w, size_t n, struct history_window_set *set)
{
	size_t i, m = 0;
	int ret = 0;

	if (db_dialect(w->db) == DB_POSTGRESQL) {
		size_t *idx = malloc((n ? n : 1) * sizeof(*idx));

		if (!idx)
			return ksftm_oom();
		for (i = 0; i < n; i++)
			if (set->in[i].wants_recent)
				idx[m++] = i;
		ret = history_window_prefetch_recent(w, idx, m);
		free(idx);
	}
	for (i = 0; i < n && !ret; i++)
		if (set->in[i].wants_recent && !(ret = read_recent(w, i, &set->in[i])) &&
		    history_window_level(w, w->keys[i].id))
			ret = read_prior(w, i, &set->in[i]);
	return ret;
}

int history_window_read(struct db *db, const struct ksft_metric_report *r,
			const struct hgate_opts *o, const struct history_key *keys,
			struct history_window_set *out)
{
	struct history_window w;
	size_t i, n = ksft_metric_report_series_count(r);
	int ret;

	memset(out, 0, sizeof(*out));
	out->in = calloc(n ? n : 1, sizeof(*out->in));
	if (!out->in)
		return ksftm_oom();
	out->n = n;
	if ((ret = history_window_open(&w, db, r, o, keys)) ||
	    (ret = history_window_prefetch(&w, n)))
		goto out;
	for (i = 0; i < n && !ret; i++)
		ret = read_series(&w, r, i, &out->in[i]);
	if (!ret && !o->incomparable && !o->windows_only)
		ret = read_missing(&w, n, out);
	if (!ret)
		ret = read_recent_all(&w, n, out);
out:
	history_window_close(&w);
	if (ret)
		history_window_set_free(out);
	return ret;
}

void history_window_set_free(struct history_window_set *set)
{
	size_t i, k;

	for (i = 0; i < set->n; i++) {
		struct history_window_in *in = &set->in[i];

		for (k = 0; k < in->n_elem; k++) {
			size_t j;

			for (j = 0; in->elem[k].orders && j < in->elem[k].n_level; j++)
				free(in->elem[k].orders[j]);
			free(in->elem[k].orders);
			free(in->elem[k].window);
			free(in->elem[k].oldest);
		}
		free(in->elem);
		free(in->recent);
		free(in->repeats);
		free(in->within);
		free(in->held);
		free(in->prior);
		free(in->prior_repeats);
		free(in->prior_within);
	}
	for (i = 0; i < set->n_gone; i++) {
		for (k = 0; set->gone[i].parts && k < set->gone[i].n_parts; k++)
			free(set->gone[i].parts[k]);
		free(set->gone[i].parts);
		free(set->gone[i].case_name);
		free(set->gone[i].metric);
		free(set->gone[i].labels);
	}
	free(set->in);
	free(set->gone);
	memset(set, 0, sizeof(*set));
}
