// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: what the remote sampler reads from its endpoint
 * (examples/sysmon/remote_sampler.c). The input is the endpoint's stdout:
 * lines up to the ready line (a login banner, say), then answers, each
 * ended by the end-marker line. Every answer is parsed twice, as a sampler
 * with a NIC (counter line last) and without one, into one reused snapshot,
 * the way remote_sampler_collect() does.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "remote_sampler.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct cpu_snapshot s;
	uint64_t nic[NIC_NCOUNTERS];
	size_t at = 0;
	long clk = 0, end;
	int ready = 0;

	memset(&s, 0, sizeof(s));
	while (at < size) {
		const char *nl = memchr(buf + at, '\n', size - at);
		size_t l;

		if (!nl)
			break;
		l = (size_t)(nl - (buf + at)) + 1;
		ready = remote_reply_ready(buf + at, l, &clk);
		at += l;
		if (ready)
			break;
	}
	if (ready && (clk <= 0 || clk >= 1000000))
		abort();	/* the ready line's USER_HZ is always sane */
	/* Without a ready line the sampler gives up; parse anyway. */
	if (!ready)
		at = 0;
	while (at <= size && (end = remote_reply_find_end(buf + at, size - at, 0)) >= 0) {
		(void)remote_reply_parse("fuzz", buf + at, (size_t)end, 1, &s, nic);
		(void)remote_reply_parse("fuzz", buf + at, (size_t)end, 0, &s, nic);
		at += (size_t)end + remote_reply_end_len();
	}
	/* The unterminated rest, as a reply that lost its end marker. */
	if (at < size)
		(void)remote_reply_parse("fuzz", buf + at, size - at, 1, &s, nic);
	cpu_snapshot_free(&s);
	return 0;
}
