/*
 * Opening a test case, its settings (write-through, buffer limit) and the
 * reporting scope. Closing is case_close.c, the policy table
 * case_policies.c, the shared state case_state.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ksftmetric/metric.h>

#include "case_rejects.h"
#include "case_abort.h"
#include "case_policies.h"
#include "case_state.h"
#include "errmsg.h"
#include "json_text.h"
#include "observation.h"
#include "profile_marker.h"
#include "run_context.h"
#include "sink.h"

static atomic_int stream_setting;	/* ksft_metric_set_stream() */

/* Write-through if the program asked for it or the environment does. */
static int stream_wanted(void)
{
	const char *env = getenv("KSFTMETRIC_STREAM");

	return atomic_load(&stream_setting) || (env && env[0] && strcmp(env, "0") != 0);
}

KSFT_METRIC_API int ksft_metric_set_stream(int enable)
{
	atomic_store(&stream_setting, !!enable);
	return 0;
}

KSFT_METRIC_API int ksft_metric_case_begin(void)
{
	struct case_data **left;
	size_t n, i;

	/* KSFTMETRIC_CONTEXT=1: the run's context line, once, before the
	 * first case's lines (outside every case). Best effort: a sink that
	 * cannot be written fails the case's own lines at its end anyway. */
	(void)run_context_emit_from_env();
	pthread_mutex_lock(&ksftm_case_lock);
	case_abort_install();
	/* A case inherited without our fork handlers (raw clone) is not ours. */
	if (atomic_load(&ksftm_case_open) && atomic_load(&ksftm_case_owner) != getpid())
		atomic_store(&ksftm_case_open, 0);
	if (atomic_load(&ksftm_case_open)) {
		pthread_mutex_unlock(&ksftm_case_lock);
		return ksftm_fail(EBUSY, "a test case is already open; end it first");
	}
	/* Nothing can be buffered while closed, but never carry data over. */
	if (!case_buffer_steal(&left, &n)) {
		for (i = 0; i < n; i++)
			case_data_free(left[i]);
		free(left);
	}
	case_policies_clear();
	case_rejects_clear();
	atomic_store(&ksftm_case_reporting, 0);
	atomic_store(&ksftm_case_bytes, 0);
	atomic_store(&ksftm_case_stream, stream_wanted());
	atomic_store(&ksftm_case_start, ksftm_now_ns());
	atomic_store(&ksftm_case_owner, getpid());
	atomic_store_explicit(&ksftm_case_open, 1, memory_order_release);
	pthread_mutex_unlock(&ksftm_case_lock);
	/* Best effort, as the context line: a sink that fails here fails the
	 * case's own lines too, where the caller sees it. */
	if (atomic_load(&ksftm_case_stream))
		(void)case_stream_begin();
	/* ksft-vm --profile: the case's window opens (a NOP elsewhere). */
	ksftm_profile_mark_begin();
	return 0;
}

KSFT_METRIC_API int ksft_metric_set_buffer_limit(size_t bytes)
{
	if (bytes < 4096)
		return ksftm_fail(EINVAL, "metric buffer limit of %zu bytes is below the minimum of 4096",
				  bytes);
	atomic_store(&ksftm_buffer_limit, bytes);
	return 0;
}

KSFT_METRIC_API int ksft_metric_case_is_open(void)
{
	return atomic_load(&ksftm_case_open) != 0;
}

KSFT_METRIC_API void ksft_metric_free(void *p)
{
	free(p);
}

/* ------------------------------------------------------------------ */

KSFT_METRIC_API int ksft_metric_reporting(int enable)
{
	int ret;

	pthread_mutex_lock(&ksftm_case_lock);
	if (!atomic_load(&ksftm_case_open))
		ret = ksftm_fail(EPERM, "ksft_metric_reporting() called outside of a test case");
	else if (!enable && atomic_load(&ksftm_case_reporting) == 0)
		ret = ksftm_fail(EINVAL, "metric reporting scope left more often than entered");
	else
		ret = atomic_fetch_add(&ksftm_case_reporting, enable ? 1 : -1) + (enable ? 1 : -1);
	pthread_mutex_unlock(&ksftm_case_lock);
	return case_call_result("ksft_metric_reporting", NULL, ret);
}

KSFT_METRIC_API int ksft_metric_reporting_enabled(void)
{
	return atomic_load(&ksftm_case_reporting) > 0;
}
