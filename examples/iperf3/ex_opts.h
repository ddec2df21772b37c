/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Options structs of the example runners start with their size, so that
 * fields can be appended without breaking callers built against an older
 * or newer header (libbpf's OPTS_VALID rule).
 */
#ifndef KSFTM_EXAMPLE_EX_OPTS_H
#define KSFTM_EXAMPLE_EX_OPTS_H

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "proc.h"

/**
 * ex_opts_copy() - take a caller's options struct into @out (@out_size
 * bytes, a size_t size first)
 * @what: the struct's name, for the message
 *
 * A smaller struct (an older caller) is fine: the fields it lacks read as
 * zero. A larger one (a newer caller) is fine only if every byte this code
 * does not know is zero; a set unknown field is an error naming its offset.
 * @return 0 with @out filled and its size field set to @out_size, or
 * -EINVAL with *@err (if @err) = a malloc'd message.
 */
static inline int ex_opts_copy(void *out, size_t out_size, const void *in,
			       const char *what, char **err)
{
	const unsigned char *bytes = (const unsigned char *)in;
	size_t sz, i;

	if (!in)
		return ex_errf(err, -EINVAL, "%s: NULL options", what);
	memcpy(&sz, in, sizeof(sz));
	if (sz < sizeof(sz))
		return ex_errf(err, -EINVAL, "%s: options size %zu is too small to be "
			       "initialised (use the _OPTS_INIT macro)", what, sz);
	for (i = out_size; i < sz; i++)
		if (bytes[i])
			return ex_errf(err, -EINVAL, "%s: options set a field unknown to this "
				       "build (byte %zu of %zu, known size %zu)", what, i, sz,
				       out_size);
	memset(out, 0, out_size);
	memcpy(out, in, sz < out_size ? sz : out_size);
	memcpy(out, &out_size, sizeof(out_size));
	return 0;
}

#endif
