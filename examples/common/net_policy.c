// SPDX-License-Identifier: GPL-2.0
/* The one definition of the network runners' metric policies. */
#include <ksftmetric/metric.h>

#include "icount.h"
#include "net_policy.h"
#include "proc.h"

const char *ex_net_throughput_unit;

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
	/* The unit, when the program asks (the main job): report, compare and
	 * the HTML show "32.6 Gbit/s". The kernel's runners set none. */
	tput.display_label = ex_net_throughput_unit;
	if (ex_icount_shift() >= 0) {
		/* Bytes over instruction-counted time: a deterministic proxy of
		 * instructions per byte, never a line rate (doc/vm.rst). */
		tput.regression_relative_tolerance.u.d = EX_ICOUNT_PROXY_TOLERANCE;
		if (ex_net_throughput_unit)
			tput.display_label = "virtual Gbit/s (icount proxy)";
	}
	retr.summarize = "max";
	/* Each stable interval of each repeat: how steady a run was. Shown,
	 * not gated (the per-repeat "throughput" is the gated one). */
	ival.summarize = "distribution";
	ival.display_label = tput.display_label;
	ret = ksft_metric_aggregate(EX_POLICY_THROUGHPUT, &tput);
	if (!ret)
		ret = ksft_metric_aggregate(EX_POLICY_RETRANSMITS, &retr);
	if (!ret)
		ret = ksft_metric_aggregate(EX_POLICY_INTERVAL, &ival);
	if (ret)
		return ex_errf(err, ret, "metric policy: %s", ksft_metric_errmsg());
	return 0;
}

static const char *trial_variant;
static int trial_pair;

void ex_trial_set(const char *variant, int pair)
{
	trial_variant = variant;
	trial_pair = pair;
}

/* host, then variant and pair while a trial is set: @return the count. */
static size_t labels(struct ksft_metric_label l[3], const char *host)
{
	l[0].key = "host";
	l[0].value.type = KSFT_METRIC_STRING;
	l[0].value.u.s = host;
	if (!trial_variant)
		return 1;
	l[1].key = "variant";
	l[1].value.type = KSFT_METRIC_STRING;
	l[1].value.u.s = trial_variant;
	l[2].key = "pair";
	l[2].value.type = KSFT_METRIC_INT;
	l[2].value.u.i = trial_pair;
	return 3;
}

int ex_record_double(const char *name, double v, const char *host)
{
	struct ksft_metric_label l[3];

	return ksft_metric_double(name, "scalar", v, l, labels(l, host));
}

int ex_record_int(const char *name, long long v, const char *host)
{
	struct ksft_metric_label l[3];

	return ksft_metric_int(name, "scalar", v, l, labels(l, host));
}
