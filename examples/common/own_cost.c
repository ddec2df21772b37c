// SPDX-License-Identifier: GPL-2.0
/* The test's own CPU cost and its interference per repeat (own_cost.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <ksftmetric/metric.h>

#include "icount.h"
#include "net_policy.h"
#include "own_cost.h"
#include "proc.h"

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/*
 * @compare: NULL: shown only; else gated on that summary, lower is better,
 * 10% (a single run's own cost moves by 5-13% here: doc/producers.rst).
 */
static int register_one(const char *name, const char *label, int scale,
			const char *summarize, const char *compare)
{
	struct ksft_metric_policy p = KSFT_METRIC_POLICY_INIT;

	p.summarize = summarize;
	if (compare) {
		p.regression_compare = compare;
		p.regression_better = "lower";
		p.regression_relative_tolerance.type = KSFT_METRIC_DOUBLE;
		p.regression_relative_tolerance.u.d = 0.10;
		if (ex_icount_shift() >= 0)	/* deterministic: its A/A spread */
			p.regression_relative_tolerance.u.d = EX_ICOUNT_TOLERANCE;
	}
	/* Under icount at shift 0 a CPU second per GB is an instruction per
	 * byte: shown as such, unscaled. */
	if (scale == 1000 && ex_icount_shift() == 0) {
		scale = 1;
		label = !strcmp(name, EX_POLICY_TEST_BEST) ? "test instructions/byte, best repeat" :
			!strcmp(name, EX_POLICY_TEST_SPLIT) ? "test instructions/byte per endpoint" :
			"test instructions/byte";
	}
	p.display_min.type = KSFT_METRIC_INT;
	p.display_min.u.i = 0;
	if (scale != 1) {
		p.display_scale.type = KSFT_METRIC_INT;
		p.display_scale.u.i = scale;
	}
	p.display_label = label;
	return ksft_metric_aggregate(name, &p);
}

int ex_own_register(char **err)
{
	/* Each repeat is shown; the run's best of them is what is gated
	 * (ex_own_record_best(): interference only ever adds cost). */
	static const char *const d = "distribution";
	int ret = register_one(EX_POLICY_TEST_COST, "test CPU ms/GB", 1000, d, NULL);

	if (!ret)
		ret = register_one(EX_POLICY_TEST_SPLIT, "test CPU ms/GB per endpoint", 1000, d,
				   NULL);
	if (!ret)
		ret = register_one(EX_POLICY_RUNQ, "% of the time waiting for a CPU", 100, d, NULL);
	if (!ret)
		ret = register_one(EX_POLICY_NIVCSW, "involuntary switches/s", 1, d, NULL);
	if (!ret)
		ret = register_one(EX_POLICY_STEAL, "% of a CPU stolen", 100, d, NULL);
	if (!ret)
		ret = register_one(EX_POLICY_OTHERS, "% of a CPU used by others", 100, d, NULL);
	if (!ret)
		ret = register_one(EX_POLICY_SOFTIRQ, "% of a CPU in irq and softirq", 100, d,
				   NULL);
	return ret ? ex_errf(err, ret, "metric policy: %s", ksft_metric_errmsg()) : 0;
}

int ex_own_begin(struct ex_own_probe *p, char **err)
{
	ex_own_free(p);
	p->t0_us = now_us();
	if (ex_cpu_ticks_read(p->stat_path, &p->t0, err))
		return -EIO;
	if (p->ctr && ex_task_counters_read(p->ctr, p->ctr0)) {
		ex_cpu_ticks_free(&p->t0);
		return ex_errf(err, -EIO, "own instruction counters: read failed");
	}
	p->begun = 1;
	return 0;
}

int ex_own_counters_open(struct ex_own_probe *p, enum ex_task_counters_kind kind)
{
	static int said;	/* one line per process, not per repeat or trial */
	int ret;

	ex_own_counters_close(p);
	p->ctr_kind = kind;
	p->why_not[0] = '\0';
	ret = ex_task_counters_open(kind, &p->ctr, p->why_not, sizeof(p->why_not));
	if (ret && !said && ksft_metric_reporting_enabled() == 1) {
		said = 1;
		printf("# instructions per byte: skipped: %s\n", p->why_not);
		fflush(stdout);
	}
	return ret;
}

void ex_own_counters_close(struct ex_own_probe *p)
{
	ex_task_counters_close(p->ctr);
	p->ctr = NULL;
}

void ex_own_free(struct ex_own_probe *p)
{
	if (p->begun)
		ex_cpu_ticks_free(&p->t0);
	p->begun = 0;
}

void ex_own_others_split(double busy_s, double softirq_s, double mine_s, double *others_s,
			 double *softirq_s_out)
{
	/* Without CONFIG_IRQ_TIME_ACCOUNTING a tick in softirq run in our
	 * task's context counts both in the softirq column and in our system
	 * time: subtracted twice here, so others read low by it (never
	 * high), and an excuse needs evidence (doc/producers.rst). */
	*others_s = fmax(busy_s - softirq_s - mine_s, 0);
	*softirq_s_out = softirq_s;
}

static double cpu_of(const struct ex_task_usage *u)
{
	return u && u->valid ? u->user_s + u->sys_s : NAN;
}

static int record(const char *name, double v, const char *host)
{
	return isnan(v) ? 0 : ex_record_double(name, v, host);
}

static int record_all(const struct ex_own_result *r, int record_instr)
{
	static const char *const host[2] = { "local", "remote" };
	int i, ret = 0;

	if (!isnan(r->cost_both))
		ret = record(EX_POLICY_TEST_COST, r->cost_both, "both");
	else {
		ret = record(EX_POLICY_TEST_COST, r->cost_local, "local");
		if (!ret)
			ret = record(EX_POLICY_TEST_COST, r->cost_remote, "remote");
	}
	/* Under icount nothing outside the guest can disturb the run: the
	 * interference series would only measure the test itself (a dose moves
	 * them), and the history gate would hold a real regression back as
	 * DISTURBED. Not recorded there (doc/vm.rst). */
	int interference = ex_icount_shift() < 0;

	for (i = 0; !ret && i < 2; i++) {
		if (!isnan(r->cost_both))
			ret = record(EX_POLICY_TEST_SPLIT, i ? r->cost_remote : r->cost_local,
				     host[i]);
		if (!ret && interference)
			ret = record(EX_POLICY_RUNQ, r->runq[i], host[i]);
		if (!ret && interference)
			ret = record(EX_POLICY_NIVCSW, r->nivcsw[i], host[i]);
	}
	for (i = 0; !ret && interference && i < (r->shared_cpus ? 1 : 2); i++) {
		const char *h = r->shared_cpus ? "both" : host[i];

		ret = record(EX_POLICY_STEAL, r->steal[i], h);
		if (!ret)
			ret = record(EX_POLICY_OTHERS, r->others[i], h);
		if (!ret)
			ret = record(EX_POLICY_SOFTIRQ, r->softirq[i], h);
	}
	/* Registered only when counted: no policy without a point. */
	if (ret || !record_instr || isnan(r->instr[0]))
		return ret;
	ret = register_one(EX_POLICY_INSTR_USER, "instructions/byte, user", 1, "distribution",
			   NULL);
	if (!ret)
		ret = register_one(EX_POLICY_INSTR_KERNEL, "instructions/byte, kernel", 1,
				   "distribution", NULL);
	if (!ret)
		ret = record(EX_POLICY_INSTR_USER, r->instr[0], "both");
	if (!ret)
		ret = record(EX_POLICY_INSTR_KERNEL, r->instr[1], "both");
	return ret;
}

int ex_own_end(struct ex_own_probe *p, const struct ex_task_usage *local,
	       const struct ex_task_usage *remote, double remote_cpu_s, uint64_t bytes,
	       struct ex_own_result *out, char **err)
{
	struct ex_own_result r;
	struct ex_cpu_ticks t1;
	const cpu_set_t *set[2] = { NULL, NULL };
	cpu_set_t uni;
	double gb = (double)bytes / 1e9, own[2];
	int i, ret;

	for (i = 0; i < 2; i++)
		r.runq[i] = r.nivcsw[i] = r.steal[i] = r.others[i] = r.softirq[i] = NAN;
	r.cost_both = r.cost_local = r.cost_remote = NAN;
	r.shared_cpus = 1;
	r.instr[0] = r.instr[1] = NAN;
	if (out)
		*out = r;
	if (!p->begun)
		return ex_errf(err, -EINVAL, "own cost: end without begin");
	r.wall_s = (double)(now_us() - p->t0_us) / 1e6;
	ret = ex_cpu_ticks_read(p->stat_path, &t1, err);
	if (ret) {
		ex_own_free(p);
		return ret;
	}
	if (p->ctr && bytes) {
		uint64_t c1[2];

		if (ex_task_counters_read(p->ctr, c1) == 0)
			for (i = 0; i < 2; i++)
				r.instr[i] = (double)(c1[i] - p->ctr0[i]) / (double)bytes;
	}
	own[0] = cpu_of(local);
	own[1] = remote ? cpu_of(remote) : remote_cpu_s;
	if (bytes) {
		r.cost_local = own[0] / gb;
		r.cost_remote = own[1] / gb;
		if (remote)
			r.cost_both = (own[0] + own[1]) / gb;
	}
	if (r.wall_s > 0) {
		if (local && local->valid) {
			r.runq[0] = local->run_delay_s / r.wall_s;
			r.nivcsw[0] = (double)local->nivcsw / r.wall_s;
		}
		if (remote && remote->valid) {
			r.runq[1] = remote->run_delay_s / r.wall_s;
			r.nivcsw[1] = (double)remote->nivcsw / r.wall_s;
		}
	}
	if (p->pl && p->pl->pinned) {
		CPU_AND(&uni, &p->pl->server, &p->pl->client);
		r.shared_cpus = CPU_COUNT(&uni) > 0;
		CPU_OR(&uni, &p->pl->server, &p->pl->client);
		set[0] = r.shared_cpus ? &uni : &p->pl->server;
		set[1] = &p->pl->client;
	}
	for (i = 0; r.wall_s > 0 && i < (r.shared_cpus ? 1 : 2); i++) {
		double busy, steal, softirq, others, mine = 0;
		int k;

		/* Others: the busy time of those CPUs our tasks did not use,
		 * outside irq and softirq; a client behind ssh runs elsewhere
		 * and is not subtracted. */
		for (k = 0; k < 2; k++)
			if ((r.shared_cpus || k == i) && k < (remote ? 2 : 1) && !isnan(own[k]))
				mine += own[k];
		ex_cpu_ticks_delta(&p->t0, &t1, set[i], &busy, &steal, &softirq);
		ex_own_others_split(busy, softirq, mine, &others, &softirq);
		r.others[i] = others / r.wall_s;
		r.softirq[i] = softirq / r.wall_s;
		r.steal[i] = steal / r.wall_s;
	}
	ex_cpu_ticks_free(&t1);
	ex_own_free(p);
	if (out)
		*out = r;
	if (ksft_metric_reporting_enabled() != 1)
		return 0;
	ret = ex_own_register(err);
	if (!ret && (ret = record_all(&r, p->ctr_kind == EX_TASK_COUNTERS_HW)))
		ex_errf(err, ret, "metric: %s", ksft_metric_errmsg());
	return ret;
}

int ex_own_record_best(const double *cost, size_t n, char **err)
{
	double best = NAN;
	size_t i;
	int ret;

	for (i = 0; i < n; i++)
		if (!isnan(cost[i]) && (isnan(best) || cost[i] < best))
			best = cost[i];
	if (isnan(best) || ksft_metric_reporting_enabled() != 1)
		return 0;
	ret = register_one(EX_POLICY_TEST_BEST, "test CPU ms/GB, best repeat", 1000, "last",
			   "last");
	if (!ret)
		ret = ex_record_double(EX_POLICY_TEST_BEST, best, "both");
	return ret ? ex_errf(err, ret, "metric: %s", ksft_metric_errmsg()) : 0;
}
