/*
 * The report handle: reading inputs with bounded memory (lines over the
 * limit are skipped, never buffered whole) and the series
 * queries of the public API.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <ksftmetric/report.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon.h"
#include "errmsg.h"
#include "ktap.h"
#include "opts_size.h"
#include "pipeline.h"
#include "policy_vocab.h"
#include "report.h"
#include "report_summaries.h"
#include "rp.h"
#include "rp_input.h"
#include "rp_policy.h"
#include "series.h"
#include "strbuf.h"
#include "strpool.h"
#include "vals.h"
#include "warn.h"
#include "zperf.h"

#define CHUNK (256u << 10)

KSFT_METRIC_REPORT_API const char *ksft_metric_report_errmsg(void)
{
	return ksftm_errmsg();
}

KSFT_METRIC_REPORT_API void ksft_metric_report_text_free(char *text)
{
	free(text);
}

KSFT_METRIC_REPORT_API struct ksft_metric_report *
ksft_metric_report_new(const struct ksft_metric_report_opts *opts)
{
	struct ksft_metric_report_opts o = KSFT_METRIC_REPORT_OPTS_INIT;
	struct ksft_metric_report *r;

	if (ksftm_opts_take(&o, sizeof(o), opts, "ksft_metric_report_opts")) {
		errno = EINVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (r && !(r->pool = strpool_new())) {
		free(r);
		r = NULL;
	}
	if (!r || series_htab_init(&r->final_tab)) {
		if (r)
			strpool_free(r->pool);
		free(r);
		ksftm_oom();
		errno = ENOMEM;
		return NULL;
	}
	r->max_line = RP_DEFAULT_MAX_LINE;
	r->max_warnings = RP_DEFAULT_MAX_WARNINGS;
	if (o.max_line)
		r->max_line = o.max_line;
	if (o.max_warnings)
		r->max_warnings = o.max_warnings;
	return r;
}

KSFT_METRIC_REPORT_API void ksft_metric_report_free(struct ksft_metric_report *r)
{
	size_t i;

	if (!r)
		return;
	/* Held by a comparison (report_hold()): the last one frees it. */
	if (__atomic_fetch_sub(&r->holders, 1, __ATOMIC_ACQ_REL) > 0)
		return;
	for (i = 0; i < r->n_series; i++)
		series_free(r->series[i]);
	free(r->series);
	free(r->failed);
	series_htab_free(&r->final_tab);
	series_metrics_free(r);
	strbuf_free(&r->key_buf);
	for (i = 0; i < r->n_strings; i++)
		free(r->strings[i]);
	free(r->strings);
	free(r->warn.v);
	json_decref(r->context);
	free(r->context_json);
	strpool_free(r->pool);
	free(r);
}

/* ---- reading -------------------------------------------------------- */

struct feeder {
	struct rp_input *in;
	size_t max_line;
	int skipping;		/* inside a line over the limit */
	int decided;		/* KTAP lines, or a whole JSON document */
	int document;
	struct strbuf doc;
	int too_big;
};

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/*
 * Hand the complete lines of @buf[0..len) to the parser; returns the
 * number of bytes consumed (the rest is a partial line), or -ENOMEM.
 */
static long feed_lines(struct feeder *f, const char *buf, size_t len, int eof)
{
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n;
		int ret;

		if (!nl) {
			if (!eof)
				break;
			nl = end;	/* last line without a newline */
		}
		n = (size_t)(nl - p);
		if (f->skipping) {
			f->skipping = 0;	/* the tail of a skipped line */
		} else if (n > f->max_line) {
			ktap_input_long_line(f->in);
		} else {
			ret = ktap_input_line(f->in, p, n);
			if (ret)
				return ret;
		}
		p = nl < end ? nl + 1 : end;
	}
	return (long)(p - buf);
}

static int decide(struct feeder *f, const char *buf, size_t len)
{
	size_t i = 0;

	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		i = 3;
	while (i < len && is_space(buf[i]))
		i++;
	if (i == len)
		return 0;	/* need more bytes */
	f->decided = 1;
	f->document = buf[i] == '{';
	return 1;
}

static void doc_add(struct feeder *f, const char *buf, size_t len)
{
	if (f->too_big)
		return;
	if (f->doc.len + len > RP_MAX_DOCUMENT) {
		f->too_big = 1;
		strbuf_free(&f->doc);
		return;
	}
	strbuf_add(&f->doc, buf, len);
}

static int doc_finish(struct feeder *f, struct ksft_metric_report *r,
		      const char *name)
{
	int ret = 0;

	if (f->too_big)
		warn_add(r, warn_keep_string(r, name), 0,
			 "JSON document larger than %u bytes skipped",
			 RP_MAX_DOCUMENT);
	else if (f->doc.oom)
		ret = -ENOMEM;
	else
		ret = zperf_input_document(f->in, f->doc.data ? f->doc.data : "",
					   f->doc.len);
	strbuf_free(&f->doc);
	return ret;
}

static int finish(struct feeder *f, int ret)
{
	if (ret) {
		ktap_input_abort(f->in);
		return ksftm_fail(-ret, "out of memory");
	}
	ret = ktap_input_finish(f->in);
	if (ret < 0)
		return ksftm_fail(-ret, "out of memory");
	return ret;
}

KSFT_METRIC_REPORT_API int ksft_metric_report_read_buffer(struct ksft_metric_report *r,
						   const void *buf, size_t len,
						   const char *name)
{
	struct feeder f;
	long used;
	int ret = 0;

	if (!r || (!buf && len))
		return ksftm_fail(EINVAL, "ksft_metric_report_read_buffer: NULL argument");
	memset(&f, 0, sizeof(f));
	f.max_line = r->max_line;
	f.in = ktap_input_new(r, name ? name : "-");
	if (!f.in)
		return ksftm_oom();
	decide(&f, buf, len);
	if (f.document) {
		doc_add(&f, buf, len);
		ret = doc_finish(&f, r, name ? name : "-");
	} else if (len) {
		used = feed_lines(&f, buf, len, 1);
		ret = used < 0 ? (int)used : 0;
	}
	return finish(&f, ret);
}

KSFT_METRIC_REPORT_API int ksft_metric_report_read_file(struct ksft_metric_report *r,
						 FILE *file, const char *name)
{
	struct feeder f;
	char *buf;
	size_t cap = CHUNK, len = 0;
	int ret = 0, io_error = 0;

	if (!r || !file)
		return ksftm_fail(EINVAL, "ksft_metric_report_read_file: NULL argument");
	if (!name)
		name = "-";
	memset(&f, 0, sizeof(f));
	f.max_line = r->max_line;
	buf = malloc(cap);
	f.in = ktap_input_new(r, name);
	if (!buf || !f.in) {
		free(buf);
		ktap_input_abort(f.in);
		return ksftm_oom();
	}
	for (;;) {
		size_t got = fread(buf + len, 1, cap - len, file);
		int eof = got == 0;
		long used;

		if (!got && ferror(file))
			io_error = errno ? errno : EIO;
		len += got;
		if (!f.decided && !decide(&f, buf, len) && !eof) {
			if (len < cap)
				continue;
			f.decided = 1;	/* a long run of blanks: not JSON */
		}
		if (f.document) {
			doc_add(&f, buf, len);
			len = 0;
			if (eof)
				break;
			continue;
		}
		used = feed_lines(&f, buf, len, eof);
		if (used < 0) {
			ret = (int)used;
			break;
		}
		memmove(buf, buf + used, len - (size_t)used);
		len -= (size_t)used;
		if (eof)
			break;
		if (f.skipping) {
			len = 0;	/* still inside the skipped line */
		} else if (len > f.max_line) {
			/* Over the limit: drop what we have, skip to the newline. */
			ktap_input_long_line(f.in);
			f.skipping = 1;
			len = 0;
		} else if (len == cap) {
			size_t ncap = cap * 2;
			char *nb;

			if (ncap > f.max_line + CHUNK)
				ncap = f.max_line + CHUNK;
			nb = ncap > cap ? realloc(buf, ncap) : NULL;
			if (!nb) {
				/* Cannot grow (limit or memory): skip the line. */
				ktap_input_long_line(f.in);
				f.skipping = 1;
				len = 0;
			} else {
				buf = nb;
				cap = ncap;
			}
		}
	}
	if (f.document && !ret)
		ret = doc_finish(&f, r, name);
	free(buf);
	ret = finish(&f, ret);
	if (ret >= 0 && io_error)
		return ksftm_fail(EIO, "%s: read error: %s", name, strerror(io_error));
	return ret;
}

/* ---- queries -------------------------------------------------------- */

KSFT_METRIC_REPORT_API size_t
ksft_metric_report_series_count(const struct ksft_metric_report *r)
{
	return r ? r->n_series : 0;
}

static int get_series(const struct ksft_metric_report *r, size_t i,
		      const struct rp_series **s)
{
	if (!r)
		return ksftm_fail(EINVAL, "NULL report");
	if (i >= r->n_series)
		return ksftm_fail(ERANGE, "series %zu out of range (%zu series)",
				  i, r->n_series);
	*s = r->series[i];
	return 0;
}

KSFT_METRIC_REPORT_API int
ksft_metric_report_series_get(const struct ksft_metric_report *r, size_t i,
			      struct ksft_metric_report_series *dst)
{
	struct ksft_metric_report_series *out = dst;
	struct ksft_metric_report_series full;
	const struct rp_series *s = NULL;
	struct rp_policy scratch;
	const struct rp_policy *p;
	int ret = get_series(r, i, &s);
	size_t sz;

	if (ret)
		return ret;
	if (!out || out->sz < sizeof(size_t))
		return ksftm_fail(EINVAL, "struct ksft_metric_report_series.sz is not set");
	/* An older caller's smaller struct gets the fields it knows. */
	sz = out->sz < sizeof(full) ? out->sz : sizeof(full);
	p = series_policy(s, &scratch);
	out = &full;
	out->case_name = series_case_name(s);
	out->path = (const char *const *)series_path(s);
	out->path_len = series_path_len(s);
	out->name = series_name(s);
	out->labels_json = series_labels(s);
	out->shape = series_shape(s);
	out->status = canon_status_name(s->status);
	out->source = canon_source_name(s->source);
	out->points = series_n_points(s);
	out->is_array = s->is_array;
	out->policy_json = series_own_policy(s) ? series_own_policy(s)->json : NULL;
	out->summarize = canon_op_name(p->summarize);
	out->transform = p->transform == RP_TR_RATE ? KSFTM_TRANSFORM_RATE : NULL;
	out->aggregation = p->aggregation == RP_AGG_BCE ? KSFTM_AGG_BCE : NULL;
	out->compare = canon_op_name(p->compare);
	out->better = canon_better_name(p->better);
	out->relative_tolerance = p->rel_tol;
	out->absolute_tolerance = p->abs_tol;
	out->display_min = p->disp_min;
	out->display_max = p->disp_max;
	out->display_scale = p->disp_scale;
	out->display_label = p->disp_label;
	out->abort_reason = series_abort(s);
	out->status_reason = series_reason(s);
	out->repeats = series_joined(s) + 1;
	memcpy((char *)dst + sizeof(size_t), (char *)&full + sizeof(size_t),
	       sz - sizeof(size_t));
	return 0;
}

/*
 * Series @i's values at @stage into @pv (the series queries' shared start):
 * @out (@out_size bytes) zeroed first. 0, or a negative errno with the
 * message set.
 */
static int series_at_stage(const struct ksft_metric_report *r, size_t i, int stage,
			   void *out, size_t out_size, struct rp_vals *pv)
{
	const struct rp_series *s = NULL;
	struct rp_policy scratch;
	struct rp_vals view;
	int ret = get_series(r, i, &s);

	if (ret)
		return ret;
	if (!out || stage < KSFT_METRIC_REPORT_RAW || stage > KSFT_METRIC_REPORT_PROCESSED)
		return ksftm_fail(EINVAL, "bad stage or NULL output");
	memset(out, 0, out_size);
	if (pipeline_apply(series_raw(s, &view), series_policy(s, &scratch), stage, pv))
		return ksftm_oom();
	return 0;
}

/*
 * Series @i's points at @stage into @p, for both public forms (issue 46
 * item 4: they were two near-copies): unpadded, each point's values at
 * its offset (scalars get offsets 0, 1, ...); or @padded, @p->width
 * values a point, NaN past a shorter array, and no offsets. @out is the
 * caller's struct (@out_size bytes), zeroed first.
 */
static int series_points_at(const struct ksft_metric_report *r, size_t i, int stage,
			    void *out, size_t out_size, int padded,
			    struct ksft_metric_report_points *p)
{
	struct rp_vals pv;
	size_t k, j, w;
	int ret = series_at_stage(r, i, stage, out, out_size, &pv);

	if (ret)
		return ret;
	w = pv.off ? pv.width : 1;
	if (padded && pv.off) {
		double *v = malloc((pv.n && w ? pv.n * w : 1) * sizeof(double));

		if (!v)
			goto oom;
		for (k = 0; k < pv.n; k++)
			for (j = 0; j < w; j++)
				v[k * w + j] = vals_at(&pv, k, j);
		free(pv.v);
		free(pv.off);
		pv.v = v;
		pv.off = NULL;
	} else if (!padded && !pv.off) {
		pv.off = malloc((pv.n + 1) * sizeof(size_t));
		if (!pv.off)
			goto oom;
		for (k = 0; k <= pv.n; k++)
			pv.off[k] = k;
	}
	/* The padded form's arrays are never NULL, even for no points. */
	if (padded && !pv.t && !(pv.t = malloc(sizeof(double))))
		goto oom;
	if (padded && !pv.v && !(pv.v = malloc(sizeof(double))))
		goto oom;
	p->n = pv.n;
	p->width = w;
	p->t = pv.t;
	p->v = pv.v;
	p->off = pv.off;
	return 0;
oom:
	vals_free(&pv);
	return ksftm_oom();
}

KSFT_METRIC_REPORT_API int
ksft_metric_report_series_values(const struct ksft_metric_report *r, size_t i,
				 int stage,
				 struct ksft_metric_report_values *out)
{
	struct ksft_metric_report_points p;
	int ret = series_points_at(r, i, stage, out, sizeof(*out), 1, &p);

	if (ret)
		return ret;
	out->n = p.n;
	out->width = p.width;
	out->t = p.t;
	out->v = p.v;
	return 0;
}

KSFT_METRIC_REPORT_API int
ksft_metric_report_series_points(const struct ksft_metric_report *r, size_t i,
				 int stage,
				 struct ksft_metric_report_points *out)
{
	return series_points_at(r, i, stage, out, sizeof(*out), 0, out);
}

KSFT_METRIC_REPORT_API void
ksft_metric_report_points_release(struct ksft_metric_report_points *p)
{
	if (!p)
		return;
	free(p->t);
	free(p->v);
	free(p->off);
	memset(p, 0, sizeof(*p));
}

KSFT_METRIC_REPORT_API void
ksft_metric_report_values_release(struct ksft_metric_report_values *v)
{
	if (!v)
		return;
	free(v->t);
	free(v->v);
	memset(v, 0, sizeof(*v));
}

int report_series_summaries(const struct ksft_metric_report *r, size_t i, struct rp_summary **sums)
{
	const struct rp_series *s = NULL;
	struct rp_policy scratch;
	struct rp_vals pv, view;
	struct rp_cols c;
	size_t w;
	int ret = get_series(r, i, &s);

	if (sums)
		*sums = NULL;
	if (ret)
		return ret;
	if (pipeline_apply(series_raw(s, &view), series_policy(s, &scratch),
			   KSFT_METRIC_REPORT_PROCESSED, &pv))
		return ksftm_oom();
	w = pv.off ? pv.width : 1;
	if (w > 0x7fffffff)
		w = 0x7fffffff;
	if (sums && w) {
		if (pipeline_cols_build(&pv, &c)) {
			vals_free(&pv);
			return ksftm_oom();
		}
		*sums = malloc(w * sizeof(**sums));
		if (*sums)
			pipeline_cols_summarize(&c, *sums);
		pipeline_cols_free(&c);
		if (!*sums) {
			vals_free(&pv);
			return ksftm_oom();
		}
	}
	vals_free(&pv);
	return (int)w;
}

KSFT_METRIC_REPORT_API int
ksft_metric_report_series_summary(const struct ksft_metric_report *r, size_t i,
				  const char *op, double *out, size_t n_out)
{
	const struct rp_series *s;
	struct rp_summary *sums = NULL;
	size_t j;
	int code, w = get_series(r, i, &s);

	if (w)
		return w;
	code = op ? canon_op_parse(op, 0) : RP_OP_NONE;
	if (!code || (!out && n_out))
		return ksftm_fail(EINVAL, "unknown summary \"%s\"", op ? op : "(null)");
	w = report_series_summaries(r, i, n_out ? &sums : NULL);
	for (j = 0; w > 0 && sums && j < (size_t)w && j < n_out; j++)
		out[j] = pipeline_summary_op(&sums[j], code);
	free(sums);
	return w;
}
