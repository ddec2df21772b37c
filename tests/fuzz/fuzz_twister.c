// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the twister JSON report reader. Only inputs the report reads
 * as a JSON document (first non-blank byte '{') are used.
 */
#include "fuzz_report_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!fuzz_first_is_brace(data, size))
		return -1;	/* line input: fuzz_ktap / fuzz_zperf cover it */
	fuzz_read_report(data, size);
	return 0;
}
