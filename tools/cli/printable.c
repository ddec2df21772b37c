/*
 * Text from a log made safe for a terminal: a log under test is not
 * trusted, and ESC, BEL or an 8-bit CSI (U+009B) in a name or a context
 * value would retitle the window, clear the screen or write the
 * clipboard when an error message shows it. C0 controls (but tab and
 * line feed), DEL and C1 controls (U+0080-U+009F) become '?', as the
 * report's names already do (lib/report/model/canon.c, canon_text_dup).
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

void cli_put_printable(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	for (; *p; p++) {
		if ((*p < 0x20 && *p != '\t' && *p != '\n') || *p == 0x7f) {
			fputc('?', f);
		} else if (*p == 0xc2 && p[1] >= 0x80 && p[1] < 0xa0) {
			fputc('?', f);	/* C1 control, UTF-8 encoded */
			p++;
		} else {
			fputc(*p, f);
		}
	}
}
