/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers shared by the ksft-iperf3 and ksft-kperf command lines. */
#ifndef KSFTM_EXAMPLE_CLI_UTIL_H
#define KSFTM_EXAMPLE_CLI_UTIL_H

#include <stddef.h>

/**
 * ex_fmt_double() - the shortest "%.Ng" that reads back as @v, with ".0"
 * added to integral values so that it stays a JSON real. @return @buf.
 */
const char *ex_fmt_double(double v, char buf[40]);

/**
 * ex_read_file() - read a whole file (at most 64 MiB)
 * @return 0 and a malloc'd NUL-terminated *@text, or a negative errno with
 * *@err = "PATH: reason".
 */
int ex_read_file(const char *path, char **text, size_t *len, char **err);

/**
 * ex_take_words() - collect the words of a "--remote CMD ..." option
 * @argv, @i: the arguments and the index of the first word after the option
 * @out:     receives a malloc'd NULL-terminated array of borrowed words
 *           (one argument holding spaces is split on whitespace into copies
 *           owned by *@store)
 *
 * Words are taken up to the next argument starting with "--" (not
 * consumed: a lone "--" keeps its meaning for the caller). @return the index
 * after the last consumed argument, or -1 on ENOMEM or an empty list.
 */
int ex_take_words(int argc, char **argv, int i, const char ***out, char **store);

/**
 * ex_parse_int() - a decimal integer option value in [@min, @max]
 * @prog, @what: for the message ("PROG: bad WHAT: TEXT" on stderr)
 * @return 0 with *@out set, or -1.
 */
int ex_parse_int(const char *prog, const char *s, const char *what, int min,
		 int max, int *out);

#endif
