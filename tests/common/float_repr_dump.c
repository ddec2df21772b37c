/*
 * Helper for float_repr_vs_python.py: reads native 8-byte doubles (raw bit
 * patterns) from stdin and prints float_repr() of each, one per line.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "float_repr.h"

int main(void)
{
	static double in[4096];
	static char out[4096 * FLOAT_REPR_MAX];
	size_t n, i, len;

	while ((n = fread(in, sizeof(in[0]), sizeof(in) / sizeof(in[0]), stdin)) > 0) {
		for (i = 0, len = 0; i < n; i++) {
			/* Non-finite values never reach float_repr() in the library. */
			if (isfinite(in[i]))
				len += float_repr(in[i], out + len);
			else
				len += (size_t)sprintf(out + len, "%s", isnan(in[i]) ? "nan" : "inf");
			out[len++] = '\n';
		}
		if (fwrite(out, 1, len, stdout) != len)
			return 1;
	}
	return ferror(stdin) || fflush(stdout) ? 1 : 0;
}
