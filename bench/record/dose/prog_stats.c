// SPDX-License-Identifier: GPL-2.0
/*
 * Print "ID NAME RUN_TIME_NS RUN_CNT" for every loaded BPF program whose
 * name starts with argv[1] (default: all), from BPF_OBJ_GET_INFO_BY_FD.
 * The run time counts only while kernel.bpf_stats_enabled=1. Root only.
 */
#include <errno.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static long bpf(int cmd, union bpf_attr *attr)
{
	return syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

int main(int argc, char **argv)
{
	const char *prefix = argc > 1 ? argv[1] : "";
	__u32 id = 0;

	for (;;) {
		struct bpf_prog_info info;
		union bpf_attr a;
		int fd;

		memset(&a, 0, sizeof(a));
		a.start_id = id;
		if (bpf(BPF_PROG_GET_NEXT_ID, &a)) {
			if (errno == ENOENT)
				return 0;
			perror("BPF_PROG_GET_NEXT_ID");
			return 1;
		}
		id = a.next_id;
		memset(&a, 0, sizeof(a));
		a.prog_id = id;
		fd = (int)bpf(BPF_PROG_GET_FD_BY_ID, &a);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		memset(&a, 0, sizeof(a));
		a.info.bpf_fd = (__u32)fd;
		a.info.info_len = sizeof(info);
		a.info.info = (__u64)(unsigned long)&info;
		if (!bpf(BPF_OBJ_GET_INFO_BY_FD, &a) && !strncmp(info.name, prefix, strlen(prefix)))
			printf("%u %s %llu %llu\n", info.id, info.name,
			       (unsigned long long)info.run_time_ns,
			       (unsigned long long)info.run_cnt);
		close(fd);
	}
}
