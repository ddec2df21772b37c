// SPDX-License-Identifier: GPL-2.0
/* The flat C API of libksftmetric-producers.so (see producers.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_cost.h"
#include "iperf3_cost.h"
#include "iperf3_runner.h"
#include "kperf_cost.h"
#include "kperf_runner.h"
#include "producers.h"
#include "sysmon.h"

static _Thread_local char errmsg[2048];

struct prod_monitor {
	struct ksft_sysmon *mon;
	struct ksft_cpu_cost *meter;
};

static int fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(errmsg, sizeof(errmsg), fmt, ap);
	va_end(ap);
	return err;
}

/* A runner's malloc'd message becomes this thread's message. */
static int fail_runner(int err, char *msg)
{
	fail(err, "%s", msg ? msg : strerror(-err));
	free(msg);
	return err;
}

const char *ksftmetric_prod_errmsg(void)
{
	return errmsg;
}

void *ksftmetric_prod_monitor_start(const char *ifname, const char *const *remote,
				    const char *remote_ifname, double interval,
				    int counters)
{
	struct ksft_sysmon_opts mo = KSFT_SYSMON_OPTS_INIT;
	struct ksft_cpu_cost_opts co = KSFT_CPU_COST_OPTS_INIT;
	struct prod_monitor *m = calloc(1, sizeof(*m));
	int err;

	if (!m) {
		errno = -fail(-ENOMEM, "out of memory");
		return NULL;
	}
	mo.ifname = ifname;
	mo.remote_argv = remote;
	mo.remote_ifname = remote_ifname;
	mo.interval = interval;
	m->mon = ksft_sysmon_start(&mo);
	if (!m->mon)
		goto fail;
	co.mon = m->mon;
	co.counters = counters;
	m->meter = ksft_cpu_cost_new(&co);
	if (!m->meter) {
		err = errno;
		fail(-err, "%s", ksft_sysmon_errmsg());
		ksft_sysmon_stop(m->mon);
		free(m);
		errno = err;
		return NULL;
	}
	return m;
fail:
	err = errno;
	fail(-err, "%s", ksft_sysmon_errmsg());
	free(m);
	errno = err;
	return NULL;
}

const char *ksftmetric_prod_monitor_counters_missing(void *mon)
{
	struct prod_monitor *m = mon;

	return m ? ksft_cpu_cost_counters_missing(m->meter) : NULL;
}

int ksftmetric_prod_monitor_stop(void *mon)
{
	struct prod_monitor *m = mon;
	int err;

	if (!m)
		return 0;
	ksft_cpu_cost_free(m->meter);
	err = ksft_sysmon_stop(m->mon);
	if (err)
		fail(err, "%s", ksft_sysmon_errmsg());
	free(m);
	return err;
}

int ksftmetric_prod_iperf3_run(const char *iperf3, const char *server_addr,
			       const char *bind_addr, const char *const *remote,
			       int duration_s, double interval_s, int streams,
			       int reverse, int repeat, void *mon, double out[4])
{
	double o5[5];
	int ret = ksftmetric_prod_iperf3_run_on(iperf3, server_addr, bind_addr, remote,
						duration_s, interval_s, streams, reverse,
						repeat, mon, "none", o5);

	if (!ret)
		memcpy(out, o5, 4 * sizeof(*out));
	return ret;
}

int ksftmetric_prod_iperf3_run_on(const char *iperf3, const char *server_addr,
				  const char *bind_addr, const char *const *remote,
				  int duration_s, double interval_s, int streams,
				  int reverse, int repeat, void *mon, const char *cpus,
				  double out[5])
{
	struct iperf3_opts o = IPERF3_OPTS_INIT;
	struct prod_monitor *m = mon;
	struct iperf3_result res;
	struct ex_placement pl;
	char *err = NULL;
	int ret;

	ret = ex_placement_parse(NULL, cpus, &pl, &err);
	if (ret)
		return fail_runner(ret, err);
	o.placement = &pl;
	o.iperf3 = iperf3;
	o.server_addr = server_addr;
	o.bind_addr = bind_addr;
	o.remote = remote;
	o.duration_s = duration_s;
	o.interval_s = interval_s;
	o.streams = streams;
	o.reverse = reverse;
	o.repeat = repeat;
	if (m)
		iperf3_opts_cpu_cost(&o, m->meter);
	ret = iperf3_run(&o, &res, &err);
	if (ret)
		return fail_runner(ret, err);
	out[0] = res.throughput_gbps;
	out[1] = res.has_retransmits ? (double)res.retransmits : -1;
	out[2] = (double)res.bytes;
	out[3] = (double)res.repeats;
	out[4] = res.test_cost;
	return 0;
}

/* A kperf runner and the placement it points to (kperf_opts.placement). */
struct prod_kperf {
	struct kperf_runner *r;
	struct ex_placement pl;
};

void *ksftmetric_prod_kperf_start_on(const char *server, const char *client,
				     const char *local_addr, const char *remote_addr,
				     const char *const *remote, int port, const char *pid_dir,
				     void *mon, const char *cpus)
{
	struct prod_monitor *m = mon;
	struct kperf_opts o = KPERF_OPTS_INIT;
	struct prod_kperf *k = calloc(1, sizeof(*k));
	char *err = NULL;
	int ret;

	if (!k) {
		errno = -fail(-ENOMEM, "out of memory");
		return NULL;
	}
	ret = ex_placement_parse(NULL, cpus ? cpus : "none", &k->pl, &err);
	if (ret) {
		free(k);
		errno = -fail_runner(ret, err);
		return NULL;
	}
	o.placement = &k->pl;
	o.server = server;
	o.client = client;
	o.local_addr = local_addr;
	o.remote_addr = remote_addr;
	o.remote = remote;
	o.port = port;
	o.pid_dir = pid_dir;
	if (m)
		kperf_opts_cpu_cost(&o, m->meter);
	ret = kperf_runner_start(&o, &k->r, &err);
	if (ret) {
		free(k);
		errno = -fail_runner(ret, err);
		return NULL;
	}
	return k;
}

void *ksftmetric_prod_kperf_start(const char *server, const char *client,
				  const char *local_addr, const char *remote_addr,
				  const char *const *remote, int port, const char *pid_dir,
				  void *mon)
{
	return ksftmetric_prod_kperf_start_on(server, client, local_addr, remote_addr, remote,
					      port, pid_dir, mon, "none");
}

int ksftmetric_prod_kperf_client(void *runner, const char *const *client_args, double out[4])
{
	struct prod_kperf *k = runner;
	struct kperf_result res;
	char *err = NULL;
	int ret;

	if (!k)
		return fail(-EINVAL, "kperf runner not started");
	ret = kperf_runner_run(k->r, client_args, &res, &err);
	if (ret)
		return fail_runner(ret, err);
	out[0] = res.source.throughput;
	out[1] = res.target.throughput;
	out[2] = (double)res.source.retransmits;
	out[3] = (double)res.target.retransmits;
	kperf_result_free(&res);
	return 0;
}

int ksftmetric_prod_kperf_stop(void *runner)
{
	struct prod_kperf *k = runner;
	char *err = NULL;
	int ret = k ? kperf_runner_stop(k->r, &err) : 0;

	free(k);
	return ret ? fail_runner(ret, err) : 0;
}
