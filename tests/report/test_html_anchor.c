/*
 * Series anchors (tools/render/html_anchor.c, the ids of html's rows and
 * the site's page names) stay unique per identity when two identities
 * share a slug and a hash: built here with the hash masked to 0, so that
 * every identity with the same case, metric and labels collides, as a
 * brute-forced parent name would make them (issue 33 item 7).
 */
#include <string.h>

#include "check_main.h"
#include "html.h"

static char *anchor(const char *parent, const char *case_name, const char *labels)
{
	const char *path[] = { parent };

	return series_anchor(path, parent ? 1 : 0, case_name, "throughput", labels);
}

START_TEST(test_collision_disambiguated)
{
	char *top, *nested, *other, *again, *third;

	top = anchor(NULL, "tcp", "{}");
	nested = anchor("net", "tcp", "{}");
	other = anchor("net2", "tcp", "{}");
	ck_assert_ptr_nonnull(top);
	ck_assert_ptr_nonnull(nested);
	ck_assert_ptr_nonnull(other);
	/* The same slug and (masked) hash: three identities, three anchors. */
	ck_assert_str_eq(top, "s-tcp-throughput-0000000000000000");
	ck_assert_str_eq(nested, "s-tcp-throughput-0000000000000000-2");
	ck_assert_str_eq(other, "s-tcp-throughput-0000000000000000-3");
	/* The same identity asked again gets its own anchor back. */
	again = anchor("net", "tcp", "{}");
	ck_assert_str_eq(again, nested);
	/* Another slug is free of the suffix. */
	third = anchor(NULL, "udp", "{}");
	ck_assert_str_eq(third, "s-udp-throughput-0000000000000000");
	free(top);
	free(nested);
	free(other);
	free(again);
	free(third);
	series_anchors_reset();
}
END_TEST

START_TEST(test_deterministic)
{
	static const char *const parents[] = { NULL, "a", "b", "a/b", "c" };
	char *first[5], *second[5];
	size_t i, j;

	/* The same walk gives the same names, run after run. */
	for (i = 0; i < 5; i++)
		first[i] = anchor(parents[i], "tcp", "{\"host\":\"local\"}");
	series_anchors_reset();
	for (i = 0; i < 5; i++)
		second[i] = anchor(parents[i], "tcp", "{\"host\":\"local\"}");
	for (i = 0; i < 5; i++) {
		ck_assert_str_eq(first[i], second[i]);
		for (j = 0; j < i; j++)
			ck_assert_str_ne(first[i], first[j]);
	}
	for (i = 0; i < 5; i++) {
		free(first[i]);
		free(second[i]);
	}
	series_anchors_reset();
}
END_TEST

Suite *make_suite(void)
{
	const struct ck_case tc[] = {
		{ "collision_disambiguated", test_collision_disambiguated },
		{ "deterministic", test_deterministic },
	};

	return ck_suite_of("html_anchor", tc, sizeof(tc) / sizeof(tc[0]));
}
