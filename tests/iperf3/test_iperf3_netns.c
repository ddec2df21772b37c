// SPDX-License-Identifier: GPL-2.0
/*
 * Real iperf3 between two network namespaces: the server in the local one
 * (this binary runs in it), the client behind "ip netns exec REMOTE".
 * Root only; skipped (77) otherwise.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ksftmetric/metric.h>

#include "ab.h"
#include "iperf3_runner.h"
#include "netns.h"
#include "proc.h"

/* 3 s at 0.25 s per interval: 12 intervals, 6 left after dropping 3 + 3. */
static void short_run(struct iperf3_opts *o)
{
	o->server_addr = NETNS_ADDR_A;
	o->remote = netns_remote_prefix();
	o->duration_s = 3;
	o->interval_s = 0.25;
}

/* One run inside a case; @text receives its metric lines, NULL if none. */
static int measure(const struct iperf3_opts *o, int reporting,
		   struct iperf3_result *r, char **text, char **err)
{
	int ret, lines;

	ck_assert_int_eq(ksft_metric_case_begin(), 0);
	if (reporting)
		ck_assert_int_eq(ksft_metric_reporting(1), 1);
	ret = iperf3_run(o, r, err);
	if (reporting)
		ck_assert_int_eq(ksft_metric_reporting(0), 0);
	lines = ksft_metric_case_end_buffer(text, NULL);
	ck_assert_int_ge(lines, 0);
	if (!lines) {
		ksft_metric_free(*text);
		*text = NULL;
	}
	return ret;
}

static void assert_no_children(void)
{
	errno = 0;
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
	ck_assert_int_eq(errno, ECHILD);
}

static const char tput_policy[] =
	"# ktap-metric-policy-json: {\"name\":\"throughput\",\"regression\":"
	"{\"better\":\"higher\",\"compare\":\"p50\",\"relative_tolerance\":0.05},"
	"\"summarize\":\"distribution\"}\n";
static const char retr_policy[] =
	"# ktap-metric-policy-json: {\"name\":\"tcp.retransmits\",\"summarize\":\"max\"}\n";

START_TEST(test_forward)
{
	struct iperf3_opts o = IPERF3_OPTS_INIT;
	struct iperf3_result r;
	char *text = NULL, *err = NULL;

	short_run(&o);
	ck_assert_msg(measure(&o, 1, &r, &text, &err) == 0, "%s", err);
	ck_assert_msg(r.throughput_gbps > 0, "throughput %g", r.throughput_gbps);
	ck_assert_int_ge(r.n_intervals, 7);
	ck_assert_int_eq(r.n_stable, r.n_intervals - 6);
	ck_assert_int_eq(r.has_retransmits, 1);
	ck_assert_int_ge(r.retransmits, 0);
	ck_assert_int_eq(r.reverse, 0);
	/* Receiver local, sender remote. */
	ck_assert_msg(strstr(text, tput_policy) && strstr(text, retr_policy), "%s", text);
	ck_assert_msg(strstr(text, "# ktap-metric-json: {\"host\":\"local\",\"name\":"
			     "\"throughput\",\"shape\":\"scalar\""), "%s", text);
	ck_assert_msg(strstr(text, "# ktap-metric-json: {\"host\":\"remote\",\"name\":"
			     "\"tcp.retransmits\",\"shape\":\"scalar\""), "%s", text);
	printf("%s", text);
	ksft_metric_free(text);
	assert_no_children();
}
END_TEST

START_TEST(test_reverse)
{
	struct iperf3_opts o = IPERF3_OPTS_INIT;
	struct iperf3_result r;
	char *text = NULL, *err = NULL;

	short_run(&o);
	o.reverse = 1;
	ck_assert_msg(measure(&o, 1, &r, &text, &err) == 0, "%s", err);
	ck_assert_int_eq(r.reverse, 1);
	ck_assert(r.throughput_gbps > 0);
	/* Mirrored: receiver remote, sender local. */
	ck_assert_msg(strstr(text, "{\"host\":\"remote\",\"name\":\"throughput\""), "%s", text);
	ck_assert_msg(strstr(text, "{\"host\":\"local\",\"name\":\"tcp.retransmits\""),
		      "%s", text);
	ksft_metric_free(text);
	assert_no_children();
}
END_TEST

START_TEST(test_ipv6_two_streams)
{
	struct iperf3_opts o = IPERF3_OPTS_INIT;
	struct iperf3_result r;
	char *text = NULL, *err = NULL;

	short_run(&o);
	o.server_addr = NETNS_ADDR6_A;	/* the port wait reads /proc/net/tcp6 */
	o.streams = 2;
	ck_assert_msg(measure(&o, 1, &r, &text, &err) == 0, "%s", err);
	ck_assert(r.throughput_gbps > 0);
	ksft_metric_free(text);
}
END_TEST

START_TEST(test_not_reporting)
{
	struct iperf3_opts o = IPERF3_OPTS_INIT;
	struct iperf3_result r;
	char *text = NULL, *err = NULL;

	short_run(&o);
	/* No reporting scope (no system monitor): measure, record nothing. */
	ck_assert_msg(measure(&o, 0, &r, &text, &err) == 0, "%s", err);
	ck_assert(r.throughput_gbps > 0);
	ck_assert_ptr_null(text);
}
END_TEST

START_TEST(test_refused)
{
	struct iperf3_opts o = IPERF3_OPTS_INIT;
	struct iperf3_result r;
	char *text = NULL, *err = NULL;
	long long t0 = ex_monotonic_ms();
	int ret;

	/* The server listens on A only; the client knocks on A2. */
	short_run(&o);
	o.bind_addr = NETNS_ADDR_A;
	o.server_addr = NETNS_ADDR_A2;
	o.port = 5399;
	ret = measure(&o, 1, &r, &text, &err);
	ck_assert_int_eq(ret, -EPROTO);
	ck_assert_msg(strstr(err, "Connection refused"), "%s", err);
	ck_assert_msg(ex_monotonic_ms() - t0 < 15000, "took %lld ms", ex_monotonic_ms() - t0);
	ck_assert_ptr_null(text);
	ck_assert_double_eq(r.throughput_gbps, 0);
	/* The one-off server never got its client: it must be gone. */
	ck_assert_int_eq(exproc_tcp_listening(NULL, 5399, NULL), 0);
	assert_no_children();
	free(err);
	ksft_metric_free(text);
}
END_TEST

START_TEST(test_too_few_intervals)
{
	struct iperf3_opts o = IPERF3_OPTS_INIT;
	struct iperf3_result r;
	char *text = NULL, *err = NULL;

	short_run(&o);
	o.duration_s = 1;
	o.interval_s = 0.5;
	ck_assert_int_eq(measure(&o, 1, &r, &text, &err), -ERANGE);
	ck_assert_msg(strstr(err, "iperf3 client output: intervals: 2 intervals, need at "
			     "least 7"), "%s", err);
	free(err);
	ksft_metric_free(text);
	assert_no_children();
}
END_TEST

START_TEST(test_client_timeout)
{
	struct iperf3_opts o = IPERF3_OPTS_INIT;
	struct iperf3_result r;
	char *text = NULL, *err = NULL;
	long long t0 = ex_monotonic_ms();

	short_run(&o);
	o.client_timeout_ms = 1000;
	ck_assert_int_eq(measure(&o, 1, &r, &text, &err), -ETIMEDOUT);
	ck_assert_msg(strstr(err, "timed out after 1000 ms and was killed"), "%s", err);
	ck_assert_msg(strstr(err, "ip netns exec"), "%s", err);
	ck_assert_int_lt(ex_monotonic_ms() - t0, 6000);
	assert_no_children();
	free(err);
	ksft_metric_free(text);
}
END_TEST

START_TEST(test_missing_iperf3)
{
	struct iperf3_opts o = IPERF3_OPTS_INIT;
	struct iperf3_result r;
	char *err = NULL;

	short_run(&o);
	o.iperf3 = "/nonexistent/iperf3";
	ck_assert_int_eq(iperf3_run(&o, &r, &err), -ENOENT);
	ck_assert_str_eq(err, "/nonexistent/iperf3 not found");
	free(err);
}
END_TEST

static void run_cli_args(int reverse, int refused, const char *const *extra,
			 struct exproc_result *r);

static void run_cli(int reverse, int refused, struct exproc_result *r)
{
	run_cli_args(reverse, refused, NULL, r);
}

static void run_cli_args(int reverse, int refused, const char *const *extra,
			 struct exproc_result *r)
{
	const char *exe = getenv("KSFTM_KSFT_IPERF3");
	const char *const *remote = netns_remote_prefix();
	const char *argv[24];
	char *err = NULL;
	int n = 0;

	ck_assert_ptr_nonnull(exe);
	argv[n++] = exe;
	argv[n++] = "run";
	argv[n++] = "--metrics";
	argv[n++] = "--time";
	argv[n++] = "3";
	argv[n++] = "--interval";
	argv[n++] = "0.25";
	argv[n++] = "--server-addr";
	argv[n++] = refused ? NETNS_ADDR_A2 : NETNS_ADDR_A;
	if (refused) {
		argv[n++] = "--bind";
		argv[n++] = NETNS_ADDR_A;
	}
	if (reverse)
		argv[n++] = "--reverse";
	while (extra && *extra)
		argv[n++] = *extra++;
	argv[n++] = "--remote";
	while (*remote)
		argv[n++] = *remote++;
	argv[n] = NULL;
	ck_assert_msg(exproc_run(NULL, argv, 60000, r, &err) == 0, "%s", err);
	ck_assert_int_eq(r->timed_out, 0);
}

START_TEST(test_cli_run)
{
	struct exproc_result r;

	run_cli(0, 0, &r);
	printf("%s", r.out);
	ck_assert_msg(exproc_exit_code(r.status) == 0, "%s\n%s", r.out, r.errout);
	/* --metrics: the context line first, with the placement (default). */
	ck_assert_msg(!strncmp(r.out, "TAP version 13\n1..1\n# ktap-metric-context-json: {", 49),
		      "%s", r.out);
	ck_assert_msg(strstr(r.out, "\"placement\":\"server=1 client=0\"") ||
		      strstr(r.out, "\"placement\":\"server=0 client=0\""), "%s", r.out);
	ck_assert_msg(strstr(r.out, "\"irq_time_accounting\":\""), "%s", r.out);
	ck_assert_msg(strstr(r.out, "\n# iperf3: "), "%s", r.out);
	ck_assert_msg(strstr(r.out, tput_policy) && strstr(r.out, retr_policy), "%s", r.out);
	ck_assert_msg(strstr(r.out, "# ktap-metric-json: {\"host\":\"local\",\"name\":"
			     "\"throughput\""), "%s", r.out);
	ck_assert_msg(strstr(r.out, "\nok 1 iperf3.throughput\n# Totals: pass:1 fail:0 "
			     "xfail:0 xpass:0 skip:0 error:0\n"), "%s", r.out);
	exproc_result_free(&r);

	run_cli(1, 0, &r);
	ck_assert_msg(exproc_exit_code(r.status) == 0, "%s\n%s", r.out, r.errout);
	ck_assert_msg(strstr(r.out, "{\"host\":\"remote\",\"name\":\"throughput\""), "%s", r.out);
	exproc_result_free(&r);
}
END_TEST

/* The values of every @name observation for @host in KTAP @out; @return how many. */
static int values_of(const char *out, const char *name, const char *host, double *v, int max)
{
	char key[128];
	const char *p = out;
	int n = 0;

	snprintf(key, sizeof(key), "{\"host\":\"%s\",\"name\":\"%s\",\"shape\":\"scalar\"",
		 host, name);
	while ((p = strstr(p, key))) {
		const char *val = strstr(p, "\"value\":");

		ck_assert_ptr_nonnull(val);
		if (n < max)
			v[n] = strtod(val + 8, NULL);
		n++;
		p += strlen(key);
	}
	return n;
}

/* --sysmon: cpu.cost of both endpoints for every repeat, real and plausible. */
START_TEST(test_cli_cpu_cost)
{
	static const char *const extra[] = { "--sysmon", "--repeat", "2", NULL };
	static const char *const hosts[] = { "local", "remote" };
	struct exproc_result r;
	double v[4];
	int h, i, n;

	run_cli_args(0, 0, extra, &r);
	printf("%s", r.out);
	ck_assert_msg(exproc_exit_code(r.status) == 0, "%s\n%s", r.out, r.errout);
	ck_assert_msg(strstr(r.out, "\"name\":\"cpu.cost\",\"regression\":{\"better\":"
			     "\"lower\",\"compare\":\"p50\""), "%s", r.out);
	ck_assert_int_eq(values_of(r.out, "throughput", "local", v, 4), 2);
	for (h = 0; h < 2; h++) {
		n = values_of(r.out, "cpu.cost", hosts[h], v, 4);
		ck_assert_msg(n == 2, "%d %s cpu.cost points\n%s", n, hosts[h], r.out);
		for (i = 0; i < n; i++)	/* CPU seconds per GB: a real, bounded cost */
			ck_assert_msg(v[i] > 0.001 && v[i] < 1000, "%s cpu.cost %g", hosts[h], v[i]);
	}
	/* The system monitor ran on both endpoints. */
	ck_assert_msg(strstr(r.out, "{\"host\":\"remote\",\"name\":\"cpu.utilization\""),
		      "%s", r.out);
	if (strstr(r.out, "\n# cycles per byte: ")) {
		/* cpu_cost.c's three reasons (any other perf_event_open errno
		 * is "counters unavailable"). */
		ck_assert_msg(strstr(r.out, "\n# cycles per byte: no hardware counters "
				     "(perf_event_open: ") ||
			      strstr(r.out, "\n# cycles per byte: counters not permitted "
				     "(perf_event_open: ") ||
			      strstr(r.out, "\n# cycles per byte: counters unavailable "
				     "(perf_event_open: "), "%s", r.out);
		ck_assert_int_eq(values_of(r.out, "cpu.cycles_per_byte", "local", v, 4), 0);
	} else {
		ck_assert_int_eq(values_of(r.out, "cpu.cycles_per_byte", "local", v, 4), 2);
		ck_assert(v[0] > 0 && v[1] > 0);
		ck_assert_int_eq(values_of(r.out, "cpu.instructions_per_byte", "local", v, 4), 2);
		ck_assert(v[0] > 0 && v[1] > 0);
	}
	exproc_result_free(&r);
}
END_TEST

/* Every repeat: the test's own cost (one total: both endpoints are on this
 * machine, the client in a namespace) and the interference per endpoint. */
START_TEST(test_cli_own_cost)
{
	static const char *const extra[] = { "--repeat", "2", "--cpus", "0/0", NULL };
	static const char *const hosts[] = { "local", "remote" };
	struct exproc_result r;
	double v[4];
	int h, i;

	run_cli_args(0, 0, extra, &r);
	printf("%s", r.out);
	ck_assert_msg(exproc_exit_code(r.status) == 0, "%s\n%s", r.out, r.errout);
	ck_assert_msg(strstr(r.out, "\"placement\":\"server=0 client=0\""), "%s", r.out);
	/* Each repeat shown; the run's best repeat is the gated value. */
	ck_assert_msg(strstr(r.out, "\"name\":\"cpu.cost.test\",\"summarize\":"
			     "\"distribution\"}"), "%s", r.out);
	ck_assert_msg(strstr(r.out, "\"name\":\"cpu.cost.test.best\",\"regression\":{"
			     "\"better\":\"lower\",\"compare\":\"last\""), "%s", r.out);
	ck_assert_int_eq(values_of(r.out, "cpu.cost.test.best", "both", v, 4), 1);
	ck_assert_int_eq(values_of(r.out, "cpu.cost.test", "both", v, 4), 2);
	for (i = 0; i < 2; i++)	/* CPU seconds per GB of two processes */
		ck_assert_msg(v[i] > 0.001 && v[i] < 1000, "cpu.cost.test %g", v[i]);
	for (h = 0; h < 2; h++) {
		ck_assert_int_eq(values_of(r.out, "cpu.cost.test.split", hosts[h], v, 4), 2);
		ck_assert_int_eq(values_of(r.out, "interference.runq_wait", hosts[h], v, 4), 2);
		ck_assert(v[0] >= 0 && v[1] >= 0);
		ck_assert_int_eq(values_of(r.out, "interference.involuntary_switches", hosts[h],
					   v, 4), 2);
	}
	/* One CPU for both: steal and others are of that CPU, not per endpoint. */
	ck_assert_int_eq(values_of(r.out, "interference.steal", "both", v, 4), 2);
	ck_assert_int_eq(values_of(r.out, "interference.others_cpu", "both", v, 4), 2);
	ck_assert_int_eq(values_of(r.out, "interference.others_cpu", "local", v, 4), 0);
	ck_assert_int_eq(values_of(r.out, "interference.softirq_cpu", "both", v, 4), 2);
	ck_assert(v[0] >= 0 && v[1] >= 0);
	exproc_result_free(&r);
}
END_TEST

/* How many @name observations of @host carry pair @pair and variant @var. */
static int trial_count(const char *out, const char *name, const char *host, int pair,
		       const char *var)
{
	char key[160], tail[40];
	const char *p = out;
	int n = 0;

	snprintf(key, sizeof(key), "{\"host\":\"%s\",\"name\":\"%s\",\"pair\":%d,", host,
		 name, pair);
	snprintf(tail, sizeof(tail), ",\"variant\":\"%s\"}\n", var);
	while ((p = strstr(p, key))) {
		const char *eol = strchr(p, '\n');

		ck_assert_ptr_nonnull(eol);
		if ((size_t)(eol + 1 - p) > strlen(tail) &&
		    !strncmp(eol + 1 - strlen(tail), tail, strlen(tail)))
			n++;
		p = eol;
	}
	return n;
}

/* The KTAP output parses with ksft-metric report (exit 0, no warning). */
static void assert_report_reads(const char *out)
{
	char path[] = "/tmp/ksftm-ab-XXXXXX";
	const char *argv[4];
	struct exproc_result rr;
	char *err = NULL;
	int fd = mkstemp(path);
	FILE *f;

	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	fputs(out, f);
	ck_assert_int_eq(fclose(f), 0);
	argv[0] = getenv("KSFTM_KSFT_METRIC");
	argv[1] = "report";
	argv[2] = path;
	argv[3] = NULL;
	ck_assert_ptr_nonnull(argv[0]);
	ck_assert_msg(exproc_run(NULL, argv, 60000, &rr, &err) == 0, "%s", err);
	unlink(path);
	ck_assert_msg(exproc_exit_code(rr.status) == 0, "%s\n%s", rr.out, rr.errout);
	ck_assert_msg(!strstr(rr.errout, "warning"), "%s", rr.errout);
	ck_assert_msg(strstr(rr.out, "throughput"), "%s", rr.out);
	exproc_result_free(&rr);
}

/*
 * A/B between the namespaces: an A/A set (the same qdisc both times) and an
 * A/B set (B: a tbf rate cap on the sender's veth, in the remote namespace). Every pair has one A and one
 * B trial in the seeded order, each point labelled; report reads it.
 */
static void run_ab(const char *b_qdisc, const char *seed)
{
	const char *ifname = getenv(NETNS_ENV_REMOTE_IF), *ns = getenv(NETNS_ENV_REMOTE);
	char a_cmd[200], b_cmd[200];
	const char *extra[16];
	struct exproc_result r;
	int p, n = 0;

	ck_assert_ptr_nonnull(ifname);
	ck_assert_ptr_nonnull(ns);
	/* One argument with spaces: split on whitespace, run as argv. */
	snprintf(a_cmd, sizeof(a_cmd), "ip netns exec %s tc qdisc replace dev %s root pfifo",
		 ns, ifname);
	snprintf(b_cmd, sizeof(b_cmd), "ip netns exec %s tc qdisc replace dev %s root %s", ns,
		 ifname, b_qdisc);
	extra[n++] = "--pairs";
	extra[n++] = "3";
	extra[n++] = "--seed";
	extra[n++] = seed;
	extra[n++] = "--ab-a";
	extra[n++] = a_cmd;
	extra[n++] = "--ab-b";
	extra[n++] = b_cmd;
	extra[n] = NULL;
	run_cli_args(0, 0, extra, &r);
	printf("%s", r.out);
	ck_assert_msg(exproc_exit_code(r.status) == 0, "%s\n%s", r.out, r.errout);
	ck_assert_msg(strstr(r.out, "\n# A/B: 3 pairs, seed "), "%s", r.out);
	ck_assert_msg(strstr(r.out, seed), "%s", r.out);
	for (p = 0; p < 3; p++) {
		char want[64];

		snprintf(want, sizeof(want), "\n# pair %d (%s first): ", p,
			 ex_ab_order(strtoull(seed, NULL, 0), p) ? "B" : "A");
		ck_assert_msg(strstr(r.out, want), "no '%s'\n%s", want + 1, r.out);
		ck_assert_int_eq(trial_count(r.out, "throughput", "local", p, "A"), 1);
		ck_assert_int_eq(trial_count(r.out, "throughput", "local", p, "B"), 1);
		ck_assert_int_eq(trial_count(r.out, "cpu.cost.test", "both", p, "A"), 1);
		ck_assert_int_eq(trial_count(r.out, "cpu.cost.test", "both", p, "B"), 1);
		ck_assert_int_eq(trial_count(r.out, "interference.runq_wait", "remote", p, "B"), 1);
	}
	ck_assert_msg(strstr(r.out, "\n# A/B throughput: B/A median "), "%s", r.out);
	ck_assert_msg(strstr(r.out, "\"name\":\"ab.throughput_ratio\""), "%s", r.out);
	ck_assert_msg(strstr(r.out, "\nok 1 iperf3.throughput\n"), "%s", r.out);
	assert_report_reads(r.out);
	exproc_result_free(&r);
	/* Leave the veth as the other tests expect it. */
	{
		const char *argv[] = { "ip", "netns", "exec", ns, "tc", "qdisc", "del", "dev",
				       ifname, "root", NULL };
		char *err = NULL;

		ck_assert_msg(exproc_run(NULL, argv, 10000, &r, &err) == 0, "%s", err);
		exproc_result_free(&r);
	}
}

START_TEST(test_cli_ab)
{
	run_ab("pfifo", "7");			/* A/A */
	run_ab("tbf rate 1gbit burst 256kb latency 20ms", "12345");	/* A/B */
}
END_TEST

/* A setup command that fails fails the run, naming the variant. */
START_TEST(test_cli_ab_setup_fails)
{
	static const char *const extra[] = { "--pairs", "1", "--ab-a", "true", "--ab-b",
					     "false", NULL };
	struct exproc_result r;

	run_cli_args(0, 0, extra, &r);
	ck_assert_int_eq(exproc_exit_code(r.status), 1);
	ck_assert_msg(strstr(r.out, "variant B setup (false) exited with status 1"), "%s", r.out);
	ck_assert_msg(strstr(r.out, "\nnot ok 1 iperf3.throughput\n"), "%s", r.out);
	exproc_result_free(&r);
}
END_TEST

START_TEST(test_cli_refused)
{
	struct exproc_result r;

	run_cli(0, 1, &r);
	ck_assert_int_eq(exproc_exit_code(r.status), 1);
	ck_assert_msg(strstr(r.out, "Connection refused"), "%s", r.out);
	ck_assert_msg(strstr(r.out, "\nnot ok 1 iperf3.throughput\n"), "%s", r.out);
	ck_assert_msg(!strstr(r.out, "ktap-metric-json"), "%s", r.out);
	exproc_result_free(&r);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("iperf3_netns");
	TCase *tc = tcase_create("measure");

	tcase_set_timeout(tc, 90);
	tcase_add_test(tc, test_forward);
	tcase_add_test(tc, test_reverse);
	tcase_add_test(tc, test_ipv6_two_streams);
	tcase_add_test(tc, test_not_reporting);
	suite_add_tcase(s, tc);
	tc = tcase_create("failures");
	tcase_set_timeout(tc, 90);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_too_few_intervals);
	tcase_add_test(tc, test_client_timeout);
	tcase_add_test(tc, test_missing_iperf3);
	suite_add_tcase(s, tc);
	tc = tcase_create("cli");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_cli_run);
	tcase_add_test(tc, test_cli_refused);
	tcase_add_test(tc, test_cli_cpu_cost);
	tcase_add_test(tc, test_cli_own_cost);
	suite_add_tcase(s, tc);
	tc = tcase_create("ab");
	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, test_cli_ab);
	tcase_add_test(tc, test_cli_ab_setup_fails);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	static const char *const needed[] = { "iperf3", NULL };
	SRunner *sr;
	int rc = netns_main(argc, argv, needed), failed;

	if (rc >= 0)
		return rc;
	sr = srunner_create(make_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
