#!/bin/bash
# ksft-iperf3 and ksft-kperf are performance tests: on a debug kernel (a
# kernel config with CONFIG_KASAN=y) or with KSFT_MACHINE_SLOW=yes they skip
# with the reason and exit 4, unless KSFTMETRIC_PERF_FORCE=1.
# Usage: perf_skip.sh KSFT_IPERF3 KSFT_KPERF
set -u
iperf3=$1 kperf=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset KSFTMETRIC_PERF_FORCE
printf 'CONFIG_NET=y\nCONFIG_KASAN=y\n' >"$tmp/debug.config"
bad=0
expect_skip() {	# WHY-REGEX COMMAND...
	local why=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc != 4 ] || ! grep -qE "^ok 1 [a-z0-9.]+ # SKIP $why" <<<"$out" ||
	   grep -q "ktap-metric-json" <<<"$out"; then
		echo "FAIL: $* (exit $rc):"; echo "$out"; bad=1
	else
		echo "ok: $(grep SKIP <<<"$out")"
	fi
}
for slow in slow debug; do
	if [ $slow = slow ]; then
		env=(env KSFT_MACHINE_SLOW=yes) why='KSFT_MACHINE_SLOW=yes'
	else
		env=(env KSFTMETRIC_KCONFIG="$tmp/debug.config") why='debug kernel \(CONFIG_KASAN\)'
	fi
	expect_skip "$why" "${env[@]}" "$iperf3" run --server-addr 127.0.0.1
	expect_skip "$why" "${env[@]}" "$kperf" run --local-addr 127.0.0.1 --remote-addr 127.0.0.1
done
exit $bad
