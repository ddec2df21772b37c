/* Shared main() for Check suites: each suite file defines make_suite(). */
#ifndef KSFTM_CHECK_MAIN_H
#define KSFTM_CHECK_MAIN_H

#include <check.h>
#include <stdlib.h>

#include "check_case.h"

Suite *make_suite(void);

int main(void)
{
	SRunner *sr = srunner_create(make_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
