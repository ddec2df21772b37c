/* Per-thread string table (see intern.h for why it exists). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "intern.h"

/*
 * A word-at-a-time multiplicative hash: names are short, and a byte-serial
 * hash (FNV) costs a dependent multiply per byte on the recording path.
 */
static inline uint64_t mix(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0xff51afd7ed558ccdull;
	return h ^ (h >> 32);
}

uint64_t intern_hash(const char *s, size_t *len)
{
	size_t n = strlen(s), i;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;

	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(&w, s + i, 8);
		h = mix(h, w);
	}
	if (i < n) {
		/* Tail: the last 8 bytes (overlapping) or, if shorter, built in a
		 * register; never a byte-wise stack copy (a store-forwarding stall). */
		if (n >= 8) {
			memcpy(&w, s + n - 8, 8);
		} else {
			for (w = 0; i < n; i++)
				w |= (uint64_t)(unsigned char)s[i] << (8 * i);
		}
		h = mix(h, w);
	}
	*len = n;
	return h ^ (h >> 29);
}

int64_t intern_find(const struct intern *t, const char *s, size_t len, uint64_t h)
{
	uint32_t i, id;

	if (!t->slots)
		return -ENOENT;
	for (i = (uint32_t)h & t->mask; (id = t->slots[i]); i = (i + 1) & t->mask) {
		const struct intern_entry *e = &t->entries[id - 1];

		if (e->hash == h && e->len == len && !memcmp(t->pool + e->off, s, len))
			return id - 1;
	}
	return -ENOENT;
}

void intern_remember(struct intern *t, const char *s, uint32_t id)
{
	struct intern_cache_slot *c = &t->cache[intern_cache_slot(s)];

	c->s = s;
	c->id = id;
}

static int rehash(struct intern *t, uint32_t nslots)
{
	uint32_t *slots = calloc(nslots, sizeof(*slots));
	uint32_t id, i;

	if (!slots)
		return -ENOMEM;
	for (id = 0; id < t->n; id++) {
		for (i = (uint32_t)t->entries[id].hash & (nslots - 1); slots[i];
		     i = (i + 1) & (nslots - 1))
			;
		slots[i] = id + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->mask = nslots - 1;
	return 0;
}

int64_t intern_add(struct intern *t, const char *s, size_t len, uint64_t h,
		   atomic_size_t *budget, size_t limit)
{
	struct intern_entry *e;
	uint32_t i;

	if (len > UINT32_MAX / 2 || t->n >= UINT32_MAX / 4 ||
	    t->pool_len > UINT32_MAX - len - 1)
		return -ENOMEM;
	/* Keep the load factor under 1/2 so probes stay short. */
	if (!t->slots || (t->n + 1) * 2 > t->mask + 1) {
		uint32_t nslots = t->slots ? (t->mask + 1) * 2 : 64;
		size_t more = (nslots - (t->slots ? t->mask + 1 : 0)) * sizeof(*t->slots);

		if (budget_charge(budget, limit, more))
			return -ENOBUFS;
		if (rehash(t, nslots)) {
			atomic_fetch_sub(budget, more);
			return -ENOMEM;
		}
	}
	if (t->n == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 32;

		if (budget_charge(budget, limit, (cap - t->cap) * sizeof(*e)))
			return -ENOBUFS;
		e = realloc(t->entries, cap * sizeof(*e));
		if (!e) {
			atomic_fetch_sub(budget, (cap - t->cap) * sizeof(*e));
			return -ENOMEM;
		}
		t->entries = e;
		t->cap = cap;
	}
	if (t->pool_cap - t->pool_len < len + 1) {
		size_t need = t->pool_len + len + 1, cap = t->pool_cap ? t->pool_cap : 1024;
		char *p;

		while (cap < need)
			cap *= 2;
		/* Near the cap, grow by just this string. */
		if (budget_charge(budget, limit, cap - t->pool_cap)) {
			cap = need;
			if (budget_charge(budget, limit, cap - t->pool_cap))
				return -ENOBUFS;
		}
		p = realloc(t->pool, cap);
		if (!p) {
			atomic_fetch_sub(budget, cap - t->pool_cap);
			return -ENOMEM;
		}
		t->pool = p;
		t->pool_cap = cap;
	}
	memcpy(t->pool + t->pool_len, s, len);
	t->pool[t->pool_len + len] = '\0';
	e = &t->entries[t->n];
	e->hash = h;
	e->off = (uint32_t)t->pool_len;
	e->len = (uint32_t)len;
	e->flags = 0;
	t->pool_len += len + 1;
	for (i = (uint32_t)h & t->mask; t->slots[i]; i = (i + 1) & t->mask)
		;
	t->slots[i] = ++t->n;
	return t->n - 1;
}

void intern_truncate(struct intern *t, uint32_t n)
{
	uint32_t i;

	/*
	 * Newest first: every remaining entry was placed while the removed
	 * one's slot was empty (a rehash re-inserts in id order too), so no
	 * linear-probe chain passes through it and it can simply be emptied.
	 */
	while (t->n > n) {
		const struct intern_entry *e = &t->entries[t->n - 1];

		for (i = (uint32_t)e->hash & t->mask; t->slots[i] != t->n; i = (i + 1) & t->mask)
			;
		t->slots[i] = 0;
		t->pool_len = e->off;
		t->n--;
	}
}

void intern_free(struct intern *t)
{
	free(t->entries);
	free(t->slots);
	free(t->pool);
	memset(t, 0, sizeof(*t));
}
