/*
 * Per-thread string table: every name, shape, label key and string label
 * value is stored once per case and referred to by a dense 32-bit id, so a
 * repeated string costs one hash lookup and no copy or re-validation.
 */
#ifndef KSFTM_INTERN_H
#define KSFTM_INTERN_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define INTERN_NAME_USED 0x1u	/* observed as a metric name in this case */

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

#endif
