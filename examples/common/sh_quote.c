// SPDX-License-Identifier: GPL-2.0
/* Single-quoting for sh (see sh_quote.h). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "sh_quote.h"

void sh_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

char *sh_quote_argv(const char *const *argv)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	fputs("exec", f);
	for (; argv && *argv; argv++) {
		fputc(' ', f);
		sh_quote(f, *argv);
	}
	/* As a command run here: stdin is /dev/null, not the rest of this. */
	fputs(" </dev/null\n", f);
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}
