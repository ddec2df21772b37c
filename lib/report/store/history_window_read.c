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
#include "history_window_rule.h"
#include "report.h"
#include "rp_policy.h"
#include "series.h"
#include "verdict_vocab.h"

/* The window's values of element @e (-1: the scalar value column, as
 * statistic @op), oldest first; *@oldest, the oldest one's run order.
 * *@again: a scalar window holds values of another statistic and its
 * summaries were not read. */
static double *window_values(const struct history_window_span *rows, const char *op, long e,
			     size_t *n, const char **oldest, int *again)
{
	size_t k, m = rows->n;
	double *v = malloc((m ? m : 1) * sizeof(*v));

	*n = 0;
	*again = 0;
	*oldest = NULL;
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
			if (got && !*oldest)
				*oldest = history_window_span_get(rows, k, 3);
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
			  const char *op, long e, struct history_window_elem *out)
{
	const char *oldest;
	int again, ret;

	out->window = window_values(rows, op, e, &out->n_window, &oldest, &again);
	if (out->window && again) {
		free(out->window);
		history_window_span_release(rows);
		if ((ret = history_window_of(w, i, 0, rows)))
			return ret;
		out->window = window_values(rows, op, e, &out->n_window, &oldest, &again);
	}
	out->n_level = out->n_window;
	if (!out->window || (oldest && !(out->oldest = strdup(oldest))))
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
	n = ksft_metric_report_series_summary(r, i, op, &one, 1);
	if (n < 0)
		return 0;	/* judge/history_gate.c says why */
	in->read = 1;
	if ((ret = history_window_of(w, i, !s.is_array, &rows)))
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
	for (e = s.is_array ? 0 : -1; e < (s.is_array ? n : 0) && !ret; e++)
		ret = element_window(w, i, &rows, op, e, &in->elem[e < 0 ? 0 : e]);
	history_window_span_release(&rows);
	in->wants_recent = !ret && !s.is_array && better && isfinite(one) && !in->pinned;
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
		long long id = strtoll(db_rows_get(rows, k, 0), NULL, 10);
		size_t at;

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

/*
 * The series' recent runs (measurements, on comparable machines, from its
 * accepted level on), whatever the gate said of each: the CUSUM runs over
 * them, and their noise is the series' noise. Flagged runs stay out of the
 * level until accepted, but a flagged run followed by
 * HISTORY_TRANSIENT_AFTER runs back at the old level was a transient: it
 * is back in the level's window (history_window_rule.h, the rule the
 * chart band follows too).
 */
static int read_recent(struct history_window *w, size_t i, struct history_window_in *in)
{
	struct history_window_elem *el = &in->elem[0];
	size_t n, k, m, win = history_window_rule_size(w->o->window);
	struct history_window_rule_scan scan = { 0 };
	struct history_window_span rows = { 0 };
	double *grown;
	int ret;

	if ((ret = history_window_recent(w, i, w->keys[i].id, &rows)))
		return ret;
	n = rows.n;
	in->recent = malloc((n ? n : 1) * sizeof(*in->recent));
	in->repeats = malloc((n ? n : 1) * sizeof(*in->repeats));
	in->within = malloc((n ? n : 1) * sizeof(*in->within));
	grown = realloc(el->window, (el->n_window + n + 1) * sizeof(*grown));
	if (grown)
		el->window = grown;
	if (!in->recent || !in->repeats || !in->within || !grown) {
		history_window_span_release(&rows);
		return ksftm_oom();
	}
	/* Newest first: count the runs back at the old level after each
	 * flagged one (history_window_rule_transient()). */
	for (k = m = 0; k < n; k++) {
		const char *verdict = history_window_span_get(&rows, k, 2);
		const char *acc = history_window_span_get(&rows, k, 3);
		const char *code = verdict ? ksftm_verdict_code(verdict) : NULL;
		int flagged = code && !strcmp(code, KSFTM_VERDICT_REGRESSION) &&
			      (!acc || !strcmp(acc, "0"));

		/* As the statistic judged now (a policy may have changed it);
		 * a run without that number is left out. Newest first here. */
		if (history_value_as(history_window_span_get(&rows, k, 0),
				     history_window_span_get(&rows, k, 5),
				     history_window_span_get(&rows, k, 6), in->op, &in->recent[m]) != 1)
			continue;
		history_window_rule_repeats(history_window_span_get(&rows, k, 1), &in->repeats[m],
					    &in->within[m]);
		m++;
		if (history_window_rule_transient(&scan, k, win, code, flagged))
			el->window[el->n_window++] = in->recent[m - 1];
	}
	history_window_rule_oldest_first(in->recent, in->within, in->repeats, m);
	in->n_recent = m;
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
		if (set->in[i].wants_recent)
			ret = read_recent(w, i, &set->in[i]);
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
			free(in->elem[k].window);
			free(in->elem[k].oldest);
		}
		free(in->elem);
		free(in->recent);
		free(in->repeats);
		free(in->within);
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
