/*
 * LD_PRELOAD shim for the cli_order test: this process's wall clock runs
 * $KSFTM_CLOCK_SKEW seconds behind (a collector whose clock is slow), so
 * that the test shows which clock orders a shared history's runs.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static long skew(void)
{
	const char *s = getenv("KSFTM_CLOCK_SKEW");

	return s ? strtol(s, NULL, 10) : 0;
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
	static int (*real)(clockid_t, struct timespec *);
	int ret;

	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "clock_gettime");
	ret = real ? real(id, ts) : -1;
	if (!ret && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE))
		ts->tv_sec -= skew();
	return ret;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
	static int (*real)(struct timeval *restrict, void *restrict);
	int ret;

	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "gettimeofday");
	ret = real ? real(tv, tz) : -1;
	if (!ret)
		tv->tv_sec -= skew();
	return ret;
}

time_t time(time_t *t)
{
	struct timespec ts;
	time_t now;

	clock_gettime(CLOCK_REALTIME, &ts);
	now = ts.tv_sec;
	if (t)
		*t = now;
	return now;
}
