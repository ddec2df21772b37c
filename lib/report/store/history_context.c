/*
 * A run's context as the history keeps it: the context itself (logs'
 * lines, the CI's items over them), the keys that make two runs
 * comparable by default, a run's comparability key, and the contexts
 * that rule a run out of comparisons.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "history.h"
#include "history_context.h"
#include "report.h"

/*
 * A ksft-vm guest's instrument (doc/vm.rst): its clock (icount, kvm; none
 * natively), QEMU and CPU model, and the image it booted, which in a guest
 * is part of the machine. Absent natively, so native histories keep their
 * keys; a guest run is never judged against a native one.
 */
#define VM_COMPARABLE "\"clock\",\"icount_shift\",\"qemu\",\"qemu_cpu\"," \
		      "\"vm_kernel\",\"vm_kernel_config\""

/*
 * Context keys that make two runs comparable by default: the same machine
 * (as the run context line describes it) and the same CI runner/device when
 * the CI names one. Changing kernels are what is being compared, so
 * "kernel" is not among them. Stored in ksftm_meta, so one history keeps
 * one rule.
 */
const char history_context_default_keys[] = "[\"arch\",\"cpu_count\",\"cpu_model\","
					   "\"device\",\"hostname\",\"placement\",\"runner\","
					   VM_COMPARABLE "]";

char *history_context_text(json_t *j)
{
	char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII |
				    JSON_ENCODE_ANY | JSON_REAL_PRECISION(17));

	json_decref(j);
	return s;
}

/* The run's context: the logs' context lines, then the CI's KEY=VALUE
 * items over them (the collector knows the commit and runner best). */
int history_run_context(const struct ksft_metric_report *r, const struct history_run *run,
			json_t **out)
{
	int err;

	*out = context_with(r, run->context, run->n_context, &err);
	return *out ? 0 : err;
}

/* The comparability key: the values of the comparable keys present. */
char *history_comparable(json_t *ctx, const char *keys_json)
{
	json_t *keys = json_loads(keys_json, 0, NULL), *cmp = json_object(), *k;
	size_t i;

	json_array_foreach(keys, i, k) {
		json_t *v = json_object_get(ctx, json_string_value(k));

		if (!json_is_string(k) || !v || json_is_null(v))
			continue;
		if (json_is_string(v)) {
			json_object_set(cmp, json_string_value(k), v);
		} else {	/* 2 and "2" are one machine */
			char *text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);

			json_object_set_new(cmp, json_string_value(k), json_string(text ? text : ""));
			free(text);
		}
	}
	json_decref(keys);
	return history_context_text(cmp);
}

static int truthy(json_t *v)
{
	const char *s = json_string_value(v);

	return json_is_true(v) || (json_is_integer(v) && json_integer_value(v)) ||
	       (s && (!strcmp(s, "true") || !strcmp(s, "1") || !strcmp(s, "yes")));
}

int history_context_incomparable(json_t *ctx)
{
	return truthy(json_object_get(ctx, "debug_kernel")) ||
	       truthy(json_object_get(ctx, "ksft_machine_slow"));
}
