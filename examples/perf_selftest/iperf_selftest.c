// SPDX-License-Identifier: GPL-2.0
/*
 * The main job's selftest, after the kernel's drivers/net/hw/iperf.py with
 * the reference SystemMonitor: iperf3 forward and reverse while the system
 * monitor samples both endpoints, printed as KTAP with metric lines.
 *
 * As root it runs between two network namespaces joined by a veth pair:
 * the program re-runs itself inside the first ("local": the iperf3 server,
 * its veth end over netlink), the second is the remote endpoint
 * ("ip netns exec NS": the iperf3 client and the remote sampler). Without
 * root it says so and uses loopback: both endpoints on this host.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ksftmetric/ksftmetric.h>

#include "iperf3_cost.h"
#include "icount.h"
#include "iperf3_runner.h"
#include "net_policy.h"
#include "netns.h"
#include "sysmon.h"

struct endpoints {
	const char *server_addr;
	const char *const *iperf_remote;	/* client prefix; NULL: here */
	const char *const *sysmon_remote;	/* sampler prefix */
	const char *local_if, *remote_if;
};

struct settings {
	int duration_s;
	unsigned long long bytes;	/* --bytes: iperf3 -n, fixed work (0: --time) */
	int repeat;		/* measurements per case (throughput points) */
	double interval_s;	/* iperf3 report interval */
	double sample_s;	/* system monitor interval */
	const char *cpus;	/* --cpus: default, none, SERVER/CLIENT */
	struct ex_placement pl;
	const char *irq_if;	/* --irq-ifname: a real NIC's interrupts */
};

/* The first process pins the NIC's interrupts (in its own namespace, where
 * the NIC is) and hands the description to the re-run inside the test
 * namespace, which records it in the run context. */
#define NIC_IRQS_ENV "KSFTM_NIC_IRQS"

/* One measurement under the monitor; 0, or -errno with *@why set. */
static int measure(const struct endpoints *ep, const struct settings *set,
		   int reverse, char *why, size_t size)
{
	struct ksft_sysmon_opts mo = KSFT_SYSMON_OPTS_INIT;
	struct iperf3_opts io = IPERF3_OPTS_INIT;
	struct ksft_cpu_cost_opts co = KSFT_CPU_COST_OPTS_INIT;
	struct ksft_cpu_cost *meter;
	struct iperf3_result res;
	struct ksft_sysmon *mon;
	char *err = NULL;
	int ret, stop;

	mo.ifname = ep->local_if;
	mo.remote_argv = ep->sysmon_remote;
	mo.remote_ifname = ep->remote_if;
	mo.interval = set->sample_s;
	mon = ksft_sysmon_start(&mo);
	if (!mon) {
		ret = -errno;
		snprintf(why, size, "system monitor: %s", ksft_sysmon_errmsg());
		return ret;
	}
	io.server_addr = ep->server_addr;
	io.remote = ep->iperf_remote;
	io.duration_s = set->duration_s;
	io.bytes = set->bytes;
	io.interval_s = set->interval_s;
	io.repeat = set->repeat;
	io.reverse = reverse;
	io.placement = &set->pl;
	/* Each repeat's CPU cost per GB on both endpoints, and per byte in
	 * cycles and instructions where the machine has counters. */
	co.mon = mon;
	co.counters = KSFT_CPU_COST_HW_COUNTERS;
	meter = ksft_cpu_cost_new(&co);
	if (!meter) {
		ret = -errno;
		snprintf(why, size, "cpu cost: %s", ksft_sysmon_errmsg());
		ksft_sysmon_stop(mon);
		return ret;
	}
	if (ksft_cpu_cost_counters_missing(meter))
		printf("# cycles per byte: %s\n", ksft_cpu_cost_counters_missing(meter));
	iperf3_opts_cpu_cost(&io, meter);
	ret = iperf3_run(&io, &res, &err);
	ksft_cpu_cost_free(meter);
	/* Stop first either way: its final sample belongs to this case. */
	stop = ksft_sysmon_stop(mon);
	if (ret) {
		snprintf(why, size, "%s", err ? err : "iperf3 failed");
		free(err);
		return ret;
	}
	if (stop) {
		snprintf(why, size, "system monitor: %s", ksft_sysmon_errmsg());
		return stop;
	}
	/* The work this case's profile window did (ksft-vm --profile divides
	 * by it: doc/vm.rst, "Per unit of work"): under --bytes the bytes
	 * sent (iperf3 -n sends exactly that; the receiver's count, read at
	 * the end, can fall short by a few hundred KB), else those received. */
	printf("# profile-work: %llu byte\n", set->bytes ?
	       set->bytes * (unsigned long long)res.repeats : (unsigned long long)res.bytes);
	if (ex_icount_shift() == 0)	/* 1 ns a instruction: s/GB = instructions/byte */
		printf("# iperf3%s: %.3f virtual Gbps (icount proxy; median of %zu; %zu of %zu "
		       "intervals), %lld retransmits, test's own %.4f instructions/byte\n",
		       reverse ? " reverse" : "", res.throughput_gbps, res.repeats, res.n_stable,
		       res.n_intervals, (long long)res.retransmits, res.test_cost);
	else
		printf("# iperf3%s: %.3f Gbps (median of %zu; %zu of %zu intervals), %lld "
		       "retransmits, test's own CPU %.3f s/GB\n",
		       reverse ? " reverse" : "", res.throughput_gbps, res.repeats, res.n_stable,
		       res.n_intervals, (long long)res.retransmits, res.test_cost);
	return 0;
}

static int run_tests(const struct endpoints *ep, struct settings *set)
{
	static const char *const names[] = { "iperf.forward", "iperf.reverse" };
	char why_not[512];
	int i, pass = 0, skip = 0, fail = 0;

	printf("1..2\n");
	if (ksft_metric_perf_check(why_not, sizeof(why_not)) == 0) {
		/* Not here (debug kernel, KSFT_MACHINE_SLOW): skip, saying why. */
		for (i = 0; i < 2; i++)
			printf("ok %d %s # SKIP %s\n", i + 1, names[i], why_not);
		printf("# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:2 error:0\n");
		return 4;	/* KSFT_SKIP */
	}
	/* The run's context (kernel, machine, debug build, placement and what
	 * changes a CPU cost's meaning), so a collector can tell comparable
	 * runs apart; the reference prints none by default. */
	if (ex_cost_context(NULL, &set->pl, ep->local_if))
		printf("# run context: %s\n", ksft_metric_errmsg());
	if (getenv(NIC_IRQS_ENV) && ksft_metric_context_set("nic_irqs", getenv(NIC_IRQS_ENV)))
		printf("# run context: %s\n", ksft_metric_errmsg());
	fflush(stdout);
	if (ksft_metric_context_emit())
		printf("# run context: %s\n", ksft_metric_errmsg());
	for (i = 0; i < 2; i++) {
		char why[2048] = "";
		int ret;

		if (ksft_metric_case_begin()) {
			printf("# %s\n", ksft_metric_errmsg());
			return 1;
		}
		ret = measure(ep, set, i == 1, why, sizeof(why));
		if (ret)
			printf("# %s: %s\n", names[i], why);
		/* Lines right before the result line, as ksft_run() does. */
		if (ksft_metric_case_end() < 0)
			printf("# metric output: %s\n", ksft_metric_errmsg());
		if (ret == -ENOENT) {
			printf("ok %d %s # SKIP iperf3 not found\n", i + 1, names[i]);
			skip++;
		} else {
			printf("%sok %d %s\n", ret ? "not " : "", i + 1, names[i]);
			ret ? fail++ : pass++;
		}
		fflush(stdout);
	}
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0\n", pass, fail, skip);
	fflush(stdout);
	return fail ? 1 : pass ? 0 : 4;
}

/* "N", "NK", "NM", "NG" (1024s, as iperf3 -n reads them) into bytes. */
static int parse_bytes(const char *s, unsigned long long *out)
{
	unsigned long long v, mul = 1;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end == 'K' || *end == 'k')
		mul = 1ULL << 10;
	else if (*end == 'M' || *end == 'm')
		mul = 1ULL << 20;
	else if (*end == 'G' || *end == 'g')
		mul = 1ULL << 30;
	if (errno || !v || end[mul > 1] || v > (1ULL << 50) / mul)
		return -1;
	*out = v * mul;
	return 0;
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [--time S | --bytes N] [--repeat N] [--interval S] [--sample S]\n"
		"       [--cpus P] [--irq-ifname IF] [--loopback]\n"
		"  iperf3 forward and reverse under the system monitor, as KTAP.\n"
		"  --time S      iperf3 run time (default 4)\n"
		"  --bytes N     fixed work instead: N bytes a repeat (iperf3 -n; K, M, G\n"
		"                suffixes of 1024), for profiles divided by bytes\n"
		"  --repeat N    measurements per case, each a throughput point (default 3)\n"
		"  --interval S  iperf3 report interval (default 0.25; 3+3 are dropped, at\n"
		"                least 7 must come: a loaded machine reports fewer than\n"
		"                --time / --interval, 16 by default)\n"
		"  --sample S    system monitor interval (default 0.5)\n"
		"  --cpus P      placement: default (server on the highest CPU, client on\n"
		"                the next), none (unpinned), or SERVER/CLIENT lists (1/0)\n"
		"  --irq-ifname IF  point a real NIC's MSI interrupts at the server's CPUs\n"
		"  --loopback    both endpoints on this host, even as root\n", prog);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "time", required_argument, NULL, 't' },
		{ "bytes", required_argument, NULL, 'b' },
		{ "repeat", required_argument, NULL, 'n' },
		{ "interval", required_argument, NULL, 'i' },
		{ "sample", required_argument, NULL, 's' },
		{ "loopback", no_argument, NULL, 'l' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "irq-ifname", required_argument, NULL, 'I' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const here[] = { "env", NULL };
	/* 2 cases x 3 repeats x 4 s: under a minute with the monitor. iperf3
	 * reports every 0.25 s: 16 intervals, 7 needed; at 0.5 s (8) a loaded
	 * 2-CPU machine got 6 in one run of 20 and the case failed. */
	struct settings set = { 4, 0, 3, 0.25, 0.5, "default", { 0 }, NULL };
	char *perr = NULL;
	struct endpoints ep;
	int c, loopback = 0;

	/* Our own program: its throughput carries its unit (Gbps). */
	ex_net_throughput_unit = "Gbps";

	while ((c = getopt_long(argc, argv, "t:b:n:i:s:lh", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			set.duration_s = atoi(optarg);
			break;
		case 'b':
			if (parse_bytes(optarg, &set.bytes)) {
				fprintf(stderr, "%s: --bytes %s: a positive whole number of bytes, "
					"K, M or G after it (1024s)\n", argv[0], optarg);
				return 2;
			}
			break;
		case 'n':
			set.repeat = atoi(optarg);
			break;
		case 'i':
			set.interval_s = atof(optarg);
			break;
		case 's':
			set.sample_s = atof(optarg);
			break;
		case 'l':
			loopback = 1;
			break;
		case 'c':
			set.cpus = optarg;
			break;
		case 'I':
			set.irq_if = optarg;
			break;
		default:
			usage(argv[0]);
			return c == 'h' ? 0 : 2;
		}
	}
	/* Under --bytes the run's length is not known before: too few
	 * intervals fail the case, saying so (iperf3_parse.h). */
	if (set.duration_s < 2 || set.interval_s <= 0 || set.sample_s < 0.01 ||
	    (!set.bytes && set.duration_s / set.interval_s < 7) || set.repeat < 1 ||
	    set.repeat > IPERF3_MAX_REPEATS) {
		fprintf(stderr, "%s: need --time >= 2, --sample >= 0.01, at least 7 iperf3 "
			"intervals and --repeat from 1 to %d\n", argv[0], IPERF3_MAX_REPEATS);
		return 2;
	}
	if (ex_placement_parse(NULL, set.cpus, &set.pl, &perr)) {
		fprintf(stderr, "%s: %s\n", argv[0], perr ? perr : "out of memory");
		free(perr);
		return 2;
	}
	if (set.irq_if && !getenv(NIC_IRQS_ENV)) {
		char desc[300];

		if (ex_nic_irqs_context(set.irq_if, &set.pl, desc, sizeof(desc), &perr)) {
			fprintf(stderr, "%s: --irq-ifname %s: %s\n", argv[0], set.irq_if,
				perr ? perr : "out of memory");
			free(perr);
			return 1;
		}
		setenv(NIC_IRQS_ENV, desc, 1);
	}

	if (!loopback && !getenv(NETNS_ENV_REMOTE) && geteuid() == 0) {
		static const char *const needed[] = { "iperf3", NULL };
		int rc = netns_main(argc, argv, needed);

		if (rc != 77)
			return rc;	/* the re-run inside the namespace did the work */
		loopback = 1;
	}
	printf("TAP version 13\n");
	memset(&ep, 0, sizeof(ep));
	if (!loopback && getenv(NETNS_ENV_REMOTE)) {
		ep.server_addr = NETNS_ADDR_A;
		ep.iperf_remote = netns_remote_prefix();
		ep.sysmon_remote = netns_remote_prefix();
		ep.local_if = getenv(NETNS_ENV_LOCAL_IF);
		ep.remote_if = getenv(NETNS_ENV_REMOTE_IF);
		printf("# endpoints: local = this namespace (%s, %s), remote = ip netns exec %s (%s, %s)\n",
		       ep.local_if, NETNS_ADDR_A, getenv(NETNS_ENV_REMOTE), ep.remote_if,
		       NETNS_ADDR_B);
	} else {
		ep.server_addr = "127.0.0.1";
		ep.sysmon_remote = here;
		ep.local_if = "lo";
		ep.remote_if = "lo";
		printf("# endpoints: loopback, both on this host (%s)\n",
		       geteuid() ? "not root: no network namespaces" : "as asked");
	}
	{
		char where[600];

		printf("# placement: %s (--cpus %s)\n",
		       ex_placement_describe(&set.pl, where, sizeof(where)), set.cpus);
	}
	return run_tests(&ep, &set);
}
