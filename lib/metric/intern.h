/*
 * Per-thread string table: every name, shape, label key and string label
 * value is stored once per case and referred to by a dense 32-bit id, so a
 * repeated string costs one hash lookup and no copy or re-validation; one
 * passed again at the same address (a call site's literal) costs only a
 * compare of its bytes (intern_cached()).
 */
#ifndef KSFTM_INTERN_H
#define KSFTM_INTERN_H

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define INTERN_NAME_USED 0x1u	/* observed as a metric name in this case */
#define INTERN_CACHE_SLOTS 64

/* A string's id by the address the caller passed it at (intern_cached()). */
struct intern_cache_slot {
	const char *s;
	uint32_t id;
};

struct intern_entry {
	uint64_t hash;
	uint32_t off;		/* into pool */
	uint32_t len;
	uint32_t flags;
};

struct intern {
	struct intern_entry *entries;	/* by id */
	uint32_t n, cap;
	uint32_t *slots;		/* open addressing: id + 1, 0 = empty */
	uint32_t mask;
	char *pool;
	size_t pool_len, pool_cap;
	struct intern_cache_slot cache[INTERN_CACHE_SLOTS];
};

uint64_t intern_hash(const char *s, size_t *len);
/* Id of @s, or -ENOENT if absent. */
int64_t intern_find(const struct intern *t, const char *s, size_t len, uint64_t h);
/*
 * Id of @s, inserting it (caller validated it). The table's growth is
 * charged to @budget (the case's memory cap, like its records): -ENOBUFS
 * when that would pass @limit, -ENOMEM on allocation failure.
 */
int64_t intern_add(struct intern *t, const char *s, size_t len, uint64_t h,
		   atomic_size_t *budget, size_t limit);
/* Remember @id (of @s's bytes) for intern_cached() at @s's address. */
void intern_remember(struct intern *t, const char *s, uint32_t id);
/* Forget the strings added after the first @n (a rejected record's). */
void intern_truncate(struct intern *t, uint32_t n);
void intern_free(struct intern *t);

static inline const char *intern_str(const struct intern *t, uint32_t id)
{
	return t->pool + t->entries[id].off;
}

static inline uint32_t intern_len(const struct intern *t, uint32_t id)
{
	return t->entries[id].len;
}

/* Call sites' literals sit close together: multiply to spread the bits. */
static inline uint32_t intern_cache_slot(const char *s)
{
	return (uint32_t)(((uint64_t)(uintptr_t)s * 0x9e3779b97f4a7c15ull) >> 58) &
	       (INTERN_CACHE_SLOTS - 1);
}

/*
 * Id of @s if it was last looked up at this very address (a call site's
 * string literal) and still holds the same bytes, else -ENOENT: the bytes
 * are compared every time, as a caller may reuse a buffer for another
 * name, stopping at @s's own NUL, never reading past it. Inline, without
 * a hash or a call: the recording path's common case (names are short).
 */
static inline int64_t intern_cached(const struct intern *t, const char *s)
{
	const struct intern_cache_slot *c = &t->cache[intern_cache_slot(s)];
	const char *p;
	uint32_t i, len;

	/* An id past the table's end was truncated away (a rejected record). */
	if (c->s != s || c->id >= t->n)
		return -ENOENT;
	p = intern_str(t, c->id);
	len = intern_len(t, c->id);
	/* A shorter string at @s differs at its NUL: the loop stops there. */
	for (i = 0; i < len; i++)
		if (s[i] != p[i])
			return -ENOENT;
	return s[len] ? -ENOENT : (int64_t)c->id;
}

#endif
