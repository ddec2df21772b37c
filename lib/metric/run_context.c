/*
 * The run's context (kernel, machine, CPU, debug build, caller keys) as one
 * ktap-metric-context-json line, and the "should a performance test run
 * here?" check built on the same facts. A collector ingests logs far from
 * the machine that ran them; this line is how it tells comparable runs
 * apart. Nothing here is written unless asked (byte-identical output to the
 * reference by default).
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <ksftmetric/metric.h>

#include "errmsg.h"
#include "grow.h"
#include "json_text.h"
#include "ktap_tags.h"
#include "run_context.h"
#include "sink.h"
#include "strbuf.h"
#include "vm_context.h"

/*
 * Kernel options that make a kernel a debug build: each slows networking
 * paths by far more than the changes a performance gate looks for (KASAN
 * and lockdep alone cost 2-5x). The list follows the heavy parts of the
 * kernel's kernel/configs/debug.config; cheap checks (KFENCE, UBSAN traps,
 * DEBUG_INFO) are deliberately absent.
 */
static const char *const debug_options[] = {
	"CONFIG_KASAN", "CONFIG_KCSAN", "CONFIG_KMSAN", "CONFIG_LOCKDEP",
	"CONFIG_PROVE_LOCKING", "CONFIG_DEBUG_KMEMLEAK", "CONFIG_DEBUG_OBJECTS",
	"CONFIG_SLUB_DEBUG_ON", "CONFIG_DEBUG_PAGEALLOC_ENABLE_DEFAULT",
	"CONFIG_DEBUG_VM", "CONFIG_KCOV_INSTRUMENT_ALL",
};
#define N_DEBUG (sizeof(debug_options) / sizeof(debug_options[0]))

/* Keys the library fills; a caller may not set them. */
static const char *const own_keys[] = {
	"arch", "cpu_count", "cpu_model", "debug_evidence", "debug_kernel",
	"hostname", "kernel", "ksft_machine_slow", "time",
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct { char *key, *value; } *extra;	/* sorted by key */
static size_t n_extra, cap_extra;
static atomic_int emitted;

void run_context_atfork_prepare(void)
{
	pthread_mutex_lock(&lock);
}

void run_context_atfork_release(void)
{
	pthread_mutex_unlock(&lock);
}

static int is_own_key(const char *key)
{
	size_t i;

	for (i = 0; i < sizeof(own_keys) / sizeof(own_keys[0]); i++)
		if (!strcmp(key, own_keys[i]))
			return 1;
	for (i = 0; i < VM_CONTEXT_N_KEYS; i++)
		if (!strcmp(key, vm_context_keys[i]))
			return 1;
	return 0;
}

/*
 * The kernel's configuration, read a line at a time from the first of:
 * $KSFTMETRIC_KCONFIG (tests, or a config kept elsewhere), /proc/config.gz
 * (the running kernel's own, with CONFIG_IKCONFIG_PROC), /boot/config-RELEASE
 * (where distributions install it). zlib is loaded with dlopen only when
 * /proc/config.gz is there, so a selftest never links it.
 */
struct kconfig {
	FILE *f;
	void *gz, *zlib;
	char *(*gzgets)(void *, char *, int);
	int (*gzclose)(void *);
};

static int kconfig_open(struct kconfig *kc, const char *release)
{
	const char *env = getenv("KSFTMETRIC_KCONFIG");
	char path[512];

	memset(kc, 0, sizeof(*kc));
	if (env && *env) {
		kc->f = fopen(env, "re");
		return kc->f ? 0 : -1;
	}
	if (access("/proc/config.gz", R_OK) == 0 &&
	    (kc->zlib = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL))) {
		void *(*gzopen)(const char *, const char *);

		/* dlsym returns an object pointer; POSIX's way to make it a
		 * function pointer without a cast ISO C forbids. */
		*(void **)&gzopen = dlsym(kc->zlib, "gzopen");
		*(void **)&kc->gzgets = dlsym(kc->zlib, "gzgets");
		*(void **)&kc->gzclose = dlsym(kc->zlib, "gzclose");
		if (gzopen && kc->gzgets && kc->gzclose &&
		    (kc->gz = gzopen("/proc/config.gz", "rb")))
			return 0;
		dlclose(kc->zlib);
		kc->zlib = NULL;
	}
	snprintf(path, sizeof(path), "/boot/config-%s", release);
	kc->f = fopen(path, "re");
	return kc->f ? 0 : -1;
}

static char *kconfig_gets(struct kconfig *kc, char *line, int size)
{
	return kc->gz ? kc->gzgets(kc->gz, line, size) : fgets(line, size, kc->f);
}

static void kconfig_close(struct kconfig *kc)
{
	if (kc->gz)
		kc->gzclose(kc->gz);
	if (kc->zlib)
		dlclose(kc->zlib);
	if (kc->f)
		fclose(kc->f);
}

int run_context_debug(const char *release, const char **ev, size_t *n_ev)
{
	char line[256];
	int known = 0;
	size_t i, n;
	struct kconfig kc;

	*n_ev = 0;
	if (kconfig_open(&kc, release) == 0) {
		known = 1;
		while (kconfig_gets(&kc, line, sizeof(line))) {
			for (i = 0; i < N_DEBUG; i++) {
				n = strlen(debug_options[i]);
				if (!strncmp(line, debug_options[i], n) && !strcmp(line + n, "=y\n") &&
				    *n_ev < RUN_CONTEXT_MAX_EVIDENCE)
					ev[(*n_ev)++] = debug_options[i];
			}
		}
		kconfig_close(&kc);
	}
	/* Runtime evidence where the config cannot be read. */
	if (!known && access("/proc/lockdep", F_OK) == 0)
		ev[(*n_ev)++] = "/proc/lockdep";
	return *n_ev ? 1 : known ? 0 : -1;
}

/* "model name" (x86), else "Processor"/"cpu model"/"uarch" (arm, mips,
 * riscv); NULL where /proc/cpuinfo names none (a VM may hide it). */
static char *cpu_model(void)
{
	static const char *const keys[] = { "model name", "Processor", "cpu model", "uarch" };
	char line[512], *colon, *end, *model = NULL;
	FILE *f = fopen("/proc/cpuinfo", "re");
	size_t i;

	if (!f)
		return NULL;
	while (!model && fgets(line, sizeof(line), f)) {
		colon = strchr(line, ':');
		if (!colon)
			continue;
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			size_t n = strlen(keys[i]);

			if (strncmp(line, keys[i], n) || (line[n] != '\t' && line[n] != ' ' && line[n] != ':'))
				continue;
			colon++;
			while (*colon == ' ' || *colon == '\t')
				colon++;
			end = colon + strlen(colon);
			while (end > colon && (end[-1] == '\n' || end[-1] == ' '))
				*--end = '\0';
			if (*colon && utf8_valid(colon, strlen(colon)))
				model = strdup(colon);
			break;
		}
	}
	fclose(f);
	return model;
}

static int machine_slow(void)
{
	const char *v = getenv("KSFT_MACHINE_SLOW");

	return v && !strcmp(v, "yes");
}

/* One key of the line: its name and its value as JSON text. */
struct ctx_item {
	char *key;
	char *json;
	int from_env;	/* a caller key wins over the same key from the environment */
};

static int item_cmp(const void *a, const void *b)
{
	const struct ctx_item *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : x->from_env - y->from_env;
}

static int push(struct ctx_item **items, size_t *n, const char *key, size_t klen,
		struct strbuf *json, int from_env)
{
	void *grown = json->oom ? NULL : realloc(*items, (*n + 1) * sizeof(**items));
	char *k;

	if (grown)
		*items = grown;
	k = grown ? strndup(key, klen) : NULL;
	if (!k) {
		strbuf_free(json);
		return -ENOMEM;
	}
	(*items)[*n].key = k;
	(*items)[*n].json = strbuf_detach(json, NULL);
	(*items)[(*n)++].from_env = from_env;
	return 0;
}

static int push_str(struct ctx_item **items, size_t *n, const char *key,
		    const char *val, int from_env)
{
	struct strbuf sb = STRBUF_INIT;

	if (val)
		json_add_string(&sb, val, strlen(val));
	else
		strbuf_adds(&sb, "null");
	return push(items, n, key, strlen(key), &sb, from_env);
}

static int push_raw(struct ctx_item **items, size_t *n, const char *key, const char *text)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_adds(&sb, text);
	return push(items, n, key, strlen(key), &sb, 0);
}

struct ctx_items {
	struct ctx_item **items;
	size_t *n;
};

static int push_vm_key(const char *key, const char *value, void *arg)
{
	struct ctx_items *it = arg;

	return push_str(it->items, it->n, key, value, 0);
}

/* The JSON object, keys sorted as in every line of the format. Caller keys
 * come from ksft_metric_context_set() and KSFTMETRIC_CONTEXT_<KEY>=value
 * (the key lower-cased). Called under @lock. */
static int format_context(struct strbuf *sb)
{
	static const char pfx[] = "KSFTMETRIC_CONTEXT_";
	extern char **environ;
	const char *ev[RUN_CONTEXT_MAX_EVIDENCE];
	struct strbuf tmp = STRBUF_INIT;
	struct ctx_item *items = NULL;
	struct utsname u;
	size_t i, j, n = 0, n_ev;
	char num[32], *model, **e;
	int debug, err = 0;

	if (uname(&u))
		return ksftm_fail(errno, "uname: %s", strerror(errno));
	debug = run_context_debug(u.release, ev, &n_ev);
	model = cpu_model();
	snprintf(num, sizeof(num), "%ld", sysconf(_SC_NPROCESSORS_ONLN));

	err |= push_str(&items, &n, "arch", u.machine, 0);
	err |= push_raw(&items, &n, "cpu_count", num);
	err |= push_str(&items, &n, "cpu_model", model, 0);
	strbuf_addc(&tmp, '[');
	for (i = 0; i < n_ev; i++) {
		if (i)
			strbuf_addc(&tmp, ',');
		json_add_string(&tmp, ev[i], strlen(ev[i]));
	}
	strbuf_addc(&tmp, ']');
	err |= push(&items, &n, "debug_evidence", 14, &tmp, 0);
	err |= push_raw(&items, &n, "debug_kernel", debug < 0 ? "null" : debug ? "true" : "false");
	err |= push_str(&items, &n, "hostname", u.nodename, 0);
	err |= push_str(&items, &n, "kernel", u.release, 0);
	err |= push_raw(&items, &n, "ksft_machine_slow", machine_slow() ? "true" : "false");
	{
		const char *cmdline = getenv("KSFTMETRIC_CMDLINE");
		struct ctx_items it = { &items, &n };
		size_t before = n;

		/* A ksft-vm guest's clock, QEMU and image (vm_context.c). */
		err |= vm_context_each(cmdline && *cmdline ? cmdline : "/proc/cmdline",
				       push_vm_key, &it);
		/* When the run started, in UTC to the microsecond: the history
		 * orders a run without a CI order by it (doc/run-history.rst), by
		 * the clock of the machine that ran it, whoever ingests the log
		 * and when. Not in a ksft-vm guest: its clock starts at a fixed
		 * date every boot (determinism), so it says nothing of when. */
		if (n == before) {
			struct timespec ts;
			struct tm tm;
			char when[48];

			clock_gettime(CLOCK_REALTIME, &ts);
			gmtime_r(&ts.tv_sec, &tm);
			strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
			snprintf(when + strlen(when), sizeof(when) - strlen(when), ".%06ldZ",
				 ts.tv_nsec / 1000);
			err |= push_str(&items, &n, "time", when, 0);
		}
	}
	for (i = 0; i < n_extra; i++)
		err |= push_str(&items, &n, extra[i].key, extra[i].value, 0);
	for (e = environ; e && *e; e++) {
		char *eq = strchr(*e, '=');
		size_t klen;

		if (strncmp(*e, pfx, sizeof(pfx) - 1) || !eq || eq == *e + sizeof(pfx) - 1 ||
		    !utf8_valid(eq + 1, strlen(eq + 1)))
			continue;
		klen = (size_t)(eq - *e) - (sizeof(pfx) - 1);
		json_add_string(&tmp, eq + 1, strlen(eq + 1));
		err |= push(&items, &n, *e + sizeof(pfx) - 1, klen, &tmp, 1);
		if (!err) {
			char *k = items[n - 1].key;

			for (j = 0; k[j]; j++)
				if (k[j] >= 'A' && k[j] <= 'Z')
					k[j] = (char)(k[j] - 'A' + 'a');
			if (is_own_key(k) || !utf8_valid(k, strlen(k))) {
				free(k);
				free(items[--n].json);
			}
		}
	}
	free(model);
	if (!err) {
		qsort(items, n, sizeof(*items), item_cmp);
		strbuf_addc(sb, '{');
		for (i = 0; i < n; i++) {
			if (i && !strcmp(items[i].key, items[i - 1].key))
				continue;	/* the caller's, sorted first, wins */
			if (sb->len && sb->data[sb->len - 1] != '{')
				strbuf_addc(sb, ',');
			json_add_string(sb, items[i].key, strlen(items[i].key));
			strbuf_addc(sb, ':');
			strbuf_adds(sb, items[i].json);
		}
		strbuf_addc(sb, '}');
	}
	for (i = 0; i < n; i++) {
		free(items[i].key);
		free(items[i].json);
	}
	free(items);
	if (err || sb->oom)
		return ksftm_fail(ENOMEM, "out of memory formatting the run context");
	return 0;
}

KSFT_METRIC_API int ksft_metric_context_set(const char *key, const char *value)
{
	size_t i;
	char *k, *v;

	if (!key || !*key || !utf8_valid(key, strlen(key)))
		return ksftm_fail(EINVAL, "context key must be a non-empty UTF-8 string");
	if (is_own_key(key))
		return ksftm_fail(EINVAL, "context key %s is filled by the library", key);
	if (value && !utf8_valid(value, strlen(value)))
		return ksftm_fail(EINVAL, "context value of %s is not valid UTF-8", key);
	pthread_mutex_lock(&lock);
	for (i = 0; i < n_extra && strcmp(extra[i].key, key) < 0; i++)
		;
	if (i < n_extra && !strcmp(extra[i].key, key)) {
		if (!value) {
			free(extra[i].key);
			free(extra[i].value);
			memmove(&extra[i], &extra[i + 1], (n_extra - i - 1) * sizeof(*extra));
			n_extra--;
		} else if ((v = strdup(value))) {
			free(extra[i].value);
			extra[i].value = v;
		} else {
			pthread_mutex_unlock(&lock);
			return ksftm_oom();
		}
		pthread_mutex_unlock(&lock);
		return 0;
	}
	if (!value) {
		pthread_mutex_unlock(&lock);
		return 0;
	}
	k = strdup(key);
	v = strdup(value);
	if (!k || !v || ksftm_grow((void **)&extra, &cap_extra, n_extra + 1, sizeof(*extra), 8)) {
		pthread_mutex_unlock(&lock);
		free(k);
		free(v);
		return ksftm_oom();
	}
	memmove(&extra[i + 1], &extra[i], (n_extra - i) * sizeof(*extra));
	extra[i].key = k;
	extra[i].value = v;
	n_extra++;
	pthread_mutex_unlock(&lock);
	return 0;
}

KSFT_METRIC_API int ksft_metric_context_line(char **line, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	if (!line)
		return ksftm_fail(EINVAL, "ksft_metric_context_line: line is NULL");
	strbuf_adds(&sb, KSFTM_TAG_CONTEXT " ");
	pthread_mutex_lock(&lock);
	ret = format_context(&sb);
	pthread_mutex_unlock(&lock);
	strbuf_addc(&sb, '\n');
	if (!ret && sb.oom)
		ret = ksftm_fail(ENOMEM, "out of memory formatting the run context");
	if (ret) {
		strbuf_free(&sb);
		return ret;
	}
	*line = strbuf_detach(&sb, len);
	/* Whoever took the line prints it: KSFTMETRIC_CONTEXT=1 adds no other. */
	atomic_store(&emitted, 1);
	return 0;
}

KSFT_METRIC_API int ksft_metric_context_emit(void)
{
	struct strbuf sb = STRBUF_INIT;
	char *line, *prefix;
	size_t len, plen;
	int ret = ksft_metric_context_line(&line, &len);

	if (ret)
		return ret;
	prefix = sink_prefix_dup(&plen);
	if (!prefix) {
		free(line);
		return ksftm_oom();
	}
	strbuf_add(&sb, prefix, plen);
	strbuf_add(&sb, line, len);
	free(prefix);
	free(line);
	ret = sb.oom ? ksftm_oom() : sink_write(sb.data, sb.len);
	strbuf_free(&sb);
	return ret;
}

int run_context_emit_from_env(void)
{
	const char *v = getenv("KSFTMETRIC_CONTEXT");

	/* Once per process: at the first case of the run. */
	if (!v || strcmp(v, "1") || atomic_exchange(&emitted, 1))
		return 0;
	return ksft_metric_context_emit();
}

KSFT_METRIC_API int ksft_metric_perf_check(char *reason, size_t size)
{
	static const char why_not[] = "performance results would not be comparable "
				      "(KSFTMETRIC_PERF_FORCE=1 runs anyway)";
	const char *force = getenv("KSFTMETRIC_PERF_FORCE");
	const char *ev[RUN_CONTEXT_MAX_EVIDENCE];
	struct strbuf list = STRBUF_INIT;
	struct utsname u;
	size_t i, n_ev;

	if (reason && size)
		reason[0] = '\0';
	if (force && !strcmp(force, "1"))
		return 1;
	if (machine_slow()) {
		if (reason && size)
			snprintf(reason, size, "KSFT_MACHINE_SLOW=yes: %s", why_not);
		return 0;
	}
	if (uname(&u))
		return ksftm_fail(errno, "uname: %s", strerror(errno));
	if (run_context_debug(u.release, ev, &n_ev) != 1)
		return 1;
	for (i = 0; i < n_ev; i++) {
		if (i)
			strbuf_adds(&list, ", ");
		strbuf_adds(&list, ev[i]);
	}
	if (reason && size)
		snprintf(reason, size, "debug kernel (%s): %s", list.data ? list.data : "", why_not);
	strbuf_free(&list);
	return 0;
}
