/* The library's one way to take a lock: blocking, or only tried in an emergency. */
#ifndef KSFTM_LOCK_H
#define KSFTM_LOCK_H

#include <pthread.h>

/*
 * ksftm_emergency (errmsg.h, common: ksftm_fail() checks it too) is set
 * while this thread runs the fatal-signal flush: locks are then only tried
 * (for about a second), since the interrupted code may hold them.
 */
#include "errmsg.h"

/* Lock @m; 0, or -EDEADLK if in an emergency and it stayed held. */
int ksftm_lock(pthread_mutex_t *m);

#endif
