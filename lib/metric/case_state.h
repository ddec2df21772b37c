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
/* getpid() of the process that opened the case (fork: a child's is not). */
extern atomic_int ksftm_case_owner;
/* Record bytes buffered by the open case, and the cap on them. */
extern atomic_size_t ksftm_case_bytes;
extern atomic_size_t ksftm_buffer_limit;

/* One thread's share of a case: its strings and its records in time order. */
struct case_data {
	struct intern strings;
	struct arena records;
	size_t n_records;
	unsigned thread_idx;	/* tie-break between equal timestamps */
};

/* Start of the open case, CLOCK_MONOTONIC ns (for lines formatted early). */
extern _Atomic uint64_t ksftm_case_start;
/* The open case writes each line at once (write-through) instead of at end. */
extern atomic_int ksftm_case_stream;
/* Depth of ksft_metric_reporting() scopes (reset at case begin and end). */
extern atomic_int ksftm_case_reporting;

#include "clock.h"
#include "lock.h"

/* Under ksftm_case_lock: was @name observed in the open case by any thread? */
int case_buffer_name_observed(const char *name);
/*
 * Under ksftm_case_lock, with the case already marked closed: take every
 * thread's data (NULL-free array of *@n entries, caller frees with
 * case_data_free()/free()). Also frees buffers of threads that exited.
 */
int case_buffer_steal(struct case_data ***out, size_t *n);
/*
 * The same without allocating (signal handlers): up to @max threads' data
 * into @v; buffers stay listed, nothing is freed. Returns the count.
 */
size_t case_buffer_take_emergency(struct case_data **v, size_t max);
void case_data_free(struct case_data *cd);
/* fork handlers: lock / unlock every thread buffer (case lock held). */
void case_buffer_lock_all(void);
void case_buffer_unlock_all(void);
/* Write one policy line now (write-through mode). */
int case_stream_policy(const char *name, const void *policy);
/* Write-through: the "begin" frame of the case just opened (case_flush.c). */
int case_stream_begin(void);
/* Does @cd hold observations of metric @name? */
int case_data_has_name(const struct case_data *cd, const char *name);

#endif
