// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the /proc/stat parser (examples/sysmon/proc_stat.h). Each
 * input is parsed into a fresh snapshot, then its tail (after the first
 * line) into the same snapshot, to cover the memory-reusing path.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "proc_stat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cpu_snapshot s;
	const char *text = (const char *)data;
	const char *nl;

	memset(&s, 0, sizeof(s));
	(void)cpu_snapshot_parse(&s, text, size, "fuzz");
	nl = size ? memchr(text, '\n', size) : NULL;
	if (nl)
		(void)cpu_snapshot_parse(&s, nl + 1, size - (size_t)(nl + 1 - text),
					 "fuzz-tail");
	cpu_snapshot_free(&s);
	return 0;
}
