/* ksft-vm's run context keys from the kernel command line (vm_context.c). */
#ifndef KSFTM_VM_CONTEXT_H
#define KSFTM_VM_CONTEXT_H

#define VM_CONTEXT_N_KEYS 7

/* The keys a guest's command line may carry; the library fills them. */
extern const char *const vm_context_keys[VM_CONTEXT_N_KEYS];

typedef int (*vm_context_fn)(const char *key, const char *value, void *arg);

/* @fn for each known ksftm.KEY=VALUE word of the command line in @path;
 * 0 (also when @path cannot be read), or the first non-zero @fn return. */
int vm_context_each(const char *path, vm_context_fn fn, void *arg);

#endif
