/* Thread-local error message: the words a user needs after a failed call. */
#include <stdarg.h>
#include <stdio.h>

#include <ksftmetric/metric.h>

#include "case_state.h"
#include "errmsg.h"

static __thread char errmsg[512];

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

KSFT_METRIC_API const char *ksft_metric_errmsg(void)
{
	return errmsg;
}
