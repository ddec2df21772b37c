#!/bin/bash
# Record a corpus for single-run detection after a steady history (issue
# 31 item 17): UNCHANGED iperf3 runs between two network namespaces over
# veth, then single runs capped by a token bucket (tc tbf on the sender's
# veth) at 90 % and 95 % of the unchanged runs' median throughput, one of
# each per round in a random order. A cap is a known slowdown of a single
# run (what a regression looks like the first time it runs), recorded
# after the history it is judged against, on the same machine.
#
# Each measurement is one JSON line (record_corpus.sh's fields, with the
# cap instead of nftables rules; cap 0: unchanged):
#   {"cap":C,"round":R,"gbps":X,"retransmits":K,"busy_s":B,"gbytes":G,
#    "cost":B/G,"cap_gbps":RATE,"t":UNIX}
#
# Usage (root): bench/record/record_tbf.sh OUT.jsonl [UNCHANGED] [CAPPED] [SECONDS]
#   default: 40 unchanged runs, then 12 rounds of 90 % and 95 %, 2-s runs.
set -eu
out=$1 unchanged=${2:-40} capped=${3:-12} secs=${4:-2}
[ "$(id -u)" = 0 ] || { echo "record_tbf: needs root (network namespaces)"; exit 77; }
command -v iperf3 >/dev/null && command -v tc >/dev/null ||
	{ echo "record_tbf: needs iperf3 and tc"; exit 77; }

. "$(dirname "$0")/netns_pair.sh"
netns_pair_up "kt$$"

summarize='
import json, sys, time
cap, rnd, b0, b1, hz, rate = sys.argv[1:7]
end = json.loads(sys.stdin.read())["end"]
gbps = end["sum_received"]["bits_per_second"] / 1e9
gbytes = end["sum_received"]["bytes"] / 1e9
busy = (int(b1) - int(b0)) / int(hz)
print(json.dumps({"cap": int(cap), "round": int(rnd), "gbps": gbps,
                  "retransmits": end["sum_sent"].get("retransmits"),
                  "busy_s": busy, "gbytes": gbytes,
                  "cost": busy / gbytes if gbytes else None,
                  "cap_gbps": float(rate) if rate != "0" else None, "t": time.time()},
                 sort_keys=True))
'

# The client (sender) is in $b: its veth's egress carries the data.
set_cap() {	# RATE_GBPS (0: none)
	tc -n "$b" qdisc del dev "${tag}y" root 2>/dev/null || true
	[ "$1" = 0 ] && return
	# burst: 50 ms at the rate (a smaller bucket cannot reach the rate at HZ ticks)
	local bytes
	bytes=$(python3 -c "print(int($1 * 1e9 / 8 * 0.05))")
	tc -n "$b" qdisc add dev "${tag}y" root tbf rate "$(python3 -c "print(int($1 * 1e9))")bit" \
		burst "$bytes" latency 400ms
}

measure() {	# CAP ROUND RATE
	local hz
	hz=$(getconf CLK_TCK)
	netns_pair_iperf3 "$secs"
	python3 -c "$summarize" "$1" "$2" "$busy0" "$busy1" "$hz" "$3" <<<"$iperf3_json"
}

: >"$out"
set_cap 0
for ((r = 0; r < unchanged; r++)); do
	measure 0 "$r" 0 >>"$out"
done
median=$(python3 -c '
import json, statistics, sys
print(statistics.median(json.loads(l)["gbps"] for l in open(sys.argv[1])))' "$out")
echo "unchanged: $unchanged runs, median $median Gbit/s"
for ((r = 0; r < capped; r++)); do
	for c in $(printf '%s\n' 90 95 | shuf); do
		rate=$(python3 -c "print($median * $c / 100)")
		set_cap "$rate"
		measure "$c" "$((unchanged + r))" "$rate" >>"$out"
	done
	set_cap 0
	echo "round $((r + 1))/$capped"
done
