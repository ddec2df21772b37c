/* The verdict vocabulary's table and lookups (verdict_vocab.h). */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "verdict_vocab.h"

const struct ksftm_verdict_word ksftm_verdicts[KSFTM_N_VERDICTS] = {
	{ KSFTM_VERDICT_REGRESSION, "REGRESSION", NULL },
	{ KSFTM_VERDICT_IMPROVEMENT, "IMPROVEMENT", NULL },
	{ KSFTM_VERDICT_DISTURBED, "DISTURBED", NULL },
	{ KSFTM_VERDICT_MISSING, "MISSING", NULL },
	{ KSFTM_VERDICT_CASE_FAILED, "CASE FAILED", NULL },
	{ KSFTM_VERDICT_TOO_NOISY, "TOO NOISY", KSFTM_VERDICT_OLD_TOO_NOISY },
	{ KSFTM_VERDICT_NO_CHANGE, "NO CHANGE", KSFTM_VERDICT_OLD_NO_CHANGE },
	{ KSFTM_VERDICT_NEW, "NEW", NULL },
	{ KSFTM_VERDICT_NOT_COMPARABLE, "NOT COMPARABLE", KSFTM_VERDICT_OLD_NOT_COMPARABLE },
	{ KSFTM_VERDICT_UNTRACKED, "UNTRACKED", NULL },
	{ KSFTM_VERDICT_NO_HISTORY, "NO HISTORY", NULL },
	{ KSFTM_VERDICT_ACCEPTED, "ACCEPTED", NULL },
};

int ksftm_verdict_index(const char *code)
{
	int i;

	/* Mostly one of our own codes, the very string: no strcmp then. */
	for (i = 0; code && i < KSFTM_N_VERDICTS; i++)
		if (code == ksftm_verdicts[i].code)
			return i;
	for (i = 0; code && i < KSFTM_N_VERDICTS; i++)
		if (!strcmp(code, ksftm_verdicts[i].code) ||
		    (ksftm_verdicts[i].old_code && !strcmp(code, ksftm_verdicts[i].old_code)))
			return i;
	return -ENOENT;
}

const char *ksftm_verdict_code(const char *code)
{
	int i = ksftm_verdict_index(code);

	return i < 0 ? code : ksftm_verdicts[i].code;
}

int ksftm_verdict_at_level(const char *code)
{
	code = ksftm_verdict_code(code);
	return code && (!strcmp(code, KSFTM_VERDICT_NO_CHANGE) ||
			!strcmp(code, KSFTM_VERDICT_IMPROVEMENT));
}

const char *ksftm_verdict_name(const char *code)
{
	int i = ksftm_verdict_index(code);

	return i < 0 ? code : ksftm_verdicts[i].name;
}

const char *ksftm_verdict_lower(const char *code, char *buf, size_t size)
{
	const char *name = ksftm_verdict_name(code);
	size_t k;

	if (!name || !size)
		return name;
	for (k = 0; name[k] && k + 1 < size; k++)
		buf[k] = (char)tolower((unsigned char)name[k]);
	buf[k] = '\0';
	return buf;
}
