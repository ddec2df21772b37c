/*
 * The run history: every ingested run's series (identity, policy, processed
 * samples, summaries, case status) with its context and CI order, in SQLite
 * or PostgreSQL (db.h), under one versioned schema. Built on the public
 * report API only: what is stored is what every consumer sees.
 */
#ifndef KSFTM_HISTORY_H
#define KSFTM_HISTORY_H

#include <stddef.h>

#include <ksftmetric/report.h>

#include "db.h"

/* Schema version this code writes; older ones are migrated at open. */
#define HISTORY_SCHEMA_VERSION 1

struct history;

/*
 * Open (creating or migrating the schema). @return 0, -ENOTSUP, -EIO,
 * -EPROTO (a schema newer than this code), -ENOMEM.
 */
int history_open(const char *url, struct history **out);
void history_close(struct history *h);
struct db *history_db(struct history *h);

/* One run to ingest. */
struct history_run {
	const char *run_key;	/* unique; NULL: derived from the content */
	const char *order;	/* CI order (commit date...); NULL: ingest time */
	/* Context keys: "KEY=VALUE" items, over the logs' context lines. */
	const char *const *context;
	size_t n_context;
};

/*
 * Store @r as one run, in one transaction (nothing is written if anything
 * fails). @run_key_out (may be NULL) receives the key used (malloc'd).
 * @return the number of series stored; -EEXIST (run key already there),
 * -EINVAL (bad context item), -EIO, -EBUSY, -ENOMEM.
 */
int history_ingest(struct history *h, const struct ksft_metric_report *r,
		   const struct history_run *run, char **run_key_out);

#endif
