// SPDX-License-Identifier: GPL-2.0
/* The guest's clock from ksft-vm's kernel command line (icount.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "icount.h"

static int read_shift(void)
{
	const char *path = getenv("KSFTMETRIC_CMDLINE");
	char buf[4096], *w, *save = NULL;
	int icount = 0, shift = -1;
	size_t n;
	FILE *f = fopen(path && *path ? path : "/proc/cmdline", "re");

	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	for (w = strtok_r(buf, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		if (!strcmp(w, "ksftm.clock=icount"))
			icount = 1;
		else if (!strncmp(w, "ksftm.icount_shift=", 19) && w[19] >= '0' && w[19] <= '9' &&
			 !w[20])
			shift = w[19] - '0';
	}
	return icount ? shift : -1;
}

int ex_icount_shift(void)
{
	static int cached = -2;

	if (cached == -2)
		cached = read_shift();
	return cached;
}
