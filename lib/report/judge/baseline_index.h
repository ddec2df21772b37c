/*
 * A baseline's series grouped by key across its runs, in first-seen order
 * (baseline_index.c): compare.c judges each current series against its
 * key's runs, then the keys no current series used are MISSING.
 */
#ifndef KSFTM_BASELINE_INDEX_H
#define KSFTM_BASELINE_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include <ksftmetric/report.h>

struct bl_series;

/* Baseline series grouped by key, in first-seen order. */
struct baseline_key {
	const struct bl_series *first;	/* its identity (no key is kept) */
	uint64_t hash;			/* its key's series_key_hash() */
	const struct bl_series **v;
	size_t *run;		/* the run of each v[i] (its index in the baseline) */
	size_t n, cap;		/* cap: the room of v[] and run[] (the index's) */
	int used;
	struct baseline_key *next;
};

struct baseline_index {
	struct baseline_key **order;
	size_t n, cap;
	struct baseline_key **b;
	size_t mask;
	struct baseline_key *keys;	/* their storage, and their v[] and run[]'s */
	const struct bl_series **vs;
	size_t *runs;
};

/* Index every run's series of @b; 0 or -ENOMEM (free with baseline_index_free()). */
int baseline_index_build(struct baseline_index *ix, const struct ksft_metric_report_baseline *b);
/* The runs of the identity whose key's series_key_hash() is @hash (a
 * report series' hash, or another index's key's), or NULL. */
struct baseline_key *baseline_index_find(const struct baseline_index *ix, char *const *path,
					 size_t path_len, const char *case_name,
					 const char *name, const char *labels, uint64_t hash);
void baseline_index_free(struct baseline_index *ix);

#endif
