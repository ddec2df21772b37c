// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the generic JSON observation entry points, ksft_metric_json()
 * and ksft_metric_aggregate_json().
 *
 * Input: VALUE [SEP LABELS [SEP POLICY [SEP NAME [SEP SHAPE]]]] with SEP the
 * byte 0x01. A missing LABELS part passes NULL labels; a missing POLICY
 * part registers no policy, an empty one registers the default (NULL)
 * policy. NAME and SHAPE default to "m" and "scalar". Bytes after a NUL
 * in a part are cut off by the C string, as they would be for any caller.
 *
 * One case stays open across inputs (as in a long-running selftest); it is
 * closed into a buffer and reopened every CASE_INPUTS inputs so that its
 * memory stays bounded. Lines go to a sink that discards them.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ksftmetric/metric.h>

#define SEP 0x01
#define MAX_PARTS 5
#define CASE_INPUTS 256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static unsigned long inputs;

static int discard(const char *line, size_t len, void *ctx)
{
	(void)line;
	(void)len;
	(void)ctx;
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (ksft_metric_set_output_callback(discard, NULL) ||
	    ksft_metric_set_buffer_limit((size_t)4 << 20) ||
	    ksft_metric_case_begin())
		abort();
	return 0;
}

static void cycle_case(void)
{
	char *out = NULL;
	size_t len = 0;

	if (ksft_metric_case_end_buffer(&out, &len) < 0)
		abort();
	ksft_metric_free(out);
	if (ksft_metric_case_begin())
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, *part[MAX_PARTS] = { NULL };
	size_t i, n = 0;

	buf = malloc(size + 1);
	if (!buf)
		abort();
	if (size)
		memcpy(buf, data, size);
	buf[size] = '\0';
	part[n++] = buf;
	for (i = 0; i < size && n < MAX_PARTS; i++) {
		if (buf[i] == SEP) {
			buf[i] = '\0';
			part[n++] = buf + i + 1;
		}
	}
	{
		const char *name = part[3] && *part[3] ? part[3] : "m";
		const char *shape = part[4] && *part[4] ? part[4] : "scalar";

		if (part[2])
			(void)ksft_metric_aggregate_json(name,
							 *part[2] ? part[2] : NULL);
		(void)ksft_metric_json(name, shape, part[0], part[1]);
	}
	free(buf);
	if (++inputs % CASE_INPUTS == 0)
		cycle_case();
	return 0;
}
