/*
 * Test case lifecycle, policy table and reporting scope: the state the
 * Python reference keeps in module globals, behind one lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ksftmetric/metric.h>

#include "case_abort.h"
#include "case_flush.h"
#include "case_state.h"
#include "errmsg.h"
#include "json_text.h"
#include "observation.h"
#include "run_context.h"
#include "sink.h"

pthread_mutex_t ksftm_case_lock = PTHREAD_MUTEX_INITIALIZER;
atomic_int ksftm_case_open;
atomic_size_t ksftm_case_bytes;
_Atomic uint64_t ksftm_case_start;
atomic_int ksftm_case_stream;
static atomic_int stream_setting;	/* ksft_metric_set_stream() */
atomic_size_t ksftm_buffer_limit = KSFT_METRIC_DEFAULT_BUFFER_LIMIT;
/* The process that opened the case: only it may flush or mark it. */
atomic_int ksftm_case_owner;

/* All under ksftm_case_lock. */
static uint64_t case_start_ns;
static struct policy_entry *policies;
static size_t n_policies, cap_policies;
static atomic_int reporting;

static void policies_clear(void)
{
	size_t i;

	for (i = 0; i < n_policies; i++) {
		free(policies[i].name);
		policy_release(&policies[i].policy);
	}
	free(policies);
	policies = NULL;
	n_policies = cap_policies = 0;
}

int case_close(struct closed_case *cc)
{
	return case_close_into(cc, NULL, 0);
}

void closed_case_free(struct closed_case *cc)
{
	size_t i;

	for (i = 0; i < cc->n_data; i++)
		case_data_free(cc->data[i]);
	free(cc->data);
	for (i = 0; i < cc->n_policies; i++) {
		free(cc->policies[i].name);
		policy_release(&cc->policies[i].policy);
	}
	free(cc->policies);
}

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

	case_abort_install();
	/* KSFTMETRIC_CONTEXT=1: the run's context line, once, before the
	 * first case's lines (outside every case). Best effort: a sink that
	 * cannot be written fails the case's own lines at its end anyway. */
	(void)run_context_emit_from_env();
	pthread_mutex_lock(&ksftm_case_lock);
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
	policies_clear();
	atomic_store(&reporting, 0);
	atomic_store(&ksftm_case_bytes, 0);
	atomic_store(&ksftm_case_stream, stream_wanted());
	case_start_ns = ksftm_now_ns();
	atomic_store(&ksftm_case_start, case_start_ns);
	atomic_store(&ksftm_case_owner, getpid());
	atomic_store_explicit(&ksftm_case_open, 1, memory_order_release);
	pthread_mutex_unlock(&ksftm_case_lock);
	/* Best effort, as the context line: a sink that fails here fails the
	 * case's own lines too, where the caller sees it. */
	if (atomic_load(&ksftm_case_stream))
		(void)case_stream_begin();
	return 0;
}

/*
 * Close the case and take its contents; the lock is held only for this.
 * With @emergency (signal handlers), thread data goes into that array of
 * @max entries instead of a malloc'd one.
 */
int case_close_into(struct closed_case *cc, struct case_data **emergency, size_t max)
{
	int ret;

	memset(cc, 0, sizeof(*cc));
	if (ksftm_lock(&ksftm_case_lock))
		return ksftm_fail(EDEADLK, "the test case is busy in another thread");
	if (!atomic_load(&ksftm_case_open) || atomic_load(&ksftm_case_owner) != getpid()) {
		pthread_mutex_unlock(&ksftm_case_lock);
		return ksftm_fail(EPERM, "no test case is open");
	}
	atomic_store_explicit(&ksftm_case_open, 0, memory_order_release);
	atomic_store(&reporting, 0);
	if (emergency) {
		cc->data = emergency;
		cc->n_data = case_buffer_take_emergency(emergency, max);
		ret = 0;
	} else {
		ret = case_buffer_steal(&cc->data, &cc->n_data);
	}
	cc->policies = policies;
	cc->n_policies = n_policies;
	policies = NULL;
	n_policies = cap_policies = 0;
	cc->start_ns = case_start_ns;
	cc->streamed = atomic_load(&ksftm_case_stream);
	pthread_mutex_unlock(&ksftm_case_lock);
	if (ret) {
		closed_case_free(cc);
		return ksftm_fail(ENOMEM, "out of memory ending the test case; its metrics are lost");
	}
	return 0;
}

/*
 * fork(): every library lock is taken, in lock order (run context, case,
 * thread buffers, sink), so the child never inherits one held by a thread it
 * does not have. The child does not inherit the open case either: it
 * belongs to the parent, which flushes it; the child may open its own.
 */
static __thread int fork_in_callback;

static void fork_prepare(void)
{
	/*
	 * fork() from the user's output callback: this thread already holds
	 * the sink lock (and maybe the case lock and its own buffer's), so
	 * taking them would hang. It continues in the child and releases
	 * them there; another thread's buffer may stay locked in that child,
	 * which should only exec or _exit (README, Threads).
	 */
	fork_in_callback = sink_in_callback();
	if (fork_in_callback)
		return;
	run_context_atfork_prepare();	/* never held with another lock */
	pthread_mutex_lock(&ksftm_case_lock);
	case_buffer_lock_all();
	sink_lock_for_fork();
}

static void fork_parent(void)
{
	if (fork_in_callback)
		return;
	sink_unlock_after_fork();
	case_buffer_unlock_all();
	pthread_mutex_unlock(&ksftm_case_lock);
	run_context_atfork_release();
}

static void fork_child(void)
{
	atomic_store(&ksftm_case_open, 0);
	atomic_store(&reporting, 0);
	fork_parent();
}

/* At load, not at first use: a lock can be taken before any case begins. */
__attribute__((constructor)) static void fork_handlers_install(void)
{
	pthread_atfork(fork_prepare, fork_parent, fork_child);
}

KSFT_METRIC_API int ksft_metric_case_end(void)
{
	struct closed_case cc;
	int ret = case_close(&cc);

	if (ret)
		return ret;
	ret = case_flush(&cc, NULL, NULL);
	closed_case_free(&cc);
	return ret;
}

KSFT_METRIC_API int ksft_metric_case_end_buffer(char **out, size_t *len)
{
	struct closed_case cc;
	size_t l = 0;
	int ret;

	if (!out)
		return ksftm_fail(EINVAL, "output pointer is NULL");
	*out = NULL;
	ret = case_close(&cc);
	if (ret)
		return ret;
	ret = case_flush(&cc, out, &l);
	closed_case_free(&cc);
	if (len)
		*len = l;
	return ret;
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

static int register_policy(const char *name, struct policy *p)
{
	size_t i, bytes;
	int ret = 0;

	pthread_mutex_lock(&ksftm_case_lock);
	if (!atomic_load(&ksftm_case_open)) {
		ret = ksftm_fail(EPERM, "ksft_metric_aggregate() called outside of a test case");
		goto out;
	}
	for (i = 0; i < n_policies; i++) {
		if (strcmp(policies[i].name, name))
			continue;
		if (!policy_equal(&policies[i].policy, p)) {
			ret = ksftm_fail(EEXIST, "Conflicting aggregation for metric %s", name);
			goto out;
		}
		/* Equal: like the reference, the latest spelling (0 vs 0.0) wins. */
		policy_release(&policies[i].policy);
		policies[i].policy = *p;
		p->label = NULL;
		goto out;
	}
	if (case_buffer_name_observed(name)) {
		ret = ksftm_fail(EALREADY, "Aggregation registered after metric %s was recorded",
				 name);
		goto out;
	}
	/* The policy's strings count against the case's memory cap. */
	bytes = sizeof(*policies) + strlen(name) + 1 + (p->label ? strlen(p->label) + 1 : 0);
	if (budget_charge(&ksftm_case_bytes, atomic_load(&ksftm_buffer_limit), bytes)) {
		ret = ksftm_fail(ENOBUFS, "metric buffer limit of %zu bytes per case reached; policy of metric %s dropped",
				 atomic_load(&ksftm_buffer_limit), name);
		goto out;
	}
	if (n_policies == cap_policies) {
		size_t cap = cap_policies ? cap_policies * 2 : 16;
		struct policy_entry *v = realloc(policies, cap * sizeof(*v));

		if (!v)
			goto oom;
		policies = v;
		cap_policies = cap;
	}
	policies[n_policies].name = strdup(name);
	if (!policies[n_policies].name)
		goto oom;
	policies[n_policies].policy = *p;
	p->label = NULL;
	n_policies++;
	/* Write-through: the line goes out now, before any observation of it. */
	if (atomic_load(&ksftm_case_stream)) {
		ret = case_stream_policy(name, &policies[n_policies - 1].policy);
		if (ret) {
			/* Its line failed: not registered (a retry may succeed). */
			n_policies--;
			free(policies[n_policies].name);
			policy_release(&policies[n_policies].policy);
			atomic_fetch_sub(&ksftm_case_bytes, bytes);
		}
	}
	goto out;
oom:
	atomic_fetch_sub(&ksftm_case_bytes, bytes);
	ret = ksftm_fail(ENOMEM, "out of memory registering metric %s", name);
out:
	pthread_mutex_unlock(&ksftm_case_lock);
	policy_release(p);
	return ret;
}

static int check_policy_name(const char *name)
{
	if (!name)
		return ksftm_fail(EINVAL, "metric name is NULL");
	if (!name[0])
		return ksftm_fail(EINVAL, "metric name is empty");
	/* It goes into the policy line's JSON, as observations' names do. */
	if (!utf8_valid(name, strlen(name)))
		return ksftm_fail(EINVAL, "policy metric name is not valid UTF-8");
	return 0;
}

KSFT_METRIC_API int ksft_metric_aggregate(const char *name,
					  const struct ksft_metric_policy *in)
{
	struct policy p;
	int ret = check_policy_name(name);

	if (!ret)
		ret = policy_from_struct(name, in, &p);
	if (ret)
		return ret;
	return register_policy(name, &p);
}

KSFT_METRIC_API int ksft_metric_aggregate_json(const char *name, const char *json)
{
	struct policy p;
	int ret = check_policy_name(name);

	if (!ret)
		ret = policy_from_json(name, json, &p);
	if (ret)
		return ret;
	return register_policy(name, &p);
}

/* ------------------------------------------------------------------ */

KSFT_METRIC_API int ksft_metric_reporting(int enable)
{
	int ret;

	pthread_mutex_lock(&ksftm_case_lock);
	if (!atomic_load(&ksftm_case_open))
		ret = ksftm_fail(EPERM, "ksft_metric_reporting() called outside of a test case");
	else if (!enable && atomic_load(&reporting) == 0)
		ret = ksftm_fail(EINVAL, "metric reporting scope left more often than entered");
	else
		ret = atomic_fetch_add(&reporting, enable ? 1 : -1) + (enable ? 1 : -1);
	pthread_mutex_unlock(&ksftm_case_lock);
	return ret;
}

KSFT_METRIC_API int ksft_metric_reporting_enabled(void)
{
	return atomic_load(&reporting) > 0;
}
