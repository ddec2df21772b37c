/*
 * What the writers for other systems (KCIDB, NIPA) share with each other
 * and with --name-style: names in those systems' forms, units, the run
 * context with the caller's keys, summaries and verdicts per series.
 */
#ifndef KSFTM_RP_EXPORT_H
#define KSFTM_RP_EXPORT_H

#include "rp.h"
#include "rp_compare.h"

/* NIPA's namify(): [^0-9a-zA-Z]+ -> "-", a trailing "-" dropped, "" -> "no-name". */
void rp_namify(struct strbuf *sb, const char *s);

/*
 * A series' names in NIPA's form: "selftests: T: P" as the outermost test
 * gives group "selftests-" + namify(T) and test namify(P); the other
 * enclosing tests and the case, joined, are the subtest. Without such an
 * outermost test the group is unknown (NULL) and the outermost test, if
 * any, is the test. Each string is malloc'd; -ENOMEM.
 */
struct rp_nipa_names {
	char *group, *test, *subtest;
};
int rp_nipa_names(const struct rp_series *s, struct rp_nipa_names *n);
void rp_nipa_names_free(struct rp_nipa_names *n);

/*
 * A report whose series carry other names (NIPA's), for any writer: the
 * series are shallow copies sharing the points of @r, so @r must outlive
 * the view and stay unchanged.
 */
struct rp_view {
	struct ksft_metric_report rep;
	struct rp_series *copies;
	char **owned;
	size_t n_owned;
};
int rp_view_nipa(const struct ksft_metric_report *r, struct rp_view *v);
void rp_view_free(struct rp_view *v);

/* OpenMetrics' base unit word ("seconds", "bytes") of a series, or NULL. */
const char *rp_om_unit(const struct rp_policy *p);

/* Summaries of one series after its pipeline, for the writers. */
struct rp_sums {
	struct rp_policy scratch;
	const struct rp_policy *p;
	struct rp_vals pv;
	size_t width;		/* 0 for scalars */
	int ops[4];
	size_t nops;
	int compare;		/* the op the gate compares (p50 for distribution) */
	struct rp_summary *sums;	/* one per element (one for scalars) */
};
int rp_sums_init(struct rp_sums *m, const struct rp_series *s);
void rp_sums_free(struct rp_sums *m);
/* {"p50":...} of element @e, or null without values. */
void rp_sums_json(struct strbuf *sb, const struct rp_sums *m, size_t e);
/* The summary object, an array of them for arrays, or null. */
void rp_sums_json_all(struct strbuf *sb, const struct rp_sums *m);


/* Comparison rows by series key, for writers that show verdicts. */
struct rp_rowix {
	const struct ksft_metric_report_comparison *c;
	char **keys;		/* per row */
	size_t *order;		/* rows sorted by key */
};
int rp_rowix_build(const struct ksft_metric_report_comparison *c,
		   struct rp_rowix *ix);
void rp_rowix_free(struct rp_rowix *ix);
/* Rows of series @key: *@first (index into ix->order), returns how many. */
size_t rp_rowix_find(const struct rp_rowix *ix, const char *key, size_t *first);
/* One row as a JSON object (element, compare, baseline, ..., verdict). */
void rp_row_json(struct strbuf *sb, const struct cmp_row *row);

/* The writers, one a file; dispatch.c picks one. 0 or -ENOMEM (KCIDB and
 * NIPA: or another negative errno with the message set). */
int format_json_write(const struct ksft_metric_report *r, struct strbuf *sb);
int format_csv_write(const struct ksft_metric_report *r, struct strbuf *sb);
int format_openmetrics_write(const struct ksft_metric_report *r, struct strbuf *sb);
/* The text table (format_text.c): @fmt TEXT with its width and verbosity flags. */
int rp_format_text(const struct ksft_metric_report *r, int fmt, struct strbuf *sb);
int rp_format_kcidb(const struct ksft_metric_report *r,
		    const struct ksft_metric_report_format_opts *o,
		    struct strbuf *sb);
int rp_format_nipa(const struct ksft_metric_report *r,
		   const struct ksft_metric_report_format_opts *o,
		   struct strbuf *sb);

/* The summaries shown for a series, in display order (at most 4 in @ops). */
size_t rp_shown_ops(const struct rp_policy *p, size_t processed, int *ops);

#endif
