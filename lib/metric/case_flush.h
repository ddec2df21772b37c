/* Turning a closed case into KTAP diagnostic lines. */
#ifndef KSFTM_CASE_FLUSH_H
#define KSFTM_CASE_FLUSH_H

#include <stddef.h>
#include <stdint.h>

#include "case_rejects.h"
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
	int streamed;			/* lines already written at record time */
	struct case_rejects *rejects;	/* refused calls (NULL: none kept) */
};

/*
 * Format @cc's lines (policies of observed metrics, then observations in
 * time order). With @out, return them in one malloc'd buffer; otherwise
 * write them to the sink in batches. Returns the line count or -errno.
 */
int case_flush(const struct closed_case *cc, char **out, size_t *out_len);

/* Close the open case into @cc (-EPERM if none is open). */
int case_close(struct closed_case *cc);
int case_close_into(struct closed_case *cc, struct case_data **emergency, size_t max);
/*
 * case_flush() for a signal handler: no allocation, lines staged in
 * @buf (@size bytes), thread cursors in @cursors (one per cc->n_data).
 * A line too long for @buf is left out whole, counted in *@dropped.
 */
int case_flush_emergency(const struct closed_case *cc, char *buf, size_t size,
			 void *cursors, size_t *dropped);
/* Size of one cursor for case_flush_emergency(). */
size_t case_flush_cursor_size(void);
void closed_case_free(struct closed_case *cc);

#endif
