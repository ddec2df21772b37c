/* A policy as read from a ktap-metric-policy-json line (rp_policy.c). */
#ifndef KSFTM_RP_POLICY_H
#define KSFTM_RP_POLICY_H

#include <jansson.h>
#include <ksftmetric/report.h>

/* A policy as decoded from a ktap-metric-policy-json line. */
struct rp_policy {
	int summarize;		/* RP_OP_* (never NONE once parsed) */
	int transform;
	int aggregation;
	int compare;		/* RP_OP_NONE: no regression policy */
	int better;		/* +1 higher, -1 lower, 0 unknown */
	double rel_tol, abs_tol;	/* NaN: not given */
	double disp_min, disp_max, disp_scale;
	char *disp_label;
	char *json;		/* canonical object (without "name") */
	const char *file;	/* where it was declared */
	unsigned long line;
};

/*
 * Decode @obj (a policy line's object, "name" ignored) into @p: 0, or
 * -EINVAL with the reason as the message ("unknown summarize value
 * \"x\""; callers quote it with the file, line or row it came from), or
 * -ENOMEM. Unknown keys are reported in @unknown (malloc'd, may be NULL)
 * but do not fail.
 */
int rp_policy_from_json(json_t *obj, struct rp_policy *p, char **unknown);
void rp_policy_clear(struct rp_policy *p);
/* 0, or -ENOMEM (no message). */
int rp_policy_copy(struct rp_policy *dst, const struct rp_policy *src);
/* A malloc'd copy of @src (rp_policy_free()), or NULL (no message). */
struct rp_policy *rp_policy_dup(const struct rp_policy *src);
/* rp_policy_clear() and free() a policy of its own; NULL: nothing. */
void rp_policy_free(struct rp_policy *p);
int rp_policy_equal(const struct rp_policy *a, const struct rp_policy *b);
/*
 * zperf_regression.py's default --tolerance: how far a zperf or twister
 * series without a regression policy may get worse, in compare --baseline
 * and in the history gate alike.
 */
#define RP_DEFAULT_REL_TOL 0.05

/*
 * The gate of a series whose policy has no "compare" (both gates): zperf and
 * twister results (any source but KTAP) by their p50, higher is
 * better, within RP_DEFAULT_REL_TOL. @return 1 and fill @op (RP_OP_*),
 * @better and @rel_tol; 0 for a KTAP series (not gated; nothing filled).
 */
int rp_policy_default_gate(int source, int *op, int *better, double *rel_tol);

/* "higher" 1, "lower" -1, else 0. */
int rp_policy_better(const char *b);
/* How the history gate judges series @s: its statistic @op ("p50" when
 * the policy names none), direction and tolerances, a zperf or twister
 * series by compare_default_gate(). The gate's reader and the gate both ask. */
void rp_policy_gate_of(const struct ksft_metric_report_series *s, const char **op, int *better,
		       double *rel_tol, double *abs_tol);

#endif
