/* Shared main() for Check suites: each suite file defines make_suite(). */
#ifndef KSFTM_CHECK_MAIN_H
#define KSFTM_CHECK_MAIN_H

#include <check.h>
#include <stdlib.h>

Suite *make_suite(void);

/* One TCase per behaviour: a suite from a table of (name, test). */
struct ck_case {
	const char *name;
	const TTest *test;
};

static inline Suite *ck_suite_of(const char *name, const struct ck_case *tc, size_t n)
{
	Suite *s = suite_create(name);
	size_t i;

	for (i = 0; i < n; i++) {
		TCase *c = tcase_create(tc[i].name);

		tcase_add_test(c, tc[i].test);
		suite_add_tcase(s, c);
	}
	return s;
}

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
