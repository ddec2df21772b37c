/* Where flushed lines go: a stdio stream, a file descriptor or a callback. */
#ifndef KSFTM_SINK_H
#define KSFTM_SINK_H

#include <stddef.h>

/* Copy of the current line prefix (malloc'd), or NULL on ENOMEM. */
char *sink_prefix_dup(size_t *len);
/* Copy the prefix into @buf (NUL-terminated); its length, 0 if it did not fit. */
size_t sink_prefix_copy(char *buf, size_t size);
/* Write @len bytes of whole '\n'-terminated lines; 0 or -errno (message set). */
int sink_write(const char *buf, size_t len);

/* Is this thread inside the user's output callback (holding the sink lock)? */
int sink_in_callback(void);
/* fork handlers: hold the sink lock across fork(). */
void sink_lock_for_fork(void);
void sink_unlock_after_fork(void);

#endif
