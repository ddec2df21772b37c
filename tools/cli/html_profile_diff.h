/* html --profile-a/--profile-b: the profile diff's section of the page. */
#ifndef KSFT_METRIC_HTML_PROFILE_DIFF_H
#define KSFT_METRIC_HTML_PROFILE_DIFF_H

#include "html.h"
#include "profile_diff.h"

/* Functions the section lists at most (by change, largest first). */
#define HTML_PROFILE_TOP 20

/*
 * Append to @pg the section "Where the instructions went": @d's total,
 * what the top 10 functions explain, the top functions by change with
 * their share of the total change, then the modules; @path_a and @path_b
 * name the profiles. 0, or -1 when out of memory.
 */
int html_profile_diff(struct html_page *pg, const char *path_a, const char *path_b,
		      const struct profile_diff *d);

#endif
