/* The typed C recording calls: thin wrappers that fill an observation draft. */
#include <ksftmetric/metric.h>

#include "observation.h"

KSFT_METRIC_API int ksft_metric_int(const char *name, const char *shape, int64_t value,
				    const struct ksft_metric_label *labels, size_t n_labels)
{
	struct obs_draft d = { .name = name, .shape = shape, .labels = labels,
			       .n_labels = n_labels, .kind = OBS_INT };

	d.scalar.i = value;
	return case_buffer_record(&d);
}

KSFT_METRIC_API int ksft_metric_double(const char *name, const char *shape, double value,
				       const struct ksft_metric_label *labels, size_t n_labels)
{
	struct obs_draft d = { .name = name, .shape = shape, .labels = labels,
			       .n_labels = n_labels, .kind = OBS_DOUBLE };

	d.scalar.d = value;
	return case_buffer_record(&d);
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
	return case_buffer_record(&d);
}
