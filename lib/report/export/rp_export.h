/*
 * The report writers (format_NAME_write() in format_NAME.c) and what they
 * share (export_*() in export.c): names in other systems' forms (KCIDB,
 * NIPA, --name-style), units, the run context with the caller's keys,
 * summaries and verdicts per series.
 */
#ifndef KSFTM_RP_EXPORT_H
#define KSFTM_RP_EXPORT_H

#include <ksftmetric/report.h>
#include <stddef.h>

#include "report.h"
#include "rp_policy.h"
#include "strbuf.h"
#include "vals.h"

struct cmp_row;
struct export_sink;
struct rp_series;
struct rp_summary;

/* NIPA's namify(): [^0-9a-zA-Z]+ -> "-", a trailing "-" dropped, "" -> "no-name". */
void export_namify(struct strbuf *sb, const char *s);

/*
 * A series' names in NIPA's form: "selftests: T: P" as the outermost test
 * gives group "selftests-" + namify(T) and test namify(P); the other
 * enclosing tests and the case, joined, are the subtest. Without such an
 * outermost test the group is unknown (NULL) and the outermost test, if
 * any, is the test. Each string is malloc'd; -ENOMEM.
 */
struct export_nipa_names {
	char *group, *test, *subtest;
};
int export_nipa_names(char *const *path, size_t path_len, const char *case_name,
		      struct export_nipa_names *n);
void export_nipa_names_free(struct export_nipa_names *n);

/*
 * A report whose series carry other names (NIPA's), for any writer: the
 * series are shallow copies sharing the points of @r, so @r must outlive
 * the view and stay unchanged.
 */
struct export_view {
	struct ksft_metric_report rep;
	struct rp_series *copies;
	char **owned;
	size_t n_owned;
};
int export_view_nipa(const struct ksft_metric_report *r, struct export_view *v);
void export_view_free(struct export_view *v);

/* OpenMetrics' base unit word ("seconds", "bytes") of a series, or NULL. */
const char *export_om_unit(const struct rp_policy *p);

/* Summaries of one series after its pipeline, for the writers. */
struct export_sums {
	struct rp_policy scratch;
	const struct rp_policy *p;
	struct rp_vals pv;
	size_t width;		/* 0 for scalars */
	int ops[4];
	size_t nops;
	int compare;		/* the op the gate compares (p50 for distribution) */
	struct rp_summary *sums;	/* one per element (one for scalars) */
};
int export_sums_init(struct export_sums *m, const struct rp_series *s);
void export_sums_free(struct export_sums *m);
/* {"p50":...} of element @e, or null without values. */
void export_sums_json(struct strbuf *sb, const struct export_sums *m, size_t e);
/* The summary object, an array of them for arrays, or null. */
void export_sums_json_all(struct strbuf *sb, const struct export_sums *m);


/* Comparison rows by series key, for writers that show verdicts. */
struct export_rowix {
	const struct ksft_metric_report_comparison *c;
	char **keys;		/* per row */
	size_t *order;		/* rows sorted by key */
};
int export_rowix_build(const struct ksft_metric_report_comparison *c,
		       struct export_rowix *ix);
void export_rowix_free(struct export_rowix *ix);
/* Rows of series @key: *@first (index into ix->order), returns how many. */
size_t export_rowix_find(const struct export_rowix *ix, const char *key, size_t *first);
/* One row as a JSON object (element, compare, baseline, ..., verdict). */
void export_row_json(struct strbuf *sb, const struct cmp_row *row);

/* The writers, one a file; dispatch.c picks one. 0 or -ENOMEM (KCIDB and
 * NIPA: or another negative errno with the message set). Those given an
 * export_sink (sink.h; NULL: none) hand it their text as they go. */
int format_json_write(const struct ksft_metric_report *r, struct strbuf *sb,
		      struct export_sink *ks);
int format_csv_write(const struct ksft_metric_report *r, struct strbuf *sb,
		     struct export_sink *ks);
int format_openmetrics_write(const struct ksft_metric_report *r, struct strbuf *sb);
/* The text table (format_text.c): @fmt TEXT with its width and verbosity flags. */
int format_text_write(const struct ksft_metric_report *r, int fmt, struct strbuf *sb,
		      struct export_sink *ks);
int format_kcidb_write(const struct ksft_metric_report *r,
		       const struct ksft_metric_report_format_opts *o,
		       struct strbuf *sb);
/* compare --format reply (compare_reply.c): the A/B summary for a
 * mailing-list reply, at most 72 columns. */
int compare_reply_write(const struct ksft_metric_report_comparison *c, struct strbuf *sb);
int format_nipa_write(const struct ksft_metric_report *r,
		      const struct ksft_metric_report_format_opts *o,
		      struct strbuf *sb);

/* The summaries shown for a series, in display order (at most 4 in @ops). */
size_t export_shown_ops(const struct rp_policy *p, size_t processed, int *ops);

#endif
