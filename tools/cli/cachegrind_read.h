/* Reading cachegrind's output format: one event's count per (file, function). */
#ifndef KSFT_METRIC_CACHEGRIND_READ_H
#define KSFT_METRIC_CACHEGRIND_READ_H

#include <stddef.h>
#include <stdint.h>

/* One function's count: @file is cachegrind's "fl=" (a module for
 * ksft-vm's profiles: "[kernel]", "[nf_tables]"), @fn its "fn=". */
struct cg_cost {
	char *file;
	char *fn;
	uint64_t count;
};

/* A profile: its costs sorted by (file, fn), each pair once. */
struct cg_profile {
	struct cg_cost *costs;
	size_t n;
	uint64_t total;		/* the sum of the costs */
	double work;		/* "desc: work: N UNIT", 0 when absent */
	char *work_unit;	/* its UNIT, NULL when absent */
};

/*
 * Parse @data (@len bytes) from @path (for messages) counting event
 * @event ("Ir"). 0, or a negative errno after cli_error() naming the file,
 * line and reason.
 */
int cg_profile_parse(const char *path, const char *data, size_t len, const char *event,
		     struct cg_profile *p);
void cg_profile_free(struct cg_profile *p);

#endif
