// SPDX-License-Identifier: GPL-2.0
/*
 * CPU cost per byte of a measurement: the system monitor's busy totals and
 * perf_event counters taken at begin and end, divided by the bytes moved.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ksftmetric/ksftmetric.h>

#include "cpu_cost.h"
#include "cpu_counters.h"
#include "icount.h"
#include "opts_size.h"
#include "sm_error.h"

#define COST "cpu.cost"
#define CYCLES "cpu.cycles_per_byte"
#define INSNS "cpu.instructions_per_byte"

struct ksft_cpu_cost {
	struct ksft_sysmon *mon;
	int kind;			/* enum ksft_cpu_cost_counters */
	struct cpu_counters *counters;	/* NULL: none */
	char missing[256];		/* why there are none, "" if not asked */
	int begun;
	double busy[2];			/* local, remote at begin */
	uint64_t count[2];		/* counters at begin */
};

/*
 * Lower is better; compared by the p50 of the repeats. 10%: a single run's
 * cost moves by about as much as its throughput (doc/producers.rst), so a
 * tighter tolerance would flag noise.
 */
static int register_one(const char *name, const char *label, double scale)
{
	struct ksft_metric_policy p = KSFT_METRIC_POLICY_INIT;
	int err;

	p.summarize = "distribution";
	p.regression_compare = "p50";
	p.regression_better = "lower";
	p.regression_relative_tolerance.type = KSFT_METRIC_DOUBLE;
	p.regression_relative_tolerance.u.d = 0.10;
	/* Under icount: busy time from /proc/stat, in 10 ms ticks, each end
	 * +-1 tick: 1 % of a 2 s run is quantization, not noise (doc/vm.rst). */
	if (ex_icount_shift() >= 0)
		p.regression_relative_tolerance.u.d = EX_ICOUNT_TICK_TOLERANCE;
	p.display_min.type = KSFT_METRIC_INT;
	p.display_min.u.i = 0;
	if (scale != 1) {
		p.display_scale.type = KSFT_METRIC_INT;
		p.display_scale.u.i = (int64_t)scale;
	}
	p.display_label = label;
	err = ksft_metric_aggregate(name, &p);
	return err ? sm_fail(err, "registering the policy of %s: %s", name,
			     ksft_metric_errmsg()) : 0;
}

static int register_counters(void)
{
	int err = register_one(CYCLES, "cycles/byte", 1);

	return err ? err : register_one(INSNS, "instructions/byte", 1);
}

int ksft_cpu_cost_register(void)
{
	/* Recorded in CPU seconds per GB, shown in milliseconds; under icount
	 * at shift 0 a CPU second per GB is an instruction per byte. */
	if (ex_icount_shift() == 0)
		return register_one(COST, "guest instructions/byte (icount)", 1);
	return register_one(COST, "CPU ms/GB", 1000);
}

struct ksft_cpu_cost *ksft_cpu_cost_new(const struct ksft_cpu_cost_opts *opts)
{
	struct ksft_cpu_cost_opts o = KSFT_CPU_COST_OPTS_INIT;
	struct ksft_cpu_cost *c;
	size_t sz;
	int err;

	if (!opts) {
		err = sm_fail(-EINVAL, "no options: a running system monitor is needed");
		goto fail;
	}
	switch (ksftm_opts_copy(&o, sizeof(o), opts, &sz)) {
	case KSFTM_OPTS_OK:
		break;
	default:
		err = sm_fail(-EINVAL, "opts.sz %zu: initialise with KSFT_CPU_COST_OPTS_INIT", sz);
		goto fail;
	}
	if (!o.mon) {
		err = sm_fail(-EINVAL, "no system monitor (opts.mon)");
		goto fail;
	}
	if (o.counters < KSFT_CPU_COST_NO_COUNTERS || o.counters > KSFT_CPU_COST_SW_COUNTERS) {
		err = sm_fail(-EINVAL, "counters %d is not a ksft_cpu_cost_counters value",
			      o.counters);
		goto fail;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		err = sm_fail(-ENOMEM, "out of memory");
		goto fail;
	}
	c->mon = o.mon;
	c->kind = o.counters;
	if (c->kind != KSFT_CPU_COST_NO_COUNTERS) {
		err = cpu_counters_open(c->kind == KSFT_CPU_COST_HW_COUNTERS ?
					CPU_COUNTERS_HARDWARE : CPU_COUNTERS_SOFTWARE,
					&c->counters);
		if (err == -ENOMEM) {
			free(c);
			goto fail;
		}
		if (err)	/* a VM without a PMU, or not allowed: say so, go on */
			snprintf(c->missing, sizeof(c->missing), "%s (%s)",
				 err == -ENOENT || err == -EOPNOTSUPP ? "no hardware counters"
				 : err == -EACCES || err == -EPERM ? "counters not permitted"
				 : "counters unavailable", sm_errmsg());
	}
	return c;
fail:
	errno = -err;
	return NULL;
}

const char *ksft_cpu_cost_counters_missing(const struct ksft_cpu_cost *c)
{
	return c && c->missing[0] ? c->missing : NULL;
}

int ksft_cpu_cost_begin(struct ksft_cpu_cost *c)
{
	int err;

	if (!c)
		return sm_fail(-EINVAL, "no meter");
	c->begun = 0;
	err = ksft_sysmon_busy_seconds(c->mon, &c->busy[0], &c->busy[1]);
	if (!err && c->counters)
		err = cpu_counters_read(c->counters, c->count);
	if (!err)
		c->begun = 1;
	return err;
}

static int record(const char *name, double v, const char *host)
{
	const struct ksft_metric_label label[] = { KSFT_METRIC_LABEL_STR("host", host) };
	int err;

	if (isnan(v))
		return 0;
	err = ksft_metric_double(name, "scalar", v, label, 1);
	return err ? sm_fail(err, "recording %s: %s", name, ksft_metric_errmsg()) : 0;
}

int ksft_cpu_cost_end(struct ksft_cpu_cost *c, uint64_t bytes,
		      struct ksft_cpu_cost_result *out)
{
	struct ksft_cpu_cost_result r = { NAN, NAN, NAN, NAN };
	double busy[2], gb = (double)bytes / 1e9;
	uint64_t count[2];
	int err, hw;

	if (out)
		*out = r;
	if (!c || !c->begun)
		return sm_fail(-EINVAL, "ksft_cpu_cost_end() without ksft_cpu_cost_begin()");
	c->begun = 0;
	if (!bytes)
		return sm_fail(-EINVAL, "no bytes moved: no cost per byte");
	err = ksft_sysmon_busy_seconds(c->mon, &busy[0], &busy[1]);
	if (err)
		return err;
	r.cost_local = fmax(busy[0] - c->busy[0], 0) / gb;
	r.cost_remote = isnan(busy[1]) || isnan(c->busy[1]) ? NAN
			: fmax(busy[1] - c->busy[1], 0) / gb;
	if (c->counters) {
		err = cpu_counters_read(c->counters, count);
		if (err)
			return err;
		/* Extrapolated (multiplexed) counts can step back: count 0. */
		r.cycles_per_byte = (double)(count[0] > c->count[0] ? count[0] - c->count[0] : 0) /
				    (double)bytes;
		r.instructions_per_byte = (double)(count[1] > c->count[1] ?
						   count[1] - c->count[1] : 0) / (double)bytes;
	}
	if (out)
		*out = r;
	if (ksft_metric_reporting_enabled() != 1)
		return 0;
	hw = c->counters && c->kind == KSFT_CPU_COST_HW_COUNTERS;
	err = ksft_cpu_cost_register();
	if (!err && hw)
		err = register_counters();
	if (!err)
		err = record(COST, r.cost_local, "local");
	if (!err)
		err = record(COST, r.cost_remote, "remote");
	if (!err && hw)
		err = record(CYCLES, r.cycles_per_byte, "local");
	if (!err && hw)
		err = record(INSNS, r.instructions_per_byte, "local");
	return err;
}

void ksft_cpu_cost_free(struct ksft_cpu_cost *c)
{
	if (!c)
		return;
	cpu_counters_close(c->counters);
	free(c);
}
