/*
 * A run's content key (history_content_key.c, issue 40): what the run IS,
 * so that the same log ingested again (a CI's retry, with a new --order or
 * none) is recognised whatever its order or id. It hashes the run's
 * context as stored and each series' identity and processed samples as
 * stored, never a writer's output: the key of a stored run is computed
 * again from its rows (the schema's migration does).
 */
#ifndef KSFTM_HISTORY_CONTENT_KEY_H
#define KSFTM_HISTORY_CONTENT_KEY_H

#include <stddef.h>
#include <stdint.h>

struct ksft_metric_report;

/* "fnv-" and 32 hex digits: two 64-bit FNV-1a lanes through a splitmix64
 * finaliser. A name for a run, not a cryptographic hash. */
#define HISTORY_CONTENT_KEY_LEN 36

/* Built series by series, in any order (their hashes are summed). */
struct history_content_key {
	uint64_t sum_a, sum_b;
	size_t n;
};

void history_content_key_init(struct history_content_key *k);
/* One series: its identity as ksftm_series keeps it (the path as JSON
 * text, history_path_json()) and its samples as ksftm_results keeps them
 * (history_content_key_samples()). */
void history_content_key_series(struct history_content_key *k, const char *path_json,
				const char *case_name, const char *metric, const char *labels,
				const char *samples);
/* The key with the run's context text @ctx (history_context_text()) into
 * @out (HISTORY_CONTENT_KEY_LEN + 1 bytes). */
void history_content_key_end(const struct history_content_key *k, const char *ctx, char *out);

/* Series @i's processed samples of @r as the history stores them (JSON
 * text, each number its shortest round-trip form, null for a missing
 * one). malloc'd in *@out; 0 or a negative errno. */
int history_content_key_samples(const struct ksft_metric_report *r, size_t i, char **out);
/* @r's key with context text @ctx into @out: its every series. 0 or a
 * negative errno. */
int history_content_key_of(const struct ksft_metric_report *r, const char *ctx, char *out);

#endif
