// SPDX-License-Identifier: GPL-2.0
/*
 * kperf runner process handling with stand-in kperf programs (kperf is not
 * packaged for Debian): servers on both endpoints with their own pid files,
 * the port wait, the client's timeout, failure and garbage, and that no
 * stand-in process survives any of it. No root needed: both endpoints share
 * this network namespace, the "remote" one is reached through "env", or
 * through standin/ssh (OpenSSH's word joining) to check that hostile words
 * reach it unparsed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ksftmetric/metric.h>

#include "argv_log.h"
#include "check_main.h"
#include "cli_util.h"
#include "ab.h"
#include "kperf_runner.h"
#include "proc.h"

static const char *const remote_prefix[] = { "env", "KSFTM_STANDIN_SIDE=remote", NULL };
static char tmpdir[64], server[4096], client[4096], logfile[128], port_str[16];
static const char *client_args[4];

/* A port nobody listens on; both stand-in servers share it (SO_REUSEPORT). */
static int free_port(void)
{
	int port = 20000 + (int)(getpid() % 20000);

	while (exproc_tcp_listening(NULL, port, NULL) != 0)
		port++;
	return port;
}

static void setup(void)
{
	const char *dir = getenv("KSFTM_STANDIN_DIR");

	ck_assert_ptr_nonnull(dir);
	snprintf(server, sizeof(server), "%s/kperf-server", dir);
	snprintf(client, sizeof(client), "%s/kperf-client", dir);
	strcpy(tmpdir, "/tmp/ksftm-kperf-test-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	snprintf(logfile, sizeof(logfile), "%s/calls.log", tmpdir);
	snprintf(port_str, sizeof(port_str), "%d", free_port());
	setenv("KSFTM_STANDIN_LOG", logfile, 1);
	/* The marker lets teardown find every stand-in process by cmdline. */
	client_args[0] = "--marker";
	client_args[1] = tmpdir;
	client_args[2] = NULL;
}

/* Processes whose command line mentions @marker (ours excluded). */
static int survivors(const char *marker, char *who, size_t size)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	who[0] = '\0';
	while ((e = readdir(d))) {
		char path[300], buf[4096];
		ssize_t len, i;
		int fd;

		if (e->d_name[0] < '0' || e->d_name[0] > '9' || atoi(e->d_name) == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		for (i = 0; i < len; i++)
			if (!buf[i])
				buf[i] = ' ';
		buf[len] = '\0';
		if (strstr(buf, marker)) {
			n++;
			snprintf(who + strlen(who), size - strlen(who), "[%s] %s\n",
				 e->d_name, buf);
		}
	}
	closedir(d);
	return n;
}

static void teardown(void)
{
	char who[8192];
	long long deadline = ex_monotonic_ms() + 30000;
	int n;

	/* SIGKILL is delivered asynchronously: give the kernel a moment (a
	 * bound, not a wait: a loaded machine can take seconds). */
	while ((n = survivors(tmpdir, who, sizeof(who))) && ex_monotonic_ms() < deadline)
		usleep(20000);
	ck_assert_msg(n == 0, "stand-in processes survived:\n%s", who);
	errno = 0;
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
	unlink(logfile);
	/* The pid files are gone too, or this fails with ENOTEMPTY. */
	ck_assert_msg(rmdir(tmpdir) == 0, "%s: %s", tmpdir, strerror(errno));
}

static struct kperf_opts opts(void)
{
	struct kperf_opts o = KPERF_OPTS_INIT;

	o.server = server;
	o.client = client;
	o.local_addr = "127.0.0.1";
	o.remote_addr = "127.0.0.1";
	o.remote = remote_prefix;
	o.port = atoi(port_str);
	o.pid_dir = tmpdir;
	o.client_timeout_ms = 20000;
	o.server_timeout_ms = 5000;
	o.listen_timeout_ms = 5000;
	return o;
}

static char *report(const char *name)
{
	static char path[4096];

	snprintf(path, sizeof(path), "%s/kperf/%s", getenv("KSFTM_FIXTURES"), name);
	return path;
}

static char *read_log(void)
{
	char *text = NULL, *err = NULL;

	ck_assert_msg(ex_read_file(logfile, &text, NULL, &err) == 0, "%s", err);
	return text;
}

START_TEST(test_ok)
{
	struct kperf_opts o = opts();
	struct kperf_result r;
	char *err = NULL, *text = NULL, *log, want[512];
	int ret;

	setenv("KSFTM_STANDIN_REPORT", report("client-n2.txt"), 1);
	ck_assert_int_eq(ksft_metric_case_begin(), 0);
	ck_assert_int_eq(ksft_metric_reporting(1), 1);
	ret = kperf_run(&o, client_args, &r, &err);
	ksft_metric_reporting(0);
	ck_assert_int_ge(ksft_metric_case_end_buffer(&text, NULL), 0);
	ck_assert_msg(ret == 0, "%s", err);
	ck_assert_double_eq_tol(r.source.throughput, 29.954, 1e-12);
	ck_assert_double_eq_tol(r.target.throughput, 29.822, 1e-12);
	ck_assert_int_eq(r.source.retransmits, 88);
	ck_assert_int_eq(r.target.retransmits, 0);
	kperf_result_free(&r);

	/* Both hosts, Source = remote, Target = local, as patch 5. */
	ck_assert_msg(strstr(text, "# ktap-metric-policy-json: {\"name\":\"throughput\","
			     "\"regression\":{\"better\":\"higher\",\"compare\":\"p50\","
			     "\"relative_tolerance\":0.05},\"summarize\":\"distribution\"}\n"
			     "# ktap-metric-policy-json: {\"name\":\"tcp.retransmits\","
			     "\"summarize\":\"max\"}\n"), "%s", text);
	/* The own-cost policies come between: the stand-in servers are real
	 * processes of this machine, priced with the client. */
	ck_assert_msg(strstr(text, "\"name\":\"interference.others_cpu\",\"summarize\":"
			     "\"distribution\"}\n# ktap-metric-policy-json: {\"display_label\":"
			     "\"% of a CPU in irq and softirq\""), "%s", text);
	ck_assert_msg(strstr(text, "\"name\":\"interference.softirq_cpu\",\"summarize\":"
			     "\"distribution\"}\n# ktap-metric-json: {\"host\":\"remote\","
			     "\"name\":\"throughput\""), "%s", text);
	ck_assert_msg(strstr(text, "# ktap-metric-json: {\"host\":\"both\",\"name\":"
			     "\"cpu.cost.test\",\"shape\":\"scalar\""), "%s", text);
	ck_assert_msg(strstr(text, "\"value\":29.954}\n# ktap-metric-json: {\"host\":\"remote\","
			     "\"name\":\"tcp.retransmits\""), "%s", text);
	ck_assert_msg(strstr(text, "\"value\":88}\n# ktap-metric-json: {\"host\":\"local\","
			     "\"name\":\"throughput\""), "%s", text);
	ck_assert_msg(strstr(text, "\"value\":29.822000000000003}\n# ktap-metric-json: "
			     "{\"host\":\"local\",\"name\":\"tcp.retransmits\""), "%s", text);
	ksft_metric_free(text);

	/* Who was called how: one pid file per endpoint, the client with
	 * --src REMOTE --dst LOCAL, then --kill remote and local. */
	log = read_log();
	snprintf(want, sizeof(want), "server local --pid-file %s/ksft-kperf-", tmpdir);
	ck_assert_msg(!strncmp(log, want, strlen(want)), "%s", log);
	ck_assert_msg(strstr(log, "-local.pid --addr 127.0.0.1 --port "), "%s", log);
	ck_assert_msg(strstr(log, "\nserver remote --pid-file "), "%s", log);
	ck_assert_msg(strstr(log, "-remote.pid --addr 127.0.0.1 --port "), "%s", log);
	snprintf(want, sizeof(want), "\nclient --src 127.0.0.1 --dst 127.0.0.1 --src-svc %s "
		 "--dst-svc %s --marker %s\nserver remote --pid-file ", port_str, port_str,
		 tmpdir);
	ck_assert_msg(strstr(log, want), "%s", log);
	ck_assert_msg(strstr(log, "-remote.pid --kill\nserver local --pid-file "), "%s", log);
	ck_assert_msg(strstr(log, "-local.pid --kill\n"), "%s", log);
	free(log);
}
END_TEST

START_TEST(test_split_output_two_runs)
{
	struct kperf_opts o = opts();
	struct kperf_runner *runner;
	struct kperf_result r;
	char *err = NULL;

	/* Half the report on stdout, half on stderr; no reporting scope. */
	setenv("KSFTM_STANDIN_CLIENT", "split", 1);
	setenv("KSFTM_STANDIN_REPORT", report("client-v6-n1.txt"), 1);
	ck_assert_msg(kperf_runner_start(&o, &runner, &err) == 0, "%s", err);
	ck_assert_msg(kperf_runner_run(runner, client_args, &r, &err) == 0, "%s", err);
	ck_assert_double_eq_tol(r.source.throughput, 25.056, 1e-12);
	ck_assert_int_eq(r.source.retransmits, 20);
	kperf_result_free(&r);
	setenv("KSFTM_STANDIN_REPORT", report("client-rr-n1.txt"), 1);
	ck_assert_msg(kperf_runner_run(runner, client_args, &r, &err) == 0, "%s", err);
	ck_assert_double_eq_tol(r.target.throughput, 0.006, 1e-12);
	kperf_result_free(&r);
	ck_assert_int_eq(kperf_runner_stop(runner, &err), 0);
	ck_assert_int_eq(kperf_runner_stop(NULL, &err), 0);
}
END_TEST

START_TEST(test_client_hangs)
{
	struct kperf_opts o = opts();
	struct kperf_result r;
	char *err = NULL;

	/* 6 s, not less: the stand-in (python3) must have printed its first
	 * line before the kill even under a sanitizer on a loaded machine;
	 * at 1.5 s it did not, at load 20 under ASan. */
	setenv("KSFTM_STANDIN_CLIENT", "hang", 1);
	o.client_timeout_ms = 6000;
	ck_assert_int_eq(kperf_run(&o, client_args, &r, &err), -ETIMEDOUT);
	ck_assert_msg(strstr(err, "kperf-client timed out after 6000 ms and was killed\n$ "),
		      "%s", err);
	ck_assert_msg(strstr(err, "I   client.c: Connected"), "%s", err);
	free(err);
}
END_TEST

START_TEST(test_client_fails)
{
	struct kperf_opts o = opts();
	struct kperf_result r;
	char *err = NULL;

	setenv("KSFTM_STANDIN_CLIENT", "fail", 1);
	ck_assert_int_eq(kperf_run(&o, client_args, &r, &err), -EPROTO);
	ck_assert_msg(strstr(err, "kperf-client exited with status 3\n$ "), "%s", err);
	ck_assert_msg(strstr(err, "kperf-client: stand-in failure: Failed to connect"),
		      "%s", err);
	free(err);
}
END_TEST

START_TEST(test_client_garbage)
{
	struct kperf_opts o = opts();
	struct kperf_result r;
	char *err = NULL;

	setenv("KSFTM_STANDIN_CLIENT", "garbage", 1);
	ck_assert_int_eq(kperf_run(&o, client_args, &r, &err), -ENODATA);
	ck_assert_msg(strstr(err, "kperf-client output: incomplete kperf result"), "%s", err);
	ck_assert_msg(strstr(err, "hello from a program that is not kperf"), "%s", err);
	free(err);
}
END_TEST

START_TEST(test_remote_server_fails)
{
	struct kperf_opts o = opts();
	struct kperf_result r;
	char *err = NULL, *log;

	/* The local server is up when the remote one fails: killed again. */
	setenv("KSFTM_STANDIN_SERVER", "fail", 1);
	setenv("KSFTM_STANDIN_SERVER_SIDE", "remote", 1);
	ck_assert_int_eq(kperf_run(&o, client_args, &r, &err), -EPROTO);
	ck_assert_msg(strstr(err, "kperf-server on the remote endpoint exited with status 1\n"
			     "$ env KSFTM_STANDIN_SIDE=remote "), "%s", err);
	ck_assert_msg(strstr(err, "stand-in failure on remote: Failed to listen"), "%s", err);
	free(err);
	log = read_log();
	ck_assert_msg(!strstr(log, "client"), "%s", log);
	ck_assert_msg(strstr(log, "-local.pid --kill\n"), "%s", log);
	free(log);
}
END_TEST

START_TEST(test_server_does_not_daemonize)
{
	struct kperf_opts o = opts();
	struct kperf_result r;
	char *err = NULL;

	setenv("KSFTM_STANDIN_SERVER", "nodaemon", 1);
	o.server_timeout_ms = 1500;
	ck_assert_int_eq(kperf_run(&o, client_args, &r, &err), -ETIMEDOUT);
	ck_assert_msg(strstr(err, "kperf-server on the local endpoint did not return within "
			     "1500 ms (it should daemonize) and was killed"), "%s", err);
	free(err);
}
END_TEST

START_TEST(test_server_never_listens)
{
	struct kperf_opts o = opts();
	struct kperf_result r;
	char *err = NULL, want[128];

	setenv("KSFTM_STANDIN_SERVER", "nolisten", 1);
	o.listen_timeout_ms = 1000;
	ck_assert_int_eq(kperf_run(&o, client_args, &r, &err), -ETIMEDOUT);
	snprintf(want, sizeof(want), "on the local endpoint: nothing listens on TCP port %s "
		 "after 1000 ms", port_str);
	ck_assert_msg(strstr(err, want), "%s", err);
	free(err);
}
END_TEST

START_TEST(test_missing_programs)
{
	struct kperf_opts o = opts();
	struct kperf_result r;
	char *err = NULL;

	o.server = "/nonexistent/kperf-server";
	ck_assert_str_eq(kperf_missing(&o), "/nonexistent/kperf-server");
	ck_assert_int_eq(kperf_run(&o, NULL, &r, &err), -ENOENT);
	ck_assert_str_eq(err, "/nonexistent/kperf-server not found");
	free(err);
	o = opts();
	o.client = "kperf-client-that-does-not-exist";
	ck_assert_str_eq(kperf_missing(&o), "kperf-client-that-does-not-exist");
	o = opts();
	ck_assert_ptr_null(kperf_missing(&o));
}
END_TEST

static char ssh[4096], argv_log[4096], argv_file[128];

/* Like setup(), plus the stand-in ssh, cwd = tmpdir, $KSFTM_ARGV_LOG there. */
static void setup_remote(void)
{
	const char *dir = getenv("KSFTM_STANDIN_DIR");

	snprintf(ssh, sizeof(ssh), "%s/ssh", dir);
	snprintf(argv_log, sizeof(argv_log), "%s/argv-log", dir);
	snprintf(argv_file, sizeof(argv_file), "%s/argv.log", tmpdir);
	setenv("KSFTM_ARGV_LOG", argv_file, 1);
	ck_assert_int_eq(chdir(tmpdir), 0);
}

static void teardown_remote(void)
{
	unlink(argv_file);
	unsetenv("KSFTM_ARGV_LOG");
	ck_assert_int_eq(chdir("/"), 0);
}

static void assert_not_pwned(void)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/pwned", tmpdir);
	ck_assert_msg(access(path, F_OK) != 0, "a remote shell ran an injected command");
}

static char *read_argv_log(void)
{
	char *text = NULL, *err = NULL;

	ck_assert_msg(ex_read_file(argv_file, &text, NULL, &err) == 0, "%s", err);
	return text;
}

/* Behind a stand-in ssh, every word arrives as itself. */
START_TEST(test_remote_words_literal)
{
	const char *prefix[] = { ssh, "-p", "22", "-o", "BatchMode=yes", "host.example", NULL };
	const char *argv[40];
	struct exproc_result r;
	char want[4096] = "", *err = NULL, *log;
	int n = 0, i;

	setup_remote();
	argv[n++] = argv_log;
	for (i = 0; hostile_words[i]; i++)
		argv[n++] = hostile_words[i];
	argv[n] = NULL;
	for (i = 0; i < n; i++)
		netstring_add(want, sizeof(want), argv[i]);
	strcat(want, "\n");
	ck_assert_msg(exproc_run(prefix, argv, 20000, &r, &err) == 0, "%s", err);
	ck_assert_msg(exproc_exit_code(r.status) == 0, "%s%s", r.out, r.errout);
	exproc_result_free(&r);
	log = read_argv_log();
	ck_assert_str_eq(log, want);
	free(log);
	assert_not_pwned();

	/* The port check runs behind the prefix too. */
	ck_assert_int_eq(exproc_tcp_listening(prefix, 1, &err), 0);
	teardown_remote();
}
END_TEST

static int cli_timeout_ms = 30000;	/* A/B: several server starts */

/* 0: run without --metrics (A/B mode implies it). */
static int cli_metrics = 1;

static void run_cli(const char *const *extra, int timeout_s, struct exproc_result *r)
{
	const char *argv[40];
	char *err = NULL, tbuf[16];
	int n = 0;

	argv[n++] = getenv("KSFTM_KSFT_KPERF");
	argv[n++] = "run";
	if (cli_metrics)
		argv[n++] = "--metrics";
	argv[n++] = "--local-addr";
	argv[n++] = "127.0.0.1";
	argv[n++] = "--remote-addr";
	argv[n++] = "127.0.0.1";
	argv[n++] = "--port";
	argv[n++] = port_str;
	argv[n++] = "--client";
	argv[n++] = client;
	if (timeout_s) {
		snprintf(tbuf, sizeof(tbuf), "%d", timeout_s);
		argv[n++] = "--timeout";
		argv[n++] = tbuf;
	}
	/* Defaults unless @extra gives its own. */
	if (!extra || !extra[0] || strcmp(extra[0], "--remote")) {
		argv[n++] = "--remote";
		argv[n++] = "env KSFTM_STANDIN_SIDE=remote";
		argv[n++] = "--pid-dir";
		argv[n++] = tmpdir;
	}
	while (extra && *extra)
		argv[n++] = *extra++;
	argv[n++] = "--";
	argv[n++] = "--marker";
	argv[n++] = tmpdir;
	argv[n] = NULL;
	ck_assert_ptr_nonnull(argv[0]);
	ck_assert_msg(exproc_run(NULL, argv, cli_timeout_ms, r, &err) == 0, "%s", err);
	ck_assert_int_eq(r->timed_out, 0);
}

/* --repeat N: N client runs against the same servers, each recorded. */
START_TEST(test_cli_repeat)
{
	const char *const repeat[] = { "--server", server, "--repeat", "3", NULL };
	struct exproc_result r;
	const char *p;
	size_t n = 0;

	setenv("KSFTM_STANDIN_REPORT", report("client-n1.txt"), 1);
	run_cli(repeat, 0, &r);
	ck_assert_msg(exproc_exit_code(r.status) == 0, "%s\n%s", r.out, r.errout);
	for (p = r.out; (p = strstr(p, "{\"host\":\"local\",\"name\":\"throughput\"")); p++)
		n++;
	ck_assert_msg(n == 3, "%zu local throughput points:\n%s", n, r.out);
	ck_assert_msg(strstr(r.out, "\nok 1 kperf.throughput\n"), "%s", r.out);
	exproc_result_free(&r);
}
END_TEST

START_TEST(test_cli_run)
{
	const char *const with_server[] = { "--server", server, NULL };
	struct exproc_result r;

	setenv("KSFTM_STANDIN_REPORT", report("client-n1.txt"), 1);
	run_cli(with_server, 0, &r);
	ck_assert_msg(exproc_exit_code(r.status) == 0, "%s\n%s", r.out, r.errout);
	/* --metrics: the context line first, with the placement. */
	ck_assert_msg(!strncmp(r.out, "TAP version 13\n1..1\n# ktap-metric-context-json: {", 49),
		      "%s", r.out);
	ck_assert_msg(strstr(r.out, "\"placement\":\"server="), "%s", r.out);
	/* Instructions per byte: counted, or skipped with the reason said. */
	ck_assert_msg(strstr(r.out, "\"own_instructions\":\"user and kernel\"") ||
		      (strstr(r.out, "\"own_instructions\":\"none (perf_event_open: ") &&
		       strstr(r.out, "}\n# instructions per byte: skipped: perf_event_open: ")),
		      "%s", r.out);
	ck_assert_msg(strstr(r.out, "\n# kperf: source (remote) 12.964 "
			     "Gbps, 26 retransmits; target (local) 12.952 Gbps, 0 "
			     "retransmits\n# ktap-metric-policy-json: "), "%s", r.out);
	ck_assert_msg(strstr(r.out, "# ktap-metric-json: {\"host\":\"local\",\"name\":"
			     "\"tcp.retransmits\",\"shape\":\"scalar\",\"time\":"), "%s", r.out);
	ck_assert_msg(strstr(r.out, "\nok 1 kperf.throughput\n"), "%s", r.out);
	exproc_result_free(&r);

	/* The client hangs: --timeout 1 kills it, the test fails cleanly. */
	setenv("KSFTM_STANDIN_CLIENT", "hang", 1);
	run_cli(with_server, 1, &r);
	ck_assert_int_eq(exproc_exit_code(r.status), 1);
	ck_assert_msg(strstr(r.out, "/kperf-client timed out after 1000 ms and was killed\n"),
		      "%s", r.out);
	ck_assert_msg(strstr(r.out, "\nnot ok 1 kperf.throughput\n"), "%s", r.out);
	exproc_result_free(&r);
}
END_TEST

/*
 * A/B mode with the stand-ins: the setup commands swap the report the
 * client prints (variant A: 12.952 Gbps, B: 29.822), so every pair's B/A
 * ratio is known; the order inside each pair follows the seed; each point
 * is labelled; the NIC keys of --irq-ifname are in the context.
 */
START_TEST(test_cli_ab)
{
	char cmd_a[8192], cmd_b[8192], want[200], rep[300];
	const char *extra[20];
	struct exproc_result r;
	const char *p;
	int n = 0, pair, count = 0;

	snprintf(rep, sizeof(rep), "%s/report.txt", tmpdir);
	snprintf(cmd_a, sizeof(cmd_a), "cp %s %s", report("client-n1.txt"), rep);
	snprintf(cmd_b, sizeof(cmd_b), "cp %s %s", report("client-n2.txt"), rep);
	setenv("KSFTM_STANDIN_REPORT", rep, 1);
	extra[n++] = "--server";
	extra[n++] = server;
	extra[n++] = "--cpus";
	extra[n++] = "0/0";
	extra[n++] = "--irq-ifname";
	extra[n++] = "lo";
	extra[n++] = "--ab-a";
	extra[n++] = cmd_a;
	extra[n++] = "--ab-b";
	extra[n++] = cmd_b;
	extra[n++] = "--pairs";
	extra[n++] = "2";
	extra[n++] = "--seed";
	extra[n++] = "7";
	/* ip tcp_metrics flush needs root; without it the reset is skipped. */
	if (geteuid())
		extra[n++] = "--no-flush";
	extra[n] = NULL;
	cli_timeout_ms = 240000;
	cli_metrics = 0;	/* --ab-a/--ab-b imply --metrics (issue 33 item 4) */
	run_cli(extra, 0, &r);
	cli_metrics = 1;
	cli_timeout_ms = 30000;
	ck_assert_msg(exproc_exit_code(r.status) == 0, "%s\n%s", r.out, r.errout);
	ck_assert_msg(strstr(r.out, "\"nic_irqs\":\"none (no MSI interrupts)\""), "%s", r.out);
	ck_assert_msg(strstr(r.errout, "warning: 2 pairs cannot reach ksft-metric ab's default "
			     "significance (p <= 0.01 needs 7 pairs"), "%s", r.errout);
	ck_assert_msg(strstr(r.out, "# A/B: 2 pairs, seed 7 (order random inside each pair)\n"),
		      "%s", r.out);
	for (pair = 0; pair < 2; pair++) {
		snprintf(want, sizeof(want), "# pair %d (%s first): A 12.952 Gbps, B 29.822 Gbps, "
			 "B/A 2.3025\n", pair, ex_ab_order(7, pair) ? "B" : "A");
		ck_assert_msg(strstr(r.out, want), "%s not in\n%s", want, r.out);
	}
	ck_assert_msg(strstr(r.out, "# A/B throughput: B/A median 2.3025 over 2 pairs, CV of "
			     "the paired ratio 0.0%; unpaired CV A 0.0%, B 0.0%\n"), "%s", r.out);
	/* Two hosts x 4 trials, each labelled by its variant and pair. */
	for (p = r.out; (p = strstr(p, "\"name\":\"throughput\",\"pair\":")); p++)
		count++;
	ck_assert_msg(count == 8, "%d labelled throughput points:\n%s", count, r.out);
	ck_assert_msg(strstr(r.out, "\"pair\":1,\"shape\":\"scalar\"") &&
		      strstr(r.out, "\"variant\":\"B\""), "%s", r.out);
	ck_assert_msg(strstr(r.out, "\"name\":\"ab.throughput_ratio\""), "%s", r.out);
	ck_assert_msg(strstr(r.out, "\nok 1 kperf.throughput\n"), "%s", r.out);
	exproc_result_free(&r);
	unlink(rep);

	/* Only one variant: a usage error naming what is missing. */
	{
		const char *const one[] = { "--server", server, "--ab-a", cmd_a, NULL };

		run_cli(one, 0, &r);
	}
	ck_assert_int_eq(exproc_exit_code(r.status), 2);
	ck_assert_msg(strstr(r.errout, "ksft-kperf: A/B needs both --ab-a and --ab-b"), "%s",
		      r.errout);
	exproc_result_free(&r);
}
END_TEST

START_TEST(test_cli_skip)
{
	const char *const no_server[] = { "--server", "/nonexistent/kperf-server", NULL };
	struct exproc_result r;

	run_cli(no_server, 0, &r);
	ck_assert_int_eq(exproc_exit_code(r.status), 4);
	ck_assert_str_eq(r.out, "TAP version 13\n1..1\nok 1 kperf.throughput # SKIP "
			 "/nonexistent/kperf-server not found\n# Totals: pass:0 fail:0 "
			 "xfail:0 xpass:0 skip:1 error:0\n");
	exproc_result_free(&r);
}
END_TEST

/*
 * ksft-kperf --remote ssh HOST: a pid directory and a server path full of
 * shell syntax, and a hostile --remote-addr, reach the remote server as
 * single words; nothing they hold is run.
 */
START_TEST(test_cli_remote_ssh_quoting)
{
	char dir[512], srv[600], pid_prefix[600], want[2048] = "", *log, *line;
	const char *extra[20];
	struct exproc_result r;
	int n = 0;

	setup_remote();
	setenv("KSFTM_STANDIN_REPORT", report("client-n1.txt"), 1);
	snprintf(dir, sizeof(dir), "%s/" HOSTILE_DIR, tmpdir);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	snprintf(srv, sizeof(srv), "%s/kperf-server", dir);
	ck_assert_int_eq(symlink(server, srv), 0);
	extra[n++] = "--remote";
	extra[n++] = ssh;
	extra[n++] = "-p";
	extra[n++] = "22";
	extra[n++] = "host.example";
	extra[n++] = "--pid-dir";
	extra[n++] = dir;
	extra[n++] = "--server";
	extra[n++] = srv;
	extra[n] = NULL;
	run_cli(extra, 0, &r);
	ck_assert_msg(exproc_exit_code(r.status) == 0, "%s\n%s", r.out, r.errout);
	ck_assert_msg(strstr(r.out, "\nok 1 kperf.throughput\n"), "%s", r.out);
	exproc_result_free(&r);
	assert_not_pwned();
	/* "--pid-file DIR/ksft-kperf-TOKEN-remote.pid --addr ..." as exact words. */
	netstring_add(want, sizeof(want), "--pid-file");
	snprintf(pid_prefix, sizeof(pid_prefix), "%s/ksft-kperf-", dir);
	snprintf(want + strlen(want), sizeof(want) - strlen(want), "%zu:%s",
		 strlen(pid_prefix) + 16 + strlen("-remote.pid"), pid_prefix);
	log = read_argv_log();
	ck_assert_msg((line = strstr(log, want)), "%s\nlacks\n%s", log, want);
	line += strlen(want) + 16;
	ck_assert_msg(!strncmp(line, "-remote.pid,6:--addr,9:127.0.0.1,", 33), "%s", log);
	free(log);
	unlink(argv_file);

	/* A hostile --remote-addr: it fails somewhere, but as one word. */
	extra[n++] = "--remote-addr";
	extra[n++] = "127.0.0.1;touch pwned";
	extra[n] = NULL;
	run_cli(extra, 0, &r);
	exproc_result_free(&r);
	assert_not_pwned();
	log = read_argv_log();
	ck_assert_msg(strstr(log, "-remote.pid,6:--addr,21:127.0.0.1;touch pwned,"), "%s", log);
	free(log);
	unlink(srv);
	ck_assert_int_eq(rmdir(dir), 0);
	teardown_remote();
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("kperf_runner");
	TCase *tc = tcase_create("standins");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_ok);
	tcase_add_test(tc, test_split_output_two_runs);
	tcase_add_test(tc, test_client_hangs);
	tcase_add_test(tc, test_client_fails);
	tcase_add_test(tc, test_client_garbage);
	tcase_add_test(tc, test_remote_server_fails);
	tcase_add_test(tc, test_server_does_not_daemonize);
	tcase_add_test(tc, test_server_never_listens);
	tcase_add_test(tc, test_missing_programs);
	tcase_add_test(tc, test_cli_run);
	tcase_add_test(tc, test_cli_repeat);
	tcase_add_test(tc, test_cli_skip);
	suite_add_tcase(s, tc);
	tc = tcase_create("ab");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_cli_ab);
	suite_add_tcase(s, tc);
	tc = tcase_create("remote_quoting");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_remote_words_literal);
	tcase_add_test(tc, test_cli_remote_ssh_quoting);
	suite_add_tcase(s, tc);
	return s;
}
