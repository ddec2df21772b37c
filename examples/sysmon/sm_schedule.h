/* The sampler's schedule: a fixed grid set at start (drift-free). */
#ifndef KSFT_SYSMON_SCHEDULE_H
#define KSFT_SYSMON_SCHEDULE_H

#include <stdint.h>

/*
 * The slot after @slot on the grid of @interval, skipping every slot that
 * is already past at @now: a late sample never makes the next one late
 * (no drift), and missed slots are skipped rather than sampled in a burst.
 */
static inline int64_t sm_next_slot(int64_t slot, int64_t interval, int64_t now)
{
	slot += interval;
	if (slot <= now)
		slot += ((now - slot) / interval + 1) * interval;
	return slot;
}

#endif
