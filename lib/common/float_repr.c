/*
 * Python-compatible repr(float) / str(int) without snprintf/strtod loops:
 * shortest digits by Ryu, then Python's float_repr_style='short' layout.
 * Ryu: Ulf Adams, "Ryu: fast float-to-string conversion", PLDI 2018.
 */
#include <stdbool.h>
#include <string.h>

#include "float_repr.h"
#include "pow5_table.h"

#define MANTISSA_BITS 52
#define EXPONENT_BITS 11
#define EXPONENT_BIAS 1023

/* "00".."99": emitting two digits per division halves the divisions. */
static const char DIGITS2[200] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* __extension__: 128-bit integers are a GCC/Clang extension (-Wpedantic). */
__extension__ typedef unsigned __int128 uint128;

/* Shortest digits: value == mantissa * 10^exponent. */
struct decimal64 {
	uint64_t mantissa;
	int32_t exponent;
};

/* bitlength(5^e) for 0 <= e <= 3528 (ceil(log2(5^e)), and 1 for e == 0). */
static inline int32_t pow5bits(int32_t e)
{
	return (int32_t)((((uint32_t)e * 1217359u) >> 19) + 1);
}

/* floor(log10(2^e)) for 0 <= e <= 1650. */
static inline uint32_t log10_pow2(int32_t e)
{
	return ((uint32_t)e * 78913u) >> 18;
}

/* floor(log10(5^e)) for 0 <= e <= 2620. */
static inline uint32_t log10_pow5(int32_t e)
{
	return ((uint32_t)e * 732923u) >> 20;
}

static inline uint32_t pow5_factor(uint64_t v)
{
	uint32_t n = 0;

	while (v % 5 == 0) {	/* v != 0: callers pass 4*m2 +- small */
		v /= 5;
		n++;
	}
	return n;
}

static inline bool multiple_of_pow5(uint64_t v, uint32_t p)
{
	return pow5_factor(v) >= p;
}

static inline bool multiple_of_pow2(uint64_t v, uint32_t p)
{
	return (v & ((UINT64_C(1) << p) - 1)) == 0;
}

/* (m * mul) >> j for the 125-bit @mul, j >= 64; the product fits 128 bits
 * after dropping the low word because m < 2^55. */
static inline uint64_t mul_shift(uint64_t m, const uint64_t *mul, int32_t j)
{
	uint128 lo = (uint128)m * mul[0];
	uint128 hi = (uint128)m * mul[1];

	return (uint64_t)(((lo >> 64) + hi) >> (j - 64));
}

/*
 * Ryu's core (section 3 of the paper): scale the halfway points u = 4m-1-s,
 * v = 4m, w = 4m+2 to decimal, then drop digits while the interval still
 * holds a shorter number, rounding the centre to nearest (ties to even).
 */
static struct decimal64 ryu_d2d(uint64_t ieee_mant, uint32_t ieee_exp)
{
	int32_t e2, e10, removed = 0;
	uint64_t m2, mv, vr, vp, vm, output;
	uint32_t mm_shift;
	bool even, vm_tz = false, vr_tz = false;
	uint8_t last_removed = 0;
	struct decimal64 d;

	if (ieee_exp == 0) {
		/* Subnormal; the -2 accounts for the factor 4 below. */
		e2 = 1 - EXPONENT_BIAS - MANTISSA_BITS - 2;
		m2 = ieee_mant;
	} else {
		e2 = (int32_t)ieee_exp - EXPONENT_BIAS - MANTISSA_BITS - 2;
		m2 = (UINT64_C(1) << MANTISSA_BITS) | ieee_mant;
	}
	/* Round-half-even on input means the bounds round-trip when m2 is even. */
	even = (m2 & 1) == 0;
	mv = 4 * m2;
	/* 0 at an exact power of two (above the smallest normal): the gap
	 * to the next lower double is half as wide there. */
	mm_shift = ieee_mant != 0 || ieee_exp <= 1;

	if (e2 >= 0) {
		/* q is one short of the exact scale (for e2 > 3) so the loops below
		 * always remove a digit and so see the digit that decides rounding. */
		uint32_t q = log10_pow2(e2) - (e2 > 3);
		int32_t k = DOUBLE_POW5_INV_BITCOUNT + pow5bits((int32_t)q) - 1;
		int32_t i = -e2 + (int32_t)q + k;
		const uint64_t *mul = DOUBLE_POW5_INV_SPLIT[q];

		e10 = (int32_t)q;
		vr = mul_shift(4 * m2, mul, i);
		vp = mul_shift(4 * m2 + 2, mul, i);
		vm = mul_shift(4 * m2 - 1 - mm_shift, mul, i);
		if (q <= 21) {
			/* Scaled values are exact only if 5^q divides them, which
			 * mv < 2^55 allows for small q only; the paper shows that
			 * checking q <= 21 is enough. */
			if (mv % 5 == 0)
				vr_tz = multiple_of_pow5(mv, q);
			else if (even)
				vm_tz = multiple_of_pow5(mv - 1 - mm_shift, q);
			else
				vp -= multiple_of_pow5(mv + 2, q);
		}
	} else {
		uint32_t q = log10_pow5(-e2) - (-e2 > 1);
		int32_t i = -e2 - (int32_t)q;
		int32_t k = pow5bits(i) - DOUBLE_POW5_BITCOUNT;
		int32_t j = (int32_t)q - k;
		const uint64_t *mul = DOUBLE_POW5_SPLIT[i];

		e10 = (int32_t)q + e2;
		vr = mul_shift(4 * m2, mul, j);
		vp = mul_shift(4 * m2 + 2, mul, j);
		vm = mul_shift(4 * m2 - 1 - mm_shift, mul, j);
		if (q <= 1) {
			/* mv has at least q trailing binary zeros (it is 4*m2). */
			vr_tz = true;
			if (even)
				vm_tz = mm_shift == 1;
			else
				--vp;	/* exclude the upper bound */
		} else if (q < 63) {
			/* vr = floor(mv * 5^i / 2^q) is exact iff 2^q divides mv. */
			vr_tz = multiple_of_pow2(mv, q);
		}
	}

	if (vm_tz || vr_tz) {
		/* Rare path: exact values, so track trailing zeros to get ties
		 * and an included lower bound right. */
		for (;;) {
			uint64_t vp10 = vp / 10, vm10 = vm / 10, vr10;

			if (vp10 <= vm10)
				break;
			vr10 = vr / 10;
			vm_tz &= vm - 10 * vm10 == 0;
			vr_tz &= last_removed == 0;
			last_removed = (uint8_t)(vr - 10 * vr10);
			vr = vr10;
			vp = vp10;
			vm = vm10;
			removed++;
		}
		if (vm_tz) {
			for (;;) {
				uint64_t vm10 = vm / 10, vr10;

				if (vm - 10 * vm10 != 0)
					break;
				vr10 = vr / 10;
				vr_tz &= last_removed == 0;
				last_removed = (uint8_t)(vr - 10 * vr10);
				vr = vr10;
				vp /= 10;
				vm = vm10;
				removed++;
			}
		}
		/* Exactly halfway between two candidates: round to even. */
		if (vr_tz && last_removed == 5 && vr % 2 == 0)
			last_removed = 4;
		output = vr + ((vr == vm && (!even || !vm_tz)) || last_removed >= 5);
	} else {
		/* Common path: no exact ties possible, plain round-half-up. */
		bool round_up = false;

		if (vp / 100 > vm / 100) {
			/* Two digits at a time first: most doubles shed several. */
			round_up = vr % 100 >= 50;
			vr /= 100;
			vp /= 100;
			vm /= 100;
			removed += 2;
		}
		for (;;) {
			uint64_t vp10 = vp / 10, vm10 = vm / 10, vr10;

			if (vp10 <= vm10)
				break;
			vr10 = vr / 10;
			round_up = vr - 10 * vr10 >= 5;
			vr = vr10;
			vp = vp10;
			vm = vm10;
			removed++;
		}
		output = vr + (vr == vm || round_up);
	}
	d.mantissa = output;
	d.exponent = e10 + removed;
	return d;
}

/* Integers in [1, 2^53) are their own shortest form (the gap is <= 1, any
 * shorter number is >= 1 away): skip Ryu for them, common in metrics. */
static inline bool small_int(uint64_t ieee_mant, uint32_t ieee_exp,
			     struct decimal64 *d)
{
	uint64_t m2 = (UINT64_C(1) << MANTISSA_BITS) | ieee_mant;
	int32_t e2 = (int32_t)ieee_exp - EXPONENT_BIAS - MANTISSA_BITS;

	if (e2 > 0 || e2 < -MANTISSA_BITS)
		return false;
	if (m2 & ((UINT64_C(1) << -e2) - 1))
		return false;
	d->mantissa = m2 >> -e2;
	d->exponent = 0;
	while (d->mantissa % 10 == 0) {
		d->mantissa /= 10;
		d->exponent++;
	}
	return true;
}

static inline unsigned decimal_len(uint64_t v)
{
	unsigned n = 1;

	/* At most 17 digits come out of Ryu; 20 for int64. */
	while (v >= 10000) {
		v /= 10000;
		n += 4;
	}
	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* Write the @n digits of @v ending just before @end. */
static inline void put_digits(uint64_t v, char *end)
{
	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);

		v /= 100;
		end -= 2;
		memcpy(end, DIGITS2 + 2 * r, 2);
	}
	if (v >= 10) {
		end -= 2;
		memcpy(end, DIGITS2 + 2 * v, 2);
	} else {
		*--end = (char)('0' + v);
	}
}

size_t float_repr(double v, char *buf)
{
	uint64_t bits;
	uint64_t ieee_mant;
	uint32_t ieee_exp;
	struct decimal64 d;
	char *p = buf;
	int decpt;
	unsigned n;

	memcpy(&bits, &v, sizeof(bits));
	ieee_mant = bits & ((UINT64_C(1) << MANTISSA_BITS) - 1);
	ieee_exp = (uint32_t)(bits >> MANTISSA_BITS) & ((1u << EXPONENT_BITS) - 1);
	if (bits >> 63)
		*p++ = '-';
	if (ieee_exp == 0 && ieee_mant == 0) {
		memcpy(p, "0.0", 4);
		return (size_t)(p - buf) + 3;
	}
	if (!small_int(ieee_mant, ieee_exp, &d))
		d = ryu_d2d(ieee_mant, ieee_exp);

	n = decimal_len(d.mantissa);
	/* Python's decpt: value = 0.d1d2...dn * 10^decpt. */
	decpt = d.exponent + (int)n;

	if (decpt > 16 || decpt < -3) {
		/* d1[.d2...dn]e+XX, as CPython's format_float_short() 'r' mode. */
		int e = decpt - 1;

		put_digits(d.mantissa, p + 1 + n);
		p[0] = p[1];
		if (n > 1) {
			p[1] = '.';
			p += n + 1;
		} else {
			p += 1;
		}
		*p++ = 'e';
		if (e < 0) {
			*p++ = '-';
			e = -e;
		} else {
			*p++ = '+';
		}
		if (e >= 100) {
			*p++ = (char)('0' + e / 100);
			e %= 100;
		}
		memcpy(p, DIGITS2 + 2 * e, 2);	/* at least two digits */
		p += 2;
	} else if (decpt <= 0) {
		/* 0.000ddd */
		memcpy(p, "0.000", 2 + (size_t)-decpt);
		p += 2 - decpt;
		put_digits(d.mantissa, p + n);
		p += n;
	} else if ((unsigned)decpt < n) {
		/* ddd.ddd: write the digits one to the right, slide the integer
		 * part back over the gap and drop the point in. */
		put_digits(d.mantissa, p + 1 + n);
		memmove(p, p + 1, (size_t)decpt);
		p[decpt] = '.';
		p += n + 1;
	} else {
		/* ddd000.0: always a ".0" so the text reads back as a float. */
		put_digits(d.mantissa, p + n);
		p += n;
		memset(p, '0', (size_t)decpt - n);
		p += (size_t)decpt - n;
		memcpy(p, ".0", 2);
		p += 2;
	}
	*p = '\0';
	return (size_t)(p - buf);
}

size_t int64_repr(int64_t v, char *buf)
{
	/* Negate in unsigned arithmetic so INT64_MIN has a magnitude. */
	uint64_t u = v < 0 ? UINT64_C(0) - (uint64_t)v : (uint64_t)v;
	char *p = buf;
	unsigned n;

	if (v < 0)
		*p++ = '-';
	n = decimal_len(u);
	put_digits(u, p + n);
	p[n] = '\0';
	return (size_t)(p - buf) + n;
}
