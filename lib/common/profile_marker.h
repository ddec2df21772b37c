/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The profile markers: an 8-byte x86 NOP (nopl disp32(%rax,%rax,1), bytes
 * 0f 1f 84 00 + disp32) whose displacement is a magic number. Natively and
 * under KVM it does nothing; ksft-vm's TCG plugin (tools/vm/plugin/) finds
 * it when it translates the block and opens or closes a profile window
 * when it executes (doc/vm.rst, "Profiling a guest").
 */
#ifndef KSFTM_PROFILE_MARKER_H
#define KSFTM_PROFILE_MARKER_H

/* Plain literals: the assembler reads them too. */
#define KSFTM_PROFILE_MARK_BEGIN 0x4b534231	/* "1BSK" in memory */
#define KSFTM_PROFILE_MARK_END 0x4b534530	/* "0ESK" */

#if defined(__x86_64__) || defined(__i386__)
#define KSFTM_PROFILE_NOP_(magic) \
	__asm__ __volatile__(".byte 0x0f, 0x1f, 0x84, 0x00; .long " #magic ::: "memory")
#define KSFTM_PROFILE_NOP(magic) KSFTM_PROFILE_NOP_(magic)
/* A case's window opens / closes here (a no-op outside the plugin). */
#define ksftm_profile_mark_begin() KSFTM_PROFILE_NOP(KSFTM_PROFILE_MARK_BEGIN)
#define ksftm_profile_mark_end() KSFTM_PROFILE_NOP(KSFTM_PROFILE_MARK_END)
#else
#define ksftm_profile_mark_begin() do { } while (0)
#define ksftm_profile_mark_end() do { } while (0)
#endif

#endif
