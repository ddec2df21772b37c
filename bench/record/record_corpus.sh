#!/bin/bash
# Record a corpus of real iperf3 measurements for judging regression gates
# (issue: "Regression verdicts CI can trust"): many unchanged runs and runs
# with a real, known per-packet slowdown, interleaved in time so that drift
# of the machine hits every configuration alike.
#
# Two network namespaces joined by veth (198.18.0.0/24, the benchmarking
# range, inside them only); the iperf3 server (the receiver) in the first.
# A slowdown is N never-matching nftables rules on the receiver's input
# hook: every packet walks all of them (extra CPU per packet, the noise
# keeps its character). Each measurement is one JSON line:
#   {"rules":N,"round":R,"gbps":X,"retransmits":K,"busy_s":B,"gbytes":G,
#    "cost":B/G,"t":UNIX}
# busy_s is the whole host's busy CPU time (usr+nice+sys+irq+softirq, all
# CPUs) during the measurement: both namespaces share this host's CPUs.
#
# Usage (root): bench/record/record_corpus.sh OUT.jsonl ROUNDS [SECONDS] [RULES...]
#   default: 2-second measurements, rules "0 0 250 500 1000" per round
#   (unchanged twice per round), each round in a random order.
# Run on a quiet machine: bench/record/record_corpus.sh corpus.jsonl 150
set -eu
out=$1 rounds=$2 secs=${3:-2}
shift $(( $# >= 3 ? 3 : $# ))
configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=(0 0 250 500 1000)
[ "$(id -u)" = 0 ] || { echo "record_corpus: needs root (network namespaces)"; exit 77; }
command -v iperf3 >/dev/null && command -v nft >/dev/null ||
	{ echo "record_corpus: needs iperf3 and nft (nftables)"; exit 77; }

. "$(dirname "$0")/netns_pair.sh"
netns_pair_up "kc$$"

# N rules that never match 198.18.0.2 -> 198.18.0.1 traffic.
set_rules() {
	local n=$1 i f
	f=$(mktemp)
	{
		echo "flush ruleset"
		echo "table inet slow {"
		echo " chain input { type filter hook input priority 0; policy accept;"
		for ((i = 0; i < n; i++)); do
			echo "  ip saddr 203.0.113.$((i % 250 + 1)) tcp dport $((1000 + i)) drop"
		done
		echo " }"
		echo "}"
	} >"$f"
	ip netns exec "$a" nft -f "$f"
	rm -f "$f"
}

# One JSON line from iperf3's --json document on stdin.
summarize='
import json, sys, time
rules, rnd, b0, b1, hz = sys.argv[1:6]
end = json.loads(sys.stdin.read())["end"]
gbps = end["sum_received"]["bits_per_second"] / 1e9
gbytes = end["sum_received"]["bytes"] / 1e9
busy = (int(b1) - int(b0)) / int(hz)
print(json.dumps({"rules": int(rules), "round": int(rnd), "gbps": gbps,
                  "retransmits": end["sum_sent"].get("retransmits"),
                  "busy_s": busy, "gbytes": gbytes,
                  "cost": busy / gbytes if gbytes else None, "t": time.time()},
                 sort_keys=True))
'

measure() {	# RULES ROUND
	local hz
	hz=$(getconf CLK_TCK)
	netns_pair_iperf3 "$secs"
	python3 -c "$summarize" "$1" "$2" "$busy0" "$busy1" "$hz" <<<"$iperf3_json"
}

: >"$out"
for ((r = 0; r < rounds; r++)); do
	for n in $(printf '%s\n' "${configs[@]}" | shuf); do
		set_rules "$n"
		measure "$n" "$r" >>"$out"
	done
	echo "round $((r + 1))/$rounds: $(wc -l <"$out") measurements"
done
