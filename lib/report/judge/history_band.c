/*
 * The gate's band of each series in the history JSON ("gate", what html
 * --db and site draw): the gate's own inputs rebuilt from the points, of
 * the judged run's machines only, judged by gate_band.c (history.h).
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "gate_band.h"
#include "history_judge.h"
#include "history_sql.h"
#include "history_window_rule.h"
#include "verdict_vocab.h"

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/*
 * The gate's band (gate_band.h) on each series of @all, as "gate": for the
 * latest point (judged against the points before it, as at its ingest;
 * @next: for the next run, judged against every point, html --db's). The
 * gate's inputs are rebuilt from the points as history_gate.c reads them:
 * the level's window is the last HISTORY_WINDOW_DEFAULT measured runs that
 * are not unaccepted regressions (a flagged run HISTORY_TRANSIENT_AFTER
 * clean runs ago is back), from the latest accepted level on, ending at a
 * pinned run (then the CUSUM starts at the run judged); the recent runs
 * are every measured run since the level (at most HISTORY_RECENT_RUNS).
 * The rule and its constants are history_window_rule.h's, the gate's
 * own. Series whose judged run is the same are judged together (their
 * budgets share the run's q, as at ingest). A run's repeats come from the
 * points' "_rep" (history_query.c, by the same rule).
 */
struct band_in {
	double *window, *recent, *within;
	size_t *repeats;
	char *group, *run;
	size_t from;		/* the window's first point */
};

static int is_state(json_t *pt, const char *st)
{
	const char *v = json_string_value(json_object_get(pt, "state"));

	return v && !strcmp(v, st);
}

/* The repeats of point @pt and their variance (0, NaN: unknown). */
static void rep_of(json_t *pt, size_t *r, double *var)
{
	json_t *rep = json_object_get(pt, "_rep");

	*r = (size_t)json_integer_value(json_array_get(rep, 0));
	*var = json_number_value(json_array_get(rep, 1));
	if (!json_is_array(rep) || *var < 0)
		*var = NAN;
}

/* Is point @pt of the machines the band is drawn for (@cmp: their
 * comparability key; NULL: any)? */
static int of_machines(json_t *pt, const char *cmp)
{
	const char *c = json_string_value(json_object_get(pt, "_cmp"));

	return !cmp || (c && !strcmp(c, cmp));
}

/*
 * The gate's inputs for series @series' band: the runs the gate judges
 * with, those comparable with the judged run only (@next_cmp: the report's
 * run; else the newest judged point's), never every machine's pooled.
 */
static int band_inputs(json_t *series, int next, const char *next_cmp, struct gate_series *g,
		       struct band_in *in)
{
	json_t *points = json_object_get(series, "points"), *pt;
	size_t n = json_array_size(points), end, start = 0, i, k, prev;
	size_t seen = 0, window = history_window_rule_size(0);
	struct history_window_rule_scan scan = { 0 };
	const char *b = json_string_value(json_object_get(series, "better"));
	char *path = json_dumps(json_object_get(series, "path"), JSON_COMPACT | JSON_ENCODE_ANY);
	const char *cs = json_string_value(json_object_get(series, "case"));
	const char *cmp = next_cmp;
	int pinned = 0;

	/* Runs from a debug kernel are no measurement: the latest judged run is
	 * the newest comparable one, and its machines are the band's. */
	while (n && is_state(json_array_get(points, n - 1), KSFTM_VERDICT_NOT_COMPARABLE))
		n--;
	if (!next && n)
		cmp = json_string_value(json_object_get(json_array_get(points, n - 1), "_cmp"));
	while (n && (is_state(json_array_get(points, n - 1), KSFTM_VERDICT_NOT_COMPARABLE) ||
		     !of_machines(json_array_get(points, n - 1), cmp)))
		n--;
	end = next ? n : n ? n - 1 : 0;
	memset(g, 0, sizeof(*g));
	g->current = NAN;
	g->rel_tol = g->abs_tol = g->within = NAN;
	g->better = b && !strcmp(b, "higher") ? 1 : b && !strcmp(b, "lower") ? -1 : 0;
	in->window = malloc((end + 1) * sizeof(double));
	in->recent = malloc((end + 1) * sizeof(double));
	in->within = malloc((end + 1) * sizeof(double));
	in->repeats = malloc((end + 1) * sizeof(size_t));
	in->group = malloc((path ? strlen(path) : 0) + (cs ? strlen(cs) : 0) + 2);
	in->run = NULL;
	in->from = end;
	if (!in->window || !in->recent || !in->within || !in->repeats || !in->group || !path) {
		free(path);
		return -ENOMEM;
	}
	sprintf(in->group, "%s\n%s", path, cs ? cs : "");
	free(path);
	if (!next && n) {
		pt = json_array_get(points, n - 1);
		in->run = strdup(json_string_value(json_object_get(pt, "run")) ?
				 json_string_value(json_object_get(pt, "run")) : "?");
		if (!in->run)
			return -ENOMEM;
		if (json_is_number(json_object_get(pt, "value")))
			g->current = json_number_value(json_object_get(pt, "value"));
		else
			return 0;	/* no value judged: no band */
		rep_of(pt, &g->repeats, &g->within);
	}
	for (i = 0, prev = SIZE_MAX; i < end; i++) {
		if (!of_machines(json_array_get(points, i), cmp))
			continue;
		if (json_is_true(json_object_get(json_array_get(points, i), "level")) ||
		    (is_state(json_array_get(points, i), KSFTM_VERDICT_ACCEPTED) &&
		     (prev == SIZE_MAX ||
		      !is_state(json_array_get(points, prev), KSFTM_VERDICT_ACCEPTED))))
			start = i;
		prev = i;
	}
	/* A pin ends the window unless a level starts after it (the level wins). */
	for (i = end; i-- > 0;)
		if (of_machines(json_array_get(points, i), cmp) &&
		    json_is_true(json_object_get(json_array_get(points, i), "pinned"))) {
			if (start <= i) {
				end = i + 1;
				pinned = 1;
			}
			break;
		}
	/* Newest first: the window's runs. */
	for (i = end; i-- > start;) {
		json_t *v = json_object_get(pt = json_array_get(points, i), "value");

		if (!json_is_number(v) || is_state(pt, KSFTM_VERDICT_NOT_COMPARABLE) ||
		    !of_machines(pt, cmp))
			continue;
		if (g->n_recent < HISTORY_RECENT_RUNS) {
			rep_of(pt, &in->repeats[g->n_recent], &in->within[g->n_recent]);
			in->recent[g->n_recent++] = json_number_value(v);
		}
		if (!is_state(pt, KSFTM_VERDICT_REGRESSION) && seen < window) {
			in->window[seen++] = json_number_value(v);
			in->from = i;
		}
	}
	for (i = 0; i < seen / 2; i++) {
		double t = in->window[i];

		in->window[i] = in->window[seen - 1 - i];
		in->window[seen - 1 - i] = t;
	}
	g->n_window = seen;
	/* Then the flagged runs that were transients (history_gate.c's order). */
	for (i = end, k = 0; !pinned && i-- > start;) {
		json_t *v = json_object_get(pt = json_array_get(points, i), "value");
		const char *st = json_string_value(json_object_get(pt, "state"));

		if (!json_is_number(v) || is_state(pt, KSFTM_VERDICT_NOT_COMPARABLE) ||
		    !of_machines(pt, cmp))
			continue;
		if (history_window_rule_transient(&scan, k, window, st,
						  is_state(pt, KSFTM_VERDICT_REGRESSION)))
			in->window[g->n_window++] = json_number_value(v);
		k++;
	}
	history_window_rule_oldest_first(in->recent, in->within, in->repeats, g->n_recent);
	g->window = in->window;
	g->group = in->group;
	g->fresh = pinned;
	if (!pinned) {
		g->recent = in->recent;
		g->recent_repeats = in->repeats;
		g->recent_within = in->within;
	} else {
		g->n_recent = 0;
	}
	return 0;
}

static json_t *band_json(const struct gate_band *b, const struct gate_series *g,
			 const struct band_in *in, int next)
{
	json_t *o;

	if (!b->judged) {
		char why[160];

		if (!g->better)
			snprintf(why, sizeof(why), "the policy gives no direction (untracked)");
		else if (!next && !isfinite(g->current))
			snprintf(why, sizeof(why), "the latest run has no value");
		else
			snprintf(why, sizeof(why), "%zu runs in the gate's window; it judges from %zu on",
				 g->n_window, (size_t)5);
		return json_pack("{s:b,s:s,s:I,s:s}", "judged", 0,
				 "applies_to", next ? "next" : "latest",
				 "runs", (json_int_t)g->n_window, "reason", why);
	}
	o = json_pack("{s:b,s:s,s:I,s:I,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}",
		      "judged", 1, "applies_to", next ? "next" : "latest",
		      "runs", (json_int_t)g->n_window, "from", (json_int_t)in->from,
		      "level", num_or_null(b->level),
		      "alarm_worse", num_or_null(b->worse), "alarm_better", num_or_null(b->better),
		      "z_alarm", num_or_null(b->z_alarm), "budget", num_or_null(b->budget),
		      "sigma_pct", num_or_null(b->sigma * 100.0),
		      "sigma_between_pct", num_or_null(b->sigma_between * 100.0),
		      "sigma_within_pct", num_or_null(b->sigma_within * 100.0),
		      "h", num_or_null(b->h), "cusum_before", num_or_null(b->cusum_before),
		      "cusum", num_or_null(b->cusum), "z", num_or_null(b->z),
		      "fresh", g->fresh ? json_true() : json_false());
	return o;
}

int history_add_bands(json_t *all, int next, const char *next_cmp)
{
	size_t n = json_array_size(all), i, j, m;
	struct gate_series *g = calloc(n ? n : 1, sizeof(*g)), *run = NULL;
	struct band_in *in = calloc(n ? n : 1, sizeof(*in));
	struct gate_band *b = calloc(n ? n : 1, sizeof(*b));
	size_t *idx = malloc((n ? n : 1) * sizeof(*idx));
	unsigned char *done = calloc(n ? n : 1, 1);
	int ret = 0;

	if (!g || !in || !b || !idx || !done) {
		ret = -ENOMEM;
		goto out;
	}
	run = calloc(n ? n : 1, sizeof(*run));
	if (!run) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n && !ret; i++)
		ret = band_inputs(json_array_get(all, i), next, next_cmp, &g[i], &in[i]);
	/* The series judged in one run, together. */
	for (i = 0; i < n && !ret; i++) {
		struct gate_band *rb = b;

		if (done[i])
			continue;
		for (j = i, m = 0; j < n; j++)
			if (!done[j] && (next || !strcmp(in[j].run ? in[j].run : "",
							 in[i].run ? in[i].run : ""))) {
				done[j] = 1;
				idx[m] = j;
				run[m++] = g[j];
			}
		if (gate_band_judge(run, m, NULL, rb)) {
			ret = -ENOMEM;
			break;
		}
		for (j = 0; j < m; j++) {
			json_t *o = band_json(&rb[j], &run[j], &in[idx[j]], next);

			if (!o || json_object_set_new(json_array_get(all, idx[j]), "gate", o)) {
				ret = -ENOMEM;
				break;
			}
		}
	}
out:
	for (i = 0; in && i < n; i++) {
		free(in[i].window);
		free(in[i].recent);
		free(in[i].within);
		free(in[i].repeats);
		free(in[i].group);
		free(in[i].run);
	}
	free(g);
	free(run);
	free(in);
	free(b);
	free(idx);
	free(done);
	return ret ? ksftm_oom() : 0;
}
