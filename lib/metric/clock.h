/* The producer's time base: CLOCK_MONOTONIC in nanoseconds. */
#ifndef KSFTM_CLOCK_H
#define KSFTM_CLOCK_H

#include <stdint.h>

uint64_t ksftm_now_ns(void);

#endif
