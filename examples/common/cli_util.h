/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers shared by the ksft-iperf3 and ksft-kperf command lines. */
#ifndef KSFTM_EXAMPLE_CLI_UTIL_H
#define KSFTM_EXAMPLE_CLI_UTIL_H

#include <stddef.h>
#include <stdio.h>

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

/**
 * ex_opt_remote() - handle a "--remote" option just returned by getopt_long()
 * @prog: for the message ("PROG: --remote needs a command" on stderr)
 * @remote, @store: as for ex_take_words(); their previous values are freed
 *
 * Takes the words after "--remote" (or of "--remote=CMD") and moves optind
 * past them. @return 0, or -1 after the message.
 */
int ex_opt_remote(const char *prog, int argc, char **argv,
		  const char ***remote, char **store);

/**
 * ex_parse_file() - read @path whole and parse it with @parse
 * @res, @res_size: the result, zeroed first
 * @return what ex_read_file() or @parse returns.
 */
int ex_parse_file(const char *path,
		  int (*parse)(const char *text, size_t len, const char *name,
			       void *res, char **err),
		  void *res, size_t res_size, char **err);

/**
 * ex_cli_main() - dispatch "PROG parse ...", "PROG run ..." and "PROG --help"
 * @cmd_parse gets the arguments after "parse", @cmd_run those from "run" on
 * (for getopt). @return the exit code.
 */
int ex_cli_main(int argc, char **argv, void (*usage)(FILE *f),
		int (*cmd_parse)(int argc, char **argv),
		int (*cmd_run)(int argc, char **argv));

#endif
