/* Thread-local error message: the words a user needs after a failed call. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "errmsg.h"

static __thread char errmsg[KSFTM_ERRMSG_SIZE];

/* Set by the producer's signal path for its thread (case_abort.c). */
__thread int ksftm_emergency;

int ksftm_fail(int err, const char *fmt, ...)
{
	va_list ap;

	/* vsnprintf() is not async-signal-safe: the signal path keeps only -err. */
	if (ksftm_emergency)
		return -err;
	va_start(ap, fmt);
	vsnprintf(errmsg, sizeof(errmsg), fmt, ap);
	va_end(ap);
	return -err;
}

int ksftm_oom(void)
{
	return ksftm_fail(ENOMEM, "%s", KSFTM_OOM_TEXT);
}

void ksftm_errmsg_clear(void)
{
	if (!ksftm_emergency)
		errmsg[0] = '\0';
}

/* Each library compiles its own copy (hidden), so each has its own message:
 * ksft_metric_errmsg() for the producer, ksft_metric_report_errmsg() for
 * the report engine. */
const char *ksftm_errmsg(void)
{
	return errmsg;
}
