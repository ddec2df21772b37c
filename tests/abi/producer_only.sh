#!/bin/bash
# A program that only records metrics carries nothing of the report engine:
#  - libksftmetric.so.0 defines no report symbol, exported or internal;
#  - each producer (ksft-sysmon, ksft-iperf3, ksft-kperf, the selftest
#    examples) needs libksftmetric.so.0 and not libksftmetric-report;
#  - ksft-metric needs libksftmetric-report and not the producer.
# Usage: producer_only.sh LIBKSFTMETRIC.so KSFT-METRIC PRODUCER...
set -u
lib=$1 tool=$2
shift 2
bad=0
fail() { echo "FAIL: $*"; bad=1; }

# Symbols of the report engine: its API prefix and its internal rp_ names.
leaked=$(nm "$lib" | awk '{print $NF}' | grep -E '^(ksft_metric_report_|rp_)' | head)
[ -z "$leaked" ] || fail "$lib holds report engine symbols: $(echo $leaked)"
nm -D --defined-only "$lib" | grep -qE ' ksft_metric_case_begin(@|$)' ||
	fail "$lib does not export ksft_metric_case_begin (wrong file?)"

needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
[ $# -gt 0 ] || fail "no producer programs given"
for p in "$@"; do
	n=$(needed "$p")
	grep -qx 'libksftmetric.so.0' <<<"$n" || fail "$(basename "$p") does not link libksftmetric.so.0"
	! grep -q 'libksftmetric-report' <<<"$n" || fail "$(basename "$p") links libksftmetric-report"
	echo "$(basename "$p"): $(echo $n)"
done
n=$(needed "$tool")
grep -qx 'libksftmetric-report.so.0' <<<"$n" || fail "ksft-metric does not link libksftmetric-report.so.0"
! grep -qx 'libksftmetric.so.0' <<<"$n" || fail "ksft-metric links the producer library"
echo "ksft-metric: $(echo $n)"
[ $bad = 0 ] && echo "producer-only linkage: ok"
exit $bad
