/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksft_sysmon: a system monitor for benchmarks. While it runs it samples
 * per-CPU time and NIC drop counters on the local host and, optionally, on a
 * remote test endpoint, and records them through libksftmetric into the open
 * test case (the C counterpart of the reference SystemMonitor).
 *
 * Metrics (label "host": "local" or "remote"):
 *   cpu.time.usr, cpu.time.sys, cpu.time.sirq  per-cpu seconds since start
 *   cpu.utilization                            per-cpu busy % of the interval
 *   nic.rx.dropped, nic.rx.missed_errors,
 *   nic.tx.dropped                             scalar counts since start
 *
 * Error rule: int calls return 0 or a negative errno, pointer calls NULL
 * with errno set; ksft_sysmon_errmsg() then says what failed, naming the
 * file, line or endpoint. The monitor never prints and never exits.
 *
 * Thread safety: any thread may start a monitor and call
 * ksft_sysmon_sample()/ksft_sysmon_stop() on it, but stop must not run
 * concurrently with another call on the same monitor.
 */
#ifndef KSFT_SYSMON_H
#define KSFT_SYSMON_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A running monitor (opaque). */
struct ksft_sysmon;

/**
 * struct ksft_sysmon_opts - what to monitor
 *
 * Initialise with KSFT_SYSMON_OPTS_INIT so that @sz is set; fields will only
 * ever be appended. Strings and the argv are copied by ksft_sysmon_start().
 */
struct ksft_sysmon_opts {
	size_t sz;			/**< sizeof(struct ksft_sysmon_opts) */
	/** Local NIC whose counters are read over netlink; NULL: CPU only. */
	const char *ifname;
	/**
	 * Remote endpoint: a command prefix run as argv (no local shell), e.g.
	 * {"ip", "netns", "exec", "nsB", NULL} or {"ssh", "host", NULL}. The
	 * monitor appends "sh" "-s" and feeds the sampler script on stdin, so
	 * the remote needs only a POSIX sh, cat, /proc/stat and
	 * /sys/class/net. NULL: no remote.
	 */
	const char *const *remote_argv;
	/** Remote NIC (any name; quoted for the remote shell); NULL: CPU only. */
	const char *remote_ifname;
	/** Sampling interval in seconds; 0 means 1.0. At least 0.001. */
	double interval;
	/**
	 * Fixture root for tests: read <root>/proc/stat and NIC counters from
	 * <root>/sys/class/net/IF/statistics/ (netlink cannot be pointed at a
	 * fixture). NULL or "/" means the live system and netlink.
	 */
	const char *root;
	/** The same on the remote (its sysfs is always used there). */
	const char *remote_root;
	/** Longest wait for one remote answer, in ms; 0 means 10000. */
	int remote_timeout_ms;
};

#define KSFT_SYSMON_OPTS_INIT { sizeof(struct ksft_sysmon_opts), 0, 0, 0, 0.0, 0, 0, 0 }

/**
 * ksft_sysmon_start() - start monitoring inside the open test case
 * @opts: what to monitor (NULL: local CPUs only, 1 s interval)
 *
 * Enters a reporting scope (ksft_metric_reporting(1)) so benchmark producers
 * emit their metrics, registers the metrics' policies, starts the remote
 * sampler, takes the baseline sample, records an initial 0 for each NIC
 * counter and starts the sampling thread.
 *
 * @return the monitor, or NULL with errno set: EPERM (no test case open),
 * EINVAL (bad option), ENODEV (no such interface), EBADMSG (unparsable
 * /proc/stat or counter file), EPROTO (the remote sampler exited or answered
 * garbage), ETIMEDOUT (it did not answer in time), EEXIST (a different
 * policy is registered for one of the metrics), ENOMEM, or the errno of a
 * failed open, read or spawn (e.g. ENOENT for a missing remote command).
 */
struct ksft_sysmon *ksft_sysmon_start(const struct ksft_sysmon_opts *opts);

/**
 * ksft_sysmon_sample() - take one sample now, besides the schedule
 *
 * For phase boundaries and tests; the schedule is not shifted.
 *
 * @return 0, or the sampler's error (also after an earlier failure).
 */
int ksft_sysmon_sample(struct ksft_sysmon *mon);

/**
 * ksft_sysmon_stop() - stop and free the monitor (NULL is fine)
 *
 * Leaves the reporting scope, stops the thread, takes a final sample (at
 * least half an interval, at most 0.5 s, after the previous one, so its
 * rates mean something: stop may wait that long), then
 * ends the remote sampler (kills it if it does not exit) and reaps it.
 *
 * A remote failure while running (the sampler died, its endpoint went away)
 * ends only the remote's series: the local host is still sampled to the end.
 *
 * @return 0, or the first error: of the sampling thread while it ran, of the
 * final sample, of leaving the reporting scope (e.g. the case already ended)
 * or of the remote sampler's exit. The monitor is freed in every case.
 */
int ksft_sysmon_stop(struct ksft_sysmon *mon);

/**
 * ksft_sysmon_busy_seconds() - busy CPU time of each endpoint so far
 * @local:  receives the local host's busy core-seconds since start
 * @remote: receives the remote's, or NAN without a (working) remote;
 *          either pointer may be NULL
 *
 * Reads both hosts now (at the same instant, as a sample does) without
 * recording anything, and sums user + nice + system + irq + softirq over
 * every CPU, since the monitor's baseline. Take it before and after a
 * measurement: the difference is the work the measurement cost (the
 * cpu.cost meter, cpu_cost.h, does this). Idle, iowait and steal are not
 * work; a CPU that goes offline takes its ticks along (the difference
 * never goes below 0).
 *
 * @return 0, or the local read's error (-EBADMSG, an open/read errno);
 * a remote that fails now only makes *@remote NAN (stop reports it).
 */
int ksft_sysmon_busy_seconds(struct ksft_sysmon *mon, double *local, double *remote);

/**
 * ksft_sysmon_errmsg() - describe the calling thread's last failure
 *
 * @return a message valid until the thread's next failing call, "" if none.
 */
const char *ksft_sysmon_errmsg(void);

#ifdef __cplusplus
}
#endif

#endif /* KSFT_SYSMON_H */
