// SPDX-License-Identifier: GPL-2.0
/*
 * Run a command and print "SECONDS PEAK_RSS_KB EXIT CPU_SECONDS" for
 * bench_cli.py (CPU: the child's user + system time, which a loaded
 * machine does not inflate the way it inflates wall time).
 * A child forked straight from Python starts with Python's RSS high-water
 * mark (kept across exec), so the command is forked from this small
 * process instead and measured with wait4()'s ru_maxrss.
 *
 * usage: peak-rss COMMAND [ARG...]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec a, b;
	struct rusage ru;
	int status;
	pid_t pid;

	if (argc < 2) {
		fputs("usage: peak-rss COMMAND [ARG...]\n", stderr);
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 2;
	}
	if (!pid) {
		execvp(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("wait4");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.6f %ld %d %.6f\n", (double)(b.tv_sec - a.tv_sec) +
	       (double)(b.tv_nsec - a.tv_nsec) / 1e9, ru.ru_maxrss,
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
	       (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	return 0;
}
