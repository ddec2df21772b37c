/* A run's context as the history keeps it (history_context.c). */
#ifndef KSFTM_HISTORY_CONTEXT_H
#define KSFTM_HISTORY_CONTEXT_H

struct json_t;

/* The comparability keys of a history that stores none (a JSON array). */
extern const char history_context_default_keys[];

/* @j as stored text (compact, sorted keys, ASCII; malloc'd, NULL: out of
 * memory); @j is released. */
char *history_context_text(struct json_t *j);

/* Does this context rule the run out of comparisons (a debug kernel,
 * KSFT_MACHINE_SLOW)? */
int history_context_incomparable(struct json_t *ctx);

#endif
