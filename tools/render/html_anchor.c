/* Anchor ids of series, and a map from them to how much they matter. */
#define _GNU_SOURCE
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

char *series_anchor(const char *const *path, size_t path_len,
		    const char *case_name, const char *name,
		    const char *labels_json)
{
	uint64_t h = 0xcbf29ce484222325ull;
	char *out = malloc(128);
	size_t i, len = 2;

	if (!out)
		return NULL;
	for (i = 0; i < path_len; i++)
		h = fnv(h, path[i]);
	h = fnv(fnv(fnv(h, case_name), name), labels_json);
	memcpy(out, "s-", 2);
	/* The case, not its path: the path is mostly the same everywhere. */
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
	snprintf(out + len, 128 - len, "%08x", (unsigned)(h >> 32));
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
		return -1;
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
		return -1;
	for (h = key_hash(key) & (m->cap - 1); m->keys[h]; h = (h + 1) & (m->cap - 1))
		if (!strcmp(m->keys[h], key)) {
			if (rank > m->rank[h])
				m->rank[h] = rank;
			return 0;
		}
	m->keys[h] = strdup(key);
	if (!m->keys[h])
		return -1;
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
