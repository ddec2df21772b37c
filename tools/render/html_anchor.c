/* Anchor ids of series, and a map from them to how much they matter. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"

static uint64_t fnv(uint64_t h, const char *s)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	h ^= 0xff;		/* a separator no text holds */
	h *= 0x100000001b3ull;
	return h;
}

/* Append @s as [a-z0-9-], runs of anything else one '-', up to @max. */
static size_t squeeze(char *out, size_t len, size_t max, const char *s)
{
	for (; *s && len < max; s++) {
		char c = *s;

		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
			out[len++] = c;
		else if (len && out[len - 1] != '-')
			out[len++] = '-';
	}
	return len;
}

/*
 * Every anchor handed out, by identity and by anchor: a slug plus 64 bits
 * of a hash is unique for every identity a real log holds, but not for one
 * built to collide (FNV is no cryptographic hash), and two series sharing
 * an anchor would share a site page, a link and a verdict. So an anchor
 * is checked against those given to other identities, and a taken one
 * gets "-2", "-3"...: first come, first served, which is deterministic
 * because every page walks its series in a fixed order. A process renders
 * one page or one site, single-threaded; series_anchors_reset() clears.
 */
struct anchor_entry {
	char *key, *anchor;
};

static struct {
	struct anchor_entry *e;
	size_t n, cap;
	struct rank_map by_key, by_anchor;	/* index + 1 */
} reg;

void series_anchors_reset(void)
{
	size_t i;

	for (i = 0; i < reg.n; i++) {
		free(reg.e[i].key);
		free(reg.e[i].anchor);
	}
	free(reg.e);
	rank_map_free(&reg.by_key);
	rank_map_free(&reg.by_anchor);
	memset(&reg, 0, sizeof(reg));
}

/* The identity as one string: 0xff, which no UTF-8 text holds, between parts. */
static char *identity_key(const char *const *path, size_t path_len, const char *case_name,
			  const char *name, const char *labels_json)
{
	char *out = NULL;
	size_t len = 0, i;
	FILE *m = open_memstream(&out, &len);

	if (!m)
		return NULL;
	for (i = 0; i < path_len; i++)
		fprintf(m, "%s\xff", path[i]);
	fprintf(m, "\xff%s\xff%s\xff%s", case_name, name, labels_json);
	if (fclose(m)) {
		free(out);
		return NULL;
	}
	return out;
}

static int anchor_register(char *key, char *anchor)
{
	if (reg.n == reg.cap) {
		size_t cap = reg.cap ? 2 * reg.cap : 64;
		struct anchor_entry *e = realloc(reg.e, cap * sizeof(*e));

		if (!e)
			return -ENOMEM;
		reg.e = e;
		reg.cap = cap;
	}
	if (rank_map_put(&reg.by_key, key, (int)reg.n + 1) ||
	    rank_map_put(&reg.by_anchor, anchor, (int)reg.n + 1))
		return -ENOMEM;
	reg.e[reg.n++] = (struct anchor_entry){ key, anchor };
	return 0;
}

#ifndef ANCHOR_HASH_MASK
#define ANCHOR_HASH_MASK UINT64_MAX	/* the unit test narrows it to force collisions */
#endif

char *series_anchor(const char *const *path, size_t path_len,
		    const char *case_name, const char *name,
		    const char *labels_json)
{
	uint64_t h = 0xcbf29ce484222325ull;
	char *key = identity_key(path, path_len, case_name, name, labels_json);
	char *out = key ? malloc(160) : NULL, *mine;
	size_t i, len = 2, base;
	int at, k;

	if (!out) {
		free(key);
		return NULL;
	}
	if ((at = rank_map_get(&reg.by_key, key))) {
		free(key);
		free(out);
		return strdup(reg.e[at - 1].anchor);
	}
	for (i = 0; i < path_len; i++)
		h = fnv(h, path[i]);
	h = fnv(fnv(fnv(h, case_name), name), labels_json) & ANCHOR_HASH_MASK;
	memcpy(out, "s-", 2);
	/* The case, not its path: the path is mostly the same everywhere
	 * (the hash covers it). */
	len = squeeze(out, len, 60, case_name);
	if (out[len - 1] != '-')
		out[len++] = '-';
	len = squeeze(out, len, 90, name);
	if (strcmp(labels_json, "{}")) {
		if (out[len - 1] != '-')
			out[len++] = '-';
		len = squeeze(out, len, 104, labels_json);
	}
	if (out[len - 1] != '-')
		out[len++] = '-';
	base = len + (size_t)snprintf(out + len, 160 - len, "%016llx", (unsigned long long)h);
	/* Taken by another identity: the next free "-N" (a base anchor
	 * ends in 16 hex digits, so no "-N" form is another's base). */
	for (k = 2; rank_map_get(&reg.by_anchor, out); k++)
		snprintf(out + base, 160 - base, "-%d", k);
	mine = strdup(out);
	if (!mine || anchor_register(key, mine)) {
		free(mine);
		free(key);
		free(out);
		return NULL;
	}
	return out;
}

static uint64_t key_hash(const char *s)
{
	return fnv(0xcbf29ce484222325ull, s);
}

static int grow(struct rank_map *m)
{
	struct rank_map n = { 0 };
	size_t i;

	n.cap = m->cap ? m->cap * 2 : 64;
	n.keys = calloc(n.cap, sizeof(char *));
	n.rank = calloc(n.cap, sizeof(int));
	if (!n.keys || !n.rank) {
		free(n.keys);
		free(n.rank);
		return -ENOMEM;
	}
	for (i = 0; i < m->cap; i++) {
		size_t h;

		if (!m->keys[i])
			continue;
		for (h = key_hash(m->keys[i]) & (n.cap - 1); n.keys[h]; h = (h + 1) & (n.cap - 1))
			;
		n.keys[h] = m->keys[i];
		n.rank[h] = m->rank[i];
	}
	n.n = m->n;
	free(m->keys);
	free(m->rank);
	*m = n;
	return 0;
}

/* Keeps the highest rank given for @key. */
int rank_map_put(struct rank_map *m, const char *key, int rank)
{
	size_t h;

	if (2 * (m->n + 1) > m->cap && grow(m))
		return -ENOMEM;
	for (h = key_hash(key) & (m->cap - 1); m->keys[h]; h = (h + 1) & (m->cap - 1))
		if (!strcmp(m->keys[h], key)) {
			if (rank > m->rank[h])
				m->rank[h] = rank;
			return 0;
		}
	m->keys[h] = strdup(key);
	if (!m->keys[h])
		return -ENOMEM;
	m->rank[h] = rank;
	m->n++;
	return 0;
}

int rank_map_get(const struct rank_map *m, const char *key)
{
	size_t h;

	if (!m->cap)
		return 0;
	for (h = key_hash(key) & (m->cap - 1); m->keys[h]; h = (h + 1) & (m->cap - 1))
		if (!strcmp(m->keys[h], key))
			return m->rank[h];
	return 0;
}

void rank_map_free(struct rank_map *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->rank);
	memset(m, 0, sizeof(*m));
}
