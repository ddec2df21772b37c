// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: the iperf3 --json reader (examples/iperf3/iperf3_parse.h). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "iperf3_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct iperf3_result res;
	char *err = NULL;

	if (!iperf3_parse_json((const char *)data, size, "fuzz", &res, &err)) {
		free(err);
		err = NULL;
		(void)iperf3_require_retransmits(&res, "fuzz", &err);
	}
	free(err);
	return 0;
}
