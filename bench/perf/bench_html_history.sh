#!/bin/bash
# html --db against a history that grows beside the page (issue 19 item
# 10): the same 100-series page over a SQLite history of RUNS runs of 100
# series, then of RUNS runs of 1,600 series (the page's 100 and 1,500
# more). Prints wall time and peak RSS of one page each (bench/perf/peak_rss.c).
#
#   bench/perf/bench_html_history.sh build/tools/ksft-metric build/bench/peak-rss [RUNS]
#
# Default 50 runs. BEFORE=other/ksft-metric also measures that binary on
# the same histories (a before/after in one run). Prints; never passes or
# fails.
set -eu
ksft=$(realpath "$1")
peak=$(realpath "$2")
runs=${3:-50}
tmp=$(mktemp -d /tmp/ksftm-bench-html-history.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

cases() {	# FILE N: a KTAP log of N cases, one throughput series each
	python3 - "$1" "$2" <<'PY'
import sys
path, n = sys.argv[1], int(sys.argv[2])
pol = ('# ktap-metric-policy-json: {"name":"throughput","regression":{"better":'
       '"higher","compare":"p50","relative_tolerance":0.05},"summarize":"distribution"}')
with open(path, "w") as f:
    f.write(f"KTAP version 1\n1..{n}\n")
    for k in range(n):
        f.write(f'{pol}\n# ktap-metric-json: {{"name":"throughput","shape":"scalar",'
                f'"time":1,"value":{100 + k % 7}}}\nok {k + 1} case{k}\n')
PY
}

echo "host: $(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
cases "$tmp/page.log" 100
for n in 100 1600; do
	cases "$tmp/run.log" "$n"
	db=$tmp/h$n.db
	for i in $(seq -w 1 "$runs"); do
		"$ksft" ingest -q --db "$db" --run "r$i" --order "$i" "$tmp/run.log" >/dev/null
	done
	for bin in ${BEFORE:+"$(realpath "$BEFORE")"} "$ksft"; do
		read -r secs kb rc < <("$peak" "$bin" html -q -o "$tmp/page.html" --db "$db" \
				       "$tmp/page.log" 2>/dev/null)
		printf '%5d series x %d runs: html --db %6.2f s %7.1f MB (exit %s) %s\n' \
			"$n" "$runs" "$secs" "$(awk "BEGIN{print $kb / 1024}")" "$rc" "$bin"
	done
done
