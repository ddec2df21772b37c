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

#endif
