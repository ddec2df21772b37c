/* A metric's processing/display policy: validation, equality, JSON text. */
#ifndef KSFTM_POLICY_H
#define KSFTM_POLICY_H

#include <stdint.h>

#include <ksftmetric/metric.h>

#include "observation.h"
#include "strbuf.h"

struct pnum {
	int type;		/* KSFT_METRIC_UNSET, _INT or _DOUBLE */
	union num64 v;
};

struct policy {
	const char *summarize;		/* static strings from the allowed sets */
	const char *transform;		/* NULL: none */
	const char *aggregation;	/* NULL: none */
	const char *compare;		/* NULL: no regression policy */
	const char *better;
	struct pnum rel_tol, abs_tol;
	struct pnum min, max;		/* display_range: both unset = none */
	struct pnum scale;
	char *label;			/* owned */
};

/* Validate @in into @out (which then owns a copy of the label). */
int policy_from_struct(const char *name, const struct ksft_metric_policy *in,
		       struct policy *out);
/* Parse and validate a JSON policy object (NULL = defaults). */
int policy_from_json(const char *name, const char *json, struct policy *out);
/* Python's == on the emitted dictionaries: numbers by value. */
int policy_equal(const struct policy *a, const struct policy *b);
void policy_release(struct policy *p);
/* The policy line's JSON object, keys sorted, for metric @name. */
void policy_format(struct strbuf *sb, const char *name, const struct policy *p);

#endif
