/* Thread-local error message behind ksft_metric_errmsg(). */
#ifndef KSFTM_ERRMSG_H
#define KSFTM_ERRMSG_H

/*
 * The message's room, its terminating NUL included: longer messages are
 * cut. A caller that quotes the current message in a wider one copies it
 * into a buffer this size first (ksftm_fail() cannot read what it writes).
 */
#define KSFTM_ERRMSG_SIZE 512

/* Record a message for the calling thread and return -@err (err > 0). */
int ksftm_fail(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* What every out-of-memory failure says: one text for the libraries and the tool. */
#define KSFTM_OOM_TEXT "out of memory"

/*
 * Out of memory where nothing more than that is worth saying: records
 * KSFTM_OOM_TEXT and returns -ENOMEM (ksftm_fail(ENOMEM, "out of memory")).
 */
int ksftm_oom(void);

/*
 * Nonzero while this thread runs the producer's fatal-signal flush: no
 * vsnprintf() then (not async-signal-safe), ksftm_fail() keeps only -err.
 */
extern __thread int ksftm_emergency;

/* Forget the calling thread's message: a call succeeded. */
void ksftm_errmsg_clear(void);

/* The calling thread's last message ("" if none). */
const char *ksftm_errmsg(void);

#endif
