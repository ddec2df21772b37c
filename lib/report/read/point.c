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

/* The shape as text (controls replaced), interned. */
static char *shape_of(struct rp_input *in, const struct mline *m)
{
	char *clean;
	const char *s;
	size_t i;

	for (i = 0; i < m->shape_len; i++)
		if ((unsigned char)m->shape[i] < 0x20 || (unsigned char)m->shape[i] >= 0x7f)
			break;
	if (i == m->shape_len)	/* printable ASCII: its own canonical text */
		return (char *)strpool_intern(in->r->pool, m->shape, m->shape_len);
	clean = canon_text_dup(m->shape, m->shape_len);

	if (!clean)
		return NULL;
	s = strpool_intern(in->r->pool, clean, strlen(clean));
	free(clean);
	return (char *)s;
}

static struct rp_series *series_for(struct rp_input *in, struct rp_node *node,
				    int source, const struct mline *m)
{
	const char *labels = in->labels.data ? in->labels.data : "{}";
	size_t llen = in->labels.data ? in->labels.len : 2;
	/* For this table only (8 bytes a step): name, labels and the node. */
	uint64_t h = series_key_hash(m->name, m->name_len) * 31 + series_key_hash(labels, llen);
	struct rp_series *s;

	h ^= (uint64_t)(uintptr_t)node * 0x9e3779b97f4a7c15ull;
	h ^= h >> 31;
	for (s = in->tab.b[h & in->tab.mask]; s; s = s->hnext)
		if (s->hash == h && s->node == node && s->labels_len == llen &&
		    !memcmp(s->labels, labels, llen) &&
		    !strncmp(s->name, m->name, m->name_len) &&
		    s->name[m->name_len] == '\0')
			return s;
	/* From the report's pool, as its strings: no malloc a series (a
	 * series merged into another stays there until the report's end). */
	s = strpool_alloc(in->r->pool, sizeof(*s));
	if (!s)
		goto oom;
	memset(s, 0, sizeof(*s));
	s->pooled = 1;
	s->node = node;
	s->hash = h;
	s->source = source;
	s->is_array = m->is_array;
	s->file = in->file;
	s->line = in->lineno;
	s->labels_len = llen;
	s->name = (char *)strpool_intern(in->r->pool, m->name, m->name_len);
	s->labels = (char *)strpool_intern(in->r->pool, labels, llen);
	s->shape = shape_of(in, m);
	if (!s->name || !s->labels || !s->shape)
		goto oom;
	if (in->n_list == in->cap_list) {
		size_t cap = in->cap_list ? in->cap_list * 2 : 32;
		struct rp_series **v = realloc(in->list, cap * sizeof(*v));

		if (!v)
			goto oom;
		in->list = v;
		in->cap_list = cap;
	}
	if (series_htab_insert(&in->tab, s))
		goto oom;
	in->list[in->n_list++] = s;
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
	if (s->is_array != m->is_array || strlen(s->shape) != m->shape_len ||
	    memcmp(s->shape, m->shape, m->shape_len)) {
		char *shape = canon_text_dup(m->shape, m->shape_len);

		warn_add(in->r, in->file, in->lineno,
			 "metric %s: shape \"%s\"%s differs from \"%s\"%s earlier in the series; point dropped",
			 s->name, shape ? shape : "?",
			 m->is_array ? " (array)" : " (number)", s->shape,
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
