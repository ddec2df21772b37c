/*
 * A series and the tables that find it by key (series.c): points
 * appended, series joined, adopted into the report. Its case and its
 * metric (series_identity.c) are records it shares with the other series
 * of its case and of its metric.
 */
#ifndef KSFTM_SERIES_H
#define KSFTM_SERIES_H

#include <stddef.h>
#include <stdint.h>

#include "rp_policy.h"
#include "vals.h"

struct ksft_metric_report;
struct rp_node;
struct rp_strpool;

/* Where a case was read and why it ended as it did: one record for
 * the plain cases of an input, one each for the rare others. */
struct rp_case_src {
	const char *file;	/* the input (the report's string) */
	const char *abort;	/* case ended abnormally: reason, else NULL */
	const char *reason;	/* the status directive's text, else NULL */
};

/*
 * A case's identity, one record shared by all its series (the report's
 * pool): the name, the names of the tests around it, the input it was
 * read from. Until its input ends, a reader's record holds the node of
 * the enclosing test instead of the path (@pathed 0).
 */
struct rp_case {
	union {
		char **path;		/* the pool's */
		struct rp_node *parent;	/* while its input is read */
	};
	const struct rp_case_src *src;	/* NULL: none (a stored run) */
	uint32_t path_len;
	unsigned char pathed;
	char name[];
};

/* A metric's name, labels and shape: one record for every series of a
 * run that has the same three (series_metric()). */
struct rp_metric {
	const char *name;
	const char *labels;	/* canonical JSON object */
	const char *shape;
	size_t labels_len;
};

/* The points of a series past its first scalar one, its repeats and its
 * policy: what most series of a whole run do not have. */
struct rp_points {
	struct rp_vals raw;	/* t, v, off */
	size_t cap_pts, cap_v;
	size_t joined;		/* case instances joined into it, less one */
	/* Its own policy (malloc'd, freed with it), else NULL: the
	 * defaults of its source (series_policy()). */
	struct rp_policy *policy;
};

enum { RP_FORM_NONE = 0, RP_FORM_ONE, RP_FORM_MANY };

/*
 * A series. A whole run holds hundreds of thousands of them (issue 45):
 * its identity by reference to records it shares, a scalar series' one
 * point in place, the rest of its points and the rare policy by
 * reference; 48 bytes on LP64. Read through the series_*() accessors
 * below, which do not care where a field lives.
 */
struct rp_series {
	union {
		const struct rp_case *kase;	/* @reading 0 */
		struct rp_node *node;		/* @reading 1: its case is not named yet */
	};
	const struct rp_metric *metric;
	union {
		struct {
			double t, v;
		} one;				/* RP_FORM_ONE */
		struct rp_points *many;		/* RP_FORM_MANY */
	} pts;
	uint64_t hash;		/* its key's series_key_hash(); a reader's own while read */
	uint32_t line;		/* of its first point: the low 32 bits, */
	unsigned int line_hi : 16;	/* the next 16 (past 2^48: modulo) */
	unsigned int status : 4;	/* RP_ST_* */
	unsigned int source : 2;	/* RP_SRC_* */
	unsigned int is_array : 1;
	unsigned int form : 2;		/* RP_FORM_* */
	unsigned int pooled : 1;	/* the struct itself is the report's pool's */
	unsigned int reading : 1;
};

static inline const char *series_case_name(const struct rp_series *s)
{
	return s->kase->name;
}

static inline char **series_path(const struct rp_series *s)
{
	return s->kase->path;
}

static inline size_t series_path_len(const struct rp_series *s)
{
	return s->kase->path_len;
}

static inline unsigned long series_first_line(const struct rp_series *s)
{
	return (unsigned long)((uint64_t)s->line_hi << 32 | s->line);
}

static inline const char *series_file(const struct rp_series *s)
{
	return s->kase->src ? s->kase->src->file : NULL;
}

static inline const char *series_abort(const struct rp_series *s)
{
	return s->kase->src ? s->kase->src->abort : NULL;
}

static inline const char *series_reason(const struct rp_series *s)
{
	return s->kase->src ? s->kase->src->reason : NULL;
}

/* @s's own policy, else NULL (series_policy(): the defaults). */
static inline struct rp_policy *series_own_policy(const struct rp_series *s)
{
	return s->form == RP_FORM_MANY ? s->pts.many->policy : NULL;
}

static inline const char *series_name(const struct rp_series *s)
{
	return s->metric->name;
}

static inline const char *series_labels(const struct rp_series *s)
{
	return s->metric->labels;
}

static inline const char *series_shape(const struct rp_series *s)
{
	return s->metric->shape;
}

static inline size_t series_n_points(const struct rp_series *s)
{
	return s->form == RP_FORM_MANY ? s->pts.many->raw.n : s->form == RP_FORM_ONE;
}

/* How many case instances were joined into @s, less one. */
static inline size_t series_joined(const struct rp_series *s)
{
	return s->form == RP_FORM_MANY ? s->pts.many->joined : 0;
}

/* @s's points: its block, or @view made to show the one point in place
 * (valid while @s is). */
static inline const struct rp_vals *series_raw(const struct rp_series *s, struct rp_vals *view)
{
	if (s->form == RP_FORM_MANY)
		return &s->pts.many->raw;
	view->n = s->form == RP_FORM_ONE;
	view->t = view->n ? (double *)&s->pts.one.t : NULL;
	view->v = view->n ? (double *)&s->pts.one.v : NULL;
	view->off = NULL;
	view->width = view->n;
	return view;
}

/*
 * Positions of series in an array (a reader's list, the report's series)
 * by hash: open addressing on 32-bit positions with an 8-bit tag of each
 * hash beside, so a probe reads a series only when its tag matches
 * (series_tab.c). The position of entry j: pos[j] - 1; 0 is empty.
 */
struct rp_htab {
	uint32_t *pos;
	uint8_t *tag;
	size_t size, n;
};

static inline size_t series_htab_home(const struct rp_htab *t, uint64_t h)
{
	return (size_t)(((h & 0xffffffffu) * (uint64_t)t->size) >> 32);
}

static inline size_t series_htab_next(const struct rp_htab *t, size_t j)
{
	return j + 1 == t->size ? 0 : j + 1;
}

static inline uint8_t series_htab_tag(uint64_t h)
{
	return (uint8_t)(h >> 56);
}

/* Series storage (series.c, series_tab.c). */
uint64_t series_hash(const void *p, size_t n, uint64_t h);
/* Hash for lookups only (8 bytes a step; never printed, unlike series_hash). */
uint64_t series_key_hash(const void *p, size_t n);
/* The same steps from a running hash @h (series_key_hash() starts it from
 * @n): a key hashed in parts (judge/baseline_index.c). */
uint64_t series_key_hash_from(uint64_t h, const void *p, size_t n);
int series_htab_init(struct rp_htab *t);
void series_htab_free(struct rp_htab *t);
/* Room for @n entries of @v without growing: 0 or -ENOMEM. */
int series_htab_reserve(struct rp_htab *t, size_t n, struct rp_series *const *v);
/* @v[@i] into @t by its hash: 0 or -ENOMEM (more than 2^32 - 2 positions too). */
int series_htab_insert(struct rp_htab *t, struct rp_series *const *v, size_t i);
/* @v[@i] out of @t (where series_htab_insert() put it); not there: nothing. */
void series_htab_remove(struct rp_htab *t, struct rp_series *const *v, size_t i);
void series_free(struct rp_series *s);
int series_add_point(struct rp_series *s, double t, const double *v,
		     size_t n, int is_array);
int series_append(struct rp_series *dst, const struct rp_series *src);
/* Effective policy of @s: its own, or the defaults for its source. */
const struct rp_policy *series_policy(const struct rp_series *s,
				      struct rp_policy *scratch);

/* @p becomes @s's own policy (it had none): 0, or -ENOMEM (not taken). */
int series_take_policy(struct rp_series *s, struct rp_policy *p);

/* Identity records (series_identity.c), in @pool; NULL: out of memory. */
struct rp_case *series_case_new(struct rp_strpool *pool, const char *name, size_t len,
				const struct rp_case_src *src);
const struct rp_case_src *series_case_src(struct rp_strpool *pool, const char *file,
					  const char *abort, const char *reason);
/* @k with @src instead of its own (a new record); NULL: out of memory. */
const struct rp_case *series_case_with_src(struct rp_strpool *pool, const struct rp_case *k,
					   const struct rp_case_src *src);
/* The record of (@name, @labels, @shape) in @r, made once. */
const struct rp_metric *series_metric(struct ksft_metric_report *r, const char *name,
				      size_t name_len, const char *labels, size_t labels_len,
				      const char *shape, size_t shape_len);
/* The same, given series_key_hash() of @name and of @labels (a reader has them). */
const struct rp_metric *series_metric_hashed(struct ksft_metric_report *r, uint64_t name_hash,
					     const char *name, size_t name_len,
					     uint64_t labels_hash, const char *labels,
					     size_t labels_len, const char *shape, size_t shape_len);
void series_metrics_free(struct ksft_metric_report *r);
/*
 * @s (zeroed, not read) given a whole identity, as a stored run's series
 * is (store/history_run_read.c): 0 or -ENOMEM.
 */
int series_set_identity(struct ksft_metric_report *r, struct rp_series *s,
			char *const *path, size_t path_len, const char *case_name,
			const char *name, const char *labels, const char *shape, int status);

/* Key from identity (path, case, name, labels). */
char *series_make_key(char *const *path, size_t path_len, const char *case_name,
		      const char *name, const char *labels);
/* The same key allocated by @alloc from @ctx (e.g. strpool_alloc_any()
 * and a pool: never freed on its own). */
typedef void *(*series_key_alloc)(void *ctx, size_t n);
char *series_make_key_in(series_key_alloc alloc, void *ctx, char *const *path,
			 size_t path_len, const char *case_name, const char *name,
			 const char *labels);
/*
 * @s's key (series_make_key() of its identity) in @sb, emptied first; its
 * text, or NULL: out of memory. A series keeps no key of its own (80
 * bytes each in a whole run, issue 45): who needs one makes it.
 */
struct strbuf;
const char *series_key_text(const struct rp_series *s, struct strbuf *sb);
/* The same for an identity (a baseline's series keeps no key either). */
const char *series_key_into(struct strbuf *sb, char *const *path, size_t path_len,
			    const char *case_name, const char *name, const char *labels);
/* Identities equal: their keys are (the key's encoding is one to one). */
int series_same_identity(char *const *pa, size_t na, const char *ca, const char *ma,
			 const char *la, char *const *pb, size_t nb, const char *cb,
			 const char *mb, const char *lb);
/*
 * Room in @r for @n more series (one allocation, not doubling): 0 or
 * -ENOMEM. @list, when not NULL and @r holds none yet, becomes @r's array
 * (its capacity @cap): a reader's list of series, adopted in its order.
 */
int series_adopt_reserve(struct ksft_metric_report *r, size_t n, struct rp_series **list,
			 size_t cap);
/* Takes @s (its identity complete): it becomes a report series, or is
 * merged into the one of its identity and freed; sets @s->hash to its
 * key's series_key_hash(). 0 or -ENOMEM. */
int series_adopt(struct ksft_metric_report *r, struct rp_series *s);

#endif
