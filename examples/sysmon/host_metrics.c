// SPDX-License-Identifier: GPL-2.0
/*
 * Turn one host's /proc/stat and NIC snapshots into the reference
 * SystemMonitor's observations: same names, shapes, labels, policies and
 * formulas, plus defined answers where the reference has none (hotplug,
 * counters going backwards).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ksftmetric/ksftmetric.h>

#include "host_metrics.h"
#include "sm_error.h"

static const char *const cpu_time_names[CPU_TIME_NMETRICS] = {
	"cpu.time.usr", "cpu.time.sys", "cpu.time.sirq"
};

static const char *const nic_metric_names[NIC_NCOUNTERS] = {
	"nic.rx.dropped", "nic.rx.missed_errors", "nic.tx.dropped"
};

static int metric_fail(int err, const char *what, const char *name)
{
	return sm_fail(err, "%s %s: %s", what, name, ksft_metric_errmsg());
}

int host_metrics_register(void)
{
	/* The reference passes ints: display_range {"min": 0, "max": 100}. */
	const struct ksft_metric_value zero = KSFT_METRIC_INT_V(0);
	const struct ksft_metric_value hundred = KSFT_METRIC_INT_V(100);
	struct ksft_metric_policy p = KSFT_METRIC_POLICY_INIT;
	int i, err;

	p.summarize = "p90";
	p.transform = "rate";
	p.aggregation = "busy-core-equivalents";
	p.display_min = zero;
	p.display_max = hundred;
	p.display_scale = hundred;
	p.display_label = "Percent of one CPU";
	for (i = 0; i < CPU_TIME_NMETRICS; i++) {
		err = ksft_metric_aggregate(cpu_time_names[i], &p);
		if (err)
			return metric_fail(err, "registering the policy of", cpu_time_names[i]);
	}
	p.transform = NULL;
	p.display_scale.type = KSFT_METRIC_UNSET;
	err = ksft_metric_aggregate("cpu.utilization", &p);
	if (err)
		return metric_fail(err, "registering the policy of", "cpu.utilization");

	p = (struct ksft_metric_policy)KSFT_METRIC_POLICY_INIT;
	p.summarize = "distribution";
	p.transform = "rate";
	p.display_min = zero;
	for (i = 0; i < NIC_NCOUNTERS; i++) {
		err = ksft_metric_aggregate(nic_metric_names[i], &p);
		if (err)
			return metric_fail(err, "registering the policy of", nic_metric_names[i]);
	}
	return 0;
}

/* Make the per-CPU state hold CPU ids below @n. */
static int reserve(struct host_metrics *h, size_t n)
{
	size_t cap = h->cap ? h->cap : 64, old = h->cap;
	void *p;

	if (n <= h->cap)
		return 0;
	while (cap < n)
		cap *= 2;
#define GROW(field) do { \
		p = realloc(h->field, cap * sizeof(*h->field)); \
		if (!p) \
			return sm_fail(-ENOMEM, "out of memory for %zu CPUs", n); \
		h->field = p; \
		memset(h->field + old, 0, (cap - old) * sizeof(*h->field)); \
	} while (0)
	GROW(in_base);
	GROW(stashed);
	GROW(stash);
	GROW(acc);
	GROW(values);
	GROW(present);
#undef GROW
	h->cap = cap;
	return 0;
}

/* The sample becomes the previous one; the caller's struct gets the old memory. */
static void take_snapshot(struct cpu_snapshot *prev, struct cpu_snapshot *cpu)
{
	struct cpu_snapshot t = *prev;

	*prev = *cpu;
	*cpu = t;
}

static uint64_t field_delta(uint64_t now, uint64_t before)
{
	/* /proc/stat fields can step back (iowait, idle under NO_HZ): count 0. */
	return now > before ? now - before : 0;
}

int host_metrics_baseline(struct host_metrics *h, const char *host, long clk_tck,
			  struct cpu_snapshot *cpu, const uint64_t *nic)
{
	const struct ksft_metric_label label[] = { KSFT_METRIC_LABEL_STR("host", host) };
	size_t i;
	int err;

	h->host = host;
	h->clk_tck = clk_tck;
	h->has_nic = nic != NULL;
	err = reserve(h, cpu->n);
	if (err)
		return err;
	for (i = 0; i < cpu->n; i++)
		h->in_base[i] = cpu->present[i];
	h->n_seen = cpu->n;
	take_snapshot(&h->prev, cpu);
	if (!nic)
		return 0;
	memcpy(h->nic_last, nic, sizeof(h->nic_last));
	memset(h->nic_acc, 0, sizeof(h->nic_acc));
	for (i = 0; i < NIC_NCOUNTERS; i++) {
		err = ksft_metric_int(nic_metric_names[i], "scalar", 0, label, 1);
		if (err)
			return metric_fail(err, "recording", nic_metric_names[i]);
	}
	return 0;
}

/*
 * Add this sample's growth to each CPU's accumulated metric ticks, counted
 * from the previous sample, or for a CPU that was offline then, from the
 * ticks stashed when it went away.
 */
static void accumulate(struct host_metrics *h, const struct cpu_snapshot *cpu)
{
	const struct cpu_snapshot *prev = &h->prev;
	size_t i;

	for (i = 0; i < prev->n; i++)	/* going offline now: remember where it was */
		if (prev->present[i] && (i >= cpu->n || !cpu->present[i])) {
			memcpy(h->stash[i], prev->ticks[i], sizeof(h->stash[i]));
			h->stashed[i] = 1;
		}
	for (i = 0; i < cpu->n; i++) {
		const uint64_t *t = cpu->ticks[i], *was;

		if (!cpu->present[i])
			continue;
		if (i < prev->n && prev->present[i])
			was = prev->ticks[i];
		else if (h->stashed[i])
			was = h->stash[i];
		else
			continue;	/* first seen now */
		h->acc[i][CPU_TIME_USR] += field_delta(t[CPU_USER], was[CPU_USER]) +
					   field_delta(t[CPU_NICE], was[CPU_NICE]);
		h->acc[i][CPU_TIME_SYS] += field_delta(t[CPU_SYSTEM], was[CPU_SYSTEM]);
		h->acc[i][CPU_TIME_SIRQ] += field_delta(t[CPU_SOFTIRQ], was[CPU_SOFTIRQ]);
	}
}

static int record_array(struct host_metrics *h, const char *name, size_t n_present)
{
	const struct ksft_metric_label label[] = { KSFT_METRIC_LABEL_STR("host", h->host) };
	int err;

	if (!n_present)	/* as the reference: no CPU in common, no observation */
		return 0;
	err = ksft_metric_array(name, "per-cpu", h->values, h->present, h->n_seen, label, 1);
	return err ? metric_fail(err, "recording", name) : 0;
}

static int record_cpu_times(struct host_metrics *h, const struct cpu_snapshot *cpu)
{
	double tck = (double)h->clk_tck;
	size_t i, n_present = 0;
	int m, err;

	for (i = 0; i < h->n_seen; i++) {
		h->present[i] = i < cpu->n && cpu->present[i] && h->in_base[i];
		n_present += h->present[i];
	}
	for (m = 0; m < CPU_TIME_NMETRICS; m++) {
		for (i = 0; i < h->n_seen; i++)
			if (h->present[i])
				h->values[i] = (double)h->acc[i][m] / tck;
		err = record_array(h, cpu_time_names[m], n_present);
		if (err)
			return err;
	}
	return 0;
}

static int record_utilization(struct host_metrics *h, const struct cpu_snapshot *cpu)
{
	const struct cpu_snapshot *prev = &h->prev;
	size_t i, n_present = 0;

	for (i = 0; i < h->n_seen; i++) {
		uint64_t d[CPU_NFIELDS], total = 0;
		int f;

		h->present[i] = 0;
		if (i >= cpu->n || !cpu->present[i] || i >= prev->n || !prev->present[i])
			continue;
		for (f = 0; f < CPU_NFIELDS; f++) {
			d[f] = field_delta(cpu->ticks[i][f], prev->ticks[i][f]);
			total += d[f];
		}
		if (!total)	/* as the reference: no ticks, no value */
			continue;
		h->values[i] = util_percent(total - d[CPU_IDLE] - d[CPU_IOWAIT], total);
		h->present[i] = 1;
		n_present++;
	}
	return record_array(h, "cpu.utilization", n_present);
}

static int record_nic(struct host_metrics *h, const uint64_t *nic)
{
	const struct ksft_metric_label label[] = { KSFT_METRIC_LABEL_STR("host", h->host) };
	int i, err;

	for (i = 0; i < NIC_NCOUNTERS; i++) {
		uint64_t acc;

		/* A decrease is a reset (device re-created or reset): it counted from 0. */
		h->nic_acc[i] += nic[i] >= h->nic_last[i] ? nic[i] - h->nic_last[i] : nic[i];
		h->nic_last[i] = nic[i];
		acc = h->nic_acc[i] > INT64_MAX ? INT64_MAX : h->nic_acc[i];
		err = ksft_metric_int(nic_metric_names[i], "scalar", (int64_t)acc, label, 1);
		if (err)
			return metric_fail(err, "recording", nic_metric_names[i]);
	}
	return 0;
}

int host_metrics_record(struct host_metrics *h, struct cpu_snapshot *cpu,
			const uint64_t *nic)
{
	int err = reserve(h, cpu->n);

	if (err)
		return err;
	if (cpu->n > h->n_seen)
		h->n_seen = cpu->n;
	accumulate(h, cpu);
	err = record_cpu_times(h, cpu);
	if (!err)
		err = record_utilization(h, cpu);
	if (!err && h->has_nic && nic)
		err = record_nic(h, nic);
	take_snapshot(&h->prev, cpu);
	return err;
}

void host_metrics_free(struct host_metrics *h)
{
	cpu_snapshot_free(&h->prev);
	free(h->in_base);
	free(h->stashed);
	free(h->stash);
	free(h->acc);
	free(h->values);
	free(h->present);
	memset(h, 0, sizeof(*h));
}

double util_percent_slow(uint64_t busy, uint64_t total)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.4f", 100.0 * (double)busy / (double)total);
	return strtod(buf, NULL);
}

double util_percent(uint64_t busy, uint64_t total)
{
	uint64_t num, q, rem;

	/*
	 * Python rounds the double x = 100*busy/total to 4 decimals. For
	 * total < 2^32 the exact quotient sits at least 1/(20000*total) from
	 * any rounding midpoint unless it is exactly one, which is far more
	 * than x's error (< 2^-47): integer rounding of the exact quotient
	 * gives the same digits, and n/10000.0 is the same correctly rounded
	 * double as strtod() of them. Exact midpoints depend on the bits of x:
	 * leave them, and anything large, to the printf/strtod path.
	 */
	if (total == 0 || busy > total || total >= (UINT64_C(1) << 32))
		return util_percent_slow(busy, total);
	num = busy * UINT64_C(1000000);
	q = num / total;
	rem = num % total;
	if (2 * rem == total)
		return util_percent_slow(busy, total);
	if (2 * rem > total)
		q++;
	return (double)q / 10000.0;
}
