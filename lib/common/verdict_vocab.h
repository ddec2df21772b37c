/*
 * The verdicts of a comparison, spelled once (issue 23): each has a code
 * (JSON, CSV, KCIDB, NIPA, the C and Python rows, the history's stored
 * rows) that is the snake_case of the name people read (help, the text
 * table, HTML). Every writer and reader takes both from here.
 */
#ifndef KSFTM_VERDICT_VOCAB_H
#define KSFTM_VERDICT_VOCAB_H

#include <stddef.h>

/* The codes, as literals for static tables and SQL text. */
#define KSFTM_VERDICT_REGRESSION	"regression"
#define KSFTM_VERDICT_DISTURBED		"disturbed"
#define KSFTM_VERDICT_MISSING		"missing"
/* The series' case failed in the current run (fail, timeout, error or
 * incomplete): its values are no measurement, it is not judged. */
#define KSFTM_VERDICT_CASE_FAILED	"case_failed"
#define KSFTM_VERDICT_TOO_NOISY		"too_noisy"
#define KSFTM_VERDICT_IMPROVEMENT	"improvement"
#define KSFTM_VERDICT_NO_CHANGE		"no_change"
#define KSFTM_VERDICT_NEW		"new"
#define KSFTM_VERDICT_NOT_COMPARABLE	"not_comparable"
#define KSFTM_VERDICT_UNTRACKED		"untracked"
/* compare --db on a history it cannot use (history_check.c): every row. */
#define KSFTM_VERDICT_NO_HISTORY	"no_history"
/* Not a verdict of compare: a stored result that `accept` made the level. */
#define KSFTM_VERDICT_ACCEPTED		"accepted"

/* The codes before issue 23, still found in stored histories' rows; read
 * as the current ones (ksftm_verdict_code()), never written. */
#define KSFTM_VERDICT_OLD_NO_CHANGE	"ok"
#define KSFTM_VERDICT_OLD_TOO_NOISY	"noise"
#define KSFTM_VERDICT_OLD_NOT_COMPARABLE "incomparable"

struct ksftm_verdict_word {
	const char *code;	/* KSFTM_VERDICT_* */
	const char *name;	/* as people read it: "NO CHANGE" */
	const char *old_code;	/* its code before issue 23, or NULL */
};

/* Every verdict in the order reports list them (changes, then what needs
 * a look, then the rest), then the history-only state "accepted";
 * KSFTM_N_VERDICTS entries. */
extern const struct ksftm_verdict_word ksftm_verdicts[];
#define KSFTM_N_VERDICTS 12

/* The index of @code (current or old spelling) in ksftm_verdicts[], or
 * -ENOENT. */
int ksftm_verdict_index(const char *code);

/* The current code of @code (an old one mapped); @code itself when it is
 * no verdict (NULL stays NULL). */
const char *ksftm_verdict_code(const char *code);

/* Was a run judged @code (current or old spelling) back at its series'
 * old level: no change or better? A too-noisy run is not (it may be a
 * change going on, unproven): the window's transient rule
 * (model/window_rule.c, for the gate and the chart band alike). */
int ksftm_verdict_at_level(const char *code);

/* The name people read for @code ("NO CHANGE"); @code itself when it is no
 * verdict (NULL stays NULL). */
const char *ksftm_verdict_name(const char *code);

/* The name in lower case, for a sentence ("3 no change") into @buf of
 * @size bytes (cut to fit); @code itself when it is no verdict. */
const char *ksftm_verdict_lower(const char *code, char *buf, size_t size);

#endif
