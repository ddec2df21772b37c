/*
 * float_repr()/int64_repr() unit tests. Expected strings were printed by
 * Python 3's repr(); inputs are hex floats so they are exact bit patterns.
 */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "float_repr.h"
#include "line_format.h"

struct fcase {
	double v;
	const char *repr;
};

static void check_cases(const struct fcase *c, size_t n)
{
	char buf[FLOAT_REPR_MAX];
	size_t i, len;

	for (i = 0; i < n; i++) {
		len = float_repr(c[i].v, buf);
		ck_assert_msg(strcmp(buf, c[i].repr) == 0, "%a: got '%s', want '%s'",
			      c[i].v, buf, c[i].repr);
		ck_assert_uint_eq(len, strlen(c[i].repr));
		/* The sign only adds a '-': check the mirror image too. */
		len = float_repr(-c[i].v, buf);
		ck_assert(buf[0] == '-' && strcmp(buf + 1, c[i].repr) == 0);
		ck_assert_uint_eq(len, strlen(c[i].repr) + 1);
	}
}

#define CHECK_CASES(a) check_cases(a, sizeof(a) / sizeof(a[0]))

START_TEST(test_layout)
{
	/* Fixed notation iff -3 <= decpt <= 16 (value = 0.ddd * 10^decpt). */
	static const struct fcase c[] = {
		{ 0.0, "0.0" }, { 0.1, "0.1" }, { 100.0, "100.0" },
		{ 0x1.c6bf526340000p+49, "1000000000000000.0" },
		{ 0x1.1c37937e08000p+53, "1e+16" },
		{ 0x1.a36e2eb1c432dp-14, "0.0001" },
		{ 0x1.4f8b588e368f1p-17, "1e-05" },
		{ 1.1e-05, "1.1e-05" },
		{ 0x1.0624dd2f1a9fcp-10, "0.001" },
		{ 32.62285180182741, "32.62285180182741" },
		{ 9999999999999998.0, "9999999999999998.0" },
		{ 123456.789, "123456.789" },
		{ 0x1.6345785d8a000p+56, "1e+17" },
		{ 1.5e+16, "1.5e+16" },
		{ 0.00012, "0.00012" },
		{ 1.2e-05, "1.2e-05" },
	};
	CHECK_CASES(c);
}
END_TEST

START_TEST(test_negative_zero)
{
	char buf[FLOAT_REPR_MAX];

	ck_assert_uint_eq(float_repr(-0.0, buf), 4);
	ck_assert_str_eq(buf, "-0.0");
	ck_assert_uint_eq(float_repr(0.0, buf), 3);
	ck_assert_str_eq(buf, "0.0");
}
END_TEST

START_TEST(test_subnormal)
{
	static const struct fcase c[] = {
		{ 0x0.0000000000001p-1022, "5e-324" },
		{ 0x0.0000000000002p-1022, "1e-323" },
		{ 0x0.0000000000003p-1022, "1.5e-323" },
		{ 0x0.05af3107a4000p-1022, "4.94065645841247e-310" },
		{ 0x0.8000000000000p-1022, "1.1125369292536007e-308" },
		{ 0x0.ffffffffffffep-1022, "2.2250738585072004e-308" },
		{ 0x0.fffffffffffffp-1022, "2.225073858507201e-308" },
		{ 0x1.0000000000000p-1022, "2.2250738585072014e-308" },	/* DBL_MIN */
		{ 0x1.0000000000001p-1022, "2.225073858507202e-308" },
		{ 0x0.00000000007e8p-1022, "1e-320" },
	};
	CHECK_CASES(c);
}
END_TEST

START_TEST(test_dbl_max)
{
	static const struct fcase c[] = {
		{ DBL_MAX, "1.7976931348623157e+308" },
		{ 0x1.ffffffffffffep+1023, "1.7976931348623155e+308" },
		{ 0x1.1ccf385ebc8a0p+1023, "1e+308" },
	};
	CHECK_CASES(c);
}
END_TEST

START_TEST(test_powers)
{
	static const struct fcase c[] = {
		{ 0x1p-1060, "8.095e-320" },
		{ 0x1p-1021, "4.450147717014403e-308" },
		{ 0x1p-100, "7.888609052210118e-31" },
		{ 0x1p-10, "0.0009765625" },
		/* ...0625 is a tie, but the even ...062 lies in the narrower
		 * gap below the power of two and would read back lower. */
		{ 0x1p-24, "5.960464477539063e-08" },
		{ 0x1p-1, "0.5" }, { 0x1p0, "1.0" }, { 0x1p1, "2.0" },
		{ 0x1p10, "1024.0" },
		{ 0x1p52, "4503599627370496.0" },
		{ 0x1p53, "9007199254740992.0" },
		{ 0x1p54, "1.8014398509481984e+16" },
		{ 0x1p63, "9.223372036854776e+18" },
		{ 0x1p64, "1.8446744073709552e+19" },
		{ 0x1p100, "1.2676506002282294e+30" },
		{ 0x1p500, "3.273390607896142e+150" },
		{ 0x1p1000, "1.0715086071862673e+301" },
		{ 0x1p1023, "8.98846567431158e+307" },
		{ 0x0.730d67819e8d2p-1022, "1e-308" },
		{ 0x1.1fa182c40c60dp-1020, "1e-307" },
		{ 0x1.bff2ee48e0530p-333, "1e-100" },
		{ 0x1.70ef54646d497p-57, "1e-17" },
		{ 0x1.cd2b297d889bcp-54, "1e-16" },
		{ 10.0, "10.0" },
		{ 0x1.b1ae4d6e2ef50p+69, "1e+21" },
		{ 0x1.0f0cf064dd592p+73, "1e+22" },
		{ 0x1.52d02c7e14af6p+76, "1e+23" },	/* not exact: 9.99...e22 */
		{ 0x1.249ad2594c37dp+332, "1e+100" },
		{ 0x1.7e43c8800759cp+996, "1e+300" },
	};
	CHECK_CASES(c);
}
END_TEST

START_TEST(test_sum_point_three)
{
	volatile double a = 0.1, b = 0.2;	/* computed at run time */
	char buf[FLOAT_REPR_MAX];

	float_repr(a + b, buf);
	ck_assert_str_eq(buf, "0.30000000000000004");
}
END_TEST

START_TEST(test_significant_digits)
{
	static const struct fcase c[] = {
		{ 0x1.f9add3746f62ep-4, "0.123456789012345" },		/* 15 */
		{ 0x1.3c0ca428c59ddp+0, "1.23456789012345" },
		{ 0x1.c12218377de40p+46, "123456789012345.0" },
		{ 0x1.18b54f22aeb00p+50, "1234567890123456.0" },	/* 16 */
		{ 0x1.3c0ca428c59f8p+0, "1.234567890123456" },
		{ 0x1.f9add3746f659p-4, "0.1234567890123456" },
		{ 0x1.3c0ca428c59fbp+0, "1.2345678901234567" },	/* 17 */
		{ 0x1.5ee2a2eb5a5c4p+53, "1.2345678901234568e+16" },
		{ 0x1.fffffffffffffp+52, "9007199254740991.0" },
		{ 0x1.0000000000001p+53, "9007199254740994.0" },
		{ 0x1.5555555555555p-2, "0.3333333333333333" },
		{ 0x1.5555555555555p-1, "0.6666666666666666" },
		{ 0x1.921fb54442d18p+1, "3.141592653589793" },
		{ 0x1.5bf0a8b145769p+1, "2.718281828459045" },
	};
	CHECK_CASES(c);
}
END_TEST

START_TEST(test_ties)
{
	static const struct fcase c[] = {
		/* Exactly halfway between two shortest candidates: even digit. */
		{ 0x1.1b66687b7abb6p+49, "623203260495222.8" },		/* .75 */
		{ 0x1.fa36fd398d412p+49, "1113178120592002.2" },	/* .25 */
		{ 0x1.4ff78d7c3b27cp+47, "184699812978067.88" },	/* .875 */
		/* Two shortest strings round-trip; the closer one wins
		 * (...974e-163 and ...704e+21 also read back as these). */
		{ 0x1.feb89414c343cp-541, "2.7715077941825975e-163" },
		{ 0x1.47159c324c985p+71, "3.0168212434893705e+21" },
	};
	CHECK_CASES(c);
}
END_TEST

/* splitmix64: tiny, seedable, good enough to spread bit patterns. */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static double random_finite(uint64_t *s)
{
	double v;

	do {
		uint64_t bits = rng_next(s);

		memcpy(&v, &bits, sizeof(v));
	} while (!isfinite(v));
	return v;
}

/* A random decimal of 1..17 digits with a random exponent: Ryu's exact
 * (trailing zero) paths only trigger on such "short" values. */
static double random_short_decimal(uint64_t *s)
{
	char txt[64];
	double v;

	do {	/* too big a decimal overflows: float_repr() takes finite only */
		int k = 1 + (int)(rng_next(s) % 17);
		uint64_t d = rng_next(s) % (uint64_t)pow(10, k);
		int e = (int)(rng_next(s) % 640) - 330;

		snprintf(txt, sizeof(txt), "%" PRIu64 "e%d", d, e);
		v = strtod(txt, NULL);
	} while (!isfinite(v));
	return v;
}

static int same_bits(double a, double b)
{
	return memcmp(&a, &b, sizeof(a)) == 0;
}

START_TEST(test_roundtrip_random)
{
	uint64_t seed = 0x5eed;
	char buf[FLOAT_REPR_MAX];
	int i;

	for (i = 0; i < 300000; i++) {
		double v = i % 3 ? random_finite(&seed) : random_short_decimal(&seed);
		size_t len = float_repr(v, buf);

		ck_assert_uint_lt(len, FLOAT_REPR_MAX);
		ck_assert_uint_eq(len, strlen(buf));
		ck_assert_msg(same_bits(strtod(buf, NULL), v), "%a -> '%s'", v, buf);
	}
}
END_TEST

/* Significant digits of a decimal text: "-0.00120e5" -> "12", value
 * 12 * 10^exp. Returns the digit count. */
static int sig_digits(const char *s, char *dig, int *exp)
{
	int n = 0, frac = 0, seen_point = 0;
	char *end;

	for (; *s && *s != 'e' && *s != 'E'; s++) {
		if (*s == '.') {
			seen_point = 1;
		} else if (*s >= '0' && *s <= '9') {
			if (n || *s != '0')
				dig[n++] = *s;
			frac += seen_point;
		}
	}
	*exp = (*s ? (int)strtol(s + 1, &end, 10) : 0) - frac;
	while (n > 1 && dig[n - 1] == '0') {
		n--;
		(*exp)++;
	}
	dig[n] = '\0';
	return n;
}

static int reads_back(uint64_t digits, int exp, double v)
{
	char txt[64];

	snprintf(txt, sizeof(txt), "%" PRIu64 "e%d", digits, exp);
	return same_bits(strtod(txt, NULL), v);
}

/* No (n-1)-digit decimal reads back as @v, and if the correctly rounded
 * n-digit decimal reads back, it is what we printed (closest wins). */
static void check_shortest(double v)
{
	char ours[FLOAT_REPR_MAX], txt[64], dig[32], dig2[32];
	int n, e, e2;
	uint64_t d, p10;

	v = fabs(v);	/* reads_back() builds unsigned text */
	if (v == 0)
		return;	/* no digits to drop */
	float_repr(v, ours);
	n = sig_digits(ours, dig, &e);
	if (n >= 2) {
		snprintf(txt, sizeof(txt), "%.*e", n - 2, v);
		sig_digits(txt, dig2, &e2);
		/* Re-pad to n-1 digits: trailing zeros were stripped. */
		d = strtoull(dig2, NULL, 10);
		while ((int)strlen(dig2) < n - 1) {
			strcat(dig2, "0");
			d *= 10;
			e2--;
		}
		ck_assert_msg(!reads_back(d, e2, v) && !reads_back(d + 1, e2, v) &&
			      !reads_back(d - 1, e2, v), "%a: '%s' not shortest", v, ours);
		/* At 10..0 the lower neighbour is 99..9 one decade down. */
		for (p10 = 1; p10 < d; p10 *= 10)
			;
		if (p10 == d)
			ck_assert(!reads_back(d * 10 - 1, e2 - 1, v));
	}
	snprintf(txt, sizeof(txt), "%.*e", n - 1, v);
	if (same_bits(strtod(txt, NULL), v)) {
		sig_digits(txt, dig2, &e2);
		ck_assert_msg(strcmp(dig, dig2) == 0 && e == e2,
			      "%a: '%s' but '%s' is closer", v, ours, txt);
	}
}

START_TEST(test_shortest_sample)
{
	uint64_t seed = 42;
	int i;

	for (i = 0; i < 40000; i++)
		check_shortest(i % 2 ? random_finite(&seed) : random_short_decimal(&seed));
	check_shortest(DBL_MAX);
	check_shortest(DBL_MIN);
	check_shortest(0x1p-1074);
}
END_TEST

START_TEST(test_short_decimal_verbatim)
{
	/* <= 15 significant digits always survive a double, so the shortest
	 * repr must give back exactly those digits. */
	uint64_t seed = 7;
	char txt[64], ours[FLOAT_REPR_MAX], want[32], got[32];
	int i, ew, eg;

	for (i = 0; i < 50000; i++) {
		int k = 1 + (int)(rng_next(&seed) % 15);
		uint64_t d = 1 + rng_next(&seed) % ((uint64_t)pow(10, k) - 1);
		/* Stay normal and finite: 1e-300 .. 1e308. */
		int e = (int)(rng_next(&seed) % (unsigned)(609 - k)) - 300;
		double v;

		snprintf(txt, sizeof(txt), "%" PRIu64 "e%d", d, e);
		v = strtod(txt, NULL);
		float_repr(v, ours);
		sig_digits(txt, want, &ew);
		sig_digits(ours, got, &eg);
		ck_assert_msg(strcmp(want, got) == 0 && ew == eg, "%s -> '%s'", txt, ours);
	}
}
END_TEST

START_TEST(test_int64)
{
	char buf[21];

	ck_assert_uint_eq(int64_repr(0, buf), 1);
	ck_assert_str_eq(buf, "0");
	ck_assert_uint_eq(int64_repr(-1, buf), 2);
	ck_assert_str_eq(buf, "-1");
	ck_assert_uint_eq(int64_repr(INT64_MAX, buf), 19);
	ck_assert_str_eq(buf, "9223372036854775807");
	ck_assert_uint_eq(int64_repr(INT64_MIN, buf), 20);
	ck_assert_str_eq(buf, "-9223372036854775808");
	int64_repr(1000000, buf);
	ck_assert_str_eq(buf, "1000000");
	int64_repr(-42, buf);
	ck_assert_str_eq(buf, "-42");
}
END_TEST

/*
 * The "time" field as the reference computes round(monotonic() - start, 6)
 * (expected strings printed by Python). Most pairs are nanosecond
 * half-microsecond ties that the double arithmetic decides one way or the
 * other; rounding the nanosecond count gave the other answer for them.
 */
START_TEST(test_time_ties)
{
	static const struct {
		uint64_t start, now;
		const char *repr;
	} c[] = {
		{ 130846961964211u, 131135329151711u, "288.367187" },
		{ 8180852911374u, 8300329473874u, "119.476563" },
		{ 841329320777414u, 841417567813914u, "88.247037" },
		{ 979491616093387u, 979500334017887u, "8.717925" },
		{ 83472860u, 87665587360u, "87.582115" },
		{ 65707874180482u, 66532014227982u, "824.140047" },
		/* Exact binary ties (odd multiples of 1/128 s): half to even. */
		{ 0, 7812500u, "0.007812" },
		{ 0, 23437500u, "0.023438" },
		{ 5000000000u, 13601562500u, "8.601562" },
		{ 0, 2500u, "3e-06" },
		{ 0, 500u, "0.0" },
		{ 7, 7, "0.0" },
	};
	char buf[FLOAT_REPR_MAX];
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		float_repr(obs_time_seconds(c[i].now, c[i].start), buf);
		ck_assert_msg(!strcmp(buf, c[i].repr), "start %" PRIu64 " now %" PRIu64
			      ": got %s, want %s", c[i].start, c[i].now, buf, c[i].repr);
	}
	/* round(x, 6) itself on exact ties and across the 2^64 split. */
	ck_assert(round6(0.0078125) == 0.007812);
	ck_assert(round6(0.0234375) == 0.023438);
	ck_assert(round6(-0.0078125) == -0.007812);
	ck_assert(round6(1e-300) == 0.0);
	ck_assert(round6(4503599627370497.0) == 4503599627370497.0);
	ck_assert(round6(0x1p-20) == 1e-06);	/* 0.95367431640625e-6 */
	ck_assert(round6(0x1p-21) == 0.0);	/* 0.476837158203125e-6 */
}
END_TEST

Suite *make_suite(void)
{
	struct ck_case tc[] = {
		{ "layout", test_layout },
		{ "negative_zero", test_negative_zero },
		{ "subnormal", test_subnormal },
		{ "dbl_max", test_dbl_max },
		{ "powers", test_powers },
		{ "sum_point_three", test_sum_point_three },
		{ "significant_digits", test_significant_digits },
		{ "ties", test_ties },
		{ "roundtrip_random", test_roundtrip_random },
		{ "shortest_sample", test_shortest_sample },
		{ "short_decimal_verbatim", test_short_decimal_verbatim },
		{ "int64", test_int64 },
		{ "time_ties", test_time_ties },
	};

	return ck_suite_of("float_repr", tc, sizeof(tc) / sizeof(tc[0]));
}
