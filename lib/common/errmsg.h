/* Thread-local error message behind ksft_metric_errmsg(). */
#ifndef KSFTM_ERRMSG_H
#define KSFTM_ERRMSG_H

/* Record a message for the calling thread and return -@err (err > 0). */
int ksftm_fail(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The calling thread's last message ("" if none). */
const char *ksftm_errmsg(void);

#endif
