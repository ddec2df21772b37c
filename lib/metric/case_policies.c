/* The open case's policy table: ksft_metric_aggregate*() register, case end takes it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ksftmetric/metric.h>

#include "case_flush.h"
#include "case_policies.h"
#include "case_rejects.h"
#include "case_state.h"
#include "errmsg.h"
#include "grow.h"
#include "json_text.h"
#include "policy.h"

/* All under ksftm_case_lock. */
static struct policy_entry *policies;
static size_t n_policies, cap_policies;

void case_policies_clear(void)
{
	size_t i;

	for (i = 0; i < n_policies; i++) {
		free(policies[i].name);
		policy_release(&policies[i].policy);
	}
	free(policies);
	policies = NULL;
	n_policies = cap_policies = 0;
}

void case_policies_take(struct policy_entry **v, size_t *n)
{
	*v = policies;
	*n = n_policies;
	policies = NULL;
	n_policies = cap_policies = 0;
}

static int register_policy(const char *name, struct policy *p)
{
	size_t i, bytes;
	int ret = 0;

	pthread_mutex_lock(&ksftm_case_lock);
	if (!atomic_load(&ksftm_case_open)) {
		ret = ksftm_fail(EPERM, "ksft_metric_aggregate() called outside of a test case");
		goto out;
	}
	for (i = 0; i < n_policies; i++) {
		if (strcmp(policies[i].name, name))
			continue;
		if (!policy_equal(&policies[i].policy, p)) {
			ret = ksftm_fail(EEXIST, "Conflicting aggregation for metric %s", name);
			goto out;
		}
		/* Equal: like the reference, the latest spelling (0 vs 0.0) wins. */
		policy_release(&policies[i].policy);
		policies[i].policy = *p;
		p->label = NULL;
		goto out;
	}
	if (case_buffer_name_observed(name)) {
		ret = ksftm_fail(EALREADY, "Aggregation registered after metric %s was recorded",
				 name);
		goto out;
	}
	/* The policy's strings count against the case's memory cap. */
	bytes = sizeof(*policies) + strlen(name) + 1 + (p->label ? strlen(p->label) + 1 : 0);
	if (budget_charge(&ksftm_case_bytes, atomic_load(&ksftm_buffer_limit), bytes)) {
		ret = ksftm_fail(ENOBUFS, "metric buffer limit of %zu bytes per case reached; policy of metric %s dropped",
				 atomic_load(&ksftm_buffer_limit), name);
		goto out;
	}
	if (ksftm_grow((void **)&policies, &cap_policies, n_policies + 1, sizeof(*policies), 16))
		goto oom;
	policies[n_policies].name = strdup(name);
	if (!policies[n_policies].name)
		goto oom;
	policies[n_policies].policy = *p;
	p->label = NULL;
	n_policies++;
	/* Write-through: the line goes out now, before any observation of it. */
	if (atomic_load(&ksftm_case_stream)) {
		ret = case_stream_policy(name, &policies[n_policies - 1].policy);
		if (ret) {
			/* Its line failed: not registered (a retry may succeed). */
			n_policies--;
			free(policies[n_policies].name);
			policy_release(&policies[n_policies].policy);
			atomic_fetch_sub(&ksftm_case_bytes, bytes);
		}
	}
	goto out;
oom:
	atomic_fetch_sub(&ksftm_case_bytes, bytes);
	ret = ksftm_fail(ENOMEM, "out of memory registering metric %s", name);
out:
	pthread_mutex_unlock(&ksftm_case_lock);
	policy_release(p);
	return ret;
}

static int check_policy_name(const char *name)
{
	if (!name)
		return ksftm_fail(EINVAL, "metric name is NULL");
	if (!name[0])
		return ksftm_fail(EINVAL, "metric name is empty");
	/* It goes into the policy line's JSON, as observations' names do. */
	if (!utf8_valid(name, strlen(name)))
		return ksftm_fail(EINVAL, "policy metric name is not valid UTF-8");
	return 0;
}

KSFT_METRIC_API int ksft_metric_aggregate(const char *name,
					  const struct ksft_metric_policy *in)
{
	struct policy p;
	int ret = check_policy_name(name);

	if (!ret)
		ret = policy_from_struct(name, in, &p);
	if (!ret)
		ret = register_policy(name, &p);
	return case_call_result("ksft_metric_aggregate", name, ret);
}

KSFT_METRIC_API int ksft_metric_aggregate_json(const char *name, const char *json)
{
	struct policy p;
	int ret = check_policy_name(name);

	if (!ret)
		ret = policy_from_json(name, json, &p);
	if (!ret)
		ret = register_policy(name, &p);
	return case_call_result("ksft_metric_aggregate_json", name, ret);
}
