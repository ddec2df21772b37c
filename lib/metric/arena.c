/* Append-only record storage: records never move, so readers need no copy. */
#include <errno.h>
#include <stdlib.h>

#include "arena.h"

#define CHUNK_MIN (64 * 1024)
#define CHUNK_MAX (8 * 1024 * 1024)

void *arena_alloc(struct arena *a, size_t size, atomic_size_t *budget,
		  size_t limit, int *err)
{
	struct arena_chunk *c = a->tail;
	size_t cap;

	if (c && c->cap - c->used >= size) {
		void *p = (char *)c->data + c->used;

		c->used += size;
		return p;
	}
	/* Geometric growth: a busy case costs few mallocs, a quiet one little memory. */
	cap = c ? c->cap * 2 : CHUNK_MIN;
	if (cap > CHUNK_MAX)
		cap = CHUNK_MAX;
	if (cap < size)
		cap = size;
	if (cap > SIZE_MAX - sizeof(*c)) {
		*err = ENOMEM;
		return NULL;
	}
	/* Near the limit, fall back to a chunk of just this record. */
	if (budget_charge(budget, limit, sizeof(*c) + cap)) {
		cap = size;
		if (budget_charge(budget, limit, sizeof(*c) + cap)) {
			*err = ENOBUFS;
			return NULL;
		}
	}
	c = malloc(sizeof(*c) + cap);
	if (!c) {
		atomic_fetch_sub(budget, sizeof(*c) + cap);
		*err = ENOMEM;
		return NULL;
	}
	c->next = NULL;
	c->used = size;
	c->cap = cap;
	if (a->tail)
		a->tail->next = c;
	else
		a->head = c;
	a->tail = c;
	a->bytes += sizeof(*c) + cap;
	return c->data;
}

void arena_unalloc(struct arena *a, size_t size)
{
	/* The chunk, if new, stays: it is empty and the next record reuses it. */
	a->tail->used -= size;
}

void arena_free(struct arena *a)
{
	struct arena_chunk *c = a->head, *next;

	for (; c; c = next) {
		next = c->next;
		free(c);
	}
	a->head = a->tail = NULL;
	a->bytes = 0;
}
