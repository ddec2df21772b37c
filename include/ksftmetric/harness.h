/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libksftmetric for kselftest_harness.h tests: one metric case per test,
 * whichever way the test leaves. Include it after the kernel's harness:
 *
 *	#include "kselftest_harness.h"
 *	#include <ksftmetric/harness.h>
 *
 *	KSFT_METRIC_TEST(latency)
 *	{
 *		ASSERT_EQ(0, ksft_metric_int("latency.us", "scalar", 42, NULL, 0));
 *		if (!have_device)
 *			SKIP(return, "no device");
 *		...
 *	}
 *
 *	KSFT_METRIC_TEST_F(my_fixture, throughput) { ... }
 *	KSFT_METRIC_TEST_F_TIMEOUT(my_fixture, long_run, 120) { ... }
 *
 * These are TEST(), TEST_F() and TEST_F_TIMEOUT() whose body runs inside a
 * metric case, opened and ended in the process that runs the body (the
 * harness forks one per test, and for TEST_F a second one below it). The
 * harness prints the result line from its parent after waitpid(), so what
 * the test process wrote comes first. Ways out of the body:
 *
 *  - the end of the body, "return", SKIP(return, ...), a failed ASSERT_*:
 *    the case is ended normally before the process leaves (the harness
 *    leaves with _exit(), which runs no exit hook, and an ASSERT longjmps
 *    out of the body: the macro catches that longjmp, ends the case and
 *    hands control back to the harness, which reports the failure);
 *  - the harness timeout (SIGKILL to the test's process group), a crash:
 *    nothing of the test runs any more, so the case is written through
 *    (ksft_metric_set_stream()): each line goes out when it is recorded
 *    and everything recorded before the kill precedes the "not ok" line;
 *    the case's "begin" frame without its "end" marks it incomplete;
 *  - abort() or a failed assert() in the body: the library's SIGABRT hook
 *    writes the lines followed by a ktap-metric-abort-json line, and
 *    consumers keep them as incomplete.
 *
 * Define KSFT_METRIC_HARNESS_BUFFERED before including this header to keep
 * the program's own choice of mode instead (buffered unless
 * KSFTMETRIC_STREAM=1): then the lines are written at the end of the body
 * in one piece, and a test killed by the timeout loses its case.
 *
 * Record in the body: the fixture's setup and teardown run outside the
 * case. Do not open a case yourself inside these tests (that is -EBUSY).
 * A process the body forks never ends the case; only the one that opened
 * it does. Needs a harness whose ASSERT_* longjmp to _metadata->env (as
 * the 6.12 kselftest_harness.h does).
 */
#ifndef KSFTMETRIC_HARNESS_H
#define KSFTMETRIC_HARNESS_H

#ifndef __KSELFTEST_HARNESS_H
#error "include kselftest_harness.h before <ksftmetric/harness.h>"
#endif

#include <setjmp.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include <ksftmetric/metric.h>

#ifdef KSFT_METRIC_HARNESS_BUFFERED
#define KSFT_METRIC_HARNESS_STREAM_ 0
#else
#define KSFT_METRIC_HARNESS_STREAM_ 1
#endif

/* Opens the test's case; @return the opener's pid, 0 if it did not open. */
static inline pid_t ksft_metric_harness_begin_(void)
{
	if (KSFT_METRIC_HARNESS_STREAM_)
		ksft_metric_set_stream(1);
	if (ksft_metric_case_begin() < 0) {
		ksft_print_msg("ksft_metric_case_begin: %s\n", ksft_metric_errmsg());
		return 0;
	}
	return getpid();
}

/* Ends the case if this process opened it; a lost case fails the test. */
static inline void ksft_metric_harness_end_(struct __test_metadata *_metadata,
					    pid_t opener)
{
	if (!opener || getpid() != opener)
		return;
	if (ksft_metric_case_end() < 0) {
		ksft_print_msg("ksft_metric_case_end: %s\n", ksft_metric_errmsg());
		_metadata->exit_code = KSFT_FAIL;
	}
}

/*
 * Runs @call inside a case. A failed ASSERT_* longjmps to _metadata->env:
 * point it here for the duration of the body, then restore the harness's
 * own target so teardown and the harness's checks work as before.
 */
#define KSFT_METRIC_HARNESS_RUN_(call) do {				\
	jmp_buf ksftm_harness_env_;					\
	volatile pid_t ksftm_opener_;					\
									\
	memcpy(ksftm_harness_env_, _metadata->env, sizeof(jmp_buf));	\
	ksftm_opener_ = ksft_metric_harness_begin_();			\
	if (setjmp(_metadata->env) == 0)				\
		call;							\
	memcpy(_metadata->env, ksftm_harness_env_, sizeof(jmp_buf));	\
	ksft_metric_harness_end_(_metadata, ksftm_opener_);		\
} while (0)

/** KSFT_METRIC_TEST() - TEST() with its body in a metric case. */
#define KSFT_METRIC_TEST(test_name)					\
	static void ksft_metric_body_##test_name(			\
		struct __test_metadata *_metadata);			\
	TEST(test_name)							\
	{								\
		KSFT_METRIC_HARNESS_RUN_(				\
			ksft_metric_body_##test_name(_metadata));	\
	}								\
	static void ksft_metric_body_##test_name(			\
		struct __test_metadata __attribute__((unused)) *_metadata)

#define KSFT_METRIC_TEST_F_WITH_(harness_test, fixture_name, test_name)	\
	static void ksft_metric_body_##fixture_name##_##test_name(	\
		struct __test_metadata *_metadata,			\
		FIXTURE_DATA(fixture_name) *self,			\
		const FIXTURE_VARIANT(fixture_name) *variant);		\
	harness_test							\
	{								\
		KSFT_METRIC_HARNESS_RUN_(				\
			ksft_metric_body_##fixture_name##_##test_name(	\
				_metadata, self, variant));		\
	}								\
	static void ksft_metric_body_##fixture_name##_##test_name(	\
		struct __test_metadata __attribute__((unused)) *_metadata, \
		FIXTURE_DATA(fixture_name) __attribute__((unused)) *self, \
		const FIXTURE_VARIANT(fixture_name)			\
			__attribute__((unused)) *variant)

/** KSFT_METRIC_TEST_F() - TEST_F() with its body in a metric case. */
#define KSFT_METRIC_TEST_F(fixture_name, test_name)			\
	KSFT_METRIC_TEST_F_WITH_(TEST_F(fixture_name, test_name),	\
				 fixture_name, test_name)

/** KSFT_METRIC_TEST_F_TIMEOUT() - TEST_F_TIMEOUT() likewise. */
#define KSFT_METRIC_TEST_F_TIMEOUT(fixture_name, test_name, timeout)	\
	KSFT_METRIC_TEST_F_WITH_(					\
		TEST_F_TIMEOUT(fixture_name, test_name, timeout),	\
		fixture_name, test_name)

#endif /* KSFTMETRIC_HARNESS_H */
