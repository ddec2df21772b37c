/* A baseline's series grouped by key across its runs (baseline_index.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "baseline_index.h"
#include "series.h"
#include "strbuf.h"

void baseline_index_free(struct baseline_index *ix)
{
	free(ix->keys);
	free(ix->vs);
	free(ix->runs);
	free(ix->order);
	free(ix->b);
}

struct baseline_key *baseline_index_find(const struct baseline_index *ix, char *const *path,
					 size_t path_len, const char *case_name,
					 const char *name, const char *labels, uint64_t h)
{
	struct baseline_key *k;

	for (k = ix->b[h & ix->mask]; k; k = k->next)
		if (k->hash == h &&
		    series_same_identity(k->first->path, k->first->path_len,
					 k->first->case_name, k->first->name,
					 k->first->labels, path, path_len, case_name, name,
					 labels))
			return k;
	return NULL;
}

/*
 * The keys first, each series' key remembered and each key's runs
 * counted; then each key's runs in its slice of one block: a handful of
 * allocations for the index, not three a key (issue 45).
 */
int baseline_index_build(struct baseline_index *ix, const struct ksft_metric_report_baseline *b)
{
	struct strbuf kb = STRBUF_INIT;
	struct baseline_key **of;
	size_t total = 0, r, i, j = 0, at = 0;

	memset(ix, 0, sizeof(*ix));
	for (r = 0; r < b->n_runs; r++)
		total += b->runs[r].n;
	ix->mask = 63;
	while (ix->mask < total * 2)
		ix->mask = ix->mask * 2 + 1;
	ix->b = calloc(ix->mask + 1, sizeof(*ix->b));
	ix->order = calloc(total ? total : 1, sizeof(*ix->order));
	ix->keys = calloc(total ? total : 1, sizeof(*ix->keys));
	ix->vs = malloc((total ? total : 1) * sizeof(*ix->vs));
	ix->runs = malloc((total ? total : 1) * sizeof(*ix->runs));
	of = malloc((total ? total : 1) * sizeof(*of));
	if (!ix->b || !ix->order || !ix->keys || !ix->vs || !ix->runs || !of) {
		free(of);
		return -ENOMEM;
	}
	for (r = 0; r < b->n_runs; r++) {
		for (i = 0; i < b->runs[r].n; i++) {
			const struct bl_series *s = &b->runs[r].series[i];
			struct baseline_key *k;
			uint64_t h;

			if (!series_key_into(&kb, s->path, s->path_len, s->case_name, s->name,
					     s->labels)) {
				strbuf_free(&kb);
				free(of);
				return -ENOMEM;
			}
			h = series_key_hash(kb.data, kb.len);
			k = baseline_index_find(ix, s->path, s->path_len, s->case_name, s->name,
						s->labels, h);
			if (!k) {
				k = &ix->keys[ix->n];
				k->first = s;
				k->hash = h;
				k->next = ix->b[h & ix->mask];
				ix->b[h & ix->mask] = k;
				ix->order[ix->n++] = k;
			}
			k->cap++;
			of[j++] = k;
		}
	}
	for (i = 0; i < ix->n; i++) {
		ix->order[i]->v = ix->vs + at;
		ix->order[i]->run = ix->runs + at;
		at += ix->order[i]->cap;
	}
	for (r = 0, j = 0; r < b->n_runs; r++) {
		for (i = 0; i < b->runs[r].n; i++, j++) {
			of[j]->run[of[j]->n] = r;
			of[j]->v[of[j]->n++] = &b->runs[r].series[i];
		}
	}
	free(of);
	strbuf_free(&kb);
	return 0;
}
