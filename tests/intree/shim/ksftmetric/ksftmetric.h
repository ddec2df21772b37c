/* upstream/ksft_metric.h in place of libksftmetric (tests/upstream) */
#include "ksft_metric.h"
