/*
 * The context keys that say how a run was measured: the clock (icount,
 * kvm, none natively), the CPU model the guest or the host reports, QEMU
 * and its CPU model, the icount shift and the CPU count (doc/vm.rst's
 * keys, lib/metric/vm_context.c and run_context.c write them). Two runs
 * that differ in one of them differ in the instrument: an icount guest's
 * virtual time against a native run's real time reads +105 % with nothing
 * changed (issue 42). So compare --baseline refuses them, naming the keys.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "errmsg.h"
#include "measuring_context.h"
#include "report.h"
#include "strbuf.h"

static const char *const measuring_keys[] = {
	"clock", "cpu_count", "cpu_model", "icount_shift", "qemu", "qemu_cpu",
};
#define N_KEYS (sizeof(measuring_keys) / sizeof(measuring_keys[0]))

static json_t *context_object(const char *text)
{
	json_t *o = text ? json_loads(text, 0, NULL) : NULL;

	if (o && (!json_is_object(o) || !json_object_size(o))) {
		json_decref(o);
		o = NULL;
	}
	return o;
}

static void value_text(struct strbuf *sb, json_t *v)
{
	char *t;

	if (!v) {
		strbuf_adds(sb, "none");
	} else if (json_is_string(v)) {
		strbuf_adds(sb, json_string_value(v));
	} else if ((t = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT))) {
		strbuf_adds(sb, t);
		free(t);
	} else {
		sb->oom = 1;
	}
}

int measuring_context_diff(const char *a, const char *b, struct strbuf *sb)
{
	json_t *oa = context_object(a), *ob = context_object(b);
	size_t i;
	int n = 0;

	for (i = 0; oa && ob && i < N_KEYS; i++) {
		json_t *va = json_object_get(oa, measuring_keys[i]);
		json_t *vb = json_object_get(ob, measuring_keys[i]);

		if ((!va && !vb) || (va && vb && json_equal(va, vb)))
			continue;
		if (n++)
			strbuf_adds(sb, "; ");
		strbuf_adds(sb, measuring_keys[i]);
		strbuf_addc(sb, ' ');
		value_text(sb, va);
		strbuf_adds(sb, " vs ");
		value_text(sb, vb);
	}
	json_decref(oa);
	json_decref(ob);
	return sb->oom ? -ENOMEM : n;
}

int measuring_context_check(const struct ksft_metric_report *cur,
			    const struct ksft_metric_report_baseline *base, int allow,
			    char **diff)
{
	struct strbuf sb = STRBUF_INIT;
	size_t r, k;
	int n = 0;

	*diff = NULL;
	for (r = 0; r < base->n_runs && !n; r++) {
		const struct bl_run *run = &base->runs[r];
		char num[48];

		if (!run->context)
			continue;
		snprintf(num, sizeof(num), "baseline run %zu", r + 1);
		strbuf_adds(&sb, num);
		for (k = 0; k < run->n_sources; k++) {
			strbuf_adds(&sb, k ? ", " : " (");
			strbuf_adds(&sb, run->sources[k]);
		}
		strbuf_adds(&sb, run->n_sources ? ") against this run: " : " against this run: ");
		n = measuring_context_diff(run->context, cur->context_json, &sb);
		if (!n)
			sb.len = 0;
	}
	if (n < 0 || sb.oom) {
		strbuf_free(&sb);
		return ksftm_oom();
	}
	if (!n) {
		strbuf_free(&sb);
		return 0;
	}
	if (!allow) {
		ksftm_fail(EXDEV, "measured differently, not comparable: %s"
			   " (--allow-context-mismatch judges anyway)", sb.data);
		strbuf_free(&sb);
		return -EXDEV;
	}
	*diff = strbuf_detach(&sb, NULL);
	return *diff ? 0 : ksftm_oom();
}

KSFT_METRIC_REPORT_API int
ksft_metric_report_context_mismatch(const char *a_json, const char *b_json, char **diff)
{
	struct strbuf sb = STRBUF_INIT;
	int n;

	if (!diff)
		return ksftm_fail(EINVAL, "ksft_metric_report_context_mismatch: NULL argument");
	*diff = NULL;
	n = measuring_context_diff(a_json, b_json, &sb);
	if (n <= 0) {
		strbuf_free(&sb);
		return n < 0 ? ksftm_oom() : 0;
	}
	*diff = strbuf_detach(&sb, NULL);
	return *diff ? n : ksftm_oom();
}
