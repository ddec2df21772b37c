/* The producer's public face of the thread-local error message. */
#include <ksftmetric/metric.h>

#include "errmsg.h"

KSFT_METRIC_API const char *ksft_metric_errmsg(void)
{
	return ksftm_errmsg();
}
