/*
 * The policy vocabulary both libraries speak (ktap-metric-policy-json):
 * every key and every allowed value, spelled once. The producer validates
 * against the sets, the consumer decodes with the same words.
 */
#ifndef KSFTM_POLICY_VOCAB_H
#define KSFTM_POLICY_VOCAB_H

/* The names of the series that say how disturbed the machine was
 * (doc/producers.rst), not what the test measures. */
#define KSFTM_INTERFERENCE_PREFIX	"interference."

/* Keys of the policy object, and of its two nested objects. */
#define KSFTM_PK_NAME			"name"
#define KSFTM_PK_SUMMARIZE		"summarize"
#define KSFTM_PK_TRANSFORM		"transform"
#define KSFTM_PK_AGGREGATION		"aggregation"
#define KSFTM_PK_REGRESSION		"regression"
#define KSFTM_PK_COMPARE		"compare"
#define KSFTM_PK_BETTER			"better"
#define KSFTM_PK_REL_TOL		"relative_tolerance"
#define KSFTM_PK_ABS_TOL		"absolute_tolerance"
#define KSFTM_PK_DISPLAY_RANGE		"display_range"
#define KSFTM_PK_MIN			"min"
#define KSFTM_PK_MAX			"max"
#define KSFTM_PK_DISPLAY_SCALE		"display_scale"
#define KSFTM_PK_DISPLAY_LABEL		"display_label"

/* Values. */
#define KSFTM_SUM_LAST			"last"
#define KSFTM_SUM_TOTAL			"total"
#define KSFTM_SUM_P50			"p50"
#define KSFTM_SUM_P90			"p90"
#define KSFTM_SUM_P99			"p99"
#define KSFTM_SUM_MAX			"max"
#define KSFTM_SUM_DISTRIBUTION		"distribution"
/* summarize when a policy names none. */
#define KSFTM_SUM_DEFAULT		KSFTM_SUM_TOTAL
#define KSFTM_TRANSFORM_RATE		"rate"
#define KSFTM_AGG_BCE			"busy-core-equivalents"
#define KSFTM_BETTER_HIGHER		"higher"
#define KSFTM_BETTER_LOWER		"lower"

/* The allowed sets, NULL-terminated, in the order error messages list them. */
extern const char *const ksftm_summaries[];
/* regression.compare: every summary but "distribution" (not one number). */
extern const char *const ksftm_comparisons[];
extern const char *const ksftm_transforms[];
extern const char *const ksftm_aggregations[];
extern const char *const ksftm_betters[];

/* Index of @s in the NULL-terminated @set, or -ENOENT. */
int ksftm_vocab_index(const char *const *set, const char *s);

#endif
