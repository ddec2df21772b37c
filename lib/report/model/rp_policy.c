/*
 * Policies as a consumer reads them (ktap-metric-policy-json): decoded
 * into numbers once, compared by value (0 == 0.0, as Python's dict ==),
 * kept with a canonical JSON spelling for output and baselines.
 */
#define _GNU_SOURCE
#include <math.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include <ksftmetric/report.h>

#include "canon.h"
#include "errmsg.h"
#include "policy_vocab.h"
#include "rp.h"
#include "rp_policy.h"
#include "strbuf.h"

static void note_unknown(char **unknown, const char *where, const char *key)
{
	char *s;

	if (*unknown)
		return;		/* the first one is enough to act on */
	if (asprintf(&s, "%s%s", where, key) >= 0)
		*unknown = s;
}

/* A finite JSON number into @out; -EINVAL (no message) for anything else. */
static int number(json_t *v, double *out)
{
	if (!json_is_number(v))
		return -EINVAL;
	*out = json_number_value(v);
	return isfinite(*out) ? 0 : -EINVAL;
}

static int decode_regression(json_t *reg, struct rp_policy *p, json_t *canon,
			     char **unknown)
{
	const char *k;
	json_t *v, *copy;

	if (!json_is_object(reg))
		return ksftm_fail(EINVAL, "regression must be an object");
	copy = json_object();
	if (!copy)
		return ksftm_oom();
	json_object_foreach(reg, k, v) {
		if (!strcmp(k, KSFTM_PK_COMPARE)) {
			if (!json_is_string(v) ||
			    !(p->compare = canon_op_parse(json_string_value(v), 0)))
				goto bad_value;
		} else if (!strcmp(k, KSFTM_PK_BETTER)) {
			const char *b = json_is_string(v) ? json_string_value(v) : "";

			if (!strcmp(b, KSFTM_BETTER_HIGHER))
				p->better = 1;
			else if (!strcmp(b, KSFTM_BETTER_LOWER))
				p->better = -1;
			else
				goto bad_value;
		} else if (!strcmp(k, KSFTM_PK_REL_TOL)) {
			if (number(v, &p->rel_tol) || p->rel_tol < 0)
				goto bad_value;
		} else if (!strcmp(k, KSFTM_PK_ABS_TOL)) {
			if (number(v, &p->abs_tol) || p->abs_tol < 0)
				goto bad_value;
		} else {
			note_unknown(unknown, "regression.", k);
			continue;
		}
		json_object_set(copy, k, v);
	}
	if (!p->compare || !p->better) {
		json_decref(copy);
		return ksftm_fail(EINVAL, "regression needs \"compare\" and \"better\"");
	}
	/* As the producer (lib/metric/policy.c) and the line format rule. */
	if (isnan(p->rel_tol) && isnan(p->abs_tol)) {
		json_decref(copy);
		return ksftm_fail(EINVAL, "regression needs \"" KSFTM_PK_REL_TOL "\" or \""
			     KSFTM_PK_ABS_TOL "\"");
	}
	json_object_set_new(canon, KSFTM_PK_REGRESSION, copy);
	return 0;
bad_value:
	json_decref(copy);
	{
		struct strbuf sb = STRBUF_INIT;
		int ret;

		canon_json_emit(&sb, v);
		ret = ksftm_fail(EINVAL, "unknown regression %s value %s", k,
			    sb.data ? sb.data : "?");
		strbuf_free(&sb);
		return ret;
	}
}

static int decode_range(json_t *range, struct rp_policy *p, json_t *canon,
			char **unknown)
{
	const char *k;
	json_t *v, *copy;

	if (!json_is_object(range))
		return ksftm_fail(EINVAL, "display_range must be an object");
	copy = json_object();
	if (!copy)
		return ksftm_oom();
	json_object_foreach(range, k, v) {
		double *dst;

		if (!strcmp(k, KSFTM_PK_MIN))
			dst = &p->disp_min;
		else if (!strcmp(k, KSFTM_PK_MAX))
			dst = &p->disp_max;
		else {
			note_unknown(unknown, "display_range.", k);
			continue;
		}
		if (number(v, dst)) {
			json_decref(copy);
			return ksftm_fail(EINVAL, "display_range.%s must be a number", k);
		}
		json_object_set(copy, k, v);
	}
	if (isnan(p->disp_min) && isnan(p->disp_max)) {
		json_decref(copy);
		return ksftm_fail(EINVAL, "display_range needs \"min\" or \"max\"");
	}
	if (p->disp_min > p->disp_max) {
		json_decref(copy);
		return ksftm_fail(EINVAL, "display_range min is above max");
	}
	json_object_set_new(canon, KSFTM_PK_DISPLAY_RANGE, copy);
	return 0;
}

static const char *const known_plain[] = {
	KSFTM_PK_SUMMARIZE, KSFTM_PK_TRANSFORM, KSFTM_PK_AGGREGATION,
	KSFTM_PK_DISPLAY_SCALE, KSFTM_PK_DISPLAY_LABEL,
};

int rp_policy_from_json(json_t *obj, struct rp_policy *p, char **unknown)
{
	json_t *canon = json_object(), *v;
	struct strbuf sb = STRBUF_INIT;
	const char *k;
	size_t i;
	int ret;

	memset(p, 0, sizeof(*p));
	p->summarize = RP_OP_TOTAL;	/* the producer's default */
	p->rel_tol = p->abs_tol = NAN;
	p->disp_min = p->disp_max = p->disp_scale = NAN;
	*unknown = NULL;
	if (!canon)
		return ksftm_oom();
	json_object_foreach(obj, k, v) {
		int known = 0;

		if (!strcmp(k, KSFTM_PK_NAME))
			continue;
		if (json_is_null(v))
			continue;	/* Python leaves None out; be lenient */
		if (!strcmp(k, KSFTM_PK_REGRESSION)) {
			if ((ret = decode_regression(v, p, canon, unknown)))
				goto fail;
			continue;
		}
		if (!strcmp(k, KSFTM_PK_DISPLAY_RANGE)) {
			if ((ret = decode_range(v, p, canon, unknown)))
				goto fail;
			continue;
		}
		for (i = 0; i < sizeof(known_plain) / sizeof(known_plain[0]); i++)
			known = known || !strcmp(k, known_plain[i]);
		if (!known) {
			note_unknown(unknown, "", k);
			continue;
		}
		if (!strcmp(k, KSFTM_PK_SUMMARIZE)) {
			if (!json_is_string(v) ||
			    !(p->summarize = canon_op_parse(json_string_value(v), 1)))
				goto bad_value;
		} else if (!strcmp(k, KSFTM_PK_TRANSFORM)) {
			if (!json_is_string(v) || strcmp(json_string_value(v), KSFTM_TRANSFORM_RATE))
				goto bad_value;
			p->transform = RP_TR_RATE;
		} else if (!strcmp(k, KSFTM_PK_AGGREGATION)) {
			if (!json_is_string(v) ||
			    strcmp(json_string_value(v), KSFTM_AGG_BCE))
				goto bad_value;
			p->aggregation = RP_AGG_BCE;
		} else if (!strcmp(k, KSFTM_PK_DISPLAY_SCALE)) {
			if (number(v, &p->disp_scale) || !(p->disp_scale > 0))
				goto bad_value;
		} else if (!strcmp(k, KSFTM_PK_DISPLAY_LABEL)) {
			if (!json_is_string(v) || !json_string_length(v))
				goto bad_value;
			p->disp_label = canon_text_dup(json_string_value(v),
						       json_string_length(v));
			if (!p->disp_label) {
				ret = ksftm_oom();
				goto fail;
			}
		}
		json_object_set(canon, k, v);
	}
	if (!json_object_get(canon, KSFTM_PK_SUMMARIZE))
		json_object_set_new(canon, KSFTM_PK_SUMMARIZE, json_string(KSFTM_SUM_DEFAULT));
	canon_json_emit(&sb, canon);
	json_decref(canon);
	p->json = strbuf_detach(&sb, NULL);
	if (!p->json) {
		rp_policy_clear(p);
		return ksftm_oom();
	}
	return 0;
bad_value:
	canon_json_emit(&sb, v);
	ret = ksftm_fail(EINVAL, "unknown %s value %s", k, sb.data ? sb.data : "?");
	strbuf_free(&sb);
fail:
	json_decref(canon);
	free(p->disp_label);
	p->disp_label = NULL;
	free(*unknown);
	*unknown = NULL;
	return ret;
}

void rp_policy_clear(struct rp_policy *p)
{
	free(p->disp_label);
	free(p->json);
	p->disp_label = NULL;
	p->json = NULL;
}

int rp_policy_copy(struct rp_policy *dst, const struct rp_policy *src)
{
	*dst = *src;
	dst->disp_label = src->disp_label ? strdup(src->disp_label) : NULL;
	dst->json = src->json ? strdup(src->json) : NULL;
	if ((src->disp_label && !dst->disp_label) || (src->json && !dst->json)) {
		rp_policy_clear(dst);
		return -ENOMEM;
	}
	return 0;
}

struct rp_policy *rp_policy_dup(const struct rp_policy *src)
{
	struct rp_policy *p = malloc(sizeof(*p));

	if (p && rp_policy_copy(p, src)) {
		free(p);
		p = NULL;
	}
	return p;
}

void rp_policy_free(struct rp_policy *p)
{
	if (p) {
		rp_policy_clear(p);
		free(p);
	}
}

static int same_num(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

int rp_policy_equal(const struct rp_policy *a, const struct rp_policy *b)
{
	return a->summarize == b->summarize && a->transform == b->transform &&
	       a->aggregation == b->aggregation && a->compare == b->compare &&
	       a->better == b->better && same_num(a->rel_tol, b->rel_tol) &&
	       same_num(a->abs_tol, b->abs_tol) &&
	       same_num(a->disp_min, b->disp_min) &&
	       same_num(a->disp_max, b->disp_max) &&
	       same_num(a->disp_scale, b->disp_scale) &&
	       !strcmp(a->disp_label ? a->disp_label : "",
		       b->disp_label ? b->disp_label : "");
}

int rp_policy_default_gate(int source, int *op, int *better, double *rel_tol)
{
	if (source == RP_SRC_KTAP)
		return 0;
	*op = RP_OP_P50;
	*better = 1;
	*rel_tol = RP_DEFAULT_REL_TOL;
	return 1;
}

int rp_policy_better(const char *b)
{
	return !b ? 0 : !strcmp(b, "higher") ? 1 : !strcmp(b, "lower") ? -1 : 0;
}

void rp_policy_gate_of(const struct ksft_metric_report_series *s, const char **op, int *better,
		       double *rel_tol, double *abs_tol)
{
	int dop;

	*op = s->compare ? s->compare : "p50";
	*better = rp_policy_better(s->better);
	*rel_tol = s->relative_tolerance;
	*abs_tol = s->absolute_tolerance;
	/* zperf/twister: as compare --baseline gates them */
	if (!s->compare && rp_policy_default_gate(canon_source_parse(s->source), &dop, better, rel_tol)) {
		*op = canon_op_name(dop);
		*abs_tol = NAN;
	}
}
