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
	size_t i;

	for (i = 0; i < ix->n; i++) {
		free(ix->order[i]->v);
		free(ix->order[i]->run);
		free(ix->order[i]);
	}
	free(ix->order);
	free(ix->b);
}

struct baseline_key *baseline_index_find(const struct baseline_index *ix, const char *key)
{
	uint64_t h = series_key_hash(key, strlen(key));
	struct baseline_key *k;

	for (k = ix->b[h & ix->mask]; k; k = k->next)
		if (k->hash == h && !strcmp(k->key, key))
			return k;
	return NULL;
}

int baseline_index_build(struct baseline_index *ix, const struct ksft_metric_report_baseline *b)
{
	size_t total = 0, r, i;

	memset(ix, 0, sizeof(*ix));
	for (r = 0; r < b->n_runs; r++)
		total += b->runs[r].n;
	ix->mask = 63;
	while (ix->mask < total * 2)
		ix->mask = ix->mask * 2 + 1;
	ix->b = calloc(ix->mask + 1, sizeof(*ix->b));
	ix->order = calloc(total ? total : 1, sizeof(*ix->order));
	if (!ix->b || !ix->order)
		return -ENOMEM;
	for (r = 0; r < b->n_runs; r++) {
		for (i = 0; i < b->runs[r].n; i++) {
			const struct bl_series *s = &b->runs[r].series[i];
			struct baseline_key *k = baseline_index_find(ix, s->key);

			if (!k) {
				k = calloc(1, sizeof(*k));
				if (!k)
					return -ENOMEM;
				k->key = s->key;
				k->hash = series_key_hash(s->key, strlen(s->key));
				k->next = ix->b[k->hash & ix->mask];
				ix->b[k->hash & ix->mask] = k;
				ix->order[ix->n++] = k;
			}
			if (k->n == k->cap) {
				size_t cap = k->cap ? k->cap * 2 : 4;
				const struct bl_series **v = realloc(k->v, cap * sizeof(*v));
				size_t *run;

				if (!v)
					return -ENOMEM;
				k->v = v;
				run = realloc(k->run, cap * sizeof(*run));
				if (!run)
					return -ENOMEM;
				k->run = run;
				k->cap = cap;
			}
			k->run[k->n] = r;
			k->v[k->n++] = s;
		}
	}
	return 0;
}
