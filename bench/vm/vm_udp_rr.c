// SPDX-License-Identifier: GPL-2.0
/*
 * A latency test's three clocks under ksft-vm (doc/vm.rst, "What icount
 * cannot see"): UDP round trips between two sockets of this process on
 * lo, 5 repeats of 5000, and per round trip the elapsed time
 * (CLOCK_MONOTONIC: virtual time in a guest), this process's CPU time
 * (CLOCK_PROCESS_CPUTIME_ID: under icount its instructions), CPU 0's
 * ksoftirqd's (/proc/PID/schedstat) and the machine's idle and non-idle
 * time (/proc/stat, USER_HZ ticks), all in ns, as KTAP metric lines (one
 * case, udp_rr, one value a repeat) after the run's context line:
 *
 *   ksft-vm --kernel IMAGE --seed S -- build/bench/vm-udp-rr
 *
 * Gated: the CPU time a trip (its cost; 1 % under icount, where it is
 * instructions, 10 % natively) and the elapsed trip (5 %: under icount it
 * carries timer distances, bimodal by seed on 6.12); the others shown
 * only. bench/vm/vm_seed_floor.py judges them across roots and seeds.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <ksftmetric/ksftmetric.h>

#include "icount.h"

#define REPEATS 5
#define TRIPS 5000

/* The series, in the order of a repeat's printed line. */
enum { S_ELAPSED, S_CPU, S_KSOFTIRQD, S_IDLE, S_BUSY, N_SERIES };
static const char *const series[N_SERIES] = {
	"udp_rr.elapsed_ns", "udp_rr.cpu_ns", "udp_rr.ksoftirqd_ns", "udp_rr.idle_ns",
	"udp_rr.busy_ns",
};

static long long clock_ns(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* The machine's idle (@busy 0) or non-idle (@busy 1) time from /proc/stat's
 * "cpu" line, in ns (counted in USER_HZ ticks). */
static long long stat_ns(int busy)
{
	unsigned long long v[8] = { 0 }, sum = 0;
	FILE *f = fopen("/proc/stat", "re");
	int n, i;

	if (!f)
		return 0;
	/* user nice system idle iowait irq softirq steal */
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n < 4)
		return 0;
	for (i = 0; i < 8; i++)
		sum += i == 3 || i == 4 ? 0 : v[i];
	return (long long)(busy ? sum : v[3] + v[4]) * (1000000000LL / sysconf(_SC_CLK_TCK));
}

/* ksoftirqd/0's /proc/PID/schedstat path, "" when there is none. */
static void find_ksoftirqd(char *path, size_t size)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	char comm[64], p[300];
	FILE *f;

	path[0] = '\0';
	while (d && (e = readdir(d))) {
		snprintf(p, sizeof(p), "/proc/%s/comm", e->d_name);
		f = fopen(p, "re");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && !strcmp(comm, "ksoftirqd/0\n"))
			snprintf(path, size, "/proc/%s/schedstat", e->d_name);
		fclose(f);
	}
	if (d)
		closedir(d);
}

static long long schedstat_ns(const char *path)
{
	long long v = 0;
	FILE *f = *path ? fopen(path, "re") : NULL;

	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/* Each series' policy: @tolerance > 0 gates it (lower is better, p50). */
static int policy(const char *name, double tolerance, const char *label)
{
	struct ksft_metric_policy p = KSFT_METRIC_POLICY_INIT;

	p.summarize = "distribution";
	p.display_label = label;
	if (tolerance > 0) {
		p.regression_compare = "p50";
		p.regression_better = "lower";
		p.regression_relative_tolerance.type = KSFT_METRIC_DOUBLE;
		p.regression_relative_tolerance.u.d = tolerance;
	}
	return ksft_metric_aggregate(name, &p);
}

static int policies(void)
{
	int icount = ex_icount_shift() >= 0;

	return policy(series[S_ELAPSED], 0.05, icount ? "virtual ns/round trip (elapsed)" :
							"ns/round trip (elapsed)") ||
	       policy(series[S_CPU], icount ? 0.01 : 0.10,
		      icount ? "own CPU ns/round trip (instructions under icount)" :
			       "own CPU ns/round trip") ||
	       policy(series[S_KSOFTIRQD], 0, "ksoftirqd/0 ns/round trip") ||
	       policy(series[S_IDLE], 0, "idle ns/round trip (/proc/stat ticks)") ||
	       policy(series[S_BUSY], 0, "all CPUs' non-idle ns/round trip (/proc/stat ticks)");
}

static int round_trips(int a, int b, const struct sockaddr_in *sb)
{
	struct sockaddr_in peer;
	char buf[64] = { 0 };
	socklen_t len;
	int i;

	for (i = 0; i < TRIPS; i++) {
		len = sizeof(peer);
		if (sendto(a, buf, sizeof(buf), 0, (const void *)sb, sizeof(*sb)) < 0 ||
		    recvfrom(b, buf, sizeof(buf), 0, (void *)&peer, &len) < 0 ||
		    sendto(b, buf, sizeof(buf), 0, (void *)&peer, len) < 0 ||
		    recv(a, buf, sizeof(buf), 0) < 0)
			return -1;
	}
	return 0;
}

static int measure(void)
{
	char softirqd[300];
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_in sb = sa;
	int a = socket(AF_INET, SOCK_DGRAM, 0), b = socket(AF_INET, SOCK_DGRAM, 0);
	socklen_t len = sizeof(sa);
	int r, s;

	if (a < 0 || b < 0 || bind(a, (void *)&sa, sizeof(sa)) || bind(b, (void *)&sb, sizeof(sb)) ||
	    getsockname(a, (void *)&sa, &len)) {
		perror("# vm-udp-rr: socket");
		return 1;
	}
	len = sizeof(sb);
	if (getsockname(b, (void *)&sb, &len)) {
		perror("# vm-udp-rr: getsockname");
		return 1;
	}
	find_ksoftirqd(softirqd, sizeof(softirqd));
	for (r = 0; r < REPEATS; r++) {
		long long t0 = clock_ns(CLOCK_MONOTONIC), c0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
		long long i0 = stat_ns(0), b0 = stat_ns(1), s0 = schedstat_ns(softirqd);
		double v[N_SERIES];

		if (round_trips(a, b, &sb)) {
			perror("# vm-udp-rr: round trip");
			return 1;
		}
		v[S_ELAPSED] = (double)(clock_ns(CLOCK_MONOTONIC) - t0) / TRIPS;
		v[S_CPU] = (double)(clock_ns(CLOCK_PROCESS_CPUTIME_ID) - c0) / TRIPS;
		v[S_KSOFTIRQD] = (double)(schedstat_ns(softirqd) - s0) / TRIPS;
		v[S_IDLE] = (double)(stat_ns(0) - i0) / TRIPS;
		v[S_BUSY] = (double)(stat_ns(1) - b0) / TRIPS;
		printf("# repeat %d elapsed %.1f cpu %.1f ksoftirqd %.1f idle %.1f busy %.1f ns/trip\n",
		       r, v[S_ELAPSED], v[S_CPU], v[S_KSOFTIRQD], v[S_IDLE], v[S_BUSY]);
		for (s = 0; s < N_SERIES; s++)
			if (ksft_metric_double(series[s], "scalar", v[s], NULL, 0) < 0) {
				printf("# %s: %s\n", series[s], ksft_metric_errmsg());
				return 1;
			}
	}
	close(a);
	close(b);
	return 0;
}

int main(void)
{
	int fail;

	printf("KTAP version 1\n1..1\n");
	fflush(stdout);
	if (ksft_metric_context_emit())
		printf("# run context: %s\n", ksft_metric_errmsg());
	if (ksft_metric_case_begin()) {
		printf("# %s\n", ksft_metric_errmsg());
		return 1;
	}
	fail = policies() ? (printf("# policy: %s\n", ksft_metric_errmsg()), 1) : measure();
	/* The metric lines right before the result line, as ksft_run() does. */
	if (ksft_metric_case_end() < 0) {
		printf("# metric output: %s\n", ksft_metric_errmsg());
		fail = 1;
	}
	printf("%sok 1 udp_rr\n# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0\n",
	       fail ? "not " : "", !fail, fail);
	return fail;
}
