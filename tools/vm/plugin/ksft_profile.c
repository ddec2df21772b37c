// SPDX-License-Identifier: GPL-2.0
/*
 * ksft_profile: a QEMU TCG plugin counting the guest's instructions per
 * translated block, exactly, for ksft-vm --profile (doc/vm.rst).
 *
 * Each block gets an inline counter (QEMU adds 1 each time it runs, no
 * callback), keyed by (address, instructions) so that retranslations of one
 * block share it; the dump lists where its instructions start, so that a
 * block running on past a symbol counts each instruction to its function. A block holding a profile marker (lib/common/
 * profile_marker.h) is counted per instruction instead, and the marker runs
 * a callback: begin snapshots every counter, end keeps each counter's
 * growth since as one window. At exit the whole run and every window go to
 * the file out=PATH as text (tools/vm/ksft_vm/profile.py reads it).
 *
 * Options: out=PATH (required); mode=insn counts every instruction on its
 * own (slower; measures what per-block counting over-counts).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile_marker.h"
#include "qemu_plugin_api.h"

#define KSFTP_EXPORT __attribute__((visibility("default")))

KSFTP_EXPORT extern int qemu_plugin_version;
KSFTP_EXPORT int qemu_plugin_version = KSFTP_QEMU_API_VERSION;

KSFTP_EXPORT int qemu_plugin_install(ksftp_plugin_id id, const struct ksftp_qemu_info *info,
				     int argc, char **argv);

/* One counted block: @n_insns instructions from @vaddr. @execs is QEMU's
 * inline counter, so a block never moves once made (blocks live in
 * chunks). */
struct block {
	uint64_t vaddr;
	uint64_t execs;
	uint64_t base;		/* @execs when the open window began */
	struct block *next;	/* hash chain */
	uint32_t *offs;		/* instructions 2..n: their offsets from @vaddr */
	uint32_t n_insns;
};

#define CHUNK_BLOCKS 4096
struct chunk {
	struct chunk *next;
	size_t used;
	struct block blocks[CHUNK_BLOCKS];
};

struct window_entry {
	const struct block *block;
	uint64_t execs;
};

struct window {
	struct window_entry *entries;
	size_t n;
};

static struct {
	pthread_mutex_t lock;
	char *out;
	int per_insn;
	struct block **buckets;
	size_t n_buckets, n_blocks;
	struct chunk *chunks;
	struct window *windows;
	size_t n_windows;
	int open;			/* a window is open */
	uint64_t nested, stray;		/* begin while open, end while closed */
	int failed;			/* out of memory: the dump says so */
} prof = { .lock = PTHREAD_MUTEX_INITIALIZER };

static uint64_t hash_key(uint64_t vaddr, uint32_t n)
{
	uint64_t h = vaddr * 0x9e3779b97f4a7c15ull ^ n;

	return h ^ (h >> 29);
}

static int grow_buckets(void)
{
	size_t n = prof.n_buckets ? prof.n_buckets * 2 : 1 << 16;
	struct block **b = calloc(n, sizeof(*b));

	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < prof.n_buckets; i++) {
		struct block *e = prof.buckets[i], *next;

		for (; e; e = next) {
			size_t h = hash_key(e->vaddr, e->n_insns) & (n - 1);

			next = e->next;
			e->next = b[h];
			b[h] = e;
		}
	}
	free(prof.buckets);
	prof.buckets = b;
	prof.n_buckets = n;
	return 0;
}

/* The counter of (@vaddr, @n), made on first sight with its instructions'
 * offsets from @tb (NULL: one instruction); NULL when out of memory. */
static struct block *block_of(uint64_t vaddr, uint32_t n, const struct qemu_plugin_tb *tb)
{
	struct block *e;
	size_t h;

	if (prof.n_blocks >= prof.n_buckets && grow_buckets())
		return NULL;
	h = hash_key(vaddr, n) & (prof.n_buckets - 1);
	for (e = prof.buckets[h]; e; e = e->next)
		if (e->vaddr == vaddr && e->n_insns == n)
			return e;
	if (!prof.chunks || prof.chunks->used == CHUNK_BLOCKS) {
		struct chunk *c = calloc(1, sizeof(*c));

		if (!c)
			return NULL;
		c->next = prof.chunks;
		prof.chunks = c;
	}
	e = &prof.chunks->blocks[prof.chunks->used];
	if (tb && n > 1) {
		e->offs = calloc(n - 1, sizeof(*e->offs));
		if (!e->offs)
			return NULL;
		for (uint32_t i = 1; i < n; i++)
			e->offs[i - 1] = (uint32_t)(qemu_plugin_insn_vaddr(
				qemu_plugin_tb_get_insn(tb, i)) - vaddr);
	}
	prof.chunks->used++;
	e->vaddr = vaddr;
	e->n_insns = n;
	/* A block made inside a window began it at zero. */
	e->next = prof.buckets[h];
	prof.buckets[h] = e;
	prof.n_blocks++;
	return e;
}

static void window_begin(void)
{
	if (prof.open)
		prof.nested++;
	for (struct chunk *c = prof.chunks; c; c = c->next)
		for (size_t i = 0; i < c->used; i++)
			c->blocks[i].base = c->blocks[i].execs;
	prof.open = 1;
}

static void window_end(void)
{
	struct window *w, *ws;
	size_t n = 0;

	if (!prof.open) {
		prof.stray++;
		return;
	}
	prof.open = 0;
	ws = realloc(prof.windows, (prof.n_windows + 1) * sizeof(*ws));
	if (!ws) {
		prof.failed = 1;
		return;
	}
	prof.windows = ws;
	w = &ws[prof.n_windows++];
	w->n = 0;
	for (struct chunk *c = prof.chunks; c; c = c->next)
		for (size_t i = 0; i < c->used; i++)
			n += c->blocks[i].execs != c->blocks[i].base;
	w->entries = calloc(n ? n : 1, sizeof(*w->entries));
	if (!w->entries) {
		prof.failed = 1;
		return;
	}
	for (struct chunk *c = prof.chunks; c; c = c->next)
		for (size_t i = 0; i < c->used; i++) {
			const struct block *b = &c->blocks[i];

			if (b->execs != b->base)
				w->entries[w->n++] = (struct window_entry){ b, b->execs - b->base };
		}
}

static void on_marker(unsigned int vcpu_index, void *userdata)
{
	pthread_mutex_lock(&prof.lock);
	if (userdata)
		window_begin();
	else
		window_end();
	pthread_mutex_unlock(&prof.lock);
}

/* 1 for a begin marker, 0 for an end marker, -1 for any other instruction. */
static int marker_kind(const struct qemu_plugin_insn *insn)
{
	const unsigned char *d = qemu_plugin_insn_data(insn);
	uint32_t disp;

	if (qemu_plugin_insn_size(insn) != 8 || memcmp(d, "\x0f\x1f\x84\x00", 4))
		return -1;
	disp = (uint32_t)d[4] | (uint32_t)d[5] << 8 | (uint32_t)d[6] << 16 |
	       (uint32_t)d[7] << 24;
	if (disp == KSFTM_PROFILE_MARK_BEGIN)
		return 1;
	if (disp == KSFTM_PROFILE_MARK_END)
		return 0;
	return -1;
}

static void on_translate(ksftp_plugin_id id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	int per_insn = prof.per_insn;

	pthread_mutex_lock(&prof.lock);
	/* A block with a marker is counted per instruction: the window opens
	 * and closes exactly at the marker, not at its block's start. */
	for (size_t i = 0; i < n && !per_insn; i++)
		per_insn = marker_kind(qemu_plugin_tb_get_insn(tb, i)) >= 0;
	if (!per_insn) {
		struct block *b = block_of(qemu_plugin_tb_vaddr(tb), (uint32_t)n, tb);

		if (b)
			qemu_plugin_register_vcpu_tb_exec_inline(tb, KSFTP_INLINE_ADD_U64,
								 &b->execs, 1);
		else
			prof.failed = 1;
	}
	for (size_t i = 0; i < n && per_insn; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		struct block *b = block_of(qemu_plugin_insn_vaddr(insn), 1, NULL);
		int kind = marker_kind(insn);

		if (b)
			qemu_plugin_register_vcpu_insn_exec_inline(insn, KSFTP_INLINE_ADD_U64,
								   &b->execs, 1);
		else
			prof.failed = 1;
		if (kind >= 0)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker, KSFTP_CB_NO_REGS,
							       kind ? (void *)1 : NULL);
	}
	pthread_mutex_unlock(&prof.lock);
}

static int cmp_entry(const void *a, const void *b)
{
	const struct block *x = ((const struct window_entry *)a)->block;
	const struct block *y = ((const struct window_entry *)b)->block;

	if (x->vaddr != y->vaddr)
		return x->vaddr < y->vaddr ? -1 : 1;
	return (x->n_insns > y->n_insns) - (x->n_insns < y->n_insns);
}

static void write_entries(FILE *f, struct window_entry *e, size_t n)
{
	qsort(e, n, sizeof(*e), cmp_entry);
	for (size_t i = 0; i < n; i++) {
		const struct block *b = e[i].block;

		fprintf(f, "%016" PRIx64 " %" PRIu32 " %" PRIu64, b->vaddr, b->n_insns, e[i].execs);
		for (uint32_t k = 0; b->offs && k + 1 < b->n_insns; k++)
			fprintf(f, "%c%" PRIx32, k ? ',' : ' ', b->offs[k]);
		fputc('\n', f);
	}
}

static void on_exit_dump(ksftp_plugin_id id, void *userdata)
{
	struct window_entry *all;
	size_t n = 0;
	FILE *f;

	pthread_mutex_lock(&prof.lock);
	f = fopen(prof.out, "w");
	if (!f) {
		fprintf(stderr, "ksft_profile: %s: %s\n", prof.out, strerror(errno));
		goto out;
	}
	/* Version 2: a block's line ends with its instructions' offsets. */
	fprintf(f, "ksft-profile 2\nmode %s\n", prof.per_insn ? "insn" : "block");
	fprintf(f, "markers nested=%" PRIu64 " stray=%" PRIu64 " open=%d\n", prof.nested,
		prof.stray, prof.open);
	if (prof.failed)
		fprintf(f, "error out of memory: counts are incomplete\n");
	all = calloc(prof.n_blocks ? prof.n_blocks : 1, sizeof(*all));
	if (!all) {
		fprintf(f, "error out of memory: no whole-run profile\n");
	} else {
		for (struct chunk *c = prof.chunks; c; c = c->next)
			for (size_t i = 0; i < c->used; i++)
				if (c->blocks[i].execs)
					all[n++] = (struct window_entry){ &c->blocks[i],
									  c->blocks[i].execs };
		fprintf(f, "window whole\n");
		write_entries(f, all, n);
		free(all);
	}
	for (size_t w = 0; w < prof.n_windows; w++) {
		fprintf(f, "window case %zu\n", w + 1);
		write_entries(f, prof.windows[w].entries, prof.windows[w].n);
	}
	fprintf(f, "end\n");
	if (fclose(f))
		fprintf(stderr, "ksft_profile: %s: %s\n", prof.out, strerror(errno));
out:
	pthread_mutex_unlock(&prof.lock);
}

KSFTP_EXPORT int qemu_plugin_install(ksftp_plugin_id id, const struct ksftp_qemu_info *info,
				     int argc, char **argv)
{
	if (info->version.min > KSFTP_QEMU_API_VERSION ||
	    info->version.cur < KSFTP_QEMU_API_VERSION) {
		fprintf(stderr, "ksft_profile: QEMU offers plugin API versions %d-%d, this "
			"plugin needs %d\n", info->version.min, info->version.cur,
			KSFTP_QEMU_API_VERSION);
		return -1;
	}
	if (!info->system_emulation || (strcmp(info->target_name, "x86_64") &&
					strcmp(info->target_name, "i386"))) {
		fprintf(stderr, "ksft_profile: needs qemu-system-x86_64 or -i386 (this is %s%s)\n",
			info->system_emulation ? "" : "user-mode ", info->target_name);
		return -1;
	}
	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4) && argv[i][4]) {
			prof.out = argv[i] + 4;
		} else if (!strcmp(argv[i], "mode=insn")) {
			prof.per_insn = 1;
		} else if (!strcmp(argv[i], "mode=block")) {
			prof.per_insn = 0;
		} else {
			fprintf(stderr, "ksft_profile: unknown option '%s' (out=PATH, "
				"mode=block|insn)\n", argv[i]);
			return -1;
		}
	}
	if (!prof.out) {
		fprintf(stderr, "ksft_profile: no out=PATH option\n");
		return -1;
	}
	if (grow_buckets()) {
		fprintf(stderr, "ksft_profile: out of memory\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_exit_dump, NULL);
	return 0;
}
