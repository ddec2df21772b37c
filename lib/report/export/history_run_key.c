/*
 * A run's key from its content (history_run_key.h): ingest's run id and
 * compare --order's place when the CI gives no id. It hashes the report's
 * JSON document (format_json.c), so it sits with the writers.
 */
#include <stdio.h>
#include <stdlib.h>

#include "history_run_key.h"
#include "ksftmetric/report.h"

/* A run key from the content when the CI gives none: the same logs give
 * the same key, so ingesting them twice is refused, not duplicated. */
char *history_run_key(const struct ksft_metric_report *r, const char *ctx,
			  const char *order)
{
	char *text = NULL, *key;
	size_t len = 0, i;
	unsigned long long h = 1469598103934665603ULL;	/* FNV-1a 64 */

	if (ksft_metric_report_format(r, KSFT_METRIC_REPORT_JSON, &text, &len))
		return NULL;
	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)text[i]) * 1099511628211ULL;
	for (i = 0; ctx[i]; i++)
		h = (h ^ (unsigned char)ctx[i]) * 1099511628211ULL;
	/* The CI's order too: a new build with the same numbers (a
	 * deterministic measurement) is a new run, not the same one again. */
	for (i = 0; order && order[i]; i++)
		h = (h ^ (unsigned char)order[i]) * 1099511628211ULL;
	ksft_metric_report_text_free(text);
	key = malloc(24);
	if (key)
		snprintf(key, 24, "sha-%016llx", h);
	return key;
}
