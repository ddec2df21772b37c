/*
 * A series and the table that finds it by key (series.c): points
 * appended, series joined, adopted into the report.
 */
#ifndef KSFTM_SERIES_H
#define KSFTM_SERIES_H

#include <stddef.h>
#include <stdint.h>

#include "rp_policy.h"
#include "vals.h"

struct ksft_metric_report;
struct rp_node;

/*
 * A series. Its name, labels, shape, case name, path and path strings are
 * the report's (r->pool), never freed with the series. A whole run holds
 * hundreds of thousands of them (issue 45): pointers and counts first,
 * the small codes packed at the end, the rare policy by reference.
 */
struct rp_series {
	struct rp_node *node;	/* while its input is being read */
	char *name;
	char *labels;		/* canonical JSON object */
	size_t labels_len;
	char *shape;
	struct rp_vals raw;	/* t, v, off */
	size_t cap_pts, cap_v;
	/* A scalar series' first point, where raw.t and raw.v point until a
	 * second comes: most series of a whole run hold one (no malloc). */
	double one_t, one_v;
	const char *file;	/* first point */
	unsigned long line;
	uint64_t hash;
	struct rp_series *hnext;
	/* Identity once the input is complete. */
	char *case_name;
	char **path;
	size_t path_len;
	const char *abort;	/* case ended abnormally: reason, else NULL */
	const char *reason;	/* the status directive's text, else NULL */
	size_t joined;		/* case instances joined into it, less one */
	/* Its own policy (malloc'd, freed with it), else NULL: the
	 * defaults of its source (series_policy()). */
	struct rp_policy *policy;
	signed char source;	/* RP_SRC_* */
	signed char is_array;
	signed char status;	/* RP_ST_* */
	unsigned char pooled;	/* the struct itself is the report's pool's */
	unsigned char named;	/* its case named it at its result line: node
				   is the case's parent (ktap_case_done()) */
};

struct rp_htab {
	struct rp_series **b;
	size_t mask, n;
};

/* Series storage (series.c). */
uint64_t series_hash(const void *p, size_t n, uint64_t h);
/* Hash for lookups only (8 bytes a step; never printed, unlike series_hash). */
uint64_t series_key_hash(const void *p, size_t n);
int series_htab_init(struct rp_htab *t);
void series_htab_free(struct rp_htab *t);
int series_htab_insert(struct rp_htab *t, struct rp_series *s);
/* @s out of @t (where series_htab_insert() put it); not there: nothing. */
void series_htab_remove(struct rp_htab *t, struct rp_series *s);
void series_free(struct rp_series *s);
int series_add_point(struct rp_series *s, double t, const double *v,
		     size_t n, int is_array);
int series_append(struct rp_series *dst, const struct rp_series *src);
/* Effective policy of @s: its own, or the defaults for its source. */
const struct rp_policy *series_policy(const struct rp_series *s,
				      struct rp_policy *scratch);
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
/* Takes @s (its identity complete): it becomes a report series, or is
 * merged into the one of its identity and freed; sets @s->hash to its
 * key's series_key_hash(). 0 or -ENOMEM. */
int series_adopt(struct ksft_metric_report *r, struct rp_series *s);

#endif
