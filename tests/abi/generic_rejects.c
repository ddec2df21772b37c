/* ksft_metric() must not compile for values that are not numbers: built by
 * generic_rejects.sh once per CASE (each must fail) and once without (must
 * succeed, so a failure means the value, not the file, was refused). */
#include <stdbool.h>
#include <ksftmetric/metric.h>

int record(void);
int record(void)
{
#if CASE == 1
	bool b = true;	/* a _Bool object: `true` itself is an int constant */
	return ksft_metric("m", "scalar", b, NULL, 0);
#elif CASE == 2
	return ksft_metric("m", "scalar", "12", NULL, 0);
#elif CASE == 3
	double v[2] = { 1, 2 };
	return ksft_metric("m", "scalar", v, NULL, 0);
#else
	return ksft_metric("m", "scalar", 12, NULL, 0);
#endif
}
