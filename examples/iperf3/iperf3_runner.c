// SPDX-License-Identifier: GPL-2.0
/* One iperf3 measurement between the local and a remote endpoint. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <ksftmetric/metric.h>

#include "ex_opts.h"
#include "iperf3_runner.h"
#include "net_policy.h"
#include "proc.h"

#define OUTPUT_IN_ERRORS 2000

struct run_ctx {
	struct iperf3_opts o;
	char port[16], duration[16], interval[32], streams[16], ctimeout[16], bytes[24];
	struct ex_task_usage client;	/* the last client run's processes */
};

static void apply_defaults(struct run_ctx *c)
{
	if (!c->o.iperf3)
		c->o.iperf3 = "iperf3";
	if (!c->o.server_addr)
		c->o.server_addr = "127.0.0.1";
	if (!c->o.bind_addr)
		c->o.bind_addr = c->o.server_addr;
	if (c->o.duration_s <= 0)
		c->o.duration_s = 10;
	if (c->o.interval_s <= 0)
		c->o.interval_s = 1;
	if (c->o.streams <= 0)
		c->o.streams = 1;
	if (c->o.repeat <= 0)
		c->o.repeat = 1;
	if (c->o.client_timeout_ms <= 0)
		c->o.client_timeout_ms = (c->o.duration_s + 30) * 1000;
	if (c->o.listen_timeout_ms <= 0)
		c->o.listen_timeout_ms = 5000;
	if (c->o.connect_timeout_ms <= 0)
		c->o.connect_timeout_ms = 5000;
}

/* A port nobody uses right now on the server's address (like rand_port()). */
static int free_port(const char *addr, char **err)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, port = -1;

	memset(&ss, 0, sizeof(ss));
	if (addr && *addr && inet_pton(AF_INET6, addr,
				       &((struct sockaddr_in6 *)&ss)->sin6_addr) == 1) {
		ss.ss_family = AF_INET6;
		len = sizeof(struct sockaddr_in6);
	} else {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

		ss.ss_family = AF_INET;
		if (!addr || !*addr || inet_pton(AF_INET, addr, &sin->sin_addr) != 1)
			sin->sin_addr.s_addr = htonl(INADDR_ANY);
		len = sizeof(struct sockaddr_in);
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return ex_errf(err, -errno, "cannot pick a port: socket: %s", strerror(errno));
	if (!bind(fd, (struct sockaddr *)&ss, len) &&
	    !getsockname(fd, (struct sockaddr *)&ss, &len))
		port = ntohs(ss.ss_family == AF_INET6 ?
			     ((struct sockaddr_in6 *)&ss)->sin6_port :
			     ((struct sockaddr_in *)&ss)->sin_port);
	else
		port = ex_errf(err, -errno, "cannot pick a port on %s: %s",
			       addr && *addr ? addr : "any address", strerror(errno));
	close(fd);
	return port;
}

int iperf3_record_metrics(const struct iperf3_result *res, int reverse,
			  const char *name, char **err)
{
	const char *receiver = reverse ? "remote" : "local";
	const char *sender = reverse ? "local" : "remote";
	size_t i;
	int ret = ex_net_policies_register(err);

	if (ret)
		return ret;
	ret = iperf3_require_retransmits(res, name, err);
	if (ret)
		return ret;
	ret = ex_record_double(EX_POLICY_THROUGHPUT, res->throughput_gbps, receiver);
	if (!ret)
		ret = ex_record_int(EX_POLICY_RETRANSMITS, res->retransmits, sender);
	for (i = 0; !ret && i < res->n_kept; i++)
		ret = ex_record_double(EX_POLICY_INTERVAL, res->interval_gbps[i], receiver);
	if (ret)
		return ex_errf(err, ret, "metric: %s", ksft_metric_errmsg());
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of @n repeats (sorts @v). */
static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int start_server(struct run_ctx *c, struct exproc *srv, char **err)
{
	const char *argv[10];
	int n = 0, ret;

	argv[n++] = c->o.iperf3;
	argv[n++] = "-s";
	argv[n++] = "-1";
	argv[n++] = "-p";
	argv[n++] = c->port;
	if (*c->o.bind_addr) {
		argv[n++] = "-B";
		argv[n++] = c->o.bind_addr;
	}
	argv[n] = NULL;
	ret = exproc_spawn_on(srv, NULL, argv,
			      c->o.placement && c->o.placement->pinned ? &c->o.placement->server
			      : NULL, err);
	if (ret)
		return ret;
	ret = exproc_wait_listen(NULL, c->o.port, c->o.listen_timeout_ms, srv, err);
	if (ret) {
		char *out, *eout, *why = err && *err ? strdup(*err) : NULL;

		exproc_kill(srv);
		out = exproc_output(srv, 1, NULL);
		eout = exproc_output(srv, 2, NULL);
		ex_errf(err, ret, "iperf3 server on port %d: %s\n%s%s", c->o.port,
			why ? why : "did not start", eout ? eout : "", out ? out : "");
		free(why);
		free(out);
		free(eout);
	}
	return ret;
}

static int client_error(struct run_ctx *c, const char *const *argv,
			struct exproc_result *r, const char *why, char **err)
{
	char *cmd = exproc_cmdline(c->o.remote, argv);
	int ret = r->timed_out ? -ETIMEDOUT : -EPROTO;

	ex_errf(err, ret, "iperf3 client (%s) %s\n%s%s", cmd ? cmd : c->o.iperf3, why,
		exproc_tail(r->errout, r->err_len, OUTPUT_IN_ERRORS),
		exproc_tail(r->out, r->out_len, OUTPUT_IN_ERRORS));
	free(cmd);
	return ret;
}

static int run_client(struct run_ctx *c, struct iperf3_result *res, char **err)
{
	const char *argv[20];
	struct exproc_result r;
	char why[160];
	int n = 0, ret;

	argv[n++] = c->o.iperf3;
	argv[n++] = "-c";
	argv[n++] = c->o.server_addr;
	argv[n++] = "-p";
	argv[n++] = c->port;
	argv[n++] = c->o.bytes ? "-n" : "-t";
	argv[n++] = c->o.bytes ? c->bytes : c->duration;
	argv[n++] = "-i";
	argv[n++] = c->interval;
	argv[n++] = "-P";
	argv[n++] = c->streams;
	argv[n++] = "--connect-timeout";
	argv[n++] = c->ctimeout;
	argv[n++] = "--json";
	if (c->o.reverse)
		argv[n++] = "-R";
	argv[n] = NULL;

	ret = exproc_run_on(c->o.remote, argv,
			    c->o.placement && c->o.placement->pinned ? &c->o.placement->client
			    : NULL, c->o.client_timeout_ms, &r, err);
	if (ret)
		return ret;
	c->client = r.usage;
	if (r.timed_out) {
		snprintf(why, sizeof(why), "timed out after %d ms and was killed",
			 c->o.client_timeout_ms);
		ret = client_error(c, argv, &r, why, err);
	} else if (exproc_exit_code(r.status) != 0) {
		/* --json still explains why; prefer its "error" text. */
		char *jerr = NULL;

		if (iperf3_parse_json(r.out, r.out_len, "iperf3 client output",
				      res, &jerr) == -EPROTO)
			snprintf(why, sizeof(why), "%s: %s", exproc_status_str(r.status), jerr);
		else
			snprintf(why, sizeof(why), "%s", exproc_status_str(r.status));
		free(jerr);
		ret = client_error(c, argv, &r, why, err);
	} else {
		ret = iperf3_parse_json(r.out, r.out_len, "iperf3 client output", res, err);
		if (ret && ret != -EPROTO && ret != -ERANGE && err && *err) {
			/* Unreadable output: show it. */
			char *msg = *err;

			*err = NULL;
			ex_errf(err, ret, "%s\n%s", msg,
				exproc_tail(r.out, r.out_len, OUTPUT_IN_ERRORS));
			free(msg);
		}
	}
	exproc_result_free(&r);
	return ret;
}

/* Is the client's process one we can see (here or in a namespace of this
 * machine), not a transport such as ssh? It ran iperf3 last. */
static int client_is_here(const struct run_ctx *c)
{
	const char *base = strrchr(c->o.iperf3, '/');

	base = base ? base + 1 : c->o.iperf3;
	return !c->o.remote || !c->o.remote[0] ||
	       (c->client.comm[0] && !strncmp(c->client.comm, base, 15));
}

int iperf3_run(const struct iperf3_opts *opts, struct iperf3_result *res,
	       char **err)
{
	struct iperf3_result tmp, one;
	double gbps[IPERF3_MAX_REPEATS], cost[IPERF3_MAX_REPEATS];
	struct ex_own_probe probe;
	struct ex_own_result own;
	size_t n_cost = 0;
	int64_t retransmits = 0;
	uint64_t bytes = 0;
	struct run_ctx c;
	struct exproc srv;
	int ret = 0, r;

	if (!res)
		res = &tmp;
	memset(res, 0, sizeof(*res));
	ret = ex_opts_copy(&c.o, sizeof(c.o), opts, "iperf3_run", err);
	if (ret)
		return ret;
	apply_defaults(&c);
	if (!exproc_find_program(c.o.iperf3))
		return ex_errf(err, -ENOENT, "%s not found", c.o.iperf3);
	if (c.o.port <= 0) {
		ret = free_port(c.o.bind_addr, err);
		if (ret < 0)
			return ret;
		c.o.port = ret;
	}
	if (c.o.port > 65535)
		return ex_errf(err, -EINVAL, "port %d out of range", c.o.port);
	snprintf(c.port, sizeof(c.port), "%d", c.o.port);
	snprintf(c.duration, sizeof(c.duration), "%d", c.o.duration_s);
	snprintf(c.bytes, sizeof(c.bytes), "%llu", c.o.bytes);
	snprintf(c.interval, sizeof(c.interval), "%g", c.o.interval_s);
	snprintf(c.streams, sizeof(c.streams), "%d", c.o.streams);
	snprintf(c.ctimeout, sizeof(c.ctimeout), "%d", c.o.connect_timeout_ms);

	if (c.o.repeat > IPERF3_MAX_REPEATS)
		return ex_errf(err, -EINVAL, "repeat %d out of range (1 to %d)", c.o.repeat,
			       IPERF3_MAX_REPEATS);
	/* Each repeat is one measurement with a server of its own, one point
	 * of the throughput distribution the policy compares by its p50. */
	ret = 0;
	memset(&probe, 0, sizeof(probe));
	probe.pl = c.o.placement;
	/* Before the first server: its processes and the client's are counted. */
	if (ksft_metric_reporting_enabled() == 1)
		ex_own_counters_open(&probe, EX_TASK_COUNTERS_HW);
	for (r = 0; !ret && r < c.o.repeat; r++) {
		if (c.o.before_repeat)
			ret = c.o.before_repeat(c.o.hook_ctx, r, err);
		if (ret)
			break;
		ret = start_server(&c, &srv, err);
		if (ret) {
			exproc_close(&srv);
			break;
		}
		memset(&c.client, 0, sizeof(c.client));
		if (c.o.repeat_begin)
			ret = c.o.repeat_begin(c.o.hook_ctx, err);
		if (!ret)
			ret = ex_own_begin(&probe, err);
		if (!ret)
			ret = run_client(&c, &one, err);
		if (!ret && c.o.repeat_end)
			ret = c.o.repeat_end(c.o.hook_ctx, &one, err);
		/* A one-off server ends with its test; after a failure it would not. */
		if (ret || exproc_wait(&srv, 2000))
			exproc_kill(&srv);
		/* Both have exited: what their processes used and suffered. */
		if (!ret)
			ret = ex_own_end(&probe, &srv.usage, client_is_here(&c) ? &c.client : NULL,
					 one.client_cpu_s, one.bytes, &own, err);
		ex_own_free(&probe);
		if (!ret && !isnan(own.cost_both))
			cost[n_cost++] = own.cost_both;
		exproc_close(&srv);
		if (!ret && ksft_metric_reporting_enabled())
			ret = iperf3_record_metrics(&one, c.o.reverse, "iperf3 client output", err);
		if (!ret) {
			gbps[r] = one.throughput_gbps;
			retransmits += one.retransmits;
			bytes += one.bytes;
		}
	}
	ex_own_counters_close(&probe);
	if (!ret && n_cost)
		ret = ex_own_record_best(cost, n_cost, err);
	if (!ret) {
		*res = one;
		res->repeats = (size_t)c.o.repeat;
		res->throughput_gbps = median(gbps, (size_t)c.o.repeat);
		res->retransmits = retransmits;
		res->bytes = bytes;
		res->test_cost = n_cost ? median(cost, n_cost) : NAN;
	}
	if (ret)
		memset(res, 0, sizeof(*res));
	return ret;
}
