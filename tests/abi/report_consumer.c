/* An out-of-tree consumer: built only with `pkg-config --cflags --libs
 * ksftmetric-report`; reads a KTAP log from memory and counts its series. */
#include <ksftmetric/report.h>
#include <stdio.h>
#include <string.h>

static const char log_text[] =
	"KTAP version 1\n1..1\n"
	"# ktap-metric-json: {\"name\":\"throughput\",\"shape\":\"scalar\",\"time\":0.1,\"value\":32.5}\n"
	"ok 1 case\n";

int main(void)
{
	struct ksft_metric_report *r = ksft_metric_report_new(NULL);
	int n;

	if (!r)
		return 1;
	n = ksft_metric_report_read_buffer(r, log_text, strlen(log_text), "mem");
	if (n != 1 || ksft_metric_report_series_count(r) != 1) {
		fprintf(stderr, "report consumer: %d (%s)\n", n, ksft_metric_report_errmsg());
		return 1;
	}
	ksft_metric_report_free(r);
	printf("series 1\n");
	return 0;
}
