/* Consumer engine internals shared by the lib/report sources (never installed). */
#ifndef KSFTM_RP_H
#define KSFTM_RP_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include <ksftmetric/report.h>

#include "strbuf.h"

#define RP_MAX_DEPTH 32
#define RP_DEFAULT_MAX_LINE (16u << 20)
#define RP_DEFAULT_MAX_WARNINGS 1000
#define RP_MAX_DOCUMENT (512u << 20)	/* whole-file JSON inputs */

/* Summary / compare operations. */
enum {
	RP_OP_NONE = 0,
	RP_OP_LAST,
	RP_OP_TOTAL,
	RP_OP_MAX,
	RP_OP_P50,
	RP_OP_P90,
	RP_OP_P99,
	RP_OP_DISTRIBUTION,
};

enum { RP_TR_NONE = 0, RP_TR_RATE };
enum { RP_AGG_NONE = 0, RP_AGG_BCE };
enum { RP_SRC_KTAP = 0, RP_SRC_ZPERF, RP_SRC_TWISTER };

enum {
	RP_ST_NONE = 0,
	RP_ST_PASS,
	RP_ST_FAIL,
	RP_ST_SKIP,
	RP_ST_XFAIL,
	RP_ST_XPASS,
	RP_ST_TODO,
	RP_ST_TIMEOUT,
	RP_ST_ERROR,
	RP_ST_INCOMPLETE,
};

const char *rp_op_name(int op);
/* "higher" (> 0), "lower" (< 0) or NULL (0): a policy's better. */
const char *rp_better_name(int better);
int rp_op_parse(const char *s, int allow_distribution);
const char *rp_status_name(int st);
/* Did a case of status @st fail (fail, timeout, error, incomplete)? Its
 * series are no measurement: not judged (KSFTM_VERDICT_CASE_FAILED). */
int rp_status_failed(int st);
const char *rp_source_name(int src);
/* RP_SRC_* of a source name ("ktap" for NULL or an unknown one). */
int rp_source_parse(const char *name);

/* A policy as decoded from a ktap-metric-policy-json line. */
struct rp_policy {
	int summarize;		/* RP_OP_* (never NONE once parsed) */
	int transform;
	int aggregation;
	int compare;		/* RP_OP_NONE: no regression policy */
	int better;		/* +1 higher, -1 lower, 0 unknown */
	double rel_tol, abs_tol;	/* NaN: not given */
	double disp_min, disp_max, disp_scale;
	char *disp_label;
	char *json;		/* canonical object (without "name") */
	const char *file;	/* where it was declared */
	unsigned long line;
};

/*
 * Decode @obj (a policy line's object, "name" ignored) into @p: 0, or
 * -EINVAL with the reason as the message ("unknown summarize value
 * \"x\""; callers quote it with the file, line or row it came from), or
 * -ENOMEM. Unknown keys are reported in @unknown (malloc'd, may be NULL)
 * but do not fail.
 */
int rp_policy_from_json(json_t *obj, struct rp_policy *p, char **unknown);
void rp_policy_clear(struct rp_policy *p);
/* 0, or -ENOMEM (no message). */
int rp_policy_copy(struct rp_policy *dst, const struct rp_policy *src);
int rp_policy_equal(const struct rp_policy *a, const struct rp_policy *b);

/*
 * zperf_regression.py's default --tolerance: how far a zperf or twister
 * series without a regression policy may get worse, in compare --baseline
 * and in the history gate alike.
 */
#define RP_DEFAULT_REL_TOL 0.05

/*
 * The gate of a series whose policy has no "compare" (both gates; rp_policy.c): zperf
 * and twister results (any source but KTAP) by their p50, higher is
 * better, within RP_DEFAULT_REL_TOL. @return 1 and fill @op (RP_OP_*),
 * @better and @rel_tol; 0 for a KTAP series (not gated; nothing filled).
 */
int rp_default_gate(int source, int *op, int *better, double *rel_tol);
/* "higher" 1, "lower" -1, else 0. */
int rp_policy_better(const char *b);
/* How the history gate judges series @s: its statistic @op ("p50" when
 * the policy names none), direction and tolerances, a zperf or twister
 * series by rp_default_gate(). The gate's reader and the gate both ask. */
struct ksft_metric_report_series;
void rp_policy_gate_of(const struct ksft_metric_report_series *s, const char **op, int *better,
		       double *rel_tol, double *abs_tol);

/* Canonical JSON text (sorted keys, shortest doubles, ASCII escapes). */
void rp_json_emit(struct strbuf *sb, json_t *j);
void rp_json_double(struct strbuf *sb, double v);	/* NaN -> null */
void rp_json_str(struct strbuf *sb, const char *s);
/* A series' identity: "case":..,"path":[..],"name":..,"labels":{..} (no braces). */
void rp_emit_identity(struct strbuf *sb, char *const *path, size_t path_len,
		      const char *case_name, const char *name,
		      const char *labels);

/* Copy @n bytes as valid UTF-8 text (invalid bytes and controls -> '?'). */
char *rp_text_dup(const char *s, size_t n);
/*
 * The byte offset in @s[0..n) of the first byte that is not valid UTF-8 or
 * starts a control character (C0, DEL, C1; tab too), -ENOENT when there is
 * none (text a terminal shows as is). @control: 1 for a control character.
 */
long rp_text_bad_at(const char *s, size_t n, int *control);

/*
 * Fast correctly rounded JSON number: 0, -EINVAL not a (finite) number,
 * -ENOMEM (a number too long for the stack); no message.
 */
int rp_parse_number(const char *s, const char *end, const char **next,
		    double *out);

/* A sequence of points: scalar (off == NULL) or arrays. */
struct rp_vals {
	size_t n;
	double *t;
	double *v;
	size_t *off;		/* arrays: n + 1 offsets into v */
	size_t width;		/* widest point (1 for scalars) */
};

void rp_vals_free(struct rp_vals *pv);
int rp_vals_is_array(const struct rp_vals *pv);
size_t rp_vals_len(const struct rp_vals *pv, size_t i);
double rp_vals_at(const struct rp_vals *pv, size_t i, size_t j);

/* Transform (stage >= 1) then aggregation (stage 2) into a fresh @out. */
int rp_process(const struct rp_vals *raw, const struct rp_policy *pol,
	       int stage, struct rp_vals *out);

/* Every summary of one element (elem ignored for scalars). */
struct rp_summary {
	size_t n;	/* finite values */
	double last, total, max, p50, p90, p99;
};
/*
 * Values visited by the per-element passes (this thread): lets a test
 * check that summaries cost the entries, not points x widest array.
 */
extern _Thread_local unsigned long long rp_work;
int rp_summarize(const struct rp_vals *pv, size_t elem, struct rp_summary *s);
void rp_summarize_values(double *x, size_t n, struct rp_summary *s);
/* Finite values by element: element e is x[start[e] .. start[e + 1]). */
struct rp_cols {
	size_t width;	/* 1 for scalars */
	size_t *start;
	double *x;
};
int rp_cols_build(const struct rp_vals *pv, struct rp_cols *c);
void rp_cols_free(struct rp_cols *c);
size_t rp_cols_get(const struct rp_cols *c, size_t e, double **x);
void rp_cols_summarize(struct rp_cols *c, struct rp_summary *s);
double rp_summary_op(const struct rp_summary *s, int op);
/*
 * The summaries of series @i's processed values, one per element, from one
 * pass over them (ingest stores six of each): *@sums (free()) has the
 * returned width (>= 0) of them; -errno. @sums NULL: only the width.
 */
struct ksft_metric_report;
int rp_series_summaries(const struct ksft_metric_report *r, size_t i, struct rp_summary **sums);
/* Finite values of element @elem, in point order; returns count. */
size_t rp_element_values(const struct rp_vals *pv, size_t elem, double *out);
/* Two-sided Mann-Whitney U p-value; NaN if either side has < 1 value. */
double rp_mann_whitney(const double *x, size_t nx, const double *y, size_t ny);

/* A node of the KTAP test tree: a case, or a test enclosing cases. */
struct rp_pol_entry {
	char *name;
	struct rp_policy pol;
	struct rp_pol_entry *next;	/* the node's, for freeing */
	const struct rp_node *node;
	uint64_t hash;			/* of (node id, name) */
	struct rp_pol_entry *hnext;	/* chain of rp_input.pol_tab */
};

struct rp_node {
	char *name;		/* NULL until the result line names it */
	char *hint;		/* "Subtest:" name, used if it never gets one */
	struct rp_node *parent;
	struct rp_node *next_all;
	struct rp_pol_entry *policies;
	size_t id;		/* order of creation in its input */
	int status;
	size_t children;
	size_t metric_lines;	/* ktap-metric-json lines read for it */
	const char *abort;	/* ktap-metric-abort-json reason (report's) */
	const char *reason;	/* directive text ("# SKIP why"; report's) */
	int stream;		/* write-through frames seen: 1 begin, 2 end too */
};

/*
 * A series. Its name, labels, shape, case name, path and path strings are
 * the report's (r->pool), never freed with the series.
 */
struct rp_series {
	struct rp_node *node;	/* while its input is being read */
	char *name;
	char *labels;		/* canonical JSON object */
	size_t labels_len;
	char *shape;
	int source;
	int is_array;
	struct rp_vals raw;	/* t, v, off */
	size_t cap_pts, cap_v;
	const char *file;	/* first point */
	unsigned long line;
	uint64_t hash;
	struct rp_series *hnext;
	/* Identity once the input is complete. */
	char *case_name;
	char **path;
	size_t path_len;
	int status;
	char *key;
	const char *abort;	/* case ended abnormally: reason, else NULL */
	const char *reason;	/* the status directive's text, else NULL */
	size_t joined;		/* case instances joined into it, less one */
	int has_policy;
	struct rp_policy policy;
};

struct rp_warning_store {
	struct ksft_metric_report_warning *v;
	size_t n, cap, total;
};

struct rp_htab {
	struct rp_series **b;
	size_t mask, n;
};

/*
 * Interned strings and arena bytes that live as long as the report
 * (model/strpool.c): the series' identity strings and path arrays, which
 * rp_series_free() leaves alone. NULL on allocation failure.
 */
struct rp_strpool;
struct rp_strpool *rp_strpool_new(void);
void rp_strpool_free(struct rp_strpool *p);
const char *rp_strpool_intern(struct rp_strpool *p, const char *s, size_t n);
void *rp_strpool_alloc(struct rp_strpool *p, size_t n);
/*
 * @path's strings interned in @p, in an array of the pool: @prev itself
 * when it holds the same strings (series of one test share it). NULL: OOM.
 */
char **rp_strpool_path(struct rp_strpool *p, char *const *path, size_t n,
		       char **prev, size_t prev_n);

struct ksft_metric_report {
	struct rp_strpool *pool;	/* the series' identity strings */
	size_t max_line;
	size_t max_warnings;
	struct rp_warning_store warn;
	char **strings;		/* file names and reasons (owned) */
	size_t n_strings, cap_strings;
	struct rp_series **series;	/* final, report order */
	size_t n_series, cap_series;
	struct rp_htab final_tab;	/* by key */
	json_t *context;	/* the logs' ktap-metric-context-json, merged */
	char *context_json;	/* its canonical text, "{}" when none */
	/* Policy names compared while reading (the unit tests count them). */
	size_t policy_probes;
	/* The cases that failed (rp_status_failed()), with or without series:
	 * the history they lack is theirs, not lost (judge/compare.c). */
	struct rp_failed_case *failed;
	size_t n_failed, cap_failed;
};

struct rp_failed_case {
	char **path;		/* the pool's, as a series' */
	size_t path_len;
	const char *name;	/* the pool's */
};

/*
 * The run context: the logs' merged with "KEY=VALUE" entries (they win): the
 * one KEY=VALUE rule, for the writers and the history (read/context.c).
 * Returns a new object, or NULL with the error set (a bad entry: -EINVAL
 * naming it; -ENOMEM).
 */
json_t *rp_context_with(const struct ksft_metric_report *r,
			const char *const *kv, size_t n, int *err);
/* Merge one context line's object into the report's run context (ktap.c). */
void rp_context_merge(struct ksft_metric_report *r, const char *file,
		      unsigned long line, json_t *obj);

void rp_warn(struct ksft_metric_report *r, const char *file,
	     unsigned long line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
const char *rp_keep_string(struct ksft_metric_report *r, const char *s);

/* Parse state of one input (ktap.c). */
struct rp_input;
struct rp_input *rp_input_new(struct ksft_metric_report *r, const char *name);
int rp_input_line(struct rp_input *in, const char *s, size_t n);
void rp_input_long_line(struct rp_input *in);
int rp_input_document(struct rp_input *in, const char *buf, size_t len);
int rp_input_finish(struct rp_input *in);	/* resolves and merges; frees */
void rp_input_abort(struct rp_input *in);

/* Series storage (series.c). */
uint64_t rp_hash(const void *p, size_t n, uint64_t h);
/* Hash for lookups only (8 bytes a step; never printed, unlike rp_hash). */
uint64_t rp_key_hash(const void *p, size_t n);
int rp_htab_init(struct rp_htab *t);
void rp_htab_free(struct rp_htab *t);
int rp_htab_insert(struct rp_htab *t, struct rp_series *s);
void rp_series_free(struct rp_series *s);
int rp_series_add_point(struct rp_series *s, double t, const double *v,
			size_t n, int is_array);
int rp_series_append(struct rp_series *dst, const struct rp_series *src);
/* Effective policy of @s: its own, or the defaults for its source. */
const struct rp_policy *rp_series_policy(const struct rp_series *s,
					 struct rp_policy *scratch);
/* Key from identity (path, case, name, labels). */
char *rp_make_key(char *const *path, size_t path_len, const char *case_name,
		  const char *name, const char *labels);
int rp_report_adopt(struct ksft_metric_report *r, struct rp_series *s);

/* Series title for tables: "path / case name{k=v}[elem]". */
void rp_series_title(struct strbuf *sb, char *const *path, size_t path_len,
		     const char *case_name, const char *name,
		     const char *labels, long elem);
void rp_labels_text(struct strbuf *sb, const char *labels_json);
/* model/warn.c: a "ktap-metric-warning-json" payload [@p, @end) as a warning. */
void rp_reject_line(struct ksft_metric_report *r, const char *file,
		    unsigned long line, const char *p, const char *end);
void rp_text_number(struct strbuf *sb, double v);
/* @v times @scale (NaN: 1) and " @label" (NULL: none), for tables; the
 * label as written, never another prefix (model/units.c). */
void rp_text_display(struct strbuf *sb, double v, double scale,
		     const char *label);
/*
 * A series' display unit and scale (model/units.c, the one rule every
 * output follows): a value times @scale is in @unit (NULL: no unit; the
 * label as the author wrote it, "busy cores" for an aggregated series).
 */
struct rp_display {
	double scale;
	const char *unit;
};
void rp_display_choose(double display_scale, const char *label, int aggregated,
		       struct rp_display *d);
void rp_display_of(const struct rp_policy *p, struct rp_display *d);
/* "unit":...,"scale":... (no braces) for the machine formats. */
void rp_display_json(struct strbuf *sb, const struct rp_display *d);
/* The unit part of a display label: all of it, or "us" of "Latency (us)". */
const char *rp_unit_word(const char *label, size_t *len);
/* @v (in @label's unit) as text into @buf, snprintf()'s return. */
int rp_unit_text(char *buf, size_t size, double v, const char *label);

#endif
