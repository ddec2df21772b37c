/*
 * "Can this history judge this run?" (report.h, ksft_metric_report_history_check()):
 * one answer for compare --db, report, html, ingest and Python (issue 40,
 * item 12). It counts, per machine (the runs' comparability key), the
 * runs holding the run's series: one grouped index scan per series, never
 * the history rendered and parsed back.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <ksftmetric/report.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon.h"
#include "errmsg.h"
#include "history.h"
#include "history_window.h"
#include "opts_size.h"
#include "strbuf.h"

/*
 * The gate's minimum window (judge/gate.h GATE_OPTS_DEFAULT's min_runs):
 * a machine with fewer runs is too young to tell an orphan from a new one.
 */
#define FIT_MIN_RUNS 5
#define FIT_MIN_RUNS_TEXT "5"
#define FIT_SHOWN 4
/* The run's series looked up first, one by one (history_series.c's
 * one-query look-up takes 16 or more). */
#define FIT_PROBE 8

/* One other machine holding the run's series. */
struct fit_group {
	const char *cmp;	/* its comparability key (JSON text) */
	char *diff;		/* "k=v, k unset" against the run's */
	size_t ndiff, runs;
};

static int group_order(const void *a, const void *b)
{
	const struct fit_group *x = a, *y = b;

	if (x->ndiff != y->ndiff)
		return x->ndiff < y->ndiff ? -1 : 1;
	if (x->runs != y->runs)
		return x->runs > y->runs ? -1 : 1;
	return strcmp(x->diff, y->diff);
}

/* Does the history hold any run? 1, 0, or a negative errno. */
static int any_run(struct db *db)
{
	struct db_rows *rows;
	int ret = db_query(db, "SELECT id FROM ksftm_runs LIMIT 1", NULL, 0, &rows);

	if (ret)
		return ret;
	ret = db_rows_count(rows) > 0;
	db_rows_free(rows);
	return ret;
}

/*
 * Per machine (comparability key -> runs, the most of any one series:
 * a run holds most of its series), the runs holding @keys' series.
 */
static int count_groups(struct db *db, const struct history_key *keys, size_t n,
			json_t *groups)
{
	size_t i, k;
	int ret = 0;

	for (i = 0; i < n && !ret; i++) {
		struct db_rows *rows = NULL;
		char sid[24];
		const char *p[1] = { sid };

		if (!keys[i].id)
			continue;	/* new to the history */
		snprintf(sid, sizeof(sid), "%lld", keys[i].id);
		ret = db_query(db, "SELECT comparable, COUNT(*) FROM ksftm_results"
			       " WHERE series_id = $1 GROUP BY comparable", p, 1, &rows);
		if (!ret)
			ret = db_rows_check(db, rows, "ksftm_results.comparable count", 0, NULL);
		for (k = 0; !ret && k < db_rows_count(rows); k++) {
			const char *cmp = db_rows_get(rows, k, 0);
			json_int_t c = strtoll(db_rows_get(rows, k, 1), NULL, 10);
			json_t *old = json_object_get(groups, cmp);

			if ((!old || json_integer_value(old) < c) &&
			    json_object_set_new(groups, cmp, json_integer(c)))
				ret = ksftm_oom();
		}
		db_rows_free(rows);
	}
	return ret;
}

/*
 * Does some series of @keys hold FIT_MIN_RUNS runs of machine @cmp? Then
 * the run's own machine can judge it and nothing else needs counting: a
 * look-up of a few index entries per series, not the series' history.
 * 1, 0 or a negative errno.
 */
static int own_enough(struct db *db, const struct history_key *keys, size_t n, const char *cmp)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < n && !ret; i++) {
		struct db_rows *rows = NULL;
		char sid[24];
		const char *p[2] = { sid, cmp };

		if (!keys[i].id)
			continue;
		snprintf(sid, sizeof(sid), "%lld", keys[i].id);
		ret = db_query(db, "SELECT series_id FROM ksftm_results WHERE series_id = $1"
			       " AND comparable = $2 LIMIT " FIT_MIN_RUNS_TEXT, p, 2, &rows);
		if (!ret)
			ret = db_rows_count(rows) >= FIT_MIN_RUNS;
		db_rows_free(rows);
	}
	return ret;
}

/* A comparability value as text (2 and "2" are one machine). */
static char *value_text(json_t *v)
{
	if (!v || json_is_null(v))
		return NULL;
	return json_is_string(v) ? strdup(json_string_value(v)) :
	       json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
}

/* "k=v, k unset" of the keys @keys whose value in @other differs from @own's. */
static char *diff_text(json_t *other, json_t *own, json_t *keys, size_t *n)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *k;
	size_t i;

	*n = 0;
	json_array_foreach(keys, i, k) {
		const char *key = json_string_value(k);
		char *a, *b, *shown;

		if (!key)
			continue;
		a = value_text(json_object_get(other, key));
		b = value_text(json_object_get(own, key));
		if ((a && b && strcmp(a, b)) || (!a) != (!b)) {
			++*n;
			strbuf_adds(&sb, sb.len ? ", " : "");
			shown = canon_text_dup(key, strlen(key));
			strbuf_adds(&sb, shown ? shown : "?");
			free(shown);
			if (a) {
				shown = canon_text_dup(a, strlen(a));
				strbuf_addc(&sb, '=');
				strbuf_adds(&sb, shown ? shown : "?");
				free(shown);
			} else {
				strbuf_adds(&sb, " unset");
			}
		}
		free(a);
		free(b);
	}
	return sb.oom ? (strbuf_free(&sb), NULL) : strbuf_detach(&sb, NULL);
}

/* The keys of @keys that @own lacks and every group of @g[0..n) has: "k, k". */
static char *lacking_keys(json_t *own, json_t *keys, const struct fit_group *g, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *k;
	size_t i, j;

	json_array_foreach(keys, i, k) {
		const char *key = json_string_value(k);
		int all = n > 0;

		if (!key || json_object_get(own, key))
			continue;
		for (j = 0; j < n && all; j++) {
			json_t *o = json_loads(g[j].cmp, 0, NULL);

			all = json_object_get(o, key) != NULL;
			json_decref(o);
		}
		if (all) {
			char *shown = canon_text_dup(key, strlen(key));

			strbuf_adds(&sb, sb.len ? ", " : "");
			strbuf_adds(&sb, shown ? shown : "?");
			free(shown);
		}
	}
	return sb.oom ? (strbuf_free(&sb), NULL) : strbuf_detach(&sb, NULL);
}

static void put_runs(struct strbuf *sb, size_t runs)
{
	char buf[48];

	snprintf(buf, sizeof(buf), "%zu run%s", runs, runs == 1 ? "" : "s");
	strbuf_adds(sb, buf);
}

/* "A (N runs); B (M runs)", closest first, FIT_SHOWN at most. */
static void groups_text(struct strbuf *sb, const struct fit_group *g, size_t n)
{
	char buf[64];
	size_t i;

	for (i = 0; i < n && i < FIT_SHOWN; i++) {
		strbuf_adds(sb, i ? "; " : "");
		strbuf_adds(sb, g[i].diff);
		strbuf_adds(sb, " (");
		put_runs(sb, g[i].runs);
		strbuf_addc(sb, ')');
	}
	if (n > FIT_SHOWN) {
		snprintf(buf, sizeof(buf), "; %zu more context%s", n - FIT_SHOWN,
			 n - FIT_SHOWN == 1 ? "" : "s");
		strbuf_adds(sb, buf);
	}
}

/* The answer for @own's machine (@cmp) among @groups; *@why its sentence. */
static int judge_fit(struct db *db, json_t *groups, const char *cmp, const char *keys_json,
		     char **why)
{
	json_t *own = json_loads(cmp, 0, NULL), *keys = json_loads(keys_json, 0, NULL), *v;
	size_t n = 0, i, own_runs = 0, other_runs = 0, best = 0;
	struct strbuf sb = STRBUF_INIT;
	struct fit_group *g = calloc(json_object_size(groups) + 1, sizeof(*g));
	char *lacking = NULL;
	const char *key;
	int ret = KSFT_METRIC_REPORT_HISTORY_FITS;

	if (!own || !keys || !g) {
		ret = ksftm_oom();
		goto out;
	}
	json_object_foreach(groups, key, v) {
		size_t runs = (size_t)json_integer_value(v), nd;
		json_t *other;

		if (!strcmp(key, cmp)) {
			own_runs = runs;
			continue;
		}
		other = json_loads(key, 0, NULL);
		g[n].diff = other ? diff_text(other, own, keys, &nd) : NULL;
		json_decref(other);
		if (!g[n].diff) {
			ret = ksftm_oom();
			goto out;
		}
		if (!nd) {	/* the same machine as far as the keys tell */
			own_runs += runs;
			free(g[n].diff);
			g[n].diff = NULL;
			continue;
		}
		g[n].cmp = key;
		g[n].ndiff = nd;
		g[n++].runs = runs;
		other_runs += runs;
		best = runs > best ? runs : best;
	}
	if (!n)
		goto out;	/* nothing elsewhere: new series, or its own machine's */
	qsort(g, n, sizeof(*g), group_order);
	if (!(lacking = lacking_keys(own, keys, g, n))) {
		ret = ksftm_oom();
		goto out;
	}
	if (*lacking && own_runs < FIT_MIN_RUNS && best >= (own_runs ? FIT_MIN_RUNS : 1)) {
		ret = KSFT_METRIC_REPORT_HISTORY_KEY_MISSING;
		strbuf_adds(&sb, "this run's context has no ");
		strbuf_adds(&sb, lacking);
		strbuf_adds(&sb, ", which every other run of its series in history ");
		strbuf_adds(&sb, db_name(db));
		strbuf_adds(&sb, " has: ");
		put_runs(&sb, own_runs);
		strbuf_adds(&sb, own_runs == 1 ? " there is" : " there are");
		strbuf_adds(&sb, " comparable with it (the gate judges from 5), ");
		put_runs(&sb, other_runs);
		strbuf_adds(&sb, " hold its series under other contexts (the comparability keys"
			    " that differ): ");
	} else if (!own_runs) {
		ret = KSFT_METRIC_REPORT_HISTORY_OTHER_CONTEXTS;
		strbuf_adds(&sb, "no run in history ");
		strbuf_adds(&sb, db_name(db));
		strbuf_adds(&sb, " is comparable with this run, but ");
		put_runs(&sb, other_runs);
		strbuf_adds(&sb, other_runs == 1 ? " there holds" : " there hold");
		strbuf_adds(&sb, " its series under other contexts (the comparability keys that"
			    " differ): ");
	} else {
		goto out;
	}
	groups_text(&sb, g, n);
	if (sb.oom)
		ret = ksftm_oom();
	else if (why)
		*why = strbuf_detach(&sb, NULL);
out:
	for (i = 0; g && i < n; i++)
		free(g[i].diff);
	free(g);
	free(lacking);
	strbuf_free(&sb);
	json_decref(own);
	json_decref(keys);
	return ret;
}

KSFT_METRIC_REPORT_API int
ksft_metric_report_history_check(struct ksft_metric_report_history *kh,
				 const struct ksft_metric_report *r,
				 const struct ksft_metric_report_gate_opts *opts, char **why)
{
	struct ksft_metric_report_gate_opts o = KSFT_METRIC_REPORT_GATE_OPTS_INIT;
	struct history_run run = { 0 };
	struct history_key *keys = NULL;
	struct history *h;
	struct db *db;
	char *keys_json = NULL, *cmp = NULL;
	json_t *ctx = NULL, *groups = NULL;
	size_t i, n, probe[FIT_PROBE];
	int ret;

	if (why)
		*why = NULL;
	if (!kh || !r)
		return ksftm_fail(EINVAL, "ksft_metric_report_history_check: NULL argument");
	if ((ret = ksftm_opts_take(&o, sizeof(o), opts, "ksft_metric_report_gate_opts")))
		return ret;
	h = history_of(kh);
	db = history_db(h);
	run.context = o.context;
	run.n_context = o.n_context;
	/* Version 2's columns are all it reads: ingest asks before the
	 * migration to the current version, which it makes itself. */
	if ((ret = history_readable_from(h, 2)))
		return ret;
	if ((ret = any_run(db)) <= 0) {
		if (!ret && why && asprintf(why, "history %s holds no run: nothing to judge this"
					    " run against", db_name(db)) < 0) {
			*why = NULL;
			return ksftm_oom();
		}
		return ret ? ret : KSFT_METRIC_REPORT_HISTORY_EMPTY;
	}
	n = ksft_metric_report_series_count(r);
	if ((ret = history_run_context(r, &run, &ctx)) ||
	    (ret = history_comparable_keys(h, &keys_json)))
		goto out;
	if (!(cmp = history_comparable(ctx, keys_json)) || !(groups = json_object())) {
		ret = ksftm_oom();
		goto out;
	}
	/* The run's first few series first: when one of them has enough runs
	 * of this machine, that is the answer (own_enough() of all of them
	 * would say the same), without looking the run's other series up
	 * (issue 45: the look-up was 5 % of an ingest). */
	if ((ret = history_window_keys(r, FIT_PROBE, &keys)))
		goto out;
	for (i = 0; i < n && i < FIT_PROBE; i++)
		probe[i] = i;
	if ((ret = history_series_lookup(db, keys, probe, i)) ||
	    (ret = own_enough(db, keys, i, cmp)) < 0)
		goto out;
	if (ret != 1 && ((ret = history_window_keys_fill(r, keys, i, n)) ||
			 (ret = history_series_lookup(db, keys, NULL, n)) ||
			 (ret = own_enough(db, keys, n, cmp)) < 0))
		goto out;
	if (ret == 1) {
		ret = KSFT_METRIC_REPORT_HISTORY_FITS;
		goto out;
	}
	if ((ret = count_groups(db, keys, n, groups)))
		goto out;
	ret = judge_fit(db, groups, cmp, keys_json, why);
out:
	for (i = 0; keys && i < n; i++)
		free((char *)keys[i].path);
	free(keys);
	json_decref(ctx);
	json_decref(groups);
	free(keys_json);
	free(cmp);
	return ret;
}
