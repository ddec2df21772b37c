// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: the KTAP / ktap-metric line reader (any input the report reads). */
#include "fuzz_report_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_read_report(data, size);
	return 0;
}
