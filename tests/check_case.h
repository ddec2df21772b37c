/* Check's TCases the suites make alike (check_main.h includes it; a
 * fixture file of several suites includes it alone). */
#ifndef KSFTM_CHECK_CASE_H
#define KSFTM_CHECK_CASE_H

#include <check.h>
#include <stddef.h>

/* One TCase per behaviour: a suite from a table of (name, test). */
struct ck_case {
	const char *name;
	const TTest *test;
};

/* A TCase of the one test @t, with @setup and @teardown (either may be
 * NULL) as its checked fixture: run around it in the test's process. */
static inline TCase *ck_tcase(const char *name, const TTest *t, SFun setup, SFun teardown)
{
	TCase *c = tcase_create(name);

	tcase_add_checked_fixture(c, setup, teardown);
	tcase_add_test(c, t);
	return c;
}

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

#endif
