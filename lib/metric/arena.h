/* Append-only record storage for one thread's share of a test case. */
#ifndef KSFTM_ARENA_H
#define KSFTM_ARENA_H

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, cap;	/* bytes */
	uint64_t data[];	/* 8-byte aligned records */
};

struct arena {
	struct arena_chunk *head, *tail;
	size_t bytes;		/* allocated, for the memory cap */
};

/*
 * Charge @bytes to @budget (the case's memory, shared by all its threads)
 * unless that passes @limit: 0, or -ENOBUFS with nothing charged.
 */
static inline int budget_charge(atomic_size_t *budget, size_t limit, size_t bytes)
{
	size_t old = atomic_fetch_add(budget, bytes);

	if (old <= limit && bytes <= limit - old)
		return 0;
	atomic_fetch_sub(budget, bytes);
	return -ENOBUFS;
}

/*
 * @size bytes (a multiple of 8) at the end of the arena, or NULL with *@err
 * set: ENOBUFS when a new chunk would take @budget past @limit (chunk bytes
 * are charged to @budget, shared by all threads of a case), else ENOMEM.
 */
void *arena_alloc(struct arena *a, size_t size, atomic_size_t *budget,
		  size_t limit, int *err);
/* Give back the last arena_alloc() of @size bytes (a rejected record). */
void arena_unalloc(struct arena *a, size_t size);
void arena_free(struct arena *a);

#endif
