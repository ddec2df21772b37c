/* A baseline's series grouped by key across its runs (baseline_index.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "baseline_index.h"
#include "series.h"

void baseline_index_free(struct baseline_index *ix)
{
	free(ix->keys);
	free(ix->b);
	free(ix->v);
	free(ix->run);
	memset(ix, 0, sizeof(*ix));
}

/* @h and the string @s (its length too: no two strings mix alike). */
static uint64_t mix_str(uint64_t h, const char *s)
{
	size_t n = strlen(s);

	return series_key_hash_from((h ^ n) * 0x9e3779b97f4a7c15ull, s, n);
}

uint64_t baseline_index_hash_path(char *const *path, size_t path_len)
{
	uint64_t h = path_len;
	size_t i;

	for (i = 0; i < path_len; i++)
		h = mix_str(h, path[i]);
	return h;
}

uint64_t baseline_index_hash(uint64_t path_hash, const char *case_name, const char *name,
			     const char *labels)
{
	return mix_str(mix_str(mix_str(path_hash, case_name), name), labels);
}

struct baseline_key *baseline_index_find(const struct baseline_index *ix, char *const *path,
					 size_t path_len, const char *case_name,
					 const char *name, const char *labels, uint64_t h)
{
	uint32_t at;

	if (!ix->b)
		return NULL;
	for (at = ix->b[h & ix->mask]; at; at = ix->keys[at - 1].next) {
		struct baseline_key *k = &ix->keys[at - 1];

		if (k->hash == (uint32_t)h &&
		    series_same_identity(k->first->path, k->first->path_len,
					 k->first->case_name, k->first->name,
					 k->first->labels, path, path_len, case_name, name,
					 labels))
			return k;
	}
	return NULL;
}

/*
 * The keys first, each series' key remembered and each key's runs
 * counted; then the members of the keys several runs hold, each key's in
 * its slice of one block: a handful of allocations for the index, and
 * nothing a member for a baseline of one run (issue 45).
 */
int baseline_index_build(struct baseline_index *ix, const struct ksft_metric_report_baseline *b)
{
	char *const *last_path = NULL;
	uint64_t path_hash = 0;
	uint32_t *of = NULL;
	size_t total = 0, r, i, j = 0, at = 0, shared = 0;
	struct baseline_key *keys;
	int ret = -ENOMEM;

	memset(ix, 0, sizeof(*ix));
	for (r = 0; r < b->n_runs; r++)
		total += b->runs[r].n;
	if (total >= UINT32_MAX / 2)
		return -ENOMEM;
	ix->mask = 63;
	while (ix->mask < total)
		ix->mask = ix->mask * 2 + 1;
	ix->b = calloc(ix->mask + 1, sizeof(*ix->b));
	ix->keys = malloc((total ? total : 1) * sizeof(*ix->keys));
	of = malloc((total ? total : 1) * sizeof(*of));
	if (!ix->b || !ix->keys || !of)
		goto out;
	for (r = 0; r < b->n_runs; r++) {
		for (i = 0; i < b->runs[r].n; i++) {
			const struct bl_series *s = &b->runs[r].series[i];
			struct baseline_key *k;
			uint64_t h;

			if (s->path != last_path || !last_path) {
				last_path = s->path;
				path_hash = baseline_index_hash_path(s->path, s->path_len);
			}
			h = baseline_index_hash(path_hash, s->case_name, s->name, s->labels);
			k = baseline_index_find(ix, s->path, s->path_len, s->case_name, s->name,
						s->labels, h);
			if (!k) {
				k = &ix->keys[ix->n++];
				k->first = s;
				k->hash = (uint32_t)h;
				k->next = ix->b[h & ix->mask];
				k->n = 0;
				k->used = 0;
				k->at = (uint32_t)r;
				ix->b[h & ix->mask] = (uint32_t)ix->n;
			}
			if (++k->n == 2)
				shared++;
			of[j++] = (uint32_t)(k - ix->keys);
		}
	}
	/* Give back the room of the keys that repeat (several runs). */
	if (ix->n < total && ix->n && (keys = realloc(ix->keys, ix->n * sizeof(*keys))))
		ix->keys = keys;
	if (shared) {
		uint32_t *fill = calloc(ix->n, sizeof(*fill));

		for (i = 0; i < ix->n; i++)
			if (ix->keys[i].n > 1)
				at += ix->keys[i].n;
		ix->v = malloc(at * sizeof(*ix->v));
		ix->run = malloc(at * sizeof(*ix->run));
		if (!fill || !ix->v || !ix->run) {
			free(fill);
			goto out;
		}
		for (i = 0, at = 0; i < ix->n; i++) {
			if (ix->keys[i].n > 1) {
				ix->keys[i].at = (uint32_t)at;
				at += ix->keys[i].n;
			}
		}
		for (r = 0, j = 0; r < b->n_runs; r++) {
			for (i = 0; i < b->runs[r].n; i++, j++) {
				struct baseline_key *k = &ix->keys[of[j]];

				if (k->n < 2)
					continue;
				ix->run[k->at + fill[of[j]]] = (uint32_t)r;
				ix->v[k->at + fill[of[j]]++] = &b->runs[r].series[i];
			}
		}
		free(fill);
	}
	ret = 0;
out:
	free(of);
	return ret;
}
