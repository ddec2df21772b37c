/*
 * One buffered observation: the compact record a recording thread appends
 * (strings by intern id, values raw), and the draft an API call fills in
 * before it is validated and copied.
 */
#ifndef KSFTM_OBSERVATION_H
#define KSFTM_OBSERVATION_H

#include <stddef.h>
#include <stdint.h>

#include <ksftmetric/metric.h>

enum obs_kind { OBS_INT = 1, OBS_DOUBLE, OBS_ARRAY };
enum elem_kind { ELEM_NULL = 0, ELEM_INT, ELEM_DOUBLE };

#define OBS_MAX_LABELS 1024

union num64 {
	int64_t i;
	double d;
};

struct obs_label {
	uint32_t key;		/* intern id */
	uint32_t type;		/* enum ksft_metric_type */
	union {
		int64_t i;
		double d;
		uint32_t s;	/* intern id */
		int b;
	} v;
};

/* Followed by labels[n_labels], values[n_values] and, if elem_kinds, kinds[n_values]. */
struct obs {
	uint32_t size;		/* whole record, multiple of 8 */
	uint32_t name;		/* intern id */
	uint32_t shape;		/* intern id */
	uint16_t n_labels;
	uint8_t kind;		/* enum obs_kind */
	uint8_t elem_kinds;	/* array with per-element kinds (ints, nulls) */
	uint32_t n_values;
	uint32_t pad;
	uint64_t t_ns;		/* CLOCK_MONOTONIC */
	union num64 scalar;
};

static inline struct obs_label *obs_labels(const struct obs *o)
{
	return (struct obs_label *)(void *)(o + 1);
}

static inline union num64 *obs_values(const struct obs *o)
{
	return (union num64 *)(void *)(obs_labels(o) + o->n_labels);
}

static inline uint8_t *obs_kinds(const struct obs *o)
{
	return (uint8_t *)(obs_values(o) + o->n_values);
}

/* What an API call asks to record, before validation. */
struct obs_draft {
	const char *name;
	const char *shape;
	const struct ksft_metric_label *labels;
	size_t n_labels;
	int kind;			/* enum obs_kind */
	union num64 scalar;
	size_t n;			/* array length */
	const double *dvals;		/* C array: doubles ... */
	const unsigned char *present;	/* ... with optional presence flags */
	const union num64 *vals;	/* JSON array: raw values ... */
	const uint8_t *kinds;		/* ... with enum elem_kind per entry */
};

/* Validate a draft and append it to the calling thread's buffer. */
int case_buffer_record(const struct obs_draft *d);

#endif
