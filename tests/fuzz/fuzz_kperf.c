// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: the kperf-client output parser (examples/kperf/kperf_parse.h). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "kperf_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kperf_result res;
	char *err = NULL;

	(void)kperf_parse((const char *)data, size, "fuzz", &res, &err);
	free(err);
	kperf_result_free(&res);
	return 0;
}
