/*
 * A metric point read from an input joins its series: the series of one
 * tree node, metric name and labels is found or made (rp_input.h), and the
 * point's values (collected with point_push_val()) are added to it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "canon.h"
#include "point.h"
#include "report.h"
#include "rp_input.h"
#include "series.h"
#include "strpool.h"
#include "tree.h"
#include "warn.h"

/* The metric record of @m's name, its labels and its shape as text
 * (controls replaced). */
static const struct rp_metric *metric_of(struct rp_input *in, const struct mline *m,
					 uint64_t hn, const char *labels, size_t llen, uint64_t hl)
{
	const struct rp_metric *met;
	char *clean;
	size_t i;

	for (i = 0; i < m->shape_len; i++)
		if ((unsigned char)m->shape[i] < 0x20 || (unsigned char)m->shape[i] >= 0x7f)
			break;
	if (i == m->shape_len)	/* printable ASCII: its own canonical text */
		return series_metric_hashed(in->r, hn, m->name, m->name_len, hl, labels, llen,
					    m->shape, m->shape_len);
	clean = canon_text_dup(m->shape, m->shape_len);
	if (!clean)
		return NULL;
	met = series_metric_hashed(in->r, hn, m->name, m->name_len, hl, labels, llen, clean,
				   strlen(clean));
	free(clean);
	return met;
}

static struct rp_series *series_for(struct rp_input *in, struct rp_node *node,
				    int source, const struct mline *m)
{
	const char *labels = in->labels.data ? in->labels.data : "{}";
	size_t llen = in->labels.data ? in->labels.len : 2, j;
	/* For this table only (8 bytes a step): name, labels and the node. */
	uint64_t hn = series_key_hash(m->name, m->name_len), hl = series_key_hash(labels, llen);
	uint64_t h = hn * 31 + hl;
	const struct rp_htab *t = &in->tab;
	struct rp_series *s;
	uint8_t tag;

	h ^= (uint64_t)(uintptr_t)node * 0x9e3779b97f4a7c15ull;
	h ^= h >> 31;
	tag = series_htab_tag(h);
	for (j = series_htab_home(t, h); t->pos[j]; j = series_htab_next(t, j)) {
		const struct rp_metric *x;

		if (t->tag[j] != tag)
			continue;
		s = in->list[t->pos[j] - 1];
		x = s->metric;
		if (s->hash == h && s->node == node && x->labels_len == llen &&
		    !memcmp(x->labels, labels, llen) &&
		    !strncmp(x->name, m->name, m->name_len) && x->name[m->name_len] == '\0')
			return s;
	}
	/* From the report's pool, as its strings: no malloc a series (a
	 * series merged into another stays there until the report's end). */
	s = strpool_alloc(in->r->pool, sizeof(*s));
	if (!s)
		goto oom;
	memset(s, 0, sizeof(*s));
	s->pooled = 1;
	s->reading = 1;
	s->node = node;
	s->hash = h;
	s->source = (unsigned int)source;
	s->is_array = m->is_array ? 1 : 0;
	s->line = (uint32_t)in->lineno;
	s->line_hi = (unsigned int)((uint64_t)in->lineno >> 32) & 0xffff;
	s->metric = metric_of(in, m, hn, labels, llen, hl);
	if (!s->metric)
		goto oom;
	if (in->n_list == in->cap_list) {
		size_t cap = in->cap_list ? in->cap_list * 2 : 32;
		struct rp_series **v = realloc(in->list, cap * sizeof(*v));

		if (!v)
			goto oom;
		in->list = v;
		in->cap_list = cap;
	}
	in->list[in->n_list] = s;
	if (series_htab_insert(&in->tab, in->list, in->n_list))
		goto oom;
	in->n_list++;
	return s;
oom:
	series_free(s);
	in->oom = 1;
	return NULL;
}

void point_add(struct rp_input *in, struct rp_node *node, int source,
		      const struct mline *m)
{
	struct rp_series *s = series_for(in, node, source, m);

	if (!s)
		return;
	if (s->is_array != (m->is_array ? 1 : 0) || strlen(series_shape(s)) != m->shape_len ||
	    memcmp(series_shape(s), m->shape, m->shape_len)) {
		char *shape = canon_text_dup(m->shape, m->shape_len);

		warn_add(in->r, in->file, in->lineno,
			 "metric %s: shape \"%s\"%s differs from \"%s\"%s earlier in the series; point dropped",
			 series_name(s), shape ? shape : "?",
			 m->is_array ? " (array)" : " (number)", series_shape(s),
			 s->is_array ? " (array)" : " (number)");
		free(shape);
		return;
	}
	if (series_add_point(s, m->t, in->vals, in->n_vals, m->is_array)) {
		in->oom = 1;
		return;
	}
	in->points++;
}

int point_push_val(struct rp_input *in, double v)
{
	if (in->n_vals == in->cap_vals) {
		size_t cap = in->cap_vals ? in->cap_vals * 2 : 512;
		double *q = realloc(in->vals, cap * sizeof(double));

		if (!q)
			return -ENOMEM;
		in->vals = q;
		in->cap_vals = cap;
	}
	in->vals[in->n_vals++] = v;
	return 0;
}
