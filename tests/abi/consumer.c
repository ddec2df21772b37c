/* An out-of-tree user: built only with `pkg-config --cflags --libs ksftmetric`. */
#include <ksftmetric/ksftmetric.h>
#include <stdio.h>

int main(void)
{
	struct ksft_metric_label host[] = { KSFT_METRIC_LABEL_STR("host", "local") };

	if (ksft_metric_case_begin() ||
	    ksft_metric_double("throughput", "scalar", 32.5, host, 1) ||
	    ksft_metric_case_end() != 1) {
		fprintf(stderr, "consumer: %s\n", ksft_metric_errmsg());
		return 1;
	}
	printf("ok 1 consumer\n");
	return 0;
}
