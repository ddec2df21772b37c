// SPDX-License-Identifier: GPL-2.0
/*
 * A latency test's three clocks under ksft-vm (doc/vm.rst, "What icount
 * cannot see"): UDP round trips between two sockets of this process on
 * lo, 5 repeats of 5000, and per round trip the elapsed time
 * (CLOCK_MONOTONIC: virtual time in a guest), this process's CPU time
 * (CLOCK_PROCESS_CPUTIME_ID: under icount its instructions), CPU 0's
 * ksoftirqd's (/proc/PID/schedstat) and the machine's idle time
 * (/proc/stat, USER_HZ ticks), all in ns:
 *
 *   ksft-vm --kernel IMAGE --seed S -- build/bench/vm-udp-rr
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define REPEATS 5
#define TRIPS 5000

static long long clock_ns(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static long long idle_ns(void)
{
	unsigned long long user, nice, sys, idle;
	FILE *f = fopen("/proc/stat", "re");
	int n;

	if (!f)
		return 0;
	n = fscanf(f, "cpu %llu %llu %llu %llu", &user, &nice, &sys, &idle);
	fclose(f);
	return n == 4 ? (long long)idle * (1000000000LL / sysconf(_SC_CLK_TCK)) : 0;
}

/* ksoftirqd/0's /proc/PID/schedstat path, "" when there is none. */
static void find_ksoftirqd(char *path, size_t size)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	char comm[64], p[300];
	FILE *f;

	path[0] = '\0';
	while (d && (e = readdir(d))) {
		snprintf(p, sizeof(p), "/proc/%s/comm", e->d_name);
		f = fopen(p, "re");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && !strcmp(comm, "ksoftirqd/0\n"))
			snprintf(path, size, "/proc/%s/schedstat", e->d_name);
		fclose(f);
	}
	if (d)
		closedir(d);
}

static long long schedstat_ns(const char *path)
{
	long long v = 0;
	FILE *f = *path ? fopen(path, "re") : NULL;

	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

int main(void)
{
	char softirqd[300];
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_in sb = sa, peer;
	int a = socket(AF_INET, SOCK_DGRAM, 0), b = socket(AF_INET, SOCK_DGRAM, 0);
	socklen_t len = sizeof(sa);
	char buf[64] = { 0 };
	int r, i;

	if (a < 0 || b < 0 || bind(a, (void *)&sa, sizeof(sa)) || bind(b, (void *)&sb, sizeof(sb)) ||
	    getsockname(a, (void *)&sa, &len)) {
		perror("vm-udp-rr: socket");
		return 1;
	}
	len = sizeof(sb);
	if (getsockname(b, (void *)&sb, &len)) {
		perror("vm-udp-rr: getsockname");
		return 1;
	}
	find_ksoftirqd(softirqd, sizeof(softirqd));
	for (r = 0; r < REPEATS; r++) {
		long long t0 = clock_ns(CLOCK_MONOTONIC), c0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
		long long i0 = idle_ns(), s0 = schedstat_ns(softirqd);

		for (i = 0; i < TRIPS; i++) {
			len = sizeof(peer);
			if (sendto(a, buf, sizeof(buf), 0, (void *)&sb, sizeof(sb)) < 0 ||
			    recvfrom(b, buf, sizeof(buf), 0, (void *)&peer, &len) < 0 ||
			    sendto(b, buf, sizeof(buf), 0, (void *)&peer, len) < 0 ||
			    recv(a, buf, sizeof(buf), 0) < 0) {
				perror("vm-udp-rr: round trip");
				return 1;
			}
		}
		printf("repeat %d elapsed %.1f cpu %.1f ksoftirqd %.1f idle %.1f ns/trip\n", r,
		       (double)(clock_ns(CLOCK_MONOTONIC) - t0) / TRIPS,
		       (double)(clock_ns(CLOCK_PROCESS_CPUTIME_ID) - c0) / TRIPS,
		       (double)(schedstat_ns(softirqd) - s0) / TRIPS,
		       (double)(idle_ns() - i0) / TRIPS);
	}
	return 0;
}
