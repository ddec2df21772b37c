/*
 * The baseline files that `save` writes, read in one pass over the text
 * without building a jansson document (issue 25: a 200,000-case baseline
 * took 3x the time and memory of reading its log). The scanner knows the
 * layout baseline.c writes; a series it cannot decode exactly the way
 * jansson would (escapes, unsorted labels, unknown keys, a policy it
 * cannot take) is handed back as its text for baseline.c to decode with
 * jansson, and anything else unexpected ends the scan (baseline.c then
 * reads the whole file with jansson, errors and all).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "baseline_scan.h"
#include "canon.h"
#include "json_text.h"
#include "number.h"
#include "rp.h"
#include "rp_policy.h"
#include "series.h"
#include "strpool.h"
#include "vals.h"

static void ws(struct bl_scan *sc)
{
	while (sc->p < sc->end && (*sc->p == ' ' || *sc->p == '\n' ||
				   *sc->p == '\t' || *sc->p == '\r'))
		sc->p++;
}

static int lit_n(struct bl_scan *sc, const char *s, size_t n)
{
	ws(sc);
	if ((size_t)(sc->end - sc->p) < n || memcmp(sc->p, s, n))
		return 0;
	sc->p += n;
	return 1;
}

/* One character after blanks: most literals of a baseline, so no memcmp. */
static inline int lit_c(struct bl_scan *sc, char c)
{
	if (sc->p < sc->end && *sc->p == c) {	/* save writes no blank before most */
		sc->p++;
		return 1;
	}
	ws(sc);
	if (sc->p >= sc->end || *sc->p != c)
		return 0;
	sc->p++;
	return 1;
}

/* A literal: its length known at compile time. */
#define lit(sc, s) (sizeof(s) == 2 ? lit_c((sc), (s)[0]) : lit_n((sc), (s), sizeof(s) - 1))


/*
 * A string of printable ASCII without escapes (its text is its value):
 * [*s, *s + *n). Anything else is left to jansson.
 */
static int plain_str(struct bl_scan *sc, const char **s, size_t *n)
{
	const char *p;

	ws(sc);
	if (sc->p >= sc->end || *sc->p != '"')
		return 0;
	for (p = sc->p + 1; p < sc->end && json_text_plain[(unsigned char)*p]; p++)
		;
	if (p >= sc->end || *p != '"')
		return 0;
	*s = sc->p + 1;
	*n = (size_t)(p - *s);
	sc->p = p + 1;
	return 1;
}

static char *plain_dup(struct bl_scan *sc, int *oom)
{
	const char *s;
	size_t n;
	char *d;

	if (!plain_str(sc, &s, &n))
		return NULL;
	d = strndup(s, n);
	if (!d)
		*oom = 1;
	return d;
}

/* [@s, @s + @n) interned, through the field's last string @last; a case
 * name only copied (mostly unique: strpool_copy()). */
static const char *pin(struct bl_scan *sc, struct bl_pinned *last, const char *s, size_t n,
		       int *oom)
{
	const char *d;

	if (last->s && last->n == n && !memcmp(last->s, s, n))
		return last->s;
	if (last->s2 && last->n2 == n && !memcmp(last->s2, s, n)) {
		d = last->s2;	/* the one before: now the last */
	} else {
		d = last == &sc->last[BL_PIN_CASE] ? strpool_copy(sc->pool, s, n) :
		    strpool_intern(sc->pool, s, n);
		if (!d) {
			*oom = 1;
			return NULL;
		}
	}
	last->s2 = last->s;
	last->n2 = last->n;
	last->s = d;
	last->n = n;
	return d;
}

/*
 * The text at the scan is @q[0..n) again (a string pinned before: its
 * text was taken as plain, so these bytes are too), then @close: past
 * it, 1; else 0, the scan where it was. One compare for what repeats
 * (issue 45: a test's path, a case's name, the shape, the labels).
 */
static int same_again(struct bl_scan *sc, char open, const char *q, size_t n, char close)
{
	const char *p = sc->p;

	if (!q || (size_t)(sc->end - p) < n + 2 || p[0] != open || p[n + 1] != close ||
	    memcmp(p + 1, q, n))
		return 0;
	sc->p = p + n + 2;
	return 1;
}

/* A plain string, interned (@field: BL_PIN_*). */
static char *plain_pin(struct bl_scan *sc, int field, int *oom)
{
	struct bl_pinned *last = &sc->last[field];
	const char *s;
	size_t n;

	ws(sc);
	if (same_again(sc, '"', last->s, last->n, '"'))
		return (char *)last->s;
	if (same_again(sc, '"', last->s2, last->n2, '"'))
		return (char *)pin(sc, last, last->s2, last->n2, oom);	/* now the last */
	if (!plain_str(sc, &s, &n))
		return NULL;
	return (char *)pin(sc, last, s, n, oom);
}

/* Past one JSON value (strings, nesting); 0 when the text ends first. */
static int skip_value(struct bl_scan *sc)
{
	int depth = 0;

	ws(sc);
	while (sc->p < sc->end) {
		char c = *sc->p++;

		if (c == '"') {
			while (sc->p < sc->end && *sc->p != '"')
				sc->p += *sc->p == '\\' ? 2 : 1;
			if (sc->p >= sc->end)
				return 0;
			sc->p++;
		} else if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			if (--depth <= 0)
				return depth == 0;
		} else if (!depth && (c == ',' || c == ' ' || c == '\n' ||
				      c == '\t' || c == '\r')) {
			sc->p--;	/* end of a scalar */
			return 1;
		}
	}
	return depth == 0;
}

int baseline_scan_begin(struct bl_scan *sc, const char *buf, size_t len,
			struct rp_strpool *pool)
{
	sc->pool = pool;
	sc->prev_path = NULL;
	sc->prev_len = 0;
	memset(sc->last, 0, sizeof(sc->last));
	sc->p = buf;
	sc->end = buf + len;
	return lit(sc, "{") && lit(sc, "\"format\"") && lit(sc, ":") &&
	       lit(sc, "\"ksft-metric-baseline\"") && lit(sc, ",") &&
	       lit(sc, "\"version\"") && lit(sc, ":") && lit(sc, "1") &&
	       lit(sc, ",") && lit(sc, "\"runs\"") && lit(sc, ":") && lit(sc, "[") ?
	       0 : -ENOENT;
}

int baseline_scan_run(struct bl_scan *sc, struct bl_run *run, size_t ri)
{
	size_t cap = 0;
	int oom = 0;

	if (lit(sc, "]"))
		return lit(sc, "}") && (ws(sc), sc->p == sc->end) ? 0 : -ENOENT;
	if ((ri && !lit(sc, ",")) || !lit(sc, "{") || !lit(sc, "\"sources\"") ||
	    !lit(sc, ":") || !lit(sc, "["))
		return -ENOENT;
	if (!lit(sc, "]")) {
		do {
			char *s = plain_dup(sc, &oom);

			if (!s)
				return oom ? -ENOMEM : -ENOENT;
			if (run->n_sources == cap) {
				size_t c = cap ? cap * 2 : 4;
				char **v = realloc(run->sources, c * sizeof(*v));

				if (!v) {
					free(s);
					return -ENOMEM;
				}
				run->sources = v;
				cap = c;
			}
			run->sources[run->n_sources++] = s;
		} while (lit(sc, ","));
		if (!lit(sc, "]"))
			return -ENOENT;
	}
	if (!run->sources && !(run->sources = calloc(1, sizeof(char *))))
		return -ENOMEM;
	if (!lit(sc, ","))
		return -ENOENT;
	if (lit(sc, "\"context\"")) {
		/* Small: decoded by jansson, kept as baseline.c keeps it. */
		const char *start;
		json_t *o;

		if (!lit(sc, ":"))
			return -ENOENT;
		ws(sc);
		start = sc->p;
		if (sc->p >= sc->end || *sc->p != '{' || !skip_value(sc))
			return -ENOENT;
		o = json_loadb(start, (size_t)(sc->p - start), JSON_REJECT_DUPLICATES, NULL);
		if (!json_is_object(o)) {
			json_decref(o);
			return -ENOENT;
		}
		if (json_object_size(o) &&
		    !(run->context = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII))) {
			json_decref(o);
			return -ENOMEM;
		}
		json_decref(o);
		if (!lit(sc, ","))
			return -ENOENT;
	}
	return lit(sc, "\"series\"") && lit(sc, ":") && lit(sc, "[") ? 1 : -ENOENT;
}

/* {} or {"k":"v",...} of plain strings, keys in strcmp order: canonical as read. */
static char *plain_labels(struct bl_scan *sc, int *oom)
{
	const char *start, *k, *v, *pk = NULL;
	size_t kn, vn, pkn = 0;
	int first = 1;

	ws(sc);
	start = sc->p;
	/* The labels of the last series but one, or of the last: checked then. */
	for (first = 0; first < 2; first++) {
		struct bl_pinned *last = &sc->last[BL_PIN_LABELS];
		const char *q = first ? last->s2 : last->s;
		size_t qn = first ? last->n2 : last->n;

		if (q && qn >= 2 && same_again(sc, '{', q + 1, qn - 2, '}'))
			return (char *)pin(sc, last, q, qn, oom);
	}
	first = 1;
	if (!lit(sc, "{"))
		return NULL;
	if (!lit(sc, "}")) {
		do {
			if (!plain_str(sc, &k, &kn) || !lit(sc, ":") ||
			    !plain_str(sc, &v, &vn))
				return NULL;
			if (!first) {
				int c = memcmp(pk, k, pkn < kn ? pkn : kn);

				if (c > 0 || (c == 0 && pkn >= kn))
					return NULL;
			}
			pk = k;
			pkn = kn;
			first = 0;
		} while (lit(sc, ","));
		if (!lit(sc, "}"))
			return NULL;
	}
	/* Canonical text has no blanks: take the span only when it has none. */
	if (memchr(start, ' ', (size_t)(sc->p - start)) ||
	    memchr(start, '\n', (size_t)(sc->p - start)) ||
	    memchr(start, '\t', (size_t)(sc->p - start)) ||
	    memchr(start, '\r', (size_t)(sc->p - start)))
		return NULL;
	return (char *)pin(sc, &sc->last[BL_PIN_LABELS], start, (size_t)(sc->p - start), oom);
}

/* Append @x to *@v: 0 or -ENOMEM. */
static int push_val(double **v, size_t *n, size_t *cap, double x)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 4;
		double *q = realloc(*v, c * sizeof(double));

		if (!q)
			return -ENOMEM;
		*v = q;
		*cap = c;
	}
	(*v)[(*n)++] = x;
	return 0;
}

/* A number or null, as jansson's json_number_value() would give it. */
static int sample(struct bl_scan *sc, double *x)
{
	const char *next;

	ws(sc);
	if (lit(sc, "null")) {
		*x = NAN;
		return 1;
	}
	if (number_parse(sc->p, sc->end, &next, x))
		return 0;
	sc->p = next;
	return 1;
}

static int samples_into(struct bl_scan *sc, struct bl_series *s, struct rp_vals *pv)
{
	size_t cap_v = 0, cap_p = 0, nv = 0;
	double x;

	memset(pv, 0, sizeof(*pv));
	if (!lit(sc, "["))
		return 0;
	ws(sc);
	s->is_array = sc->p < sc->end && *sc->p == '[';
	pv->width = s->is_array ? 0 : 1;
	if (!s->is_array) {	/* the numbers up to ']': one exact block, the pool's */
		const char *e = memchr(sc->p, ']', (size_t)(sc->end - sc->p)), *q;
		size_t k = 1;

		for (q = sc->p; e && q < e; q++)
			k += *q == ',';
		if (e && (pv->v = strpool_alloc(sc->pool, k * sizeof(double)))) {
			cap_p = cap_v = k;
			s->samples_pooled = 1;	/* never grown, never freed alone */
		}
	}
	if (!lit(sc, "]")) {
		do {
			if (pv->n == cap_p && s->samples_pooled)
				return 0;	/* more than its commas said: jansson's */
			if (pv->n == cap_p) {
				size_t c = cap_p ? cap_p * 2 : 4;
				double *t = realloc(pv->t, c * sizeof(double));
				size_t *off;

				if (!t)
					return 0;
				pv->t = t;
				if (s->is_array) {
					off = realloc(pv->off, (c + 1) * sizeof(size_t));
					if (!off)
						return 0;
					pv->off = off;
				}
				cap_p = c;
			}
			if (pv->t)
				pv->t[pv->n] = NAN;
			if (!s->is_array) {
				if (!sample(sc, &x) || push_val(&pv->v, &nv, &cap_v, x))
					return 0;
				pv->n++;
				continue;
			}
			pv->off[pv->n] = nv;
			if (!lit(sc, "["))
				return 0;
			if (!lit(sc, "]")) {
				do {
					if (!sample(sc, &x) ||
					    push_val(&pv->v, &nv, &cap_v, x))
						return 0;
				} while (lit(sc, ","));
				if (!lit(sc, "]"))
					return 0;
			}
			if (nv - pv->off[pv->n] > pv->width)
				pv->width = nv - pv->off[pv->n];
			pv->n++;
		} while (lit(sc, ","));
		if (!lit(sc, "]"))
			return 0;
	}
	if (s->is_array && !pv->off &&
	    !(pv->off = malloc(sizeof(size_t))))
		return 0;
	if (s->is_array)
		pv->off[pv->n] = nv;
	/* Exact-size blocks, like the jansson path: memory ~ the samples. */
	if (!pv->v && !(pv->v = malloc(sizeof(double))))
		return 0;
	return 1;
}

/* samples_into() and its points kept (or freed with @s). */
static int samples(struct bl_scan *sc, struct bl_series *s)
{
	struct rp_vals pv;
	int ret = samples_into(sc, s, &pv);

	bl_take_vals(s, &pv);
	return ret;
}

enum {
	F_CASE = 1, F_PATH = 2, F_NAME = 4, F_LABELS = 8, F_SHAPE = 16,
	F_SOURCE = 32, F_POLICY = 64, F_SAMPLES = 128,
};

/* The keys in the order save writes them, F_* the bit of each's index. */
#define BL_KEYS 8
static const struct {
	const char *text;
	size_t n;
} bl_keys[BL_KEYS] = {
	{ "\"case\":", 7 }, { "\"path\":", 7 }, { "\"name\":", 7 }, { "\"labels\":", 9 },
	{ "\"shape\":", 8 }, { "\"source\":", 9 }, { "\"policy\":", 9 }, { "\"samples\":", 10 },
};

/* The fields of one series object; 0 when jansson must decide. */
static int series_fields(struct bl_scan *sc, struct bl_series *s, int *oom)
{
	char *path[RP_MAX_DEPTH];
	unsigned seen = 0, next = 0;

	if (!lit(sc, "{"))
		return 0;
	do {
		const char *k;
		size_t kn;
		unsigned f;

		/* The key save writes next, as it writes it (no blank): one
		 * compare (issue 45: a key read as a string, then matched, was
		 * a tenth of the baseline's cost); else any key, any order. */
		if (next < BL_KEYS && (size_t)(sc->end - sc->p) >= bl_keys[next].n &&
		    !memcmp(sc->p, bl_keys[next].text, bl_keys[next].n)) {
			sc->p += bl_keys[next].n;
			f = 1u << next++;
		} else {
			if (!plain_str(sc, &k, &kn) || !lit(sc, ":"))
				return 0;
#define KEY(s) (kn == sizeof(s) - 1 && !memcmp(k, s, kn))
			f = KEY("case") ? F_CASE : KEY("path") ? F_PATH :
			    KEY("name") ? F_NAME : KEY("labels") ? F_LABELS :
			    KEY("shape") ? F_SHAPE : KEY("source") ? F_SOURCE :
			    KEY("policy") ? F_POLICY : KEY("samples") ? F_SAMPLES : 0;
#undef KEY
			for (next = 0; next < BL_KEYS && (1u << next) != f; next++)
				;
			next++;		/* after it, the order save writes */
		}
		if (!f || (seen & f))
			return 0;	/* unknown or twice: jansson's call */
		seen |= f;
		switch (f) {
		case F_CASE:
			if (!(s->case_name = plain_pin(sc, BL_PIN_CASE, oom)))
				return 0;
			break;
		case F_NAME:
			if (!(s->name = plain_pin(sc, BL_PIN_NAME, oom)))
				return 0;
			break;
		case F_SHAPE:
			if (!(s->shape = plain_pin(sc, BL_PIN_SHAPE, oom)))
				return 0;
			break;
		case F_SOURCE: {
			const char *src;
			char name[16];
			size_t n;

			if (!plain_str(sc, &src, &n))
				return 0;
			/* A source's name is short ("ktap"): longer ones are
			 * none of the known ones, read as their default. */
			memcpy(name, src, n < sizeof(name) ? n : 0);
			name[n < sizeof(name) ? n : 0] = '\0';
			s->source = canon_source_parse(n < sizeof(name) ? name : "");
			break;
		}
		case F_LABELS:
			if (!(s->labels = plain_labels(sc, oom)))
				return 0;
			break;
		case F_PATH:
			if (!lit(sc, "["))
				return 0;
			if (lit(sc, "]"))
				break;
			do {
				if (s->path_len == RP_MAX_DEPTH ||
				    !(path[s->path_len] = plain_pin(sc, BL_PIN_PATH, oom)))
					return 0;
				s->path_len++;
			} while (lit(sc, ","));
			if (!lit(sc, "]"))
				return 0;
			break;
		case F_POLICY: {
			const char *at;
			json_t *j;
			char *unknown = NULL;
			int ok;

			if (lit(sc, "null"))
				break;
			ws(sc);
			at = sc->p;
			if (!skip_value(sc))
				return 0;
			if (!s->policy && !(s->policy = calloc(1, sizeof(*s->policy)))) {
				*oom = 1;
				return 0;
			}
			j = json_loadb(at, (size_t)(sc->p - at), JSON_REJECT_DUPLICATES, NULL);
			ok = json_is_object(j) &&
			     !rp_policy_from_json(j, s->policy, &unknown);
			json_decref(j);
			free(unknown);
			if (!ok)
				return 0;
			break;
		}
		case F_SAMPLES:
			if (!samples(sc, s))
				return 0;
			break;
		}
	} while (lit(sc, ","));
	if (!lit(sc, "}") || (seen & (F_CASE | F_PATH | F_NAME | F_LABELS | F_SAMPLES)) !=
	    (F_CASE | F_PATH | F_NAME | F_LABELS | F_SAMPLES))
		return 0;
	s->path = strpool_path(sc->pool, path, s->path_len, sc->prev_path, sc->prev_len);
	if (!s->shape)
		s->shape = (char *)strpool_intern(sc->pool, s->is_array ? "array" : "scalar",
						  s->is_array ? 5 : 6);
	if (!s->path || !s->shape) {
		*oom = 1;
		return 0;
	}
	sc->prev_path = s->path;
	sc->prev_len = s->path_len;
	return 1;
}

int baseline_scan_series(struct bl_scan *sc, struct bl_series *s, size_t i,
			 const char **span, size_t *span_len)
{
	const char *at;
	int oom = 0;

	memset(s, 0, sizeof(*s));	/* the caller clears it whatever we return */
	if (lit(sc, "]"))
		return lit(sc, "}") ? 0 : -ENOENT;
	if (i && !lit(sc, ","))
		return -ENOENT;
	ws(sc);
	at = sc->p;
	if (series_fields(sc, s, &oom))
		return 1;
	if (oom)
		return -ENOMEM;
	/* Not plain: its text, for jansson. */
	sc->p = at;
	if (!skip_value(sc))
		return -ENOENT;
	*span = at;
	*span_len = (size_t)(sc->p - at);
	return 2;
}
