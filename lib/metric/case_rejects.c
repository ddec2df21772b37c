/*
 * Refused producer calls: a misspelled policy key returns -EINVAL to a
 * caller that may never look. Each refusal made while a case is open is
 * kept (distinct ones, with a count) and case_flush.c writes one
 * "ktap-metric-warning-json" line per refusal at the case's end, so the
 * log and `ksft-metric report` show it; strict mode fails the case.
 * ksft_metric_refused() lets a binding add the refusals it makes itself
 * (the Python one's TypeError/ValueError) to the same count.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ksftmetric/metric.h>

#include "case_rejects.h"
#include "case_state.h"
#include "errmsg.h"
#include "json_text.h"

static pthread_mutex_t rejects_lock = PTHREAD_MUTEX_INITIALIZER;
static struct case_rejects rejects;	/* under rejects_lock */
static atomic_int strict_setting;

static void copy(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);

	if (n >= size) {
		n = size - 1;
		/* Never cut a UTF-8 sequence in two. */
		while (n > 0 && ((unsigned char)src[n] & 0xc0) == 0x80)
			n--;
	}
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* Keep one refusal of this process's open case; @return 0 or -EPERM. */
static int keep(const char *call, const char *name, int err, const char *msg)
{
	struct case_reject *r;
	size_t i;

	/* Outside a case there is no case end to write it at. */
	if (ksftm_emergency || !atomic_load(&ksftm_case_open) ||
	    atomic_load(&ksftm_case_owner) != getpid())
		return -EPERM;
	if (!name || !utf8_valid(name, strlen(name)))
		name = "";
	pthread_mutex_lock(&rejects_lock);
	for (i = 0; i < rejects.n; i++) {
		r = &rejects.v[i];
		if (r->err == err && !strcmp(r->call, call) &&
		    !strncmp(r->name, name, sizeof(r->name) - 1) &&
		    !strncmp(r->msg, msg, sizeof(r->msg) - 1)) {
			r->count++;
			goto out;
		}
	}
	if (rejects.n == CASE_REJECTS_MAX) {
		rejects.more++;
		goto out;
	}
	r = &rejects.v[rejects.n++];
	copy(r->call, sizeof(r->call), call);
	copy(r->name, sizeof(r->name), name);
	copy(r->msg, sizeof(r->msg), msg);
	r->err = err;
	r->count = 1;
out:
	pthread_mutex_unlock(&rejects_lock);
	return 0;
}

int case_call_result(const char *call, const char *name, int ret)
{
	if (ret >= 0) {
		ksftm_errmsg_clear();
		return ret;
	}
	keep(call, name, -ret, ksftm_errmsg());
	return ret;
}

void case_rejects_take(struct case_rejects *out)
{
	pthread_mutex_lock(&rejects_lock);
	*out = rejects;
	memset(&rejects, 0, sizeof(rejects));
	pthread_mutex_unlock(&rejects_lock);
}

void case_rejects_clear(void)
{
	pthread_mutex_lock(&rejects_lock);
	memset(&rejects, 0, sizeof(rejects));
	pthread_mutex_unlock(&rejects_lock);
}

static const char *errno_name(int err)
{
	switch (err) {
	case EINVAL: return "EINVAL";
	case EPERM: return "EPERM";
	case EEXIST: return "EEXIST";
	case EALREADY: return "EALREADY";
	case ENOBUFS: return "ENOBUFS";
	case ENOMEM: return "ENOMEM";
	case ERANGE: return "ERANGE";
	case EBADF: return "EBADF";
	case EIO: return "EIO";
	case EPIPE: return "EPIPE";
	case ENOSPC: return "ENOSPC";
	default: return NULL;
	}
}

/* {"call":"ksft_metric_aggregate","name":"tput","errno":"EINVAL","message":"...","count":1} */
void case_reject_format(struct strbuf *sb, const struct case_reject *r)
{
	const char *en = errno_name(r->err);
	const char *msg = utf8_valid(r->msg, strlen(r->msg)) ? r->msg :
			  "(message not valid UTF-8)";
	char num[32];

	strbuf_adds(sb, "{\"call\":");
	json_add_string(sb, r->call, strlen(r->call));
	strbuf_adds(sb, ",\"count\":");
	snprintf(num, sizeof(num), "%lu", r->count);
	strbuf_adds(sb, num);
	strbuf_adds(sb, ",\"errno\":");
	if (en) {
		json_add_string(sb, en, strlen(en));
	} else {
		snprintf(num, sizeof(num), "%d", r->err);
		strbuf_adds(sb, num);
	}
	strbuf_adds(sb, ",\"message\":");
	json_add_string(sb, msg, strlen(msg));
	strbuf_adds(sb, ",\"name\":");
	json_add_string(sb, r->name, strlen(r->name));
	strbuf_addc(sb, '}');
}

int case_rejects_strict(void)
{
	const char *env = getenv("KSFTMETRIC_STRICT");

	return atomic_load(&strict_setting) || (env && !strcmp(env, "1"));
}

KSFT_METRIC_API int ksft_metric_set_strict(int enable)
{
	atomic_store(&strict_setting, !!enable);
	return case_call_result("ksft_metric_set_strict", NULL, 0);
}

KSFT_METRIC_API int ksft_metric_refused(const char *call, const char *name, int err,
					const char *message)
{
	int ret = 0;

	if (!call || !call[0] || !utf8_valid(call, strlen(call)))
		ret = ksftm_fail(EINVAL, "refused call: its name is NULL, empty or not valid UTF-8");
	else if (err <= 0)
		ret = ksftm_fail(EINVAL, "refused call %s: errno %d is not positive", call, err);
	else if (!message)
		ret = ksftm_fail(EINVAL, "refused call %s: message is NULL", call);
	else if (keep(call, name, err, message))
		ret = ksftm_fail(EPERM, "refused call %s: no test case is open", call);
	/* A bad argument here is a refusal of its own. */
	return case_call_result("ksft_metric_refused", name, ret);
}
