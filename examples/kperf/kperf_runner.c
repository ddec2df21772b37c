// SPDX-License-Identifier: GPL-2.0
/* kperf servers on both endpoints, the client here, metrics for both hosts. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <ksftmetric/metric.h>

#include "ex_opts.h"
#include "kperf_runner.h"
#include "net_policy.h"
#include "proc.h"

#define OUTPUT_IN_ERRORS 2000

enum { LOCAL, REMOTE };
static const char *const endpoint[] = { "local", "remote" };

struct kperf_runner {
	struct kperf_opts o;
	char pid_file[2][PATH_MAX];
	int started[2];
	char port[16];
	struct ex_own_probe counters;	/* instruction counters only */
};

static void apply_defaults(struct kperf_opts *o)
{
	if (!o->server)
		o->server = "kperf-server";
	if (!o->client)
		o->client = "kperf-client";
	if (o->port <= 0)
		o->port = KPERF_PORT;
	if (o->client_timeout_ms <= 0)
		o->client_timeout_ms = 300000;
	if (o->server_timeout_ms <= 0)
		o->server_timeout_ms = 10000;
	if (o->listen_timeout_ms <= 0)
		o->listen_timeout_ms = 5000;
	if (!o->pid_dir)
		o->pid_dir = "/tmp";
}

const char *kperf_missing(const struct kperf_opts *opts)
{
	struct kperf_opts o;

	/* Unusable options are kperf_runner_start()'s error to report. */
	if (ex_opts_copy(&o, sizeof(o), opts, "kperf", NULL))
		return NULL;
	apply_defaults(&o);
	if (!exproc_find_program(o.server))
		return o.server;
	if (!exproc_find_program(o.client))
		return o.client;
	return NULL;
}

static const char *const *prefix_of(const struct kperf_runner *r, int side)
{
	return side == REMOTE ? r->o.remote : NULL;
}

/* "what failed: why\n$ command\noutput" */
static int cmd_error(char **err, int ret, const char *what, const char *why,
		     const char *const *prefix, const char *const *argv,
		     const struct exproc_result *res)
{
	char *cmd = exproc_cmdline(prefix, argv);

	ex_errf(err, ret, "%s%s%s\n$ %s\n%s%s%s", what, *why ? " " : "", why,
		cmd ? cmd : argv[0],
		exproc_tail(res->errout, res->err_len, OUTPUT_IN_ERRORS),
		res->err_len && res->out_len ? "\n" : "",
		exproc_tail(res->out, res->out_len, OUTPUT_IN_ERRORS));
	free(cmd);
	return ret;
}

/* The local server runs on the placement's server CPUs, the remote one
 * and the client on its client CPUs; NULL: unpinned. */
static const cpu_set_t *cpus_of(const struct kperf_runner *r, int side)
{
	const struct ex_placement *p = r->o.placement;

	if (!p || !p->pinned)
		return NULL;
	return side == LOCAL ? &p->server : &p->client;
}

/* The server daemon of @side's session totals; 0 and u->valid 0 if not
 * visible here (its pid file is on another host). */
static void server_usage(const struct kperf_runner *r, int side, struct ex_task_usage *u)
{
	pid_t pid;

	memset(u, 0, sizeof(*u));
	if (!ex_pid_file_read(r->pid_file[side], &pid))
		ex_session_read(pid, u);
}

static int server_cmd(struct kperf_runner *r, int side, int kill_it, char **err)
{
	const char *argv[10];
	struct exproc_result res;
	char what[PATH_MAX + 64], why[96];
	int n = 0, ret;

	argv[n++] = r->o.server;
	argv[n++] = "--pid-file";
	argv[n++] = r->pid_file[side];
	if (kill_it) {
		argv[n++] = "--kill";
	} else {
		argv[n++] = "--addr";
		argv[n++] = side == REMOTE ? r->o.remote_addr : r->o.local_addr;
		if (r->o.port != KPERF_PORT) {
			argv[n++] = "--port";
			argv[n++] = r->port;
		}
	}
	argv[n] = NULL;
	ret = exproc_run_on(prefix_of(r, side), argv, cpus_of(r, side),
			    r->o.server_timeout_ms, &res, err);
	if (ret)
		return ret;
	snprintf(what, sizeof(what), "%s on the %s endpoint", r->o.server, endpoint[side]);
	if (res.timed_out) {
		snprintf(why, sizeof(why), "did not return within %d ms%s and was killed",
			 r->o.server_timeout_ms, kill_it ? "" : " (it should daemonize)");
		ret = cmd_error(err, -ETIMEDOUT, what, why, prefix_of(r, side), argv, &res);
	} else if (exproc_exit_code(res.status) != 0) {
		ret = cmd_error(err, -EPROTO, what, exproc_status_str(res.status),
				prefix_of(r, side), argv, &res);
	}
	exproc_result_free(&res);
	return ret;
}

int kperf_runner_stop(struct kperf_runner *r, char **err)
{
	int side, first = 0;

	if (!r)
		return 0;
	/* Reverse start order, as the seed pops its list. */
	for (side = REMOTE; side >= LOCAL; side--) {
		char *msg = NULL;
		int ret;

		if (!r->started[side])
			continue;
		ret = server_cmd(r, side, 1, &msg);
		r->started[side] = 0;
		if (ret && !first) {
			first = ret;
			if (err) {
				free(*err);
				*err = msg;
				msg = NULL;
			}
		}
		free(msg);
	}
	ex_own_counters_close(&r->counters);
	free(r);
	return first;
}

int kperf_runner_start(const struct kperf_opts *opts, struct kperf_runner **out,
		       char **err)
{
	struct kperf_runner *r;
	struct kperf_opts o;
	unsigned char rnd[8];
	char token[17];
	const char *missing;
	int side, ret, i;

	*out = NULL;
	ret = ex_opts_copy(&o, sizeof(o), opts, "kperf", err);
	if (ret)
		return ret;
	if (!o.local_addr || !o.remote_addr)
		return ex_errf(err, -EINVAL, "kperf: local_addr and remote_addr are required");
	missing = kperf_missing(&o);
	if (missing)
		return ex_errf(err, -ENOENT, "%s not found", missing);
	r = calloc(1, sizeof(*r));
	if (!r)
		return ex_errf(err, -ENOMEM, "out of memory");
	r->o = o;
	apply_defaults(&r->o);
	snprintf(r->port, sizeof(r->port), "%d", r->o.port);
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
		/* Unique enough without the entropy pool: pid and clock. */
		long long t = ex_monotonic_ms() ^ ((long long)getpid() << 20);

		memcpy(rnd, &t, sizeof(rnd));
	}
	for (i = 0; i < 8; i++)
		snprintf(token + 2 * i, 3, "%02x", rnd[i]);
	for (side = LOCAL; side <= REMOTE; side++)
		if (snprintf(r->pid_file[side], sizeof(r->pid_file[side]),
			     "%s/ksft-kperf-%s-%s.pid", r->o.pid_dir, token,
			     endpoint[side]) >= (int)sizeof(r->pid_file[side])) {
			free(r);
			return ex_errf(err, -ENAMETOOLONG, "kperf: pid directory path too long");
		}

	/* Before the servers start: their daemons and threads are counted. */
	if (ksft_metric_reporting_enabled() == 1)
		ex_own_counters_open(&r->counters, EX_TASK_COUNTERS_HW);
	for (side = LOCAL; side <= REMOTE; side++) {
		/* Counted as started before it returns: a half-started daemon
		 * may have written its pid file, and "--kill" is harmless. */
		r->started[side] = 1;
		ret = server_cmd(r, side, 0, err);
		if (ret)
			goto fail;
	}
	for (side = LOCAL; side <= REMOTE; side++) {
		ret = exproc_wait_listen(prefix_of(r, side), r->o.port,
					 r->o.listen_timeout_ms, NULL, err);
		if (ret) {
			char *why = err ? *err : NULL;

			if (err)
				*err = NULL;
			ex_errf(err, ret, "%s on the %s endpoint: %s", r->o.server,
				endpoint[side], why ? why : "not listening");
			free(why);
			goto fail;
		}
	}
	*out = r;
	return 0;
fail:
	kperf_runner_stop(r, NULL);
	return ret;
}

int kperf_record_metrics(const struct kperf_result *res, char **err)
{
	const struct kperf_side *sides[2] = { &res->source, &res->target };
	static const char *const host[2] = { "remote", "local" };
	int ret = ex_net_policies_register(err), i;

	if (ret)
		return ret;
	/* Source is the remote sender, Target the local receiver. */
	for (i = 0; i < 2 && !ret; i++) {
		ret = ex_record_double(EX_POLICY_THROUGHPUT, sides[i]->throughput, host[i]);
		if (!ret)
			ret = ex_record_int(EX_POLICY_RETRANSMITS, sides[i]->retransmits, host[i]);
	}
	if (ret)
		return ex_errf(err, ret, "metric: %s", ksft_metric_errmsg());
	return 0;
}

int kperf_runner_run(struct kperf_runner *r, const char *const *client_args,
		     struct kperf_result *res, char **err)
{
	const char **argv;
	struct exproc_result out;
	struct ex_task_usage srv0[2], srv1[2];
	struct ex_own_probe probe;
	struct ex_own_result own;
	char *text = NULL, why[96];
	size_t n = 0, extra = 0;
	int ret;

	memset(res, 0, sizeof(*res));
	while (client_args && client_args[extra])
		extra++;
	argv = calloc(extra + 10, sizeof(*argv));
	if (!argv)
		return ex_errf(err, -ENOMEM, "out of memory");
	argv[n++] = r->o.client;
	argv[n++] = "--src";
	argv[n++] = r->o.remote_addr;
	argv[n++] = "--dst";
	argv[n++] = r->o.local_addr;
	if (r->o.port != KPERF_PORT) {
		argv[n++] = "--src-svc";
		argv[n++] = r->port;
		argv[n++] = "--dst-svc";
		argv[n++] = r->port;
	}
	if (extra)
		memcpy(argv + n, client_args, extra * sizeof(*argv));

	memset(&out, 0, sizeof(out));
	memset(&probe, 0, sizeof(probe));
	probe.pl = r->o.placement;
	probe.ctr = r->counters.ctr;
	probe.ctr_kind = r->counters.ctr_kind;
	if (r->o.run_begin && (ret = r->o.run_begin(r->o.hook_ctx, err)))
		goto done;
	server_usage(r, LOCAL, &srv0[LOCAL]);
	server_usage(r, REMOTE, &srv0[REMOTE]);
	if ((ret = ex_own_begin(&probe, err)))
		goto done;
	ret = exproc_run_on(NULL, argv, cpus_of(r, REMOTE), r->o.client_timeout_ms, &out, err);
	if (ret)
		goto done;
	server_usage(r, LOCAL, &srv1[LOCAL]);
	server_usage(r, REMOTE, &srv1[REMOTE]);
	if (out.timed_out) {
		snprintf(why, sizeof(why), "timed out after %d ms and was killed",
			 r->o.client_timeout_ms);
		ret = cmd_error(err, -ETIMEDOUT, r->o.client, why, NULL, argv, &out);
		goto done;
	}
	if (exproc_exit_code(out.status) != 0) {
		ret = cmd_error(err, -EPROTO, r->o.client, exproc_status_str(out.status),
				NULL, argv, &out);
		goto done;
	}
	/* kperf reports on stderr (warnx); read both, as the seed does. */
	if (asprintf(&text, "%s\n%s", out.out, out.errout) < 0) {
		text = NULL;
		ret = ex_errf(err, -ENOMEM, "out of memory");
		goto done;
	}
	ret = kperf_parse(text, strlen(text), "kperf-client output", res, err);
	res->test_cost = NAN;
	if (ret) {
		char *msg = err ? *err : NULL;

		if (err)
			*err = NULL;
		cmd_error(err, ret, msg ? msg : "kperf-client output", "", NULL, argv, &out);
		free(msg);
		goto done;
	}
	if (r->o.run_end && (ret = r->o.run_end(r->o.hook_ctx, res, err))) {
		kperf_result_free(res);
		goto done;
	}
	if (ksft_metric_reporting_enabled()) {
		ret = kperf_record_metrics(res, err);
		if (ret) {
			kperf_result_free(res);
			goto done;
		}
	}
	/* The local Target server's session plus the client (here) is the
	 * local endpoint; the remote Source server's the remote one. */
	if (srv0[LOCAL].valid && srv1[LOCAL].valid && srv0[REMOTE].valid && srv1[REMOTE].valid) {
		ex_task_usage_sub(&srv1[LOCAL], &srv0[LOCAL]);
		ex_task_usage_sub(&srv1[REMOTE], &srv0[REMOTE]);
		srv1[LOCAL].user_s += out.usage.user_s;
		srv1[LOCAL].sys_s += out.usage.sys_s;
		if (res->target.bytes)
			ret = ex_own_end(&probe, &srv1[LOCAL], &srv1[REMOTE], NAN,
					 res->target.bytes, &own, err);
		if (!ret && res->target.bytes)
			res->test_cost = own.cost_both;
		if (ret) {
			kperf_result_free(res);
			goto done;
		}
	}

done:
	ex_own_free(&probe);
	exproc_result_free(&out);
	free(text);
	free(argv);
	return ret;
}

int kperf_run(const struct kperf_opts *opts, const char *const *client_args,
	      struct kperf_result *res, char **err)
{
	struct kperf_opts o;
	struct kperf_runner *r;
	int ret, stop, i;

	memset(res, 0, sizeof(*res));
	ret = ex_opts_copy(&o, sizeof(o), opts, "kperf", err);
	if (ret)
		return ret;
	if (o.repeat > KPERF_MAX_REPEATS || o.repeat < 0)
		return ex_errf(err, -EINVAL, "kperf: repeat %d out of range (1 to %d)",
			       o.repeat, KPERF_MAX_REPEATS);
	ret = kperf_runner_start(opts, &r, err);
	if (ret)
		return ret;
	/* Repeats share the servers; each client run is one recorded point
	 * per host of the throughput distribution. @res is the last run's. */
	for (i = 0; !ret && i < (o.repeat ? o.repeat : 1); i++) {
		if (i)
			kperf_result_free(res);
		ret = kperf_runner_run(r, client_args, res, err);
	}
	stop = kperf_runner_stop(r, ret ? NULL : err);
	if (!ret && stop) {
		kperf_result_free(res);
		ret = stop;
	}
	return ret;
}
