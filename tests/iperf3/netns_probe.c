// SPDX-License-Identifier: GPL-2.0
/*
 * The smallest netns_main() user, for test_netns_cleanup: inside the
 * namespaces it exits at once, or with "wait" prints "ready" and sleeps
 * until killed (so that a test can SIGKILL the outer process).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "netns.h"

int main(int argc, char **argv)
{
	int rc = netns_main(argc, argv, NULL);

	if (rc >= 0)
		return rc;
	if (argc > 1 && !strcmp(argv[1], "wait")) {
		printf("ready\n");
		fflush(stdout);
		for (;;)
			pause();
	}
	return 0;
}
