// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: cachegrind's format as ksft-metric profile-diff reads it
 * (tools/cli/cachegrind_read.c), by its two events. The tool's message
 * and out-of-memory calls are stubs here: the parser is the unit.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "cachegrind_read.h"
#include "cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

void cli_error(const char *fmt, ...)
{
	(void)fmt;
}

int cli_oom(const char *who)
{
	(void)who;
	return -ENOMEM;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cg_profile p;

	if (!cg_profile_parse("fuzz", (const char *)data, size, "Ir", &p))
		cg_profile_free(&p);
	if (!cg_profile_parse("fuzz", (const char *)data, size, "Dr", &p))
		cg_profile_free(&p);
	return 0;
}
