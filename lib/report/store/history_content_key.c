/*
 * A run's content key (history_content_key.h): the same context and the
 * same series with the same stored samples are the same run, whatever the
 * CI's order or the JSON writer's version.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ksftmetric/report.h>

#include "errmsg.h"
#include "float_repr.h"
#include "history.h"
#include "history_content_key.h"
#include "strbuf.h"

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

/* FNV-1a of @p's @n bytes into both lanes, in one pass (two passes were
 * 2 % of an ingest: issue 45). */
static void fnv2(uint64_t *a, uint64_t *b, const void *p, size_t n)
{
	const unsigned char *c = p;
	uint64_t x = *a, y = *b;
	size_t i;

	for (i = 0; i < n; i++) {
		x = (x ^ c[i]) * FNV_PRIME;
		y = (y ^ c[i]) * FNV_PRIME;
	}
	*a = x;
	*b = y;
}

/* A field with its length first, so ("ab", "c") and ("a", "bc") differ. */
static void lanes_add(uint64_t *a, uint64_t *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	unsigned char len[8];
	int i;

	for (i = 0; i < 8; i++)	/* little-endian whatever the host's */
		len[i] = (unsigned char)((uint64_t)n >> (8 * i));
	fnv2(a, b, len, 8);
	fnv2(a, b, s ? s : "", n);
}

static uint64_t mix(uint64_t h)
{
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebull;
	return h ^ (h >> 31);
}

void history_content_key_init(struct history_content_key *k)
{
	memset(k, 0, sizeof(*k));
}

void history_content_key_series(struct history_content_key *k, const char *path_json,
				const char *case_name, const char *metric, const char *labels,
				const char *samples)
{
	uint64_t a = FNV_OFFSET, b = mix(FNV_OFFSET);

	lanes_add(&a, &b, path_json);
	lanes_add(&a, &b, case_name);
	lanes_add(&a, &b, metric);
	lanes_add(&a, &b, labels);
	lanes_add(&a, &b, samples);
	k->sum_a += mix(a);
	k->sum_b += mix(b ^ 0x9e3779b97f4a7c15ull);
	k->n++;
}

void history_content_key_end(const struct history_content_key *k, const char *ctx, char *out)
{
	uint64_t a = FNV_OFFSET, b = mix(FNV_OFFSET);
	char n[24];

	snprintf(n, sizeof(n), "%zu", k->n);
	lanes_add(&a, &b, ctx);
	lanes_add(&a, &b, n);
	a = mix(a ^ k->sum_a);
	b = mix(b ^ k->sum_b);
	snprintf(out, HISTORY_CONTENT_KEY_LEN + 1, "fnv-%016llx%016llx", (unsigned long long)a,
		 (unsigned long long)b);
}

static void put_num(struct strbuf *sb, double v)
{
	char buf[FLOAT_REPR_MAX];

	if (isfinite(v))
		strbuf_add(sb, buf, float_repr(v, buf));
	else
		strbuf_adds(sb, "null");
}

int history_content_key_samples(const struct ksft_metric_report *r, size_t i, char **out)
{
	struct ksft_metric_report_values v = { 0 };
	struct strbuf sb = STRBUF_INIT;
	size_t k, e;
	int ret = ksft_metric_report_series_values(r, i, KSFT_METRIC_REPORT_PROCESSED, &v);

	*out = NULL;
	if (ret)
		return ret;
	strbuf_addc(&sb, '[');
	for (k = 0; k < v.n; k++) {
		if (k)
			strbuf_addc(&sb, ',');
		if (v.width == 1) {
			put_num(&sb, v.v[k]);
			continue;
		}
		strbuf_addc(&sb, '[');
		for (e = 0; e < v.width; e++) {
			if (e)
				strbuf_addc(&sb, ',');
			put_num(&sb, v.v[k * v.width + e]);
		}
		strbuf_addc(&sb, ']');
	}
	strbuf_addc(&sb, ']');
	ksft_metric_report_values_release(&v);
	if (sb.oom) {
		strbuf_free(&sb);
		return ksftm_oom();
	}
	*out = strbuf_detach(&sb, NULL);
	return *out ? 0 : ksftm_oom();
}

int history_content_key_of(const struct ksft_metric_report *r, const char *ctx, char *out)
{
	struct history_content_key k;
	size_t i, n = ksft_metric_report_series_count(r);
	int ret = 0;

	history_content_key_init(&k);
	for (i = 0; i < n && !ret; i++) {
		struct ksft_metric_report_series s = { .sz = sizeof(s) };
		char *path = NULL, *samples = NULL;

		if (!(ret = ksft_metric_report_series_get(r, i, &s)) &&
		    !(ret = history_content_key_samples(r, i, &samples))) {
			path = history_path_json(s.path, s.path_len);
			if (path)
				history_content_key_series(&k, path, s.case_name, s.name,
							   s.labels_json, samples);
			else
				ret = ksftm_oom();
		}
		free(path);
		free(samples);
	}
	if (!ret)
		history_content_key_end(&k, ctx, out);
	return ret;
}
