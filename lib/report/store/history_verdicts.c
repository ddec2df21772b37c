/*
 * What a stored result means, below ingest and the replay (history.h):
 * which case statuses are measurements.
 */
#include <string.h>

#include "history.h"

int history_status_measured(const char *status)
{
	return status && (!strcmp(status, "pass") || !strcmp(status, "none"));
}
