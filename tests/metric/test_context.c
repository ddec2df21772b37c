/*
 * Run context (ktap-metric-context-json) and the performance-test check:
 * the facts the line carries, its key order and escaping, caller and
 * environment keys, the debug-kernel detection from a kernel config, and
 * the skip decisions (debug kernel, KSFT_MACHINE_SLOW, forced).
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "check_main.h"
#include "producer_util.h"

static char kconfig_path[] = "/tmp/ksftm-kconfig-XXXXXX";

/* A kernel config file with @text; KSFTMETRIC_KCONFIG points at it. */
static void use_kconfig(const char *text)
{
	int fd = mkstemp(kconfig_path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	setenv("KSFTMETRIC_KCONFIG", kconfig_path, 1);
}

static void context_reset(void)
{
	pu_reset();
	unsetenv("KSFTMETRIC_KCONFIG");
	unsetenv("KSFT_MACHINE_SLOW");
	unsetenv("KSFTMETRIC_PERF_FORCE");
	unsetenv("KSFTMETRIC_CONTEXT_COMMIT");
	unsetenv("KSFTMETRIC_CONTEXT_NIC");
	ksft_metric_context_set("commit", NULL);
	ksft_metric_context_set("branch", NULL);
}

static void context_teardown(void)
{
	if (strcmp(kconfig_path + strlen(kconfig_path) - 6, "XXXXXX")) {
		unlink(kconfig_path);
		strcpy(kconfig_path + strlen(kconfig_path) - 6, "XXXXXX");
	}
}

/* The line's JSON object (asserting the tag and the newline). */
static json_t *context_json(char **text)
{
	char *line;
	size_t len;
	json_error_t err;
	json_t *j;
	static const char tag[] = "ktap-metric-context-json: ";

	pu_assert_ok(ksft_metric_context_line(&line, &len));
	ck_assert_uint_eq(len, strlen(line));
	ck_assert_msg(!strncmp(line, tag, sizeof(tag) - 1), "line: %s", line);
	ck_assert_msg(line[len - 1] == '\n' && !memchr(line, '\n', len - 1), "one line");
	j = json_loads(line + sizeof(tag) - 1, 0, &err);
	ck_assert_msg(j && json_is_object(j), "not a JSON object: %s (%s)", line, err.text);
	if (text)
		*text = line;
	else
		ksft_metric_free(line);
	return j;
}

START_TEST(test_facts)
{
	struct utsname u;
	json_t *j;
	const char *key, *prev = "";
	json_t *v;

	use_kconfig("CONFIG_NET=y\n# CONFIG_KASAN is not set\n");
	ck_assert_int_eq(uname(&u), 0);
	j = context_json(NULL);
	ck_assert_str_eq(json_string_value(json_object_get(j, "kernel")), u.release);
	ck_assert_str_eq(json_string_value(json_object_get(j, "hostname")), u.nodename);
	ck_assert_str_eq(json_string_value(json_object_get(j, "arch")), u.machine);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "cpu_count")),
			 sysconf(_SC_NPROCESSORS_ONLN));
	ck_assert(json_is_false(json_object_get(j, "debug_kernel")));
	ck_assert_uint_eq(json_array_size(json_object_get(j, "debug_evidence")), 0);
	ck_assert(json_is_false(json_object_get(j, "ksft_machine_slow")));
	v = json_object_get(j, "cpu_model");
	ck_assert(json_is_string(v) || json_is_null(v));
	/* When the run started, UTC to the microsecond: the history orders
	 * runs by it (doc/line-format.rst). */
	{
		const char *t = json_string_value(json_object_get(j, "time"));

		ck_assert_msg(t && strlen(t) == 27 && t[10] == 'T' && t[19] == '.' && t[26] == 'Z',
			      "time: %s", t ? t : "(none)");
		ck_assert_msg(atoi(t) >= 2024, "time %s: not the real clock's", t);
	}
	pu_assert_err(ksft_metric_context_set("time", "x"), EINVAL,
		      "context key time is filled by the library");
	/* jansson keeps insertion order: the line's keys are sorted. */
	json_object_foreach(j, key, v) {
		ck_assert_msg(strcmp(prev, key) < 0, "%s after %s", key, prev);
		prev = key;
	}
	json_decref(j);
}
END_TEST

START_TEST(test_debug_kernel)
{
	json_t *j, *ev;

	use_kconfig("CONFIG_KASAN=y\nCONFIG_KASAN_GENERIC=y\n# CONFIG_DEBUG_VM is not set\n"
		    "CONFIG_PROVE_LOCKING=y\nCONFIG_LOCKDEP=y\nCONFIG_KFENCE=y\n");
	j = context_json(NULL);
	ck_assert(json_is_true(json_object_get(j, "debug_kernel")));
	ev = json_object_get(j, "debug_evidence");
	ck_assert_uint_eq(json_array_size(ev), 3);
	/* In the config's order. */
	ck_assert_str_eq(json_string_value(json_array_get(ev, 0)), "CONFIG_KASAN");
	ck_assert_str_eq(json_string_value(json_array_get(ev, 1)), "CONFIG_PROVE_LOCKING");
	ck_assert_str_eq(json_string_value(json_array_get(ev, 2)), "CONFIG_LOCKDEP");
	json_decref(j);
}
END_TEST

START_TEST(test_debug_unknown)
{
	json_t *j, *d;

	/* A config that cannot be read: unknown, unless lockdep shows itself. */
	setenv("KSFTMETRIC_KCONFIG", "/nonexistent/config", 1);
	j = context_json(NULL);
	d = json_object_get(j, "debug_kernel");
	if (access("/proc/lockdep", F_OK) == 0)
		ck_assert(json_is_true(d));
	else
		ck_assert(json_is_null(d));
	json_decref(j);
}
END_TEST

START_TEST(test_caller_keys)
{
	json_t *j;
	char *text;

	use_kconfig("");
	setenv("KSFTMETRIC_CONTEXT_NIC", "veth0", 1);
	setenv("KSFTMETRIC_CONTEXT_COMMIT", "from-env", 1);
	pu_assert_ok(ksft_metric_context_set("commit", "1234abc\xc3\xa9"));
	pu_assert_ok(ksft_metric_context_set("branch", "net-next"));
	pu_assert_ok(ksft_metric_context_set("branch", "net"));	/* replaces */
	j = context_json(&text);
	ck_assert_str_eq(json_string_value(json_object_get(j, "commit")), "1234abc\xc3\xa9");
	ck_assert_str_eq(json_string_value(json_object_get(j, "branch")), "net");
	ck_assert_str_eq(json_string_value(json_object_get(j, "nic")), "veth0");
	/* Escaped as every line of the format: ASCII only. */
	ck_assert_msg(strstr(text, "\"commit\":\"1234abc\\u00e9\""), "%s", text);
	ck_assert_msg(!strstr(text, "from-env"), "the caller's key wins: %s", text);
	ksft_metric_free(text);
	json_decref(j);

	pu_assert_ok(ksft_metric_context_set("branch", NULL));	/* removes */
	j = context_json(NULL);
	ck_assert_ptr_null(json_object_get(j, "branch"));
	json_decref(j);
}
END_TEST

START_TEST(test_rejects)
{
	pu_assert_err(ksft_metric_context_set("kernel", "x"), EINVAL,
		      "context key kernel is filled by the library");
	pu_assert_err(ksft_metric_context_set("", "x"), EINVAL,
		      "context key must be a non-empty UTF-8 string");
	pu_assert_err(ksft_metric_context_set(NULL, "x"), EINVAL,
		      "context key must be a non-empty UTF-8 string");
	pu_assert_err(ksft_metric_context_set("commit", "\xff"), EINVAL,
		      "context value of commit is not valid UTF-8");
	/* An environment key naming a library key does not replace it. */
	setenv("KSFTMETRIC_CONTEXT_KERNEL", "fake", 1);
	{
		char *text;
		json_t *j = context_json(&text);

		ck_assert_msg(!strstr(text, "fake"), "%s", text);
		ksft_metric_free(text);
		json_decref(j);
	}
	unsetenv("KSFTMETRIC_CONTEXT_KERNEL");
}
END_TEST

/* A ksft-vm guest's command line: its known ksftm.KEY=VALUE words are
 * library keys (doc/vm.rst); unknown ones and other words are not. */
START_TEST(test_vm_cmdline)
{
	static const char cmdline[] = "console=ttyS0 nokaslr ksftm.clock=icount "
		"ksftm.icount_shift=0 ksftm.qemu=7.2.22 ksftm.qemu_cpu=Westmere-v1 ksftm.seed=3 "
		"ksftm.vm_kernel=6.1.0-57-cloud-amd64 ksftm.vm_kernel_config=6d45c8c827f41623 "
		"ksftm.seed_spin=1234 "
		"ksftm.other=1 ksftm.clock ksftm.qemu_cpu= clock=native\n";
	char path[] = "/tmp/ksftm-cmdline-XXXXXX";
	int fd = mkstemp(path);
	char *text;
	json_t *j;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, cmdline, strlen(cmdline)), (ssize_t)strlen(cmdline));
	close(fd);
	use_kconfig("");
	setenv("KSFTMETRIC_CMDLINE", path, 1);
	setenv("KSFTMETRIC_CONTEXT_CLOCK", "fake", 1);
	j = context_json(&text);
	ck_assert_str_eq(json_string_value(json_object_get(j, "clock")), "icount");
	ck_assert_str_eq(json_string_value(json_object_get(j, "icount_shift")), "0");
	ck_assert_str_eq(json_string_value(json_object_get(j, "qemu")), "7.2.22");
	ck_assert_str_eq(json_string_value(json_object_get(j, "qemu_cpu")), "Westmere-v1");
	/* The boot's seed (ksft-vm --seed): what compare judges seed by seed. */
	ck_assert_str_eq(json_string_value(json_object_get(j, "seed")), "3");
	ck_assert_str_eq(json_string_value(json_object_get(j, "vm_kernel")), "6.1.0-57-cloud-amd64");
	ck_assert_str_eq(json_string_value(json_object_get(j, "vm_kernel_config")),
			 "6d45c8c827f41623");
	/* ... and the busy loop it produced */
	ck_assert_str_eq(json_string_value(json_object_get(j, "seed_spin")), "1234");
	ck_assert_ptr_null(json_object_get(j, "other"));
	ck_assert_msg(!strstr(text, "fake") && !strstr(text, "native"), "%s", text);
	ksft_metric_free(text);
	json_decref(j);
	pu_assert_err(ksft_metric_context_set("clock", "x"), EINVAL,
		      "context key clock is filled by the library");
	/* Natively (no such words) the line has no clock at all. */
	setenv("KSFTMETRIC_CMDLINE", "/nonexistent/cmdline", 1);
	j = context_json(NULL);
	ck_assert_ptr_null(json_object_get(j, "clock"));
	json_decref(j);
	unsetenv("KSFTMETRIC_CMDLINE");
	unsetenv("KSFTMETRIC_CONTEXT_CLOCK");
	unlink(path);
}
END_TEST

START_TEST(test_emit_through_sink)
{
	struct pu_lines l = { 0 };

	use_kconfig("");
	pu_assert_ok(ksft_metric_set_output_callback(pu_collect_cb, &l));
	pu_assert_ok(ksft_metric_context_emit());
	ck_assert_uint_eq(l.n, 1);
	ck_assert_msg(!strncmp(l.v[0], "# ktap-metric-context-json: {\"arch\":", 36), "%s", l.v[0]);
	pu_lines_free(&l);
}
END_TEST

START_TEST(test_off_by_default)
{
	struct pu_lines l = { 0 };
	size_t i;

	unsetenv("KSFTMETRIC_CONTEXT");
	pu_assert_ok(ksft_metric_set_output_callback(pu_collect_cb, &l));
	for (i = 0; i < 3; i++) {
		pu_begin();
		pu_assert_ok(ksft_metric_int("m", "scalar", 1, NULL, 0));
		ck_assert_int_eq(ksft_metric_case_end(), 1);
	}
	for (i = 0; i < l.n; i++)
		ck_assert_msg(!strstr(l.v[i], "context"), "unexpected: %s", l.v[i]);
	ck_assert_uint_eq(l.n, 3);
	pu_lines_free(&l);
}
END_TEST

START_TEST(test_env_emits_once)
{
	struct pu_lines l = { 0 };
	size_t i;

	use_kconfig("");
	setenv("KSFTMETRIC_CONTEXT", "1", 1);
	pu_assert_ok(ksft_metric_set_output_callback(pu_collect_cb, &l));
	for (i = 0; i < 3; i++) {
		pu_begin();
		pu_assert_ok(ksft_metric_int("m", "scalar", 1, NULL, 0));
		ck_assert_int_eq(ksft_metric_case_end(), 1);
	}
	unsetenv("KSFTMETRIC_CONTEXT");
	ck_assert_uint_eq(l.n, 4);
	ck_assert_msg(strstr(l.v[0], "ktap-metric-context-json: {"), "%s", l.v[0]);
	for (i = 1; i < l.n; i++)
		ck_assert_msg(strstr(l.v[i], "ktap-metric-json: "), "%s", l.v[i]);
	pu_lines_free(&l);
}
END_TEST

START_TEST(test_perf_check)
{
	char reason[256];

	use_kconfig("CONFIG_NET=y\n");
	ck_assert_int_eq(ksft_metric_perf_check(reason, sizeof(reason)), 1);
	ck_assert_str_eq(reason, "");

	setenv("KSFT_MACHINE_SLOW", "yes", 1);
	ck_assert_int_eq(ksft_metric_perf_check(reason, sizeof(reason)), 0);
	ck_assert_str_eq(reason, "KSFT_MACHINE_SLOW=yes: performance results would not be "
			 "comparable (KSFTMETRIC_PERF_FORCE=1 runs anyway)");
	setenv("KSFT_MACHINE_SLOW", "no", 1);
	ck_assert_int_eq(ksft_metric_perf_check(reason, sizeof(reason)), 1);

	context_teardown();
	use_kconfig("CONFIG_DEBUG_KMEMLEAK=y\nCONFIG_KASAN=y\n");
	ck_assert_int_eq(ksft_metric_perf_check(reason, sizeof(reason)), 0);
	ck_assert_str_eq(reason, "debug kernel (CONFIG_DEBUG_KMEMLEAK, CONFIG_KASAN): performance "
			 "results would not be comparable (KSFTMETRIC_PERF_FORCE=1 runs anyway)");
	ck_assert_int_eq(ksft_metric_perf_check(NULL, 0), 0);
	/* A short buffer is cut, still terminated. */
	ck_assert_int_eq(ksft_metric_perf_check(reason, 8), 0);
	ck_assert_str_eq(reason, "debug k");

	setenv("KSFTMETRIC_PERF_FORCE", "1", 1);
	ck_assert_int_eq(ksft_metric_perf_check(reason, sizeof(reason)), 1);
}
END_TEST

static TCase *tc(const char *name, const TTest *t)
{
	return ck_tcase(name, t, context_reset, context_teardown);
}

Suite *make_suite(void)
{
	Suite *s = suite_create("context");

	suite_add_tcase(s, tc("facts", test_facts));
	suite_add_tcase(s, tc("debug_kernel", test_debug_kernel));
	suite_add_tcase(s, tc("debug_unknown", test_debug_unknown));
	suite_add_tcase(s, tc("caller_keys", test_caller_keys));
	suite_add_tcase(s, tc("rejects", test_rejects));
	suite_add_tcase(s, tc("vm_cmdline", test_vm_cmdline));
	suite_add_tcase(s, tc("emit_through_sink", test_emit_through_sink));
	suite_add_tcase(s, tc("off_by_default", test_off_by_default));
	suite_add_tcase(s, tc("env_emits_once", test_env_emits_once));
	suite_add_tcase(s, tc("perf_check", test_perf_check));
	return s;
}
