/* The run's context line and the performance-test check (run_context.c). */
#ifndef KSFTM_RUN_CONTEXT_H
#define KSFTM_RUN_CONTEXT_H

#include <stddef.h>

#define RUN_CONTEXT_MAX_EVIDENCE 16

/*
 * Is the running kernel a debug build? 1 yes (@ev gets the evidence: the
 * CONFIG_ options set, or "/proc/lockdep"), 0 no (its config was read), -1
 * unknown (no config found, no runtime evidence).
 */
int run_context_debug(const char *release, const char **ev, size_t *n_ev);

/* With KSFTMETRIC_CONTEXT=1, emit the context line once per process. */
int run_context_emit_from_env(void);

/* Fork handlers: the context's lock. */
void run_context_atfork_prepare(void);
void run_context_atfork_release(void);

#endif
