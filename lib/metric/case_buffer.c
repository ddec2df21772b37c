/*
 * Per-thread observation buffers. Each recording thread appends to its own
 * buffer under its own (normally uncontended) lock, so a sampler thread and
 * the test never wait for each other; case end takes every buffer at once.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "case_state.h"
#include "errmsg.h"
#include "json_text.h"
#include "ktap_tags.h"
#include "line_format.h"
#include "observation.h"
#include "sink.h"

#define INTERN_KEY_OK 0x2u	/* checked: not a reserved label name */

/* Cache-line aligned: two threads' buffers must not share a line. */
struct tbuf {
	pthread_mutex_t lock __attribute__((aligned(128)));
	struct tbuf *next;	/* under ksftm_case_lock */
	unsigned idx;
	int dead;		/* owner thread exited: free after the next steal */
	struct case_data *data;	/* NULL until the thread records in a case */
};

static __thread struct tbuf *tls_tbuf;
static pthread_key_t tbuf_key;
static struct tbuf *tbuf_list;
static unsigned tbuf_next_idx;

static void tbuf_thread_exit(void *p)
{
	struct tbuf *tb = p;

	pthread_mutex_lock(&tb->lock);
	tb->dead = 1;
	pthread_mutex_unlock(&tb->lock);
}

/* fork handlers (fork.c), under ksftm_case_lock. */
void case_buffer_lock_all(void)
{
	struct tbuf *tb;

	for (tb = tbuf_list; tb; tb = tb->next)
		pthread_mutex_lock(&tb->lock);
}

void case_buffer_unlock_all(void)
{
	struct tbuf *tb;

	for (tb = tbuf_list; tb; tb = tb->next)
		pthread_mutex_unlock(&tb->lock);
}

/*
 * At load, not through pthread_once() at first use: a fork() while another
 * thread is inside a pthread_once() leaves the child's copy "in progress"
 * for good under TSan (glibc's own pthread_once restarts it in the child).
 */
__attribute__((constructor)) static void tbuf_key_init(void)
{
	pthread_key_create(&tbuf_key, tbuf_thread_exit);
}

static struct tbuf *tbuf_get(void)
{
	struct tbuf *tb = tls_tbuf;

	if (tb)
		return tb;
	tb = aligned_alloc(128, sizeof(*tb));
	if (!tb)
		return NULL;
	memset(tb, 0, sizeof(*tb));
	pthread_mutex_init(&tb->lock, NULL);
	pthread_mutex_lock(&ksftm_case_lock);
	tb->idx = tbuf_next_idx++;
	tb->next = tbuf_list;
	tbuf_list = tb;
	pthread_mutex_unlock(&ksftm_case_lock);
	pthread_setspecific(tbuf_key, tb);
	tls_tbuf = tb;
	return tb;
}

void case_data_free(struct case_data *cd)
{
	if (!cd)
		return;
	intern_free(&cd->strings);
	arena_free(&cd->records);
	free(cd);
}

int case_data_has_name(const struct case_data *cd, const char *name)
{
	size_t len;
	uint64_t h = intern_hash(name, &len);
	int64_t id = intern_find(&cd->strings, name, len, h);

	return id >= 0 && (cd->strings.entries[id].flags & INTERN_NAME_USED);
}

int case_buffer_name_observed(const char *name)
{
	struct tbuf *tb;
	int found = 0;

	for (tb = tbuf_list; tb && !found; tb = tb->next) {
		pthread_mutex_lock(&tb->lock);
		found = tb->data && case_data_has_name(tb->data, name);
		pthread_mutex_unlock(&tb->lock);
	}
	return found;
}

size_t case_buffer_take_emergency(struct case_data **v, size_t max)
{
	struct tbuf *tb;
	size_t i = 0;

	for (tb = tbuf_list; tb && i < max; tb = tb->next) {
		if (ksftm_lock(&tb->lock))
			continue;
		if (tb->data) {
			v[i++] = tb->data;
			tb->data = NULL;
		}
		pthread_mutex_unlock(&tb->lock);
	}
	return i;
}

int case_buffer_steal(struct case_data ***out, size_t *n)
{
	struct tbuf *tb, **link;
	struct case_data **v;
	size_t count = 0, i = 0;

	for (tb = tbuf_list; tb; tb = tb->next)
		count++;
	v = calloc(count ? count : 1, sizeof(*v));
	for (link = &tbuf_list; (tb = *link);) {
		int dead;

		/* In an emergency a thread stuck inside its own lock loses its data. */
		if (ksftm_lock(&tb->lock)) {
			link = &tb->next;
			continue;
		}
		if (tb->data) {
			if (v)
				v[i++] = tb->data;
			else
				case_data_free(tb->data);
			tb->data = NULL;
		}
		dead = tb->dead;
		pthread_mutex_unlock(&tb->lock);
		if (dead) {
			*link = tb->next;
			pthread_mutex_destroy(&tb->lock);
			free(tb);
		} else {
			link = &tb->next;
		}
	}
	*out = v;
	*n = i;
	return v ? 0 : -ENOMEM;
}

/* ------------------------------------------------------------------ */
/* Validation that needs no lock: types, finiteness, duplicate keys.  */

static const char *nonfinite_word(double d)
{
	return isnan(d) ? "NaN" : "infinite";
}

static int check_labels(const struct obs_draft *d)
{
	size_t i, j;

	if (d->n_labels && !d->labels)
		return ksftm_fail(EINVAL, "metric %s: labels array is NULL", d->name);
	if (d->n_labels > OBS_MAX_LABELS)
		return ksftm_fail(EINVAL, "metric %s: %zu labels, at most %d allowed",
				  d->name, d->n_labels, OBS_MAX_LABELS);
	for (i = 0; i < d->n_labels; i++) {
		const struct ksft_metric_label *l = &d->labels[i];

		if (!l->key)
			return ksftm_fail(EINVAL, "metric %s: label %zu has no name",
					  d->name, i);
		switch (l->value.type) {
		case KSFT_METRIC_STRING:
			if (!l->value.u.s)
				return ksftm_fail(EINVAL, "metric %s: label %s value is NULL",
						  d->name, l->key);
			break;
		case KSFT_METRIC_INT:
			break;
		case KSFT_METRIC_BOOL:
			if (l->value.u.b != 0 && l->value.u.b != 1)
				return ksftm_fail(EINVAL, "metric %s: label %s boolean is %d, not 0 or 1",
						  d->name, l->key, l->value.u.b);
			break;
		case KSFT_METRIC_DOUBLE:
			if (!isfinite(l->value.u.d))
				return ksftm_fail(EINVAL, "metric %s: label %s value is %s",
						  d->name, l->key,
						  nonfinite_word(l->value.u.d));
			break;
		default:
			return ksftm_fail(EINVAL, "metric %s: label %s has unknown type %d",
					  d->name, l->key, l->value.type);
		}
		for (j = 0; j < i; j++)
			if (!strcmp(d->labels[j].key, l->key))
				return ksftm_fail(EINVAL, "metric %s: label %s given twice",
						  d->name, l->key);
	}
	return 0;
}

static int check_values(const struct obs_draft *d)
{
	size_t i;

	if (d->kind == OBS_DOUBLE && !isfinite(d->scalar.d))
		return ksftm_fail(EINVAL, "metric %s: value is %s", d->name,
				  nonfinite_word(d->scalar.d));
	if (d->kind != OBS_ARRAY)
		return 0;
	if (d->n > UINT32_MAX / 16)
		return ksftm_fail(EINVAL, "metric %s: array of %zu values is too long",
				  d->name, d->n);
	if (d->n && !d->dvals && !d->vals)
		return ksftm_fail(EINVAL, "metric %s: values array is NULL", d->name);
	for (i = 0; i < d->n; i++) {
		double v;

		if (d->dvals) {
			if (d->present && !d->present[i])
				continue;
			v = d->dvals[i];
		} else {
			if (d->kinds[i] != ELEM_DOUBLE)
				continue;
			v = d->vals[i].d;
		}
		if (!isfinite(v))
			return ksftm_fail(EINVAL, "metric %s: value[%zu] is %s",
					  d->name, i, nonfinite_word(v));
	}
	return 0;
}

static int check_draft(const struct obs_draft *d)
{
	if (!d->name)
		return ksftm_fail(EINVAL, "metric name is NULL");
	if (!d->name[0])
		return ksftm_fail(EINVAL, "metric name is empty");
	if (!d->shape)
		return ksftm_fail(EINVAL, "metric %s: shape is NULL", d->name);
	if (!d->shape[0])
		return ksftm_fail(EINVAL, "metric %s: shape is empty", d->name);
	int ret = check_labels(d);

	return ret ? ret : check_values(d);
}

/* ------------------------------------------------------------------ */
/* Recording, under the thread's own lock.                            */

enum role { ROLE_NAME, ROLE_SHAPE, ROLE_KEY, ROLE_VALUE };

static const char *const reserved_keys[] = { "name", "shape", "value", "time" };

static int limit_reached(const char *metric)
{
	return ksftm_fail(ENOBUFS, "metric buffer limit of %zu bytes per case reached; metric %s dropped (what was kept is still emitted)",
			  atomic_load(&ksftm_buffer_limit), metric);
}

/* intern_checked() past the call-site cache: hash, look up, validate, add. */
static int64_t intern_checked_slow(struct intern *t, const char *s, enum role role,
				   const char *metric, const char *key)
{
	size_t i, len;
	uint64_t h = intern_hash(s, &len);
	int64_t id = intern_find(t, s, len, h);

	if (id < 0) {
		if (!utf8_valid(s, len)) {
			if (role == ROLE_NAME)
				return ksftm_fail(EINVAL, "metric name is not valid UTF-8");
			if (role == ROLE_SHAPE)
				return ksftm_fail(EINVAL, "metric %s: shape is not valid UTF-8", metric);
			if (role == ROLE_KEY)
				return ksftm_fail(EINVAL, "metric %s: a label name is not valid UTF-8", metric);
			return ksftm_fail(EINVAL, "metric %s: label %s value is not valid UTF-8",
					  metric, key);
		}
		/* Strings count against the case's memory cap like records. */
		id = intern_add(t, s, len, h, &ksftm_case_bytes,
				atomic_load_explicit(&ksftm_buffer_limit, memory_order_relaxed));
		if (id == -ENOBUFS)
			return limit_reached(metric);
		if (id < 0)
			return ksftm_fail(ENOMEM, "out of memory recording metric %s", metric);
	}
	intern_remember(t, s, (uint32_t)id);
	if (role == ROLE_KEY && !(t->entries[id].flags & INTERN_KEY_OK)) {
		if (!len)
			return ksftm_fail(EINVAL, "metric %s: label name is empty", metric);
		for (i = 0; i < sizeof(reserved_keys) / sizeof(reserved_keys[0]); i++)
			if (!strcmp(s, reserved_keys[i]))
				return ksftm_fail(EINVAL, "metric label uses reserved name: %s", s);
		t->entries[id].flags |= INTERN_KEY_OK;
	}
	return id;
}

/* Intern @s for @role, validating it the first time it is seen. */
static inline int64_t intern_checked(struct intern *t, const char *s, enum role role,
				     const char *metric, const char *key)
{
	int64_t id = intern_cached(t, s);

	if (id >= 0 && (role != ROLE_KEY || (t->entries[id].flags & INTERN_KEY_OK)))
		return id;
	return intern_checked_slow(t, s, role, metric, key);
}

static size_t record_size(const struct obs_draft *d, int elem_kinds)
{
	size_t size = sizeof(struct obs) + d->n_labels * sizeof(struct obs_label);

	if (d->kind == OBS_ARRAY)
		size += d->n * sizeof(union num64) + (elem_kinds ? (d->n + 7) & ~(size_t)7 : 0);
	return size;
}

static int draft_needs_kinds(const struct obs_draft *d)
{
	size_t i;

	if (d->kind != OBS_ARRAY)
		return 0;
	if (d->dvals) {
		if (!d->present)
			return 0;
		for (i = 0; i < d->n; i++)
			if (!d->present[i])
				return 1;
		return 0;
	}
	for (i = 0; i < d->n; i++)
		if (d->kinds[i] != ELEM_DOUBLE)
			return 1;
	return 0;
}

static void fill_values(struct obs *o, const struct obs_draft *d)
{
	union num64 *vals = obs_values(o);
	uint8_t *kinds = obs_kinds(o);
	size_t i;

	if (d->dvals) {
		memcpy(vals, d->dvals, d->n * sizeof(*vals));
		if (o->elem_kinds)
			for (i = 0; i < d->n; i++)
				kinds[i] = d->present[i] ? ELEM_DOUBLE : ELEM_NULL;
	} else {
		memcpy(vals, d->vals, d->n * sizeof(*vals));
		if (o->elem_kinds)
			memcpy(kinds, d->kinds, d->n);
	}
}

/* Write-through: format the record, write it, and keep only its strings. */
static int stream_record(struct case_data *cd, struct obs *o)
{
	static const char tag[] = KSFTM_TAG_METRIC " ";
	struct strbuf sb = STRBUF_INIT;
	size_t plen;
	char *prefix = sink_prefix_dup(&plen);
	int ret;

	if (prefix) {
		strbuf_add(&sb, prefix, plen);
		strbuf_add(&sb, tag, sizeof(tag) - 1);
		obs_format(&sb, cd, o, atomic_load(&ksftm_case_start));
		strbuf_addc(&sb, '\n');
	}
	arena_unalloc(&cd->records, o->size);
	if (!prefix || sb.oom)
		ret = ksftm_fail(ENOMEM, "out of memory writing a metric line");
	else
		ret = sink_write(sb.data, sb.len);
	free(prefix);
	strbuf_free(&sb);
	return ret;
}

static int record_locked(struct tbuf *tb, const struct obs_draft *d, int elem_kinds)
{
	struct case_data *cd = tb->data;
	struct obs_label *labels;
	size_t i, size = record_size(d, elem_kinds);
	int64_t name, shape;
	uint32_t n_strings;
	struct obs *o;
	int err = 0, ret;

	if (!cd) {
		cd = calloc(1, sizeof(*cd));
		if (!cd)
			return ksftm_fail(ENOMEM, "out of memory recording metric %s", d->name);
		cd->thread_idx = tb->idx;
		tb->data = cd;
	}
	/* A rejected record leaves no strings behind (nor their memory charge
	 * in the way of the next record: the table's capacity is reused). */
	n_strings = cd->strings.n;
	name = intern_checked(&cd->strings, d->name, ROLE_NAME, d->name, NULL);
	if (name < 0)
		return (int)name;
	shape = intern_checked(&cd->strings, d->shape, ROLE_SHAPE, d->name, NULL);
	if (shape < 0) {
		ret = (int)shape;
		goto fail;
	}
	if (size > UINT32_MAX) {
		ret = ksftm_fail(EINVAL, "metric %s: observation too large", d->name);
		goto fail;
	}
	o = arena_alloc(&cd->records, size, &ksftm_case_bytes,
			atomic_load_explicit(&ksftm_buffer_limit, memory_order_relaxed), &err);
	if (!o && err == ENOBUFS) {
		ret = limit_reached(d->name);
		goto fail;
	}
	if (!o) {
		ret = ksftm_fail(ENOMEM, "out of memory recording metric %s", d->name);
		goto fail;
	}
	labels = obs_labels(o);
	for (i = 0; i < d->n_labels; i++) {
		const struct ksft_metric_label *l = &d->labels[i];
		int64_t id = intern_checked(&cd->strings, l->key, ROLE_KEY, d->name, NULL);

		if (id >= 0 && l->value.type == KSFT_METRIC_STRING) {
			int64_t s = intern_checked(&cd->strings, l->value.u.s,
						   ROLE_VALUE, d->name, l->key);
			labels[i].v.s = (uint32_t)s;
			if (s < 0)
				id = s;
		} else if (l->value.type == KSFT_METRIC_INT) {
			labels[i].v.i = l->value.u.i;
		} else if (l->value.type == KSFT_METRIC_DOUBLE) {
			labels[i].v.d = l->value.u.d;
		} else {
			labels[i].v.i = l->value.u.b;
		}
		if (id < 0) {
			arena_unalloc(&cd->records, size);
			ret = (int)id;
			goto fail;
		}
		labels[i].key = (uint32_t)id;
		labels[i].type = (uint32_t)l->value.type;
	}
	o->size = (uint32_t)size;
	o->name = (uint32_t)name;
	o->shape = (uint32_t)shape;
	o->n_labels = (uint16_t)d->n_labels;
	o->kind = (uint8_t)d->kind;
	o->elem_kinds = (uint8_t)elem_kinds;
	o->n_values = d->kind == OBS_ARRAY ? (uint32_t)d->n : 0;
	o->pad = 0;
	o->scalar = d->scalar;
	if (d->kind == OBS_ARRAY)
		fill_values(o, d);
	/* Stamped last and under the lock: per-thread times never go backwards. */
	o->t_ns = ksftm_now_ns();
	/* Write-through: a line that failed to go out leaves no trace. */
	if (atomic_load_explicit(&ksftm_case_stream, memory_order_relaxed)) {
		ret = stream_record(cd, o);
		if (ret)
			goto fail;
	} else {
		cd->n_records++;
	}
	cd->strings.entries[name].flags |= INTERN_NAME_USED;
	return 0;
fail:
	intern_truncate(&cd->strings, n_strings);
	return ret;
}

int case_buffer_record(const struct obs_draft *d)
{
	int elem_kinds, ret = check_draft(d);
	struct tbuf *tb;

	if (ret)
		return ret;
	elem_kinds = draft_needs_kinds(d);
	tb = tbuf_get();
	if (!tb)
		return ksftm_fail(ENOMEM, "out of memory recording metric %s", d->name);
	pthread_mutex_lock(&tb->lock);
	if (!atomic_load_explicit(&ksftm_case_open, memory_order_acquire))
		ret = ksftm_fail(EPERM, "ksft_metric() called outside of a test case");
	else
		ret = record_locked(tb, d, elem_kinds);
	pthread_mutex_unlock(&tb->lock);
	return ret;
}
