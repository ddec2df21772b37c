/* Python-compatible number text: repr(float) and str(int) as json.dumps prints them. */
#ifndef KSFTM_FLOAT_REPR_H
#define KSFTM_FLOAT_REPR_H

#include <stddef.h>
#include <stdint.h>

/* Longest output of float_repr() plus the NUL: "-2.2250738585072014e-308". */
#define FLOAT_REPR_MAX 32

/*
 * Write the shortest round-trip decimal of finite @v exactly as Python's
 * repr(float) does ("0.1", "100.0", "1e+16", "1.1e-05", "-0.0"), NUL
 * terminated, into @buf (FLOAT_REPR_MAX bytes). Returns the length.
 * NaN and infinities are the caller's business (they are rejected earlier).
 */
size_t float_repr(double v, char *buf);

/* Decimal text of @v into @buf (at least 21 bytes); returns the length. */
size_t int64_repr(int64_t v, char *buf);

#endif
