/*
 * JSON numbers at parse speed: the grammar is checked here, short decimals
 * are converted exactly (Clinger's fast path: an integer mantissa below
 * 2^53 times or divided by an exact power of ten is one correctly rounded
 * IEEE operation), everything else goes to strtod_l in the C locale, so
 * the result always equals what jansson (strtod) produces.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "float_repr.h"
#include "number.h"

static const double pow10_exact[23] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void c_locale_init(void)
{
	c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
}

static int slow_parse(const char *s, const char *end, double *out)
{
	char buf[128], *e;
	size_t n = (size_t)(end - s);
	char *tmp = NULL;
	const char *p = buf;
	double v;

	pthread_once(&c_locale_once, c_locale_init);
	if (n < sizeof(buf)) {
		memcpy(buf, s, n);
		buf[n] = '\0';
	} else {
		tmp = malloc(n + 1);
		if (!tmp)
			return -ENOMEM;
		memcpy(tmp, s, n);
		tmp[n] = '\0';
		p = tmp;
	}
	v = c_locale ? strtod_l(p, &e, c_locale) : strtod(p, &e);
	free(tmp);
	if (!isfinite(v))
		return -EINVAL;
	*out = v;
	return 0;
}

/*
 * The shortest round-trip text of a double (Python's repr, our producer's
 * float_repr()): 17 digits, past Clinger's fast path. The mantissa's
 * double over the exact power of ten is two roundings from the value, at
 * most an ulp or so; of it and its two neighbours, the one whose shortest
 * text is the input byte for byte is what strtod gives (a shortest text
 * reads back as its double). 1 and *@out, else 0 (ask strtod).
 */
static int repr_parse(const char *s, const char *end, uint64_t mant, int exp10, int neg,
		      double *out)
{
	char buf[FLOAT_REPR_MAX];
	size_t n = (size_t)(end - s);
	double v;
	int k;

	if (exp10 < -22 || exp10 > 22 || n >= FLOAT_REPR_MAX)
		return 0;
	v = (double)mant;
	v = exp10 < 0 ? v / pow10_exact[-exp10] : v * pow10_exact[exp10];
	if (neg)
		v = -v;
	for (k = 0; k < 3; k++) {
		double c = k == 0 ? v : nextafter(v, k == 1 ? INFINITY : -INFINITY);

		if (isfinite(c) && float_repr(c, buf) == n && !memcmp(buf, s, n)) {
			*out = c;
			return 1;
		}
	}
	return 0;
}

static inline int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

int number_parse(const char *s, const char *end, const char **next,
		 double *out)
{
	const char *p = s;
	uint64_t mant = 0;
	int neg = 0, sig = 0, exp10 = 0, exact = 1, int_digits = 0, is_int = 1;

	if (p < end && *p == '-') {
		neg = 1;
		p++;
	}
	if (p >= end || !is_digit(*p))
		return -EINVAL;
	if (*p == '0') {
		p++;
		int_digits = 1;
	} else {
		while (p < end && is_digit(*p)) {
			if (sig < 19) {
				mant = mant * 10 + (uint64_t)(*p - '0');
				sig++;
			} else {
				exact = 0;
				exp10++;
			}
			int_digits++;
			p++;
		}
	}
	if (p < end && *p == '.') {
		p++;
		is_int = 0;
		if (p >= end || !is_digit(*p))
			return -EINVAL;
		while (p < end && is_digit(*p)) {
			if (mant == 0 && *p == '0') {
				exp10--;	/* leading zero: not significant */
			} else if (sig < 19) {
				mant = mant * 10 + (uint64_t)(*p - '0');
				sig++;
				exp10--;
			} else if (*p != '0') {
				exact = 0;
			}
			p++;
		}
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		int eneg = 0, e = 0;

		is_int = 0;
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			eneg = *p++ == '-';
		if (p >= end || !is_digit(*p))
			return -EINVAL;
		while (p < end && is_digit(*p)) {
			if (e < 100000)
				e = e * 10 + (*p - '0');
			p++;
		}
		exp10 += eneg ? -e : e;
	}
	*next = p;
	/* jansson keeps integers as json_int_t and rejects larger ones. */
	if (is_int && int_digits > 18)
		return -EINVAL;
	if (is_int && mant == 0)
		neg = 0;	/* jansson reads "-0" as the integer 0 */
	if (exact && mant <= (1ull << 53) && exp10 >= -22 && exp10 <= 22) {
		double v = (double)mant;

		v = exp10 < 0 ? v / pow10_exact[-exp10] : v * pow10_exact[exp10];
		*out = neg ? -v : v;
		return 0;
	}
	if (mant == 0 && exact) {
		*out = neg ? -0.0 : 0.0;
		return 0;
	}
	if (exact && !is_int && repr_parse(s, p, mant, exp10, neg, out))
		return 0;
	return slow_parse(s, p, out);
}
