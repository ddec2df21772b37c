/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libksftmetric producer API: record performance metrics inside a kselftest
 * test case and flush them as KTAP diagnostic lines right before the result.
 *
 * Error rule: every int-returning call returns 0 (or a documented
 * non-negative value) on success and a negative errno on failure; after a
 * failure ksft_metric_errmsg() describes it in words ("metric label uses
 * reserved name: time"). A rejected call changes nothing already buffered.
 *
 * Thread safety: every call may be made from any thread. While a case is
 * open, any number of threads may record observations and register policies
 * concurrently; case begin/end, sink and prefix configuration serialise with
 * them. Each output line is written whole, never interleaved with another
 * thread's line. Observations are emitted in recording order: the order of
 * their CLOCK_MONOTONIC timestamps, ties broken per thread.
 */
#ifndef KSFTMETRIC_METRIC_H
#define KSFTMETRIC_METRIC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define KSFT_METRIC_API __attribute__((visibility("default")))
#else
#define KSFT_METRIC_API
#endif

/** Types of a label value or of a policy number. */
enum ksft_metric_type {
	KSFT_METRIC_UNSET = 0,	/**< policy number not given */
	KSFT_METRIC_STRING,
	KSFT_METRIC_INT,
	KSFT_METRIC_DOUBLE,
	KSFT_METRIC_BOOL
};

/**
 * A typed value: a label value, or a number in a policy. Integers print as
 * integers ("0"), doubles in Python's shortest repr ("0.0", "0.05").
 */
struct ksft_metric_value {
	int type;		/**< enum ksft_metric_type */
	union {
		const char *s;	/**< KSFT_METRIC_STRING: UTF-8, borrowed */
		int64_t i;	/**< KSFT_METRIC_INT */
		double d;	/**< KSFT_METRIC_DOUBLE: finite */
		int b;		/**< KSFT_METRIC_BOOL: 0 or 1 */
	} u;
};

/** One label of an observation: key (not name/shape/value/time) and value. */
struct ksft_metric_label {
	const char *key;
	struct ksft_metric_value value;
};

/* Initialisers (C99 designated initialisers; the header itself stays C89). */
#define KSFT_METRIC_INT_V(v)    { KSFT_METRIC_INT, { .i = (v) } }
#define KSFT_METRIC_DOUBLE_V(v) { KSFT_METRIC_DOUBLE, { .d = (v) } }
#define KSFT_METRIC_STR_V(v)    { KSFT_METRIC_STRING, { .s = (v) } }
#define KSFT_METRIC_BOOL_V(v)   { KSFT_METRIC_BOOL, { .b = !!(v) } }
#define KSFT_METRIC_LABEL_STR(k, v)    { (k), KSFT_METRIC_STR_V(v) }
#define KSFT_METRIC_LABEL_INT(k, v)    { (k), KSFT_METRIC_INT_V(v) }
#define KSFT_METRIC_LABEL_DOUBLE(k, v) { (k), KSFT_METRIC_DOUBLE_V(v) }
#define KSFT_METRIC_LABEL_BOOL(k, v)   { (k), KSFT_METRIC_BOOL_V(v) }

/**
 * ksft_metric_errmsg() - describe the calling thread's last failure
 *
 * @return a NUL-terminated message owned by the library, valid until the
 * thread's next call; "" if no call has failed yet or the thread's last
 * recording, registering or reporting-scope call succeeded. Thread-local.
 */
KSFT_METRIC_API const char *ksft_metric_errmsg(void);

/* ------------------------------------------------------------------ */
/* Test case lifecycle                                                */

/**
 * ksft_metric_case_begin() - open a test case
 *
 * Empties the observation buffer and the policy table, resets the reporting
 * scope counter to 0 and starts the case clock (CLOCK_MONOTONIC).
 *
 * @return 0, or -EBUSY if a case is already open.
 */
KSFT_METRIC_API int ksft_metric_case_begin(void);

/**
 * ksft_metric_case_end() - close the case and write its lines to the sink
 *
 * Writes one "ktap-metric-policy-json: {...}" line per registered policy
 * whose metric was observed (registration order), then one
 * "ktap-metric-json: {...}" line per observation (recording order), each
 * behind the configured prefix, then clears the case. Call it right before
 * printing the test's result line.
 *
 * @return number of lines written (>= 0), -EPERM if no case is open, or a
 * negative errno from the sink; the case is closed and cleared in every case.
 */
KSFT_METRIC_API int ksft_metric_case_end(void);

/**
 * ksft_metric_case_end_buffer() - close the case into a memory buffer
 * @out: receives a malloc'd NUL-terminated text of whole lines, each with
 *       the configured prefix and a trailing '\n'; free with ksft_metric_free()
 * @len: receives its length in bytes (may be NULL)
 *
 * Like ksft_metric_case_end() but returns the lines instead of writing them:
 * for bindings that must print through their own stdout.
 *
 * @return number of lines, -EPERM if no case is open, -ENOMEM.
 */
KSFT_METRIC_API int ksft_metric_case_end_buffer(char **out, size_t *len);

/** Default cap on the bytes a case buffers (ksft_metric_set_buffer_limit()). */
#define KSFT_METRIC_DEFAULT_BUFFER_LIMIT ((size_t)64 << 20)

/**
 * ksft_metric_set_buffer_limit() - cap the memory one case may buffer
 *
 * The cap counts records and the strings the case keeps (metric names,
 * shapes, label keys and values, policies). Past it, recording and
 * registering calls fail with -ENOBUFS and a message; what was kept is
 * still emitted at case end. Default KSFT_METRIC_DEFAULT_BUFFER_LIMIT
 * (64 MiB). Takes effect for the next allocation, from any thread.
 *
 * @return 0, or -EINVAL below 4096 bytes.
 */
KSFT_METRIC_API int ksft_metric_set_buffer_limit(size_t bytes);

/**
 * ksft_metric_set_stream() - write-through mode, from the next case on
 *
 * When enabled, each observation (and each policy, at registration) is
 * written as soon as it is recorded instead of at case end, so even a
 * SIGKILL loses at most the line in flight. A call whose line fails to
 * be written returns the sink's negative errno and changes nothing (the
 * metric does not count as observed, the policy is not registered). The environment variable
 * KSFTMETRIC_STREAM=1 enables it too (whatever the program chose), so it
 * can be switched on for programs that never call this.
 * Without it, a case still open at exit() or on SIGTERM/SIGINT/SIGHUP/
 * SIGQUIT/SIGABRT is flushed, followed by a line
 * "ktap-metric-abort-json: {"reason":"SIGTERM"}" ("exit" for exit()).
 *
 * @return 0.
 */
KSFT_METRIC_API int ksft_metric_set_stream(int enable);

/** ksft_metric_case_is_open() - @return 1 while a case is open, else 0. */
KSFT_METRIC_API int ksft_metric_case_is_open(void);

/** ksft_metric_free() - free memory returned by the library (NULL is fine). */
KSFT_METRIC_API void ksft_metric_free(void *p);

/* ------------------------------------------------------------------ */
/* Observations                                                       */

/*
 * Common rules: @name and @shape are non-empty UTF-8 ("scalar", "per-cpu"
 * or any other layout name; the library never infers it). @labels is an
 * array of @n_labels labels (NULL when 0) with distinct, non-empty UTF-8
 * keys other than "name", "shape", "value" and "time". Doubles must be
 * finite. Each call stamps the observation with the seconds since
 * ksft_metric_case_begin(), rounded to 6 decimals.
 *
 * @return 0; -EPERM outside a case; -EINVAL for invalid arguments; -ENOBUFS
 * past the case's buffer limit; -ENOMEM.
 */

/** ksft_metric_int() - record an integer observation. */
KSFT_METRIC_API int ksft_metric_int(const char *name, const char *shape,
				    int64_t value,
				    const struct ksft_metric_label *labels,
				    size_t n_labels);

/** ksft_metric_double() - record a floating-point observation. */
KSFT_METRIC_API int ksft_metric_double(const char *name, const char *shape,
				       double value,
				       const struct ksft_metric_label *labels,
				       size_t n_labels);

/**
 * ksft_metric_array() - record an array of doubles (e.g. one per CPU)
 * @values:  @n values; entries whose @present flag is 0 are ignored
 * @present: @n flags, 0 = missing (emitted as null, e.g. an offline CPU);
 *           NULL means every entry is present
 */
KSFT_METRIC_API int ksft_metric_array(const char *name, const char *shape,
				      const double *values,
				      const unsigned char *present, size_t n,
				      const struct ksft_metric_label *labels,
				      size_t n_labels);

/**
 * ksft_metric_json() - record an observation given as JSON text
 * @value_json:  a JSON number, or an array of numbers and nulls
 * @labels_json: a JSON object of string/number/boolean labels, or NULL
 *
 * The generic entry point for bindings. Integers stay integers, reals print
 * in shortest repr. Malformed JSON is rejected with its position.
 */
KSFT_METRIC_API int ksft_metric_json(const char *name, const char *shape,
				     const char *value_json,
				     const char *labels_json);

/**
 * ksft_metric_uint() - record an unsigned integer observation
 *
 * For uint64_t counters: the line format's integers are int64, so a value
 * above INT64_MAX is -ERANGE (never wrapped). Otherwise as ksft_metric_int().
 */
KSFT_METRIC_API int ksft_metric_uint(const char *name, const char *shape,
				     uint64_t value,
				     const struct ksft_metric_label *labels,
				     size_t n_labels);

/*
 * ksft_metric() - record a number of any arithmetic type, the C spelling of
 * the reference's ksft_metric(name, value, shape=..., **labels):
 *
 *	ksft_metric("retransmits", "scalar", retrans, NULL, 0);
 *	ksft_metric("throughput", "scalar", gbps, labels, 2);
 *
 * Signed integer types record through ksft_metric_int(), unsigned ones
 * through ksft_metric_uint(), float/double/long double through
 * ksft_metric_double(). A pointer, a bool or a struct does not compile
 * (bools are not numbers here, as in the reference). Arrays keep
 * ksft_metric_array(). Needs C11 (_Generic) or C++ (overloads below).
 */
#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define ksft_metric(name, shape, value, labels, n_labels)			\
	_Generic((value),							\
		char: ksft_metric_int, signed char: ksft_metric_int,		\
		short: ksft_metric_int, int: ksft_metric_int,			\
		long: ksft_metric_int, long long: ksft_metric_int,		\
		unsigned char: ksft_metric_uint,				\
		unsigned short: ksft_metric_uint, unsigned: ksft_metric_uint,	\
		unsigned long: ksft_metric_uint,				\
		unsigned long long: ksft_metric_uint,				\
		float: ksft_metric_double, double: ksft_metric_double,		\
		long double: ksft_metric_double)				\
	((name), (shape), (value), (labels), (n_labels))
#endif

/* ------------------------------------------------------------------ */
/* Run context and performance-test gating                            */

/**
 * ksft_metric_context_set() - add a key to this run's context line
 * @key:   non-empty UTF-8 (commit, branch, nic, driver...), not one of the
 *         keys the library fills (arch, cpu_count, cpu_model,
 *         debug_evidence, debug_kernel, hostname, kernel, ksft_machine_slow,
 *         time)
 * @value: UTF-8 string; NULL removes the key
 *
 * Keys can also come from the environment: KSFTMETRIC_CONTEXT_COMMIT=abc
 * adds "commit":"abc" (a key set here wins). @return 0, -EINVAL, -ENOMEM.
 * Thread-safe.
 */
KSFT_METRIC_API int ksft_metric_context_set(const char *key, const char *value);

/**
 * ksft_metric_context_emit() - write the run-context line now
 *
 * One "ktap-metric-context-json" line through the output sink, outside any
 * case: kernel release, hostname, arch, CPU model and count,
 * KSFT_MACHINE_SLOW, whether the kernel is a debug build (and why), and the
 * caller's keys (doc/line-format.rst). Nothing calls it by default, so the
 * output stays the reference's; KSFTMETRIC_CONTEXT=1 in the environment
 * makes the library emit it once, at the first ksft_metric_case_begin().
 * @return 0 or a negative errno (the sink's write error). Thread-safe.
 */
KSFT_METRIC_API int ksft_metric_context_emit(void);

/**
 * ksft_metric_context_line() - the context line as text, not written
 * @line: receives "ktap-metric-context-json: {...}\n" without the prefix
 *        (free with ksft_metric_free())
 *
 * For bindings that print through their own stream. @return 0, -EINVAL,
 * -ENOMEM.
 */
KSFT_METRIC_API int ksft_metric_context_line(char **line, size_t *len);

/**
 * ksft_metric_perf_check() - should a performance test run here?
 * @reason: receives why not, when it should not (may be NULL)
 *
 * Not on a debug kernel (KASAN, lockdep, kmemleak...: read from
 * $KSFTMETRIC_KCONFIG, /proc/config.gz or /boot/config-RELEASE, else
 * /proc/lockdep) and not
 * with KSFT_MACHINE_SLOW=yes, unless KSFTMETRIC_PERF_FORCE=1. A test that
 * gets 0 should skip with @reason as the SKIP message.
 * @return 1 run, 0 skip, negative errno on failure. Thread-safe.
 */
KSFT_METRIC_API int ksft_metric_perf_check(char *reason, size_t size);

/* ------------------------------------------------------------------ */
/* Policies                                                           */

/**
 * struct ksft_metric_policy - how a consumer processes and shows a metric
 *
 * Processing order: transform, then aggregation, then summarize. NULL
 * strings and KSFT_METRIC_UNSET numbers are left out of the emitted policy.
 * Initialise with KSFT_METRIC_POLICY_INIT so that @sz is set: new fields
 * will only ever be appended. A program built against an older, smaller
 * struct works (the fields it lacks are unset); a larger one is accepted
 * only if the fields this library does not know are zero (else -EINVAL).
 */
struct ksft_metric_policy {
	size_t sz;			/**< sizeof(struct ksft_metric_policy) */
	const char *transform;		/**< NULL or "rate" */
	const char *aggregation;	/**< NULL or "busy-core-equivalents" */
	const char *summarize;		/**< NULL (= "total"), "last", "total",
					     "p50", "p90", "p99", "max",
					     "distribution" */
	/* Regression policy: compare != NULL enables it. */
	const char *regression_compare;	/**< last/total/p50/p90/p99/max */
	const char *regression_better;	/**< "higher" or "lower" */
	struct ksft_metric_value regression_relative_tolerance; /**< >= 0 */
	struct ksft_metric_value regression_absolute_tolerance; /**< >= 0 */
	/* Display: min <= max when both are set; scale > 0. */
	struct ksft_metric_value display_min;
	struct ksft_metric_value display_max;
	struct ksft_metric_value display_scale;
	const char *display_label;	/**< NULL or non-empty */
};

#define KSFT_METRIC_POLICY_INIT { sizeof(struct ksft_metric_policy), 0, 0, 0, \
	0, 0, { 0, { 0 } }, { 0, { 0 } }, { 0, { 0 } }, { 0, { 0 } }, \
	{ 0, { 0 } }, 0 }

/**
 * ksft_metric_aggregate() - register the policy of metric @name for this case
 * @policy: the policy; NULL means the defaults (summarize "total")
 *
 * Register before the metric's first observation. Registering an equal
 * policy again is fine (numbers compare by value, 0 == 0.0).
 *
 * @return 0; -EPERM outside a case; -EINVAL for an invalid policy or a
 * name that is not valid UTF-8; -EEXIST if a different policy is already
 * registered for @name; -EALREADY if @name was observed before this first
 * registration; -ENOBUFS past the case's buffer limit; in write-through
 * mode a negative errno from the sink (the policy is then not registered).
 */
KSFT_METRIC_API int ksft_metric_aggregate(const char *name,
				const struct ksft_metric_policy *policy);

/**
 * ksft_metric_aggregate_json() - register a policy given as a JSON object
 * @policy_json: object with the keys of the emitted policy line
 *               ("summarize", "transform", "aggregation", "regression",
 *               "display_range", "display_scale", "display_label"), or NULL
 *
 * Same rules and returns as ksft_metric_aggregate(); unknown keys are
 * rejected.
 */
KSFT_METRIC_API int ksft_metric_aggregate_json(const char *name,
					       const char *policy_json);

/* ------------------------------------------------------------------ */
/* Reporting scope                                                    */

/**
 * ksft_metric_reporting() - enter (@enable != 0) or leave a reporting scope
 *
 * A counter: benchmark producers emit their metrics only while it is
 * positive (e.g. while a system monitor runs). Reset to 0 at case begin and
 * at case end.
 *
 * @return the new depth (>= 0); -EPERM outside a case; -EINVAL when leaving
 * a scope that was not entered.
 */
KSFT_METRIC_API int ksft_metric_reporting(int enable);

/** ksft_metric_reporting_enabled() - @return 1 inside a reporting scope, else 0. */
KSFT_METRIC_API int ksft_metric_reporting_enabled(void);

/* ------------------------------------------------------------------ */
/* Output                                                             */

/**
 * ksft_metric_sink_fn - receives each line (prefix included, no '\n')
 * @return 0, or a negative errno which ksft_metric_case_end() passes on
 */
typedef int (*ksft_metric_sink_fn)(const char *line, size_t len, void *ctx);

/**
 * ksft_metric_set_output_file() - write lines to @f (default: stdout)
 *
 * Lines go through stdio with the stream locked per line, so they stay in
 * order with the test's own printf() output; the stream is flushed at the
 * end of every case. @return 0 or -EINVAL (NULL).
 */
KSFT_METRIC_API int ksft_metric_set_output_file(FILE *f);

/** ksft_metric_set_output_fd() - write lines with write(2) to @fd. @return 0 or -EBADF. */
KSFT_METRIC_API int ksft_metric_set_output_fd(int fd);

/** ksft_metric_set_output_callback() - hand each line to @fn. @return 0 or -EINVAL. */
KSFT_METRIC_API int ksft_metric_set_output_callback(ksft_metric_sink_fn fn,
						    void *ctx);

/**
 * ksft_metric_set_prefix() - text before every line (default "# ")
 *
 * run_kselftest.sh adds its own nesting on top. @return 0, -EINVAL (NULL,
 * a newline or invalid UTF-8), -ENOMEM.
 */
KSFT_METRIC_API int ksft_metric_set_prefix(const char *prefix);

/* ------------------------------------------------------------------ */
/* Refused calls                                                      */

/**
 * ksft_metric_set_strict() - fail a case whose producer calls were refused
 *
 * Every recording or registering call refused while a case is open (a
 * misspelled policy key, a NaN, a policy after its metric...) is written
 * at the case's end as a "ktap-metric-warning-json" line naming the call,
 * the metric, the errno and the message (doc/line-format.rst), whether or
 * not strict mode is on. With strict mode on (@enable != 0, or
 * KSFTMETRIC_STRICT=1 in the environment), ksft_metric_case_end() and
 * ksft_metric_case_end_buffer() then return -ECANCELED after writing (or
 * returning) every line, so the test fails the case (<ksftmetric/harness.h>
 * does). A successful call clears ksft_metric_errmsg().
 *
 * @return 0. Thread-safe.
 */
KSFT_METRIC_API int ksft_metric_set_strict(int enable);

/**
 * ksft_metric_refused() - keep a refusal made before the library was reached
 *
 * For bindings and wrappers that check arguments themselves (the Python
 * binding's TypeError and ValueError): the refusal joins the open case's
 * refused calls as if the library had refused @call, so it is written as a
 * "ktap-metric-warning-json" line at the case's end, counted with the
 * others, and fails the case in strict mode. @call names the call as its
 * caller wrote it ("ksft_metric", at most 31 bytes kept), @name the metric
 * (NULL or invalid UTF-8: ""), @err a positive errno (EINVAL), @message
 * the words the caller was given (at most 383 bytes kept).
 *
 * @return 0 (the message of ksft_metric_errmsg() cleared), -EPERM outside
 * a test case of this process (nothing kept), -EINVAL (@call NULL, empty
 * or not UTF-8, @err not positive, @message NULL). Thread-safe.
 */
KSFT_METRIC_API int ksft_metric_refused(const char *call, const char *name,
					int err, const char *message);

#ifdef __cplusplus
}

/* ksft_metric() for C++: the same dispatch as the C11 macro above. */
#define KSFT_METRIC_OVERLOAD_(T, fn, CT)					\
	inline int ksft_metric(const char *name, const char *shape, T value,	\
			       const struct ksft_metric_label *labels = 0,	\
			       size_t n_labels = 0)				\
	{ return fn(name, shape, (CT)value, labels, n_labels); }
KSFT_METRIC_OVERLOAD_(int, ksft_metric_int, int64_t)
KSFT_METRIC_OVERLOAD_(long, ksft_metric_int, int64_t)
KSFT_METRIC_OVERLOAD_(long long, ksft_metric_int, int64_t)
KSFT_METRIC_OVERLOAD_(unsigned, ksft_metric_uint, uint64_t)
KSFT_METRIC_OVERLOAD_(unsigned long, ksft_metric_uint, uint64_t)
KSFT_METRIC_OVERLOAD_(unsigned long long, ksft_metric_uint, uint64_t)
KSFT_METRIC_OVERLOAD_(float, ksft_metric_double, double)
KSFT_METRIC_OVERLOAD_(double, ksft_metric_double, double)
KSFT_METRIC_OVERLOAD_(long double, ksft_metric_double, double)
#undef KSFT_METRIC_OVERLOAD_
#if __cplusplus >= 201103L
/* Bools are not numbers (as in the reference). */
int ksft_metric(const char *, const char *, bool,
		const struct ksft_metric_label * = 0, size_t = 0) = delete;
#endif
#endif

#endif /* KSFTMETRIC_METRIC_H */
