/* The open case's shared state (case_state.h): one definition below every user. */
#include <ksftmetric/metric.h>

#include "case_state.h"

pthread_mutex_t ksftm_case_lock = PTHREAD_MUTEX_INITIALIZER;
atomic_int ksftm_case_open;
atomic_size_t ksftm_case_bytes;
_Atomic uint64_t ksftm_case_start;
atomic_int ksftm_case_stream;
atomic_size_t ksftm_buffer_limit = KSFT_METRIC_DEFAULT_BUFFER_LIMIT;
/* The process that opened the case: only it may flush or mark it. */
atomic_int ksftm_case_owner;

/* Depth of ksft_metric_reporting(1) scopes in the open case. */
atomic_int ksftm_case_reporting;
