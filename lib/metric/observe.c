/* The typed C recording calls: thin wrappers that fill an observation draft. */
#include <errno.h>
#include <inttypes.h>

#include <ksftmetric/metric.h>

#include "errmsg.h"
#include "case_rejects.h"
#include "observation.h"

KSFT_METRIC_API int ksft_metric_int(const char *name, const char *shape, int64_t value,
				    const struct ksft_metric_label *labels, size_t n_labels)
{
	struct obs_draft d = { .name = name, .shape = shape, .labels = labels,
			       .n_labels = n_labels, .kind = OBS_INT };

	d.scalar.i = value;
	return case_call_result("ksft_metric_int", name, case_buffer_record(&d));
}

KSFT_METRIC_API int ksft_metric_double(const char *name, const char *shape, double value,
				       const struct ksft_metric_label *labels, size_t n_labels)
{
	struct obs_draft d = { .name = name, .shape = shape, .labels = labels,
			       .n_labels = n_labels, .kind = OBS_DOUBLE };

	d.scalar.d = value;
	return case_call_result("ksft_metric_double", name, case_buffer_record(&d));
}

KSFT_METRIC_API int ksft_metric_array(const char *name, const char *shape,
				      const double *values, const unsigned char *present,
				      size_t n, const struct ksft_metric_label *labels,
				      size_t n_labels)
{
	struct obs_draft d = { .name = name, .shape = shape, .labels = labels,
			       .n_labels = n_labels, .kind = OBS_ARRAY, .n = n,
			       .dvals = values, .present = present };
	static const double none[1];

	if (!n && !values)
		d.dvals = none;
	return case_call_result("ksft_metric_array", name, case_buffer_record(&d));
}

/* The line format's integers are int64 (as the reference's): a uint64_t
 * counter beyond that is refused rather than wrapped to a negative value. */
KSFT_METRIC_API int ksft_metric_uint(const char *name, const char *shape, uint64_t value,
				     const struct ksft_metric_label *labels, size_t n_labels)
{
	if (value > (uint64_t)INT64_MAX) {
		if (!ksft_metric_case_is_open())
			return ksftm_fail(EPERM, "ksft_metric() called outside of a test case");
		return case_call_result("ksft_metric_uint", name,
					ksftm_fail(ERANGE, "metric %s: value %" PRIu64 " is outside int64",
						   name ? name : "(null)", value));
	}
	return ksft_metric_int(name, shape, (int64_t)value, labels, n_labels);
}
