// SPDX-License-Identifier: GPL-2.0
/*
 * The monitor: options, the baseline, the sampling thread on a drift-free
 * schedule, and stop with its final sample and deferred sampler error.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ksftmetric/ksftmetric.h>

#include "host_metrics.h"
#include "local_sampler.h"
#include "opts_size.h"
#include "remote_sampler.h"
#include "sm_error.h"
#include "sm_schedule.h"
#include "sysmon.h"

#define DEFAULT_TIMEOUT_MS 10000

struct ksft_sysmon {
	int64_t interval_ns;
	int64_t last_ns;		/* when the last sample was taken */
	struct local_sampler local;
	struct remote_sampler *remote;
	struct cpu_snapshot cpu_local, cpu_remote;
	uint64_t nic_local[NIC_NCOUNTERS], nic_remote[NIC_NCOUNTERS];
	struct host_metrics hm_local, hm_remote;

	pthread_mutex_t lock;		/* sampling; everything below */
	pthread_cond_t wake;
	pthread_t thread;
	int stopping;
	int err;			/* first sampling error, kept until stop */
	char errmsg[SM_ERRMSG_MAX];
	int fatal;			/* a local error: sampling ends */
	int remote_lost;		/* the remote failed: local sampling goes on */
	uint64_t busy_base_local, busy_base_remote;	/* busy ticks at start */
	long tck_local, tck_remote;
};

/* Work done on all CPUs of a snapshot: user, nice, system, irq, softirq. */
static uint64_t busy_ticks(const struct cpu_snapshot *s)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->present[i])
			sum += s->ticks[i][CPU_USER] + s->ticks[i][CPU_NICE] +
			       s->ticks[i][CPU_SYSTEM] + s->ticks[i][CPU_IRQ] +
			       s->ticks[i][CPU_SOFTIRQ];
	return sum;
}

static double busy_since(uint64_t now, uint64_t base, long tck)
{
	return now > base ? (double)(now - base) / (double)tck : 0.0;
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Both hosts' snapshots: the remote works while the local one is read. */
static int snapshot(struct ksft_sysmon *mon)
{
	int err = 0;

	if (mon->remote)
		err = remote_sampler_request(mon->remote);
	if (!err)
		err = local_sampler_read(&mon->local, &mon->cpu_local, mon->nic_local);
	if (!err && mon->remote)
		err = remote_sampler_collect(mon->remote, &mon->cpu_remote, mon->nic_remote);
	return err;
}

/* Keep the first error (and its message) for stop. */
static void keep_error(struct ksft_sysmon *mon, int err)
{
	if (mon->err)
		return;
	mon->err = err;
	memcpy(mon->errmsg, sm_errmsg(), sizeof(mon->errmsg));
}

/*
 * One sample (lock held); the first error sticks to the monitor. A remote
 * failure (the sampler died, its endpoint went away, it stopped answering)
 * only ends the remote's series: the local host is still sampled, so the
 * test's own record is not lost with it.
 */
static int sample_locked(struct ksft_sysmon *mon)
{
	int remote = mon->remote && !mon->remote_lost;
	int err;

	if (mon->fatal)
		return sm_fail(mon->err, "%s", mon->errmsg);
	if (remote && (err = remote_sampler_request(mon->remote))) {
		keep_error(mon, err);
		mon->remote_lost = 1;
		remote = 0;
	}
	err = local_sampler_read(&mon->local, &mon->cpu_local, mon->nic_local);
	if (!err && remote &&
	    (err = remote_sampler_collect(mon->remote, &mon->cpu_remote, mon->nic_remote))) {
		keep_error(mon, err);
		mon->remote_lost = 1;
		remote = 0;
		err = 0;
	}
	if (!err)
		err = host_metrics_record(&mon->hm_local, &mon->cpu_local,
					  mon->local.nic ? mon->nic_local : NULL);
	if (!err && remote)
		err = host_metrics_record(&mon->hm_remote, &mon->cpu_remote, mon->nic_remote);
	if (err) {
		keep_error(mon, err);
		mon->fatal = 1;
	}
	mon->last_ns = mono_ns();
	return mon->err ? sm_fail(mon->err, "%s", mon->errmsg) : 0;
}

/*
 * The final sample comes at least half an interval (at most 0.5 s) after
 * the previous one: a stop just after a periodic sample would otherwise
 * close an interval of a few milliseconds, and a rate over it (one 10 ms
 * tick in 2 ms: "five busy cores") says nothing.
 */
#define FINAL_GAP_MAX_NS 500000000

static void wait_half_interval(const struct ksft_sysmon *mon)
{
	int64_t gap = mon->interval_ns / 2 < FINAL_GAP_MAX_NS ? mon->interval_ns / 2
							       : FINAL_GAP_MAX_NS;
	int64_t wait = mon->last_ns + gap - mono_ns();
	struct timespec ts;

	if (wait <= 0)
		return;
	ts.tv_sec = (time_t)(wait / 1000000000);
	ts.tv_nsec = (long)(wait % 1000000000);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void *sampler_main(void *arg)
{
	struct ksft_sysmon *mon = arg;
	int64_t next = mono_ns() + mon->interval_ns;

	pthread_mutex_lock(&mon->lock);
	while (!mon->stopping && !mon->fatal) {
		int64_t now = mono_ns();

		if (now < next) {
			struct timespec at = { next / 1000000000, next % 1000000000 };

			pthread_cond_timedwait(&mon->wake, &mon->lock, &at);
			continue;
		}
		sample_locked(mon);
		next = sm_next_slot(next, mon->interval_ns, mono_ns());
	}
	pthread_mutex_unlock(&mon->lock);
	return NULL;
}

struct opts_copy {
	struct ksft_sysmon_opts o;
	const char *root, *remote_root;	/* NULL = live system */
	int timeout_ms;
};

static const char *fixture_root(const char *root)
{
	return root && *root && strcmp(root, "/") ? root : NULL;
}

static int check_opts(const struct ksft_sysmon_opts *in, struct opts_copy *c)
{
	const struct ksft_sysmon_opts defaults = KSFT_SYSMON_OPTS_INIT;
	size_t user_sz;
	int err;

	c->o = defaults;
	if (in) {
		switch (ksftm_opts_copy(&c->o, sizeof(c->o), in, &user_sz)) {
		case KSFTM_OPTS_BAD_SIZE:
			return sm_fail(-EINVAL, "opts.sz is %zu, not a struct size: initialise with KSFT_SYSMON_OPTS_INIT",
				       user_sz);
		case KSFTM_OPTS_UNKNOWN:
			return sm_fail(-EINVAL, "opts has unknown non-zero fields (sz %zu > %zu)",
				       user_sz, sizeof(c->o));
		default:
			break;
		}
	}
	if (c->o.interval == 0)
		c->o.interval = 1.0;
	if (!isfinite(c->o.interval) || c->o.interval < 0.001 || c->o.interval > 86400)
		return sm_fail(-EINVAL, "interval %g s is out of range (0.001 to 86400)",
			       c->o.interval);
	if (c->o.remote_timeout_ms < 0)
		return sm_fail(-EINVAL, "remote_timeout_ms %d is negative", c->o.remote_timeout_ms);
	c->timeout_ms = c->o.remote_timeout_ms ? c->o.remote_timeout_ms : DEFAULT_TIMEOUT_MS;
	if (c->o.remote_argv && !c->o.remote_argv[0])
		return sm_fail(-EINVAL, "remote_argv is empty: give a command prefix such as ssh HOST");
	if (!c->o.remote_argv && (c->o.remote_ifname || c->o.remote_root))
		return sm_fail(-EINVAL, "remote_ifname/remote_root given without remote_argv");
	if (c->o.remote_ifname && (err = nic_ifname_check(c->o.remote_ifname, "remote")))
		return err;
	c->root = fixture_root(c->o.root);
	c->remote_root = fixture_root(c->o.remote_root);
	return 0;
}

static long local_clk_tck(void)
{
	long t = sysconf(_SC_CLK_TCK);

	return t > 0 ? t : 100;
}

static void monitor_free(struct ksft_sysmon *mon)
{
	local_sampler_fini(&mon->local);
	cpu_snapshot_free(&mon->cpu_local);
	cpu_snapshot_free(&mon->cpu_remote);
	host_metrics_free(&mon->hm_local);
	host_metrics_free(&mon->hm_remote);
	pthread_cond_destroy(&mon->wake);
	pthread_mutex_destroy(&mon->lock);
	free(mon);
}

static int start_sampling(struct ksft_sysmon *mon, const struct opts_copy *c)
{
	int err;

	err = host_metrics_register();
	if (err)
		return err;
	err = local_sampler_init(&mon->local, c->root, c->o.ifname);
	if (err)
		return err;
	if (c->o.remote_argv) {
		err = remote_sampler_start(&mon->remote, c->o.remote_argv, c->o.remote_ifname,
					   c->remote_root, c->timeout_ms);
		if (err)
			return err;
	}
	err = snapshot(mon);
	mon->tck_local = local_clk_tck();
	mon->busy_base_local = busy_ticks(&mon->cpu_local);
	if (mon->remote) {
		mon->tck_remote = remote_sampler_clk_tck(mon->remote);
		mon->busy_base_remote = busy_ticks(&mon->cpu_remote);
	}
	if (!err)
		err = host_metrics_baseline(&mon->hm_local, "local", mon->tck_local,
					    &mon->cpu_local,
					    mon->local.nic ? mon->nic_local : NULL);
	if (!err && mon->remote)
		err = host_metrics_baseline(&mon->hm_remote, "remote",
					    remote_sampler_clk_tck(mon->remote),
					    &mon->cpu_remote,
					    c->o.remote_ifname ? mon->nic_remote : NULL);
	if (err)
		return err;
	mon->last_ns = mono_ns();

	err = pthread_create(&mon->thread, NULL, sampler_main, mon);
	if (err)
		return sm_fail(-err, "cannot start the sampling thread: %s", strerror(err));
	return 0;
}

struct ksft_sysmon *ksft_sysmon_start(const struct ksft_sysmon_opts *opts)
{
	char msg[SM_ERRMSG_MAX];
	struct ksft_sysmon *mon;
	pthread_condattr_t ca;
	struct opts_copy c;
	int err;

	err = check_opts(opts, &c);
	if (err)
		goto fail;
	mon = calloc(1, sizeof(*mon));
	if (!mon) {
		err = sm_fail(-ENOMEM, "out of memory");
		goto fail;
	}
	mon->interval_ns = (int64_t)llround(c.o.interval * 1e9);
	pthread_mutex_init(&mon->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&mon->wake, &ca);
	pthread_condattr_destroy(&ca);
	err = ksft_metric_reporting(1);
	if (err < 0) {
		sm_fail(err, "cannot enter a reporting scope (is a test case open?): %s",
			ksft_metric_errmsg());
		monitor_free(mon);
		goto fail;
	}
	err = start_sampling(mon, &c);
	if (err) {
		memcpy(msg, sm_errmsg(), sizeof(msg));	/* cleanup must not clobber it */
		ksft_metric_reporting(0);
		remote_sampler_stop(mon->remote);
		monitor_free(mon);
		sm_fail(err, "%s", msg);
		goto fail;
	}
	return mon;
fail:
	errno = -err;
	return NULL;
}

int ksft_sysmon_sample(struct ksft_sysmon *mon)
{
	int err;

	if (!mon)
		return sm_fail(-EINVAL, "no monitor");
	pthread_mutex_lock(&mon->lock);
	err = sample_locked(mon);
	pthread_mutex_unlock(&mon->lock);
	return err;
}

int ksft_sysmon_busy_seconds(struct ksft_sysmon *mon, double *local, double *remote)
{
	int use_remote, err;

	if (local)
		*local = NAN;
	if (remote)
		*remote = NAN;
	if (!mon)
		return sm_fail(-EINVAL, "no monitor");
	pthread_mutex_lock(&mon->lock);
	/* The scratch snapshots are free between samples: the lock keeps
	 * the thread out, and recording swaps them out anyway. */
	use_remote = mon->remote && !mon->remote_lost;
	if (use_remote && (err = remote_sampler_request(mon->remote))) {
		keep_error(mon, err);
		mon->remote_lost = 1;
		use_remote = 0;
	}
	err = local_sampler_read(&mon->local, &mon->cpu_local, mon->nic_local);
	if (use_remote) {
		int rerr = remote_sampler_collect(mon->remote, &mon->cpu_remote, mon->nic_remote);

		if (rerr) {
			keep_error(mon, rerr);
			mon->remote_lost = 1;
		} else if (remote) {
			*remote = busy_since(busy_ticks(&mon->cpu_remote), mon->busy_base_remote,
					     mon->tck_remote);
		}
	}
	if (!err && local)
		*local = busy_since(busy_ticks(&mon->cpu_local), mon->busy_base_local,
				    mon->tck_local);
	pthread_mutex_unlock(&mon->lock);
	return err;
}

int ksft_sysmon_stop(struct ksft_sysmon *mon)
{
	char msg[SM_ERRMSG_MAX] = "";
	int err = 0, scope, rerr;

	if (!mon)
		return 0;
	/* As the reference: leave the scope first, then the final sample. */
	scope = ksft_metric_reporting(0);
	pthread_mutex_lock(&mon->lock);
	mon->stopping = 1;
	pthread_cond_signal(&mon->wake);
	pthread_mutex_unlock(&mon->lock);
	pthread_join(mon->thread, NULL);

	pthread_mutex_lock(&mon->lock);
	if (!mon->fatal)
		wait_half_interval(mon);
	err = sample_locked(mon);	/* returns the thread's error if it had one */
	pthread_mutex_unlock(&mon->lock);
	if (err)
		memcpy(msg, sm_errmsg(), sizeof(msg));
	if (!err && scope < 0) {
		err = scope;
		sm_fail(err, "cannot leave the reporting scope (did the test case end first?): %s",
			ksft_metric_errmsg());
		memcpy(msg, sm_errmsg(), sizeof(msg));
	}
	rerr = remote_sampler_stop(mon->remote);
	if (!err && rerr) {
		err = rerr;
		memcpy(msg, sm_errmsg(), sizeof(msg));
	}
	monitor_free(mon);
	return err ? sm_fail(err, "%s", msg) : 0;
}
