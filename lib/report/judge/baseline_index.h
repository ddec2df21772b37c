/*
 * A baseline's series grouped by key across its runs, in first-seen order
 * (baseline_index.c): compare.c judges each current series against its
 * key's runs, then the keys no current series used are MISSING. Compact
 * (issue 45: it was 108 bytes a series, as much as the series): 24 bytes
 * a key and 4 a bucket, and the members apart only for the keys that
 * several runs hold.
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
	uint32_t hash;		/* its baseline_index_hash(), the low 32 bits */
	uint32_t next;		/* the next key of its bucket, + 1; 0: none */
	uint32_t n : 31;	/* the runs that hold it */
	uint32_t used : 1;	/* a current series was judged against it */
	uint32_t at;		/* n 1: the run of first; else where its
				   members start in the index's v[] and run[] */
};

struct baseline_index {
	struct baseline_key *keys;	/* first-seen order */
	size_t n;
	uint32_t *b;			/* buckets: a key's index + 1; 0: none */
	size_t mask;
	const struct bl_series **v;	/* the members of keys held by several runs */
	uint32_t *run;			/* and their runs (index in the baseline) */
};

/*
 * The index's hash of an identity, in two steps: its path's (series of
 * one test share a path array: the caller keeps the last), then the
 * rest. Over the strings themselves, not a key made of them (issue 45:
 * making a key a series was a third of the index's cost).
 */
uint64_t baseline_index_hash_path(char *const *path, size_t path_len);
uint64_t baseline_index_hash(uint64_t path_hash, const char *case_name, const char *name,
			     const char *labels);

/* Index every run's series of @b; 0 or -ENOMEM (free with baseline_index_free()). */
int baseline_index_build(struct baseline_index *ix, const struct ksft_metric_report_baseline *b);
/* The runs of the identity whose baseline_index_hash() is @hash (or its
 * low 32 bits: another index's key's), or NULL. */
struct baseline_key *baseline_index_find(const struct baseline_index *ix, char *const *path,
					 size_t path_len, const char *case_name,
					 const char *name, const char *labels, uint64_t hash);
void baseline_index_free(struct baseline_index *ix);

/* @k's series of its @i-th run that holds it (i < k->n), in run order. */
static inline const struct bl_series *baseline_key_series(const struct baseline_index *ix,
							  const struct baseline_key *k,
							  size_t i)
{
	return k->n == 1 ? k->first : ix->v[k->at + i];
}

/* The index in the baseline of that run. */
static inline size_t baseline_key_run(const struct baseline_index *ix,
				      const struct baseline_key *k, size_t i)
{
	return k->n == 1 ? k->at : ix->run[k->at + i];
}

#endif
