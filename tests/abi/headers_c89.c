/* The public headers must compile as strict C89. */
#include <ksftmetric/ksftmetric.h>

int main(void)
{
	struct ksft_metric_policy p = KSFT_METRIC_POLICY_INIT;

	return ksft_metric_aggregate("x", &p) == 0 ? 0 : 1;
}
