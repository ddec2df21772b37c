/*
 * Baseline files: runs of compare-ready samples (each series after its
 * transform and aggregation), with the series identity and policy, so a
 * later comparison can take medians over runs and pool samples for the
 * Mann-Whitney test. Also reads the flat {"udp4_mbps": 13.099} files that
 * zperf_regression.py --save writes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <ksftmetric/report.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "baseline_scan.h"
#include "canon.h"
#include "errmsg.h"
#include "pipeline.h"
#include "report.h"
#include "rp.h"
#include "rp_policy.h"
#include "series.h"
#include "strbuf.h"
#include "strpool.h"
#include "vals.h"

#define FORMAT_NAME "ksft-metric-baseline"
#define FORMAT_VERSION 1

KSFT_METRIC_REPORT_API struct ksft_metric_report_baseline *
ksft_metric_report_baseline_new(void)
{
	struct ksft_metric_report_baseline *b = calloc(1, sizeof(*b));

	if (b && !(b->pool = strpool_new())) {
		free(b);
		b = NULL;
	}
	if (!b) {
		ksftm_oom();
		errno = ENOMEM;
	}
	return b;
}

/* The identity strings stay: they are the baseline's pool's. */
static void bl_series_clear(struct bl_series *s)
{
	rp_policy_free(s->policy);
	if (!s->samples_pooled) {
		free(s->samples.v);
		free(s->samples.off);
	}
}

static void run_clear(struct bl_run *run)
{
	size_t i;

	for (i = 0; i < run->n_sources; i++)
		free(run->sources[i]);
	free(run->sources);
	free(run->context);
	for (i = 0; i < run->n; i++)
		bl_series_clear(&run->series[i]);
	free(run->series);
	memset(run, 0, sizeof(*run));
}

KSFT_METRIC_REPORT_API void
ksft_metric_report_baseline_free(struct ksft_metric_report_baseline *b)
{
	size_t i;

	if (!b)
		return;
	for (i = 0; i < b->n_runs; i++)
		run_clear(&b->runs[i]);
	free(b->runs);
	strpool_free(b->pool);
	free(b);
}

KSFT_METRIC_REPORT_API size_t
ksft_metric_report_baseline_runs(const struct ksft_metric_report_baseline *b)
{
	return b ? b->n_runs : 0;
}

static int reserve_runs(struct ksft_metric_report_baseline *b, size_t more)
{
	size_t cap = b->cap_runs ? b->cap_runs : 4;
	struct bl_run *v;

	while (cap < b->n_runs + more)
		cap *= 2;
	if (cap == b->cap_runs)
		return 0;
	v = realloc(b->runs, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	b->runs = v;
	b->cap_runs = cap;
	return 0;
}

static int push_run(struct ksft_metric_report_baseline *b, struct bl_run *run)
{
	if (reserve_runs(b, 1))
		return -ENOMEM;
	b->runs[b->n_runs++] = *run;
	return 0;
}

static char *pin(struct ksft_metric_report_baseline *b, const char *s)
{
	return (char *)strpool_intern(b->pool, s, strlen(s));
}

static char **dup_strings(char *const *v, size_t n)
{
	char **out = calloc(n ? n : 1, sizeof(char *));
	size_t i;

	if (!out)
		return NULL;
	for (i = 0; i < n; i++) {
		out[i] = strdup(v[i]);
		if (!out[i]) {
			while (i--)
				free(out[i]);
			free(out);
			return NULL;
		}
	}
	return out;
}

KSFT_METRIC_REPORT_API int
ksft_metric_report_baseline_add_report(struct ksft_metric_report_baseline *b,
				       const struct ksft_metric_report *r,
				       const char *const *sources,
				       size_t n_sources)
{
	struct bl_run run;
	size_t i;

	if (!b || !r || (n_sources && !sources))
		return ksftm_fail(EINVAL, "ksft_metric_report_baseline_add_report: NULL argument");
	memset(&run, 0, sizeof(run));
	run.sources = dup_strings((char *const *)sources, n_sources);
	run.series = calloc(r->n_series ? r->n_series : 1, sizeof(*run.series));
	if (!run.sources || !run.series)
		goto oom;
	run.n_sources = n_sources;
	/* How the run was measured: compare refuses to judge across it. */
	if (r->context_json && strcmp(r->context_json, "{}") &&
	    !(run.context = strdup(r->context_json)))
		goto oom;
	for (i = 0; i < r->n_series; i++) {
		const struct rp_series *s = r->series[i];
		struct bl_series *d = &run.series[run.n++];
		struct rp_policy scratch;
		struct rp_vals view, pv;

		d->source = s->source;
		d->is_array = s->is_array;
		d->path_len = series_path_len(s);
		d->path = strpool_path(b->pool, series_path(s), series_path_len(s),
				      run.n > 1 ? d[-1].path : NULL,
				      run.n > 1 ? d[-1].path_len : 0);
		d->case_name = pin(b, series_case_name(s));
		d->name = pin(b, series_name(s));
		d->labels = pin(b, series_labels(s));
		d->shape = pin(b, series_shape(s));
		if (!d->path || !d->case_name || !d->name || !d->labels ||
		    !d->shape)
			goto oom;
		if (series_own_policy(s) && !(d->policy = rp_policy_dup(series_own_policy(s))))
			goto oom;
		if (pipeline_apply(series_raw(s, &view), series_policy(s, &scratch),
				   KSFT_METRIC_REPORT_PROCESSED, &pv))
			goto oom;
		bl_take_vals(d, &pv);
	}
	if (push_run(b, &run))
		goto oom;
	return (int)b->n_runs;
oom:
	run_clear(&run);
	return ksftm_oom();
}

/* ---- writing -------------------------------------------------------- */

static void emit_samples(struct strbuf *sb, const struct rp_vals *pv)
{
	size_t i, j;

	strbuf_addc(sb, '[');
	for (i = 0; i < pv->n; i++) {
		if (i)
			strbuf_addc(sb, ',');
		if (!pv->off) {
			canon_json_double(sb, pv->v[i]);
			continue;
		}
		strbuf_addc(sb, '[');
		for (j = 0; j < vals_len(pv, i); j++) {
			if (j)
				strbuf_addc(sb, ',');
			canon_json_double(sb, vals_at(pv, i, j));
		}
		strbuf_addc(sb, ']');
	}
	strbuf_addc(sb, ']');
}

KSFT_METRIC_REPORT_API int
ksft_metric_report_baseline_format(const struct ksft_metric_report_baseline *b,
				   char **out, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	struct rp_vals pv;
	size_t i, j, k;

	if (!b || !out)
		return ksftm_fail(EINVAL, "ksft_metric_report_baseline_format: NULL argument");
	strbuf_adds(&sb, "{\"format\":\"" FORMAT_NAME "\",\"version\":1,\"runs\":[");
	for (i = 0; i < b->n_runs; i++) {
		const struct bl_run *run = &b->runs[i];

		strbuf_adds(&sb, i ? ",\n{\"sources\":[" : "\n{\"sources\":[");
		for (k = 0; k < run->n_sources; k++) {
			if (k)
				strbuf_addc(&sb, ',');
			canon_json_str(&sb, run->sources[k]);
		}
		if (run->context) {
			strbuf_adds(&sb, "],\"context\":");
			strbuf_adds(&sb, run->context);
			strbuf_adds(&sb, ",\"series\":[");
		} else {
			strbuf_adds(&sb, "],\"series\":[");
		}
		for (j = 0; j < run->n; j++) {
			const struct bl_series *s = &run->series[j];

			strbuf_adds(&sb, j ? ",\n {" : "\n {");
			canon_emit_identity(&sb, s->path, s->path_len, s->case_name,
					       s->name, s->labels);
			strbuf_adds(&sb, ",\"shape\":");
			canon_json_str(&sb, s->shape);
			strbuf_adds(&sb, ",\"source\":\"");
			strbuf_adds(&sb, canon_source_name(s->source));
			strbuf_adds(&sb, "\",\"policy\":");
			strbuf_adds(&sb, s->policy ? s->policy->json : "null");
			strbuf_adds(&sb, ",\"samples\":");
			pv = bl_vals(s);
			emit_samples(&sb, &pv);
			strbuf_addc(&sb, '}');
		}
		strbuf_adds(&sb, "]}");
	}
	strbuf_adds(&sb, "]}\n");
	*out = strbuf_detach(&sb, len);
	if (!*out)
		return ksftm_oom();
	return 0;
}

/* ---- reading -------------------------------------------------------- */

static int bad(const char *name, const char *what)
{
	return ksftm_fail(EINVAL, "%s: not a baseline file: %s", name, what);
}

/* @arr into s->samples: 0, -EINVAL (not numbers/nulls or arrays of them
 * throughout) or -ENOMEM; no message. */
static int load_samples_into(json_t *arr, struct bl_series *s, struct rp_vals *pv)
{
	size_t i, j, nv = 0;
	json_t *p, *x;

	memset(pv, 0, sizeof(*pv));
	pv->n = json_array_size(arr);
	pv->width = s->is_array ? 0 : 1;
	json_array_foreach(arr, i, p) {
		if (s->is_array != json_is_array(p))
			return -EINVAL;
		nv += s->is_array ? json_array_size(p) : 1;
	}
	pv->v = malloc((nv ? nv : 1) * sizeof(double));
	pv->t = malloc((pv->n ? pv->n : 1) * sizeof(double));
	if (s->is_array)
		pv->off = malloc((pv->n + 1) * sizeof(size_t));
	if (!pv->v || !pv->t || (s->is_array && !pv->off))
		return -ENOMEM;
	nv = 0;
	json_array_foreach(arr, i, p) {
		pv->t[i] = NAN;
		if (!s->is_array) {
			if (!json_is_number(p) && !json_is_null(p))
				return -EINVAL;
			pv->v[nv++] = json_is_number(p) ? json_number_value(p) : NAN;
			continue;
		}
		pv->off[i] = nv;
		if (json_array_size(p) > pv->width)
			pv->width = json_array_size(p);
		json_array_foreach(p, j, x) {
			if (!json_is_number(x) && !json_is_null(x))
				return -EINVAL;
			pv->v[nv++] = json_is_number(x) ? json_number_value(x) : NAN;
		}
	}
	if (s->is_array)
		pv->off[pv->n] = nv;
	return 0;
}

/* load_samples_into() and its points kept (or freed with @s). */
static int load_samples(json_t *arr, struct bl_series *s)
{
	struct rp_vals pv;
	int ret = load_samples_into(arr, s, &pv);

	bl_take_vals(s, &pv);
	return ret;
}

static int load_series(struct ksft_metric_report_baseline *b, json_t *o,
		       struct bl_series *s, const char *name, size_t run_i,
		       size_t i)
{
	json_t *path = json_object_get(o, "path"), *labels = json_object_get(o, "labels");
	json_t *pol = json_object_get(o, "policy"), *samples = json_object_get(o, "samples");
	const char *c = json_string_value(json_object_get(o, "case"));
	const char *n = json_string_value(json_object_get(o, "name"));
	const char *shape = json_string_value(json_object_get(o, "shape"));
	const char *src = json_string_value(json_object_get(o, "source"));
	struct strbuf sb = STRBUF_INIT;
	char **tmp;
	json_t *p;
	size_t k;
	char where[64];
	int ret;

	snprintf(where, sizeof(where), "runs[%zu].series[%zu]", run_i, i);
	if (!json_is_object(o) || !c || !n || !json_is_array(path) ||
	    !json_is_object(labels) || !json_is_array(samples))
		return ksftm_fail(EINVAL, "%s: %s: needs case, path, name, labels and samples",
				  name, where);
	s->source = canon_source_parse(src);
	tmp = calloc(json_array_size(path) + 1, sizeof(char *));
	if (!tmp)
		return ksftm_oom();
	json_array_foreach(path, k, p) {
		if (!json_is_string(p)) {
			free(tmp);
			return ksftm_fail(EINVAL, "%s: %s: path entries must be strings",
					  name, where);
		}
		tmp[k] = (char *)json_string_value(p);
	}
	s->path = strpool_path(b->pool, tmp, json_array_size(path),
			      i ? s[-1].path : NULL, i ? s[-1].path_len : 0);
	free(tmp);
	if (!s->path)
		return ksftm_oom();
	s->path_len = json_array_size(path);
	s->case_name = pin(b, c);
	s->name = pin(b, n);
	canon_json_emit(&sb, labels);
	s->labels = sb.data && !sb.oom ? pin(b, sb.data) : NULL;
	strbuf_free(&sb);
	s->is_array = json_array_size(samples) && json_is_array(json_array_get(samples, 0));
	s->shape = pin(b, shape ? shape : s->is_array ? "array" : "scalar");
	if (!s->case_name || !s->name || !s->labels || !s->shape)
		return ksftm_oom();
	if (pol && !json_is_null(pol)) {
		char why[KSFTM_ERRMSG_SIZE], *unknown = NULL;

		if (!(s->policy = calloc(1, sizeof(*s->policy))))
			return ksftm_oom();
		ret = json_is_object(pol) ? rp_policy_from_json(pol, s->policy, &unknown) :
		      -EINVAL;

		if (ret == -ENOMEM)
			return ret;	/* its message said so */
		if (ret) {
			/* The reason is rp_policy_from_json()'s message. */
			snprintf(why, sizeof(why), "%s", json_is_object(pol) ?
				 ksftm_errmsg() : "not an object");
			return ksftm_fail(EINVAL, "%s: %s: bad policy: %s", name, where, why);
		}
		free(unknown);
	}
	ret = load_samples(samples, s);
	if (ret == -ENOMEM)
		return ksftm_oom();
	if (ret)
		return ksftm_fail(EINVAL, "%s: %s: samples must be numbers/nulls, or arrays of them, throughout",
				  name, where);
	return 0;
}

/* zperf_regression.py --save: {"udp4_mbps": 13.099, ...} */
static int load_flat(struct ksft_metric_report_baseline *b, json_t *j,
		     struct bl_run *run, const char *name)
{
	const char *k;
	json_t *v;

	run->series = calloc(json_object_size(j) + 1, sizeof(*run->series));
	if (!run->series)
		return ksftm_oom();
	json_object_foreach(j, k, v) {
		struct bl_series *s = &run->series[run->n++];

		if (!json_is_number(v))
			return bad(name, "values of a flat baseline must be numbers");
		s->source = RP_SRC_ZPERF;
		s->path = strpool_path(b->pool, NULL, 0, NULL, 0);
		s->case_name = pin(b, "zperf");
		s->name = pin(b, k);
		s->labels = pin(b, "{}");
		s->shape = pin(b, "scalar");
		s->samples.n = 1;
		s->samples.width = 1;
		s->samples.v = malloc(sizeof(double));
		if (!s->path || !s->case_name || !s->name || !s->labels ||
		    !s->shape || !s->samples.v)
			return ksftm_oom();
		s->samples.v[0] = json_number_value(v);
	}
	run->sources = calloc(1, sizeof(char *));
	if (!run->sources || !(run->sources[0] = strdup(name)))
		return ksftm_oom();
	run->n_sources = 1;
	return 0;
}

static int load_run(struct ksft_metric_report_baseline *b, json_t *r,
		    struct bl_run *run, const char *name, size_t ri)
{
	json_t *sources = json_object_get(r, "sources"), *series, *x;
	size_t i;
	int ret;

	series = json_object_get(r, "series");
	if (!json_is_object(r) || !json_is_array(series))
		return ksftm_fail(EINVAL, "%s: runs[%zu]: needs a \"series\" array",
				  name, ri);
	run->n_sources = json_array_size(sources);
	run->sources = calloc(run->n_sources ? run->n_sources : 1, sizeof(char *));
	run->series = calloc(json_array_size(series) + 1, sizeof(*run->series));
	if (!run->sources || !run->series)
		return ksftm_oom();
	json_array_foreach(sources, i, x)
		if (!(run->sources[i] = strdup(json_is_string(x) ? json_string_value(x) : "?")))
			return ksftm_oom();
	x = json_object_get(r, "context");
	if (x && !json_is_object(x))
		return ksftm_fail(EINVAL, "%s: runs[%zu]: \"context\" must be an object",
				  name, ri);
	if (x && json_object_size(x) &&
	    !(run->context = json_dumps(x, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII)))
		return ksftm_oom();
	json_array_foreach(series, i, x) {
		ret = load_series(b, x, &run->series[run->n++], name, ri, i);
		if (ret)
			return ret;
	}
	return 0;
}

/* @runs[0..n) join @b's when @ok, else are cleared; frees @runs. -ENOMEM. */
static int take_runs(struct ksft_metric_report_baseline *b, struct bl_run *runs,
		     size_t n, int ok)
{
	size_t i;
	int ret = 0;

	if (ok && reserve_runs(b, n)) {
		ret = -ENOMEM;
		ok = 0;
	}
	if (ok) {
		for (i = 0; i < n; i++)
			b->runs[b->n_runs++] = runs[i];
		n = 0;		/* moved */
	}
	for (i = 0; i < n; i++)
		run_clear(&runs[i]);
	free(runs);
	return ret;
}

/*
 * A series the scanner left to jansson: its object's text. 0, or
 * load_series()'s error (-ENOENT when the text is not JSON: the scanner
 * took a wrong turn).
 */
static int scan_fallback(struct ksft_metric_report_baseline *b,
			 struct bl_series *s, const char *span, size_t len,
			 const char *name, size_t ri, size_t i)
{
	json_t *o;
	int ret;

	bl_series_clear(s);
	memset(s, 0, sizeof(*s));
	o = json_loadb(span, len, JSON_REJECT_DUPLICATES, NULL);
	if (!o)
		return -ENOENT;
	ret = load_series(b, o, s, name, ri, i);
	json_decref(o);
	return ret;
}

/*
 * The runs of a file as `save` writes it, in one pass (baseline_scan.c):
 * 0, or a negative errno (-ENOENT: the file is anything else or broken)
 * after which the jansson path reads the file again and says what is
 * wrong with it.
 */
static int load_scanned(struct ksft_metric_report_baseline *b,
			const char *json, size_t len, const char *name)
{
	struct bl_run *runs = NULL;
	size_t n = 0, cap = 0, i, cap_s;
	struct bl_scan sc;
	int ret = -ENOENT, r;

	if ((r = baseline_scan_begin(&sc, json, len, b->pool)))
		return r;
	for (;;) {
		struct bl_run *run;

		if (n == cap) {
			size_t c = cap ? cap * 2 : 4;
			struct bl_run *v = realloc(runs, c * sizeof(*v));

			if (!v) {
				ret = -ENOMEM;
				goto out;
			}
			runs = v;
			cap = c;
		}
		run = &runs[n];
		memset(run, 0, sizeof(*run));
		n++;
		r = baseline_scan_run(&sc, run, n - 1);
		if (r <= 0) {
			run_clear(run);
			n--;
			ret = r;	/* 0: the file's end */
			goto out;
		}
		cap_s = 0;
		for (i = 0;; i++) {
			const char *span;
			size_t span_len;

			if (run->n == cap_s) {
				size_t c = cap_s ? cap_s * 2 : 64;
				struct bl_series *v = realloc(run->series, c * sizeof(*v));

				if (!v) {
					ret = -ENOMEM;
					goto out;
				}
				run->series = v;
				cap_s = c;
			}
			r = baseline_scan_series(&sc, &run->series[run->n], i, &span, &span_len);
			if (r == 0)
				break;
			run->n++;	/* zeroed or filled: cleared with the run */
			if (r == 2)
				r = scan_fallback(b, &run->series[run->n - 1], span, span_len,
						  name, n - 1, i);
			if (r < 0) {
				ret = r;
				goto out;
			}
		}
		/* Give back the doubling's slack: memory ~ the series kept. */
		if (run->n && run->n < cap_s) {
			struct bl_series *v = realloc(run->series, run->n * sizeof(*v));

			if (v)
				run->series = v;
		}
	}
out:
	if (take_runs(b, runs, n, !ret))
		ret = -ENOMEM;
	return ret;
}

KSFT_METRIC_REPORT_API int
ksft_metric_report_baseline_load(struct ksft_metric_report_baseline *b,
				 const void *json, size_t len,
				 const char *name)
{
	struct bl_run *runs = NULL;
	size_t n = 0, i;
	json_error_t err;
	json_t *j, *fmt, *ver, *arr, *x;
	int ret = 0;

	if (!b || (!json && len))
		return ksftm_fail(EINVAL, "ksft_metric_report_baseline_load: NULL argument");
	name = name ? name : "baseline";
	/* On any error of the scan, jansson reads the file again and words it. */
	if (json && !load_scanned(b, json, len, name))
		return (int)b->n_runs;
	j = json_loadb(json ? json : "", len, JSON_REJECT_DUPLICATES, &err);
	if (!j)
		return ksftm_fail(EINVAL, "%s:%d: malformed JSON: %s", name, err.line,
				  err.text);
	if (!json_is_object(j)) {
		ret = bad(name, "not a JSON object");
		goto out;
	}
	fmt = json_object_get(j, "format");
	if (!fmt) {
		runs = calloc(1, sizeof(*runs));
		if (!runs) {
			ret = ksftm_oom();
			goto out;
		}
		n = 1;
		ret = load_flat(b, j, &runs[0], name);
		goto out;
	}
	ver = json_object_get(j, "version");
	arr = json_object_get(j, "runs");
	if (!json_is_string(fmt) || strcmp(json_string_value(fmt), FORMAT_NAME)) {
		ret = bad(name, "\"format\" is not \"" FORMAT_NAME "\"");
		goto out;
	}
	if (!json_is_integer(ver) || json_integer_value(ver) != FORMAT_VERSION) {
		ret = ksftm_fail(EINVAL, "%s: baseline version %s is not supported (want %d)",
				 name, json_is_integer(ver) ? "other than 1" : "missing",
				 FORMAT_VERSION);
		goto out;
	}
	if (!json_is_array(arr)) {
		ret = bad(name, "no \"runs\" array");
		goto out;
	}
	runs = calloc(json_array_size(arr) + 1, sizeof(*runs));
	if (!runs) {
		ret = ksftm_oom();
		goto out;
	}
	json_array_foreach(arr, i, x) {
		n++;
		ret = load_run(b, x, &runs[i], name, i);
		if (ret)
			goto out;
	}
out:
	json_decref(j);
	if (take_runs(b, runs, n, !ret))
		ret = ksftm_oom();
	return ret ? ret : (int)b->n_runs;
}
