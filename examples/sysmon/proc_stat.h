/* SPDX-License-Identifier: GPL-2.0 */
/* /proc/stat per-CPU lines: the parsed snapshot and the file reader. */
#ifndef SM_PROC_STAT_H
#define SM_PROC_STAT_H

#include <stddef.h>
#include <stdint.h>

/* The first eight fields of a "cpuN" line, in file order. */
enum cpu_field {
	CPU_USER, CPU_NICE, CPU_SYSTEM, CPU_IDLE, CPU_IOWAIT, CPU_IRQ,
	CPU_SOFTIRQ, CPU_STEAL, CPU_NFIELDS
};

/* Highest CPU id accepted (the kernel's NR_CPUS tops out at 8192). */
#define CPU_ID_MAX 65535

/* The CPUs of one /proc/stat read, indexed by CPU id. */
struct cpu_snapshot {
	size_t n;		/* 1 + highest id present; 0 if none */
	size_t cap;		/* allocated entries */
	uint64_t (*ticks)[CPU_NFIELDS];
	unsigned char *present;
};

/*
 * cpu_snapshot_parse() - parse /proc/stat text into @s (reusing its memory)
 * @source: how errors name the text, e.g. "/proc/stat"
 *
 * Only "cpuN" lines count (the total "cpu" line and other lines are
 * skipped, as in the reference); fields after the eighth are ignored. Every
 * line must end with '\n'.
 *
 * @return 0; -EBADMSG with a message "<source> line L: ..." for short,
 * non-numeric, overflowing or duplicate CPU lines, a truncated last line or
 * no CPU line at all; -ENOMEM.
 */
int cpu_snapshot_parse(struct cpu_snapshot *s, const char *text, size_t len,
		       const char *source);

void cpu_snapshot_free(struct cpu_snapshot *s);

/* A growable read buffer. */
struct sm_buf {
	char *data;
	size_t len, cap;
};

/* read_whole_file() - read @path into @b. @return 0 or -errno (with message). */
int read_whole_file(const char *path, struct sm_buf *b);

void sm_buf_free(struct sm_buf *b);

#endif
