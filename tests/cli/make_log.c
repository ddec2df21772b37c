// SPDX-License-Identifier: GPL-2.0
/*
 * A realistic metric-heavy KTAP log from our own producer library, for the
 * report/save/compare round trip: a simulated system monitor (per-CPU
 * cpu.time.* counters and cpu.utilization for a local and a remote host,
 * NIC drop counters) plus iperf-like throughput and retransmits, with the
 * seed's policies, nested the way run_kselftest.sh nests ("# " per level).
 *
 * Counters advance by (configured utilisation x measured elapsed time), so
 * rates are deterministic up to clock jitter; throughput samples come from
 * a seeded generator, so they are exactly reproducible.
 *
 * usage: make-log [--samples N] [--cpus N] [--interval-ms N] [--seed N]
 *                 [--throughput MBPS] [--busy CORES] [--die | --killed]
 *
 * --die: the second test prints no result line (killed after its flush);
 * --killed: SIGTERM with the second case still open (the library prints
 * its lines and a ktap-metric-abort-json line).
 */
#include <getopt.h>
#include <signal.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ksftmetric/ksftmetric.h>

#define MAX_CPUS 1024

static const char cpu_time_policy[] =
	"{\"aggregation\":\"busy-core-equivalents\",\"display_label\":\"Percent of one CPU\","
	"\"display_range\":{\"max\":100.0,\"min\":0.0},\"display_scale\":100.0,"
	"\"summarize\":\"p90\",\"transform\":\"rate\"}";
static const char util_policy[] =
	"{\"aggregation\":\"busy-core-equivalents\",\"display_label\":\"Percent of one CPU\","
	"\"display_range\":{\"max\":100.0,\"min\":0.0},\"summarize\":\"p90\"}";
static const char nic_policy[] =
	"{\"display_range\":{\"min\":0},\"summarize\":\"distribution\",\"transform\":\"rate\"}";
static const char tput_policy[] =
	"{\"regression\":{\"better\":\"higher\",\"compare\":\"p50\",\"relative_tolerance\":0.05},"
	"\"summarize\":\"distribution\"}";
static const char retrans_policy[] = "{\"summarize\":\"max\"}";

static const char *const cpu_metrics[] = { "cpu.time.usr", "cpu.time.sys", "cpu.time.sirq" };
static const double cpu_share[] = { 0.6, 0.3, 0.1 };	/* of the busy time */
static const char *const nic_metrics[] = {
	"nic.rx.dropped", "nic.rx.missed_errors", "nic.tx.dropped",
};
static const char *const hosts[] = { "local", "remote" };

static uint64_t rng;

static double uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static void check(int ret, const char *what)
{
	if (ret < 0) {
		fprintf(stderr, "make-log: %s: %s\n", what, ksft_metric_errmsg());
		exit(1);
	}
}

struct host {
	double cpu_time[3][MAX_CPUS];
	double nic[3];
};

/* Fraction of CPU @c that is busy on host @h: two hot CPUs, the rest idle-ish. */
static double busy_of(int h, int c, int ncpu, double busy_cores)
{
	double hot = busy_cores * 0.8 / 2, rest = busy_cores * 0.2 / (ncpu - 3);

	if (c == (h ? 1 : 0) || c == (h ? 2 : 3))
		return hot;
	return rest;
}

static void monitor_sample(struct host *hs, int ncpu, double dt, double busy_cores)
{
	static double values[MAX_CPUS];
	static unsigned char present[MAX_CPUS];
	int h, m, c;

	for (h = 0; h < 2; h++) {
		struct ksft_metric_label host[] = { KSFT_METRIC_LABEL_STR("host", hosts[h]) };
		struct host *st = &hs[h];

		for (m = 0; m < 3; m++) {
			for (c = 0; c < ncpu; c++) {
				present[c] = c != ncpu - 3;	/* one offline CPU */
				st->cpu_time[m][c] += busy_of(h, c, ncpu, busy_cores) *
						      cpu_share[m] * dt;
				values[c] = st->cpu_time[m][c];
			}
			check(ksft_metric_array(cpu_metrics[m], "per-cpu", values, present,
						(size_t)ncpu, host, 1), cpu_metrics[m]);
		}
		for (c = 0; c < ncpu; c++)
			values[c] = round(busy_of(h, c, ncpu, busy_cores) * 100 * 10000) / 10000;
		check(ksft_metric_array("cpu.utilization", "per-cpu", values, present,
					(size_t)ncpu, host, 1), "cpu.utilization");
		for (m = 0; m < 3; m++) {
			st->nic[m] += m == 0 ? (double)(int)(uniform() * 3) : 0;
			check(ksft_metric_int(nic_metrics[m], "scalar", (int64_t)st->nic[m],
					      host, 1), nic_metrics[m]);
		}
	}
}

static void register_policies(void)
{
	int m;

	for (m = 0; m < 3; m++)
		check(ksft_metric_aggregate_json(cpu_metrics[m], cpu_time_policy), "policy");
	check(ksft_metric_aggregate_json("cpu.utilization", util_policy), "policy");
	for (m = 0; m < 3; m++)
		check(ksft_metric_aggregate_json(nic_metrics[m], nic_policy), "policy");
	check(ksft_metric_aggregate_json("throughput", tput_policy), "policy");
	check(ksft_metric_aggregate_json("tcp.retransmits", retrans_policy), "policy");
}

/* One measured case: monitor samples, then iperf-like interval results. */
static void run_case(int samples, int ncpu, int interval, double tput, double busy)
{
	static struct host hs[2];
	struct ksft_metric_label local[] = { KSFT_METRIC_LABEL_STR("host", "local") };
	struct ksft_metric_label remote[] = { KSFT_METRIC_LABEL_STR("host", "remote") };
	double last;
	int s;

	memset(hs, 0, sizeof(hs));
	check(ksft_metric_case_begin(), "case begin");
	check(ksft_metric_reporting(1), "reporting");
	register_policies();
	last = now();
	monitor_sample(hs, ncpu, 0, busy);
	for (s = 0; s < samples; s++) {
		double t;

		sleep_ms(interval);
		t = now();
		monitor_sample(hs, ncpu, t - last, busy);
		last = t;
		/* iperf3 interval throughput: the configured rate +-2% */
		check(ksft_metric_double("throughput", "scalar",
					 round(tput * (0.98 + 0.04 * uniform()) * 1000) / 1000,
					 local, 1), "throughput");
	}
	check(ksft_metric_int("tcp.retransmits", "scalar",
			      (int64_t)(uniform() * 1000), remote, 1), "retransmits");
	check(ksft_metric_reporting(0), "reporting");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "samples", required_argument, NULL, 's' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "interval-ms", required_argument, NULL, 'i' },
		{ "seed", required_argument, NULL, 'r' },
		{ "throughput", required_argument, NULL, 't' },
		{ "busy", required_argument, NULL, 'b' },
		{ "die", no_argument, NULL, 'd' },
		{ "killed", no_argument, NULL, 'k' },
		{ NULL, 0, NULL, 0 },
	};
	int samples = 10, ncpu = 8, interval = 20, die = 0, ch;
	double tput = 9400, busy = 2.5;

	rng = 88172645463325252ull;
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (ch) {
		case 's': samples = atoi(optarg); break;
		case 'c': ncpu = atoi(optarg); break;
		case 'i': interval = atoi(optarg); break;
		case 'r': rng ^= strtoull(optarg, NULL, 0) * 0x9e3779b97f4a7c15ull; break;
		case 't': tput = atof(optarg); break;
		case 'b': busy = atof(optarg); break;
		case 'd': die = 1; break;
		case 'k': die = 2; break;
		default: return 2;
		}
	}
	if (samples < 1 || ncpu < 4 || ncpu > MAX_CPUS || interval < 0 || !rng)
		return 2;
	check(ksft_metric_set_prefix("# # "), "prefix");
	printf("TAP version 13\n1..2\n");
	printf("# timeout set to 90\n# selftests: drivers/net/hw: iperf.py\n");
	printf("# TAP version 13\n# 1..1\n");
	fflush(stdout);
	run_case(samples, ncpu, interval, tput, busy);
	check(ksft_metric_case_end(), "case end");
	printf("# ok 1 iperf.test_iperf\n");
	printf("# # Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0\n");
	printf("ok 1 selftests: drivers/net/hw: iperf.py\n");
	printf("# timeout set to 90\n# selftests: drivers/net/hw: devmem.py\n");
	printf("# TAP version 13\n# 1..2\n");
	printf("# ok 1 devmem.check_rx # SKIP Test requires devmem support\n");
	fflush(stdout);
	run_case(samples, ncpu, interval, tput * 10, busy * 1.5);
	if (die == 2) {
		fflush(stdout);
		raise(SIGTERM);
		return 3;	/* not reached: the default action follows */
	}
	check(ksft_metric_case_end(), "case end");
	if (die) {
		/* The test was killed right after flushing its metrics. */
		printf("# Bail out! killed by timeout\n");
		return 0;
	}
	printf("# ok 2 devmem.check_kperf\n");
	printf("# # Totals: pass:1 fail:0 xfail:0 xpass:0 skip:1 error:0\n");
	printf("ok 2 selftests: drivers/net/hw: devmem.py\n");
	return 0;
}
