/*
 * The run context (context.c): the logs' merged, and the one
 * KEY=VALUE rule of --context.
 */
#ifndef KSFTM_CONTEXT_H
#define KSFTM_CONTEXT_H

#include <jansson.h>
#include <stddef.h>

struct ksft_metric_report;

/*
 * The run context: the logs' merged with "KEY=VALUE" entries (they win): the
 * one KEY=VALUE rule, for the writers and the history (read/context.c).
 * Returns a new object, or NULL with the error set (a bad entry: -EINVAL
 * naming it; -ENOMEM).
 */
json_t *context_with(const struct ksft_metric_report *r,
		     const char *const *kv, size_t n, int *err);
/* Merge one context line's object into the report's run context (ktap.c). */
void context_merge(struct ksft_metric_report *r, const char *file,
		   unsigned long line, json_t *obj);

#endif
