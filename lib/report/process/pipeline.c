/*
 * The processing pipeline, in the order the policy docstring defines:
 * transform (rate), then aggregation (busy-core-equivalents), then the
 * summaries (last, total, max, p50/p90/p99 with numpy's default linear
 * interpolation). Missing entries are NaN throughout.
 */
#include <errno.h>
#include <ksftmetric/report.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "order_stats.h"
#include "pipeline.h"
#include "rp.h"
#include "rp_policy.h"
#include "vals.h"

_Thread_local unsigned long long pipeline_work;


/* Output builder: points are appended, arrays or scalars. */
struct builder {
	struct rp_vals out;
	size_t cap_pts, cap_v, cap_off;
	int is_array;
	int oom;
};

/* 0, or -ENOMEM (no message). */
static int b_init(struct builder *b, int is_array)
{
	int ret;

	memset(b, 0, sizeof(*b));
	b->is_array = is_array;
	b->out.width = is_array ? 0 : 1;
	if (is_array) {
		if ((ret = ksftm_grow((void **)&b->out.off, &b->cap_off, 1, sizeof(size_t), 16)))
			return ret;
		b->out.off[0] = 0;
	}
	return 0;
}

/*
 * Append a point and return where its value(s) go: one double for a
 * scalar, @n for an array. NULL once an allocation failed.
 */
static double *b_point(struct builder *b, double t, size_t n)
{
	struct rp_vals *o = &b->out;
	size_t nv = b->is_array ? o->off[o->n] + n : o->n + 1;
	double *dst;

	if (b->oom)
		return NULL;
	if (ksftm_grow((void **)&o->t, &b->cap_pts, o->n + 1, sizeof(double), 16) ||
	    ksftm_grow((void **)&o->v, &b->cap_v, nv ? nv : 1, sizeof(double), 16) ||
	    (b->is_array &&
	     ksftm_grow((void **)&o->off, &b->cap_off, o->n + 2, sizeof(size_t), 16))) {
		b->oom = 1;
		return NULL;
	}
	o->t[o->n] = t;
	if (b->is_array) {
		dst = o->v + o->off[o->n];
		o->off[o->n + 1] = nv;
		if (n > o->width)
			o->width = n;
	} else {
		dst = o->v + o->n;
	}
	o->n++;
	return dst;
}

static int b_finish(struct builder *b, struct rp_vals *out)
{
	if (b->oom) {
		vals_free(&b->out);
		return -ENOMEM;
	}
	*out = b->out;
	return 0;
}

static int rate(const struct rp_vals *in, struct builder *b)
{
	size_t i, j;

	for (i = 1; i < in->n; i++) {
		double dt = in->t[i] - in->t[i - 1];

		if (!(dt > 0))
			continue;	/* also NaN: a point without time */
		if (!in->off) {
			double d = in->v[i] - in->v[i - 1];
			double *dst;

			if (!(d >= 0))
				continue;	/* decreased, or null */
			dst = b_point(b, in->t[i], 1);
			if (dst)
				*dst = d / dt;
		} else {
			size_t w = vals_len(in, i), wp = vals_len(in, i - 1);
			size_t n = w > wp ? w : wp;
			double *dst = b_point(b, in->t[i], n);

			if (!dst)
				continue;
			for (j = 0; j < n; j++) {
				double d = vals_at(in, i, j) - vals_at(in, i - 1, j);

				dst[j] = d >= 0 ? d / dt : NAN;
			}
		}
	}
	return 0;
}

static void busy_cores(const struct rp_vals *in, int transformed,
		       struct builder *b)
{
	size_t i, j;

	for (i = 0; i < in->n; i++) {
		size_t n = vals_len(in, i), seen = 0;
		double sum = 0, *dst;

		for (j = 0; j < n; j++) {
			double x = vals_at(in, i, j);

			if (!isnan(x)) {
				sum += x;
				seen++;
			}
		}
		if (!seen)
			continue;
		dst = b_point(b, in->t[i], 1);
		if (dst)
			*dst = transformed ? sum : sum / 100.0;
	}
}

static int copy_vals(const struct rp_vals *in, struct builder *b)
{
	size_t i;

	for (i = 0; i < in->n; i++) {
		size_t n = vals_len(in, i);
		double *dst = b_point(b, in->t[i], n);

		if (dst)
			memcpy(dst, in->off ? in->v + in->off[i] : in->v + i,
			       n * sizeof(double));
	}
	return 0;
}

int pipeline_apply(const struct rp_vals *raw, const struct rp_policy *pol,
		   int stage, struct rp_vals *out)
{
	struct builder b;
	struct rp_vals mid;
	int ret, transformed = stage >= KSFT_METRIC_REPORT_TRANSFORMED &&
			       pol && pol->transform == RP_TR_RATE;

	memset(out, 0, sizeof(*out));
	if (b_init(&b, vals_is_array(raw)))
		return -ENOMEM;
	if (transformed)
		rate(raw, &b);
	else
		copy_vals(raw, &b);
	ret = b_finish(&b, &mid);
	if (ret)
		return ret;
	if (stage < KSFT_METRIC_REPORT_PROCESSED || !pol ||
	    pol->aggregation != RP_AGG_BCE) {
		*out = mid;
		return 0;
	}
	if (b_init(&b, 0)) {
		vals_free(&mid);
		return -ENOMEM;
	}
	busy_cores(&mid, transformed, &b);
	vals_free(&mid);
	return b_finish(&b, out);
}

size_t pipeline_element_values(const struct rp_vals *pv, size_t elem, double *out)
{
	size_t i, n = 0;

	pipeline_work += pv->n;

	for (i = 0; i < pv->n; i++) {
		double x = pv->off ? vals_at(pv, i, elem) : pv->v[i];

		if (!isnan(x))
			out[n++] = x;
	}
	return n;
}

/* Summaries of @n finite values in point order; @x is sorted on return. */
void pipeline_summarize_values(double *x, size_t n, struct rp_summary *s)
{
	size_t i;

	s->n = n;
	s->last = n ? x[n - 1] : NAN;
	s->total = n ? 0 : NAN;
	s->max = NAN;
	for (i = 0; i < n; i++) {
		s->total += x[i];
		if (isnan(s->max) || x[i] > s->max)
			s->max = x[i];
	}
	ksftm_sort_doubles(x, n);
	s->p50 = ksftm_quantile_sorted(x, n, 0.5);
	s->p90 = ksftm_quantile_sorted(x, n, 0.9);
	s->p99 = ksftm_quantile_sorted(x, n, 0.99);
}

int pipeline_summarize(const struct rp_vals *pv, size_t elem, struct rp_summary *s)
{
	double few[32];		/* most series: no malloc */
	double *x = pv->n <= 32 ? few : malloc(pv->n * sizeof(double));

	if (!x)
		return -ENOMEM;
	pipeline_summarize_values(x, pipeline_element_values(pv, elem, x), s);
	if (x != few)
		free(x);
	return 0;
}

/*
 * The finite values of every element at once, grouped by element (a
 * counting sort over the stored entries): O(entries + width). Going
 * element by element over all points would cost points x widest array,
 * quadratic when one point is much wider than the rest.
 */
int pipeline_cols_build(const struct rp_vals *pv, struct rp_cols *c)
{
	size_t w = pv->off ? pv->width : 1, i, j, n = 0;
	size_t *fill;

	memset(c, 0, sizeof(*c));
	pipeline_work += w + 2 * (pv->off ? pv->off[pv->n] : pv->n);
	c->width = w;
	c->start = calloc(w + 2, sizeof(size_t));
	if (!c->start)
		return -ENOMEM;
	for (i = 0; i < pv->n; i++)
		for (j = 0; j < vals_len(pv, i); j++)
			if (!isnan(pv->v[pv->off ? pv->off[i] + j : i])) {
				c->start[j + 2]++;
				n++;
			}
	for (j = 0; j < w; j++)
		c->start[j + 2] += c->start[j + 1];
	c->x = malloc((n ? n : 1) * sizeof(double));
	if (!c->x) {
		pipeline_cols_free(c);
		return -ENOMEM;
	}
	fill = c->start + 1;	/* ends as the start of the next element */
	for (i = 0; i < pv->n; i++)
		for (j = 0; j < vals_len(pv, i); j++) {
			double x = pv->v[pv->off ? pv->off[i] + j : i];

			if (!isnan(x))
				c->x[fill[j]++] = x;
		}
	return 0;
}

int pipeline_pooled(const struct rp_vals *raw, const struct rp_policy *pol,
		    double **buf, size_t *cap, size_t *n)
{
	struct rp_vals pv;
	struct rp_cols c;
	size_t i, k = 0;
	int ret;

	*n = 0;
	if (!raw->off && (!pol || (pol->transform != RP_TR_RATE &&
				   pol->aggregation != RP_AGG_BCE))) {
		pipeline_work += 1 + 2 * raw->n;	/* as pipeline_cols_build() */
		if (ksftm_grow((void **)buf, cap, raw->n ? raw->n : 1, sizeof(double), 16))
			return -ENOMEM;
		for (i = 0; i < raw->n; i++)
			if (!isnan(raw->v[i]))
				(*buf)[k++] = raw->v[i];
		*n = k;
		return 0;
	}
	if (pipeline_apply(raw, pol, KSFT_METRIC_REPORT_PROCESSED, &pv))
		return -ENOMEM;
	ret = pipeline_cols_build(&pv, &c);
	vals_free(&pv);
	if (ret)
		return ret;
	k = c.start[c.width];
	if (!ksftm_grow((void **)buf, cap, k ? k : 1, sizeof(double), 16))
		memcpy(*buf, c.x, k * sizeof(double));
	else
		ret = -ENOMEM;
	pipeline_cols_free(&c);
	*n = ret ? 0 : k;
	return ret;
}

void pipeline_cols_free(struct rp_cols *c)
{
	free(c->start);
	free(c->x);
	memset(c, 0, sizeof(*c));
}

size_t pipeline_cols_get(const struct rp_cols *c, size_t e, double **x)
{
	if (e >= c->width) {
		*x = c->x;
		return 0;
	}
	*x = c->x + c->start[e];
	return c->start[e + 1] - c->start[e];
}

/* Summaries of every element; @s has room for c->width. Sorts @c's values. */
void pipeline_cols_summarize(struct rp_cols *c, struct rp_summary *s)
{
	size_t e;

	for (e = 0; e < c->width; e++) {
		double *x;
		size_t n = pipeline_cols_get(c, e, &x);

		pipeline_summarize_values(x, n, &s[e]);
	}
}

double pipeline_summary_op(const struct rp_summary *s, int op)
{
	switch (op) {
	case RP_OP_LAST: return s->last;
	case RP_OP_TOTAL: return s->total;
	case RP_OP_MAX: return s->max;
	case RP_OP_P50: return s->p50;
	case RP_OP_P90: return s->p90;
	case RP_OP_P99: return s->p99;
	default: return NAN;
	}
}
