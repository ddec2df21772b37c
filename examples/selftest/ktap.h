/*
 * The few KTAP lines the kernel's kselftest.h prints, so the examples read
 * like real selftests without needing a kernel tree.
 */
#ifndef KSFTM_EXAMPLE_KTAP_H
#define KSFTM_EXAMPLE_KTAP_H

#include <stdio.h>

static inline void ktap_header(int plan)
{
	printf("TAP version 13\n1..%d\n", plan);
}

static inline void ktap_result(int ok, int n, const char *name)
{
	printf("%sok %d %s\n", ok ? "" : "not ", n, name);
}

static inline void ktap_totals(int pass, int fail)
{
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0\n", pass, fail);
	fflush(stdout);
}

#endif
