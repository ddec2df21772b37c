/* JSON text of one observation, keys sorted as json.dumps(sort_keys=True). */
#ifndef KSFTM_LINE_FORMAT_H
#define KSFTM_LINE_FORMAT_H

#include <stdint.h>

#include "case_state.h"
#include "observation.h"
#include "strbuf.h"

/* Append the observation's JSON object; "time" is relative to @start_ns. */
void obs_format(struct strbuf *sb, const struct case_data *cd,
		const struct obs *o, uint64_t start_ns);

/*
 * Seconds since @start_ns rounded to 6 decimals, bit for bit as the
 * reference's round(time.monotonic() - start, 6) computes it.
 */
double obs_time_seconds(uint64_t t_ns, uint64_t start_ns);
/* Python's round(@x, 6) (exact value, half to even; nearest double). */
double round6(double x);

#endif
