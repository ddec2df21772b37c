/* SPDX-License-Identifier: GPL-2.0 */
/* The sysmon example's error messages: one thread-local buffer per thread. */
#ifndef SM_ERROR_H
#define SM_ERROR_H

#include <stddef.h>

#define SM_ERRMSG_MAX 1024

/* Set the calling thread's message; @return @err (a negative errno). */
int sm_fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

const char *sm_errmsg(void);

/* Write @s (@len bytes) into @dst as a quoted printable excerpt, cut with "...". */
void sm_excerpt(char *dst, size_t dst_size, const char *s, size_t len);

#endif
