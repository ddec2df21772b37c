/*
 * What a series the history gate cannot judge would need, said as a person
 * would (issue 31 item 12): one sentence for compare's text and the same in
 * its JSON row's "needs" (html shows that), never an impossible change.
 */
#ifndef KSFTM_COMPARE_NEEDS_H
#define KSFTM_COMPARE_NEEDS_H

#include <ksftmetric/report.h>

#include "strbuf.h"

struct cmp_row;

/* Does @row say what it would need (too noisy, or no run could fail it)? */
int compare_needs_has(const struct cmp_row *row);

/* The sentence after the series' title (no newline). */
void compare_needs_sentence(struct strbuf *out, const struct cmp_row *row);

/* ",\"needs\":{...}" for @row's JSON (nothing when it has none). */
void compare_needs_json(struct strbuf *sb, const struct cmp_row *row);

/*
 * DISTURBED: the interference series that tripped it (its name in the
 * row's case) and how far above its history's level it was: a sentence
 * for compare's text and the JSON row's "disturbed_by" (html shows it).
 */
int compare_needs_has_disturbed(const struct ksft_metric_report_comparison *c, const struct cmp_row *row);
void compare_needs_disturbed_sentence(struct strbuf *out, const struct ksft_metric_report_comparison *c,
				      const struct cmp_row *row);
void compare_needs_disturbed_json(struct strbuf *sb, const struct ksft_metric_report_comparison *c,
				  const struct cmp_row *row);

#endif
