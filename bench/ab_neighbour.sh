#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The A/B mode beside a controlled noisy neighbour (issue 21): an A/A set
# (pfifo both times) and an A/B set (B: a tbf rate cap on the sender's
# veth) between two namespaces, N pairs each, with K busy loops running
# (unpinned). Prints each set's summary: the CV of the paired B/A ratio
# beside the unpaired CVs of A and B.
# Usage (root): bench/ab_neighbour.sh [PAIRS] [LOOPS] [BUILD] [SEED]
set -eu
pairs=${1:-15} loops=${2:-1} build=${3:-build} seed=${4:-2126}
[ "$(id -u)" = 0 ] || { echo "ab_neighbour: needs root"; exit 77; }
tag=kab$$ a=kab$$a b=kab$$b
busy=()
cleanup() {
	for p in "${busy[@]}"; do kill "$p" 2>/dev/null || true; done
	ip netns del "$a" 2>/dev/null || true
	ip netns del "$b" 2>/dev/null || true
}
trap cleanup EXIT
ip netns add "$a"
ip netns add "$b"
ip link add "${tag}x" netns "$a" type veth peer name "${tag}y" netns "$b"
ip -n "$a" addr add 198.18.0.1/24 dev "${tag}x"
ip -n "$b" addr add 198.18.0.2/24 dev "${tag}y"
for n in "$a" "$b"; do ip -n "$n" link set lo up; done
ip -n "$a" link set "${tag}x" up
ip -n "$b" link set "${tag}y" up
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
