/*
 * A metrics sidecar for NIPA: one result per test case, named as NIPA's
 * collector names its results (group "selftests-" + namify(target), test,
 * subtest), with each metric's summaries, compare value and verdicts. Only
 * what the logs and the comparison say: NIPA's own fields (executor,
 * branch, link) and its pass/fail are the collector's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <ksftmetric/report.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon.h"
#include "comparison.h"
#include "context.h"
#include "errmsg.h"
#include "pipeline.h"
#include "report.h"
#include "rp_export.h"
#include "rp_policy.h"
#include "series.h"
#include "strbuf.h"
#include "units.h"
#include "vals.h"

/* Cases by key, so that a case's series gather in one result: linear. */
struct case_map {
	const char **key;
	size_t *id;
	size_t mask;
};

static int case_map_init(struct case_map *m, size_t n)
{
	m->mask = 15;
	while (m->mask < n * 2)
		m->mask = m->mask * 2 + 1;
	m->key = calloc(m->mask + 1, sizeof(*m->key));
	m->id = calloc(m->mask + 1, sizeof(*m->id));
	return m->key && m->id ? 0 : -ENOMEM;
}

static void case_map_free(struct case_map *m)
{
	free(m->key);
	free(m->id);
}

/* The id of @key, adding it as @id when new. */
static size_t case_map_get(struct case_map *m, const char *key, size_t id)
{
	size_t i = series_hash(key, strlen(key), 0xcbf29ce484222325ull);

	for (;; i++) {
		if (!m->key[i & m->mask]) {
			m->key[i & m->mask] = key;
			m->id[i & m->mask] = id;
			return id;
		}
		if (!strcmp(m->key[i & m->mask], key))
			return m->id[i & m->mask];
	}
}

static void json_str_or_null(struct strbuf *sb, const char *s)
{
	if (s)
		canon_json_str(sb, s);
	else
		strbuf_adds(sb, "null");
}

static void names_json(struct strbuf *sb, const struct export_nipa_names *n)
{
	strbuf_adds(sb, "\"group\":");
	json_str_or_null(sb, n->group);
	strbuf_adds(sb, ",\"test\":");
	json_str_or_null(sb, n->test);
	strbuf_adds(sb, ",\"subtest\":");
	json_str_or_null(sb, n->subtest);
}

static void verdicts_json(struct strbuf *sb, const struct export_rowix *ix,
			  const struct rp_series *s)
{
	struct strbuf kb = STRBUF_INIT;
	struct cmp_row tmp;
	const char *key;
	size_t first, n, k;

	if (!ix->c)
		return;
	if (!(key = series_key_text(s, &kb))) {
		sb->oom = 1;	/* the writer's caller says so */
		return;
	}
	n = export_rowix_find(ix, key, &first);
	strbuf_free(&kb);
	strbuf_adds(sb, ",\"verdicts\":[");
	for (k = 0; k < n; k++) {
		if (k)
			strbuf_addc(sb, ',');
		export_row_json(sb, cmp_row_at(ix->c, ix->order[first + k], &tmp));
	}
	strbuf_addc(sb, ']');
}

static int metric_json(struct strbuf *sb, const struct rp_series *s,
		       const struct export_rowix *ix)
{
	const char *better;
	struct rp_display d;
	struct export_sums m;
	char buf[64];

	if (export_sums_init(&m, s))
		return -ENOMEM;
	better = canon_better_name(m.p->better);
	strbuf_adds(sb, "{\"name\":");
	canon_json_str(sb, series_name(s));
	strbuf_adds(sb, ",\"labels\":");
	strbuf_adds(sb, series_labels(s));
	strbuf_adds(sb, ",\"shape\":");
	canon_json_str(sb, series_shape(s));
	snprintf(buf, sizeof(buf), ",\"points\":%zu,\"processed\":%zu", series_n_points(s), m.pv.n);
	strbuf_adds(sb, buf);
	strbuf_adds(sb, ",\"summarize\":\"");
	strbuf_adds(sb, canon_op_name(m.p->summarize));
	strbuf_adds(sb, "\",\"summary\":");
	export_sums_json_all(sb, &m);
	strbuf_adds(sb, ",\"compare\":\"");
	strbuf_adds(sb, canon_op_name(m.compare));
	strbuf_adds(sb, "\",\"better\":");
	json_str_or_null(sb, better);
	/* The compare value of a scalar series: what a dashboard plots. */
	strbuf_adds(sb, ",\"value\":");
	if (!m.width && m.sums[0].n)
		canon_json_double(sb, pipeline_summary_op(&m.sums[0], m.compare));
	else
		strbuf_adds(sb, "null");
	/* Its display unit: value and summaries times scale are in unit. */
	units_display_of(m.p, &d);
	strbuf_addc(sb, ',');
	units_display_json(sb, &d);
	verdicts_json(sb, ix, s);
	strbuf_addc(sb, '}');
	export_sums_free(&m);
	return sb->oom ? -ENOMEM : 0;
}

/* Case i's result: its names, identity, KTAP status and metrics. */
static int result_json(struct strbuf *sb, const struct ksft_metric_report *r,
		       const size_t *members, size_t n, const struct export_rowix *ix)
{
	const struct rp_series *s = r->series[members[0]];
	struct export_nipa_names nm;
	size_t i;

	if (export_nipa_names(series_path(s), series_path_len(s), series_case_name(s), &nm))
		return -ENOMEM;
	strbuf_addc(sb, '{');
	names_json(sb, &nm);
	export_nipa_names_free(&nm);
	strbuf_adds(sb, ",\"case\":");
	canon_json_str(sb, series_case_name(s));
	strbuf_adds(sb, ",\"path\":[");
	for (i = 0; i < series_path_len(s); i++) {
		if (i)
			strbuf_addc(sb, ',');
		canon_json_str(sb, series_path(s)[i]);
	}
	strbuf_adds(sb, "],\"ktap_status\":\"");
	strbuf_adds(sb, canon_status_name(s->status));
	strbuf_adds(sb, "\",\"metrics\":[");
	for (i = 0; i < n; i++) {
		if (i)
			strbuf_addc(sb, ',');
		if (metric_json(sb, r->series[members[i]], ix))
			return -ENOMEM;
	}
	strbuf_adds(sb, "]}");
	return sb->oom ? -ENOMEM : 0;
}

/* Rows of series the current run lacks ("missing"), named the same way. */
static int missing_json(struct strbuf *sb, const struct ksft_metric_report_comparison *c)
{
	size_t i, n = 0;

	strbuf_adds(sb, ",\n\"missing\":[");
	for (i = 0; c && i < c->n; i++) {
		struct cmp_row tmp;
		const struct cmp_row *row = cmp_row_at(c, i, &tmp);
		struct export_nipa_names nm;

		if (row->has_current)
			continue;
		if (export_nipa_names(cmp_row_path(row), cmp_row_path_len(row), cmp_row_case(row),
				      &nm))
			return -ENOMEM;
		strbuf_adds(sb, n++ ? ",\n{" : "\n{");
		names_json(sb, &nm);
		export_nipa_names_free(&nm);
		strbuf_addc(sb, ',');
		canon_emit_identity(sb, cmp_row_path(row), cmp_row_path_len(row), cmp_row_case(row),
				       cmp_row_name(row), cmp_row_labels(row));
		strbuf_adds(sb, ",\"verdict\":");
		export_row_json(sb, row);
		strbuf_addc(sb, '}');
	}
	strbuf_addc(sb, ']');
	return sb->oom ? -ENOMEM : 0;
}

int format_nipa_write(const struct ksft_metric_report *r,
		      const struct ksft_metric_report_format_opts *o,
		      struct strbuf *sb)
{
	size_t ns = r->n_series, i, ncases = 0;
	size_t *cid = calloc(ns + 1, sizeof(size_t));
	size_t *start = calloc(ns + 2, sizeof(size_t));
	size_t *order = calloc(ns + 1, sizeof(size_t));
	char **ckey = calloc(ns + 1, sizeof(char *));
	struct case_map map = { NULL, NULL, 0 };
	struct export_rowix ix;
	json_t *ctx;
	int err = 0;

	memset(&ix, 0, sizeof(ix));
	if (!cid || !start || !order || !ckey || case_map_init(&map, ns) ||
	    (o->comparison && export_rowix_build(o->comparison, &ix)))
		goto oom;
	ctx = context_with(r, o->context, o->n_context, &err);
	if (!ctx)
		goto out;
	strbuf_adds(sb, "{\"format\":\"ksft-metric-nipa\",\"version\":1,\n\"context\":");
	canon_json_emit(sb, ctx);
	json_decref(ctx);
	/* Cases in order of first appearance, their series in report order. */
	for (i = 0; i < ns; i++) {
		const struct rp_series *s = r->series[i];

		ckey[i] = series_make_key(series_path(s), series_path_len(s), series_case_name(s),
					  "", "");
		if (!ckey[i])
			goto oom;
		cid[i] = case_map_get(&map, ckey[i], ncases);
		if (cid[i] == ncases)
			ncases++;
		start[cid[i] + 1]++;
	}
	for (i = 0; i < ncases; i++)
		start[i + 1] += start[i];
	for (i = 0; i < ns; i++)
		order[start[cid[i]]++] = i;	/* start[c] ends as c + 1's start */
	strbuf_adds(sb, ",\n\"results\":[");
	for (i = 0; i < ncases; i++) {
		size_t from = i ? start[i - 1] : 0;

		strbuf_adds(sb, i ? ",\n" : "\n");
		if (result_json(sb, r, order + from, start[i] - from, &ix))
			goto oom;
	}
	strbuf_addc(sb, ']');
	if (o->comparison && missing_json(sb, o->comparison))
		goto oom;
	strbuf_adds(sb, "}\n");
	goto out;
oom:
	err = -ENOMEM;
out:
	for (i = 0; ckey && i < ns; i++)
		free(ckey[i]);
	free(ckey);
	free(cid);
	free(start);
	free(order);
	case_map_free(&map);
	export_rowix_free(&ix);
	return err ? err : sb->oom ? -ENOMEM : 0;
}
