// SPDX-License-Identifier: GPL-2.0
/* Thread-local error messages, so that library-style code never prints. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sm_error.h"
#include "sysmon.h"

static _Thread_local char errmsg[SM_ERRMSG_MAX];

int sm_fail(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(errmsg, sizeof(errmsg), fmt, ap);
	va_end(ap);
	return err;
}

const char *sm_errmsg(void)
{
	return errmsg;
}

const char *ksft_sysmon_errmsg(void)
{
	return errmsg;
}

void sm_excerpt(char *dst, size_t dst_size, const char *s, size_t len)
{
	size_t o = 0, i;

	if (dst_size < 8)
		return;
	dst[o++] = '\'';
	for (i = 0; i < len && o + 9 < dst_size; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f && c != '\\') {
			dst[o++] = (char)c;
		} else {
			snprintf(dst + o, dst_size - o, "\\x%02x", c);
			o += 4;
		}
	}
	if (i < len) {
		memcpy(dst + o, "...", 3);
		o += 3;
	}
	dst[o++] = '\'';
	dst[o] = '\0';
}
