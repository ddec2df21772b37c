// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the zperf console reader. The input kind is recognised from
 * the content (a first non-blank '{' means a JSON document), so inputs
 * that would be read as twister JSON are left to fuzz_twister.
 */
#include "fuzz_report_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (fuzz_first_is_brace(data, size))
		return -1;	/* not line input: keep out of the corpus */
	fuzz_read_report(data, size);
	return 0;
}
