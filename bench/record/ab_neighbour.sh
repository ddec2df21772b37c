#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The A/B mode beside a controlled noisy neighbour (issue 21): an A/A set
# (pfifo both times) and an A/B set (B: a tbf rate cap on the sender's
# veth) between two namespaces, N pairs each, with K busy loops running
# (unpinned). Prints each set's summary: the CV of the paired B/A ratio
# beside the unpaired CVs of A and B.
# Usage (root): bench/record/ab_neighbour.sh [PAIRS] [LOOPS] [BUILD] [SEED]
set -eu
pairs=${1:-15} loops=${2:-1} build=${3:-build} seed=${4:-2126}
[ "$(id -u)" = 0 ] || { echo "ab_neighbour: needs root"; exit 77; }
. "$(dirname "$0")/netns_pair.sh"
busy=()
cleanup() {
	for p in "${busy[@]}"; do kill "$p" 2>/dev/null || true; done
	netns_pair_down
}
netns_pair_up "kab$$"
trap cleanup EXIT
for ((i = 0; i < loops; i++)); do
	sh -c 'while :; do :; done' &
	busy+=($!)
done
echo "load: $(cat /proc/loadavg), $loops busy loops"
pfifo="ip netns exec $b tc qdisc replace dev ${tag}y root pfifo"
tbf="ip netns exec $b tc qdisc replace dev ${tag}y root tbf rate 1gbit burst 256kb latency 20ms"
for set in "A/A:$pfifo" "A/B:$tbf"; do
	echo "== ${set%%:*} (B: ${set#*:})"
	ip netns exec "$a" "$build/examples/iperf3/ksft-iperf3" run --metrics --time 2 \
		--interval 0.25 --server-addr 198.18.0.1 --pairs "$pairs" --seed "$seed" \
		--ab-a "$pfifo" --ab-b "${set#*:}" --remote ip netns exec "$b" |
		grep -E '^# (A/B|pair)|^(not )?ok'
done
