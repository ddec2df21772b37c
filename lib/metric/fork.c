/* fork() safety: every library lock held across fork, the open case not inherited. */
#include <pthread.h>

#include "case_state.h"
#include "run_context.h"
#include "sink.h"

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
	atomic_store(&ksftm_case_reporting, 0);
	fork_parent();
}

/* At load, not at first use: a lock can be taken before any case begins. */
__attribute__((constructor)) static void fork_handlers_install(void)
{
	pthread_atfork(fork_prepare, fork_parent, fork_child);
}
