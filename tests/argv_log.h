/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For the remote-quoting tests: words a remote shell must not interpret,
 * and the record standin/argv-log and standin/kperf-server write of how
 * they were called ("LEN:WORD," per word, one line per call).
 */
#ifndef KSFTM_TEST_ARGV_LOG_H
#define KSFTM_TEST_ARGV_LOG_H

#include <stdio.h>
#include <string.h>

/* Each would create ./pwned if a shell interpreted it. */
static const char *const hostile_words[] = {
	"127.0.0.1;touch pwned", "$(touch pwned)", "`touch pwned`", "it's",
	"\"dq\" 'sq'", "line1\nline2;touch pwned", "two  words\tand a tab", "",
	"*", "~", "$HOME", "back\\slash", "-n", "'; touch pwned; '",
	"&& touch pwned", "| touch pwned", "> pwned", "#comment", NULL,
};

/* A directory name holding most of them at once. */
#define HOSTILE_DIR "d ;touch pwned;$(touch pwned)`touch pwned`'\"\n>pwned&x"

/* Append @w as a netstring to @buf (@size bytes, NUL-terminated). */
static inline void netstring_add(char *buf, size_t size, const char *w)
{
	size_t len = strlen(buf);

	snprintf(buf + len, size - len, "%zu:%s,", strlen(w), w);
}

#endif
