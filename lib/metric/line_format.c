/* Observation JSON: the exact bytes Python's json.dumps would print. */
#include <math.h>
#include <string.h>

#include "float_repr.h"
#include "json_text.h"
#include "line_format.h"

/*
 * CPython's round(x, 6): the exact binary value of @x rounded half to even
 * at the sixth decimal, then the double nearest to that decimal. Integer
 * arithmetic only (this also runs in the fatal-signal flush). Exact for
 * |x| < 2^53 microseconds; the library's times are far below that.
 */
double round6(double x)
{
	uint64_t bits, m, a, b, hi, lo, q, rh, halfh;
	int exp, s, above, tie;
	double r;

	if (x == 0 || !isfinite(x))
		return x;
	memcpy(&bits, &x, sizeof(bits));
	exp = (int)(bits >> 52 & 0x7ff);
	m = bits & ((UINT64_C(1) << 52) - 1);
	if (exp)
		m |= UINT64_C(1) << 52;
	s = exp ? 1075 - exp : 1074;	/* |x| = m * 2^-s */
	if (s <= 0)
		return x;	/* an integer already */
	/* P = m * 10^6 (< 2^73) as hi:lo, then q = P >> s and its remainder. */
	a = (m >> 32) * 1000000u;
	b = (m & 0xffffffffu) * 1000000u;
	lo = (a << 32) + b;
	hi = (a >> 32) + (lo < b);
	if (s < 64) {
		uint64_t rem = lo & ((UINT64_C(1) << s) - 1), half = UINT64_C(1) << (s - 1);

		q = (hi << (64 - s)) | (lo >> s);
		above = rem > half;
		tie = rem == half;
	} else if (s < 128) {
		q = s == 64 ? hi : hi >> (s - 64);
		rh = s == 64 ? 0 : hi & ((UINT64_C(1) << (s - 64)) - 1);
		halfh = s == 64 ? 0 : UINT64_C(1) << (s - 65);
		if (s == 64) {
			above = lo > UINT64_C(1) << 63;
			tie = lo == UINT64_C(1) << 63;
		} else {
			above = rh > halfh || (rh == halfh && lo);
			tie = rh == halfh && !lo;
		}
	} else {
		q = 0;
		above = tie = 0;	/* P < 2^73 <= 2^(s-1) */
	}
	if (above || (tie && (q & 1)))
		q++;
	/* Both operands exact: IEEE division gives the nearest double. */
	r = (double)q / 1e6;
	return x < 0 ? -r : r;
}

/*
 * time.monotonic() as CPython computes it from the CLOCK_MONOTONIC
 * nanosecond count ((Py|_Py)Time_AsSecondsDouble in current CPython,
 * 3.11 here): whole seconds are converted as an integer, anything else as
 * the count converted to double, then divided by 1e9. The two differ once
 * the count passes 2^53 ns (104 days of uptime).
 */
static double monotonic_seconds(uint64_t ns)
{
	if (ns % 1000000000u == 0)
		return (double)(ns / 1000000000u);
	return (double)ns / 1e9;
}

double obs_time_seconds(uint64_t t_ns, uint64_t start_ns)
{
	/*
	 * Exactly the reference's round(time.monotonic() - start, 6): two
	 * doubles subtracted, then rounded. Rounding the exact nanosecond
	 * difference instead differs at half-microsecond ties.
	 */
	double now = monotonic_seconds(t_ns), start = monotonic_seconds(start_ns);

	return round6(now > start ? now - start : 0.0);
}

static void add_int(struct strbuf *sb, int64_t v)
{
	char buf[FLOAT_REPR_MAX];

	strbuf_add(sb, buf, int64_repr(v, buf));
}

static void add_double(struct strbuf *sb, double v)
{
	char buf[FLOAT_REPR_MAX];

	strbuf_add(sb, buf, float_repr(v, buf));
}

static void add_value(struct strbuf *sb, const struct obs *o)
{
	const union num64 *vals;
	const uint8_t *kinds;
	uint32_t i;

	if (o->kind == OBS_INT) {
		add_int(sb, o->scalar.i);
		return;
	}
	if (o->kind == OBS_DOUBLE) {
		add_double(sb, o->scalar.d);
		return;
	}
	vals = obs_values(o);
	kinds = o->elem_kinds ? obs_kinds(o) : NULL;
	strbuf_addc(sb, '[');
	for (i = 0; i < o->n_values; i++) {
		if (i)
			strbuf_addc(sb, ',');
		if (!kinds || kinds[i] == ELEM_DOUBLE)
			add_double(sb, vals[i].d);
		else if (kinds[i] == ELEM_INT)
			add_int(sb, vals[i].i);
		else
			strbuf_add(sb, "null", 4);
	}
	strbuf_addc(sb, ']');
}

static void add_label_value(struct strbuf *sb, const struct case_data *cd,
			    const struct obs_label *l)
{
	switch (l->type) {
	case KSFT_METRIC_STRING:
		json_add_string(sb, intern_str(&cd->strings, l->v.s),
				intern_len(&cd->strings, l->v.s));
		break;
	case KSFT_METRIC_INT:
		add_int(sb, l->v.i);
		break;
	case KSFT_METRIC_DOUBLE:
		add_double(sb, l->v.d);
		break;
	default:
		strbuf_adds(sb, l->v.b ? "true" : "false");
	}
}

enum fixed_key { K_NAME, K_SHAPE, K_TIME, K_VALUE, K_NONE };
static const char *const fixed_keys[] = { "name", "shape", "time", "value" };

static void add_fixed(struct strbuf *sb, const struct case_data *cd,
		      const struct obs *o, enum fixed_key k, uint64_t start_ns)
{
	switch (k) {
	case K_NAME:
		strbuf_add(sb, "\"name\":", 7);
		json_add_string(sb, intern_str(&cd->strings, o->name),
				intern_len(&cd->strings, o->name));
		break;
	case K_SHAPE:
		strbuf_add(sb, "\"shape\":", 8);
		json_add_string(sb, intern_str(&cd->strings, o->shape),
				intern_len(&cd->strings, o->shape));
		break;
	case K_TIME:
		strbuf_add(sb, "\"time\":", 7);
		add_double(sb, obs_time_seconds(o->t_ns, start_ns));
		break;
	default:
		strbuf_add(sb, "\"value\":", 8);
		add_value(sb, o);
	}
}

void obs_format(struct strbuf *sb, const struct case_data *cd,
		const struct obs *o, uint64_t start_ns)
{
	const struct obs_label *labels = obs_labels(o);
	uint16_t order[64], *ord = order, i, j;
	unsigned k = K_NAME;
	uint16_t n = o->n_labels;
	struct strbuf heap = STRBUF_INIT;

	if (n > sizeof(order) / sizeof(order[0]) && ksftm_emergency) {
		/* No malloc in a signal handler; it runs single-threaded. */
		static uint16_t emergency_order[OBS_MAX_LABELS];

		ord = emergency_order;
	} else if (n > sizeof(order) / sizeof(order[0])) {
		if (strbuf_reserve(&heap, n * sizeof(*ord))) {
			sb->oom = 1;
			return;
		}
		ord = (uint16_t *)(void *)heap.data;
	}
	/* Insertion sort of label keys: there are a handful per observation. */
	for (i = 0; i < n; i++) {
		const char *key = intern_str(&cd->strings, labels[i].key);

		for (j = i; j > 0 &&
		     strcmp(intern_str(&cd->strings, labels[ord[j - 1]].key), key) > 0; j--)
			ord[j] = ord[j - 1];
		ord[j] = i;
	}
	strbuf_addc(sb, '{');
	for (i = 0; i < n || k < K_NONE;) {
		const struct obs_label *l = i < n ? &labels[ord[i]] : NULL;

		if (i + (k - K_NAME) > 0)
			strbuf_addc(sb, ',');
		if (!l || (k < K_NONE &&
			   strcmp(fixed_keys[k], intern_str(&cd->strings, l->key)) < 0)) {
			add_fixed(sb, cd, o, (enum fixed_key)k, start_ns);
			k++;
			continue;
		}
		json_add_string(sb, intern_str(&cd->strings, l->key),
				intern_len(&cd->strings, l->key));
		strbuf_addc(sb, ':');
		add_label_value(sb, cd, l);
		i++;
	}
	strbuf_addc(sb, '}');
	strbuf_free(&heap);
}
