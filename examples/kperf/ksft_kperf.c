// SPDX-License-Identifier: GPL-2.0
/*
 * ksft-kperf: parse a saved kperf-client report, or run kperf between this
 * host and a remote endpoint as a one-case KTAP test.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ksftmetric/metric.h>

#include "ab.h"
#include "cli_util.h"
#include "kperf_runner.h"
#include "ktap_out.h"
#include "runner_cli.h"

static void usage(FILE *f)
{
	fputs("usage: ksft-kperf parse [--cpus] FILE\n"
	      "       ksft-kperf run --local-addr A --remote-addr B [--remote CMD ...]\n"
	      "                      [--server PATH] [--client PATH] [--port P]\n"
	      "                      [--timeout S] [--pid-dir DIR] [--repeat N] [--metrics]\n"
	      "                      [--cpus P] [--irq-ifname IF]\n"
	      "                      [--ab-a CMD ... --ab-b CMD ... [--pairs N] [--seed S]\n"
	      "                       [--no-flush]] [-- CLIENT-ARGS...]\n"
	      "parse prints {\"source_throughput\": X, \"target_throughput\": Y,\n"
	      "\"source_retransmits\": N, \"target_retransmits\": M} (--cpus adds the\n"
	      "per-CPU lines); run prints KTAP and exits 0 pass, 1 fail, 4 skip.\n"
	      "run --cpus P pins the local server (SERVER) and the remote server and\n"
	      "client (CLIENT): default, none or SERVER/CLIENT CPU lists, as ksft-iperf3;\n"
	      "each client run records the test's own cost and its interference.\n"
	      "--irq-ifname IF points IF's MSI interrupts at the local server's CPUs.\n"
	      "--ab-a/--ab-b: A/B mode as ksft-iperf3's: N pairs (default 10), each\n"
	      "variant's setup command (argv, words like --remote) before one client\n"
	      "run with fresh servers, order random in each pair (--seed, printed),\n"
	      "ip tcp_metrics flush before each trial (--no-flush: not); each point\n"
	      "labelled variant and pair (A/B implies --metrics).\n", f);
}

static void print_cpus(const char *key, const struct kperf_side *s)
{
	char a[40], b[40], c[40], d[40], e[40], f[40];
	size_t i;

	printf(", \"%s\": [", key);
	for (i = 0; i < s->n_cpus; i++) {
		const struct kperf_cpu *p = &s->cpus[i];

		printf("%s{\"cpu\": %d, ", i ? ", " : "", p->cpu);
		if (p->role[0])
			printf("\"role\": \"%s\", ", p->role);
		printf("\"usr\": %s, \"sys\": %s, \"idle\": %s, \"iow\": %s, "
		       "\"irq\": %s, \"sirq\": %s}", ex_fmt_double(p->usr, a),
		       ex_fmt_double(p->sys, b), ex_fmt_double(p->idle, c),
		       ex_fmt_double(p->iow, d), ex_fmt_double(p->irq, e),
		       ex_fmt_double(p->sirq, f));
	}
	printf("]");
}

static int cmd_parse(int argc, char **argv)
{
	struct kperf_result res;
	char *err = NULL, a[40], b[40];
	int cpus = argc == 2 && !strcmp(argv[0], "--cpus");

	if (argc != 1 + cpus) {
		usage(stderr);
		return 2;
	}
	if (kperf_parse_file(argv[cpus], &res, &err)) {
		fprintf(stderr, "ksft-kperf: %s\n", err ? err : "out of memory");
		free(err);
		return 1;
	}
	printf("{\"source_throughput\": %s, \"target_throughput\": %s, "
	       "\"source_retransmits\": %lld, \"target_retransmits\": %lld",
	       ex_fmt_double(res.source.throughput, a),
	       ex_fmt_double(res.target.throughput, b),
	       (long long)res.source.retransmits, (long long)res.target.retransmits);
	if (cpus) {
		print_cpus("source_cpus", &res.source);
		print_cpus("target_cpus", &res.target);
	}
	printf("}\n");
	kperf_result_free(&res);
	return 0;
}

struct ab_ctx {
	const struct kperf_opts *o;
	const char *const *client_args;
};

/* One A/B trial: servers, one client run, servers stopped (a fresh start). */
static int ab_trial(void *ctx, double *gbps, double *cost, char **err)
{
	struct ab_ctx *c = ctx;
	struct kperf_result res;
	int ret = kperf_run(c->o, c->client_args, &res, err);

	*gbps = ret ? NAN : res.target.throughput;
	*cost = ret ? NAN : res.test_cost;
	if (!ret)
		kperf_result_free(&res);
	return ret;
}

static int cmd_run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "local-addr", required_argument, NULL, 'l' },
		{ "remote-addr", required_argument, NULL, 'a' },
		{ "server", required_argument, NULL, 's' },
		{ "client", required_argument, NULL, 'c' },
		{ "port", required_argument, NULL, 'p' },
		{ "timeout", required_argument, NULL, 't' },
		{ "pid-dir", required_argument, NULL, 'd' },
		{ "repeat", required_argument, NULL, 'n' },
		EX_RUNNER_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct ex_runner_cli cl;
	struct kperf_opts o = KPERF_OPTS_INIT;
	struct kperf_result res;
	char *err = NULL, num[40], line[200];
	const char *missing;
	int c, ret, secs, rc = 2;
	enum ex_ktap_result result;

	ex_runner_cli_init(&cl, "ksft-kperf");
	while ((c = ex_runner_getopt(&cl, argc, argv, longopts)) != -1) {
		switch (c) {
		case EX_RUNNER_OPT_BAD:
			goto out;
		case 'l':
			o.local_addr = optarg;
			break;
		case 'a':
			o.remote_addr = optarg;
			break;
		case 's':
			o.server = optarg;
			break;
		case 'c':
			o.client = optarg;
			break;
		case 'p':
			if (ex_parse_int("ksft-kperf", optarg, "port", 1, 65535, &o.port))
				goto out;
			break;
		case 't':
			if (ex_parse_int("ksft-kperf", optarg, "timeout", 1, 86400, &secs))
				goto out;
			o.client_timeout_ms = secs * 1000;
			break;
		case 'd':
			o.pid_dir = optarg;
			break;
		case 'n':
			if (ex_parse_int("ksft-kperf", optarg, "repeat", 1, KPERF_MAX_REPEATS,
					 &o.repeat))
				goto out;
			break;
		default:
			usage(stderr);
			goto out;
		}
	}
	/* getopt stopped at "--" (consumed) or at the first non-option. */
	if (optind < argc && strcmp(argv[optind - 1], "--")) {
		usage(stderr);
		goto out;
	}
	if (!o.local_addr || !o.remote_addr) {
		fprintf(stderr, "ksft-kperf: --local-addr and --remote-addr are required\n");
		goto out;
	}
	if (ex_runner_cli_finish(&cl))
		goto out;
	o.remote = cl.remote;
	o.placement = &cl.pl;

	ex_ktap_header(1);
	if (ex_perf_skip("kperf.throughput", &rc))
		goto out;
	missing = kperf_missing(&o);
	if (missing) {
		snprintf(line, sizeof(line), "%s not found", missing);
		rc = ex_ktap_finish("kperf.throughput", EX_KTAP_SKIP, line);
		goto out;
	}
	/* A real NIC's interrupts go to the local (Target) server's CPUs. */
	if (ex_runner_case_begin(&cl, "kperf.throughput", &rc))
		goto out;
	if (cl.is_ab) {
		struct ab_ctx ac = { &o, (const char *const *)argv + optind };

		o.repeat = 1;
		ret = ex_ab_run(&cl.ab.ab, ab_trial, &ac, &err);
	} else {
		ret = kperf_run(&o, (const char *const *)argv + optind, &res, &err);
	}
	if (cl.metrics)
		ksft_metric_reporting(0);
	if (!ret && cl.is_ab) {
		result = EX_KTAP_PASS;
	} else if (!ret) {
		char num2[40];

		snprintf(line, sizeof(line),
			 "kperf: source (remote) %s Gbps, %lld retransmits; "
			 "target (local) %s Gbps, %lld retransmits",
			 ex_fmt_double(res.source.throughput, num),
			 (long long)res.source.retransmits,
			 ex_fmt_double(res.target.throughput, num2),
			 (long long)res.target.retransmits);
		ex_ktap_diag(line);
		kperf_result_free(&res);
		result = EX_KTAP_PASS;
	} else {
		ex_ktap_diag(err ? err : "kperf: out of memory");
		result = EX_KTAP_FAIL;
	}
	result = ex_metric_case_end(result);
	rc = ex_ktap_finish("kperf.throughput", result, NULL);
out:
	free(err);
	ex_runner_cli_free(&cl);
	return rc;
}

int main(int argc, char **argv)
{
	return ex_cli_main(argc, argv, usage, cmd_parse, cmd_run);
}
