// SPDX-License-Identifier: GPL-2.0
/* KTAP output for the example CLIs (see ktap_out.h). */
#include <stdio.h>
#include <string.h>

#include <ksftmetric/metric.h>

#include "ktap_out.h"

void ex_ktap_header(int plan)
{
	printf("TAP version 13\n1..%d\n", plan);
}

void ex_ktap_diag(const char *text)
{
	while (text && *text) {
		size_t n = strcspn(text, "\n");

		printf("# %.*s\n", (int)n, text);
		text += n;
		if (*text)
			text++;
	}
	fflush(stdout);
}

void ex_ktap_result(int n, const char *name, enum ex_ktap_result res,
		    const char *skip_reason)
{
	if (res == EX_KTAP_SKIP)
		printf("ok %d %s # SKIP %s\n", n, name, skip_reason ? skip_reason : "");
	else
		printf("%sok %d %s\n", res == EX_KTAP_PASS ? "" : "not ", n, name);
}

void ex_ktap_totals(int pass, int fail, int skip)
{
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0\n",
	       pass, fail, skip);
	fflush(stdout);
}

int ex_metric_case_begin(int metrics)
{
	if (ksft_metric_case_begin() < 0) {
		ex_ktap_diag(ksft_metric_errmsg());
		return -1;
	}
	/* The main job will open this scope with its system monitor. */
	if (metrics && ksft_metric_reporting(1) < 0)
		ex_ktap_diag(ksft_metric_errmsg());
	return 0;
}

enum ex_ktap_result ex_metric_case_end(enum ex_ktap_result result)
{
	if (ksft_metric_case_end() < 0) {
		ex_ktap_diag(ksft_metric_errmsg());
		return EX_KTAP_FAIL;
	}
	return result;
}

int ex_ktap_finish(const char *name, enum ex_ktap_result result,
		   const char *skip_reason)
{
	ex_ktap_result(1, name, result, skip_reason);
	ex_ktap_totals(result == EX_KTAP_PASS, result == EX_KTAP_FAIL,
		       result == EX_KTAP_SKIP);
	return result == EX_KTAP_PASS ? 0 : result == EX_KTAP_SKIP ? EX_KSFT_SKIP : 1;
}

int ex_perf_skip(const char *name, int *rc)
{
	char why[512];

	if (ksft_metric_perf_check(why, sizeof(why)) != 0)
		return 0;	/* run (an error checking is no reason to skip) */
	*rc = ex_ktap_finish(name, EX_KTAP_SKIP, why);
	return 1;
}
