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

#include "opts_size.h"
#include "proc.h"

/**
 * ex_opts_copy() - take a caller's options struct into @out (@out_size
 * bytes, a size_t size first)
 * @what: the struct's name, for the message
 *
 * The rule is the libraries' own (lib/common/opts_size.h): a smaller struct
 * (an older caller) is fine and the fields it lacks read as zero, the
 * runners' defaults; a larger one (a newer caller) is fine only if every
 * byte this code does not know is zero. @return 0 with @out filled and its
 * size field set to @out_size, or -EINVAL with *@err (if @err) = a
 * malloc'd message naming the first unknown byte that is set.
 */
static inline int ex_opts_copy(void *out, size_t out_size, const void *in,
			       const char *what, char **err)
{
	const unsigned char *bytes = (const unsigned char *)in;
	size_t sz, i;

	if (!in)
		return ex_errf(err, -EINVAL, "%s: NULL options", what);
	memset(out, 0, out_size);
	switch (ksftm_opts_copy(out, out_size, in, &sz)) {
	case KSFTM_OPTS_OK:
		return 0;
	case KSFTM_OPTS_BAD_SIZE:
		return ex_errf(err, -EINVAL, "%s: options size %zu is not the size of any "
			       "version of the struct (use the _OPTS_INIT macro)", what, sz);
	default:
		for (i = out_size; i < sz && !bytes[i]; i++)
			;
		return ex_errf(err, -EINVAL, "%s: options set a field unknown to this "
			       "build (byte %zu of %zu, known size %zu)", what, i, sz,
			       out_size);
	}
}

#endif
