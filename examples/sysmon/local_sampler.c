// SPDX-License-Identifier: GPL-2.0
/* The local host's sample: read and parse /proc/stat, then the NIC counters. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "local_sampler.h"
#include "sm_error.h"

int local_sampler_init(struct local_sampler *s, const char *root, const char *ifname)
{
	size_t n = (root ? strlen(root) : 0) + sizeof("/proc/stat");
	int err;

	memset(s, 0, sizeof(*s));
	s->stat_path = malloc(n);
	if (!s->stat_path)
		return sm_fail(-ENOMEM, "out of memory");
	snprintf(s->stat_path, n, "%s/proc/stat", root ? root : "");
	if (!ifname)
		return 0;
	err = nic_reader_open(&s->nic, ifname, root);
	if (err)
		local_sampler_fini(s);
	return err;
}

int local_sampler_read(struct local_sampler *s, struct cpu_snapshot *cpu,
		       uint64_t nic[NIC_NCOUNTERS])
{
	int err = read_whole_file(s->stat_path, &s->buf);

	if (!err)
		err = cpu_snapshot_parse(cpu, s->buf.data, s->buf.len, s->stat_path);
	if (!err && s->nic)
		err = nic_reader_read(s->nic, nic);
	return err;
}

void local_sampler_fini(struct local_sampler *s)
{
	nic_reader_close(s->nic);
	free(s->stat_path);
	sm_buf_free(&s->buf);
	memset(s, 0, sizeof(*s));
}
