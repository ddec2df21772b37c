/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The remote endpoint's sampler: one persistent "PREFIX... sh -s" child that
 * answers each request line with /proc/stat and the NIC counters.
 */
#ifndef SM_REMOTE_SAMPLER_H
#define SM_REMOTE_SAMPLER_H

#include <stdint.h>

#include "nic_stats.h"
#include "proc_stat.h"

struct remote_sampler;

/*
 * remote_sampler_start() - spawn the sampler and wait for its ready line
 * @prefix:     command prefix argv (NULL-terminated, at least one word)
 * @ifname:     remote NIC or NULL (no NIC counters)
 * @root:       remote fixture root or NULL
 * @timeout_ms: longest wait for the ready line and for each answer
 *
 * @return 0 or -errno; messages start with "remote endpoint `PREFIX`: ".
 */
int remote_sampler_start(struct remote_sampler **out, const char *const *prefix,
			 const char *ifname, const char *root, int timeout_ms);

/* Ask for one sample (returns at once). @return 0 or -errno. */
int remote_sampler_request(struct remote_sampler *r);

/*
 * remote_sampler_collect() - wait for the requested sample and parse it
 * @nic: receives the counters when the sampler has an ifname
 *
 * @return 0; -ETIMEDOUT; -EPROTO (garbage, exit) or -EBADMSG (bad
 * /proc/stat), each with a message naming the endpoint.
 */
int remote_sampler_collect(struct remote_sampler *r, struct cpu_snapshot *cpu,
			   uint64_t nic[NIC_NCOUNTERS]);

/* USER_HZ reported by the remote (getconf CLK_TCK, else 100). */
long remote_sampler_clk_tck(const struct remote_sampler *r);

/*
 * remote_sampler_stop() - close its stdin, reap it (SIGTERM, then SIGKILL,
 * if it does not exit in time) and free it. NULL is fine.
 * @return 0, or -EPROTO (message) if it exited with a failure status.
 */
int remote_sampler_stop(struct remote_sampler *r);

/*
 * remote_sampler_script() - the sh script for @ifname/@root (malloc'd), for
 * tests. Values are single-quoted, so any name is safe.
 */
char *remote_sampler_script(const char *ifname, const char *root);

#endif
