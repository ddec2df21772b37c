/*
 * The records a series shares (series.h): its case's (name, path, input,
 * why it ended) and its metric's (name, labels, shape). A whole run's
 * series hold them by reference, not each its own copy (issue 45): its
 * two series a case and a hundred metric names among 400,000 series.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "series.h"
#include "strpool.h"

/* Bytes of a case record named @len bytes (the name inline). */
static size_t case_size(size_t len)
{
	return offsetof(struct rp_case, name) + len + 1;
}

struct rp_case *series_case_new(struct rp_strpool *pool, const char *name, size_t len,
				const struct rp_case_src *src)
{
	struct rp_case *k = strpool_alloc(pool, case_size(len));

	if (!k)
		return NULL;
	memset(k, 0, offsetof(struct rp_case, name));
	k->src = src;
	memcpy(k->name, name, len);
	k->name[len] = '\0';
	return k;
}

const struct rp_case_src *series_case_src(struct rp_strpool *pool, const char *file,
					  const char *abort, const char *reason)
{
	struct rp_case_src *src = strpool_alloc(pool, sizeof(*src));

	if (src) {
		src->file = file;
		src->abort = abort;
		src->reason = reason;
	}
	return src;
}

const struct rp_case *series_case_with_src(struct rp_strpool *pool, const struct rp_case *k,
					   const struct rp_case_src *src)
{
	size_t n = case_size(strlen(k->name));
	struct rp_case *c = strpool_alloc(pool, n);

	if (!c)
		return NULL;
	memcpy(c, k, n);
	c->src = src;
	return c;
}

/* The report's metric records by hash (struct rp_metrics, report.h). */
struct rp_metric_ent {
	const struct rp_metric *m;
	uint64_t hash;
};

static uint64_t metric_hash(uint64_t name_hash, uint64_t labels_hash, const char *shape,
			    size_t shape_len)
{
	uint64_t h = (name_hash ^ labels_hash) * 0x9e3779b97f4a7c15ull;

	h = (h ^ series_key_hash(shape, shape_len)) * 0xff51afd7ed558ccdull;
	return h ^ (h >> 32);
}

static int same_text(const char *a, const char *b, size_t n)
{
	return !memcmp(a, b, n) && !a[n];
}

static int metrics_grow(struct rp_metrics *t)
{
	size_t mask = t->mask ? t->mask * 2 + 1 : 63, i, j;
	struct rp_metric_ent *e = calloc(mask + 1, sizeof(*e));

	if (!e)
		return -ENOMEM;
	for (i = 0; t->e && i <= t->mask; i++) {
		if (!t->e[i].m)
			continue;
		for (j = t->e[i].hash & mask; e[j].m; j = (j + 1) & mask)
			;
		e[j] = t->e[i];
	}
	free(t->e);
	t->e = e;
	t->mask = mask;
	return 0;
}

const struct rp_metric *series_metric(struct ksft_metric_report *r, const char *name,
				      size_t name_len, const char *labels, size_t labels_len,
				      const char *shape, size_t shape_len)
{
	return series_metric_hashed(r, series_key_hash(name, name_len), name, name_len,
				    series_key_hash(labels, labels_len), labels, labels_len,
				    shape, shape_len);
}

const struct rp_metric *series_metric_hashed(struct ksft_metric_report *r, uint64_t name_hash,
					     const char *name, size_t name_len,
					     uint64_t labels_hash, const char *labels,
					     size_t labels_len, const char *shape, size_t shape_len)
{
	struct rp_metrics *t = &r->metrics;
	uint64_t h = metric_hash(name_hash, labels_hash, shape, shape_len);
	struct rp_metric *m;
	size_t j;

	for (j = h & t->mask; t->e && t->e[j].m; j = (j + 1) & t->mask) {
		const struct rp_metric *x = t->e[j].m;

		if (t->e[j].hash == h && x->labels_len == labels_len &&
		    same_text(x->name, name, name_len) && same_text(x->labels, labels, labels_len) &&
		    same_text(x->shape, shape, shape_len))
			return x;
	}
	if ((!t->e || (t->n + 1) * 4 > (t->mask + 1) * 3) && metrics_grow(t))
		return NULL;
	m = strpool_alloc(r->pool, sizeof(*m));
	if (!m)
		return NULL;
	m->name = strpool_intern(r->pool, name, name_len);
	m->labels = strpool_intern(r->pool, labels, labels_len);
	m->shape = strpool_intern(r->pool, shape, shape_len);
	m->labels_len = labels_len;
	if (!m->name || !m->labels || !m->shape)
		return NULL;
	for (j = h & t->mask; t->e[j].m; j = (j + 1) & t->mask)
		;
	t->e[j].m = m;
	t->e[j].hash = h;
	t->n++;
	return m;
}

void series_metrics_free(struct ksft_metric_report *r)
{
	free(r->metrics.e);
	memset(&r->metrics, 0, sizeof(r->metrics));
}

int series_set_identity(struct ksft_metric_report *r, struct rp_series *s,
			char *const *path, size_t path_len, const char *case_name,
			const char *name, const char *labels, const char *shape, int status)
{
	/* A stored run's rows come case by case: the series before may
	 * share its record. */
	const struct rp_case *prev = r->n_series ? r->series[r->n_series - 1]->kase : NULL;
	char **p;
	struct rp_case *k;

	if (path_len > UINT32_MAX)
		return -ENOMEM;
	p = strpool_path(r->pool, path, path_len, prev ? prev->path : NULL,
			 prev ? prev->path_len : 0);
	if (!p)
		return -ENOMEM;
	if (prev && p == prev->path && !prev->src && !strcmp(prev->name, case_name)) {
		s->kase = prev;
	} else {
		k = series_case_new(r->pool, case_name, strlen(case_name), NULL);
		if (!k)
			return -ENOMEM;
		k->path = p;
		k->path_len = (uint32_t)path_len;
		k->pathed = 1;
		s->kase = k;
	}
	s->metric = series_metric(r, name, strlen(name), labels, strlen(labels), shape,
				  strlen(shape));
	s->status = (unsigned int)status;
	return s->metric ? 0 : -ENOMEM;
}
