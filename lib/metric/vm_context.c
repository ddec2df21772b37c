/*
 * How a guest run was measured, as ksft-vm (doc/vm.rst) tells every process
 * of the guest: ksftm.KEY=VALUE words on the kernel command line (the
 * clock, icount shift, QEMU version and CPU model, the boot's seed, the
 * image's release and config hash). The kernel ignores them (a dot: a module's parameter); the
 * run context carries them, so a guest run is never compared with a native
 * one. The command line, not the environment: a test that cleans its
 * environment (sudo, a harness) still says how it was measured.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "json_text.h"
#include "vm_context.h"

const char *const vm_context_keys[VM_CONTEXT_N_KEYS] = {
	"clock", "icount_shift", "qemu", "qemu_cpu", "seed", "seed_spin", "vm_kernel",
	"vm_kernel_config",	/* seed, seed_spin: ksft-vm --seed, the layout, not the machine */
};

static int known(const char *key, size_t len)
{
	size_t i;

	for (i = 0; i < VM_CONTEXT_N_KEYS; i++)
		if (strlen(vm_context_keys[i]) == len && !strncmp(vm_context_keys[i], key, len))
			return 1;
	return 0;
}

/* $KSFTMETRIC_CMDLINE (tests) or /proc/cmdline. */
int vm_context_each(const char *path, vm_context_fn fn, void *arg)
{
	static const char pfx[] = "ksftm.";
	char buf[4096], *w, *save = NULL, *eq;
	size_t n;
	int ret = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return 0;	/* not Linux, or no /proc: no guest keys */
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	for (w = strtok_r(buf, " \t\n", &save); w && !ret; w = strtok_r(NULL, " \t\n", &save)) {
		if (strncmp(w, pfx, sizeof(pfx) - 1))
			continue;
		w += sizeof(pfx) - 1;
		eq = strchr(w, '=');
		if (!eq || !eq[1] || !known(w, (size_t)(eq - w)) || !utf8_valid(eq + 1, strlen(eq + 1)))
			continue;
		*eq = '\0';
		ret = fn(w, eq + 1, arg);
	}
	return ret;
}
