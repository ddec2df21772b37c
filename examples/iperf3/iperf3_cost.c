// SPDX-License-Identifier: GPL-2.0
/* iperf3_run() hooks around a ksft_cpu_cost meter (see iperf3_cost.h). */
#include <errno.h>

#include "iperf3_cost.h"
#include "proc.h"

static int cost_begin(void *ctx, char **err)
{
	int ret = ksft_cpu_cost_begin(ctx);

	return ret ? ex_errf(err, ret, "cpu.cost: %s", ksft_sysmon_errmsg()) : 0;
}

static int cost_end(void *ctx, const struct iperf3_result *one, char **err)
{
	int ret;

	if (!one->bytes)
		return ex_errf(err, -ENODATA,
			       "cpu.cost: iperf3 output has no end.sum_received.bytes");
	ret = ksft_cpu_cost_end(ctx, one->bytes, NULL);
	return ret ? ex_errf(err, ret, "cpu.cost: %s", ksft_sysmon_errmsg()) : 0;
}

void iperf3_opts_cpu_cost(struct iperf3_opts *o, struct ksft_cpu_cost *meter)
{
	o->repeat_begin = cost_begin;
	o->repeat_end = cost_end;
	o->hook_ctx = meter;
}
