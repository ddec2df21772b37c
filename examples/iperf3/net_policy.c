// SPDX-License-Identifier: GPL-2.0
/* The one definition of the network runners' metric policies. */
#include <ksftmetric/metric.h>

#include "net_policy.h"
#include "proc.h"

int ex_net_policies_register(char **err)
{
	struct ksft_metric_policy tput = KSFT_METRIC_POLICY_INIT;
	struct ksft_metric_policy retr = KSFT_METRIC_POLICY_INIT;
	struct ksft_metric_policy ival = KSFT_METRIC_POLICY_INIT;
	int ret;

	tput.summarize = "distribution";
	tput.regression_compare = "p50";
	tput.regression_better = "higher";
	tput.regression_relative_tolerance.type = KSFT_METRIC_DOUBLE;
	tput.regression_relative_tolerance.u.d = 0.05;
	retr.summarize = "max";
	/* Each stable interval of each repeat: how steady a run was. Shown,
	 * not gated (the per-repeat "throughput" is the gated one). */
	ival.summarize = "distribution";
	ret = ksft_metric_aggregate(EX_POLICY_THROUGHPUT, &tput);
	if (!ret)
		ret = ksft_metric_aggregate(EX_POLICY_RETRANSMITS, &retr);
	if (!ret)
		ret = ksft_metric_aggregate(EX_POLICY_INTERVAL, &ival);
	if (ret)
		return ex_errf(err, ret, "metric policy: %s", ksft_metric_errmsg());
	return 0;
}
