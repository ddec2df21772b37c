// SPDX-License-Identifier: GPL-2.0
/* System-wide per-CPU perf_event counters (see cpu_counters.h). */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cpu_counters.h"
#include "sm_error.h"

struct cpu_counters {
	int n;			/* fds in use */
	int fd[];		/* event 0 and 1 of each counted CPU */
};

static int perf_open(uint32_t type, uint64_t config, int cpu)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.disabled = 1;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	return (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

int cpu_counters_open(enum cpu_counters_kind kind, struct cpu_counters **out)
{
	static const uint64_t hw[2] = { PERF_COUNT_HW_CPU_CYCLES, PERF_COUNT_HW_INSTRUCTIONS };
	static const uint64_t sw[2] = { PERF_COUNT_SW_CPU_CLOCK, PERF_COUNT_SW_TASK_CLOCK };
	uint32_t type = kind == CPU_COUNTERS_HARDWARE ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE;
	const uint64_t *config = kind == CPU_COUNTERS_HARDWARE ? hw : sw;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	struct cpu_counters *c;
	int cpu, e, i;

	*out = NULL;
	if (ncpu < 1)
		ncpu = 1;
	c = calloc(1, sizeof(*c) + 2 * (size_t)ncpu * sizeof(int));
	if (!c)
		return sm_fail(-ENOMEM, "out of memory");
	for (cpu = 0; cpu < ncpu; cpu++) {
		for (e = 0; e < 2; e++) {
			int fd = perf_open(type, config[e], cpu);

			if (fd >= 0) {
				c->fd[c->n++] = fd;
				continue;
			}
			/* An offline CPU (ENODEV) has nothing to count. */
			if (errno == ENODEV && e == 0)
				break;
			e = -errno;
			sm_fail(e, "perf_event_open: %s", strerror(errno));
			cpu_counters_close(c);
			return e;
		}
	}
	if (c->n == 0) {
		cpu_counters_close(c);
		return sm_fail(-ENODEV, "perf_event_open: no online CPU to count on");
	}
	for (i = 0; i < c->n; i++)
		if (ioctl(c->fd[i], PERF_EVENT_IOC_ENABLE, 0) < 0) {
			e = -errno;
			sm_fail(e, "perf_event enable: %s", strerror(errno));
			cpu_counters_close(c);
			return e;
		}
	*out = c;
	return 0;
}

int cpu_counters_read(struct cpu_counters *c, uint64_t count[2])
{
	int i;

	count[0] = count[1] = 0;
	for (i = 0; i < c->n; i++) {
		uint64_t v[3];	/* value, time enabled, time running */
		double scaled;

		if (read(c->fd[i], v, sizeof(v)) != (ssize_t)sizeof(v))
			return sm_fail(-EIO, "perf_event read: %s", strerror(errno));
		/* Multiplexed out part of the time: extrapolate, as perf stat does. */
		scaled = v[2] && v[2] < v[1] ? (double)v[0] * (double)v[1] / (double)v[2]
					     : (double)v[0];
		count[i % 2] += (uint64_t)scaled;
	}
	return 0;
}

void cpu_counters_close(struct cpu_counters *c)
{
	int i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++)
		close(c->fd[i]);
	free(c);
}
