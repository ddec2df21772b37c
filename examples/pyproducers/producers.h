/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libksftmetric-producers.so: the example producers (system monitor with
 * its CPU cost meter, iperf3 and kperf runners) behind a flat C API for
 * the Python package's ctypes wrappers (python/ksftmetric/producers.py).
 * Private to that package: plain C types only, versioned by the map.
 *
 * Error rule: 0 or a negative errno, pointers NULL with errno set;
 * ksftmetric_prod_errmsg() then says why. Never prints.
 * Thread safety: one call on a monitor at a time; messages are per thread.
 */
#ifndef KSFTM_PRODUCERS_H
#define KSFTM_PRODUCERS_H

#define KSFTP_API __attribute__((visibility("default")))

/** The calling thread's last failure, "" if none. */
KSFTP_API const char *ksftmetric_prod_errmsg(void);

/**
 * ksftmetric_prod_monitor_start() - ksft_sysmon_start() plus a CPU cost
 * meter (@counters: enum ksft_cpu_cost_counters) in the open case.
 * @remote: NULL-terminated prefix argv or NULL; @interval 0: 1 s.
 * @return a handle or NULL (errno, message).
 */
KSFTP_API void *ksftmetric_prod_monitor_start(const char *ifname,
					      const char *const *remote,
					      const char *remote_ifname,
					      double interval, int counters);

/** Why there are no counter metrics, or NULL. */
KSFTP_API const char *ksftmetric_prod_monitor_counters_missing(void *mon);

/** ksft_sysmon_stop() and free the handle (NULL is fine). @return 0 or -errno. */
KSFTP_API int ksftmetric_prod_monitor_stop(void *mon);

/**
 * ksftmetric_prod_iperf3_run() - iperf3_run() (see iperf3_runner.h); with
 * @mon each repeat is priced (cpu.cost per endpoint)
 * @out: median Gbps, retransmits (sum; -1 if absent), bytes (sum), repeats
 */
KSFTP_API int ksftmetric_prod_iperf3_run(const char *iperf3, const char *server_addr,
					 const char *bind_addr, const char *const *remote,
					 int duration_s, double interval_s, int streams,
					 int reverse, int repeat, void *mon, double out[4]);

/**
 * ksftmetric_prod_iperf3_run_on() - the same, placed by @cpus ("default",
 * "none" or "SERVER/CLIENT", see ex_placement_parse()); out[4] is the
 * median over the repeats of the test's own CPU s/GB (NAN if not measured).
 * ksftmetric_prod_iperf3_run() is this with "none".
 */
KSFTP_API int ksftmetric_prod_iperf3_run_on(const char *iperf3, const char *server_addr,
					    const char *bind_addr, const char *const *remote,
					    int duration_s, double interval_s, int streams,
					    int reverse, int repeat, void *mon, const char *cpus,
					    double out[5]);

/**
 * ksftmetric_prod_kperf_start() - kperf_runner_start() (see kperf_runner.h):
 * both servers running; with @mon each client run is priced (cpu.cost per
 * endpoint). @return a handle or NULL (errno, message).
 */
KSFTP_API void *ksftmetric_prod_kperf_start(const char *server, const char *client,
					    const char *local_addr, const char *remote_addr,
					    const char *const *remote, int port,
					    const char *pid_dir, void *mon);

/**
 * ksftmetric_prod_kperf_start_on() - the same, placed by @cpus as
 * ksftmetric_prod_iperf3_run_on() (the local server on SERVER, the remote
 * server and the client on CLIENT); ksftmetric_prod_kperf_start() is this
 * with "none".
 */
KSFTP_API void *ksftmetric_prod_kperf_start_on(const char *server, const char *client,
					       const char *local_addr, const char *remote_addr,
					       const char *const *remote, int port,
					       const char *pid_dir, void *mon, const char *cpus);

/**
 * ksftmetric_prod_kperf_client() - kperf_runner_run(): one client run
 * @out: source and target throughput (Gbps), source and target retransmits
 */
KSFTP_API int ksftmetric_prod_kperf_client(void *runner, const char *const *client_args,
					   double out[4]);

/** kperf_runner_stop(): kill both servers, free @runner. @return 0 or -errno. */
KSFTP_API int ksftmetric_prod_kperf_stop(void *runner);

#endif
