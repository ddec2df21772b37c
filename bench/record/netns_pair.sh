# SPDX-License-Identifier: GPL-2.0
# The recorders' network (sourced by record_corpus.sh, record_tbf.sh and
# ab_neighbour.sh, never run): two network namespaces joined by veth,
# 198.18.0.0/24 (the benchmarking range) inside them only, and one iperf3
# measurement between them.
#
#   . "$(dirname "$0")/netns_pair.sh"
#   netns_pair_up TAG     # $a = TAGa (198.18.0.1, device TAGx, the server),
#                         # $b = TAGb (198.18.0.2, device TAGy, the client);
#                         # both deleted on exit (an EXIT trap; a script with
#                         # more to undo traps its own and calls netns_pair_down)

netns_pair_down() {
	ip netns del "$a" 2>/dev/null || true
	ip netns del "$b" 2>/dev/null || true
}

netns_pair_up() {	# TAG
	tag=$1 a=${1}a b=${1}b
	trap netns_pair_down EXIT
	ip netns add "$a"
	ip netns add "$b"
	ip link add "${tag}x" netns "$a" type veth peer name "${tag}y" netns "$b"
	ip -n "$a" addr add 198.18.0.1/24 dev "${tag}x"
	ip -n "$b" addr add 198.18.0.2/24 dev "${tag}y"
	for n in "$a" "$b"; do ip -n "$n" link set lo up; done
	ip -n "$a" link set "${tag}x" up
	ip -n "$b" link set "${tag}y" up
}

busy_jiffies() {	# usr nice sys idle iowait irq softirq steal: all but idle, iowait, steal
	awk '/^cpu /{print $2+$3+$4+$7+$8}' /proc/stat
}

# One iperf3 measurement of SECONDS from $b to a one-off server in $a:
# iperf3's --json document in $iperf3_json, the whole host's busy jiffies
# (both namespaces share its CPUs) before and after it in $busy0, $busy1.
netns_pair_iperf3() {	# SECONDS
	ip netns exec "$a" iperf3 -s -1 -B 198.18.0.1 -p 5201 >/dev/null 2>&1 &
	local srv=$!
	for _ in $(seq 50); do	# listening? (a probe connection would be its one test)
		ip netns exec "$a" ss -Hltn "sport = :5201" | grep -q . && break
		sleep 0.1
	done
	busy0=$(busy_jiffies)
	iperf3_json=$(ip netns exec "$b" iperf3 -c 198.18.0.1 -p 5201 -t "$1" --json)
	busy1=$(busy_jiffies)
	wait "$srv" 2>/dev/null || true
}
