/* State shared by the producer modules: the case lock and the open flag. */
#ifndef KSFTM_CASE_STATE_H
#define KSFTM_CASE_STATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "intern.h"

/*
 * Lock order: ksftm_case_lock, then any thread buffer's lock, then the sink
 * lock. Recording threads take only their own buffer's lock.
 */
extern pthread_mutex_t ksftm_case_lock;
/* Nonzero while a case is open; read by recorders under their own lock. */
extern atomic_int ksftm_case_open;

/* One thread's share of a case: its strings and its records in time order. */
struct case_data {
	struct intern strings;
	struct arena records;
	size_t n_records;
	unsigned thread_idx;	/* tie-break between equal timestamps */
};

uint64_t ksftm_now_ns(void);

/* Under ksftm_case_lock: was @name observed in the open case by any thread? */
int case_buffer_name_observed(const char *name);
/*
 * Under ksftm_case_lock, with the case already marked closed: take every
 * thread's data (NULL-free array of *@n entries, caller frees with
 * case_data_free()/free()). Also frees buffers of threads that exited.
 */
int case_buffer_steal(struct case_data ***out, size_t *n);
void case_data_free(struct case_data *cd);
/* Does @cd hold observations of metric @name? */
int case_data_has_name(const struct case_data *cd, const char *name);

#endif
