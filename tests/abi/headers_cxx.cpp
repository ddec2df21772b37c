// The public headers must compile as C++ (extern "C", no C-only constructs).
#include <ksftmetric/ksftmetric.h>

int main()
{
	struct ksft_metric_policy p = KSFT_METRIC_POLICY_INIT;

	return ksft_metric_aggregate("x", &p) == 0 ? 0 : 1;
}

/* ksft_metric() overloads: each arithmetic type resolves unambiguously. */
int use_generic(short s, unsigned long long u, float f);
int use_generic(short s, unsigned long long u, float f)
{
	return ksft_metric("a", "scalar", s) + ksft_metric("b", "scalar", u) +
	       ksft_metric("c", "scalar", f) + ksft_metric("d", "scalar", 1.5, 0, 0);
}
