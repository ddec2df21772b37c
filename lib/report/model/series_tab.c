/*
 * Positions of series by hash (struct rp_htab, series.h): a reader's
 * join table and the report's table by key. Open addressing with linear
 * probes on 32-bit positions, an 8-bit tag of each hash beside, any
 * size (a hash's home is its low 32 bits scaled to the size), at most
 * three quarters full; an entry leaves by shifting its followers back.
 * A chained table cost a pointer a bucket and one in every series
 * (issue 45).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "series.h"

#define FIRST_SIZE 64

static int alloc_slots(struct rp_htab *t, size_t size)
{
	uint32_t *pos;
	uint8_t *tag;

	if (size > SIZE_MAX / sizeof(*pos) || size > UINT32_MAX)
		return -ENOMEM;
	pos = calloc(size, sizeof(*pos));
	tag = malloc(size);
	if (!pos || !tag) {
		free(pos);
		free(tag);
		return -ENOMEM;
	}
	t->pos = pos;
	t->tag = tag;
	t->size = size;
	return 0;
}

int series_htab_init(struct rp_htab *t)
{
	t->n = 0;
	return alloc_slots(t, FIRST_SIZE);
}

void series_htab_free(struct rp_htab *t)
{
	free(t->pos);
	free(t->tag);
	memset(t, 0, sizeof(*t));
}

static void place(struct rp_htab *t, uint64_t h, uint32_t pos)
{
	size_t j;

	for (j = series_htab_home(t, h); t->pos[j]; j = series_htab_next(t, j))
		;
	t->pos[j] = pos;
	t->tag[j] = series_htab_tag(h);
}

/* @t at @size slots, its entries placed again (their hashes from @v). */
static int rebuild(struct rp_htab *t, size_t size, struct rp_series *const *v)
{
	struct rp_htab old = *t;
	size_t j;

	if (alloc_slots(t, size)) {
		*t = old;
		return -ENOMEM;
	}
	for (j = 0; j < old.size; j++)
		if (old.pos[j])
			place(t, v[old.pos[j] - 1]->hash, old.pos[j]);
	free(old.pos);
	free(old.tag);
	return 0;
}

static int full_at(size_t n, size_t size)
{
	return n > size / 4 * 3;
}

int series_htab_reserve(struct rp_htab *t, size_t n, struct rp_series *const *v)
{
	size_t size;

	if (!full_at(n, t->size))
		return 0;
	if (n > SIZE_MAX / 2)
		return -ENOMEM;
	size = n + n / 3 + 8;	/* three quarters full at @n */
	return rebuild(t, size, v);
}

int series_htab_insert(struct rp_htab *t, struct rp_series *const *v, size_t i)
{
	if (i >= UINT32_MAX - 1)
		return -ENOMEM;
	if (full_at(t->n + 1, t->size) &&
	    (t->size > SIZE_MAX / 2 || rebuild(t, t->size * 2, v)))
		return -ENOMEM;
	place(t, v[i]->hash, (uint32_t)(i + 1));
	t->n++;
	return 0;
}

/* Distance of slot @to from slot @from, probing forward. */
static size_t dist(const struct rp_htab *t, size_t from, size_t to)
{
	return to >= from ? to - from : to + t->size - from;
}

void series_htab_remove(struct rp_htab *t, struct rp_series *const *v, size_t i)
{
	size_t j, k, hole;

	for (j = series_htab_home(t, v[i]->hash); t->pos[j]; j = series_htab_next(t, j))
		if (t->pos[j] == i + 1)
			break;
	if (!t->pos[j])
		return;
	/* Backward shift: each follower whose probe passed the hole moves in. */
	hole = j;
	t->pos[hole] = 0;
	t->n--;
	for (j = series_htab_next(t, hole); t->pos[j]; j = series_htab_next(t, j)) {
		k = series_htab_home(t, v[t->pos[j] - 1]->hash);
		if (dist(t, k, hole) < dist(t, k, j)) {
			t->pos[hole] = t->pos[j];
			t->tag[hole] = t->tag[j];
			t->pos[j] = 0;
			hole = j;
		}
	}
}
