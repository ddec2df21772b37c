/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Quoting for sh(1), shared by everything that sends a command to another
 * host: ssh joins its words with spaces and the remote shell parses them
 * again, so any word from outside must reach it single-quoted.
 */
#ifndef KSFTM_EXAMPLE_SH_QUOTE_H
#define KSFTM_EXAMPLE_SH_QUOTE_H

#include <stdio.h>

/**
 * sh_quote() - append @s to @f as one sh word: '...', a ' written as '\''
 * (any byte, newlines included, stays literal).
 */
void sh_quote(FILE *f, const char *s);

/**
 * sh_quote_argv() - "exec 'w0' 'w1' ... </dev/null\n": a script line that
 * runs @argv (NULL-terminated) with exactly those words, whatever they hold.
 * @return malloc'd, or NULL on ENOMEM.
 */
char *sh_quote_argv(const char *const *argv);

#endif
