/*
 * The history gate (history.h): each series of a run against the last N
 * usable, comparable runs of the same series, judged together by gate.c.
 * Every window is one index range scan (ksftm_results_window), so the cost
 * follows the run's size and N, not the history's length.
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
#include "rp_compare.h"

#define DEFAULT_WINDOW 30
/* The run's false-alarm budget, all of it to the one detector (gate.h);
 * regressions and improvements are controlled apart, each at this rate. */
#define DEFAULT_FDR 0.01
/* A flagged run followed by this many runs the gate did not flag is a
 * transient: back in the level's window (doc/run-history.rst). */
#define TRANSIENT_AFTER 2

static const char window_sql[] = HISTORY_WINDOW_SQL;
static const char missing_sql[] = HISTORY_MISSING_SQL;

/* Where a series' accepted level starts. */
struct level {
	long long id;
	const char *order;
};

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
	struct db *db;
	const struct hgate_opts *o;
	struct ksft_metric_report_comparison *c;
	const char *pinned;	/* latest pinned run's order, or NULL */
	struct level *levels;	/* accepted levels on these machines, by id */
	size_t n_levels;
	struct db_rows *level_rows;	/* their storage */
	char window_q[sizeof(window_sql) + 24];
	struct pending *p;
	size_t n_p, cap_p;
	long long *seen;	/* series ids of the current run */
	size_t n_seen, cap_seen;
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

static int cmp_level(const void *a, const void *b)
{
	const struct level *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* The order where series @id's accepted level starts, or NULL. */
static const char *level_of(const struct judge *j, long long id)
{
	struct level key = { id, NULL }, *lv;

	if (!j->n_levels)
		return NULL;
	lv = bsearch(&key, j->levels, j->n_levels, sizeof(*lv), cmp_level);
	return lv ? lv->order : NULL;
}

/* The window's values of element @e (-1: the scalar value column), oldest first. */
static double *window_values(struct db_rows *rows, const char *op, long e, size_t *n)
{
	size_t k, m = db_rows_count(rows);
	double *v = malloc((m ? m : 1) * sizeof(*v));

	*n = 0;
	if (!v)
		return NULL;
	for (k = m; k-- > 0;) {
		const char *val = db_rows_get(rows, k, 0);

		if (e < 0) {
			if (val)
				v[(*n)++] = strtod(val, NULL);
		} else {
			json_t *sum = json_loads(db_rows_get(rows, k, 1), 0, NULL);
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

/* The series id of an identity, or 0 when the history never saw it. */
static int series_id(struct db *db, const char *path, const struct ksft_metric_report_series *s,
		     long long *id)
{
	const char *p[4] = { path, s->case_name, s->name, s->labels_json };
	struct db_rows *rows;
	int ret = db_query(db, "SELECT id FROM ksftm_series WHERE path = $1 AND case_name = $2"
			   " AND metric = $3 AND labels = $4", p, 4, &rows);

	*id = 0;
	if (ret)
		return ret;
	if (db_rows_count(rows) && db_rows_get(rows, 0, 0))
		*id = strtoll(db_rows_get(rows, 0, 0), NULL, 10);
	db_rows_free(rows);
	return 0;
}

/* Has the history any result of the series on such machines at all? */
static int has_any(struct db *db, const char *sid, const char *cmp, int *any)
{
	const char *p[2] = { sid, cmp };
	struct db_rows *rows;
	int ret = db_query(db, HISTORY_HAS_ANY_SQL, p, 2, &rows);

	if (!ret) {
		*any = db_rows_count(rows) > 0;
		db_rows_free(rows);
	}
	return ret;
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
	struct db_rows *rows = NULL;
	double one, *cur = &one, rel_tol, abs_tol;
	char *path = NULL, sid[32];
	const char *op;
	long long id;
	int ret, n, better, any = 0;
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
	path = history_path_json(s.path, s.path_len);
	if (!path)
		return ksftm_fail(ENOMEM, "out of memory");
	if ((ret = series_id(j->db, path, &s, &id)))
		goto out;
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
			ret = ksftm_fail(ENOMEM, "out of memory");
			goto out;
		}
		ksft_metric_report_series_summary(r, i, op, cur, (size_t)n);
	}
	if ((ret = ksft_metric_report_series_values(r, i, KSFT_METRIC_REPORT_PROCESSED, &vals)))
		goto out;
	snprintf(sid, sizeof(sid), "%lld", id);
	if (id && !j->o->incomparable) {
		const char *p[5] = { sid, j->o->comparable, j->o->order, j->pinned,
				     level_of(j, id) };

		if ((ret = db_query(j->db, j->window_q, p, 5, &rows)))
			goto out;
		if (!db_rows_count(rows) && (ret = has_any(j->db, sid, j->o->comparable, &any)))
			goto out;
	}
	for (e = s.is_array ? 0 : -1; e < (s.is_array ? n : 0); e++) {
		struct cmp_row *row = cmp_row_new(j->c, (char *const *)s.path, s.path_len,
						  s.case_name, s.name, s.labels_json, e);
		struct pending pd = { 0, NULL, 0, rel_tol, abs_tol, id, NULL, NULL, NULL, NULL, 0,
				      vals.n, NAN };

		if (!row) {
			ret = ksftm_fail(ENOMEM, "out of memory");
			goto out;
		}
		row->series = (long)i;
		row->has_current = 1;
		/* Shown in the policy's display units (aggregated series are
		 * compared in busy cores: none). */
		if (!s.aggregation) {
			row->disp_scale = s.display_scale;
			if (s.display_label && !(row->disp_label = strdup(s.display_label))) {
				ret = ksftm_fail(ENOMEM, "out of memory");
				goto out;
			}
		}
		row->compare = rp_op_parse(op, 0);
		row->better = better;
		row->current = cur[e < 0 ? 0 : e];
		row->n_current = vals.n;
		if (j->o->incomparable || (!db_rows_count(rows) && any)) {
			row->verdict = KSFTM_VERDICT_NOT_COMPARABLE;
			continue;
		}
		if (!rows || !db_rows_count(rows)) {
			row->verdict = KSFTM_VERDICT_NEW;
			continue;
		}
		pd.row = j->c->n - 1;
		pd.window = window_values(rows, op, e, &pd.n_window);
		if (vals.width == 1 && e < 0)
			pd.cur_within = variance_of(vals.v, vals.n);
		pd.group = group_of(path, s.case_name);
		if (!pd.window || !pd.group || push_pending(j, &pd)) {
			free(pd.window);
			free(pd.group);
			ret = ksftm_fail(ENOMEM, "out of memory");
			goto out;
		}
	}
out:
	ksft_metric_report_values_release(&vals);
	db_rows_free(rows);
	if (cur != &one)
		free(cur);
	free(path);
	return ret;
}

/* Series the recent comparable runs have and this run lacks. */
static int missing_series(struct judge *j)
{
	char sql[sizeof(missing_sql) + 24];
	const char *p[3] = { j->o->comparable, j->o->order, j->pinned };
	struct db_rows *rows;
	size_t k;
	int ret;

	snprintf(sql, sizeof(sql), missing_sql, j->o->window ? j->o->window : DEFAULT_WINDOW);
	if ((ret = db_query(j->db, sql, p, 3, &rows)))
		return ret;
	if ((ret = db_rows_check(j->db, rows, "ksftm_results.series_id ksftm_series.path"
				 " ksftm_series.case_name ksftm_series.metric ksftm_series.labels"
				 " ?ksftm_results.better", 0, NULL))) {
		db_rows_free(rows);
		return ret;
	}
	if (j->n_seen)
		qsort(j->seen, j->n_seen, sizeof(*j->seen), cmp_ll);
	for (k = 0; k < db_rows_count(rows) && !ret; k++) {
		long long id = strtoll(db_rows_get(rows, k, 0), NULL, 10);
		json_t *path;
		const char **parts;
		struct cmp_row *row;
		char where[64];
		size_t m;

		if (j->n_seen && bsearch(&id, j->seen, j->n_seen, sizeof(*j->seen), cmp_ll))
			continue;	/* in this run (or listed already) */
		snprintf(where, sizeof(where), "ksftm_series.id = %lld", id);
		if ((ret = history_path_parts(j->db, db_rows_get(rows, k, 1), where, &path, &parts, &m)))
			break;
		row = cmp_row_new(j->c, (char *const *)parts, m, db_rows_get(rows, k, 2),
				  db_rows_get(rows, k, 3), db_rows_get(rows, k, 4), -1);
		free(parts);
		json_decref(path);
		if (!row) {
			ret = ksftm_fail(ENOMEM, "out of memory");
			break;
		}
		row->verdict = KSFTM_VERDICT_MISSING;
		row->better = better_of(db_rows_get(rows, k, 5));
		row->fails = row->better && !j->o->allow_missing;
		/* The same series twice (its direction changed): one row. */
		ret = push_seen(j, id);
		qsort(j->seen, j->n_seen, sizeof(*j->seen), cmp_ll);
	}
	db_rows_free(rows);
	return ret;
}

/* The accepted levels on the run's machines, once (not once per series). */
static int load_levels(struct judge *j)
{
	const char *p[1] = { j->o->comparable };
	size_t k, n;
	int ret = db_query(j->db, HISTORY_LEVELS_SQL, p, 1, &j->level_rows);

	if (ret || (ret = db_rows_check(j->db, j->level_rows, "ksftm_levels.series_id"
					" ksftm_levels.run_order", 0, NULL)))
		return ret;
	n = db_rows_count(j->level_rows);
	j->levels = calloc(n ? n : 1, sizeof(*j->levels));
	if (!j->levels)
		return ksftm_fail(ENOMEM, "out of memory");
	for (k = 0; k < n; k++) {
		j->levels[k].id = strtoll(db_rows_get(j->level_rows, k, 0), NULL, 10);
		j->levels[k].order = db_rows_get(j->level_rows, k, 1);
	}
	j->n_levels = n;
	if (n)
		qsort(j->levels, n, sizeof(*j->levels), cmp_level);
	return 0;
}

static int latest_pinned(struct judge *j, char **out)
{
	const char *p[2] = { j->o->comparable, j->o->order };
	struct db_rows *rows;
	int ret = db_query(j->db, HISTORY_LATEST_PINNED_SQL, p, 2, &rows);

	*out = NULL;
	if (ret)
		return ret;
	if (db_rows_count(rows) && db_rows_get(rows, 0, 0) &&
	    !(*out = strdup(db_rows_get(rows, 0, 0))))
		ret = ksftm_fail(ENOMEM, "out of memory");
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
		return ksftm_fail(ENOMEM, "out of memory");
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
		g[m].fresh = j->pinned != NULL;
		g[m].current = row->current;
		g[m].better = interference ? -1 : row->better;
		g[m].rel_tol = interference ? NAN : pd->rel_tol;
		g[m].abs_tol = interference ? NAN : pd->abs_tol;
	}
	if (gate_judge(g, n, &go)) {
		free(g);
		return ksftm_fail(ENOMEM, "out of memory");
	}
	for (m = 0; m < n; m++) {
		struct cmp_row *row = &j->c->rows[j->p[idx[m]].row];

		row->baseline = g[m].baseline;
		row->change_pct = g[m].change * 100.0;
		row->allowance = g[m].allowance;
		row->n_baseline = row->baseline_runs = g[m].n_window;
		if (interference) {
			row->verdict = gate_verdict_name(GATE_UNTRACKED);
			if (g[m].verdict == GATE_REGRESSION)
				disturbed[(*n_disturbed)++] = j->p[idx[m]].group;
			continue;
		}
		row->p_value = g[m].q_value;
		row->verdict = gate_verdict_name(g[m].verdict);
		row->fails = g[m].verdict == GATE_REGRESSION;
		row->noise_pct = g[m].sigma * 100.0;
		row->smallest_pct = g[m].smallest * 100.0;
		row->need_runs = g[m].need_runs;
		row->need_repeats = g[m].need_repeats;
	}
	free(g);
	return 0;
}

/*
 * All pending rows of the run through gate_judge() at once (the
 * interference series apart: they must not spend the gated series'
 * budget). Disturbed is not regressed: a regression in a case whose
 * interference is measurably above its history's (the interference
 * series' own upward test at the run's q) is "disturbed", to rerun, and
 * does not fail the run.
 */
static int judge_all(struct judge *j)
{
	size_t *gated = malloc((j->n_p ? j->n_p : 1) * sizeof(*gated));
	size_t *intf = malloc((j->n_p ? j->n_p : 1) * sizeof(*intf));
	const char **disturbed = malloc((j->n_p ? j->n_p : 1) * sizeof(*disturbed));
	size_t k, d, n_g = 0, n_i = 0, n_d = 0;
	int ret;

	if (!gated || !intf || !disturbed) {
		ret = ksftm_fail(ENOMEM, "out of memory");
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
 * level until accepted, but a flagged run followed by TRANSIENT_AFTER runs
 * the gate did not flag was a transient: it is back in the level's window.
 */
static const char shift_sql[] = HISTORY_SHIFT_SQL;

/* Count and variance of a run's stored repeats (a JSON array of numbers). */
static void repeats_of(const char *samples, size_t *r, double *var)
{
	json_t *a = samples ? json_loads(samples, 0, NULL) : NULL;
	double m = 0, ss = 0, x;
	size_t k, n = 0;

	*r = 0;
	*var = NAN;
	if (!json_is_array(a)) {
		json_decref(a);
		return;
	}
	for (k = 0; k < json_array_size(a); k++)
		if (json_is_number(json_array_get(a, k))) {
			m += json_number_value(json_array_get(a, k));
			n++;
		}
	if (n && n == json_array_size(a)) {
		m /= (double)n;
		for (k = 0; k < n; k++) {
			x = json_number_value(json_array_get(a, k)) - m;
			ss += x * x;
		}
		*r = n;
		*var = n > 1 ? ss / (double)(n - 1) : NAN;
	}
	json_decref(a);
}

static int recent_of(struct judge *j, struct pending *pd)
{
	const char *p[4] = { NULL, j->o->comparable, j->o->order, level_of(j, pd->id) };
	size_t n, k, clean = 0, w = j->o->window ? j->o->window : DEFAULT_WINDOW;
	struct db_rows *rows;
	double *grown;
	char sid[32];
	int ret;

	snprintf(sid, sizeof(sid), "%lld", pd->id);
	p[0] = sid;
	if ((ret = db_query(j->db, shift_sql, p, 4, &rows)))
		return ret;
	n = db_rows_count(rows);
	pd->recent = malloc((n ? n : 1) * sizeof(*pd->recent));
	pd->repeats = malloc((n ? n : 1) * sizeof(*pd->repeats));
	pd->within = malloc((n ? n : 1) * sizeof(*pd->within));
	grown = realloc(pd->window, (pd->n_window + n + 1) * sizeof(*grown));
	if (grown)
		pd->window = grown;
	if (!pd->recent || !pd->repeats || !pd->within || !grown) {
		db_rows_free(rows);
		return ksftm_fail(ENOMEM, "out of memory");
	}
	/* Newest first: count the unflagged runs after each flagged one. */
	for (k = 0; k < n; k++) {
		const char *verdict = db_rows_get(rows, k, 2), *acc = db_rows_get(rows, k, 3);
		int flagged = verdict && !strcmp(verdict, KSFTM_VERDICT_REGRESSION) && (!acc || !strcmp(acc, "0"));

		pd->recent[n - 1 - k] = strtod(db_rows_get(rows, k, 0), NULL);
		repeats_of(db_rows_get(rows, k, 1), &pd->repeats[n - 1 - k], &pd->within[n - 1 - k]);
		if (!flagged) {
			clean++;
			continue;
		}
		if (clean >= TRANSIENT_AFTER && k < w) {
			pd->window[pd->n_window++] = pd->recent[n - 1 - k];
		}
	}
	pd->n_recent = n;
	db_rows_free(rows);
	return 0;
}

/* The recent runs of every scalar series the gate judges (a pinned
 * baseline: none, the window alone is the reference). */
static int recent_all(struct judge *j)
{
	size_t k;
	int ret = 0;

	if (j->pinned)
		return 0;
	for (k = 0; k < j->n_p && !ret; k++) {
		const struct cmp_row *row = &j->c->rows[j->p[k].row];

		if (row->element < 0 && row->better && isfinite(row->current))
			ret = recent_of(j, &j->p[k]);
	}
	return ret;
}

int hgate_compare(struct db *db, const struct ksft_metric_report *r,
		  const struct hgate_opts *o, struct ksft_metric_report_comparison **out)
{
	struct judge j = { .db = db, .o = o };
	char *pinned = NULL;
	size_t i, n = ksft_metric_report_series_count(r);
	int ret;

	*out = NULL;
	j.c = calloc(1, sizeof(*j.c));
	if (!j.c)
		return ksftm_fail(ENOMEM, "out of memory");
	snprintf(j.window_q, sizeof(j.window_q), window_sql, o->window ? o->window : DEFAULT_WINDOW);
	if ((ret = latest_pinned(&j, &pinned)) || (ret = load_levels(&j)))
		goto out;
	j.pinned = pinned;
	for (i = 0; i < n && !ret; i++)
		ret = judge_series(&j, r, i);
	if (!ret && !o->incomparable)
		ret = missing_series(&j);
	if (!ret)
		ret = recent_all(&j);
	if (!ret)
		ret = judge_all(&j);
	if (!ret) {
		for (i = 0; i < j.c->n; i++)
			j.c->failing += j.c->rows[i].fails != 0;
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
	free(pinned);
	free(j.levels);
	db_rows_free(j.level_rows);
	ksft_metric_report_comparison_free(j.c);
	return ret;
}
