/*
 * The JSON entry points for bindings: an observation's value and labels, and
 * a policy object, parsed with jansson and handed to the same validation as
 * the C calls. jansson's own error structure never leaves this file.
 */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "case_rejects.h"
#include "errmsg.h"
#include "observation.h"
#include "policy.h"
#include "policy_vocab.h"

#define SAFE_NAME(n) ((n) ? (n) : "(null)")

static json_t *parse(const char *name, const char *what, const char *text,
		     size_t flags, int *ret)
{
	json_error_t err;
	json_t *j;

	if (!text) {
		*ret = ksftm_fail(EINVAL, "metric %s: %s JSON is NULL", SAFE_NAME(name), what);
		return NULL;
	}
	j = json_loads(text, flags | JSON_REJECT_DUPLICATES, &err);
	if (!j)
		*ret = ksftm_fail(EINVAL, "metric %s: %s JSON: %s at line %d column %d",
				  SAFE_NAME(name), what, err.text, err.line, err.column);
	return j;
}

static int json_number(json_t *j, struct ksft_metric_value *out)
{
	if (json_is_integer(j)) {
		out->type = KSFT_METRIC_INT;
		out->u.i = (int64_t)json_integer_value(j);
	} else if (json_is_real(j)) {
		out->type = KSFT_METRIC_DOUBLE;
		out->u.d = json_real_value(j);
	} else {
		return -EINVAL;	/* not a number: the caller names the field */
	}
	return 0;
}

static int labels_from_json(const char *name, json_t *obj,
			    struct ksft_metric_label **out, size_t *n)
{
	struct ksft_metric_label *labels;
	const char *key;
	json_t *v;
	size_t i = 0;

	if (!json_is_object(obj))
		return ksftm_fail(EINVAL, "metric %s: labels JSON must be an object", name);
	*n = json_object_size(obj);
	labels = calloc(*n ? *n : 1, sizeof(*labels));
	if (!labels)
		return ksftm_fail(ENOMEM, "out of memory recording metric %s", name);
	json_object_foreach(obj, key, v) {
		labels[i].key = key;
		if (json_is_string(v)) {
			labels[i].value.type = KSFT_METRIC_STRING;
			labels[i].value.u.s = json_string_value(v);
		} else if (json_is_boolean(v)) {
			labels[i].value.type = KSFT_METRIC_BOOL;
			labels[i].value.u.b = json_is_true(v);
		} else if (json_number(v, &labels[i].value)) {
			free(labels);
			return ksftm_fail(EINVAL, "metric %s: label %s must be a string, number or boolean",
					  name, key);
		}
		i++;
	}
	*out = labels;
	return 0;
}

static int value_from_json(const char *name, json_t *j, struct obs_draft *d,
			   union num64 **vals, uint8_t **kinds)
{
	struct ksft_metric_value v;
	size_t i;

	if (!json_number(j, &v)) {
		d->kind = v.type == KSFT_METRIC_INT ? OBS_INT : OBS_DOUBLE;
		if (v.type == KSFT_METRIC_INT)
			d->scalar.i = v.u.i;
		else
			d->scalar.d = v.u.d;
		return 0;
	}
	if (!json_is_array(j))
		return ksftm_fail(EINVAL, "metric %s: value must be a number or an array of numbers and nulls",
				  name);
	d->kind = OBS_ARRAY;
	d->n = json_array_size(j);
	*vals = calloc(d->n ? d->n : 1, sizeof(**vals));
	*kinds = calloc(d->n ? d->n : 1, 1);
	if (!*vals || !*kinds)
		return ksftm_fail(ENOMEM, "out of memory recording metric %s", name);
	for (i = 0; i < d->n; i++) {
		json_t *e = json_array_get(j, i);

		if (json_is_null(e)) {
			(*kinds)[i] = ELEM_NULL;
		} else if (!json_number(e, &v)) {
			(*kinds)[i] = v.type == KSFT_METRIC_INT ? ELEM_INT : ELEM_DOUBLE;
			if (v.type == KSFT_METRIC_INT)
				(*vals)[i].i = v.u.i;
			else
				(*vals)[i].d = v.u.d;
		} else {
			return ksftm_fail(EINVAL, "metric %s: value[%zu] must be a number or null",
					  name, i);
		}
	}
	d->vals = *vals;
	d->kinds = *kinds;
	return 0;
}

KSFT_METRIC_API int ksft_metric_json(const char *name, const char *shape,
				     const char *value_json, const char *labels_json)
{
	struct obs_draft d = { .name = name, .shape = shape };
	struct ksft_metric_label *labels = NULL;
	json_t *value, *lab = NULL;
	union num64 *vals = NULL;
	uint8_t *kinds = NULL;
	int ret = 0;

	value = parse(name, "value", value_json, JSON_DECODE_ANY, &ret);
	if (!value)
		return case_call_result("ksft_metric_json", name, ret);
	if (labels_json) {
		lab = parse(name, "labels", labels_json, 0, &ret);
		if (!lab)
			goto out;
		ret = labels_from_json(SAFE_NAME(name), lab, &labels, &d.n_labels);
		if (ret)
			goto out;
		d.labels = labels;
	}
	ret = value_from_json(SAFE_NAME(name), value, &d, &vals, &kinds);
	if (!ret)
		ret = case_buffer_record(&d);
out:
	free(labels);
	free(vals);
	free(kinds);
	json_decref(lab);
	json_decref(value);
	return case_call_result("ksft_metric_json", name, ret);
}

static int policy_string(const char *name, json_t *v, const char *field,
			 const char **out)
{
	if (json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return ksftm_fail(EINVAL, "metric %s: %s must be a string", name, field);
	*out = json_string_value(v);
	return 0;
}

static int policy_number(const char *name, json_t *v, const char *field,
			 struct ksft_metric_value *out)
{
	if (json_is_null(v))
		return 0;
	if (json_number(v, out))
		return ksftm_fail(EINVAL, "metric %s: %s must be a number", name, field);
	return 0;
}

static int regression_from_json(const char *name, json_t *obj,
				struct ksft_metric_policy *p)
{
	const char *key;
	json_t *v;
	int ret = 0;

	if (json_is_null(obj))
		return 0;
	if (!json_is_object(obj))
		return ksftm_fail(EINVAL, "metric %s: regression must be an object", name);
	json_object_foreach(obj, key, v) {
		if (!strcmp(key, KSFTM_PK_COMPARE))
			ret = policy_string(name, v, "regression compare", &p->regression_compare);
		else if (!strcmp(key, KSFTM_PK_BETTER))
			ret = policy_string(name, v, "regression better", &p->regression_better);
		else if (!strcmp(key, KSFTM_PK_REL_TOL))
			ret = policy_number(name, v, "regression relative_tolerance",
					    &p->regression_relative_tolerance);
		else if (!strcmp(key, KSFTM_PK_ABS_TOL))
			ret = policy_number(name, v, "regression absolute_tolerance",
					    &p->regression_absolute_tolerance);
		else
			ret = ksftm_fail(EINVAL, "metric %s: unknown regression key '%s'", name, key);
		if (ret)
			return ret;
	}
	if (!p->regression_compare)
		return ksftm_fail(EINVAL, "metric %s: regression policy needs compare", name);
	return 0;
}

static int range_from_json(const char *name, json_t *obj, struct ksft_metric_policy *p)
{
	const char *key;
	json_t *v;
	int ret = 0;

	if (json_is_null(obj))
		return 0;
	if (!json_is_object(obj))
		return ksftm_fail(EINVAL, "metric %s: display_range must be an object", name);
	json_object_foreach(obj, key, v) {
		if (!strcmp(key, KSFTM_PK_MIN))
			ret = policy_number(name, v, "display_range min", &p->display_min);
		else if (!strcmp(key, KSFTM_PK_MAX))
			ret = policy_number(name, v, "display_range max", &p->display_max);
		else
			ret = ksftm_fail(EINVAL, "metric %s: unknown display_range key '%s'",
					 name, key);
		if (ret)
			return ret;
	}
	if (!p->display_min.type && !p->display_max.type)
		return ksftm_fail(EINVAL, "metric %s: display_range needs min or max", name);
	return 0;
}

int policy_from_json(const char *name, const char *json, struct policy *out)
{
	struct ksft_metric_policy p = KSFT_METRIC_POLICY_INIT;
	const char *key;
	json_t *obj, *v;
	int ret = 0;

	if (!json)
		return policy_from_struct(name, NULL, out);
	obj = parse(name, "policy", json, 0, &ret);
	if (!obj)
		return ret;
	if (!json_is_object(obj)) {
		ret = ksftm_fail(EINVAL, "metric %s: policy JSON must be an object", name);
		goto out;
	}
	json_object_foreach(obj, key, v) {
		if (!strcmp(key, KSFTM_PK_SUMMARIZE))
			ret = policy_string(name, v, "summarize", &p.summarize);
		else if (!strcmp(key, KSFTM_PK_TRANSFORM))
			ret = policy_string(name, v, "transform", &p.transform);
		else if (!strcmp(key, KSFTM_PK_AGGREGATION))
			ret = policy_string(name, v, "aggregation", &p.aggregation);
		else if (!strcmp(key, KSFTM_PK_DISPLAY_LABEL))
			ret = policy_string(name, v, "display_label", &p.display_label);
		else if (!strcmp(key, KSFTM_PK_DISPLAY_SCALE))
			ret = policy_number(name, v, "display_scale", &p.display_scale);
		else if (!strcmp(key, KSFTM_PK_REGRESSION))
			ret = regression_from_json(name, v, &p);
		else if (!strcmp(key, KSFTM_PK_DISPLAY_RANGE))
			ret = range_from_json(name, v, &p);
		else
			ret = ksftm_fail(EINVAL, "metric %s: unknown policy key '%s'", name, key);
		if (ret)
			goto out;
	}
	ret = policy_from_struct(name, &p, out);
out:
	json_decref(obj);
	return ret;
}
