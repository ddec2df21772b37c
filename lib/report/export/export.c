/*
 * Shared by the KCIDB and NIPA writers and --name-style: NIPA's names, a
 * renamed view of a report, OpenMetrics' base units, the run context
 * with the caller's keys, per-series summaries and comparison rows by
 * series (dispatch.c calls the writers).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ksftmetric/report.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "canon.h"
#include "comparison.h"
#include "errmsg.h"
#include "pipeline.h"
#include "report.h"
#include "rp.h"
#include "rp_export.h"
#include "rp_policy.h"
#include "series.h"
#include "strbuf.h"
#include "units.h"
#include "vals.h"

static int is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

void export_namify(struct strbuf *sb, const char *s)
{
	size_t start = sb->len;
	int in_run = 0;

	/* re.sub('[^0-9a-zA-Z]+', '-', s): one "-" per run. */
	for (; *s; s++) {
		if (is_alnum(*s)) {
			strbuf_addc(sb, *s);
			in_run = 0;
		} else if (!in_run) {
			strbuf_addc(sb, '-');
			in_run = 1;
		}
	}
	if (sb->len > start && sb->data[sb->len - 1] == '-')
		sb->len--;	/* namify() drops a trailing "-" */
	if (sb->len == start)
		strbuf_adds(sb, "no-name");
	if (sb->data)
		sb->data[sb->len] = '\0';
}

/* "selftests: T: P" (run_kselftest.sh's line): T and P, else 0. */
static int split_selftests(const char *s, const char **t, size_t *tlen,
			   const char **p)
{
	const char *sep;

	if (strncmp(s, "selftests: ", 11))
		return 0;
	s += 11;
	sep = strstr(s, ": ");
	if (!sep)
		return 0;
	*t = s;
	*tlen = (size_t)(sep - s);
	*p = sep + 2;
	return 1;
}

static char *namified(const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	export_namify(&sb, s);
	return strbuf_detach(&sb, NULL);
}

int export_nipa_names(char *const *path, size_t path_len, const char *case_name,
		      struct export_nipa_names *n)
{
	struct strbuf sb = STRBUF_INIT;
	const char *t, *p;
	size_t tlen, i, from = 0;

	memset(n, 0, sizeof(*n));
	if (path_len && split_selftests(path[0], &t, &tlen, &p)) {
		char *target = strndup(t, tlen);

		if (!target)
			return -ENOMEM;
		strbuf_adds(&sb, "selftests-");
		export_namify(&sb, target);
		free(target);
		n->group = strbuf_detach(&sb, NULL);
		n->test = namified(p);
		from = 1;
		if (!n->group || !n->test)
			goto oom;
	} else if (path_len) {
		n->test = namified(path[0]);
		from = 1;
		if (!n->test)
			goto oom;
	}
	/* Joined by a space: namify() turns the joints into single dashes. */
	for (i = from; i < path_len; i++) {
		strbuf_adds(&sb, path[i]);
		strbuf_addc(&sb, ' ');
	}
	strbuf_adds(&sb, case_name);
	if (sb.oom)
		goto oom;
	n->subtest = namified(sb.data);
	strbuf_free(&sb);
	if (!n->subtest)
		goto oom;
	return 0;
oom:
	strbuf_free(&sb);
	export_nipa_names_free(n);
	return -ENOMEM;
}

void export_nipa_names_free(struct export_nipa_names *n)
{
	free(n->group);
	free(n->test);
	free(n->subtest);
	memset(n, 0, sizeof(*n));
}

/* ---- the renamed view ----------------------------------------------- */

static char *view_keep(struct export_view *v, char *s)
{
	if (s)
		v->owned[v->n_owned++] = s;
	return s;
}

/* @k renamed (its path and name in NIPA's form), on @v's owned list. */
static const struct rp_case *view_case(struct export_view *v, const struct rp_case *k)
{
	const char *t, *p;
	size_t tlen, np = 0, j, len;
	struct rp_case *c;
	char **path, *name;

	/* Everything allocated goes on the owned list at once: an
	 * allocation failure half way frees what was made. */
	path = calloc(k->path_len + 2, sizeof(*path));
	if (!view_keep(v, (char *)path))
		return NULL;
	for (j = 0; j < k->path_len; j++) {
		if (!j && split_selftests(k->path[0], &t, &tlen, &p)) {
			struct export_nipa_names n;

			if (export_nipa_names(k->path, k->path_len, k->name, &n))
				return NULL;
			free(n.subtest);
			path[np++] = view_keep(v, n.group);
			path[np++] = view_keep(v, n.test);
			continue;
		}
		path[np++] = view_keep(v, namified(k->path[j]));
		if (!path[np - 1])
			return NULL;
	}
	name = namified(k->name);
	len = name ? strlen(name) : 0;
	c = name ? malloc(offsetof(struct rp_case, name) + len + 1) : NULL;
	if (!view_keep(v, (char *)c)) {
		free(name);
		return NULL;
	}
	memcpy(c, k, offsetof(struct rp_case, name));
	c->path = path;
	c->path_len = (uint32_t)np;
	c->pathed = 1;
	memcpy(c->name, name, len + 1);
	free(name);
	return c;
}

int export_view_nipa(const struct ksft_metric_report *r, struct export_view *v)
{
	size_t i, room = 0;

	memset(v, 0, sizeof(*v));
	v->rep = *r;
	for (i = 0; i < r->n_series; i++)	/* path array, names, case */
		room += series_path_len(r->series[i]) + 3;
	v->copies = calloc(r->n_series + 1, sizeof(*v->copies));
	v->rep.series = calloc(r->n_series + 1, sizeof(*v->rep.series));
	v->owned = calloc(room + 1, sizeof(*v->owned));
	if (!v->copies || !v->rep.series || !v->owned)
		goto oom;
	for (i = 0; i < r->n_series; i++) {
		const struct rp_series *s = r->series[i];
		struct rp_series *c = &v->copies[i];

		*c = *s;
		/* The series of a case share its renamed record as its own. */
		if (i && s->kase == r->series[i - 1]->kase)
			c->kase = v->copies[i - 1].kase;
		else if (!(c->kase = view_case(v, s->kase)))
			goto oom;
		v->rep.series[i] = c;
	}
	return 0;
oom:
	export_view_free(v);
	return -ENOMEM;
}

void export_view_free(struct export_view *v)
{
	size_t i;

	for (i = 0; i < v->n_owned; i++)
		free(v->owned[i]);
	free(v->owned);
	free(v->copies);
	free(v->rep.series);
	memset(v, 0, sizeof(*v));
}

/* ---- units ----------------------------------------------------------- */

/*
 * OpenMetrics' base unit of a series, or NULL: only its two base units,
 * and only where the label describes the number written (no
 * aggregation, no display_scale other than 1).
 */
const char *export_om_unit(const struct rp_policy *p)
{
	static const struct {
		const char *label, *om;
	} base[] = {
		{ "s", "seconds" }, { "seconds", "seconds" },
		{ "B", "bytes" }, { "bytes", "bytes" },
	};
	struct rp_display d;
	const char *word;
	size_t i, len;

	units_display_of(p, &d);
	if (!d.unit || p->aggregation || d.scale != 1.0)
		return NULL;
	word = units_word(d.unit, &len);
	for (i = 0; i < sizeof(base) / sizeof(base[0]); i++)
		if (strlen(base[i].label) == len && !strncmp(base[i].label, word, len))
			return base[i].om;
	return NULL;
}

/* ---- summaries -------------------------------------------------------- */

size_t export_shown_ops(const struct rp_policy *p, size_t processed, int *ops)
{
	if (p->summarize != RP_OP_DISTRIBUTION) {
		ops[0] = p->summarize;
		return 1;
	}
	if (processed == 1) {
		ops[0] = RP_OP_LAST;
		return 1;
	}
	ops[0] = RP_OP_P50;
	ops[1] = RP_OP_P90;
	ops[2] = RP_OP_P99;
	ops[3] = RP_OP_MAX;
	return 4;
}

void export_sums_free(struct export_sums *m)
{
	vals_free(&m->pv);
	free(m->sums);
	m->sums = NULL;
}

int export_sums_init(struct export_sums *m, const struct rp_series *s)
{
	struct rp_vals view;
	struct rp_cols c;
	size_t e, n;

	memset(m, 0, sizeof(*m));
	m->p = series_policy(s, &m->scratch);
	if (pipeline_apply(series_raw(s, &view), m->p, KSFT_METRIC_REPORT_PROCESSED, &m->pv))
		return -ENOMEM;
	m->width = vals_is_array(&m->pv) ? m->pv.width : 0;
	m->nops = export_shown_ops(m->p, m->pv.n, m->ops);
	/* The gate's choice (compare.c): its op, else one summary, else p50. */
	if (m->p->compare)
		m->compare = m->p->compare;
	else if (m->p->summarize >= RP_OP_LAST && m->p->summarize <= RP_OP_P99)
		m->compare = m->p->summarize;
	else
		m->compare = RP_OP_P50;
	n = m->width ? m->width : 1;
	m->sums = calloc(n, sizeof(*m->sums));
	if (!m->sums)
		goto oom;
	for (e = 0; e < n; e++)
		pipeline_summarize_values(NULL, 0, &m->sums[e]);
	if (pipeline_cols_build(&m->pv, &c))
		goto oom;
	pipeline_cols_summarize(&c, m->sums);
	pipeline_cols_free(&c);
	return 0;
oom:
	export_sums_free(m);
	return -ENOMEM;
}

void export_sums_json(struct strbuf *sb, const struct export_sums *m, size_t e)
{
	size_t k;

	if (!m->sums[e].n) {
		strbuf_adds(sb, "null");
		return;
	}
	strbuf_addc(sb, '{');
	for (k = 0; k < m->nops; k++) {
		if (k)
			strbuf_addc(sb, ',');
		strbuf_addc(sb, '"');
		strbuf_adds(sb, canon_op_name(m->ops[k]));
		strbuf_adds(sb, "\":");
		canon_json_double(sb, pipeline_summary_op(&m->sums[e], m->ops[k]));
	}
	strbuf_addc(sb, '}');
}

void export_sums_json_all(struct strbuf *sb, const struct export_sums *m)
{
	size_t e;

	if (!m->pv.n) {
		strbuf_adds(sb, "null");
	} else if (!m->width) {
		export_sums_json(sb, m, 0);
	} else {
		strbuf_addc(sb, '[');
		for (e = 0; e < m->width; e++) {
			if (e)
				strbuf_addc(sb, ',');
			export_sums_json(sb, m, e);
		}
		strbuf_addc(sb, ']');
	}
}

/* ---- comparison rows by series ---------------------------------------- */

static const struct export_rowix *sort_ix;

static int by_key(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(sort_ix->keys[x], sort_ix->keys[y]);

	return c ? c : (x > y) - (x < y);
}

int export_rowix_build(const struct ksft_metric_report_comparison *c,
		       struct export_rowix *ix)
{
	size_t i;

	memset(ix, 0, sizeof(*ix));
	ix->c = c;
	ix->keys = calloc(c->n + 1, sizeof(*ix->keys));
	ix->order = calloc(c->n + 1, sizeof(*ix->order));
	if (!ix->keys || !ix->order)
		goto oom;
	for (i = 0; i < c->n; i++) {
		struct cmp_row tmp;
		const struct cmp_row *row = cmp_row_at(c, i, &tmp);

		ix->keys[i] = series_make_key(cmp_row_path(row), cmp_row_path_len(row), cmp_row_case(row),
					      cmp_row_name(row), cmp_row_labels(row));
		if (!ix->keys[i])
			goto oom;
		ix->order[i] = i;
	}
	/* Stable within a key (ties by index): elements stay in order. */
	sort_ix = ix;
	qsort(ix->order, c->n, sizeof(*ix->order), by_key);
	sort_ix = NULL;
	return 0;
oom:
	export_rowix_free(ix);
	return -ENOMEM;
}

void export_rowix_free(struct export_rowix *ix)
{
	size_t i;

	for (i = 0; ix->keys && ix->c && i < ix->c->n; i++)
		free(ix->keys[i]);
	free(ix->keys);
	free(ix->order);
	memset(ix, 0, sizeof(*ix));
}

size_t export_rowix_find(const struct export_rowix *ix, const char *key, size_t *first)
{
	size_t lo = 0, hi = ix->c ? ix->c->n : 0, n = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(ix->keys[ix->order[mid]], key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	while (lo + n < (ix->c ? ix->c->n : 0) &&
	       !strcmp(ix->keys[ix->order[lo + n]], key))
		n++;
	return n;
}

void export_row_json(struct strbuf *sb, const struct cmp_row *row)
{
	char buf[64];
	const char *better = canon_better_name(row->better);

	strbuf_adds(sb, "{\"element\":");
	if (row->element >= 0) {
		snprintf(buf, sizeof(buf), "%ld", (long)row->element);
		strbuf_adds(sb, buf);
	} else {
		strbuf_adds(sb, "null");
	}
	/* A missing series of the history has no compare op (null). */
	strbuf_adds(sb, ",\"compare\":");
	if (canon_op_name(row->compare)) {
		strbuf_addc(sb, '"');
		strbuf_adds(sb, canon_op_name(row->compare));
		strbuf_addc(sb, '"');
	} else {
		strbuf_adds(sb, "null");
	}
	strbuf_adds(sb, ",\"better\":");
	if (better) {
		strbuf_addc(sb, '"');
		strbuf_adds(sb, better);
		strbuf_addc(sb, '"');
	} else {
		strbuf_adds(sb, "null");
	}
	strbuf_adds(sb, ",\"baseline\":");
	canon_json_double(sb, row->baseline);
	strbuf_adds(sb, ",\"current\":");
	canon_json_double(sb, row->current);
	strbuf_adds(sb, ",\"change_pct\":");
	canon_json_double(sb, row->change_pct);
	strbuf_adds(sb, ",\"p_value\":");
	canon_json_double(sb, row->p_value);
	snprintf(buf, sizeof(buf), ",\"baseline_runs\":%zu,\"verdict\":\"",
		 (size_t)row->baseline_runs);
	strbuf_adds(sb, buf);
	strbuf_adds(sb, row->verdict);
	strbuf_adds(sb, row->fails ? "\",\"fails\":true}" : "\",\"fails\":false}");
}
