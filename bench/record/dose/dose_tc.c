// SPDX-License-Identifier: GPL-2.0
/*
 * A dose we can account for: a tc ingress program that spins in
 * proportion to each packet's length (DOSE iterations per KiB, set at
 * build time: clang -O2 -target bpf -DDOSE=N), so that the extra receive
 * work is proportional to the bytes moved, whatever the GSO/GRO size.
 * With kernel.bpf_stats_enabled=1 the kernel measures its run time
 * (run_time_ns of the program), the ground truth a CPU-cost metric should
 * see. It never drops or changes a packet.
 */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>

#ifndef DOSE
#define DOSE 1
#endif

#define SEC(name) __attribute__((section(name), used))

static long (*bpf_loop)(__u32 nr_loops, void *callback_fn, void *callback_ctx,
			__u64 flags) = (void *)BPF_FUNC_loop;

static long spin(__u32 i, void *ctx)
{
	volatile __u64 *acc = ctx;

	*acc = *acc * 6364136223846793005ULL + i;
	return 0;
}

SEC("tc")
int dose(struct __sk_buff *skb)
{
	__u64 acc = skb->len;
	__u32 n = (__u32)(((__u64)skb->len * DOSE) >> 10);

	if (n > (1u << 23))
		n = 1u << 23;	/* bpf_loop's own limit */
	bpf_loop(n, spin, &acc, 0);
	return TC_ACT_OK;
}

char _license[] SEC("license") = "GPL";
