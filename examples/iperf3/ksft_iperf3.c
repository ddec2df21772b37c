// SPDX-License-Identifier: GPL-2.0
/*
 * ksft-iperf3: parse a saved "iperf3 --json" output, or run one measurement
 * between this host and a remote endpoint as a one-case KTAP test.
 */
#include <errno.h>
#include <math.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ksftmetric/metric.h>

#include "ab.h"
#include "cli_util.h"
#include "iperf3_runner.h"
#include "ktap_out.h"
#include "runner_cli.h"
#ifdef KSFTM_HAVE_SYSMON
#include "iperf3_cost.h"
#endif

static void usage(FILE *f)
{
	fputs("usage: ksft-iperf3 parse FILE\n"
	      "       ksft-iperf3 run [--remote CMD ...] [--server-addr A] [--bind A]\n"
	      "                       [--port P] [--time S] [--interval S] [--parallel N]\n"
	      "                       [--reverse] [--repeat N] [--metrics] [--sysmon]\n"
	      "                       [--iperf3 PATH] [--cpus P] [--irq-ifname IF]\n"
	      "                       [--ab-a CMD ... --ab-b CMD ... [--pairs N] [--seed S]\n"
	      "                        [--no-flush]]\n"
	      "parse prints {\"throughput_gbps\": X, \"retransmits\": N} (null without\n"
	      "retransmits); run prints KTAP and exits 0 pass, 1 fail, 4 skip.\n"
	      "--repeat N measures N times in the one case (each a throughput point;\n"
	      "the printed throughput is their median).\n"
	      "--sysmon runs the system monitor on both endpoints (CPU only) and\n"
	      "records cpu.cost (busy CPU seconds per GB) of each, per repeat, and\n"
	      "cycles/instructions per byte where hardware counters exist.\n"
	      "--remote takes the words up to the next --option (or one quoted string):\n"
	      "the client runs behind them, e.g. --remote ip netns exec NS.\n"
	      "--cpus P pins server and client: default (server on the highest CPU,\n"
	      "client on the next), none, or SERVER/CLIENT CPU lists (1/0); every\n"
	      "repeat records the test's own cost (cpu.cost.test) and its interference.\n"
	      "--irq-ifname IF points IF's MSI interrupts at the server's CPUs and\n"
	      "records IF's driver, firmware, speed and threaded NAPI in the context.\n"
	      "--ab-a/--ab-b: A/B mode, N pairs (default 10) of one measurement after\n"
	      "each variant's setup command (argv, words like --remote), order random\n"
	      "in each pair (--seed, printed), ip tcp_metrics flush before each trial\n"
	      "(--no-flush: not); each point labelled variant and pair (A/B implies\n"
	      "--metrics: judge the log with ksft-metric ab).\n", f);
}

static int cmd_parse(int argc, char **argv)
{
	struct iperf3_result res;
	char *err = NULL, num[40];

	if (argc != 1) {
		usage(stderr);
		return 2;
	}
	if (iperf3_parse_file(argv[0], &res, &err)) {
		fprintf(stderr, "ksft-iperf3: %s\n", err ? err : "out of memory");
		free(err);
		return 1;
	}
	printf("{\"throughput_gbps\": %s, \"retransmits\": ",
	       ex_fmt_double(res.throughput_gbps, num));
	if (res.has_retransmits)
		printf("%lld}\n", (long long)res.retransmits);
	else
		printf("null}\n");
	return 0;
}

/* --sysmon: the monitor on both endpoints and a CPU cost meter. */
struct cost_run {
	void *mon, *meter;
};

static int cost_start(struct cost_run *cr, struct iperf3_opts *o, const char **remote)
{
#ifdef KSFTM_HAVE_SYSMON
	struct ksft_sysmon_opts mo = KSFT_SYSMON_OPTS_INIT;
	struct ksft_cpu_cost_opts co = KSFT_CPU_COST_OPTS_INIT;
	char line[600];

	mo.remote_argv = remote;
	cr->mon = ksft_sysmon_start(&mo);
	if (!cr->mon)
		goto fail;
	co.mon = cr->mon;
	co.counters = KSFT_CPU_COST_HW_COUNTERS;
	cr->meter = ksft_cpu_cost_new(&co);
	if (!cr->meter)
		goto fail;
	if (ksft_cpu_cost_counters_missing(cr->meter)) {
		snprintf(line, sizeof(line), "cycles per byte: %s",
			 ksft_cpu_cost_counters_missing(cr->meter));
		ex_ktap_diag(line);
	}
	iperf3_opts_cpu_cost(o, cr->meter);
	return 0;
fail:
	snprintf(line, sizeof(line), "system monitor: %s", ksft_sysmon_errmsg());
	ex_ktap_diag(line);
	ksft_sysmon_stop(cr->mon);
	cr->mon = NULL;
	return -1;
#else
	(void)cr;
	(void)o;
	(void)remote;
	ex_ktap_diag("--sysmon: this ksft-iperf3 was built without the system monitor (libnl)");
	return -1;
#endif
}

/* @return 0, or -1 when the monitor failed (said as a diagnostic). */
static int cost_stop(struct cost_run *cr)
{
#ifdef KSFTM_HAVE_SYSMON
	char line[600];

	ksft_cpu_cost_free(cr->meter);
	if (cr->mon && ksft_sysmon_stop(cr->mon)) {
		snprintf(line, sizeof(line), "system monitor: %s", ksft_sysmon_errmsg());
		ex_ktap_diag(line);
		return -1;
	}
#else
	(void)cr;
#endif
	return 0;
}

struct ab_ctx {
	struct iperf3_opts *o;
};

static int ab_trial(void *ctx, double *gbps, double *cost, char **err)
{
	struct ab_ctx *c = ctx;
	struct iperf3_result res;
	int ret = iperf3_run(c->o, &res, err);

	*gbps = ret ? NAN : res.throughput_gbps;
	*cost = ret ? NAN : res.test_cost;
	return ret;
}

static int cmd_run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "server-addr", required_argument, NULL, 'a' },
		{ "bind", required_argument, NULL, 'b' },
		{ "port", required_argument, NULL, 'p' },
		{ "time", required_argument, NULL, 't' },
		{ "interval", required_argument, NULL, 'i' },
		{ "parallel", required_argument, NULL, 'P' },
		{ "reverse", no_argument, NULL, 'R' },
		{ "repeat", required_argument, NULL, 'n' },
		{ "sysmon", no_argument, NULL, 'S' },
		{ "iperf3", required_argument, NULL, 'x' },
		EX_RUNNER_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct ex_runner_cli cl;
	struct iperf3_opts o = IPERF3_OPTS_INIT;
	struct iperf3_result res;
	char *err = NULL, *end, num[40];
	struct cost_run cr = { NULL, NULL };
	int c, sysmon = 0, ret, rc;
	enum ex_ktap_result result;

	ex_runner_cli_init(&cl, "ksft-iperf3");
	while ((c = ex_runner_getopt(&cl, argc, argv, longopts)) != -1) {
		switch (c) {
		case EX_RUNNER_OPT_BAD:
			goto usage_error;
		case 'a':
			o.server_addr = optarg;
			break;
		case 'b':
			o.bind_addr = optarg;
			break;
		case 'p':
			if (ex_parse_int("ksft-iperf3", optarg, "port", 1, 65535, &o.port))
				return 2;
			break;
		case 't':
			if (ex_parse_int("ksft-iperf3", optarg, "time", 1, 1000000, &o.duration_s))
				return 2;
			break;
		case 'i':
			o.interval_s = strtod(optarg, &end);
			if (end == optarg || *end || !(o.interval_s >= 0.1)) {
				fprintf(stderr, "ksft-iperf3: bad interval: %s\n", optarg);
				return 2;
			}
			break;
		case 'P':
			if (ex_parse_int("ksft-iperf3", optarg, "parallel", 1, 1000000, &o.streams))
				return 2;
			break;
		case 'R':
			o.reverse = 1;
			break;
		case 'n':
			if (ex_parse_int("ksft-iperf3", optarg, "repeat", 1, IPERF3_MAX_REPEATS,
					 &o.repeat))
				return 2;
			break;
		case 'S':
			sysmon = 1;
			break;
		case 'x':
			o.iperf3 = optarg;
			break;
		default:
			usage(stderr);
			goto usage_error;
		}
	}
	if (optind != argc) {
		usage(stderr);
		goto usage_error;
	}
	if (ex_runner_cli_finish(&cl))
		goto usage_error;
	o.remote = cl.remote;
	o.placement = &cl.pl;

	ex_ktap_header(1);
	if (ex_perf_skip("iperf3.throughput", &rc))
		goto out;
	/* A real NIC's interrupts go to the server's CPUs (the local end). */
	if (ex_runner_case_begin(&cl, "iperf3.throughput", &rc))
		goto out;
	if (sysmon && cost_start(&cr, &o, cl.remote)) {
		ret = -EINVAL;
		err = strdup("the system monitor did not start");
	} else if (cl.is_ab) {
		struct ab_ctx ac = { &o };

		o.repeat = 1;
		ret = ex_ab_run(&cl.ab.ab, ab_trial, &ac, &err);
		res.repeats = (size_t)cl.ab.ab.pairs * 2;
	} else {
		ret = iperf3_run(&o, &res, &err);
	}
	if (cl.metrics)
		ksft_metric_reporting(0);
	/* Stop first either way: its final sample belongs to this case. */
	if (sysmon && cost_stop(&cr) && !ret) {
		ret = -EPROTO;
		err = strdup("the system monitor failed");
	}
	if (!ret && cl.is_ab) {
		result = EX_KTAP_PASS;
	} else if (!ret) {
		char line[200];

		snprintf(line, sizeof(line),
			 "iperf3: %s Gbps (median of %zu) over %zu of %zu intervals, %s "
			 "retransmits %lld, %llu bytes", ex_fmt_double(res.throughput_gbps, num),
			 res.repeats, res.n_stable, res.n_intervals, o.reverse ? "local" : "remote",
			 (long long)res.retransmits, (unsigned long long)res.bytes);
		ex_ktap_diag(line);
		result = EX_KTAP_PASS;
	} else {
		result = ret == -ENOENT ? EX_KTAP_SKIP : EX_KTAP_FAIL;
		if (result == EX_KTAP_FAIL)
			ex_ktap_diag(err ? err : "iperf3: out of memory");
	}
	result = ex_metric_case_end(result);
	rc = ex_ktap_finish("iperf3.throughput", result, err);
	free(err);
	goto out;
usage_error:
	rc = 2;
out:
	ex_runner_cli_free(&cl);
	return rc;
}

int main(int argc, char **argv)
{
	return ex_cli_main(argc, argv, usage, cmd_parse, cmd_run);
}
