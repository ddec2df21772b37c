/*
 * What a stored result means, below ingest and the replay (history.h):
 * which case statuses are measurements and which run contexts rule a run
 * out.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "history.h"

int history_status_measured(const char *status)
{
	return status && (!strcmp(status, "pass") || !strcmp(status, "none"));
}

static int truthy(json_t *v)
{
	const char *s = json_string_value(v);

	return json_is_true(v) || (json_is_integer(v) && json_integer_value(v)) ||
	       (s && (!strcmp(s, "true") || !strcmp(s, "1") || !strcmp(s, "yes")));
}

int history_context_incomparable(json_t *ctx)
{
	return truthy(json_object_get(ctx, "debug_kernel")) ||
	       truthy(json_object_get(ctx, "ksft_machine_slow"));
}
