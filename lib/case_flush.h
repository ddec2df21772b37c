/* Turning a closed case into KTAP diagnostic lines. */
#ifndef KSFTM_CASE_FLUSH_H
#define KSFTM_CASE_FLUSH_H

#include <stddef.h>
#include <stdint.h>

#include "case_state.h"
#include "policy.h"

struct policy_entry {
	char *name;
	struct policy policy;
};

struct closed_case {
	struct case_data **data;	/* one per recording thread */
	size_t n_data;
	struct policy_entry *policies;	/* registration order */
	size_t n_policies;
	uint64_t start_ns;
};

/*
 * Format @cc's lines (policies of observed metrics, then observations in
 * time order). With @out, return them in one malloc'd buffer; otherwise
 * write them to the sink in batches. Returns the line count or -errno.
 */
int case_flush(const struct closed_case *cc, char **out, size_t *out_len);

#endif
