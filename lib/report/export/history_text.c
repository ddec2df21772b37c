/*
 * `ksft-metric history`'s text (issue 34), from the document
 * store/history_query.c reads: tracked series first, each case once above its
 * series, one row per series (runs, newest value, median and spread,
 * newest verdict, change points, unit); -v each run too.
 */
#include <errno.h>
#include <jansson.h>
#include <ksftmetric/report.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon.h"
#include "history_text.h"
#include "strbuf.h"
#include "table.h"
#include "text_fit.h"
#include "verdict_vocab.h"

/* The unit of @series's values (its newest policy's display units): one
 * for all its numbers, as in every other output. */
static void series_unit(json_t *series, double ref, struct text_unit *u)
{
	json_t *unit = json_object_get(series, "unit");
	json_t *scale = json_object_get(series, "scale");

	(void)ref;
	u->mult = json_is_number(scale) ? json_number_value(scale) : 1.0;
	u->sym = json_is_string(unit) ? json_string_value(unit) : "";
}

static void value_text(struct strbuf *sb, const struct text_unit *u, json_t *v)
{
	text_fit_value(sb, u, json_is_number(v) ? json_number_value(v) : NAN);
}

/* A point's verdict, and the marks triage left on it: where an accepted
 * level starts, a pinned run (the JSON's "level" and "pinned"). */
static int verdict_cell(struct table *t, json_t *p)
{
	const char *st = p ? ksftm_verdict_name(json_string_value(json_object_get(p, "state")))
			   : "-";
	int level = json_is_true(json_object_get(p, "level"));
	int pin = json_is_true(json_object_get(p, "pinned"));
	char buf[96];

	snprintf(buf, sizeof(buf), "%s%s%s", st ? st : "?", level ? ", level starts" : "",
		 pin ? ", pinned" : "");
	return table_cell(t, buf);
}

/* "metric{k=v}" of @series. */
static void metric_text(struct strbuf *sb, json_t *series)
{
	char *labels = json_dumps(json_object_get(series, "labels"),
				  JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
	size_t at = sb->len;

	canon_series_title(sb, NULL, 0, "", json_string_value(json_object_get(series, "metric")),
			   labels ? labels : "{}", -1);
	free(labels);
	if (!sb->oom && sb->len > at) {	/* the empty case's space */
		memmove(sb->data + at, sb->data + at + 1, sb->len - at);
		sb->len--;
	}
}

/* "path / case" of @series. */
static void case_text(struct strbuf *sb, json_t *series)
{
	json_t *part;
	size_t k;

	json_array_foreach(json_object_get(series, "path"), k, part) {
		strbuf_adds(sb, json_string_value(part));
		strbuf_adds(sb, " / ");
	}
	strbuf_adds(sb, json_string_value(json_object_get(series, "case")));
}

/* -v: each run of one series, newest last. */
static int runs_text(json_t *series, size_t width, struct strbuf *sb)
{
	static const int right[] = { 0, 0, 1, 0, 0 };
	json_t *points = json_object_get(series, "points"), *p, *last;
	struct strbuf num = STRBUF_INIT;
	struct text_unit u;
	struct table t;
	size_t k;
	int ret = 0;

	last = json_array_get(points, json_array_size(points) - 1);
	series_unit(series, json_number_value(json_object_get(last, "value")), &u);
	if (table_init(&t, 5))
		return -ENOMEM;
	ret |= table_cell(&t, "RUN") | table_cell(&t, "ORDER") | table_cell(&t, "VALUE") |
	       table_cell(&t, "STATUS") | table_cell(&t, "VERDICT");
	json_array_foreach(points, k, p) {
		num.len = 0;
		value_text(&num, &u, json_object_get(p, "value"));
		ret |= table_cell(&t, json_string_value(json_object_get(p, "run")));
		ret |= table_cell(&t, json_string_value(json_object_get(p, "order")));
		ret |= table_cell(&t, num.data ? num.data : "-");
		ret |= table_cell(&t, json_string_value(json_object_get(p, "status")));
		ret |= verdict_cell(&t, p);
		ret |= num.oom;
	}
	if (!ret)
		text_fit_render(&t, sb, right, width, 4);
	table_free(&t);
	strbuf_free(&num);
	return ret ? -ENOMEM : 0;
}

/* One table row per series: runs, newest value, the median over the
 * runs with its spread, the newest verdict, change points, unit; 0 or
 * -ENOMEM. */
static int series_row(struct table *t, json_t *series, struct strbuf *sb)
{
	json_t *points = json_object_get(series, "points"), *p;
	size_t n = json_array_size(points), m = 0, k;
	double *x = malloc((n ? n : 1) * sizeof(*x));
	struct text_unit u;
	char buf[32];
	int ret = 0;

	if (!x)
		return -ENOMEM;
	json_array_foreach(points, k, p)
		if (json_is_number(json_object_get(p, "value")))
			x[m++] = json_number_value(json_object_get(p, "value"));
	sb->len = 0;
	metric_text(sb, series);
	ret |= table_cell(t, sb->data ? sb->data : "");
	snprintf(buf, sizeof(buf), "%zu", n);
	ret |= table_cell(t, buf);
	p = json_array_get(points, n - 1);
	series_unit(series, m ? x[m - 1] : NAN, &u);
	sb->len = 0;
	value_text(sb, &u, json_object_get(p, "value"));
	ret |= table_cell(t, sb->data ? sb->data : "-");
	sb->len = 0;
	text_fit_spread(sb, &u, x, m);
	ret |= table_cell(t, sb->data ? sb->data : "-");
	ret |= verdict_cell(t, p);
	snprintf(buf, sizeof(buf), "%zu", json_array_size(json_object_get(series, "changes")));
	ret |= table_cell(t, buf);
	ret |= table_cell(t, u.sym);
	free(x);
	return ret || sb->oom ? -ENOMEM : 0;
}

/* The change points of @series, a line each (wrapped). */
static void changes_text(json_t *series, size_t width, struct strbuf *out, struct strbuf *sb)
{
	struct text_unit u;
	char buf[96];
	size_t k;
	json_t *c;

	json_array_foreach(json_object_get(series, "changes"), k, c) {
		series_unit(series, json_number_value(json_object_get(c, "before")), &u);
		sb->len = 0;
		metric_text(sb, series);
		strbuf_adds(sb, " (");
		case_text(sb, series);
		strbuf_adds(sb, "): change point at run ");
		strbuf_adds(sb, json_string_value(json_object_get(c, "run")));
		strbuf_adds(sb, ": ");
		value_text(sb, &u, json_object_get(c, "before"));
		strbuf_adds(sb, " -> ");
		value_text(sb, &u, json_object_get(c, "after"));
		if (*u.sym) {
			strbuf_addc(sb, ' ');
			strbuf_adds(sb, u.sym);
		}
		snprintf(buf, sizeof(buf), " (%+.1f%%, p=%.2g)",
			 json_number_value(json_object_get(c, "change_pct")),
			 json_number_value(json_object_get(c, "p_value")));
		strbuf_adds(sb, buf);
		if (!sb->oom)
			text_fit_wrap_hang(out, sb->data, width, 2, 4);
	}
}

static int tracked(json_t *series)
{
	return json_is_string(json_object_get(series, "better"));
}

static int same_case(json_t *a, json_t *b)
{
	return a && b && json_equal(json_object_get(a, "case"), json_object_get(b, "case")) &&
	       json_equal(json_object_get(a, "path"), json_object_get(b, "path"));
}

/* "KEY=VALUE, KEY=VALUE" of one machine's comparability keys. */
static void machine_text(struct strbuf *sb, json_t *machine)
{
	const char *key;
	json_t *v;
	int first = 1;

	json_object_foreach(machine, key, v) {
		char *safe = canon_text_dup(key, strlen(key));
		const char *val = json_string_value(v);
		char *safe_val = val ? canon_text_dup(val, strlen(val)) : NULL;

		strbuf_adds(sb, first ? "" : ", ");
		strbuf_adds(sb, safe ? safe : "?");
		strbuf_addc(sb, '=');
		strbuf_adds(sb, safe_val ? safe_val : "?");
		free(safe);
		free(safe_val);
		first = 0;
	}
	if (first)
		strbuf_adds(sb, "(no machine keys)");
}

/*
 * Series that pool the runs of several machines (the document's
 * "pooled_contexts"): said first, with the machines, since one trend then
 * mixes them (issue 40).
 */
static void pooled_text(json_t *pooled, size_t width, struct strbuf *sb, struct strbuf *tmp)
{
	json_t *m;
	size_t i, n = json_array_size(pooled);
	char num[32];

	if (!n)
		return;
	snprintf(num, sizeof(num), "%zu", n);
	tmp->len = 0;
	strbuf_adds(tmp, "NOTE: these trends pool the runs of ");
	strbuf_adds(tmp, num);
	strbuf_adds(tmp, " machines (");
	json_array_foreach(pooled, i, m) {
		strbuf_adds(tmp, i ? "; " : "");
		machine_text(tmp, m);
	}
	strbuf_adds(tmp, "): --context KEY=VALUE shows one machine's runs");
	if (!tmp->oom)
		text_fit_wrap(sb, tmp->data, width, 0);
}

/*
 * The text (issue 34): tracked series first (their policy has a
 * direction), each case once above its series, one row per series;
 * then the change points. -v (KSFT_METRIC_REPORT_TEXT_VERBOSE): each
 * series' runs too.
 */
int history_text_render(json_t *doc, int fmt, struct strbuf *sb)
{
	static const char *const head[] = { "METRIC", "RUNS", "LAST", "VALUE", "VERDICT",
					    "CHANGES", "UNIT" };
	static const int right[] = { 0, 1, 1, 0, 0, 1, 0 };
	json_t *all = json_object_get(doc, "series"), *series;
	size_t width = text_fit_width(fmt), i, k, n = json_array_size(all), changes = 0;
	struct strbuf tmp = STRBUF_INIT;
	int pass, ret = 0;

	pooled_text(json_object_get(doc, "pooled_contexts"), width, sb, &tmp);
	for (pass = 1; pass >= 0 && !ret; pass--) {
		json_t *prev = NULL;
		struct table t = { 0 };
		size_t shown = 0;

		json_array_foreach(all, i, series) {
			if (tracked(series) != pass)
				continue;
			if (!shown++) {
				strbuf_adds(sb, sb->len ? "\n" : "");
				strbuf_adds(sb, pass ? "Tracked series (a regression policy with a"
					    " direction):\n" : "Untracked series (no regression"
					    " policy):\n");
			}
			changes += json_array_size(json_object_get(series, "changes"));
			if (!same_case(prev, series) || (fmt & KSFT_METRIC_REPORT_TEXT_VERBOSE)) {
				if (prev)
					text_fit_render(&t, sb, right, width, 2);
				table_free(&t);
				tmp.len = 0;
				case_text(&tmp, series);
				if (!tmp.oom)
					text_fit_wrap(sb, tmp.data, width, 0);
				if ((ret = table_init(&t, 7)))
					break;	/* -ENOMEM, after freeing what is held */
				for (k = 0; k < 7; k++)
					ret |= table_cell(&t, head[k]);
			}
			prev = series;
			ret |= series_row(&t, series, &tmp);
			if (!ret && (fmt & KSFT_METRIC_REPORT_TEXT_VERBOSE)) {
				text_fit_render(&t, sb, right, width, 2);
				ret |= runs_text(series, width, sb);
				prev = NULL;
			}
		}
		if (prev && !ret)
			text_fit_render(&t, sb, right, width, 2);
		table_free(&t);
	}
	if (!ret && changes) {
		strbuf_adds(sb, "\nChange points (E-divisive means, each judged by a Welch"
			    " t-test):\n");
		for (pass = 1; pass >= 0; pass--)
			json_array_foreach(all, i, series)
				if (tracked(series) == pass)
					changes_text(series, width, sb, &tmp);
	}
	if (!ret && n) {
		strbuf_addc(sb, '\n');
		text_fit_wrap(sb, "RUNS: runs shown; LAST: the newest run's value; VALUE: the median"
			      " over the runs, with their range (fewer than 10) or \xc2\xb1 their"
			      " robust spread; VERDICT: the newest run's; -v shows each run", width, 0);
	}
	strbuf_free(&tmp);
	if (!n)
		strbuf_adds(sb, "no series in the history match\n");
	return ret || sb->oom ? -ENOMEM : 0;
}

