/* SPDX-License-Identifier: GPL-2.0 */
/* The local host's sample: <root>/proc/stat plus the NIC counters. */
#ifndef SM_LOCAL_SAMPLER_H
#define SM_LOCAL_SAMPLER_H

#include <stdint.h>

#include "nic_stats.h"
#include "proc_stat.h"

struct local_sampler {
	char *stat_path;		/* "/proc/stat" or "<root>/proc/stat" */
	struct nic_reader *nic;		/* NULL: no NIC */
	struct sm_buf buf;
};

/*
 * local_sampler_init() - @root NULL for the live system (NIC over netlink),
 * else a fixture root; @ifname NULL for CPU only. @return 0 or -errno (message).
 */
int local_sampler_init(struct local_sampler *s, const char *root, const char *ifname);

/* local_sampler_read() - one sample; @nic is left alone without a NIC. */
int local_sampler_read(struct local_sampler *s, struct cpu_snapshot *cpu,
		       uint64_t nic[NIC_NCOUNTERS]);

void local_sampler_fini(struct local_sampler *s);

#endif
