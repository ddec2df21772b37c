/* Refused producer calls of the open case, written as warning lines at its end. */
#ifndef KSFTM_CASE_REJECTS_H
#define KSFTM_CASE_REJECTS_H

#include <stddef.h>

#include "strbuf.h"

/* One distinct refusal (call, metric, errno, message) and how often. */
struct case_reject {
	char call[32];
	char name[96];
	char msg[384];
	int err;
	unsigned long count;
};

#define CASE_REJECTS_MAX 16

struct case_rejects {
	struct case_reject v[CASE_REJECTS_MAX];
	size_t n;
	unsigned long more;	/* refusals past CASE_REJECTS_MAX distinct ones */
};

/*
 * The end of a public recording/registering call: a failure (@ret < 0)
 * while this process's case is open is kept (with the thread's message);
 * a success clears the thread's message. @return @ret.
 */
int case_call_result(const char *call, const char *name, int ret);
/* Take (and clear) the open case's refusals; case begin clears them too. */
void case_rejects_take(struct case_rejects *out);
void case_rejects_clear(void);
/* One "ktap-metric-warning-json: {...}" JSON payload for @r. */
void case_reject_format(struct strbuf *sb, const struct case_reject *r);
/* Strict mode: ksft_metric_set_strict() or KSFTMETRIC_STRICT=1. */
int case_rejects_strict(void);

#endif
