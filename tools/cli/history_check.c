/*
 * Fail loudly on a mis-set run history (issue 22): a command that reads a
 * history never creates one, and judging against a history that cannot
 * judge this run (empty, or holding this run's series only under other
 * contexts) is an error naming the contexts found, unless --first-run
 * says the history starts here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "verdict_vocab.h"

static int is_pg(const char *db)
{
	return !strncmp(db, "postgresql://", 13) || !strncmp(db, "postgres://", 11);
}

int cli_history_exists(const struct cli_common *cc)
{
	static const char magic[16] = "SQLite format 3";
	char head[16];
	size_t got;
	FILE *f;

	if (is_pg(cc->db))
		return 1;	/* a server: opening it tells */
	if (!strcmp(cc->db, "-")) {
		cli_error("--db -: a run history is a SQLite file or a postgresql:// URL");
		return -EINVAL;
	}
	if (access(cc->db, F_OK) && !cc->c.base)
		return 0;
	f = confine_open_read(&cc->c, cc->db);
	if (!f)
		return -EIO;	/* said why */
	got = fread(head, 1, sizeof(head), f);
	fclose(f);
	if (!got)
		return 0;	/* an empty file: no history in it */
	if (got < sizeof(head) || memcmp(head, magic, sizeof(head))) {
		cli_error("%s: not a run history (not a SQLite database; ksft-metric ingest"
			  " writes one)", cc->db_shown);
		return -EINVAL;
	}
	return 1;
}

struct ksft_metric_report_history *cli_open_history(struct cli_common *cc)
{
	struct ksft_metric_report_history *h;
	int there;

	if (!cc->db_create) {
		there = cli_history_exists(cc);
		if (there < 0)
			return NULL;
		if (!there) {
			cc->db_missing = 1;
			if (!cc->first_run)
				cli_error("%s: no run history there (a mistyped --db? ksft-metric"
					  " ingest creates one; on a CI's first run --first-run"
					  " says the history starts here)", cc->db_shown);
			return NULL;
		}
	}
	if (strncmp(cc->db, "postgresql://", 13) && strncmp(cc->db, "postgres://", 11) &&
	    confine_check_write(&cc->c, cc->db))
		return NULL;
	if (ksft_metric_report_history_open(cc->db, &h)) {
		cli_error("%s: %s", cc->db_shown, ksft_metric_report_errmsg());
		return NULL;
	}
	return h;
}

/* A context value as the comparison reads it (2 and "2" are one machine);
 * NULL: unset. */
static char *value_text(json_t *v)
{
	if (!v || json_is_null(v))
		return NULL;
	return json_is_string(v) ? strdup(json_string_value(v)) :
	       json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
}

/*
 * "k=v, k=v" of the comparability keys @keys (issue 34: a context is told
 * by them, not by a start time or a governor) whose value in @ctx differs
 * from @cur's (*@n of them).
 */
static char *context_diff(json_t *ctx, json_t *cur, json_t *keys, size_t *n)
{
	json_t *k;
	char *out = NULL;
	size_t len = 0, i;
	FILE *m = open_memstream(&out, &len);

	*n = 0;
	if (!m)
		return NULL;
	json_array_foreach(keys, i, k) {
		const char *key = json_string_value(k);
		char *a, *b;

		if (!key)
			continue;
		a = value_text(json_object_get(ctx, key));
		b = value_text(json_object_get(cur, key));
		if ((a && b && strcmp(a, b)) || (!a) != (!b)) {
			++*n;
			/* Shown on a terminal: the log's controls neutralised. */
			fputs(ftell(m) ? ", " : "", m);
			cli_put_printable(m, key);
			if (a) {
				fputc('=', m);
				cli_put_printable(m, a);
			} else {
				fputs(" unset", m);
			}
		}
		free(a);
		free(b);
	}
	fclose(m);
	return out;
}

/* The current run's context: its logs' context with --context over it. */
static json_t *current_context(const struct cli_common *cc)
{
	json_t *cur = json_loads(ksft_metric_report_context_json(cc->r), 0, NULL);
	size_t i;

	if (!json_is_object(cur)) {
		json_decref(cur);
		cur = json_object();
	}
	for (i = 0; cur && i < cc->n_context; i++) {
		const char *eq = strchr(cc->context[i], '=');
		char *key = strndup(cc->context[i], (size_t)(eq - cc->context[i]));

		if (key)
			json_object_set_new(cur, key, json_string(eq + 1));
		free(key);
	}
	return cur;
}

struct found {
	const char *diff;
	size_t ndiff, runs;
};

/* The closest contexts first (fewest keys differ), then the most runs. */
static int found_cmp(const void *a, const void *b)
{
	const struct found *x = a, *y = b;

	if (x->ndiff != y->ndiff)
		return x->ndiff < y->ndiff ? -1 : 1;
	return x->runs > y->runs ? -1 : x->runs < y->runs;
}

#define FOUND_SHOWN 4

/*
 * The distinct contexts (as their differences from this run's) the runs
 * holding this run's series were stored under, closest first: "A (N
 * runs); B (M runs)"; "" when the history holds none of them. NULL:
 * cannot read.
 */
static char *contexts_found(const struct cli_common *cc,
			    struct ksft_metric_report_history *h, size_t *n_runs)
{
	struct ksft_metric_report_history_opts ho = KSFT_METRIC_REPORT_HISTORY_OPTS_INIT;
	json_t *doc, *s, *p, *seen = json_object(), *cur = current_context(cc), *e;
	struct found *list = NULL;
	char *text = NULL, *out = NULL;
	size_t len, i, j, n = 0;
	const char *key;
	FILE *m;

	ho.report = cc->r;
	ho.all_status = 1;
	*n_runs = 0;
	if (!seen || !cur ||
	    ksft_metric_report_history_format(h, &ho, KSFT_METRIC_REPORT_JSON, &text, &len)) {
		json_decref(seen);
		json_decref(cur);
		return NULL;
	}
	doc = json_loads(text, 0, NULL);
	ksft_metric_report_text_free(text);
	json_array_foreach(json_object_get(doc, "series"), i, s) {
		json_array_foreach(json_object_get(s, "points"), j, p) {
			json_t *ctx = json_object_get(p, "context");
			const char *run = json_string_value(json_object_get(p, "run"));
			size_t nd = 0;
			char *d = json_is_object(ctx) ?
				  context_diff(ctx, cur, json_object_get(doc, "comparable_keys"), &nd) : NULL;

			if (!d || !*d || !run) {	/* comparable: left out by the window's rules */
				free(d);
				continue;
			}
			e = json_object_get(seen, d);
			if (!e) {
				e = json_pack("{s:{},s:I}", "runs", "ndiff", (json_int_t)nd);
				json_object_set_new(seen, d, e);
			}
			if (e && !json_object_get(json_object_get(e, "runs"), run)) {
				json_object_set_new(json_object_get(e, "runs"), run, json_true());
				++*n_runs;
			}
			free(d);
		}
	}
	list = calloc(json_object_size(seen) + 1, sizeof(*list));
	m = list ? open_memstream(&out, &len) : NULL;
	if (m) {
		json_object_foreach(seen, key, e) {
			list[n].diff = key;
			list[n].ndiff = (size_t)json_integer_value(json_object_get(e, "ndiff"));
			list[n++].runs = json_object_size(json_object_get(e, "runs"));
		}
		qsort(list, n, sizeof(*list), found_cmp);
		for (i = 0; i < n && i < FOUND_SHOWN; i++)
			fprintf(m, "%s%s (%zu run%s)", i ? "; " : "", list[i].diff, list[i].runs,
				list[i].runs == 1 ? "" : "s");
		if (n > FOUND_SHOWN)
			fprintf(m, "; %zu more context%s", n - FOUND_SHOWN,
				n - FOUND_SHOWN == 1 ? "" : "s");
		fclose(m);
	}
	free(list);
	json_decref(doc);
	json_decref(seen);
	json_decref(cur);
	return out;
}

/* Does the history hold any run at all? 1, 0, or a negative errno (cannot read). */
static int history_has_runs(struct ksft_metric_report_history *h)
{
	struct ksft_metric_report_history_opts ho = KSFT_METRIC_REPORT_HISTORY_OPTS_INIT;
	char *text;
	size_t len;
	json_t *doc;
	int ret;

	ho.last = 1;
	ho.all_status = 1;
	ret = ksft_metric_report_history_format(h, &ho, KSFT_METRIC_REPORT_JSON, &text, &len);
	if (ret)
		return ret;
	doc = json_loads(text, 0, NULL);
	ksft_metric_report_text_free(text);
	ret = doc ? json_array_size(json_object_get(doc, "series")) > 0 : -ENOMEM;
	json_decref(doc);
	return ret;
}

/* Was any row of @cmp judged against a stored run? */
static int judged_any(const struct ksft_metric_report_comparison *cmp)
{
	size_t i, n = ksft_metric_report_comparison_rows(cmp);

	for (i = 0; i < n; i++) {
		struct ksft_metric_report_row row = { .sz = sizeof(row) };

		if (!ksft_metric_report_comparison_row(cmp, i, &row) &&
		    strcmp(row.verdict, KSFTM_VERDICT_NEW) &&
		    strcmp(row.verdict, KSFTM_VERDICT_MISSING) &&
		    strcmp(row.verdict, KSFTM_VERDICT_CASE_FAILED))
			return 1;
	}
	return 0;
}

/*
 * Can the history judge this run (@cmp, what the gate made of it)? 1 yes;
 * 0 no, with cc->unusable saying why (NULL when out of memory): the
 * history holds no run, or holds the run's series only under other
 * contexts (named); a negative errno after printing a read error.
 */
static int history_usable(struct cli_common *cc, struct ksft_metric_report_history *h,
			  const struct ksft_metric_report_comparison *cmp)
{
	char *found;
	size_t runs;
	int any;

	if (judged_any(cmp))
		return 1;
	any = history_has_runs(h);
	if (any < 0) {
		cli_error("%s: %s", cc->db_shown, ksft_metric_report_errmsg());
		return -EIO;
	}
	if (!any) {
		if (asprintf(&cc->unusable, "history %s holds no run: nothing to judge this run against"
			     " (a mistyped --db? on a CI's first run, --first-run says the"
			     " history starts here)", cc->db_shown) < 0)
			cc->unusable = NULL;
		return 0;
	}
	found = contexts_found(cc, h, &runs);
	if (!found) {
		cli_error("%s: %s", cc->db_shown, ksft_metric_report_errmsg());
		return -EIO;
	}
	if (!*found) {	/* the series are new to a history that holds others */
		free(found);
		return 1;
	}
	if (asprintf(&cc->unusable, "no run in history %s is comparable with this run, but %zu run%s"
		     " there hold%s its series under other contexts (the comparability keys that"
		     " differ): %s (a mistyped or"
		     " forgotten --context? --first-run says the history starts here)",
		     cc->db_shown, runs, runs == 1 ? "" : "s", runs == 1 ? "s" : "", found) < 0)
		cc->unusable = NULL;
	free(found);
	return 0;
}

int cli_history_judge(struct cli_common *cc, struct ksft_metric_report_gate_opts *go,
		      struct ksft_metric_report_history **h,
		      struct ksft_metric_report_comparison **out)
{
	int failing, usable;

	free(cc->unusable);
	cc->unusable = NULL;
	*out = NULL;
	go->context = cc->context;
	go->n_context = cc->n_context;
	*h = cli_open_history(cc);
	if (!*h) {
		/* No history (or none to be had): every series against no run. */
		failing = ksft_metric_report_compare(cc->r, cc->b, &cc->copts, out);
		if (failing < 0) {
			cli_error("%s", ksft_metric_report_errmsg());
			return CLI_JUDGE_ERROR;
		}
		/* The open said why. */
		return cc->first_run && cc->db_missing ? 0 : CLI_JUDGE_UNUSABLE;
	}
	failing = ksft_metric_report_history_compare(*h, cc->r, go, out);
	if (failing < 0) {
		cli_error("%s: %s", cc->db_shown, ksft_metric_report_errmsg());
		return CLI_JUDGE_ERROR;
	}
	if (cc->first_run)
		return failing;
	usable = history_usable(cc, *h, *out);
	if (usable < 0)
		return CLI_JUDGE_ERROR;
	if (usable)
		return failing;
	/* Said where the reason is known, with the command's name. */
	if (cc->unusable)
		cli_error("%s: %s", cc->name, cc->unusable);
	return CLI_JUDGE_UNUSABLE;
}
