/*
 * Canonical text: the one JSON spelling used for series identity (labels,
 * policies) and for every number we print, plus the small name tables.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon.h"
#include "float_repr.h"
#include "json_text.h"
#include "policy_vocab.h"
#include "rp.h"
#include "strbuf.h"

static const char *const op_names[] = {
	[RP_OP_NONE] = NULL,
	[RP_OP_LAST] = KSFTM_SUM_LAST,
	[RP_OP_TOTAL] = KSFTM_SUM_TOTAL,
	[RP_OP_MAX] = KSFTM_SUM_MAX,
	[RP_OP_P50] = KSFTM_SUM_P50,
	[RP_OP_P90] = KSFTM_SUM_P90,
	[RP_OP_P99] = KSFTM_SUM_P99,
	[RP_OP_DISTRIBUTION] = KSFTM_SUM_DISTRIBUTION,
};

const char *canon_op_name(int op)
{
	if (op < 0 || op > RP_OP_DISTRIBUTION)
		return NULL;
	return op_names[op];
}

const char *canon_better_name(int better)
{
	return better > 0 ? KSFTM_BETTER_HIGHER : better < 0 ? KSFTM_BETTER_LOWER : NULL;
}

int canon_op_parse(const char *s, int allow_distribution)
{
	int op;

	for (op = RP_OP_LAST; op <= RP_OP_DISTRIBUTION; op++)
		if (!strcmp(s, op_names[op]))
			return op == RP_OP_DISTRIBUTION && !allow_distribution ?
			       RP_OP_NONE : op;
	return RP_OP_NONE;
}

static const char *const status_names[] = {
	[RP_ST_NONE] = "none",
	[RP_ST_PASS] = "pass",
	[RP_ST_FAIL] = "fail",
	[RP_ST_SKIP] = "skip",
	[RP_ST_XFAIL] = "xfail",
	[RP_ST_XPASS] = "xpass",
	[RP_ST_TODO] = "todo",
	[RP_ST_TIMEOUT] = "timeout",
	[RP_ST_ERROR] = "error",
	[RP_ST_INCOMPLETE] = "incomplete",
};

int canon_status_failed(int st)
{
	return st == RP_ST_FAIL || st == RP_ST_TIMEOUT || st == RP_ST_ERROR ||
	       st == RP_ST_INCOMPLETE;
}

const char *canon_status_name(int st)
{
	if (st < 0 || st > RP_ST_INCOMPLETE)
		return "none";
	return status_names[st];
}

const char *canon_source_name(int src)
{
	return src == RP_SRC_ZPERF ? "zperf" :
	       src == RP_SRC_TWISTER ? "twister" : "ktap";
}

int canon_source_parse(const char *name)
{
	return name && !strcmp(name, "zperf") ? RP_SRC_ZPERF :
	       name && !strcmp(name, "twister") ? RP_SRC_TWISTER : RP_SRC_KTAP;
}

void canon_json_str(struct strbuf *sb, const char *s)
{
	json_add_string(sb, s, strlen(s));
}

void canon_json_double(struct strbuf *sb, double v)
{
	char buf[FLOAT_REPR_MAX];

	if (!isfinite(v)) {
		strbuf_adds(sb, "null");
		return;
	}
	strbuf_add(sb, buf, float_repr(v, buf));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void canon_json_emit(struct strbuf *sb, json_t *j)
{
	char buf[FLOAT_REPR_MAX];
	size_t i, n;

	switch (json_typeof(j)) {
	case JSON_OBJECT: {
		const char **keys;
		const char *k;
		json_t *v;

		n = json_object_size(j);
		keys = malloc((n ? n : 1) * sizeof(*keys));
		if (!keys) {
			sb->oom = 1;
			return;
		}
		i = 0;
		json_object_foreach(j, k, v)
			keys[i++] = k;
		qsort(keys, n, sizeof(*keys), cmp_str);
		strbuf_addc(sb, '{');
		for (i = 0; i < n; i++) {
			if (i)
				strbuf_addc(sb, ',');
			canon_json_str(sb, keys[i]);
			strbuf_addc(sb, ':');
			canon_json_emit(sb, json_object_get(j, keys[i]));
		}
		strbuf_addc(sb, '}');
		free(keys);
		break;
	}
	case JSON_ARRAY:
		strbuf_addc(sb, '[');
		n = json_array_size(j);
		for (i = 0; i < n; i++) {
			if (i)
				strbuf_addc(sb, ',');
			canon_json_emit(sb, json_array_get(j, i));
		}
		strbuf_addc(sb, ']');
		break;
	case JSON_STRING:
		json_add_string(sb, json_string_value(j), json_string_length(j));
		break;
	case JSON_INTEGER:
		strbuf_add(sb, buf, int64_repr((int64_t)json_integer_value(j), buf));
		break;
	case JSON_REAL:
		canon_json_double(sb, json_real_value(j));
		break;
	case JSON_TRUE:
		strbuf_adds(sb, "true");
		break;
	case JSON_FALSE:
		strbuf_adds(sb, "false");
		break;
	default:
		strbuf_adds(sb, "null");
		break;
	}
}

long canon_text_bad_at(const char *str, size_t n, int *control)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, len;

	while (i < n) {
		if (s[i] < 0x20 || s[i] == 0x7f) {
			*control = 1;
			return (long)i;
		}
		len = s[i] < 0x80 ? 1 : utf8_seq_len((const char *)s + i, n - i);
		if (!len) {
			*control = 0;
			return (long)i;
		}
		if (len == 2 && s[i] == 0xc2 && s[i + 1] < 0xa0) {	/* C1: U+0080-U+009F */
			*control = 1;
			return (long)i;
		}
		i += len;
	}
	return -ENOENT;
}

char *canon_text_dup(const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	char *out = malloc(n + 1);
	size_t i = 0, o = 0;

	if (!out)
		return NULL;
	while (i < n) {
		size_t len;

		if (s[i] < 0x80) {
			out[o++] = (s[i] < 0x20 && s[i] != '\t') || s[i] == 0x7f ?
				   '?' : (char)s[i];
			i++;
			continue;
		}
		len = utf8_seq_len((const char *)s + i, n - i);
		if (!len || (len == 2 && s[i] == 0xc2 && s[i + 1] < 0xa0)) {
			out[o++] = '?';	/* not UTF-8, or a C1 control (U+0080-U+009F) */
			i += len ? len : 1;
			continue;
		}
		memcpy(out + o, s + i, len);
		o += len;
		i += len;
	}
	out[o] = '\0';
	return out;
}

/*
 * printf's "%.6g" of a normal, non-zero @v from its shortest round-trip
 * digits (float_repr(), several times faster than printf). Rounding those
 * digits to 6 gives what rounding the exact binary value gives, except
 * when they are exactly halfway (a 7th digit 5 and nothing after: then
 * the shortest digits are that midpoint and the exact value may lie on
 * either side); returns 0 for that case and for subnormals.
 */
static size_t text_number_fast(double v, char *out)
{
	char repr[FLOAT_REPR_MAX], d[FLOAT_REPR_MAX];
	const char *p = repr;
	size_t n = 0, i, o = 0;
	int e10 = 0, point = -1, x, lead = 1;

	if (fabs(v) < 2.2250738585072014e-308)
		return 0;
	float_repr(v, repr);
	if (*p == '-')
		out[o++] = *p++;
	for (; *p && *p != 'e'; p++) {
		if (*p == '.') {
			point = (int)n;
			continue;
		}
		if (lead && *p == '0') {	/* 0.00123: leading zeros */
			if (point >= 0)
				e10--;
			continue;
		}
		lead = 0;
		d[n++] = *p;
	}
	if (point < 0)
		point = (int)n;	/* "1e+16": every digit is before the point */
	x = point + e10 - 1;	/* decimal exponent of d[0] */
	if (*p == 'e')
		x += atoi(p + 1);
	while (n && d[n - 1] == '0')
		n--;
	if (!n)
		return 0;
	if (n > 6) {
		int up = d[6] > '5';

		if (d[6] == '5') {
			if (n == 7)
				return 0;	/* exactly halfway: printf decides */
			up = 1;
		}
		n = 6;
		if (up) {
			for (i = 6; i-- > 0 && d[i] == '9';)
				d[i] = '0';
			if (i == (size_t)-1) {
				d[0] = '1';
				x++;
			} else {
				d[i]++;
			}
		}
		while (n && d[n - 1] == '0')
			n--;
	}
	if (x >= -4 && x < 6) {
		if (x < 0) {
			out[o++] = '0';
			out[o++] = '.';
			for (i = 1; i < (size_t)-x; i++)
				out[o++] = '0';
			memcpy(out + o, d, n);
			return o + n;
		}
		for (i = 0; i <= (size_t)x; i++)
			out[o++] = i < n ? d[i] : '0';
		if (n > (size_t)x + 1) {
			out[o++] = '.';
			memcpy(out + o, d + x + 1, n - (size_t)x - 1);
			o += n - (size_t)x - 1;
		}
		return o;
	}
	out[o++] = d[0];
	if (n > 1) {
		out[o++] = '.';
		memcpy(out + o, d + 1, n - 1);
		o += n - 1;
	}
	out[o++] = 'e';
	out[o++] = x < 0 ? '-' : '+';
	x = x < 0 ? -x : x;
	if (x >= 100)
		out[o++] = (char)('0' + x / 100);
	out[o++] = (char)('0' + x / 10 % 10);
	out[o++] = (char)('0' + x % 10);
	return o;
}

void canon_text_number(struct strbuf *sb, double v)
{
	char buf[64];
	size_t len;
	int n;

	if (!isfinite(v)) {
		strbuf_addc(sb, '-');
		return;
	}
	len = v != 0 ? text_number_fast(v, buf) : 0;
	if (len) {
		strbuf_add(sb, buf, len);
		return;
	}
	n = snprintf(buf, sizeof(buf), "%.6g", v);
	strbuf_add(sb, buf, (size_t)n);
}

/*
 * Canonical labels whose keys and values are all strings of printable
 * ASCII without escapes read as they are written: key=value,... straight
 * from the text (what the jansson path below prints for them, without a
 * document per series). 0 when the labels are anything else.
 */
static int labels_text_plain(struct strbuf *sb, const char *s)
{
	size_t start = sb->len;
	const char *p = s + 1, *q, *prev = NULL;
	size_t prev_len = 0;
	int first = 1;

	if (s[0] != '{')
		return 0;
	if (p[0] == '}' && !p[1])
		return 1;
	for (;;) {
		if (*p != '"')
			goto other;
		for (q = ++p; *q && *q != '"'; q++)
			if (*q == '\\' || (unsigned char)*q < 0x20 || (unsigned char)*q > 0x7e)
				goto other;
		if (*q != '"' || q[1] != ':' || q[2] != '"')
			goto other;
		if (prev) {	/* keys in strcmp order, as the jansson path sorts them */
			size_t pn = prev_len, kn = (size_t)(q - p);
			int c = memcmp(prev, p, pn < kn ? pn : kn);

			if (c > 0 || (c == 0 && pn >= kn))
				goto other;
		}
		prev = p;
		prev_len = (size_t)(q - p);
		if (!first)
			strbuf_addc(sb, ',');
		first = 0;
		strbuf_add(sb, p, (size_t)(q - p));
		strbuf_addc(sb, '=');
		for (p = q += 3; *q && *q != '"'; q++)
			if (*q == '\\' || (unsigned char)*q < 0x20 || (unsigned char)*q > 0x7e)
				goto other;
		if (*q != '"')
			goto other;
		strbuf_add(sb, p, (size_t)(q - p));
		if (q[1] == '}' && !q[2])
			return 1;
		if (q[1] != ',')
			goto other;
		p = q + 2;
	}
other:
	if (sb->data && !sb->oom) {
		sb->len = start;
		sb->data[start] = '\0';
	}
	return 0;
}

/* {"host":"local","n":1} -> host=local,n=1 (empty for {}). */
void canon_labels_text(struct strbuf *sb, const char *labels_json)
{
	json_t *j;
	const char **keys;
	const char *k;
	json_t *v;
	size_t i = 0, n;

	if (labels_text_plain(sb, labels_json))
		return;
	j = json_loads(labels_json, 0, NULL);
	if (!j || !json_is_object(j) || !(n = json_object_size(j))) {
		json_decref(j);
		return;
	}
	keys = malloc(n * sizeof(*keys));
	if (!keys) {
		json_decref(j);
		sb->oom = 1;
		return;
	}
	json_object_foreach(j, k, v)
		keys[i++] = k;
	qsort(keys, n, sizeof(*keys), cmp_str);
	for (i = 0; i < n; i++) {
		struct strbuf one = STRBUF_INIT;
		char *clean;

		v = json_object_get(j, keys[i]);
		if (i)
			strbuf_addc(sb, ',');
		strbuf_adds(&one, keys[i]);
		strbuf_addc(&one, '=');
		if (json_is_string(v))
			strbuf_adds(&one, json_string_value(v));
		else
			canon_json_emit(&one, v);
		/* Decoded values may hold controls: keep table lines whole. */
		clean = one.data ? canon_text_dup(one.data, one.len) : NULL;
		strbuf_adds(sb, clean ? clean : "?");
		free(clean);
		strbuf_free(&one);
	}
	free(keys);
	json_decref(j);
}

void canon_series_title(struct strbuf *sb, char *const *path, size_t path_len,
			const char *case_name, const char *name,
			const char *labels, long elem)
{
	size_t i, before;
	char buf[32];

	for (i = 0; i < path_len; i++) {
		strbuf_adds(sb, path[i]);
		strbuf_adds(sb, " / ");
	}
	strbuf_adds(sb, case_name);
	strbuf_addc(sb, ' ');
	strbuf_adds(sb, name);
	strbuf_addc(sb, '{');
	before = sb->len;
	canon_labels_text(sb, labels);
	if (sb->oom)
		return;
	if (sb->len == before) {
		sb->len--;
		sb->data[sb->len] = '\0';
	} else {
		strbuf_addc(sb, '}');
	}
	if (elem >= 0) {
		snprintf(buf, sizeof(buf), "[%ld]", elem);
		strbuf_adds(sb, buf);
	}
}

void canon_emit_identity(struct strbuf *sb, char *const *path, size_t path_len,
			    const char *case_name, const char *name,
			    const char *labels)
{
	size_t i;

	strbuf_adds(sb, "\"case\":");
	canon_json_str(sb, case_name);
	strbuf_adds(sb, ",\"path\":[");
	for (i = 0; i < path_len; i++) {
		if (i)
			strbuf_addc(sb, ',');
		canon_json_str(sb, path[i]);
	}
	strbuf_adds(sb, "],\"name\":");
	canon_json_str(sb, name);
	strbuf_adds(sb, ",\"labels\":");
	strbuf_adds(sb, labels);
}
