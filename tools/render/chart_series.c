/*
 * What the charts need to know about series: names, units, how each is
 * best shown, and series grouped into charts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"

char *series_title(const struct ksft_metric_report_series *si, int what)
{
	json_t *labels = json_loads(si->labels_json, 0, NULL), *v;
	size_t cap = 256, len = 0, i;
	char *out = malloc(cap);
	const char *k;

	if (!out) {
		json_decref(labels);
		return NULL;
	}
	out[0] = '\0';
#define APPEND(str) do {						\
		const char *a_ = (str);					\
		size_t n_ = strlen(a_);					\
		if (len + n_ + 1 > cap) {				\
			char *q_;					\
			while (len + n_ + 1 > cap)			\
				cap *= 2;				\
			q_ = realloc(out, cap);				\
			if (!q_)					\
				goto oom;				\
			out = q_;					\
		}							\
		memcpy(out + len, a_, n_ + 1);				\
		len += n_;						\
	} while (0)
	if (what != T_LABELS) {
		for (i = 0; i < si->path_len; i++) {
			APPEND(si->path[i]);
			APPEND(" / ");
		}
		APPEND(si->case_name);
		APPEND(": ");
		APPEND(si->name);
		if (what == T_SERIES || !strcmp(si->labels_json, "{}"))
			goto done;
		APPEND(" ");
	}
	i = 0;
	json_object_foreach(labels, k, v) {
		char *text = json_is_string(v) ? NULL : json_dumps(v, JSON_ENCODE_ANY);

		APPEND(i++ ? "," : "");
		APPEND(k);
		APPEND("=");
		APPEND(text ? text : json_string_value(v) ? json_string_value(v) : "");
		free(text);
	}
	if (!i && what == T_LABELS)
		APPEND("(no labels)");
done:
#undef APPEND
	json_decref(labels);
	return out;
oom:
	json_decref(labels);
	free(out);
	return NULL;
}

double scale_of(const struct ksft_metric_report_series *si)
{
	return isfinite(si->display_scale) ? si->display_scale : 1.0;
}

/*
 * Sans-serif glyphs average about half an em; wide ones (W, M, CJK) more.
 * 0.62 em per character, 1.0 for multi-byte ones, errs on the wide side.
 */
double text_width(const char *s, double font)
{
	double w = 0;

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c & 0xc0) == 0x80)
			continue;
		w += c >= 0x80 ? 1.0 : (c >= 'A' && c <= 'Z') || c == 'm' || c == 'w' ? 0.8 : 0.62;
	}
	return w * font;
}

char *fit_text(char *s, double px, double font)
{
	size_t full = strlen(s), len = full;

	if (text_width(s, font) <= px)
		return s;
	/* Drop characters from the end until it fits with an ellipsis
	 * (U+2026: 3 bytes, so at least 3 bytes are dropped). */
	while (len > 0) {
		len--;
		while (len > 0 && ((unsigned char)s[len] & 0xc0) == 0x80)
			len--;
		s[len] = '\0';
		if (full - len >= 3 && text_width(s, font) + font <= px)
			break;
	}
	memcpy(s + len, "\xe2\x80\xa6", 4);
	return s;
}

int series_kind(const struct ksft_metric_report *r, size_t idx, int stage,
		double *value)
{
	struct ksft_metric_report_points p;
	size_t i, finite = 0, nonzero = 0;
	int kind;

	kind = ksft_metric_report_series_points(r, idx, stage, &p);
	if (kind)
		return kind;
	for (i = 0; i < p.off[p.n]; i++) {
		if (!isfinite(p.v[i]))
			continue;
		finite++;
		nonzero += p.v[i] != 0;
	}
	if (!finite)
		kind = KIND_EMPTY;
	else if (!nonzero)
		kind = KIND_ZERO;
	else if (p.n == 1 && p.off[1] == 1) {
		kind = KIND_SINGLE;
		if (value)
			*value = p.v[0];
	} else {
		struct ksft_metric_report_series si = { .sz = sizeof(si) };

		kind = !ksft_metric_report_series_get(r, idx, &si) && si.is_array &&
		       stage != KSFT_METRIC_REPORT_PROCESSED ? KIND_HEATMAP : KIND_LINES;
		if (kind == KIND_LINES && p.n == 1) {
			kind = KIND_SINGLE;	/* an array aggregated to one value */
			if (value)
				*value = p.v[0];
		}
	}
	ksft_metric_report_points_release(&p);
	return kind;
}

/* Group key: same case (path + description), metric name and kind. */
static char *group_key(const struct ksft_metric_report_series *si)
{
	size_t len = strlen(si->case_name) + strlen(si->name) + 8, i;
	char *k, *q;

	for (i = 0; i < si->path_len; i++)
		len += strlen(si->path[i]) + 1;
	k = malloc(len);
	if (!k)
		return NULL;
	q = k;
	/* \x01 cannot occur: names are kept without control characters. */
	for (i = 0; i < si->path_len; i++)
		q += sprintf(q, "%s\x01", si->path[i]);
	sprintf(q, "%s\x02%s\x02%d", si->case_name, si->name, si->is_array);
	return k;
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	return h;
}

void groups_free(struct groups *g)
{
	free(g->order);
	free(g->start);
	memset(g, 0, sizeof(*g));
}

/*
 * Through a hash table, members placed by a counting sort: linear in the
 * series, where comparing every pair was quadratic.
 */
int groups_build(const struct ksft_metric_report *r, struct groups *g)
{
	size_t n = ksft_metric_report_series_count(r), cap = 16, i, ng = 0;
	size_t *slot_gid = NULL, *gid = calloc(n + 1, sizeof(size_t)), *fill = NULL;
	char **keys = NULL;
	int ret = -1;

	memset(g, 0, sizeof(*g));
	while (cap < 2 * n)
		cap *= 2;
	keys = calloc(cap, sizeof(char *));
	slot_gid = calloc(cap, sizeof(size_t));
	g->order = calloc(n + 1, sizeof(size_t));
	g->start = calloc(n + 2, sizeof(size_t));
	if (!keys || !slot_gid || !gid || !g->order || !g->start)
		goto out;
	for (i = 0; i < n; i++) {
		struct ksft_metric_report_series si = { .sz = sizeof(si) };
		char *k;
		size_t h;

		if (ksft_metric_report_series_get(r, i, &si))
			goto out;
		k = group_key(&si);
		if (!k)
			goto out;
		for (h = hash_str(k) & (cap - 1); keys[h]; h = (h + 1) & (cap - 1))
			if (!strcmp(keys[h], k))
				break;
		if (keys[h]) {
			free(k);
		} else {
			keys[h] = k;
			slot_gid[h] = ng++;
		}
		gid[i] = slot_gid[h];
	}
	for (i = 0; i < n; i++)
		g->start[gid[i] + 1]++;
	for (i = 0; i < ng; i++)
		g->start[i + 1] += g->start[i];
	fill = malloc((ng + 1) * sizeof(size_t));
	if (!fill)
		goto out;
	memcpy(fill, g->start, (ng + 1) * sizeof(size_t));
	for (i = 0; i < n; i++)
		g->order[fill[gid[i]]++] = i;
	g->n = ng;
	ret = 0;
out:
	for (i = 0; keys && i < cap; i++)
		free(keys[i]);
	free(keys);
	free(slot_gid);
	free(gid);
	free(fill);
	if (ret)
		groups_free(g);
	return ret;
}

char *series_short_name(const struct ksft_metric_report_series *si)
{
	char *labels = series_title(si, T_LABELS), *out;

	if (!labels)
		return NULL;
	if (asprintf(&out, "%s%s%s", si->name, strcmp(si->labels_json, "{}") ? " " : "",
		     strcmp(si->labels_json, "{}") ? labels : "") < 0)
		out = NULL;
	free(labels);
	return out;
}

char *series_case_heading(const struct ksft_metric_report_series *si)
{
	struct ksft_metric_report_series c = *si;
	char *t;

	c.name = "";
	t = series_title(&c, T_SERIES);
	if (t && strlen(t) >= 2)
		t[strlen(t) - 2] = '\0';	/* the ": " before the empty name */
	return t;
}
