/*
 * ktap-metric-json and ktap-metric-policy-json payloads. The producer's
 * own spelling (flat object, simple strings, number arrays) is parsed in
 * place without allocating; anything else goes through jansson, which
 * also words the warning when the line is bad.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "canon.h"
#include "errmsg.h"
#include "float_repr.h"
#include "metric_line.h"
#include "number.h"
#include "point.h"
#include "rp.h"
#include "rp_input.h"
#include "rp_policy.h"
#include "series.h"
#include "strbuf.h"
#include "tree.h"
#include "warn.h"

#define MAX_FAST_LABELS 16

/* A string of printable ASCII without escapes; @p is at the quote. */
static const char *simple_string(const char *p, const char *end,
				 const char **s, size_t *n)
{
	const char *q = ++p;

	while (q < end && *q != '"') {
		unsigned char c = (unsigned char)*q;

		if (c == '\\' || c < 0x20 || c >= 0x7f)
			return NULL;
		q++;
	}
	if (q >= end)
		return NULL;
	*s = p;
	*n = (size_t)(q - p);
	return q + 1;
}

struct slice {
	const char *k, *v;
	size_t kn, vn;
	int raw;		/* a number or literal: no quotes */
};

static int cmp_slice(const void *a, const void *b)
{
	const struct slice *x = a, *y = b;
	size_t n = x->kn < y->kn ? x->kn : y->kn;
	int c = memcmp(x->k, y->k, n);

	return c ? c : (x->kn > y->kn) - (x->kn < y->kn);
}

static int is_key(const char *k, size_t n, const char *lit)
{
	return strlen(lit) == n && !memcmp(k, lit, n);
}

/*
 * The producer's own spelling: a flat object of simple strings, numbers
 * and one number array. Anything else returns -ENOENT (not this
 * spelling; -ENOMEM when memory ran out) and goes to jansson, which
 * words what is wrong.
 */
static int fast_metric(struct rp_input *in, const char *p, const char *end,
		       struct mline *m)
{
	struct slice lab[MAX_FAST_LABELS];
	char numbuf[MAX_FAST_LABELS][FLOAT_REPR_MAX];
	size_t nlab = 0, i;
	int have_value = 0, have_time = 0, sorted = 1;

	m->name = m->shape = NULL;
	m->t = NAN;
	in->n_vals = 0;
	p = rp_input_skip_ws(p, end);
	if (p >= end || *p != '{')
		return -ENOENT;
	p = rp_input_skip_ws(p + 1, end);
	if (p < end && *p == '}')
		return -ENOENT;
	for (;;) {
		const char *k;
		size_t kn;

		if (p >= end || *p != '"' || !(p = simple_string(p, end, &k, &kn)))
			return -ENOENT;
		p = rp_input_skip_ws(p, end);
		if (p >= end || *p != ':')
			return -ENOENT;
		p = rp_input_skip_ws(p + 1, end);
		if (p >= end)
			return -ENOENT;
		if (is_key(k, kn, "value")) {
			if (have_value)
				return -ENOENT;
			have_value = 1;
			if (*p == '[') {
				m->is_array = 1;
				p = rp_input_skip_ws(p + 1, end);
				if (p < end && *p == ']') {
					p++;
				} else {
					for (;;) {
						double v;

						if (STARTS(p, end, "null")) {
							v = NAN;
							p += 4;
						} else if (number_parse(p, end, &p, &v)) {
							return -ENOENT;
						}
						if (point_push_val(in, v))
							return -ENOMEM;
						p = rp_input_skip_ws(p, end);
						if (p < end && *p == ',') {
							p = rp_input_skip_ws(p + 1, end);
							continue;
						}
						if (p < end && *p == ']') {
							p++;
							break;
						}
						return -ENOENT;
					}
				}
			} else {
				double v;

				m->is_array = 0;
				if (number_parse(p, end, &p, &v))
					return -ENOENT;
				if (point_push_val(in, v))
					return -ENOMEM;
			}
		} else if (is_key(k, kn, "time")) {
			if (have_time || number_parse(p, end, &p, &m->t))
				return -ENOENT;
			have_time = 1;
		} else if (*p == '"') {
			const char *v;
			size_t vn;

			if (!(p = simple_string(p, end, &v, &vn)))
				return -ENOENT;
			if (is_key(k, kn, "name")) {
				if (m->name || !vn)
					return -ENOENT;
				m->name = v;
				m->name_len = vn;
			} else if (is_key(k, kn, "shape")) {
				if (m->shape)
					return -ENOENT;
				m->shape = v;
				m->shape_len = vn;
			} else {
				if (nlab == MAX_FAST_LABELS)
					return -ENOENT;
				lab[nlab] = (struct slice){ k, v, kn, vn, 0 };
				if (nlab && cmp_slice(&lab[nlab - 1], &lab[nlab]) >= 0)
					sorted = 0;
				nlab++;
			}
		} else if (!is_key(k, kn, "name") && !is_key(k, kn, "shape")) {
			/* A number or literal label, spelled as jansson + canon_json_emit do. */
			const char *v = p, *next;
			size_t vn;
			double x;

			if (nlab == MAX_FAST_LABELS)
				return -ENOENT;
			if (STARTS(p, end, "true") || STARTS(p, end, "null")) {
				vn = 4;
				next = p + 4;
			} else if (STARTS(p, end, "false")) {
				vn = 5;
				next = p + 5;
			} else if (!number_parse(p, end, &next, &x)) {
				vn = (size_t)(next - p);
				if (memchr(v, '.', vn) || memchr(v, 'e', vn) || memchr(v, 'E', vn)) {
					vn = float_repr(x, numbuf[nlab]);
					v = numbuf[nlab];
				} else if (vn == 2 && v[0] == '-' && v[1] == '0') {
					v = "0";	/* jansson's integer 0 */
					vn = 1;
				}
			} else {
				return -ENOENT;
			}
			p = next;
			lab[nlab] = (struct slice){ k, v, kn, vn, 1 };
			if (nlab && cmp_slice(&lab[nlab - 1], &lab[nlab]) >= 0)
				sorted = 0;
			nlab++;
		} else {
			return -ENOENT;
		}
		p = rp_input_skip_ws(p, end);
		if (p < end && *p == ',') {
			p = rp_input_skip_ws(p + 1, end);
			continue;
		}
		if (p < end && *p == '}')
			break;
		return -ENOENT;
	}
	if (rp_input_skip_ws(p + 1, end) != end || !m->name || !m->shape || !have_value)
		return -ENOENT;
	if (!sorted) {
		qsort(lab, nlab, sizeof(lab[0]), cmp_slice);
		for (i = 1; i < nlab; i++)
			if (!cmp_slice(&lab[i - 1], &lab[i]))
				return -ENOENT;	/* duplicate key: jansson says so */
	}
	in->labels.len = 0;
	strbuf_addc(&in->labels, '{');
	for (i = 0; i < nlab; i++) {
		if (i)
			strbuf_addc(&in->labels, ',');
		strbuf_addc(&in->labels, '"');
		strbuf_add(&in->labels, lab[i].k, lab[i].kn);
		strbuf_adds(&in->labels, lab[i].raw ? "\":" : "\":\"");
		strbuf_add(&in->labels, lab[i].v, lab[i].vn);
		if (!lab[i].raw)
			strbuf_addc(&in->labels, '"');
	}
	strbuf_addc(&in->labels, '}');
	return in->labels.oom ? -ENOMEM : 0;
}

static int cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * Any valid JSON spelling, through jansson: 0, -EINVAL after a warning
 * (the line is skipped), or -ENOMEM with in->oom set.
 */
static int slow_metric(struct rp_input *in, const char *p, const char *end,
		       struct mline *m)
{
	json_error_t err;
	json_t *j = json_loadb(p, (size_t)(end - p), JSON_REJECT_DUPLICATES, &err);
	json_t *name, *shape, *t, *value, *v;
	const char **keys = NULL, *k;
	size_t i, n = 0;
	int ret = -EINVAL;

	in->n_vals = 0;
	if (!j) {
		warn_add(in->r, in->file, in->lineno,
			 "malformed metric JSON: %s (column %d)", err.text,
			 err.column);
		return -EINVAL;
	}
	if (!json_is_object(j)) {
		warn_add(in->r, in->file, in->lineno, "metric JSON is not an object");
		goto fail;
	}
	name = json_object_get(j, "name");
	shape = json_object_get(j, "shape");
	t = json_object_get(j, "time");
	value = json_object_get(j, "value");
	if (!json_is_string(name) || !json_string_length(name)) {
		warn_add(in->r, in->file, in->lineno,
			 "metric has no \"name\" string; line skipped");
		goto fail;
	}
	if (shape && !json_is_string(shape)) {
		warn_add(in->r, in->file, in->lineno,
			 "metric %s: \"shape\" is not a string; line skipped",
			 json_string_value(name));
		goto fail;
	}
	if (t && !json_is_null(t) && !json_is_number(t)) {
		warn_add(in->r, in->file, in->lineno,
			 "metric %s: \"time\" is not a number; line skipped",
			 json_string_value(name));
		goto fail;
	}
	m->t = json_is_number(t) ? json_number_value(t) : NAN;
	if (json_is_number(value)) {
		m->is_array = 0;
		if (point_push_val(in, json_number_value(value)))
			goto oom;
	} else if (json_is_array(value)) {
		m->is_array = 1;
		json_array_foreach(value, i, v) {
			if (!json_is_number(v) && !json_is_null(v)) {
				warn_add(in->r, in->file, in->lineno,
					 "metric %s: array entry %zu is neither a number nor null; line skipped",
					 json_string_value(name), i);
				goto fail;
			}
			if (point_push_val(in, json_is_number(v) ? json_number_value(v) : NAN))
				goto oom;
		}
	} else {
		warn_add(in->r, in->file, in->lineno,
			 "metric %s: \"value\" must be a number or an array of numbers and nulls; line skipped",
			 json_string_value(name));
		goto fail;
	}
	in->name_buf.len = 0;
	strbuf_add(&in->name_buf, json_string_value(name), json_string_length(name));
	in->shape_buf.len = 0;
	if (shape)
		strbuf_add(&in->shape_buf, json_string_value(shape),
			   json_string_length(shape));
	else
		strbuf_adds(&in->shape_buf, m->is_array ? "array" : "scalar");
	keys = malloc((json_object_size(j) + 1) * sizeof(*keys));
	if (!keys)
		goto oom;
	json_object_foreach(j, k, v)
		if (strcmp(k, "name") && strcmp(k, "shape") && strcmp(k, "time") &&
		    strcmp(k, "value"))
			keys[n++] = k;
	qsort(keys, n, sizeof(*keys), cmp_cstr);
	in->labels.len = 0;
	strbuf_addc(&in->labels, '{');
	for (i = 0; i < n; i++) {
		if (i)
			strbuf_addc(&in->labels, ',');
		canon_json_str(&in->labels, keys[i]);
		strbuf_addc(&in->labels, ':');
		canon_json_emit(&in->labels, json_object_get(j, keys[i]));
	}
	strbuf_addc(&in->labels, '}');
	free(keys);
	json_decref(j);
	if (in->labels.oom || in->name_buf.oom || in->shape_buf.oom) {
		in->oom = 1;
		return -ENOMEM;
	}
	m->name = in->name_buf.data;
	m->name_len = in->name_buf.len;
	m->shape = in->shape_buf.data;
	m->shape_len = in->shape_buf.len;
	return 0;
oom:
	in->oom = 1;
	ret = -ENOMEM;
fail:
	free(keys);
	json_decref(j);
	return ret;
}

int metric_line_parse_fast(struct rp_input *in, const char *p, const char *end,
			   struct mline *m)
{
	return fast_metric(in, p, end, m);
}

int metric_line_parse_slow(struct rp_input *in, const char *p, const char *end,
			   struct mline *m)
{
	return slow_metric(in, p, end, m);
}

void metric_line_read(struct rp_input *in, int d, const char *p,
			const char *end)
{
	struct mline m;
	struct rp_node *node;

	if (fast_metric(in, p, end, &m) && slow_metric(in, p, end, &m))
		return;
	node = tree_case_at(in, d);
	if (node) {
		node->metric_lines++;
		point_add(in, node, RP_SRC_KTAP, &m);
	}
}

void metric_line_policy(struct rp_input *in, int d, const char *p,
			const char *end)
{
	json_error_t err;
	json_t *j = json_loadb(p, (size_t)(end - p), JSON_REJECT_DUPLICATES, &err);
	json_t *name;
	struct rp_pol_entry *e, *old;
	struct rp_node *node;
	char *unknown;

	if (!j) {
		warn_add(in->r, in->file, in->lineno,
			 "malformed policy JSON: %s (column %d)", err.text, err.column);
		return;
	}
	name = json_object_get(j, "name");
	if (!json_is_object(j) || !json_is_string(name) ||
	    !json_string_length(name)) {
		warn_add(in->r, in->file, in->lineno,
			 "policy has no \"name\" string; line skipped");
		json_decref(j);
		return;
	}
	e = calloc(1, sizeof(*e));
	if (!e || !(e->name = strdup(json_string_value(name)))) {
		free(e);
		in->oom = 1;
		json_decref(j);
		return;
	}
	if (rp_policy_from_json(j, &e->pol, &unknown)) {
		/* The reason is the message rp_policy_from_json() set. */
		warn_add(in->r, in->file, in->lineno,
			 "policy for metric %s: %s; policy ignored", e->name,
			 ksftm_errmsg());
		free(e->name);
		free(e);
		json_decref(j);
		return;
	}
	json_decref(j);
	if (unknown) {
		warn_add(in->r, in->file, in->lineno,
			 "policy for metric %s: unknown key \"%s\" ignored", e->name,
			 unknown);
		free(unknown);
	}
	e->pol.file = in->file;
	e->pol.line = in->lineno;
	node = tree_case_at(in, d);
	if (!node)
		goto drop;
	old = tree_pol_find(in, node, e->name);
	if (old) {
		if (!rp_policy_equal(&old->pol, &e->pol))
			warn_add(in->r, in->file, in->lineno,
				 "conflicting policy for metric %s: keeping the one from line %lu",
				 e->name, old->pol.line);
		goto drop;
	}
	e->node = node;
	if (tree_pol_add(in, e)) {
		in->oom = 1;
		goto drop;
	}
	e->next = node->policies;
	node->policies = e;
	return;
drop:
	rp_policy_clear(&e->pol);
	free(e->name);
	free(e);
}

