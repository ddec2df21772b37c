/* The policy vocabulary's allowed sets (policy_vocab.h). */
#include <errno.h>
#include <string.h>

#include "policy_vocab.h"

const char *const ksftm_summaries[] = {
	KSFTM_SUM_LAST, KSFTM_SUM_TOTAL, KSFTM_SUM_P50, KSFTM_SUM_P90,
	KSFTM_SUM_P99, KSFTM_SUM_MAX, KSFTM_SUM_DISTRIBUTION, NULL
};
const char *const ksftm_comparisons[] = {
	KSFTM_SUM_LAST, KSFTM_SUM_TOTAL, KSFTM_SUM_P50, KSFTM_SUM_P90,
	KSFTM_SUM_P99, KSFTM_SUM_MAX, NULL
};
const char *const ksftm_transforms[] = { KSFTM_TRANSFORM_RATE, NULL };
const char *const ksftm_aggregations[] = { KSFTM_AGG_BCE, NULL };
const char *const ksftm_betters[] = { KSFTM_BETTER_HIGHER, KSFTM_BETTER_LOWER, NULL };

int ksftm_vocab_index(const char *const *set, const char *s)
{
	int i;

	for (i = 0; set[i]; i++)
		if (!strcmp(s, set[i]))
			return i;
	return -ENOENT;
}
