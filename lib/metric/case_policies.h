/* The open case's policy table (case_policies.c); all under ksftm_case_lock. */
#ifndef KSFTM_CASE_POLICIES_H
#define KSFTM_CASE_POLICIES_H

#include <stddef.h>

#include "case_flush.h"

/* Forget every registered policy (a new case begins). */
void case_policies_clear(void);
/* Move the table into *@v / *@n (caller frees); the table is left empty. */
void case_policies_take(struct policy_entry **v, size_t *n);

#endif
