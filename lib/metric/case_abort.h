/* Nothing lost when a test dies: flush an open case at exit and on fatal signals. */
#ifndef KSFTM_CASE_ABORT_H
#define KSFTM_CASE_ABORT_H

/* Install the exit hook and signal handlers, once; the caller holds
 * ksftm_case_lock (case begin). */
void case_abort_install(void);

#endif
