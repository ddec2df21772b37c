#!/bin/bash
# The main job: install packages, build everything, run the iperf3 selftest
# (two network namespaces joined by veth as root, loopback otherwise) under
# the system monitor into a KTAP log, then summarize and draw it with
# ksft-metric. Prints the summary table and the paths of the SVG and of
# the HTML report (report.html beside the log).
#
# --vm (first): the selftest in a ksft-vm guest on an instruction-counted
# clock (doc/vm.rst), loopback and one repeat (a deterministic run needs no
# more) unless later options say otherwise; $KSFT_VM_KERNEL picks the image
# (default: the newest 6.1 cloud kernel scripts/install-deps.sh unpacked).
set -eu
cd "$(dirname "$0")/.."
build=${KSFTM_BUILD:-build}
out=$build/main-job
vm=0
if [ "${1:-}" = --vm ]; then
	vm=1
	shift
fi
scripts/install-deps.sh
[ -f "$build/build.ninja" ] || meson setup "$build" >/dev/null
meson compile -C "$build" >/dev/null
mkdir -p "$out"

selftest=$build/examples/perf_selftest/iperf-selftest
status=0
if [ $vm = 1 ]; then
	kernel=${KSFT_VM_KERNEL:-$(ls -d /var/cache/ksft-vm-kernels/linux-image-6.1.0-*/boot/vmlinuz-* 2>/dev/null |
		sort -V | tail -n1)}
	if [ -z "$kernel" ]; then
		echo "run-main-job: --vm: no kernel image (set KSFT_VM_KERNEL)" >&2
		exit 2
	fi
	echo "### $build/tools/vm/ksft-vm --kernel $kernel -- $selftest --loopback --repeat 1 $* > $out/ktap.log"
	python3 "$build/tools/vm/ksft-vm" --kernel "$kernel" --add "$selftest" -- \
		"$selftest" --loopback --repeat 1 "$@" > "$out/ktap.log" || status=$?
else
	echo "### $selftest $* > $out/ktap.log"
	"$selftest" "$@" > "$out/ktap.log" || status=$?
fi
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
