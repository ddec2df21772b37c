/*
 * Helpers for the producer API suites (lifecycle, observe, policy, output,
 * threads): capture a case's lines as text, mask or extract the "time"
 * value, compare texts with a diff-style failure message, collect lines
 * from the callback sink and read back what the fd/FILE sinks wrote.
 *
 * Everything goes through the public header only.
 */
#ifndef KSFTM_PRODUCER_UTIL_H
#define KSFTM_PRODUCER_UTIL_H

#include <check.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <ksftmetric/metric.h>

/* What pu_mask_time() puts in place of every time value. */
#define PU_TIME_TOKEN "T"

/* Line tags, without the prefix. */
#define PU_OBS "ktap-metric-json: "
#define PU_POL "ktap-metric-policy-json: "

/*
 * Checked fixture for every producer TCase: closes a case left open (its
 * lines are discarded), restores the default prefix "# " and writes to
 * stdout again, so a test never depends on what ran before it (also with
 * CK_FORK=no).
 */
void pu_reset(void);

/* A TCase of one test with pu_reset() as its checked fixture. */
TCase *pu_tcase(const char *name, const TTest *t);

/* ksft_metric_case_begin() that must succeed. */
void pu_begin(void);

/*
 * End the open case into memory (ksft_metric_case_end_buffer()), asserting
 * success and that the returned count matches the newlines in the text.
 * Returns the malloc'd text (free() it); *@nlines gets the count if not NULL.
 */
char *pu_end_text(int *nlines);
/* pu_end_text() with the refused-call warning lines kept (test_rejects.c). */
char *pu_end_raw(int *nlines);

/* malloc'd copy of @text with each "time":<number> as "time":T. */
char *pu_mask_time(const char *text);

/*
 * Extract the time value of one line: 1 if @line has "time":<number>, with
 * the parsed value in *@t (if not NULL) and the number's exact text in
 * @digits (if not NULL, NUL-terminated, truncated to @size); 0 otherwise.
 */
int pu_time_of(const char *line, double *t, char *digits, size_t size);

/* Number of '\n' in @text. */
size_t pu_count_lines(const char *text);

/*
 * Fail (as if by ck_assert) unless @got equals @want, with a message naming
 * the first differing line and column and showing both lines; the full
 * line-by-line diff goes to stderr.
 */
void pu_text_eq_at(const char *file, int line, const char *got, const char *want);
#define pu_assert_text_eq(got, want) pu_text_eq_at(__FILE__, __LINE__, (got), (want))

/*
 * End the open case and compare its time-masked text with @want; also
 * checks the returned line count. Each expected line ends with "\n".
 */
void pu_expect_end_at(const char *file, int line, const char *want);
#define pu_expect_end(want) pu_expect_end_at(__FILE__, __LINE__, (want))

/* The call returned -@err and ksft_metric_errmsg() equals @msg. */
#define pu_assert_err(expr, err, msg) do {					\
	int pu_r_ = (expr);							\
	ck_assert_msg(pu_r_ == -(err), "%s returned %d (errmsg \"%s\"), want %d", \
		      #expr, pu_r_, ksft_metric_errmsg(), -(err));		\
	ck_assert_str_eq(ksft_metric_errmsg(), (msg));				\
} while (0)

/* The call returned -@err and ksft_metric_errmsg() starts with @pfx. */
#define pu_assert_err_prefix(expr, err, pfx) do {				\
	int pu_r_ = (expr);							\
	const char *pu_m_;							\
	ck_assert_msg(pu_r_ == -(err), "%s returned %d (errmsg \"%s\"), want %d", \
		      #expr, pu_r_, ksft_metric_errmsg(), -(err));		\
	pu_m_ = ksft_metric_errmsg();						\
	ck_assert_msg(strncmp(pu_m_, (pfx), strlen(pfx)) == 0,			\
		      "errmsg \"%s\" does not start with \"%s\"", pu_m_, (pfx)); \
} while (0)

/* The call returned 0 (message shows the library's error otherwise). */
#define pu_assert_ok(expr) do {							\
	int pu_r_ = (expr);							\
	ck_assert_msg(pu_r_ == 0, "%s returned %d (errmsg \"%s\")", #expr,	\
		      pu_r_, ksft_metric_errmsg());				\
} while (0)

/* Read @fd until EOF into a malloc'd NUL-terminated buffer. */
char *pu_read_fd(int fd, size_t *len);
/* Rewind @f and read all of it into a malloc'd NUL-terminated buffer. */
char *pu_read_stream(FILE *f, size_t *len);

/*
 * malloc'd contents of golden file tests/metric/golden/@name, located from
 * @src_file (pass __FILE__: meson gives it relative to the build directory,
 * whose tests/ subdirectory holds the test executable). Fails if not found.
 */
char *pu_read_golden(const char *src_file, const char *name);

/* Callback sink that collects lines. */
struct pu_lines {
	char **v;
	size_t n, cap;
	size_t fail_at;		/* 1-based line number that fails; 0: never */
	int fail_err;		/* negative errno returned at fail_at */
	int saw_newline;	/* a line contained '\n' */
};
int pu_collect_cb(const char *line, size_t len, void *ctx);
/* The collected lines joined, each followed by '\n' (malloc'd). */
char *pu_lines_join(const struct pu_lines *l);
void pu_lines_free(struct pu_lines *l);

#endif
