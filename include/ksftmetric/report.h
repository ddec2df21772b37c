/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libksftmetric consumer API: read KTAP logs (any nesting depth), zperf
 * console output and twister JSON reports, build one series per (case,
 * metric name, labels), run each series through its policy (transform,
 * then aggregation, then summarize), save baselines and compare runs
 * against them with tolerances and a Mann-Whitney U test.
 *
 * Error rule: int-returning calls return 0 (or a documented non-negative
 * count) on success and a negative errno on failure, with
 * ksft_metric_report_errmsg() describing the failure in words; pointer-returning
 * calls return NULL and set errno. Bad *input* (malformed lines, unknown
 * policy values, lines over the length limit, binary junk) is not an error:
 * it becomes a warning (file, line, reason) kept in the report, and the
 * rest of the input is still used. The library never prints.
 *
 * Thread safety: handles are independent. One handle must not be modified
 * (read_*, add_*, load) while another thread uses it; calls that only query
 * a handle may run concurrently with each other.
 *
 * Missing numbers (a JSON null entry, a value that cannot be computed) are
 * NaN in every double this API returns; inputs are always finite.
 */
#ifndef KSFTMETRIC_REPORT_H
#define KSFTMETRIC_REPORT_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define KSFT_METRIC_REPORT_API __attribute__((visibility("default")))
#else
#define KSFT_METRIC_REPORT_API
#endif

/**
 * ksft_metric_report_errmsg() - the calling thread's last error, in words
 *
 * Set by every failing call of this library ("" before the first). The
 * producer library keeps its own (ksft_metric_errmsg()).
 */
KSFT_METRIC_REPORT_API const char *ksft_metric_report_errmsg(void);

/** A set of series read from logs; opaque. */
struct ksft_metric_report;
/** Baseline runs (saved series samples); opaque. */
struct ksft_metric_report_baseline;
/** The result of comparing a report with a baseline; opaque. */
struct ksft_metric_report_comparison;

/** Output formats of ksft_metric_report_format() and friends. */
enum ksft_metric_report_fmt {
	KSFT_METRIC_REPORT_TEXT = 0,	/**< aligned table for people */
	KSFT_METRIC_REPORT_JSON,	/**< one JSON document */
	KSFT_METRIC_REPORT_CSV,		/**< RFC 4180, header row first */
	KSFT_METRIC_REPORT_OPENMETRICS,	/**< text exposition, ends "# EOF" */
	KSFT_METRIC_REPORT_KCIDB,	/**< KCIDB I/O JSON, schema v5: needs
					     ksft_metric_report_format_ext()
					     with an origin and a build id */
	KSFT_METRIC_REPORT_NIPA,	/**< a NIPA metrics sidecar (JSON) */
	KSFT_METRIC_REPORT_REPLY	/**< comparisons only: a summary for a
					     mailing-list reply, 72 columns */
};

/**
 * struct ksft_metric_report_opts - how a report reads its input
 *
 * Initialise with KSFT_METRIC_REPORT_OPTS_INIT so that @sz is set: new
 * fields will only ever be appended; zero means "the default".
 */
struct ksft_metric_report_opts {
	size_t sz;		/**< sizeof(struct ksft_metric_report_opts) */
	size_t max_line;	/**< longer lines are skipped with a warning
				     (default 16 MiB) */
	size_t max_warnings;	/**< warnings kept in memory (default 1000);
				     later ones are only counted */
};

#define KSFT_METRIC_REPORT_OPTS_INIT \
	{ sizeof(struct ksft_metric_report_opts), 0, 0 }

/**
 * ksft_metric_report_new() - create an empty report
 * @opts: reading options, or NULL for the defaults
 *
 * @return the report (free with ksft_metric_report_free()), or NULL with
 * errno EINVAL (bad @opts) or ENOMEM. Thread-safe.
 */
KSFT_METRIC_REPORT_API struct ksft_metric_report *
ksft_metric_report_new(const struct ksft_metric_report_opts *opts);

/** ksft_metric_report_free() - free a report (NULL is fine). */
KSFT_METRIC_REPORT_API void ksft_metric_report_free(struct ksft_metric_report *r);

/** ksft_metric_report_text_free() - free text this library returned (NULL is fine). */
KSFT_METRIC_REPORT_API void ksft_metric_report_text_free(char *text);

/**
 * ksft_metric_report_read_file() - read one input stream to its end
 * @f:    the stream (a KTAP log, zperf console output or a twister JSON
 *        report; the kind is recognised from the content)
 * @name: the name warnings and baselines use for it (e.g. "-" for stdin)
 *
 * Lines are read with bounded memory: a line over the limit is skipped
 * with a warning. Series of several inputs with the same (path, case,
 * metric, labels) are joined, points in reading order.
 *
 * @return number of metric points kept from this input (>= 0); -EINVAL
 * (NULL argument), -ENOMEM, or -EIO if reading failed (what was read
 * before the error is kept). Not thread-safe on one handle.
 */
KSFT_METRIC_REPORT_API int ksft_metric_report_read_file(struct ksft_metric_report *r,
						 FILE *f, const char *name);

/**
 * ksft_metric_report_read_buffer() - read an input held in memory
 *
 * Same as ksft_metric_report_read_file() for @len bytes at @buf.
 * @return number of points kept, -EINVAL or -ENOMEM.
 */
KSFT_METRIC_REPORT_API int ksft_metric_report_read_buffer(struct ksft_metric_report *r,
						   const void *buf, size_t len,
						   const char *name);

/** One warning about the input: where, and why. */
struct ksft_metric_report_warning {
	const char *file;	/**< input name as given */
	unsigned long line;	/**< 1-based; 0 when about the whole input */
	const char *reason;	/**< one sentence, no trailing newline */
};

/**
 * ksft_metric_report_warnings() - warnings collected so far
 * @list:  receives the kept warnings (owned by @r, valid until it changes)
 * @total: receives the number of warnings including those not kept (may
 *         be NULL)
 *
 * @return the number of kept warnings in @list. Query.
 */
KSFT_METRIC_REPORT_API size_t
ksft_metric_report_warnings(const struct ksft_metric_report *r,
			    const struct ksft_metric_report_warning **list,
			    size_t *total);

/**
 * ksft_metric_report_context_json() - the run's context, from the logs
 *
 * The ktap-metric-context-json lines read so far (kernel, hostname, CPU,
 * debug kernel, the caller's keys; doc/line-format.rst), merged into one
 * canonical JSON object ("{}" when there were none). Valid until @r
 * changes. Query.
 */
KSFT_METRIC_REPORT_API const char *
ksft_metric_report_context_json(const struct ksft_metric_report *r);

/** ksft_metric_report_series_count() - @return the number of series. Query. */
KSFT_METRIC_REPORT_API size_t
ksft_metric_report_series_count(const struct ksft_metric_report *r);

/**
 * struct ksft_metric_report_series - what a series is and its policy
 *
 * Strings are owned by the report and stay valid until it is modified or
 * freed. Policy fields are NULL / NaN when the metric has no such setting.
 * Initialise @sz with sizeof(struct ksft_metric_report_series): fields
 * will only ever be appended, and only the @sz bytes the caller knows of
 * are written.
 */
struct ksft_metric_report_series {
	size_t sz;			/**< sizeof(struct ksft_metric_report_series) */
	const char *case_name;		/**< result line description, else its
					     test number ("3"); "incomplete"
					     (no result line) */
	const char *const *path;	/**< enclosing tests, outermost first */
	size_t path_len;
	const char *name;		/**< metric name */
	const char *labels_json;	/**< canonical JSON object, "{}" if none */
	const char *shape;		/**< "scalar", "per-cpu", ... */
	const char *status;		/**< pass, fail, skip, xfail, xpass, todo,
					     timeout, error, incomplete, none */
	const char *source;		/**< "ktap", "zperf" or "twister" */
	size_t points;			/**< raw points */
	int is_array;			/**< values are arrays (e.g. per CPU) */
	const char *policy_json;	/**< canonical policy object or NULL */
	const char *summarize;		/**< effective: "distribution" without a policy */
	const char *transform;		/**< NULL or "rate" */
	const char *aggregation;	/**< NULL or "busy-core-equivalents" */
	const char *compare;		/**< regression compare op, or NULL */
	const char *better;		/**< "higher", "lower" or NULL */
	double relative_tolerance;
	double absolute_tolerance;
	double display_min;
	double display_max;
	double display_scale;
	const char *display_label;
	/** Why the case ended abnormally ("exit", "SIGTERM", ...: the reason
	 *  of a ktap-metric-abort-json line; status is then "incomplete"),
	 *  else NULL. */
	const char *abort_reason;
	/** The result line's directive text ("ok 1 # SKIP no devmem": "no
	 *  devmem"), else NULL. */
	const char *status_reason;
	/** How many instances of the case the series joins: 1, or more when
	 *  the case repeats in a log (tcp_mmap's connections, one case each)
	 *  or the series is in several inputs; each instance's points follow
	 *  the previous one's, its times restarting with it. */
	size_t repeats;
};

/**
 * ksft_metric_report_series_get() - describe series @i (report order)
 *
 * @return 0, -ERANGE (bad @i) or -EINVAL (NULL, @out->sz not set). Query.
 */
KSFT_METRIC_REPORT_API int
ksft_metric_report_series_get(const struct ksft_metric_report *r, size_t i,
			      struct ksft_metric_report_series *out);

/** Pipeline stages for ksft_metric_report_series_values(). */
enum ksft_metric_report_stage {
	KSFT_METRIC_REPORT_RAW = 0,	/**< as read */
	KSFT_METRIC_REPORT_TRANSFORMED,	/**< after the transform */
	KSFT_METRIC_REPORT_PROCESSED	/**< after transform and aggregation */
};

/**
 * struct ksft_metric_report_values - a series' points at one stage
 *
 * Point i has time @t[i] (NaN if the input had none) and the @width
 * values @v[i * @width ...] (1 for scalars; shorter arrays padded with
 * NaN). Release with ksft_metric_report_values_release().
 */
struct ksft_metric_report_values {
	size_t n;
	size_t width;
	double *t;
	double *v;
};

/**
 * ksft_metric_report_series_values() - the points of series @i at @stage
 *
 * @return 0; -ERANGE (bad @i), -EINVAL, -ENOMEM. Query.
 */
KSFT_METRIC_REPORT_API int
ksft_metric_report_series_values(const struct ksft_metric_report *r, size_t i,
				 int stage,
				 struct ksft_metric_report_values *out);

/** ksft_metric_report_values_release() - free the arrays (NULL is fine). */
KSFT_METRIC_REPORT_API void
ksft_metric_report_values_release(struct ksft_metric_report_values *v);

/**
 * struct ksft_metric_report_points - a series' points at one stage, as
 * stored: point i has time @t[i] (NaN if the input had none) and the
 * values @v[@off[i] .. @off[i + 1]) (one for a scalar series; arrays keep
 * their own lengths, so memory is the number of values, never @n times
 * the widest array). @width is the longest. Release with
 * ksft_metric_report_points_release().
 */
struct ksft_metric_report_points {
	size_t n;
	size_t width;
	double *t;
	double *v;
	size_t *off;
};

/**
 * ksft_metric_report_series_points() - the points of series @i at @stage,
 * unpadded (see ksft_metric_report_series_values() for the padded form)
 *
 * @return 0; -ERANGE (bad @i), -EINVAL, -ENOMEM. Query.
 */
KSFT_METRIC_REPORT_API int
ksft_metric_report_series_points(const struct ksft_metric_report *r, size_t i,
				 int stage,
				 struct ksft_metric_report_points *out);

/** ksft_metric_report_points_release() - free the arrays (NULL is fine). */
KSFT_METRIC_REPORT_API void
ksft_metric_report_points_release(struct ksft_metric_report_points *p);

/**
 * ksft_metric_report_series_summary() - one summary of a processed series
 * @op:  "last", "total", "max", "p50", "p90" or "p99" (percentiles by
 *       linear interpolation between closest ranks, h = (n - 1) * p)
 * @out: receives one value per element (1 for a scalar series); NaN for
 *       an element without values
 * @n_out: room in @out
 *
 * @return the number of elements (may exceed @n_out: only @n_out are
 * written); -ERANGE, -EINVAL (unknown @op), -ENOMEM. Query.
 */
KSFT_METRIC_REPORT_API int
ksft_metric_report_series_summary(const struct ksft_metric_report *r, size_t i,
				  const char *op, double *out, size_t n_out);

/**
 * ksft_metric_report_format() - render every series with its summary
 * @fmt: enum ksft_metric_report_fmt
 * @out: receives a malloc'd NUL-terminated text; free with
 *       ksft_metric_report_text_free()
 * @len: receives its length (may be NULL)
 *
 * @return 0, -EINVAL, -ENOMEM. Query.
 */
KSFT_METRIC_REPORT_API int ksft_metric_report_format(const struct ksft_metric_report *r,
					      int fmt, char **out, size_t *len);

/** How series are named in formatted output. */
enum ksft_metric_report_name_style {
	KSFT_METRIC_REPORT_NAMES_KTAP = 0,	/**< as the log spells them */
	/** NIPA's: "selftests: T: P" becomes "selftests-" + namify(T) and
	 *  namify(P); every other test name namify()'d ([^0-9a-zA-Z]+ -> "-",
	 *  a trailing "-" dropped, "" -> "no-name") */
	KSFT_METRIC_REPORT_NAMES_NIPA
};

/**
 * struct ksft_metric_report_format_opts - what some formats need beyond
 * the report
 *
 * Initialise with KSFT_METRIC_REPORT_FORMAT_OPTS_INIT so that @sz is set:
 * new fields will only ever be appended; zero means "the default".
 */
struct ksft_metric_report_format_opts {
	size_t sz;		/**< sizeof(struct ksft_metric_report_format_opts) */
	const char *origin;	/**< KCIDB: the submitting CI system,
				     [a-z0-9_]+ (required) */
	const char *build_id;	/**< KCIDB: the tested build's id, "ORIGIN:..."
				     (required) */
	const char *start_time;	/**< KCIDB: the run's start, RFC 3339
				     ("2026-12-01T07:55:00Z"); NULL: the run
				     context's "time" (the logs' start),
				     else left out */
	const char *run_id;	/**< KCIDB: what tells this run from others of
				     the same build in test ids; NULL: a hash
				     of the report's content, so the same logs
				     give the same ids */
	const char *const *context;	/**< KCIDB, NIPA: "KEY=VALUE" entries
					     added to the logs' run context
					     (they win over the logs' keys) */
	size_t n_context;
	int name_style;		/**< enum ksft_metric_report_name_style, every
				     format */
	/** KCIDB, NIPA: the verdicts of ksft_metric_report_compare() of this
	 *  report, shown with each series; NULL: none */
	const struct ksft_metric_report_comparison *comparison;
};

#define KSFT_METRIC_REPORT_FORMAT_OPTS_INIT \
	{ sizeof(struct ksft_metric_report_format_opts), NULL, NULL, NULL, \
	  NULL, NULL, 0, 0, NULL }

/**
 * ksft_metric_report_format_ext() - ksft_metric_report_format() with options
 * @opts: may be NULL (the defaults; then KCIDB fails: it needs an origin)
 *
 * @return 0; -EINVAL (NULL argument, bad @opts: the message names the
 * field and why), -ENOMEM. Query.
 */
KSFT_METRIC_REPORT_API int
ksft_metric_report_format_ext(const struct ksft_metric_report *r, int fmt,
			      const struct ksft_metric_report_format_opts *opts,
			      char **out, size_t *len);

/**
 * ksft_metric_report_write() - ksft_metric_report_format_ext() to a file
 * @opts: may be NULL, as for ksft_metric_report_format_ext()
 * @f:    written as the text is made (text, JSON and CSV a chunk of about
 *        64 KiB at a time, the other formats at once), then fflush()'d
 *
 * The same bytes as ksft_metric_report_format_ext(), without the whole
 * text in memory. Bad arguments and an unknown format fail before
 * anything is written; a later failure may leave part of the text
 * written (a caller that must not leave it writes to a temporary file).
 * Since version KSFTMETRIC_REPORT_0.1 of the library.
 *
 * @return 0; -EINVAL, -ENOMEM, or the negative errno of a failed write
 * (the message says so). Thread safety: as ksft_metric_report_format();
 * @f is not locked beyond what stdio does.
 */
KSFT_METRIC_REPORT_API int
ksft_metric_report_write(const struct ksft_metric_report *r, int fmt,
			 const struct ksft_metric_report_format_opts *opts, FILE *f);

/* ------------------------------------------------------------------ */
/* Baselines                                                          */

/**
 * ksft_metric_report_baseline_new() - create an empty set of baseline runs
 *
 * @return the handle, or NULL with errno ENOMEM. Thread-safe.
 */
KSFT_METRIC_REPORT_API struct ksft_metric_report_baseline *
ksft_metric_report_baseline_new(void);

/** ksft_metric_report_baseline_free() - free it (NULL is fine). */
KSFT_METRIC_REPORT_API void
ksft_metric_report_baseline_free(struct ksft_metric_report_baseline *b);

/**
 * ksft_metric_report_baseline_add_report() - add @r as one more run
 * @sources: names of the inputs the run came from (kept in the file), may
 *           be NULL when @n_sources is 0
 *
 * Stores each series' processed samples (after transform and
 * aggregation), its policy and identity.
 *
 * @return the number of runs now held; -EINVAL, -ENOMEM.
 */
KSFT_METRIC_REPORT_API int
ksft_metric_report_baseline_add_report(struct ksft_metric_report_baseline *b,
				       const struct ksft_metric_report *r,
				       const char *const *sources,
				       size_t n_sources);

/**
 * ksft_metric_report_baseline_load() - add the runs of a baseline file
 * @json: the file's contents (format "ksft-metric-baseline", version 1)
 * @name: file name for messages
 *
 * All or nothing: a malformed file adds no run.
 *
 * @return the number of runs now held; -EINVAL (malformed, message names
 * the place), -ENOMEM.
 */
KSFT_METRIC_REPORT_API int
ksft_metric_report_baseline_load(struct ksft_metric_report_baseline *b,
				 const void *json, size_t len,
				 const char *name);

/** ksft_metric_report_baseline_runs() - @return the number of runs held. Query. */
KSFT_METRIC_REPORT_API size_t
ksft_metric_report_baseline_runs(const struct ksft_metric_report_baseline *b);

/**
 * ksft_metric_report_baseline_format() - the baseline file text
 * @out: malloc'd NUL-terminated JSON ending in a newline; free with
 *       ksft_metric_report_text_free()
 *
 * @return 0, -EINVAL, -ENOMEM. Query.
 */
KSFT_METRIC_REPORT_API int
ksft_metric_report_baseline_format(const struct ksft_metric_report_baseline *b,
				   char **out, size_t *len);

/* ------------------------------------------------------------------ */
/* Comparison                                                         */

/**
 * struct ksft_metric_report_compare_opts - regression gate settings
 *
 * Initialise with KSFT_METRIC_REPORT_COMPARE_OPTS_INIT.
 */
struct ksft_metric_report_compare_opts {
	size_t sz;		/**< sizeof(struct ksft_metric_report_compare_opts) */
	double tolerance_pct;	/**< < 0: not given. Else series without a
				     regression policy are gated: a drop of
				     more than this percentage regresses */
	double alpha;		/**< A regression (and an improvement) also
				     needs the Mann-Whitney p-value < alpha
				     when one is available (repeats on both
				     sides; benchstat's rule); else TOO NOISY.
				     Default 0.05 (the INIT macro); 0: off, the
				     tolerance alone (before issue 31) */
	int allow_missing;	/**< a gated series missing from the current
				     run does not fail the gate */
	double max_tolerance_pct; /**< > 0: every gated series' allowance is
				     at most this percentage of its baseline,
				     a policy's tolerance too (tightening, never
				     loosening); 0: the policies' own */
	const struct ksft_metric_report_baseline *seeds; /**< the current
				     run's boots, one run a seed (each added
				     with ksft_metric_report_baseline_add_report()
				     from its own logs; the seed is the context's
				     "seed"); with a baseline whose runs name
				     seeds too, each scalar series is judged
				     seed by seed (doc/consumer.rst, "Judging N
				     seeds"). NULL: the samples, as before */
	int allow_context_mismatch; /**< judge even when a baseline run was
				     measured otherwise (its context's clock,
				     cpu_count, cpu_model, icount_shift, qemu
				     or qemu_cpu differ); the difference is
				     kept (comparison_context_diff()). 0:
				     such a comparison fails with -EXDEV */
};

#define KSFT_METRIC_REPORT_COMPARE_OPTS_INIT \
	{ sizeof(struct ksft_metric_report_compare_opts), -1.0, 0.05, 0, 0.0, NULL, 0 }

/**
 * ksft_metric_report_compare() - compare @cur with the runs in @base
 * @opts: gate settings, or NULL for the defaults
 * @out:  receives the comparison; free with
 *        ksft_metric_report_comparison_free()
 *
 * One row per series (per element for series that stay arrays), current
 * series first in report order, then baseline-only ones.
 *
 * @return the number of rows that fail the gate (>= 0); -EINVAL, -ENOMEM;
 * -EXDEV when a baseline run's context says it was measured otherwise
 * (another clock, CPU model or count, QEMU or icount shift; the message
 * names the keys) and @allow_context_mismatch is 0.
 * Query on @cur and @base.
 */
KSFT_METRIC_REPORT_API int
ksft_metric_report_compare(const struct ksft_metric_report *cur,
			   const struct ksft_metric_report_baseline *base,
			   const struct ksft_metric_report_compare_opts *opts,
			   struct ksft_metric_report_comparison **out);

/**
 * ksft_metric_report_compare_fd() - compare @cur with the baseline file
 * open at @fd, read as a stream
 * @fd:   the file, read from its start with pread() (its position is left
 *        alone); a pipe is read to its end
 * @name: the file's name in error messages (NULL: "baseline")
 * @opts: gate settings, or NULL for the defaults
 * @out:  receives the comparison; free with
 *        ksft_metric_report_comparison_free()
 *
 * The comparison ksft_metric_report_baseline_load() of the whole file and
 * ksft_metric_report_compare() would give: the same rows, verdicts and
 * errors. A file as ksft-metric save writes it, with one run whose series
 * are @cur's one for one and in order (a log against its own or an
 * earlier saved run of the same tests), is judged series by series as it
 * is read through a 1 MiB window, holding neither the file nor a baseline;
 * any other file (several runs, series missing, extra or in another order,
 * seeds in @opts, an error) is then read whole and judged as by those two
 * calls, in their memory. Since version node KSFTMETRIC_REPORT_0.2.
 *
 * @return as ksft_metric_report_compare(), and those of
 * ksft_metric_report_baseline_load() (-EINVAL naming @name and what is
 * wrong), -EIO when @fd cannot be read. Query on @cur; @fd is read, never
 * closed.
 */
KSFT_METRIC_REPORT_API int
ksft_metric_report_compare_fd(const struct ksft_metric_report *cur, int fd, const char *name,
			      const struct ksft_metric_report_compare_opts *opts,
			      struct ksft_metric_report_comparison **out);

/**
 * ksft_metric_report_comparison_context_diff() - how the baseline and the
 * run were measured differently, when judged anyway
 * (@allow_context_mismatch): "baseline run N (sources) against this run:
 * clock icount vs none; cpu_count 1 vs 4"; NULL when they agree (or a
 * side says nothing). Owned by @c. Query.
 */
KSFT_METRIC_REPORT_API const char *
ksft_metric_report_comparison_context_diff(const struct ksft_metric_report_comparison *c);

/**
 * ksft_metric_report_context_mismatch() - were two runs measured alike?
 * @a_json, @b_json: run contexts as ksft_metric_report_context_json()
 *                   gives them (NULL or "{}": unknown, nothing to check)
 * @diff: receives "KEY A vs B; ..." for each key that says how a run was
 *        measured (clock, cpu_count, cpu_model, icount_shift, qemu,
 *        qemu_cpu) and differs, a key absent on one side reading "none";
 *        NULL when none does. Free with ksft_metric_report_text_free().
 *
 * @return the number of keys that differ (>= 0); -EINVAL, -ENOMEM.
 * Thread-safe.
 */
KSFT_METRIC_REPORT_API int
ksft_metric_report_context_mismatch(const char *a_json, const char *b_json, char **diff);

/** ksft_metric_report_comparison_free() - free it (NULL is fine). */
KSFT_METRIC_REPORT_API void
ksft_metric_report_comparison_free(struct ksft_metric_report_comparison *c);

/** ksft_metric_report_comparison_rows() - @return the number of rows. Query. */
KSFT_METRIC_REPORT_API size_t
ksft_metric_report_comparison_rows(const struct ksft_metric_report_comparison *c);

/**
 * struct ksft_metric_report_row - one compared series (or element)
 *
 * Strings are owned by the comparison. Initialise @sz with
 * sizeof(struct ksft_metric_report_row); only the @sz bytes the caller
 * knows of are written.
 */
struct ksft_metric_report_row {
	size_t sz;			/**< sizeof(struct ksft_metric_report_row) */
	const char *case_name;
	const char *const *path;
	size_t path_len;
	const char *name;
	const char *labels_json;
	long element;			/**< array index, -1 for the whole series */
	const char *compare;		/**< compare op used */
	const char *better;		/**< "higher", "lower" or NULL (untracked) */
	double baseline;		/**< median of the runs' compare values */
	double current;
	double change_pct;		/**< NaN when the baseline is 0 or missing */
	double allowance;		/**< in the metric's units */
	double p_value;			/**< --baseline: two-sided Mann-Whitney U;
					     --db: the regression CUSUM's run-level
					     adjusted p; NaN: not tested */
	size_t n_baseline;		/**< baseline samples (all runs pooled) */
	size_t n_current;		/**< current samples */
	size_t baseline_runs;		/**< runs holding the series */
	const char *verdict;		/**< regression, improvement, disturbed,
					     missing, too_noisy, no_change, new,
					     not_comparable, untracked (the
					     snake_case of the names the text
					     shows: NO CHANGE is no_change) */
	int fails;			/**< 1 if this row fails the gate */
	double display_scale;		/**< the policy's display_scale (multiply
					     baseline, current and allowance by
					     it to show them), NaN if none or
					     if the policy aggregates */
	const char *display_label;	/**< the policy's display_label (the
					     unit), NULL if none or if the
					     policy aggregates */
};

/**
 * ksft_metric_report_comparison_row() - read row @i
 *
 * @return 0, -ERANGE (bad @i) or -EINVAL (NULL, @out->sz not set). Query.
 */
KSFT_METRIC_REPORT_API int
ksft_metric_report_comparison_row(const struct ksft_metric_report_comparison *c,
				  size_t i, struct ksft_metric_report_row *out);

/** Or'ed into the text format: the untracked rows too (below). */
#define KSFT_METRIC_REPORT_COMPARE_ALL 0x100
/**
 * Or'ed into KSFT_METRIC_REPORT_TEXT of the report, comparison and
 * history formats: fit 80 columns (rows go vertical) instead of 120.
 */
#define KSFT_METRIC_REPORT_TEXT_NARROW 0x200
/** Or'ed into KSFT_METRIC_REPORT_TEXT likewise: the whole run context
 *  (else the keys that matter) and, for the history, every run. */
#define KSFT_METRIC_REPORT_TEXT_VERBOSE 0x400

/**
 * ksft_metric_report_comparison_format() - render the comparison
 * @fmt: KSFT_METRIC_REPORT_TEXT, _JSON, _CSV or _REPLY (a summary for a
 *       mailing-list reply: both runs named by their contexts, then
 *       "old -> new (+x.x %)" a tracked series; 72 columns); TEXT may be
 *       or'ed with KSFT_METRIC_REPORT_COMPARE_ALL
 * @out: malloc'd NUL-terminated text; free with ksft_metric_report_text_free()
 *
 * The text table shows the tracked rows (a direction; untracked ones are
 * counted) unless KSFT_METRIC_REPORT_COMPARE_ALL, cuts series titles to
 * fit 120 columns and ends with a legend. JSON and CSV hold every row.
 *
 * @return 0, -EINVAL (also for OpenMetrics), -ENOMEM. Query.
 */
KSFT_METRIC_REPORT_API int
ksft_metric_report_comparison_format(const struct ksft_metric_report_comparison *c,
				     int fmt, char **out, size_t *len);

/**
 * ksft_metric_report_comparison_write() - the comparison to a file
 * @fmt: as for ksft_metric_report_comparison_format()
 * @f:   written as the text is made (text, JSON and CSV a chunk of about
 *       64 KiB at a time, the reply at once), then fflush()'d
 *
 * The same bytes as ksft_metric_report_comparison_format(), without the
 * whole text in memory; failures as for ksft_metric_report_write().
 * Since version KSFTMETRIC_REPORT_0.1 of the library.
 *
 * @return 0; -EINVAL, -ENOMEM, or the negative errno of a failed write.
 * Query.
 */
KSFT_METRIC_REPORT_API int
ksft_metric_report_comparison_write(const struct ksft_metric_report_comparison *c,
				    int fmt, FILE *f);

/* ------------------------------------------------------------------ */
/* Run history and the history gate                                   */

/** A run history database (SQLite file or PostgreSQL); opaque. */
struct ksft_metric_report_history;

/**
 * ksft_metric_report_history_open() - open a run history, creating or
 * migrating its schema
 * @url: "postgresql://..." / "postgres://..." (a libpq connection URI) or
 *       a SQLite file path (created when missing)
 * @out: receives the handle; close with ksft_metric_report_history_close()
 *
 * @return 0; -ENOTSUP (backend not built in), -EIO (cannot open/connect),
 * -EPROTO (the database has a newer schema), -EINVAL, -ENOMEM. A handle
 * is one connection: use it from one thread at a time; many processes may
 * use one history at once.
 */
KSFT_METRIC_REPORT_API int
ksft_metric_report_history_open(const char *url,
				struct ksft_metric_report_history **out);

/** ksft_metric_report_history_close() - close it (NULL is fine). */
KSFT_METRIC_REPORT_API void
ksft_metric_report_history_close(struct ksft_metric_report_history *h);

/**
 * struct ksft_metric_report_ingest_opts - one run to store
 *
 * Initialise with KSFT_METRIC_REPORT_INGEST_OPTS_INIT.
 */
struct ksft_metric_report_ingest_opts {
	size_t sz;		/**< sizeof(struct ksft_metric_report_ingest_opts) */
	const char *run_id;	/**< unique run id; NULL: the run's content
				     key ("fnv-" and 32 hex digits: a hash
				     of its context and its series' stored
				     samples, not a cryptographic one) */
	const char *order;	/**< CI order (commit date, build number...),
				     compared as text (an ISO 8601 date-time
				     with a zone is stored in UTC; ties broken
				     by the run id); NULL: the run's start time
				     in its context ("time"), else the
				     database's clock, never before the newest
				     run of its machines */
	const char *const *context;	/**< "KEY=VALUE" items, over the logs'
					     context lines */
	size_t n_context;
	size_t window;		/**< runs judged against (0: 30) */
	double fdr;		/**< per-run test's run-level false-alarm
				     rate (0: 0.01, all of it to the one
				     detector; regressions and improvements
				     are each controlled at this rate) */
};

#define KSFT_METRIC_REPORT_INGEST_OPTS_INIT \
	{ sizeof(struct ksft_metric_report_ingest_opts), NULL, NULL, NULL, 0, 0, 0.0 }

/**
 * ksft_metric_report_history_ingest() - store @r as one run
 * @run_id_out: receives the run id used (malloc'd, free with
 *              ksft_metric_report_text_free()); may be NULL
 *
 * Every series (identity, policy, processed samples, summaries, case
 * status) in one transaction: nothing is written when anything fails.
 * Each series is judged against the runs before it as
 * ksft_metric_report_history_compare() would; a regression is stored but
 * kept out of later windows until accepted. Runs of the same machines
 * ordered after it (a backfill, a late collector) are judged again, so
 * that stored verdicts do not depend on the ingest order.
 *
 * A run of the same content (the same context and series with the same
 * samples, whatever its order) stored already is not stored again:
 * -EALREADY, with @run_id_out receiving that run's id (a CI's retried
 * step can treat it as done). With @opts->run_id, only that run counts:
 * a CI that names a new run is believed even when its numbers repeat.
 *
 * @return the number of series stored; -EALREADY (stored already, see
 * above), -EEXIST (the run id is there with other content), -EINVAL (bad
 * context item, or an order that is a date-time with a field out of
 * range), -EIO, -ENOMEM.
 */
KSFT_METRIC_REPORT_API int
ksft_metric_report_history_ingest(struct ksft_metric_report_history *h,
				  const struct ksft_metric_report *r,
				  const struct ksft_metric_report_ingest_opts *opts,
				  char **run_id_out);

/**
 * struct ksft_metric_report_history_opts - which part of the history
 *
 * Initialise with KSFT_METRIC_REPORT_HISTORY_OPTS_INIT.
 */
struct ksft_metric_report_history_opts {
	size_t sz;		/**< sizeof(struct ksft_metric_report_history_opts) */
	const char *const *context;	/**< "KEY=VALUE": only runs whose
					     context has these values */
	size_t n_context;
	const char *series;	/**< only series whose title ("path/case
				     metric{labels}") contains this; NULL: all */
	size_t last;		/**< the last runs only (0: 1000) */
	int all_status;		/**< also results that are not measurements
				     (cases that did not pass) */
	const struct ksft_metric_report *report;	/**< only the series of
				     this report, each found by its identity
				     (an index lookup), in its order; NULL:
				     every series of the history. With
				     @context, @context is this report's
				     run's context (over its logs') and only
				     runs comparable with it are read */
};

#define KSFT_METRIC_REPORT_HISTORY_OPTS_INIT \
	{ sizeof(struct ksft_metric_report_history_opts), NULL, 0, NULL, 0, 0, NULL }

/**
 * ksft_metric_report_history_format() - each series' compare value run
 * by run, with the change points found in it
 * @fmt: KSFT_METRIC_REPORT_TEXT, _JSON or _CSV (doc/regression-gate.rst)
 * @out: malloc'd NUL-terminated text; free with ksft_metric_report_text_free()
 *
 * @return 0, -EINVAL, -EIO, -ENOMEM.
 */
KSFT_METRIC_REPORT_API int
ksft_metric_report_history_format(struct ksft_metric_report_history *h,
				  const struct ksft_metric_report_history_opts *opts,
				  int fmt, char **out, size_t *len);

/**
 * struct ksft_metric_report_gate_opts - the history gate's settings
 *
 * Initialise with KSFT_METRIC_REPORT_GATE_OPTS_INIT.
 */
struct ksft_metric_report_gate_opts {
	size_t sz;		/**< sizeof(struct ksft_metric_report_gate_opts) */
	size_t window;		/**< last N usable, comparable runs (0: 30) */
	const char *const *context;	/**< "KEY=VALUE" items describing the
					     current run, over its logs' */
	size_t n_context;
	double fdr;		/**< per-run test's run-level false-alarm
				     rate (0: 0.01, all of it to the one
				     detector; regressions and improvements
				     are each controlled at this rate) */
	int allow_missing;	/**< a series missing from the current run
				     does not fail the gate */
	const char *order;	/**< the current run's CI order: windows hold
				     runs before it (NULL: all runs) */
};

#define KSFT_METRIC_REPORT_GATE_OPTS_INIT \
	{ sizeof(struct ksft_metric_report_gate_opts), 0, NULL, 0, 0.0, 0, NULL }

/**
 * ksft_metric_report_history_compare() - judge @cur against its history
 * @out: receives the comparison (rows as for ksft_metric_report_compare();
 *       p_value is the Benjamini-Hochberg adjusted one); free with
 *       ksft_metric_report_comparison_free()
 *
 * Each series against the last @window runs with the same comparable
 * context whose results are measurements (cases that passed; zperf and
 * twister results without a test status) and are not unaccepted
 * regressions (or the window
 * ending at a pinned run). Verdicts: regression, improvement, ok (no
 * change), noise (too noisy to tell), new, missing, incomparable (a debug
 * kernel or KSFT_MACHINE_SLOW on either side), untracked (no direction).
 * Read-only.
 *
 * @return the number of rows that fail the gate (>= 0); -EINVAL, -EIO,
 * -ENOMEM.
 */
KSFT_METRIC_REPORT_API int
ksft_metric_report_history_compare(struct ksft_metric_report_history *h,
				   const struct ksft_metric_report *cur,
				   const struct ksft_metric_report_gate_opts *opts,
				   struct ksft_metric_report_comparison **out);

/** What ksft_metric_report_history_check() answers. */
enum ksft_metric_report_history_fit {
	/** The history can judge the run: its machine's runs hold its
	 *  series, or no run holds them (new series), or the history holds
	 *  them only under its machine. */
	KSFT_METRIC_REPORT_HISTORY_FITS = 0,
	/** The history holds no run at all (a mistyped path, a new one). */
	KSFT_METRIC_REPORT_HISTORY_EMPTY = 1,
	/** No run of the run's machine (its comparability keys) holds its
	 *  series, runs of other machines do (a mistyped --context value,
	 *  or a new machine). */
	KSFT_METRIC_REPORT_HISTORY_OTHER_CONTEXTS = 2,
	/** The run's context has no value for a comparability key that every
	 *  other machine holding its series has (a forgotten or mistyped
	 *  --context key), and its own machine holds fewer runs than the gate
	 *  judges from (5) while another holds at least that many: an orphan. */
	KSFT_METRIC_REPORT_HISTORY_KEY_MISSING = 3
};

/**
 * ksft_metric_report_history_check() - can this history judge this run?
 * @cur: the run
 * @opts: the gate's options; only its context items (the run's context
 *        over its logs') are read. NULL: none.
 * @why: for an answer other than KSFT_METRIC_REPORT_HISTORY_FITS, receives
 *       the reason as a sentence naming the history and the contexts that
 *       hold the run's series (closest first, with their run counts);
 *       malloc'd, free with ksft_metric_report_text_free(); may be NULL
 *
 * The one answer compare --db, report, html, ingest and the Python
 * binding give (doc/run-history.rst, "A mis-set history"): counts, per
 * machine, the runs holding the run's series (one index scan per series).
 * Read-only. Thread safety: as the handle.
 *
 * @return an enum ksft_metric_report_history_fit value (>= 0); -EINVAL,
 * -EPROTO (an older schema, not migrated yet), -EIO, -ENOMEM.
 */
KSFT_METRIC_REPORT_API int
ksft_metric_report_history_check(struct ksft_metric_report_history *h,
				 const struct ksft_metric_report *cur,
				 const struct ksft_metric_report_gate_opts *opts, char **why);

/**
 * ksft_metric_report_history_accept() - accept the regressions of a run
 * @run_id: the run
 * @series: only series whose title contains this (NULL: all)
 *
 * The new level is intended: the run's regressions (and those of later
 * runs of the same series) count as baseline again, and each accepted
 * series' window starts at @run_id, leaving the old level behind. A
 * level wins over an older pinned run: that series' window starts at its
 * level and follows the newest runs (never an empty window between the
 * level and the pin).
 *
 * @return the number of series re-levelled (0: nothing changed);
 * -ENOENT (no such run), -EIO.
 */
KSFT_METRIC_REPORT_API int
ksft_metric_report_history_accept(struct ksft_metric_report_history *h,
				  const char *run_id, const char *series);

/**
 * ksft_metric_report_history_pin() - freeze (or thaw) the baseline
 * @pinned: 1 to pin, 0 to unpin
 *
 * While a run is pinned, windows of its comparable runs end at it (the
 * latest pinned one) instead of following the newest runs, except for
 * series whose accepted level starts after it (the level wins).
 *
 * @return pinning: the number of series whose accepted level starts after
 * @run_id (the pin does not hold for them), unpinning: 0; -ENOENT (no
 * such run), -EIO.
 */
/**
 * ksft_metric_report_history_redact() - a history's URL or path as a
 * message may show it
 * @url: what ksft_metric_report_history_open() was given
 * @buf: receives the text (cut with "..." at @size bytes)
 *
 * Credentials never reach a message: a postgresql:// URL's user
 * information (user:password@) becomes "***@", and the value of every
 * parameter whose key ends in "password" (password=, sslpassword=,
 * percent-encoded too; in the URL's query or a conninfo string) "***".
 * The library's own messages name databases this way.
 *
 * @return @buf.
 */
#define KSFT_METRIC_REPORT_HISTORY_NAME_MAX 512
KSFT_METRIC_REPORT_API const char *
ksft_metric_report_history_redact(const char *url, char *buf, size_t size);

KSFT_METRIC_REPORT_API int
ksft_metric_report_history_pin(struct ksft_metric_report_history *h,
			       const char *run_id, int pinned);

/** Count what ksft_metric_report_history_prune() would delete, delete nothing. */
#define KSFT_METRIC_REPORT_PRUNE_DRY_RUN 1u

/**
 * ksft_metric_report_history_prune() - delete old runs (retention)
 * @keep: results kept per series and machines, newest first, and runs
 *	  kept per machines; at least the window and the gate's recent runs
 * @window: the window compare --db and ingest judge with (0: the default)
 * @flags: 0 or KSFT_METRIC_REPORT_PRUNE_DRY_RUN
 * @results: receives the number of result rows deleted (may be NULL)
 *
 * Deletes, in one write transaction, every run that holds none of the
 * newest @keep results of any of its series (per class of result the
 * gate reads, from each pinned run back too), is not among the newest
 * @keep runs of its machines and is not pinned: what judging a next run
 * reads stays row for row, so its verdicts do not change. A series keeps
 * its newest results however rarely it runs.
 *
 * @return the number of runs deleted (INT_MAX when more); -EINVAL when
 * @keep is less than what the gate reads (the message says how many it
 * needs), -EROFS, -EIO.
 */
KSFT_METRIC_REPORT_API int
ksft_metric_report_history_prune(struct ksft_metric_report_history *h, size_t keep,
				 size_t window, unsigned flags, unsigned long long *results);

/**
 * ksft_metric_report_value_text() - a value as every output shows it
 * @value: the number in the metric's own units
 * @scale: its display_scale (NaN: none)
 * @label: its display_label (NULL: none)
 *
 * Writes @value times @scale followed by @label, as the author wrote it,
 * into @buf (snprintf() rules: always NUL-terminated when @size > 0), 6
 * significant digits ("%.6g LABEL"): 0.6188 with scale 1000 and
 * "CPU ms/GB" is "618.8 CPU ms/GB", 125 with "MB/s" is "125 MB/s". No
 * other prefix is chosen, so a series keeps one unit in every output. A
 * non-finite value is "-". Thread-safe.
 *
 * @return the length the full text has (as snprintf()), -EINVAL if @buf
 * is NULL with @size > 0.
 */
KSFT_METRIC_REPORT_API int
ksft_metric_report_value_text(char *buf, size_t size, double value,
			      double scale, const char *label);

/**
 * ksft_metric_report_display_unit() - a series' display unit and scale
 * @display_scale: its policy's display_scale (NaN: none)
 * @display_label: its policy's display_label (NULL: none)
 * @aggregation: its policy's aggregation (NULL or "": none)
 * @scale: set to the factor: a value in the metric's own units times
 *	   *@scale is in *@unit (1 without display_scale)
 * @unit: set to the unit (@display_label itself, "busy cores" for an
 *	  aggregated series, whose values are busy cores; NULL: none)
 *
 * The one rule the text tables, the HTML page, JSON, CSV, NIPA and KCIDB
 * follow (doc/consumer.rst, "Units"): call it with a series' policy (from
 * struct ksft_metric_report_series, or the history's "display_label" and
 * "display_scale") to print its values as compare does. *@unit points into
 * @display_label or a static string. Thread-safe.
 *
 * @return 0, -EINVAL if @scale or @unit is NULL.
 */
KSFT_METRIC_REPORT_API int
ksft_metric_report_display_unit(double display_scale, const char *display_label,
				const char *aggregation, double *scale,
				const char **unit);

#ifdef __cplusplus
}
#endif

#endif /* KSFTMETRIC_REPORT_H */
