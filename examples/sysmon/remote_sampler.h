/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The remote endpoint's sampler: one persistent "PREFIX... sh -s" child that
 * answers each request line with /proc/stat and the NIC counters.
 */
#ifndef SM_REMOTE_SAMPLER_H
#define SM_REMOTE_SAMPLER_H

#include <stddef.h>
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
 * The parsers of what the sampler prints, on their own (tests, fuzz_remote_reply):
 *
 * remote_reply_ready() - 1 (and *@clk_tck) if @line[0..len), ending '\n',
 * is the ready line, else 0.
 * remote_reply_find_end() - offset of the end-marker line (at a line
 * start) in @buf[from, len), or -1; remote_reply_end_len() is its length.
 * remote_reply_parse() - one answer, the @stat_len bytes before its end
 * marker: /proc/stat, then the NIC counter line when @has_nic.
 * @return 0, -EPROTO or -EBADMSG with a message naming @endpoint.
 */
int remote_reply_ready(const char *line, size_t len, long *clk_tck);
long remote_reply_find_end(const char *buf, size_t len, size_t from);
size_t remote_reply_end_len(void);
int remote_reply_parse(const char *endpoint, const char *buf, size_t stat_len,
		       int has_nic, struct cpu_snapshot *cpu,
		       uint64_t nic[NIC_NCOUNTERS]);

/*
 * remote_sampler_script() - the sh script for @ifname/@root (malloc'd), for
 * tests. Values are single-quoted, so any name is safe.
 */
char *remote_sampler_script(const char *ifname, const char *root);

#endif
