// SPDX-License-Identifier: GPL-2.0
/* Instructions of this thread and all it starts (own_counters.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "own_counters.h"

struct ex_task_counters {
	int fd[2];	/* user, kernel */
};

static int open_one(enum ex_task_counters_kind kind, int kernel)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = kind == EX_TASK_COUNTERS_HW ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE;
	a.config = kind == EX_TASK_COUNTERS_HW ? PERF_COUNT_HW_INSTRUCTIONS
					       : PERF_COUNT_SW_TASK_CLOCK;
	a.inherit = 1;
	a.exclude_kernel = !kernel;
	a.exclude_user = kernel;
	a.exclude_hv = 1;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	/* pid 0: this thread; inherit follows its forks and threads. */
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

int ex_task_counters_open(enum ex_task_counters_kind kind, struct ex_task_counters **out,
			  char *why, size_t size)
{
	struct ex_task_counters *c;
	int i, ret;

	*out = NULL;
	c = malloc(sizeof(*c));
	if (!c) {
		snprintf(why, size, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < 2; i++) {
		c->fd[i] = open_one(kind, i);
		if (c->fd[i] < 0) {
			ret = -errno;
			snprintf(why, size, "perf_event_open: %s", strerror(errno));
			while (i--)
				close(c->fd[i]);
			free(c);
			return ret;
		}
	}
	*out = c;
	return 0;
}

int ex_task_counters_read(struct ex_task_counters *c, uint64_t count[2])
{
	int i;

	for (i = 0; i < 2; i++) {
		uint64_t v[3];	/* value, time enabled, time running */

		if (read(c->fd[i], v, sizeof(v)) != (ssize_t)sizeof(v))
			return -EIO;
		/* Multiplexed out part of the time: scale up, as perf does. */
		count[i] = v[2] && v[2] < v[1] ? (uint64_t)((double)v[0] * v[1] / v[2]) : v[0];
	}
	return 0;
}

void ex_task_counters_close(struct ex_task_counters *c)
{
	if (!c)
		return;
	close(c->fd[0]);
	close(c->fd[1]);
	free(c);
}

int ex_task_counters_probe(char *why, size_t size)
{
	struct ex_task_counters *c;
	int ret = ex_task_counters_open(EX_TASK_COUNTERS_HW, &c, why, size);

	ex_task_counters_close(c);
	return ret;
}
