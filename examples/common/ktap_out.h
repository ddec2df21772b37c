/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The KTAP lines the example CLIs print around one measurement, as
 * kselftest.h does: header, "# " diagnostics, result (with "# SKIP"), totals.
 */
#ifndef KSFTM_EXAMPLE_KTAP_OUT_H
#define KSFTM_EXAMPLE_KTAP_OUT_H

/** Result of one KTAP case. */
enum ex_ktap_result { EX_KTAP_PASS, EX_KTAP_FAIL, EX_KTAP_SKIP };

/** kselftest's exit code for a skipped test (meson's is 77). */
#define EX_KSFT_SKIP 4

void ex_ktap_header(int plan);
/** Print @text as diagnostics: every line behind "# ". */
void ex_ktap_diag(const char *text);
/** "ok N name", "not ok N name" or "ok N name # SKIP reason". */
void ex_ktap_result(int n, const char *name, enum ex_ktap_result res,
		    const char *skip_reason);
void ex_ktap_totals(int pass, int fail, int skip);

/**
 * ex_metric_case_begin() - ksft_metric_case_begin(), then with @metrics
 * ksft_metric_reporting(1) (a failure there is only a diagnostic).
 * @return 0, or -1 after a diagnostic when the case could not begin.
 */
int ex_metric_case_begin(int metrics);
/**
 * ex_metric_case_end() - ksft_metric_case_end()
 * @return @result, or EX_KTAP_FAIL after a diagnostic when it failed.
 */
enum ex_ktap_result ex_metric_case_end(enum ex_ktap_result result);
/**
 * ex_ktap_finish() - the result line of the single case @name and the totals
 * @return the exit code: 0 pass, 1 fail, EX_KSFT_SKIP skip.
 */
/*
 * Performance tests run only where their numbers mean something: not on a
 * debug kernel or with KSFT_MACHINE_SLOW=yes, unless KSFTMETRIC_PERF_FORCE=1
 * (ksft_metric_perf_check()). Returns 1 after printing test @name as
 * skipped with the reason and the totals (*@rc = the skip exit code), else 0.
 */
int ex_perf_skip(const char *name, int *rc);

int ex_ktap_finish(const char *name, enum ex_ktap_result result,
		   const char *skip_reason);

#endif
