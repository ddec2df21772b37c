/*
 * The report handle: what it holds once its inputs are read (made and
 * fed by read/report.c; the model of every stage above it).
 */
#ifndef KSFTM_REPORT_H
#define KSFTM_REPORT_H

#include <jansson.h>
#include <stddef.h>

#include "series.h"
#include "strbuf.h"
#include "warn.h"

struct rp_failed_case;
struct rp_metric_ent;
struct rp_strpool;

/* The metric records of a report's series, by hash (series_identity.c). */
struct rp_metrics {
	struct rp_metric_ent *e;
	size_t mask, n;
};

struct ksft_metric_report {
	struct rp_strpool *pool;	/* the series' identity strings */
	size_t max_line;
	size_t max_warnings;
	struct rp_warning_store warn;
	char **strings;		/* file names and reasons (owned) */
	size_t n_strings, cap_strings;
	struct rp_series **series;	/* final, report order */
	size_t n_series, cap_series;
	struct rp_htab final_tab;	/* positions in @series by key */
	struct rp_metrics metrics;
	struct strbuf key_buf;	/* a series' key while it is adopted */
	/* The case whose path and name begin @key_buf, and their length:
	 * its next series' key is its own name and labels after them. */
	const struct rp_case *key_case;
	size_t key_prefix;
	json_t *context;	/* the logs' ktap-metric-context-json, merged */
	char *context_json;	/* its canonical text, "{}" when none */
	/* Policy names compared while reading (the unit tests count them). */
	size_t policy_probes;
	/* The cases that failed (canon_status_failed()), with or without series:
	 * the history they lack is theirs, not lost (judge/compare.c). */
	struct rp_failed_case *failed;
	size_t n_failed, cap_failed;
	/* The run was cut short (issue 40): a case or test died before its
	 * result line, or a plan ("1..N") was left unfinished. The series it
	 * lacks never ran: compare_case_failed() says so for every one. */
	int cut_short;
	/* Comparisons that point at its identity strings (report_hold(),
	 * issue 45): ksft_metric_report_free() frees it at the last call,
	 * its owner's or theirs, whichever comes last. */
	int holders;
};

/* @r held by one more (atomically: a report is read by several threads);
 * ksft_metric_report_free() lets go. */
static inline struct ksft_metric_report *report_hold(const struct ksft_metric_report *r)
{
	struct ksft_metric_report *w = (struct ksft_metric_report *)r;

	__atomic_add_fetch(&w->holders, 1, __ATOMIC_RELAXED);
	return w;
}

struct rp_failed_case {
	char **path;		/* the pool's, as a series' */
	size_t path_len;
	const char *name;	/* the pool's */
};

#endif
