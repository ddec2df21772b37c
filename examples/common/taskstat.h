/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a benchmark's own processes cost and suffered, and where they ran:
 * per-process CPU time, run-queue wait and context switches
 * (/proc/PID/task/TID/schedstat and status, wait4()), per-CPU busy and
 * steal time of the CPUs they ran on (/proc/stat), CPU lists for pinning,
 * and the kernel settings that change what a CPU cost means.
 *
 * Error rule: 0 or a negative errno; *@err (if @err) then holds a malloc'd
 * message. No shared state: thread-safe.
 */
#ifndef KSFTM_EXAMPLE_TASKSTAT_H
#define KSFTM_EXAMPLE_TASKSTAT_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/**
 * struct ex_task_usage - one process (all its threads) over its life
 *
 * From wait4() at reap (exact and complete: every thread, dead or not)
 * plus the schedstat of the threads still listed when it was a zombie
 * (the run-queue wait of threads that exited earlier is lost; iperf3
 * before 3.16 has one thread).
 */
struct ex_task_usage {
	int valid;		/* 1 once filled in */
	double user_s, sys_s;	/* rusage; on veth sys holds the softirq work
				   run in the task's context (without
				   CONFIG_IRQ_TIME_ACCOUNTING) */
	double run_delay_s;	/* waited runnable for a CPU (schedstat field 2) */
	long long nvcsw, nivcsw; /* voluntary, involuntary context switches */
	char comm[16];		/* what it ran last (/proc/PID/comm) */
};

/** ex_task_zombie_read() - schedstat and comm of @pid (any state) into @u. */
void ex_task_zombie_read(pid_t pid, struct ex_task_usage *u);

/** ex_task_live_read() - like wait4's figures but for a live process: all
 * its threads' schedstat (CPU and wait) and status switch counts.
 * @return 0 or -errno (gone). */
int ex_task_live_read(pid_t pid, struct ex_task_usage *u);

/**
 * ex_session_read() - ex_task_live_read() summed over every process of
 * session @sid (a daemon that called setsid(), and the workers it forked).
 * Processes that exited before the call are not counted.
 * @return 0, or -ENOENT when no process of the session is visible here.
 */
int ex_session_read(pid_t sid, struct ex_task_usage *u);

/** ex_task_usage_sub() - @a -= @b field by field (a run's share). */
void ex_task_usage_sub(struct ex_task_usage *a, const struct ex_task_usage *b);

/** ex_pid_file_read() - the pid in @path, or -errno. */
int ex_pid_file_read(const char *path, pid_t *pid);

/** Per-CPU tick counts of /proc/stat, up to EX_MAX_CPUS CPUs. */
#define EX_MAX_CPUS 1024
struct ex_cpu_ticks {
	size_t n;			/* CPU ids 0..n-1 present in the arrays */
	unsigned long long *busy;	/* user+nice+system+irq+softirq */
	unsigned long long *softirq;	/* irq+softirq: part of busy */
	unsigned long long *steal;
	unsigned char *seen;		/* this id had a cpuN line */
};

/** ex_cpu_ticks_read() - read @path (NULL: /proc/stat). Free with _free. */
int ex_cpu_ticks_read(const char *path, struct ex_cpu_ticks *t, char **err);
void ex_cpu_ticks_free(struct ex_cpu_ticks *t);

/**
 * ex_cpu_ticks_delta() - busy, steal and irq+softirq seconds (the last a
 * part of busy; @softirq_s may be NULL) on the CPUs of @set from @a to @b
 * (NULL @set: all CPUs). A CPU missing from either is skipped.
 */
void ex_cpu_ticks_delta(const struct ex_cpu_ticks *a, const struct ex_cpu_ticks *b,
			const cpu_set_t *set, double *busy_s, double *steal_s, double *softirq_s);

/**
 * ex_cpulist_parse() - "0-2,5" into @set (kernel cpulist syntax).
 * @return 0, or -EINVAL with *@err naming @what and the bad text.
 */
int ex_cpulist_parse(const char *text, const char *what, cpu_set_t *set, char **err);

/** ex_cpulist_format() - @set as "0-2,5" into @buf ("" for an empty set). */
const char *ex_cpulist_format(const cpu_set_t *set, char *buf, size_t size);

/**
 * struct ex_placement - where the benchmark's endpoints run
 * @pinned: 0: the scheduler decides (nothing pinned)
 */
struct ex_placement {
	int pinned;
	cpu_set_t server, client;	/* local endpoint, client endpoint */
};

/**
 * ex_placement_default() - the documented default: the client on the
 * second-highest online CPU id, the server on the highest (away from CPU 0,
 * where housekeeping interrupts land); both on CPU 0 with one CPU.
 * Reads @root/sys/devices/system/cpu/online (@root NULL: "/").
 */
int ex_placement_default(const char *root, struct ex_placement *p, char **err);

/**
 * ex_placement_parse() - "--cpus" text: "default", "none" (unpinned) or
 * "SERVER/CLIENT" (two cpulists, e.g. "1/0", "1/1", "0-1/0-1").
 */
int ex_placement_parse(const char *root, const char *text, struct ex_placement *p,
		       char **err);

/**
 * ex_placement_describe() - the context value, e.g. "server=1 client=0",
 * "unpinned". @return @buf.
 */
const char *ex_placement_describe(const struct ex_placement *p, char *buf, size_t size);

/**
 * ex_cost_context() - add to the run's context line what changes what a
 * CPU cost means here and where the benchmark ran: "placement", and
 * "irq_time_accounting", "smt", "governor", "turbo", "mitigations",
 * "threaded_napi" (of @ifname, if any), for a NIC with a device
 * "nic_driver", "nic_firmware", "nic_speed" where readable ("unknown"
 * where not). @root: as for ex_placement_default() (tests).
 * @return 0 or the library's negative errno.
 */
int ex_cost_context(const char *root, const struct ex_placement *p, const char *ifname);

/**
 * ex_nic_irqs_pin() - point every MSI interrupt of @ifname's device
 * (@root/sys/class/net/IF/device/msi_irqs/) at @cpus through
 * /proc/irq/N/smp_affinity_list. veth and loopback have none: returns 0
 * with *@n_irqs 0. @return 0 or -errno (not root, an IRQ that refuses).
 */
int ex_nic_irqs_pin(const char *root, const char *ifname, const cpu_set_t *cpus,
		    int *n_irqs, char **err);

/**
 * ex_nic_irqs_context() - with a pinned @p, point @ifname's MSI interrupts
 * at the server's CPUs (ex_nic_irqs_pin()) and record "nic_irqs" in the
 * run context ("2 on 1", or "none (no MSI interrupts)"); unpinned, only
 * "nic_irqs":"not pinned (--cpus none)"; @desc receives the value.
 * @return 0 or -errno with *@err.
 */
int ex_nic_irqs_context(const char *ifname, const struct ex_placement *p, char *desc,
			size_t size, char **err);

#endif
