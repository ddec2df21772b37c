/*
 * The tool's error messages: "ksft-metric: ..." on stderr, every control
 * character of a quoted log or name made printable, and the one
 * out-of-memory message.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "errmsg.h"

void cli_error(const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL;
	int n;

	/* Messages quote names and context from logs: never a raw control. */
	fputs("ksft-metric: ", stderr);
	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n >= 0)
		cli_put_printable(stderr, msg);
	else
		fputs("(" KSFTM_OOM_TEXT " formatting a message)", stderr);
	free(msg);
	fputc('\n', stderr);
}

int cli_oom(const char *who)
{
	int err = ksftm_oom();

	if (who)
		cli_error("%s: %s", who, ksftm_errmsg());
	else
		cli_error("%s", ksftm_errmsg());
	return err;
}
