/*
 * One input's parse: the KTAP test tree (depth = number of "# " or
 * four-space prefixes), metric and policy lines attached to the next
 * result line at their depth, zperf ZPERF-RESULT lines and twister JSON
 * reports. Names of enclosing tests only arrive after their subtests, so
 * series are keyed by tree node while reading and get their path when the
 * input is complete (ktap_input_finish()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon.h"
#include "context.h"
#include "grow.h"
#include "ktap.h"
#include "ktap_tags.h"
#include "metric_line.h"
#include "report.h"
#include "rp.h"
#include "rp_input.h"
#include "rp_policy.h"
#include "series.h"
#include "strbuf.h"
#include "strpool.h"
#include "tree.h"
#include "warn.h"
#include "zperf.h"

struct rp_input *ktap_input_new(struct ksft_metric_report *r, const char *name)
{
	struct rp_input *in = calloc(1, sizeof(*in));
	int d;

	if (!in)
		return NULL;
	for (d = 0; d < RP_MAX_DEPTH; d++)
		in->plan[d] = -1;
	in->r = r;
	in->file = warn_keep_string(r, name);
	if (!in->file || series_htab_init(&in->tab)) {
		free(in);
		return NULL;
	}
	return in;
}

/* A case whose result line never came (the test died): keep it. */
static void case_incomplete(struct rp_input *in, int d)
{
	struct rp_node *n = in->pending[d];

	if (!n)
		return;
	in->r->cut_short = in->death_said = 1;
	warn_add(in->r, in->file, in->pending_line[d],
		 "metric lines without a result line (did the test die?) are kept under case \"" INCOMPLETE "\"");
	tree_name_node(in, n, INCOMPLETE, strlen(INCOMPLETE), RP_ST_INCOMPLETE);
	in->pending[d] = NULL;
}

/*
 * "ktap-metric-abort-json: {"reason":"SIGTERM"}": the producer's process
 * exited or died with the case at depth @d still open; the metric lines
 * it flushed just before belong to that case, kept as incomplete with
 * the reason. One exception: {"reason":"exit","status":4} is kselftest.h's
 * ksft_exit_skip(), which prints the case's "ok N # SKIP" line and then
 * exits with KSFT_SKIP: lines flushed at that exit, right after a SKIP
 * result at their depth, are that case's.
 */
static void abort_line(struct rp_input *in, int d, const char *p,
		       const char *end)
{
	struct rp_node *n = in->pending[d];
	json_t *j = json_loadb(p, (size_t)(end - p), 0, NULL);
	json_t *why = json_object_get(j, "reason");
	json_t *status = json_object_get(j, "status");
	json_t *dropped = json_object_get(j, "dropped");
	long long n_dropped = json_is_integer(dropped) ? json_integer_value(dropped) : 0;
	int skip_exit = json_is_string(why) && !strcmp(json_string_value(why), "exit") &&
			json_is_integer(status) && json_integer_value(status) == 4;
	const char *reason;

	/* Kept as text (controls and bad UTF-8 replaced); "unknown" if absent. */
	reason = warn_keep_string(in->r, json_is_string(why) &&
				  json_string_length(why) ?
				  json_string_value(why) : "unknown");
	json_decref(j);
	if (!reason) {
		in->oom = 1;
		return;
	}
	if (n_dropped > 0)
		warn_add(in->r, in->file, in->lineno,
			 "%lld metric lines were too long to write when the test case ended abnormally (%s)",
			 n_dropped, reason);
	if (!n) {
		if (!skip_exit || !in->last_skip[d])
			in->r->cut_short = in->death_said = 1;
		warn_add(in->r, in->file, in->lineno,
			 "test case ended abnormally (%s) with no metric lines", reason);
		return;
	}
	if (skip_exit && in->last_skip[d]) {
		/* ksft_exit_skip(): the case's lines, after its own result line. */
		if (tree_name_node(in, n, in->last_skip[d], strlen(in->last_skip[d]),
				   RP_ST_SKIP))
			return;
		free(in->last_skip[d]);
		in->last_skip[d] = NULL;
		in->pending[d] = NULL;
		return;
	}
	in->r->cut_short = in->death_said = 1;
	warn_add(in->r, in->file, in->lineno,
		 "test case ended abnormally (%s); its %zu metric lines are kept as incomplete",
		 reason, n->metric_lines);
	tree_name_node(in, n, INCOMPLETE, strlen(INCOMPLETE), RP_ST_INCOMPLETE);
	n->abort = reason;
	in->pending[d] = NULL;
}

/*
 * "ktap-metric-stream-json: {"state":"begin"|"end"}": a write-through case
 * is framed. A result line after "begin" but with no "end" means the
 * process was killed mid-case (a harness timeout's SIGKILL): its lines are
 * kept under its name, marked incomplete ("killed").
 */
static void stream_line(struct rp_input *in, int d, const char *p, const char *end)
{
	json_t *j = json_loadb(p, (size_t)(end - p), 0, NULL);
	const char *state = json_string_value(json_object_get(j, "state"));
	struct rp_node *n = tree_case_at(in, d);

	if (!n) {
		in->oom = 1;
	} else if (state && !strcmp(state, "begin")) {
		n->stream = 1;
	} else if (state && !strcmp(state, "end")) {
		if (n->stream == 1)
			n->stream = 2;
	} else {
		warn_add(in->r, in->file, in->lineno, "ktap-metric-stream-json line without "
			 "a known \"state\" (begin, end) is ignored");
	}
	json_decref(j);
}

/* A framed case that never reached its "end" frame: cut short. */
static void stream_cut_short(struct rp_input *in, struct rp_node *n)
{
	if (n->stream != 1)
		return;
	in->r->cut_short = in->death_said = 1;
	n->abort = warn_keep_string(in->r, "killed");
	if (!n->abort) {
		in->oom = 1;
		return;
	}
	warn_add(in->r, in->file, in->lineno,
		 "test case \"%s\" was killed before its metrics ended (write-through); its %zu "
		 "metric lines are kept as incomplete", n->name ? n->name : "?", n->metric_lines);
	n->status = RP_ST_INCOMPLETE;
}

/* Remember a SKIP result at depth @d (see abort_line()). */
static void note_result(struct rp_input *in, int d, const char *desc,
			size_t len, int st)
{
	free(in->last_skip[d]);
	in->last_skip[d] = NULL;
	if (st != RP_ST_SKIP)
		return;
	in->last_skip[d] = canon_text_dup(desc, len);
	if (!in->last_skip[d])
		in->oom = 1;
}

static void group_unfinished(struct rp_input *in, int d)
{
	struct rp_node *n = in->group[d];

	if (!n)
		return;
	in->group[d] = NULL;
	free(in->hint[d]);
	in->hint[d] = NULL;
	if (n->name)
		return;
	if (n->hint) {
		n->name = n->hint;
		n->hint = NULL;
	} else {
		tree_name_node(in, n, INCOMPLETE, strlen(INCOMPLETE), RP_ST_INCOMPLETE);
	}
	n->status = RP_ST_INCOMPLETE;
	in->r->cut_short = 1;
	if (!in->death_said)	/* else its case's death said it */
		warn_add(in->r, in->file, in->lineno,
			 "enclosing test \"%s\" has no result line", n->name ? n->name : "?");
	in->death_said = 1;
}

/* The document at depth @d ends: fewer results than its plan said? */
static void plan_end(struct rp_input *in, int d)
{
	/* Said once: a case that died has said so already. */
	if (in->plan[d] > in->results[d] && !in->death_said)
		warn_add(in->r, in->file, in->lineno, "the plan (1..%ld) at nesting level %d ended"
			 " at test %ld: the run was cut short", in->plan[d], d, in->results[d]);
	if (in->plan[d] > in->results[d])
		in->r->cut_short = 1;
	in->plan[d] = -1;
	in->results[d] = 0;
}

/* "1..N" at depth @d (a skipped plan "1..0 # SKIP" is 0). */
static void plan_line(struct rp_input *in, int d, const char *p, const char *end)
{
	long n = 0;

	for (p += 3; p < end && *p >= '0' && *p <= '9' && n < 100000000; p++)
		n = n * 10 + (*p - '0');
	in->plan[d] = n;
	if (in->results[d])	/* a trailing plan (TAP allows one): check it now */
		plan_end(in, d);
}

/* Everything deeper than @d ends here. */
static void close_below(struct rp_input *in, int d)
{
	int k;

	for (k = RP_MAX_DEPTH - 1; k > d; k--) {
		if (!in->last_skip[k] && !in->pending[k] && !in->group[k])
			continue;	/* nothing open there: most depths, most lines */
		free(in->last_skip[k]);
		in->last_skip[k] = NULL;
		case_incomplete(in, k);
		if (k > d + 1)
			group_unfinished(in, k);
		plan_end(in, k);	/* after them: one warning for one death */
	}
}

/*
 * Status from the text after '#'; a directive's own text ("# SKIP no
 * devmem") is its reason, returned in @reason/@rlen (length 0: none).
 */
static int status_of(const char *p, const char *end, int ok,
		     const char **reason, size_t *rlen)
{
	static const struct { const char *word; int st; } dirs[] = {
		{ "SKIP", RP_ST_SKIP }, { "XFAIL", RP_ST_XFAIL },
		{ "XPASS", RP_ST_XPASS }, { "TODO", RP_ST_TODO },
		{ "TIMEOUT", RP_ST_TIMEOUT }, { "ERROR", RP_ST_ERROR },
	};
	size_t i;

	*rlen = 0;
	p = rp_input_skip_ws(p, end);
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		size_t n = strlen(dirs[i].word);

		if ((size_t)(end - p) >= n && !strncasecmp(p, dirs[i].word, n) &&
		    ((size_t)(end - p) == n || p[n] == ' ' || p[n] == '\t')) {
			p = rp_input_skip_ws(p + n, end);
			while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
				end--;
			*reason = p;
			*rlen = (size_t)(end - p);
			return dirs[i].st;
		}
	}
	return ok ? RP_ST_PASS : RP_ST_FAIL;
}

/*
 * A result line names a case: by its description, else (kselftest's
 * "ok 1 # SKIP reason" has none) by its test number, KTAP's identity of
 * a test within its parent. Either way the directive's text is the
 * status reason, never the name.
 */
static int name_by_result(struct rp_input *in, struct rp_node *n,
			  const char *desc, size_t len, const char *num,
			  size_t num_len, int st, const char *reason,
			  size_t rlen)
{
	if (tree_name_node(in, n, len ? desc : num, len ? len : num_len, st))
		return -ENOMEM;
	if (rlen) {
		char *r = canon_text_dup(reason, rlen);

		n->reason = r ? warn_keep_string(in->r, r) : NULL;
		free(r);
		if (!n->reason) {
			in->oom = 1;
			return -ENOMEM;
		}
	}
	return 0;
}

/* "ok N desc # DIRECTIVE reason" / "not ok N desc" at depth @d. */
static int result_line(struct rp_input *in, int d, const char *p,
		       const char *end, int ok)
{
	const char *desc, *dend, *hash, *num, *reason = NULL;
	size_t num_len, rlen = 0;
	int st;

	if (p >= end || *p != ' ')
		return 0;
	p++;
	if (p >= end || *p < '0' || *p > '9')
		return 0;	/* not a result line: KTAP numbers every test */
	num = p;
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	num_len = (size_t)(p - num);
	if (p < end && *p != ' ')
		return 0;
	/* The highest test number reached: a plan of N ends at test N. The
	 * digits are read in place: the line is not NUL-terminated. */
	if (num_len < 10) {
		long v = 0;
		const char *q;

		for (q = num; q < p; q++)
			v = v * 10 + (*q - '0');
		if (v > in->results[d])
			in->results[d] = v;
	}
	desc = rp_input_skip_ws(p, end);
	if (STARTS(desc, end, "- "))
		desc += 2;	/* TAP 13 "ok 1 - desc" */
	else if (end - desc == 1 && *desc == '-')
		desc++;		/* "ok 1 -": no description */
	for (hash = desc; hash < end; hash++)
		if (*hash == '#' && (hash == desc || hash[-1] != '\\'))
			break;
	st = hash < end ? status_of(hash + 1, end, ok, &reason, &rlen) :
			  (ok ? RP_ST_PASS : RP_ST_FAIL);
	dend = hash;
	while (dend > desc && (dend[-1] == ' ' || dend[-1] == '\t'))
		dend--;
	close_below(in, d);
	in->death_said = 0;	/* what ends after this result is news */
	note_result(in, d, desc, (size_t)(dend - desc), st);
	/* A case that failed before any metric line is kept too: the series
	 * its history has are its, not lost (compare_case_failed()). */
	if (canon_status_failed(st) && !in->pending[d] &&
	    !(d + 1 < RP_MAX_DEPTH && in->group[d + 1]))
		tree_case_at(in, d);
	if (d + 1 < RP_MAX_DEPTH && in->group[d + 1]) {
		struct rp_node *g = in->group[d + 1];

		in->group[d + 1] = NULL;
		free(in->hint[d + 1]);
		in->hint[d + 1] = NULL;
		if (name_by_result(in, g, desc, (size_t)(dend - desc), num,
				   num_len, st, reason, rlen))
			return -ENOMEM;
	}
	if (in->pending[d]) {
		struct rp_node *n = in->pending[d];

		in->pending[d] = NULL;
		if (name_by_result(in, n, desc, (size_t)(dend - desc), num,
				   num_len, st, reason, rlen))
			return -ENOMEM;
		stream_cut_short(in, n);
		ktap_case_done(in, n);	/* may free it */
	}
	return in->oom ? -ENOMEM : 0;
}

static void hint_line(struct rp_input *in, int d, const char *p, const char *end)
{
	char *h;

	if (d <= 0 || d >= RP_MAX_DEPTH)
		return;
	p = rp_input_skip_ws(p, end);
	while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (p == end)
		return;
	h = canon_text_dup(p, (size_t)(end - p));
	if (!h) {
		in->oom = 1;
		return;
	}
	if (in->group[d] && !in->group[d]->name && !in->group[d]->hint) {
		in->group[d]->hint = h;
	} else {
		free(in->hint[d]);
		in->hint[d] = h;
	}
}

static void version_line(struct rp_input *in, int d)
{
	int k;

	/* A new document at depth d: cases left open at d or deeper died. */
	for (k = RP_MAX_DEPTH - 1; k >= d; k--) {
		free(in->last_skip[k]);
		in->last_skip[k] = NULL;
		case_incomplete(in, k);
		if (k > d)
			group_unfinished(in, k);
		plan_end(in, k);	/* after them: one warning for one death */
	}
	in->death_said = 0;
}

int ktap_input_line(struct rp_input *in, const char *s, size_t n)
{
	const char *p = s, *end = s + n, *z;
	int units = 0, d;

	in->lineno++;
	if (n && end[-1] == '\r')
		end--;
	for (;;) {
		if (end - p >= 2 && p[0] == '#' && p[1] == ' ')
			p += 2;
		else if (end - p == 1 && p[0] == '#')
			p++;
		else if (end - p >= 4 && !memcmp(p, "    ", 4))
			p += 4;
		else
			break;
		units++;
	}
	if (p == end)
		return in->oom ? -ENOMEM : 0;
	d = units ? units - 1 : 0;	/* depth of a diagnostic line */
	if (units >= RP_MAX_DEPTH) {
		if (!in->deep_warned++)
			warn_add(in->r, in->file, in->lineno,
				 "nesting deeper than %d levels ignored", RP_MAX_DEPTH - 1);
		return 0;
	}
	switch (*p) {
	case 'k':
		if (STARTS(p, end, KSFTM_TAG_METRIC)) {
			metric_line_read(in, d, p + KSFTM_TAG_LEN(KSFTM_TAG_METRIC), end);
			return in->oom ? -ENOMEM : 0;
		}
		if (STARTS(p, end, KSFTM_TAG_POLICY)) {
			metric_line_policy(in, d, p + KSFTM_TAG_LEN(KSFTM_TAG_POLICY), end);
			return in->oom ? -ENOMEM : 0;
		}
		if (STARTS(p, end, KSFTM_TAG_ABORT)) {
			abort_line(in, d, p + KSFTM_TAG_LEN(KSFTM_TAG_ABORT), end);
			return in->oom ? -ENOMEM : 0;
		}
		if (STARTS(p, end, KSFTM_TAG_CONTEXT)) {
			json_t *obj = json_loadb(p + KSFTM_TAG_LEN(KSFTM_TAG_CONTEXT),
						 (size_t)(end - p) - KSFTM_TAG_LEN(KSFTM_TAG_CONTEXT), 0, NULL);

			if (json_is_object(obj))
				context_merge(in->r, in->file, in->lineno, obj);
			else
				warn_add(in->r, in->file, in->lineno,
					 "ktap-metric-context-json is not a JSON object; ignored");
			json_decref(obj);
			return 0;
		}
		if (STARTS(p, end, KSFTM_TAG_WARNING)) {
			warn_reject_line(in->r, in->file, in->lineno,
					 p + KSFTM_TAG_LEN(KSFTM_TAG_WARNING), end);
			return 0;
		}
		if (STARTS(p, end, KSFTM_TAG_STREAM)) {
			stream_line(in, d, p + KSFTM_TAG_LEN(KSFTM_TAG_STREAM), end);
			return in->oom ? -ENOMEM : 0;
		}
		break;
	case 'o':
		if (STARTS(p, end, "ok"))
			return result_line(in, units, p + 2, end, 1);
		break;
	case 'n':
		if (STARTS(p, end, "not ok"))
			return result_line(in, units, p + 6, end, 0);
		break;
	case 'T':
		if (STARTS(p, end, "TAP version "))
			version_line(in, units);
		break;
	case 'K':
		if (STARTS(p, end, "KTAP version "))
			version_line(in, units);
		break;
	case '1':
		if (STARTS(p, end, "1.."))
			plan_line(in, units, p, end);
		break;
	case 'S':
		if (STARTS(p, end, "Subtest:") && units >= 1)
			hint_line(in, units - 1, p + 8, end);
		break;
	case 's':
		if (STARTS(p, end, "selftests: ") && units >= 1)
			hint_line(in, units, p, end);
		break;
	case 'Z':
		if (STARTS(p, end, "ZPERF-RESULT ")) {
			zperf_line(in, p + 13, end);
			return in->oom ? -ENOMEM : 0;
		}
		break;
	}
	/* zperf prints with printk: the marker may follow a console prefix. */
	z = memmem(p, (size_t)(end - p), "ZPERF-RESULT ", 13);
	if (z)
		zperf_line(in, z + 13, end);
	return in->oom ? -ENOMEM : 0;
}

void ktap_input_long_line(struct rp_input *in)
{
	in->lineno++;
	warn_add(in->r, in->file, in->lineno,
		 "line longer than %zu bytes skipped", in->r->max_line);
}

int ktap_input_finish(struct rp_input *in)
{
	int was_oom = in->oom;	/* what the lines left; the closing's is its own */

	version_line(in, 0);	/* end of input closes everything */
	return ktap_input_end(in, was_oom);
}
