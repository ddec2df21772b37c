/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The part of QEMU's TCG plugin API (version 1, QEMU 7.2) the profile
 * plugin uses, declared from QEMU's documentation (docs/devel/tcg-plugins.rst
 * and the comments of qemu-plugin.h): Debian ships no header. Only what
 * ksft_profile.c calls is here; the names of functions and exported symbols
 * are QEMU's (the dynamic linker binds them to qemu-system-*'s own), the
 * type names are ours.
 */
#ifndef KSFT_QEMU_PLUGIN_API_H
#define KSFT_QEMU_PLUGIN_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The API version this plugin is written against. */
#define KSFTP_QEMU_API_VERSION 1

/* A plugin's opaque id, handed to qemu_plugin_install(). */
typedef uint64_t ksftp_plugin_id;

/* What QEMU tells a plugin at install: the guest's architecture, the
 * range of API versions it offers, whether it emulates a whole system. */
struct ksftp_qemu_info {
	const char *target_name;
	struct {
		int min;
		int cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus;
			int max_vcpus;
		} system;
	} u;
};

/* Opaque handles valid during a translation callback. */
struct qemu_plugin_tb;
struct qemu_plugin_insn;

/* Callback flags: ours never read or write guest registers. */
enum ksftp_cb_flags { KSFTP_CB_NO_REGS = 0 };
/* The one inline operation of version 1: add an immediate to a u64. */
enum ksftp_inline_op { KSFTP_INLINE_ADD_U64 = 0 };

typedef void (*ksftp_tb_trans_cb)(ksftp_plugin_id id, struct qemu_plugin_tb *tb);
typedef void (*ksftp_vcpu_udata_cb)(unsigned int vcpu_index, void *userdata);
typedef void (*ksftp_udata_cb)(ksftp_plugin_id id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(ksftp_plugin_id id, ksftp_tb_trans_cb cb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      enum ksftp_inline_op op, void *ptr,
					      uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn,
						enum ksftp_inline_op op, void *ptr,
						uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    ksftp_vcpu_udata_cb cb,
					    enum ksftp_cb_flags flags, void *userdata);
void qemu_plugin_register_atexit_cb(ksftp_plugin_id id, ksftp_udata_cb cb,
				    void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);

#endif
