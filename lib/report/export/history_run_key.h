/*
 * A run's key from its content (history_run_key.c), when the CI gives
 * none: the hash of the report's JSON document, its context and order.
 */
#ifndef KSFTM_HISTORY_RUN_KEY_H
#define KSFTM_HISTORY_RUN_KEY_H

struct ksft_metric_report;

/* The run id of @r when the CI gives none: a hash of its content, its
 * context text @ctx and its stored @order (or NULL). malloc'd; NULL: OOM. */
char *history_run_key(const struct ksft_metric_report *r, const char *ctx,
			  const char *order);

#endif
