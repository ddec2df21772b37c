#!/bin/bash
# Record a two-runner CI loop (issue 40): two runners, each a network
# namespace of its own with its own loopback, take turns running the main
# job (iperf-selftest --loopback); after UNCHANGED runs each, a token bucket
# (tc tbf on each namespace's lo) caps the throughput at (100 - DOSE) % of
# that runner's unchanged median for REGRESSED more runs each. Each run's
# KTAP log is kept as OUTDIR/NNN-rK.log (NNN: the run's place in time), and
# OUTDIR/index.tsv lists "NNN runner phase cap_bps" per run, so a replay can
# judge them in time order through compare --db and ingest, each with its
# runner's context (bench/gate/replay_two_runner.py).
#
# Namespaces keep the host's own lo (and the other helpers on a shared
# machine) untouched. Usage (root):
#   bench/record/record_two_runner.sh OUTDIR DOSE_PCT [UNCHANGED 8] [REGRESSED 12] [SECONDS 2] [REPEAT 3]
set -eu
out=$1 dose=$2 unchanged=${3:-8} regressed=${4:-12} secs=${5:-2} repeat=${6:-3}
[ "$(id -u)" = 0 ] || { echo "record_two_runner: needs root (network namespaces)"; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)
job=${IPERF_SELFTEST:-$here/../../build/examples/perf_selftest/iperf-selftest}
[ -x "$job" ] || { echo "record_two_runner: no $job (build first)"; exit 77; }
mkdir -p "$out"
tag=kt2r$$
ns() { echo "${tag}$1"; }
cleanup() { for r in r1 r2; do ip netns del "$(ns $r)" 2>/dev/null || true; done; }
trap cleanup EXIT
for r in r1 r2; do
	ip netns add "$(ns $r)"
	ip -n "$(ns $r)" link set lo up
done
echo "# record_two_runner dose ${dose}% unchanged $unchanged regressed $regressed" \
     "time $secs repeat $repeat start $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)" \
	>"$out/index.tsv"

median_gbps() {	# RUNNER: median of its unchanged runs' throughput repeats (bits/s)
	python3 - "$out" "$1" <<'EOF'
import json, os, sys
d, r = sys.argv[1:3]
v = []
for line in open(os.path.join(d, "index.tsv")):
    if line.startswith("#"):
        continue
    nnn, runner, phase, _ = line.split()
    if runner != r or phase != "unchanged":
        continue
    for l in open(os.path.join(d, "%s-%s.log" % (nnn, runner))):
        if l.startswith("# ktap-metric-json:") and '"name":"throughput"' in l:
            x = json.loads(l.split(":", 1)[1])["value"]
            if x > 0:
                v.append(x)
v.sort()
print(int(v[len(v) // 2] * 1e9) if v else 0)
EOF
}

n=0
run_one() {	# RUNNER PHASE CAP
	n=$((n + 1))
	local nnn
	nnn=$(printf %03d "$n")
	ip netns exec "$(ns "$1")" "$job" --loopback --time "$secs" --repeat "$repeat" \
		>"$out/$nnn-$1.log" 2>&1 || true
	echo "$nnn $1 $2 $3" >>"$out/index.tsv"
	echo "$nnn $1 $2 cap $3 $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
}

for _ in $(seq "$unchanged"); do
	for r in r1 r2; do run_one $r unchanged 0; done
done
for r in r1 r2; do
	med=$(median_gbps $r)
	cap=$((med * (100 - dose) / 100))
	eval "cap_$r=$cap"
	# burst: 50 ms at the rate
	tc -n "$(ns $r)" qdisc add dev lo root tbf rate "${cap}bit" burst $((cap / 8 / 20)) latency 400ms
	echo "# $r median $med bit/s, cap $cap bit/s" >>"$out/index.tsv"
done
for _ in $(seq "$regressed"); do
	for r in r1 r2; do eval "run_one $r regressed \$cap_$r"; done
done
echo "# end $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/index.tsv"
