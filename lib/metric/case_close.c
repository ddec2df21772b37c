/* Ending a case: take its contents under the lock, then flush them (case_flush.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ksftmetric/metric.h>

#include "case_flush.h"
#include "case_policies.h"
#include "case_state.h"
#include "errmsg.h"
#include "profile_marker.h"

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
	free(cc->rejects);
	cc->rejects = NULL;
}

/* Refusals of the closed case: kept ones plus those past the cap. */
static unsigned long rejected(const struct closed_case *cc)
{
	unsigned long n = 0;
	size_t i;

	if (!cc->rejects)
		return 0;
	for (i = 0; i < cc->rejects->n; i++)
		n += cc->rejects->v[i].count;
	return n + cc->rejects->more;
}

/* Strict mode: a case with refused calls fails (its lines are written). */
static int strict_result(const struct closed_case *cc, int ret)
{
	unsigned long n = rejected(cc);
	const struct case_reject *r;

	if (ret < 0 || !n || !case_rejects_strict())
		return ret;
	r = &cc->rejects->v[0];
	return ksftm_fail(ECANCELED,
			  "strict mode: %lu producer call%s refused in this test case; first: %s: %s",
			  n, n == 1 ? " was" : "s were", r->call, r->msg);
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
	/* ksft-vm --profile: the case's window closes (a NOP elsewhere;
	 * async-signal-safe, as the emergency path needs). */
	ksftm_profile_mark_end();
	atomic_store_explicit(&ksftm_case_open, 0, memory_order_release);
	atomic_store(&ksftm_case_reporting, 0);
	if (emergency) {
		cc->data = emergency;
		cc->n_data = case_buffer_take_emergency(emergency, max);
		ret = 0;
	} else {
		ret = case_buffer_steal(&cc->data, &cc->n_data);
	}
	case_policies_take(&cc->policies, &cc->n_policies);
	/* The refusals (never on the signal path: no allocation there). */
	if (!emergency && (cc->rejects = malloc(sizeof(*cc->rejects))))
		case_rejects_take(cc->rejects);
	cc->start_ns = atomic_load(&ksftm_case_start);
	cc->streamed = atomic_load(&ksftm_case_stream);
	pthread_mutex_unlock(&ksftm_case_lock);
	if (ret) {
		closed_case_free(cc);
		return ksftm_fail(ENOMEM, "out of memory ending the test case; its metrics are lost");
	}
	return 0;
}

KSFT_METRIC_API int ksft_metric_case_end(void)
{
	struct closed_case cc;
	int ret = case_close(&cc);

	if (ret)
		return ret;
	ret = strict_result(&cc, case_flush(&cc, NULL, NULL));
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
	ret = strict_result(&cc, case_flush(&cc, out, &l));
	closed_case_free(&cc);
	if (len)
		*len = l;
	return ret;
}
