// The public headers must compile as C++ (extern "C", no C-only constructs).
#include <ksftmetric/ksftmetric.h>

int main()
{
	struct ksft_metric_policy p = KSFT_METRIC_POLICY_INIT;

	return ksft_metric_aggregate("x", &p) == 0 ? 0 : 1;
}
