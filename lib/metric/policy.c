/*
 * Metric policies: the producer validates what the Python reference would
 * accept blindly, so a consumer never meets a policy it cannot apply.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "float_repr.h"
#include "json_text.h"
#include "opts_size.h"
#include "policy.h"
#include "policy_vocab.h"

static void join_words(char *out, size_t n, const char *const *set)
{
	size_t len = 0;

	out[0] = '\0';
	for (; *set && len + 1 < n; set++) {
		size_t l = strlen(*set);

		if (len + l + 3 >= n)
			break;
		if (len) {
			memcpy(out + len, ", ", 2);
			len += 2;
		}
		memcpy(out + len, *set, l + 1);
		len += l;
	}
}

/* Map @s onto its entry in @set (so policies hold static strings). */
static int pick(const char *name, const char *field, const char *s,
		const char *const *set, const char **out)
{
	char words[160];
	int i = ksftm_vocab_index(set, s);

	if (i >= 0) {
		*out = set[i];
		return 0;
	}
	join_words(words, sizeof(words), set);
	if (!utf8_valid(s, strlen(s)))
		return ksftm_fail(EINVAL, "metric %s: %s is not valid UTF-8 (expected one of: %s)",
				  name, field, words);
	return ksftm_fail(EINVAL, "metric %s: unknown %s '%s' (expected one of: %s)",
			  name, field, s, words);
}

static int check_number(const char *name, const char *field,
			const struct ksft_metric_value *in, struct pnum *out)
{
	out->type = in->type;
	switch (in->type) {
	case KSFT_METRIC_UNSET:
		return 0;
	case KSFT_METRIC_INT:
		out->v.i = in->u.i;
		return 0;
	case KSFT_METRIC_DOUBLE:
		if (!isfinite(in->u.d))
			return ksftm_fail(EINVAL, "metric %s: %s is %s", name, field,
					  isnan(in->u.d) ? "NaN" : "infinite");
		out->v.d = in->u.d;
		return 0;
	default:
		return ksftm_fail(EINVAL, "metric %s: %s must be a number", name, field);
	}
}

/* Exact comparison of int64 and double, like Python's. */
static int pnum_cmp(const struct pnum *a, const struct pnum *b)
{
	long double x = a->type == KSFT_METRIC_INT ? (long double)a->v.i : a->v.d;
	long double y = b->type == KSFT_METRIC_INT ? (long double)b->v.i : b->v.d;

	return x < y ? -1 : x > y;
}

static int pnum_equal(const struct pnum *a, const struct pnum *b)
{
	if (a->type == KSFT_METRIC_UNSET || b->type == KSFT_METRIC_UNSET)
		return a->type == b->type;
	return pnum_cmp(a, b) == 0;
}

static int pnum_sign(const struct pnum *a)
{
	struct pnum zero = { KSFT_METRIC_INT, { 0 } };

	return pnum_cmp(a, &zero);
}

static int check_regression(const char *name, const struct ksft_metric_policy *in,
			    struct policy *out)
{
	int ret;

	if (!in->regression_compare) {
		if (in->regression_better ||
		    in->regression_relative_tolerance.type != KSFT_METRIC_UNSET ||
		    in->regression_absolute_tolerance.type != KSFT_METRIC_UNSET)
			return ksftm_fail(EINVAL, "metric %s: regression policy needs compare",
					  name);
		return 0;
	}
	ret = pick(name, "regression compare", in->regression_compare, ksftm_comparisons,
		   &out->compare);
	if (ret)
		return ret;
	if (!in->regression_better)
		return ksftm_fail(EINVAL, "metric %s: regression policy needs better (higher or lower)",
				  name);
	ret = pick(name, "regression better", in->regression_better, ksftm_betters, &out->better);
	if (!ret)
		ret = check_number(name, "regression relative_tolerance",
				   &in->regression_relative_tolerance, &out->rel_tol);
	if (!ret)
		ret = check_number(name, "regression absolute_tolerance",
				   &in->regression_absolute_tolerance, &out->abs_tol);
	if (ret)
		return ret;
	if (out->rel_tol.type == KSFT_METRIC_UNSET && out->abs_tol.type == KSFT_METRIC_UNSET)
		return ksftm_fail(EINVAL, "metric %s: regression policy needs relative_tolerance or absolute_tolerance",
				  name);
	if (out->rel_tol.type != KSFT_METRIC_UNSET && pnum_sign(&out->rel_tol) < 0)
		return ksftm_fail(EINVAL, "metric %s: regression relative_tolerance is negative", name);
	if (out->abs_tol.type != KSFT_METRIC_UNSET && pnum_sign(&out->abs_tol) < 0)
		return ksftm_fail(EINVAL, "metric %s: regression absolute_tolerance is negative", name);
	return 0;
}

static int check_display(const char *name, const struct ksft_metric_policy *in,
			 struct policy *out)
{
	int ret = check_number(name, "display_range min", &in->display_min, &out->min);

	if (!ret)
		ret = check_number(name, "display_range max", &in->display_max, &out->max);
	if (!ret)
		ret = check_number(name, "display_scale", &in->display_scale, &out->scale);
	if (ret)
		return ret;
	if (out->min.type != KSFT_METRIC_UNSET && out->max.type != KSFT_METRIC_UNSET &&
	    pnum_cmp(&out->min, &out->max) > 0)
		return ksftm_fail(EINVAL, "metric %s: display_range min is greater than max", name);
	if (out->scale.type != KSFT_METRIC_UNSET && pnum_sign(&out->scale) <= 0)
		return ksftm_fail(EINVAL, "metric %s: display_scale must be positive", name);
	if (in->display_label) {
		if (!in->display_label[0])
			return ksftm_fail(EINVAL, "metric %s: display_label is empty", name);
		if (!utf8_valid(in->display_label, strlen(in->display_label)))
			return ksftm_fail(EINVAL, "metric %s: display_label is not valid UTF-8", name);
	}
	return 0;
}

int policy_from_struct(const char *name, const struct ksft_metric_policy *in,
		       struct policy *out)
{
	struct ksft_metric_policy copy = KSFT_METRIC_POLICY_INIT;
	size_t user_sz;
	int ret;

	memset(out, 0, sizeof(*out));
	/* From here on only the copy is read: the caller's may be shorter. */
	if (in) {
		switch (ksftm_opts_copy(&copy, sizeof(copy), in, &user_sz)) {
		case KSFTM_OPTS_BAD_SIZE:
			return ksftm_fail(EINVAL, "metric %s: policy sz %zu is not a struct size; initialise it with KSFT_METRIC_POLICY_INIT",
					  name, user_sz);
		case KSFTM_OPTS_UNKNOWN:
			return ksftm_fail(EINVAL, "metric %s: policy has non-zero fields this library does not know (sz %zu > %zu)",
					  name, user_sz, sizeof(copy));
		default:
			break;
		}
	}
	in = &copy;
	ret = pick(name, "summarize", in->summarize ? in->summarize : KSFTM_SUM_DEFAULT,
		   ksftm_summaries, &out->summarize);
	if (!ret && in->transform)
		ret = pick(name, "transform", in->transform, ksftm_transforms, &out->transform);
	if (!ret && in->aggregation)
		ret = pick(name, "aggregation", in->aggregation, ksftm_aggregations,
			   &out->aggregation);
	if (!ret)
		ret = check_regression(name, in, out);
	if (!ret)
		ret = check_display(name, in, out);
	if (ret)
		return ret;
	if (in->display_label) {
		out->label = strdup(in->display_label);
		if (!out->label)
			return ksftm_fail(ENOMEM, "out of memory registering metric %s", name);
	}
	return 0;
}

static int str_equal(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

int policy_equal(const struct policy *a, const struct policy *b)
{
	return a->summarize == b->summarize && a->transform == b->transform &&
	       a->aggregation == b->aggregation && a->compare == b->compare &&
	       a->better == b->better && pnum_equal(&a->rel_tol, &b->rel_tol) &&
	       pnum_equal(&a->abs_tol, &b->abs_tol) && pnum_equal(&a->min, &b->min) &&
	       pnum_equal(&a->max, &b->max) && pnum_equal(&a->scale, &b->scale) &&
	       str_equal(a->label, b->label);
}

void policy_release(struct policy *p)
{
	free(p->label);
	p->label = NULL;
}

static void add_pnum(struct strbuf *sb, const struct pnum *n)
{
	char buf[FLOAT_REPR_MAX];
	size_t len = n->type == KSFT_METRIC_INT ? int64_repr(n->v.i, buf)
						: float_repr(n->v.d, buf);

	strbuf_add(sb, buf, len);
}

/* Keys in sorted order, as json.dumps(sort_keys=True) prints them. */
void policy_format(struct strbuf *sb, const char *name, const struct policy *p)
{
	char sep = '{';

#define KEY(k) do { strbuf_addc(sb, sep); strbuf_adds(sb, "\"" k "\":"); sep = ','; } while (0)
	if (p->aggregation) {
		KEY(KSFTM_PK_AGGREGATION);
		json_add_string(sb, p->aggregation, strlen(p->aggregation));
	}
	if (p->label) {
		KEY(KSFTM_PK_DISPLAY_LABEL);
		json_add_string(sb, p->label, strlen(p->label));
	}
	if (p->min.type || p->max.type) {
		KEY(KSFTM_PK_DISPLAY_RANGE);
		if (p->max.type) {
			strbuf_adds(sb, "{\"" KSFTM_PK_MAX "\":");
			add_pnum(sb, &p->max);
			strbuf_adds(sb, p->min.type ? ",\"" KSFTM_PK_MIN "\":" : "");
		} else {
			strbuf_adds(sb, "{\"" KSFTM_PK_MIN "\":");
		}
		if (p->min.type)
			add_pnum(sb, &p->min);
		strbuf_addc(sb, '}');
	}
	if (p->scale.type) {
		KEY(KSFTM_PK_DISPLAY_SCALE);
		add_pnum(sb, &p->scale);
	}
	KEY(KSFTM_PK_NAME);
	json_add_string(sb, name, strlen(name));
	if (p->compare) {
		KEY(KSFTM_PK_REGRESSION);
		if (p->abs_tol.type) {
			strbuf_adds(sb, "{\"" KSFTM_PK_ABS_TOL "\":");
			add_pnum(sb, &p->abs_tol);
			strbuf_adds(sb, ",\"" KSFTM_PK_BETTER "\":\"");
		} else {
			strbuf_adds(sb, "{\"" KSFTM_PK_BETTER "\":\"");
		}
		strbuf_adds(sb, p->better);
		strbuf_adds(sb, "\",\"" KSFTM_PK_COMPARE "\":\"");
		strbuf_adds(sb, p->compare);
		strbuf_addc(sb, '"');
		if (p->rel_tol.type) {
			strbuf_adds(sb, ",\"" KSFTM_PK_REL_TOL "\":");
			add_pnum(sb, &p->rel_tol);
		}
		strbuf_addc(sb, '}');
	}
	KEY(KSFTM_PK_SUMMARIZE);
	json_add_string(sb, p->summarize, strlen(p->summarize));
	if (p->transform) {
		KEY(KSFTM_PK_TRANSFORM);
		json_add_string(sb, p->transform, strlen(p->transform));
	}
#undef KEY
	strbuf_addc(sb, '}');
}
