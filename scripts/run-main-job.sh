#!/bin/bash
# The main job: install packages, build everything, run the iperf3 selftest
# (two network namespaces joined by veth as root, loopback otherwise) under
# the system monitor into a KTAP log, then summarize and draw it with
# ksft-metric. Prints the summary table and the paths of the SVG and of
# the HTML report (report.html beside the log).
set -eu
cd "$(dirname "$0")/.."
build=${KSFTM_BUILD:-build}
out=$build/main-job
scripts/install-deps.sh
[ -f "$build/build.ninja" ] || meson setup "$build" >/dev/null
meson compile -C "$build" >/dev/null
mkdir -p "$out"

echo "### $build/examples/perf_selftest/iperf-selftest $* > $out/ktap.log"
status=0
"$build/examples/perf_selftest/iperf-selftest" "$@" > "$out/ktap.log" || status=$?
grep -vE 'ktap-metric-(policy-)?json' "$out/ktap.log"
echo "($(grep -cE 'ktap-metric-(policy-)?json' "$out/ktap.log") metric lines in $out/ktap.log)"
echo
echo "### ksft-metric report $out/ktap.log"
"$build/tools/ksft-metric" report "$out/ktap.log"
echo
"$build/tools/ksft-metric" plot -o "$out/metrics.svg" --title "iperf3 between two namespaces, system monitor on both endpoints" "$out/ktap.log"
echo "SVG: $out/metrics.svg"
"$build/tools/ksft-metric" html -o "$out/report.html" --title "iperf3 between two namespaces, system monitor on both endpoints" "$out/ktap.log"
echo "HTML: $out/report.html"
exit $status
