/*
 * Caller-sized option structs (first member "size_t sz"), checked by one
 * rule, libbpf's: a caller built against an older, smaller struct is fine
 * and the fields it lacks keep this library's defaults (what zero means);
 * a caller built against a newer, larger struct is fine only if every byte
 * this library does not know is zero, since it cannot honour the rest.
 * Header-only so that programs beside the library (examples/sysmon) share it.
 */
#ifndef KSFTM_OPTS_SIZE_H
#define KSFTM_OPTS_SIZE_H

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "errmsg.h"

enum ksftm_opts_verdict {
	KSFTM_OPTS_OK = 0,
	/*
	 * sz is not the size of any version of a struct that starts with a
	 * size_t (zero, or not a multiple of its alignment): copying it
	 * could cut a pointer in half.
	 */
	KSFTM_OPTS_BAD_SIZE,
	KSFTM_OPTS_UNKNOWN,	/* non-zero bytes past what this library knows */
};

/*
 * Check @opts (the caller's struct, ->sz bytes long) against this build's
 * @known = sizeof(struct), and copy the bytes both know over @dst, which
 * holds the defaults; dst->sz is set to @known. @dst is left untouched
 * unless the verdict is KSFTM_OPTS_OK. *@user_sz receives the caller's sz
 * for the message. Reads no byte of @opts past its sz.
 */
static inline enum ksftm_opts_verdict
ksftm_opts_copy(void *dst, size_t known, const void *opts, size_t *user_sz)
{
	const unsigned char *p = (const unsigned char *)opts;
	size_t sz, i;

	memcpy(&sz, opts, sizeof(sz));
	*user_sz = sz;
	if (sz < sizeof(size_t) || sz % sizeof(size_t))
		return KSFTM_OPTS_BAD_SIZE;
	for (i = known; i < sz; i++)
		if (p[i])
			return KSFTM_OPTS_UNKNOWN;
	memcpy(dst, opts, sz < known ? sz : known);
	memcpy(dst, &known, sizeof(known));
	return KSFTM_OPTS_OK;
}

/*
 * ksftm_opts_copy() for a public call: @opts NULL keeps @dst's defaults;
 * a bad one fails with -EINVAL and a message naming @type (the struct).
 */
static inline int ksftm_opts_take(void *dst, size_t known, const void *opts, const char *type)
{
	size_t user_sz;

	switch (opts ? ksftm_opts_copy(dst, known, opts, &user_sz) : KSFTM_OPTS_OK) {
	case KSFTM_OPTS_BAD_SIZE:
		return ksftm_fail(EINVAL, "%s.sz %zu is not set or not a struct size", type,
				  user_sz);
	case KSFTM_OPTS_UNKNOWN:
		return ksftm_fail(EINVAL, "%s has non-zero fields this library does not know"
				  " (sz %zu > %zu)", type, user_sz, known);
	default:
		return 0;
	}
}

#endif
