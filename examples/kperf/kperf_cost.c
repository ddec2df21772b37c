// SPDX-License-Identifier: GPL-2.0
/* kperf runner hooks around a ksft_cpu_cost meter (see kperf_cost.h). */
#include <errno.h>

#include "kperf_cost.h"
#include "proc.h"

static int cost_begin(void *ctx, char **err)
{
	int ret = ksft_cpu_cost_begin(ctx);

	return ret ? ex_errf(err, ret, "cpu.cost: %s", ksft_sysmon_errmsg()) : 0;
}

static int cost_end(void *ctx, const struct kperf_result *res, char **err)
{
	int ret;

	/* What the receiving endpoint got, as iperf3's sum_received. */
	if (!res->target.bytes)
		return ex_errf(err, -ENODATA,
			       "cpu.cost: the kperf report has no Target Rx byte count");
	ret = ksft_cpu_cost_end(ctx, res->target.bytes, NULL);
	return ret ? ex_errf(err, ret, "cpu.cost: %s", ksft_sysmon_errmsg()) : 0;
}

void kperf_opts_cpu_cost(struct kperf_opts *o, struct ksft_cpu_cost *meter)
{
	o->run_begin = cost_begin;
	o->run_end = cost_end;
	o->hook_ctx = meter;
}
