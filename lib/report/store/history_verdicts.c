/*
 * What a stored result means, below ingest and the replay (history.h):
 * which case statuses are measurements, which run contexts rule a run out,
 * and a run's verdict per series from the gate's rows.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "history.h"
#include "rp.h"
#include "rp_compare.h"
#include "verdict_vocab.h"

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

static const char *const worst_first[] = {
	KSFTM_VERDICT_REGRESSION, KSFTM_VERDICT_CASE_FAILED, KSFTM_VERDICT_DISTURBED,
	KSFTM_VERDICT_TOO_NOISY,
	KSFTM_VERDICT_IMPROVEMENT, KSFTM_VERDICT_NOT_COMPARABLE, KSFTM_VERDICT_NEW,
	KSFTM_VERDICT_UNTRACKED, KSFTM_VERDICT_NO_CHANGE,
};
#define N_VERDICTS (sizeof(worst_first) / sizeof(worst_first[0]))

const char *history_verdict_name(unsigned char v)
{
	return worst_first[v < N_VERDICTS ? v : N_VERDICTS - 1];
}

/*
 * Each series' verdict from the comparison's rows (the worst of an array's
 * elements), as indexes into worst_first[]: one pass over the rows, not one
 * per series (rp_work counts the rows visited). NULL: out of memory.
 */
unsigned char *history_series_verdicts(const struct ksft_metric_report_comparison *c, size_t n)
{
	unsigned char *best = malloc(n ? n : 1);
	size_t k, j;

	if (!best)
		return NULL;
	memset(best, N_VERDICTS - 1, n);
	for (k = 0; k < c->n; k++) {
		long i = c->rows[k].series;

		rp_work++;
		if (i < 0 || (size_t)i >= n)
			continue;	/* a missing series: not in this run */
		for (j = 0; j < best[i]; j++)
			if (!strcmp(c->rows[k].verdict, worst_first[j]))
				best[i] = (unsigned char)j;
	}
	return best;
}
