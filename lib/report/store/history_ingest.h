/*
 * Ingest's storing steps (history_ingest.c), in the order
 * judge/history_record.c calls them: prepare (checks, the run's context),
 * begin (the write transaction, the run's order and its series' ids),
 * store (the run, its series and results with their verdicts), then
 * commit; history_ingest_end() in any case (rolls back what was not
 * committed). Nothing is written if any step fails.
 */
#ifndef KSFTM_HISTORY_INGEST_H
#define KSFTM_HISTORY_INGEST_H

#include <stddef.h>

#include "history.h"
#include "history_content_key.h"

struct ingest_item;

struct history_ingest {
	struct history *h;
	struct db *db;
	const struct ksft_metric_report *r;
	const struct history_run *run;
	size_t n;		/* the run's series */
	char now[32];
	char *ctx;		/* the run's context, canonical JSON text */
	char *key;		/* its run key: the CI's, else its content key */
	char content[HISTORY_CONTENT_KEY_LEN + 1];	/* its content key */
	char *dup_key;		/* -EALREADY: the run stored with that content */
	char *keys, *cmp, *order, *sort;
	long long run_id;	/* its row's id, once stored */
	int incomparable;
	struct ingest_item *items;
	struct history_key *series;	/* their identities and ids (0: new) */
	struct hgate_opts gate;	/* how the gate judges the run (after begin) */
	int in_tx;
};

/* @return 0 or a negative errno (-EINVAL: a bad run id, order or context
 * item). in->key is @run's id, else the run's content key. */
int history_ingest_prepare(struct history_ingest *in, struct history *h,
			   const struct ksft_metric_report *r, const struct history_run *run);
/* -EALREADY: a run of the same content is stored (in->dup_key names it). */
int history_ingest_begin(struct history_ingest *in);
/* @verdicts: series i's verdict name (verdict_vocab.h). -EEXIST: the run
 * key is in the history already. */
int history_ingest_store(struct history_ingest *in, const char *const *verdicts);
/* @return the number of series stored; *@run_key_out (may be NULL) gets
 * the key used (malloc'd). */
int history_ingest_commit(struct history_ingest *in, char **run_key_out);
void history_ingest_end(struct history_ingest *in);

#endif
