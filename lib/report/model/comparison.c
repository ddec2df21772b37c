/*
 * The comparison table (comparison.h): its rows, made by the judges
 * (judge/compare.c against baseline files, judge/history_gate.c against
 * the history), read back through the public calls and freed by
 * comparison_free() (the public free is judge/compare.c's: it lets go of
 * the report the rows point at); and the spread of the values behind a
 * row's baseline or current, which judge/compare.c and
 * judge/compare_seeds.c both fill.
 */
#include <errno.h>
#include <ksftmetric/report.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "canon.h"
#include "comparison.h"
#include "errmsg.h"
#include "grow.h"
#include "order_stats.h"
#include "rel_change.h"
#include "report.h"
#include "strpool.h"

int compare_rows_compact_off;

int compare_rows_reserve(struct ksft_metric_report_comparison *c, size_t n)
{
	struct cmp_row *v;
	struct cmp_crow *w;

	if (c->compact && !compare_rows_compact_off) {
		if (n <= c->ccap)
			return 0;
		w = realloc(c->crows, n * sizeof(*w));
		if (!w)
			return -ENOMEM;
		c->crows = w;
		c->ccap = n;
		return 0;
	}
	if (n <= c->cap)
		return 0;
	v = realloc(c->rows, n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	c->rows = v;
	c->cap = n;
	return 0;
}

/* The index of @p in @tab (@n of them, at most CMP_CODES), added when new;
 * -1: the table is full. */
static int code_of(const void **tab, unsigned *n, const void *p)
{
	unsigned k;

	for (k = 0; k < *n; k++)
		if (tab[k] == p)
			return (int)k;
	if (*n == CMP_CODES)
		return -1;
	tab[*n] = p;
	return (int)(*n)++;
}

static inline void row_expand(const struct ksft_metric_report_comparison *c,
			      const struct cmp_crow *cr, struct cmp_row *row)
{
	/* Every field set (no memset: a reader's cost a row); row_compact()
	 * zeroes the padding it compares. */
	row->who.s = c->held->series[cr->at];
	row->baseline = cr->baseline;
	row->current = cr->current;
	row->change_pct = rel_change(cr->current, cr->baseline) * 100.0;
	row->allowance = row->p_value = NAN;
	row->verdict = c->verdicts[cr->codes >> 4];
	row->n_baseline = row->baseline_runs = !!(cr->flags & CROW_ONE_BASE);
	row->n_current = !!(cr->flags & CROW_ONE_CUR);
	/* compare_row_spread_of()'s one value, or none */
	row->spread_kind[CMP_BASE] = row->n_baseline && isfinite(cr->baseline) ?
				     CMP_SPREAD_ONE : CMP_SPREAD_NONE;
	row->spread[CMP_BASE].one = row->spread_kind[CMP_BASE] ? cr->baseline :
				    cr->flags & CROW_UNMEASURED ? 0 : NAN;
	row->spread_kind[CMP_CUR] = row->n_current && isfinite(cr->current) ?
				    CMP_SPREAD_ONE : CMP_SPREAD_NONE;
	row->spread[CMP_CUR].one = row->spread_kind[CMP_CUR] ? cr->current :
				   cr->flags & CROW_UNMEASURED ? 0 : NAN;
	row->disp = c->disps[cr->codes & 15];
	row->side = NULL;
	row->element = -1;
	row->series = -1;
	row->compare = cr->compare;
	row->better = cr->better;
	row->fails = !!(cr->flags & CROW_FAILS);
	row->beyond_floor = !!(cr->flags & CROW_BEYOND_FLOOR);
	row->has_current = !!(cr->flags & CROW_HAS_CURRENT);
	row->aggregated = !!(cr->flags & CROW_AGGREGATED);
	row->blind = 0;
	row->held_series = 1;
}

void compare_row_expand(const struct ksft_metric_report_comparison *c,
			const struct cmp_crow *cr, struct cmp_row *row)
{
	row_expand(c, cr, row);
}

/* Side @side of @row holds no value, its slot 0 bits (not NaN: never measured). */
static int slot_unmeasured(const struct cmp_row *row, int side)
{
	static const union cmp_spread_slot zero;

	return row->spread_kind[side] == CMP_SPREAD_NONE &&
	       !memcmp(&row->spread[side], &zero, sizeof(zero));
}

/* @row as a compact row into @cr, if it is one: 0, or -1 (kept whole).
 * Finding its series moves c->series_hint on, whether it fits or not. */
static int row_compact(struct ksft_metric_report_comparison *c, const struct cmp_row *row,
		       struct cmp_crow *cr)
{
	const struct ksft_metric_report *r = c->held;
	struct cmp_row back;
	size_t at = c->series_hint;
	int v, d;

	if (!row->held_series || !r)
		return -1;
	/* Rows come in their series' order: this one's is at the last row's
	 * or just after it (a few on: a series may have no row). */
	while (at < r->n_series && at < c->series_hint + 8 && r->series[at] != row->who.s)
		at++;
	if (at >= r->n_series || r->series[at] != row->who.s ||
	    (unsigned long long)at > UINT32_MAX)
		return -1;
	c->series_hint = at;
	v = code_of(c->verdicts, &c->n_verdicts, row->verdict);
	d = code_of(c->disps, &c->n_disps, row->disp);
	if (v < 0 || d < 0)
		return -1;
	cr->at = (uint32_t)at;
	cr->codes = (unsigned char)(v << 4 | d);
	cr->compare = row->compare;
	cr->better = row->better;
	cr->flags = (row->fails ? CROW_FAILS : 0) |
		    (row->beyond_floor ? CROW_BEYOND_FLOOR : 0) |
		    (row->has_current ? CROW_HAS_CURRENT : 0) |
		    (row->aggregated ? CROW_AGGREGATED : 0) |
		    (slot_unmeasured(row, CMP_BASE) || slot_unmeasured(row, CMP_CUR) ?
		     CROW_UNMEASURED : 0) |
		    (row->n_baseline ? CROW_ONE_BASE : 0) |
		    (row->n_current ? CROW_ONE_CUR : 0);
	cr->baseline = row->baseline;
	cr->current = row->current;
	/* Lossless by construction: only what expands to the row itself,
	 * bit for bit (NaNs, padding and all). */
	memset(&back, 0, sizeof(back));
	row_expand(c, cr, &back);
	return memcmp(&back, row, sizeof(back)) ? -1 : 0;
}

void compare_rows_seal(struct ksft_metric_report_comparison *c)
{
	size_t i = c->pending - 1;
	struct cmp_crow cr;

	if (!c->pending)
		return;
	c->pending = 0;
	if (i >= c->n) {	/* made, never counted (out of memory) */
		c->n_full--;
		return;
	}
	if (row_compact(c, &c->rows[c->n_full - 1], &cr))
		return;
	c->crows[i] = cr;
	c->n_full--;	/* no side record, no spread block: nothing to free */
}

/* A new row at the end, zeroed but for the numbers (NaN); NULL: out of
 * memory. The caller counts it (c->n++) once it holds its identity. */
static struct cmp_row *row_append(struct ksft_metric_report_comparison *c)
{
	struct cmp_row *row;

	if (c->compact && !compare_rows_compact_off) {
		compare_rows_seal(c);
		if ((c->n == c->ccap &&
		     ksftm_grow((void **)&c->crows, &c->ccap, c->n + 1, sizeof(*c->crows), 64)) ||
		    (c->n_full == c->cap &&
		     ksftm_grow((void **)&c->rows, &c->cap, c->n_full + 1, sizeof(*c->rows), 64)))
			return NULL;
		c->crows[c->n].at = (uint32_t)c->n_full;
		c->crows[c->n].flags = CROW_FULL;
		row = &c->rows[c->n_full++];
		c->pending = c->n + 1;
	} else {
		if (c->n == c->cap &&
		    ksftm_grow((void **)&c->rows, &c->cap, c->n + 1, sizeof(*c->rows), 64))
			return NULL;
		row = &c->rows[c->n];
	}
	memset(row, 0, sizeof(*row));
	row->series = -1;
	row->baseline = row->current = row->change_pct = NAN;
	row->allowance = row->p_value = NAN;
	return row;
}

struct cmp_row *compare_row_new_held(struct ksft_metric_report_comparison *c,
				     const struct rp_series *s, long element)
{
	struct cmp_row *row = row_append(c);

	if (!row)
		return NULL;
	c->n++;
	row->who.s = s;
	row->held_series = 1;
	row->element = (int)element;
	return row;
}

struct cmp_row *compare_row_new(struct ksft_metric_report_comparison *c,
				char *const *path, size_t path_len,
				const char *case_name, const char *name,
				const char *labels, long element)
{
	const struct cmp_ident *prev = NULL;
	struct cmp_ident id, *d;
	struct cmp_row *row;
	size_t k;

	if (!c->pool && !(c->pool = strpool_new()))
		return NULL;
	if (!(row = row_append(c)))
		return NULL;
	/* Identity strings are the comparison's pool's; a test's rows share
	 * a path, a case's rows follow each other (its name once, never
	 * interned: mostly unique, strpool_copy()). */
	memset(&id, 0, sizeof(id));
	for (k = 1; k <= 2 && k <= c->n; k++) {
		struct cmp_row tmp;
		const struct cmp_row *r = cmp_row_at(c, c->n - k, &tmp);

		if (r->held_series)
			continue;
		if (k == 1)
			prev = r->who.id;
		if (!id.path && r->who.id->path_len == path_len)
			id.path = strpool_path(c->pool, path, path_len, r->who.id->path,
					       r->who.id->path_len);
		if (!id.case_name && !strcmp(r->who.id->case_name, case_name))
			id.case_name = r->who.id->case_name;
		/* A case's rows repeat a few names and labels: the rows
		 * before hold the pool's copy often, found by a strcmp(). */
		if (!id.name && !strcmp(r->who.id->name, name))
			id.name = r->who.id->name;
		if (!id.labels && !strcmp(r->who.id->labels, labels))
			id.labels = r->who.id->labels;
	}
	if (!id.path)
		id.path = strpool_path(c->pool, path, path_len, NULL, 0);
	if (!id.case_name)
		id.case_name = (char *)strpool_copy(c->pool, case_name, strlen(case_name));
	if (!id.name)
		id.name = (char *)strpool_intern(c->pool, name, strlen(name));
	if (!id.labels)
		id.labels = (char *)strpool_intern(c->pool, labels, strlen(labels));
	if (!id.path || !id.case_name || !id.name || !id.labels)
		return NULL;
	id.path_len = path_len;
	/* The elements of an array: one identity. */
	if (prev && prev->path == id.path && prev->path_len == id.path_len &&
	    prev->case_name == id.case_name && prev->name == id.name &&
	    prev->labels == id.labels) {
		row->who.id = prev;
	} else {
		d = strpool_alloc(c->pool, sizeof(*d));
		if (!d)
			return NULL;
		*d = id;
		row->who.id = d;
	}
	c->n++;		/* from here on freed with the comparison */
	row->element = (int)element;
	return row;
}

const struct cmp_display *compare_display(struct ksft_metric_report_comparison *c,
					  double scale, const char *label, int *err)
{
	struct cmp_display *d;

	*err = 0;
	if (isnan(scale) && !label)
		return NULL;
	/* A handful of displays in a run: the first one's is the common case. */
	for (d = c->displays; d; d = d->next)
		if (!memcmp(&d->scale, &scale, sizeof(scale)) &&	/* -0, NaN: as they are */
		    (label ? d->label && !strcmp(d->label, label) : !d->label))
			return d;
	d = calloc(1, sizeof(*d));
	if (!d || (label && !(d->label = strdup(label)))) {
		free(d);
		*err = -ENOMEM;
		return NULL;
	}
	d->scale = scale;
	d->next = c->displays;
	c->displays = d;
	return d;
}

const struct cmp_side cmp_side_none = {
	.noise_pct = NAN, .smallest_pct = NAN, .need_runs = NAN, .need_repeats = NAN,
	.disturbed_by = -1, .disturb_z = NAN,
	.shift_lo_pct = NAN, .shift_hi_pct = NAN, .seeds_resolution_pct = NAN,
};

struct cmp_side *cmp_side_get(struct cmp_row *row)
{
	if (!row->side && (row->side = malloc(sizeof(*row->side))))
		*row->side = cmp_side_none;
	return row->side;
}

void comparison_free(struct ksft_metric_report_comparison *c)
{
	size_t i;

	if (!c)
		return;
	/* The whole rows (a compact one holds nothing to free). */
	for (i = 0; i < (c->crows ? c->n_full : c->n); i++) {
		struct cmp_row *row = &c->rows[i];

		free(row->side);	/* the rest: the pool's */
		if (row->spread_kind[CMP_BASE] == CMP_SPREAD_MANY)
			free(row->spread[CMP_BASE].many);
		if (row->spread_kind[CMP_CUR] == CMP_SPREAD_MANY)
			free(row->spread[CMP_CUR].many);
	}
	while (c->displays) {
		struct cmp_display *d = c->displays;

		c->displays = d->next;
		free(d->label);
		free(d);
	}
	free(c->rows);
	free(c->crows);
	free(c->context_diff);
	free(c->context_a);
	free(c->context_b);
	strpool_free(c->pool);
	free(c);
}

KSFT_METRIC_REPORT_API size_t
ksft_metric_report_comparison_rows(const struct ksft_metric_report_comparison *c)
{
	return c ? c->n : 0;
}

KSFT_METRIC_REPORT_API int
ksft_metric_report_comparison_row(const struct ksft_metric_report_comparison *c,
				  size_t i, struct ksft_metric_report_row *dst)
{
	struct ksft_metric_report_row full, *out = &full;
	struct cmp_row tmp;
	const struct cmp_row *row;
	size_t sz;

	if (!c || !dst || dst->sz < sizeof(size_t))
		return ksftm_fail(EINVAL, "NULL comparison or row, or row.sz not set");
	if (i >= c->n)
		return ksftm_fail(ERANGE, "row %zu out of range (%zu rows)", i, c->n);
	/* An older caller's smaller struct gets the fields it knows. */
	sz = dst->sz < sizeof(full) ? dst->sz : sizeof(full);
	row = cmp_row_at(c, i, &tmp);
	out->case_name = cmp_row_case(row);
	out->path = (const char *const *)cmp_row_path(row);
	out->path_len = cmp_row_path_len(row);
	out->name = cmp_row_name(row);
	out->labels_json = cmp_row_labels(row);
	out->element = row->element;
	out->compare = canon_op_name(row->compare);
	out->better = canon_better_name(row->better);
	out->baseline = row->baseline;
	out->current = row->current;
	out->change_pct = row->change_pct;
	out->allowance = row->allowance;
	out->p_value = row->p_value;
	out->n_baseline = row->n_baseline;
	out->n_current = row->n_current;
	out->baseline_runs = row->baseline_runs;
	out->verdict = row->verdict;
	out->fails = row->fails;
	out->display_scale = cmp_row_disp_scale(row);
	out->display_label = cmp_row_disp_label(row);
	memcpy((char *)dst + sizeof(size_t), (char *)&full + sizeof(size_t),
	       sz - sizeof(size_t));
	return 0;
}

KSFT_METRIC_REPORT_API const char *
ksft_metric_report_comparison_context_diff(const struct ksft_metric_report_comparison *c)
{
	return c ? c->context_diff : NULL;
}

int compare_spread_of(struct cmp_spread *s, const double *x, size_t n, size_t stride)
{
	size_t i, m = 0;
	double few[64], *v, *dev;

	memset(s, 0, sizeof(*s));
	s->lo = s->hi = s->mid = s->sd = NAN;
	if (!n)
		return 0;
	/* the values, then their deviations; most rows: a few, no malloc */
	v = n <= 32 ? few : malloc(2 * n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	dev = v + n;
	for (i = 0; i < n; i++)		/* a value that is not a number is no point */
		if (isfinite(x[i * stride]))
			v[m++] = x[i * stride];
	if (m) {
		s->mid = ksftm_median(v, m);	/* sorts */
		s->n = m;
		s->lo = v[0];
		s->hi = v[m - 1];
		for (i = 0; i < m; i++)
			dev[i] = fabs(v[i] - s->mid);
		s->sd = 1.4826 * ksftm_median(dev, m);
	}
	if (v != few)
		free(v);
	return 0;
}

int compare_spread_at(struct cmp_spread *s, const struct ksft_metric_report_values *v, long e)
{
	size_t k = e < 0 ? 0 : (size_t)e;

	if (!v->n || k >= v->width)
		return compare_spread_of(s, NULL, 0, 1);
	return compare_spread_of(s, v->v + k, v->n, v->width);
}

/*
 * Kept as what it is: no value (n 0), one (lo = hi = mid, sd 0: the
 * value is all there is to keep) or several (their own block).
 */
static int row_spread_keep(struct cmp_row *row, int side, const struct cmp_spread *s)
{
	struct cmp_spread *many = NULL;

	if (s->n > 1) {
		many = row->spread_kind[side] == CMP_SPREAD_MANY ? row->spread[side].many :
		       malloc(sizeof(*many));
		if (!many)
			return -ENOMEM;
		*many = *s;
		row->spread[side].many = many;
		row->spread_kind[side] = CMP_SPREAD_MANY;
		return 0;
	}
	if (row->spread_kind[side] == CMP_SPREAD_MANY)
		free(row->spread[side].many);
	row->spread[side].one = s->n ? s->mid : NAN;
	row->spread_kind[side] = s->n ? CMP_SPREAD_ONE : CMP_SPREAD_NONE;
	return 0;
}

int compare_row_spread_of(struct cmp_row *row, int side, const double *x, size_t n,
			  size_t stride)
{
	struct cmp_spread s;

	if (n <= 1 && row->spread_kind[side] != CMP_SPREAD_MANY) {
		/* Most rows: no value or one, kept as compare_spread_of()
		 * would find it (a value that is not a number: none). */
		row->spread_kind[side] = n && isfinite(x[0]) ? CMP_SPREAD_ONE : CMP_SPREAD_NONE;
		row->spread[side].one = n && isfinite(x[0]) ? x[0] : NAN;
		return 0;
	}
	if (compare_spread_of(&s, x, n, stride))
		return -ENOMEM;
	return row_spread_keep(row, side, &s);
}

int compare_row_spread_at(struct cmp_row *row, int side,
			  const struct ksft_metric_report_values *v, long e)
{
	struct cmp_spread s;

	if (compare_spread_at(&s, v, e))
		return -ENOMEM;
	return row_spread_keep(row, side, &s);
}

void compare_row_spread(const struct cmp_row *row, int side, struct cmp_spread *s)
{
	switch (row->spread_kind[side]) {
	case CMP_SPREAD_MANY:
		*s = *row->spread[side].many;
		return;
	case CMP_SPREAD_ONE:
		s->n = 1;
		s->lo = s->hi = s->mid = row->spread[side].one;
		s->sd = 0;	/* 1.4826 times a deviation of 0 */
		return;
	default:
		memset(s, 0, sizeof(*s));
		s->lo = s->hi = s->mid = s->sd = NAN;
	}
}
