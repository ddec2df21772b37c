/*
 * Series storage: points appended as they are read (times, values and,
 * for arrays, offsets; nothing else is kept per point), a chained hash
 * table, and the join of series that several inputs share.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "canon.h"
#include "grow.h"
#include "json_text.h"
#include "report.h"
#include "rp.h"
#include "rp_policy.h"
#include "series.h"
#include "strbuf.h"
#include "vals.h"
#include "warn.h"

void series_free(struct rp_series *s)
{
	if (!s)
		return;
	if (s->form == RP_FORM_MANY) {	/* identity: the report's pool */
		vals_free(&s->pts.many->raw);
		rp_policy_free(s->pts.many->policy);
		free(s->pts.many);
	}
	if (!s->pooled)
		free(s);
}

/* @s's points in a block of their own (the first point in place moved
 * there): the block, or NULL (out of memory). */
static struct rp_points *points_block(struct rp_series *s)
{
	struct rp_points *b;

	if (s->form == RP_FORM_MANY)
		return s->pts.many;
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	if (s->form == RP_FORM_ONE) {
		b->raw.t = malloc(2 * sizeof(double));
		b->raw.v = malloc(2 * sizeof(double));
		if (!b->raw.t || !b->raw.v) {
			vals_free(&b->raw);
			free(b);
			return NULL;
		}
		b->raw.t[0] = s->pts.one.t;
		b->raw.v[0] = s->pts.one.v;
		b->raw.n = b->raw.width = 1;
		b->cap_pts = b->cap_v = 2;
	}
	s->pts.many = b;
	s->form = RP_FORM_MANY;
	return b;
}

int series_take_policy(struct rp_series *s, struct rp_policy *p)
{
	struct rp_points *b = points_block(s);

	if (!b)
		return -ENOMEM;
	b->policy = p;
	return 0;
}

int series_add_point(struct rp_series *s, double t, const double *v,
		     size_t n, int is_array)
{
	struct rp_points *b;
	struct rp_vals *r;
	size_t old_cap, nv;

	/* From one point up: most series of a whole kselftest run hold one,
	 * in the struct itself. */
	if (!is_array && s->form == RP_FORM_NONE) {
		s->pts.one.t = t;
		s->pts.one.v = v[0];
		s->form = RP_FORM_ONE;
		return 0;
	}
	b = points_block(s);
	if (!b)
		return -ENOMEM;
	r = &b->raw;
	old_cap = b->cap_pts;
	nv = is_array ? (r->n ? r->off[r->n] : 0) + n : r->n + 1;
	if (ksftm_grow((void **)&r->t, &b->cap_pts, r->n + 1, sizeof(double), 1))
		return -ENOMEM;
	if (is_array && (b->cap_pts != old_cap || !r->off)) {
		size_t *off = realloc(r->off, (b->cap_pts + 1) * sizeof(size_t));

		if (!off)
			return -ENOMEM;
		if (!r->off)
			off[0] = 0;
		r->off = off;
	}
	if (ksftm_grow((void **)&r->v, &b->cap_v, nv ? nv : 1, sizeof(double), 1))
		return -ENOMEM;
	r->t[r->n] = t;
	if (is_array) {
		if (n)	/* an empty array may come with v == NULL */
			memcpy(r->v + r->off[r->n], v, n * sizeof(double));
		r->off[r->n + 1] = nv;
		if (n > r->width)
			r->width = n;
	} else {
		r->v[r->n] = v[0];
		r->width = 1;
	}
	r->n++;
	return 0;
}

int series_append(struct rp_series *dst, const struct rp_series *src)
{
	struct rp_vals view;
	const struct rp_vals *r = series_raw(src, &view);
	size_t i;
	int ret;

	for (i = 0; i < r->n; i++) {
		if (r->off)
			ret = series_add_point(dst, r->t[i], r->v + r->off[i],
					       r->off[i + 1] - r->off[i], 1);
		else
			ret = series_add_point(dst, r->t[i], r->v + i, 1, 0);
		if (ret)
			return ret;
	}
	return 0;
}

const struct rp_policy *series_policy(const struct rp_series *s,
				      struct rp_policy *scratch)
{
	if (series_own_policy(s))
		return series_own_policy(s);
	memset(scratch, 0, sizeof(*scratch));
	scratch->summarize = RP_OP_DISTRIBUTION;
	scratch->better = s->source == RP_SRC_KTAP ? 0 : 1;
	scratch->rel_tol = scratch->abs_tol = NAN;
	scratch->disp_min = scratch->disp_max = scratch->disp_scale = NAN;
	return scratch;
}


/* Length of @s when JSON spells it as it is (no escapes), else 0. */
static size_t plain_len(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (json_text_plain[*p])
		p++;
	return *p ? 0 : (size_t)(p - (const unsigned char *)s) + 1;	/* never 0 */
}

static char *put_quoted(char *o, const char *s, size_t n)
{
	*o++ = '"';
	memcpy(o, s, n);
	o += n;
	*o++ = '"';
	return o;
}

/* The key of plain identity strings in one exact allocation (by @alloc
 * from @ctx when not NULL, else malloc), else NULL. */
static char *make_key_plain(series_key_alloc alloc, void *ctx, char *const *path,
			    size_t path_len,
			    const char *case_name, const char *name,
			    const char *labels, int *other)
{
	size_t lp[RP_MAX_DEPTH], lc, ln, ll = strlen(labels), total, i;
	char *key, *o;

	*other = 1;
	if (path_len > RP_MAX_DEPTH || !(lc = plain_len(case_name)) ||
	    !(ln = plain_len(name)))
		return NULL;
	/* plain_len() counts one more: "case", "name", 3 separators, NUL */
	total = (lc + 1) + (ln + 1) + 3 + ll + 1;
	for (i = 0; i < path_len; i++) {
		if (!(lp[i] = plain_len(path[i])))
			return NULL;
		total += lp[i] + 2;	/* "entry"/ */
	}
	*other = 0;
	key = alloc ? alloc(ctx, total) : malloc(total);
	if (!key)
		return NULL;
	o = key;
	for (i = 0; i < path_len; i++) {
		o = put_quoted(o, path[i], lp[i] - 1);
		*o++ = '/';
	}
	*o++ = '\x1f';
	o = put_quoted(o, case_name, lc - 1);
	*o++ = '\x1f';
	o = put_quoted(o, name, ln - 1);
	*o++ = '\x1f';
	memcpy(o, labels, ll + 1);
	return key;
}

char *series_make_key(char *const *path, size_t path_len, const char *case_name,
		      const char *name, const char *labels)
{
	struct strbuf sb = STRBUF_INIT;
	char *key, *shrunk;
	size_t i, len;
	int other;

	key = make_key_plain(NULL, NULL, path, path_len, case_name, name, labels, &other);
	if (!other)
		return key;
	for (i = 0; i < path_len; i++) {
		json_add_string(&sb, path[i], strlen(path[i]));
		strbuf_addc(&sb, '/');
	}
	strbuf_addc(&sb, '\x1f');
	json_add_string(&sb, case_name, strlen(case_name));
	strbuf_addc(&sb, '\x1f');
	json_add_string(&sb, name, strlen(name));
	strbuf_addc(&sb, '\x1f');
	strbuf_adds(&sb, labels);
	key = strbuf_detach(&sb, &len);
	/* json_add_string() reserves 6 bytes a character: keep only the key. */
	if (key && (shrunk = realloc(key, len + 1)))
		key = shrunk;
	return key;
}

char *series_make_key_in(series_key_alloc alloc, void *ctx, char *const *path,
			 size_t path_len, const char *case_name, const char *name,
			 const char *labels)
{
	int other;
	char *key = make_key_plain(alloc, ctx, path, path_len, case_name, name, labels, &other);
	char *d;
	size_t n;

	if (key || !other)
		return key;
	key = series_make_key(path, path_len, case_name, name, labels);
	if (!key)
		return NULL;
	n = strlen(key) + 1;
	d = alloc(ctx, n);
	if (d)
		memcpy(d, key, n);
	free(key);
	return d;
}

/* series_make_key_in()'s allocator into a strbuf: the key is its text. */
static void *into_strbuf(void *ctx, size_t n)
{
	struct strbuf *sb = ctx;

	sb->len = 0;
	if (strbuf_reserve(sb, n))
		return NULL;
	sb->len = n - 1;	/* the key writes its own NUL */
	return sb->data;
}

const char *series_key_into(struct strbuf *sb, char *const *path, size_t path_len,
			    const char *case_name, const char *name, const char *labels)
{
	return series_make_key_in(into_strbuf, sb, path, path_len, case_name, name, labels);
}

const char *series_key_text(const struct rp_series *s, struct strbuf *sb)
{
	return series_key_into(sb, series_path(s), series_path_len(s), series_case_name(s),
			       series_name(s), series_labels(s));
}

int series_same_identity(char *const *pa, size_t na, const char *ca, const char *ma,
			 const char *la, char *const *pb, size_t nb, const char *cb,
			 const char *mb, const char *lb)
{
	size_t i;

	if (na != nb || strcmp(ca, cb) || strcmp(ma, mb) || strcmp(la, lb))
		return 0;
	for (i = 0; i < na; i++)
		if (pa[i] != pb[i] && strcmp(pa[i], pb[i]))
			return 0;
	return 1;
}

static int same_identity(const struct rp_series *a, const struct rp_series *b)
{
	if (a->kase == b->kase && a->metric == b->metric)
		return 1;
	return series_same_identity(series_path(a), series_path_len(a), series_case_name(a),
				    series_name(a), series_labels(a), series_path(b),
				    series_path_len(b), series_case_name(b), series_name(b),
				    series_labels(b));
}

static void describe(struct strbuf *sb, const struct rp_series *s)
{
	canon_series_title(sb, series_path(s), series_path_len(s), series_case_name(s),
			   series_name(s), series_labels(s), -1);
}

/* Give back the slack of the doubling growth: memory ~ the points kept. */
static void trim(struct rp_series *s)
{
	struct rp_points *b = s->form == RP_FORM_MANY ? s->pts.many : NULL;
	struct rp_vals *r = b ? &b->raw : NULL;
	size_t nv;
	void *p;

	if (!r || !r->n)
		return;
	nv = r->off ? r->off[r->n] : r->n;
	if (b->cap_pts > r->n && (p = realloc(r->t, r->n * sizeof(double)))) {
		r->t = p;
		b->cap_pts = r->n;
		if (r->off && (p = realloc(r->off, (r->n + 1) * sizeof(size_t))))
			r->off = p;
	}
	if (nv && b->cap_v > nv && (p = realloc(r->v, nv * sizeof(double)))) {
		r->v = p;
		b->cap_v = nv;
	}
}

/* How bad a case status is: failures first, then the statuses that are
 * no measurement, then a pass, then a skip (no points), then none. */
static int status_rank(int st)
{
	switch (st) {
	case RP_ST_FAIL: return 9;
	case RP_ST_ERROR: return 8;
	case RP_ST_TIMEOUT: return 7;
	case RP_ST_INCOMPLETE: return 6;
	case RP_ST_XPASS: return 5;
	case RP_ST_XFAIL: return 4;
	case RP_ST_TODO: return 3;
	case RP_ST_PASS: return 2;
	case RP_ST_SKIP: return 1;
	default: return 0;
	}
}

int series_adopt_reserve(struct ksft_metric_report *r, size_t n, struct rp_series **list,
			 size_t cap)
{
	size_t need = r->n_series + n;
	struct rp_series **v;

	if (need < n || need > UINT32_MAX - 2)
		return -ENOMEM;
	if (list && !r->n_series && cap >= n) {
		free(r->series);
		r->series = list;
		r->cap_series = cap;
	} else if (need > r->cap_series) {
		v = realloc(r->series, (need ? need : 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		r->series = v;
		r->cap_series = need;
	}
	return series_htab_reserve(&r->final_tab, need, r->series);
}

/*
 * @s's key in r->key_buf (its text, or NULL: out of memory). The series
 * of a case come one after another: the key of the one before ends in
 * the same path and case, "name"\x1flabels after them.
 */
static const char *adopt_key(struct ksft_metric_report *r, const struct rp_series *s)
{
	struct strbuf *sb = &r->key_buf;
	const char *name = series_name(s), *labels = series_labels(s), *sep;
	size_t ln, ll;
	char *o;

	if (s->kase == r->key_case && (ln = plain_len(name))) {
		ll = strlen(labels);
		sb->len = r->key_prefix;
		if (strbuf_reserve(sb, ln + 1 + 1 + ll + 1))
			return NULL;
		o = put_quoted(sb->data + sb->len, name, ln - 1);
		*o++ = '\x1f';
		memcpy(o, labels, ll + 1);
		sb->len = (size_t)(o - sb->data) + ll;
		return sb->data;
	}
	r->key_case = NULL;
	if (!series_key_text(s, sb))
		return NULL;
	/* After the second separator: path \x1f case \x1f (no raw \x1f in
	 * either: a JSON string escapes it). */
	sep = memchr(sb->data, '\x1f', sb->len);
	sep = sep ? memchr(sep + 1, '\x1f', sb->len - (size_t)(sep + 1 - sb->data)) : NULL;
	if (sep) {
		r->key_case = s->kase;
		r->key_prefix = (size_t)(sep + 1 - sb->data);
	}
	return sb->data;
}

int series_adopt(struct ksft_metric_report *r, struct rp_series *s)
{
	const struct rp_htab *t = &r->final_tab;
	struct rp_series *e = NULL;
	const struct rp_case_src *src;
	const struct rp_case *k;
	struct rp_policy *sp, *ep;
	uint8_t tag;
	size_t j;

	if (!adopt_key(r, s))
		goto oom;
	s->hash = series_key_hash(r->key_buf.data, r->key_buf.len);
	tag = series_htab_tag(s->hash);
	for (j = series_htab_home(t, s->hash); t->pos[j]; j = series_htab_next(t, j)) {
		e = r->series[t->pos[j] - 1];
		if (t->tag[j] == tag && e->hash == s->hash && same_identity(e, s))
			break;
		e = NULL;
	}
	if (!e) {
		if (r->n_series == r->cap_series &&
		    ksftm_grow((void **)&r->series, &r->cap_series, r->n_series + 1,
			       sizeof(*r->series), 64))
			goto oom;
		r->series[r->n_series] = s;
		if (series_htab_insert(&r->final_tab, r->series, r->n_series))
			goto oom;
		trim(s);
		r->n_series++;
		return 0;
	}
	/* The same series seen again (another input, or a repeated case). */
	if (e->is_array != s->is_array || strcmp(series_shape(e), series_shape(s))) {
		struct strbuf sb = STRBUF_INIT;

		describe(&sb, s);
		warn_add(r, series_file(s), series_first_line(s),
			 "series %s: shape \"%s\" differs from \"%s\" seen before; its %zu points are dropped",
			 sb.data ? sb.data : series_name(s), series_shape(s), series_shape(e),
			 series_n_points(s));
		strbuf_free(&sb);
		series_free(s);
		return 0;
	}
	sp = series_own_policy(s);
	ep = series_own_policy(e);
	if (sp && !ep) {
		if (series_take_policy(e, sp))
			goto oom;
		s->pts.many->policy = NULL;
	} else if (sp && !rp_policy_equal(ep, sp)) {
		warn_add(r, sp->file, sp->line,
			 "conflicting policy for metric %s in case %s: keeping the one from %s:%lu",
			 series_name(s), series_case_name(s), ep->file, ep->line);
	}
	/* Repeats of one case (several inputs, or one log's repeated result
	 * lines) have one status whatever their order: the worst. A failed
	 * repeat's points never make a passing measurement. */
	if (status_rank(s->status) > status_rank(e->status)) {
		if (series_abort(e) != series_abort(s) || series_reason(e) != series_reason(s)) {
			/* e's own copy: its siblings keep theirs */
			src = series_case_src(r->pool, series_file(e), series_abort(s),
					      series_reason(s));
			k = src ? series_case_with_src(r->pool, e->kase, src) : NULL;
			if (!k)
				goto oom;
			e->kase = k;
		}
		e->status = s->status;
	}
	if (!points_block(e))
		goto oom;
	/* its repeats: each restarts its times */
	e->pts.many->joined += 1 + series_joined(s);
	if (series_append(e, s))
		goto oom;
	trim(e);
	series_free(s);
	return 0;
oom:
	series_free(s);
	return -ENOMEM;
}
