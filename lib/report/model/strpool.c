/*
 * Interned identity strings of a report's series (names, labels, shapes,
 * case names, test paths): one copy of each in an arena that lives as
 * long as the report, so 600,000 series of one test tree do not each
 * malloc their own copies (issue 25). Strings are never freed one by one.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "series.h"
#include "strpool.h"

#define CHUNK (64u << 10)

struct pool_chunk {
	struct pool_chunk *next;
	size_t used, size;
	char data[];
};

struct pool_ent {
	const char *s;
	size_t len;
	uint64_t hash;
};

struct rp_strpool {
	struct pool_chunk *chunks;
	struct pool_ent *tab;
	size_t mask, n;
};

struct rp_strpool *strpool_new(void)
{
	struct rp_strpool *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->mask = 255;
	p->tab = calloc(p->mask + 1, sizeof(*p->tab));
	if (!p->tab) {
		free(p);
		return NULL;
	}
	return p;
}

void strpool_free(struct rp_strpool *p)
{
	struct pool_chunk *c, *next;

	if (!p)
		return;
	for (c = p->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	free(p->tab);
	free(p);
}

void *strpool_alloc(struct rp_strpool *p, size_t n)
{
	struct pool_chunk *c = p->chunks;
	void *out;

	n = (n + 7) & ~(size_t)7;
	if (!c || c->size - c->used < n) {
		size_t size = n > CHUNK / 4 ? n : CHUNK;

		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->size = size;
		c->used = 0;
		if (size == CHUNK || !p->chunks) {
			c->next = p->chunks;
			p->chunks = c;
		} else {	/* a big one: keep filling the current chunk */
			c->next = p->chunks->next;
			p->chunks->next = c;
		}
	}
	out = c->data + c->used;
	c->used += n;
	return out;
}

void strpool_reset(struct rp_strpool *p)
{
	struct pool_chunk *c, *next;

	if (p->chunks) {
		for (c = p->chunks->next; c; c = next) {
			next = c->next;
			free(c);
		}
		p->chunks->next = NULL;
		p->chunks->used = 0;
	}
	if (p->n)
		memset(p->tab, 0, (p->mask + 1) * sizeof(*p->tab));
	p->n = 0;
}

size_t strpool_bytes(const struct rp_strpool *p)
{
	const struct pool_chunk *c;
	size_t n = 0;

	for (c = p->chunks; c; c = c->next)
		n += c->size;
	return n;
}

size_t strpool_interned(const struct rp_strpool *p)
{
	return p->n;
}

const char *strpool_copy(struct rp_strpool *p, const char *s, size_t n)
{
	char *d = strpool_alloc(p, n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

void *strpool_alloc_any(void *pool, size_t n)
{
	return strpool_alloc(pool, n);
}

static int grow(struct rp_strpool *p)
{
	size_t mask = p->mask * 2 + 1, i;
	struct pool_ent *t = calloc(mask + 1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (i = 0; i <= p->mask; i++) {
		size_t j;

		if (!p->tab[i].s)
			continue;
		for (j = p->tab[i].hash & mask; t[j].s; j = (j + 1) & mask)
			;
		t[j] = p->tab[i];
	}
	free(p->tab);
	p->tab = t;
	p->mask = mask;
	return 0;
}

const char *strpool_intern(struct rp_strpool *p, const char *s, size_t n)
{
	uint64_t h;
	size_t i;
	char *d;

	h = series_key_hash(s, n);
	for (i = h & p->mask; p->tab[i].s; i = (i + 1) & p->mask)
		if (p->tab[i].hash == h && p->tab[i].len == n &&
		    !memcmp(p->tab[i].s, s, n))
			return p->tab[i].s;
	if ((p->n + 1) * 4 > (p->mask + 1) * 3) {
		if (grow(p))
			return NULL;
		for (i = h & p->mask; p->tab[i].s; i = (i + 1) & p->mask)
			;
	}
	d = strpool_alloc(p, n + 1);
	if (!d)
		return NULL;
	memcpy(d, s, n);
	d[n] = '\0';
	p->tab[i].s = d;
	p->tab[i].len = n;
	p->tab[i].hash = h;
	p->n++;
	return d;
}

char **strpool_path(struct rp_strpool *pool, char *const *path, size_t n,
		   char **prev, size_t prev_n)
{
	int same = prev && prev_n == n;
	char **out;
	size_t i;

	for (i = 0; same && i < n; i++) {
		const char *s = path[i] == prev[i] ? path[i] :	/* already the pool's */
				strpool_intern(pool, path[i], strlen(path[i]));

		if (!s)
			return NULL;
		same = s == prev[i];
	}
	if (same)
		return prev;
	out = strpool_alloc(pool, (n ? n : 1) * sizeof(char *));
	if (!out)
		return NULL;
	out[0] = NULL;
	for (i = 0; i < n; i++)
		if (!(out[i] = (char *)strpool_intern(pool, path[i], strlen(path[i]))))
			return NULL;
	return out;
}
